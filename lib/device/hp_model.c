/* SPDX-License-Identifier: BSD-3-Clause
 * Service-time profiles (format heteroplane-profile-1, profiles/NAME.json,
 * the same format for transcribed and measured profiles): the parser and
 * the cost model. Kept apart from the modeled device so that the parser of
 * these outside files can be fuzzed alone (tests/fuzz/fuzz_core.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hp_batch.h"
#include "hp_common.h"
#include "hp_model.h"

const char *
hp_profile_dir(void)
{
	const char *d = getenv("HP_PROFILE_DIR");

	return d != NULL && d[0] != '\0' ? d : HP_PROFILE_DIR;
}

static const struct hp_model_row *
pick_row(const struct hp_model_task *t, uint32_t n)
{
	unsigned int i;

	/* The smallest measured batch that holds n packets; beyond the
	 * largest, its row (cost lines are per batch, the sizes grow). */
	for (i = 0; i < t->n_rows; i++)
		if (t->rows[i].batch >= n)
			return &t->rows[i];
	return &t->rows[t->n_rows - 1];
}

double
hp_model_predict_us(const struct hp_model *m, const char *task, uint32_t n,
		    uint32_t bytes)
{
	unsigned int i;

	for (i = 0; i < m->n_tasks; i++) {
		if (strcmp(m->tasks[i].name, task) == 0) {
			const struct hp_model_row *r = pick_row(&m->tasks[i], n);

			return r->fixed_us + r->per_pkt_us * n + r->per_byte_ns * bytes / 1e3;
		}
	}
	return -1;
}

static int
num(json_t *o, const char *key, double *v, const char *where, char *err,
    size_t errlen)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_number(x) || json_number_value(x) < 0) {
		snprintf(err, errlen, "%s.%s: expected a number >= 0", where, key);
		return -EINVAL;
	}
	*v = json_number_value(x);
	return 0;
}

/* One device's section of a loaded profile into m: 0, -ENOENT when the
 * profile has no such device, -EINVAL for a bad section (err says why). */
static int
parse_device(struct hp_model *m, json_t *root, const char *name, const char *devname,
	     const char *qpath, char *err, size_t errlen)
{
	char where[512], qdev[48], qkey[48];
	const char *key;
	json_t *dev, *tasks, *rows;

	memset(m, 0, sizeof(*m));
	hp_quote(qdev, sizeof(qdev), devname, 32);
	snprintf(m->profile, sizeof(m->profile), "%s", name);
	snprintf(m->device, sizeof(m->device), "%s", devname);
	dev = json_object_get(json_object_get(root, "devices"), devname);
	if (!json_is_object(dev)) {
		snprintf(err, errlen, "profile %s: no device '%s' under \"devices\"", qpath, qdev);
		return -ENOENT;
	}
	{
		json_t *mb = json_object_get(dev, "max_batch");
		json_t *ce = json_object_get(dev, "copy_engines");
		json_t *mk = json_object_get(dev, "mem_kind");

		if (!json_is_integer(mb) || json_integer_value(mb) < 1 ||
		    json_integer_value(mb) > HP_BATCH_MAX) {
			snprintf(err, errlen, "profile %s: devices.%s.max_batch: expected an integer 1..%d",
				 qpath, qdev, HP_BATCH_MAX);
			return -EINVAL;
		}
		m->max_batch = (uint32_t)json_integer_value(mb);
		m->power_idle_w = m->power_busy_w = -1;
		if (json_object_get(dev, "power") != NULL) {
			json_t *pw = json_object_get(dev, "power");

			snprintf(where, sizeof(where), "profile %s: devices.%s.power", qpath, qdev);
			if (!json_is_object(pw)) {
				snprintf(err, errlen, "%s: expected an object", where);
				return -EINVAL;
			}
			if (num(pw, "idle_w", &m->power_idle_w, where, err, errlen) < 0 ||
			    num(pw, "busy_w", &m->power_busy_w, where, err, errlen) < 0)
				return -EINVAL;
		}
		if (ce != NULL && (!json_is_integer(ce) || json_integer_value(ce) < 0 ||
				   json_integer_value(ce) > 64)) {
			snprintf(err, errlen, "profile %s: devices.%s.copy_engines: expected an integer 0..64",
				 qpath, qdev);
			return -EINVAL;
		}
		m->copy_engines = ce != NULL ? (uint32_t)json_integer_value(ce) : 0;
		/* shown in reports: one line, bounded */
		hp_quote(m->mem_kind, sizeof(m->mem_kind),
			 json_is_string(mk) ? json_string_value(mk) : "modeled", 20);
	}
	tasks = json_object_get(dev, "tasks");
	if (!json_is_object(tasks) || json_object_size(tasks) == 0) {
		snprintf(err, errlen, "profile %s: devices.%s.tasks: expected an object of tasks", qpath, qdev);
		return -EINVAL;
	}
	json_object_foreach(tasks, key, rows) {
		struct hp_model_task *t;
		size_t i;
		json_t *row;

		if (m->n_tasks == HP_MODEL_TASKS) {
			snprintf(err, errlen, "profile %s: more than %d tasks", qpath, HP_MODEL_TASKS);
			return -EINVAL;
		}
		t = &m->tasks[m->n_tasks++];
		snprintf(t->name, sizeof(t->name), "%s", key);
		hp_quote(qkey, sizeof(qkey), key, 32);
		if (!json_is_array(rows) || json_array_size(rows) == 0 ||
		    json_array_size(rows) > HP_MODEL_ROWS) {
			snprintf(err, errlen, "profile %s: devices.%s.tasks.%s: expected 1..%d rows",
				 qpath, qdev, qkey, HP_MODEL_ROWS);
			return -EINVAL;
		}
		json_array_foreach(rows, i, row) {
			struct hp_model_row *r = &t->rows[i];
			double b;

			snprintf(where, sizeof(where), "profile %s: devices.%s.tasks.%s[%zu]",
				 qpath, qdev, qkey, i);
			if (!json_is_object(row)) {
				snprintf(err, errlen, "%s: expected an object", where);
				return -EINVAL;
			}
			if (num(row, "batch", &b, where, err, errlen) < 0 ||
			    num(row, "fixed_us", &r->fixed_us, where, err, errlen) < 0 ||
			    num(row, "per_pkt_us", &r->per_pkt_us, where, err, errlen) < 0 ||
			    num(row, "per_byte_ns", &r->per_byte_ns, where, err, errlen) < 0)
				return -EINVAL;
			if (b < 1 || b > HP_BATCH_MAX || (i > 0 && b <= t->rows[i - 1].batch)) {
				snprintf(err, errlen, "%s.batch: expected 1..%d, increasing", where,
					 HP_BATCH_MAX);
				return -EINVAL;
			}
			r->batch = (uint32_t)b;
			t->n_rows++;
		}
	}
	return 0;
}

int
hp_model_load_devices(struct hp_model *m, const char *name, const char *const *devs,
		      unsigned int n, bool *found, char *err, size_t errlen)
{
	char path[1024], qpath[160], qtext[100];
	const char *fmt;
	json_error_t je;
	json_t *root;
	unsigned int i;
	int ret = 0;

	if (strchr(name, '/') != NULL || strstr(name, ".json") != NULL)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s.json", hp_profile_dir(), name);
	/* what came from outside is echoed quoted: one line, bounded */
	hp_quote(qpath, sizeof(qpath), path, 120);
	root = json_load_file(path, 0, &je);
	if (root == NULL) {
		snprintf(err, errlen, "profile %s: %s (line %d)", qpath,
			 hp_quote(qtext, sizeof(qtext), je.text, 80), je.line);
		return -EINVAL;
	}
	fmt = json_string_value(json_object_get(root, "format"));
	if (json_object_get(root, "format") != NULL &&
	    (fmt == NULL || strcmp(fmt, "heteroplane-profile-1") != 0)) {
		snprintf(err, errlen, "profile %s: \"format\" is not \"heteroplane-profile-1\"", qpath);
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < n && ret == 0; i++) {
		ret = parse_device(&m[i], root, name, devs[i], qpath, err, errlen);
		found[i] = ret == 0;
		if (ret == -ENOENT && n > 1)
			ret = 0;	/* several asked for: each may be absent */
	}
out:
	json_decref(root);
	return ret;
}

int
hp_model_load(struct hp_model *m, const char *spec, char *err, size_t errlen)
{
	const char *devname = "gpu";
	char name[128], *at;
	bool found;
	int ret;

	memset(m, 0, sizeof(*m));
	if (spec == NULL || spec[0] == '\0') {
		snprintf(err, errlen, "model device needs a profile: model:NAME or model:FILE.json (e.g. model:jetson-thesis)");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s", spec);
	at = strchr(name, '@');
	if (at != NULL) {
		*at++ = '\0';
		devname = at;
	}
	ret = hp_model_load_devices(m, name, &devname, 1, &found, err, errlen);
	return ret == -ENOENT ? -EINVAL : ret;
}
