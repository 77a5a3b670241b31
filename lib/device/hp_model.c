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
#include <rte_common.h>

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

double
hp_model_rate_pps(const struct hp_model *m, const char *task, uint32_t batch)
{
	double us = hp_model_predict_us(m, task, batch, 1500 * batch);

	return us > 0 ? batch * 1e6 / us : -1;
}

bool
hp_model_copies_back(const struct hp_model *m, const char *task)
{
	unsigned int i;

	for (i = 0; i < m->n_copy_back; i++)
		if (strcmp(m->copy_back[i], task) == 0)
			return true;
	return false;
}

/* The entry for task with k instances of co whose batch is the smallest
 * that holds batch (else the largest), as rows are picked; NULL if none. */
static const struct hp_model_interf *
find_interf(const struct hp_model *m, const char *task, const char *co, uint32_t k,
	    uint32_t batch)
{
	const struct hp_model_interf *best = NULL, *e;
	unsigned int i;

	for (i = 0; i < m->n_interf; i++) {
		e = &m->interf[i];
		if (e->k != k || strcmp(e->task, task) != 0 || strcmp(e->co, co) != 0)
			continue;
		if (best == NULL ||
		    (e->batch >= batch && (best->batch < batch || e->batch < best->batch)) ||
		    (e->batch < batch && best->batch < batch && e->batch > best->batch))
			best = e;
	}
	return best;
}

/* Slow-down of task beside k kernels of co, from its k = 1 and 3 entries. */
static double
estimate(const struct hp_model *m, const char *task, const char *co, uint32_t k,
	 uint32_t batch)
{
	const struct hp_model_interf *e1 = find_interf(m, task, co, 1, batch);
	const struct hp_model_interf *e3 = find_interf(m, task, co, 3, batch);

	if (e1 != NULL && e3 != NULL) {
		if (k <= 3)
			return e1->slowdown + (e3->slowdown - e1->slowdown) * (k - 1) / 2.0;
		return 1 - (1 - e3->slowdown) * 4.0 / (k + 1);
	}
	if (e1 != NULL)
		return k == 1 ? e1->slowdown : 1 - (1 - e1->slowdown) * 2.0 / (k + 1);
	if (e3 != NULL)
		return 1 - (1 - e3->slowdown) * 4.0 / (k + 1);
	return (double)k / (k + 1);	/* no data: plain time sharing */
}

double
hp_model_slowdown_of(const struct hp_model *m, const char *const *kernels, unsigned int n,
		     unsigned int i, uint32_t batch)
{
	const struct hp_model_interf *e;
	double sum = 0;
	unsigned int j;
	bool shape = n > 1;

	if (n <= 1 || i >= n)
		return 0;
	for (j = 2; j < n && shape; j++)
		shape = strcmp(kernels[j], kernels[1]) == 0;
	if (shape) {
		e = find_interf(m, kernels[0], kernels[1], n - 1, batch);
		if (e != NULL)
			return i == 0 ? e->slowdown : e->co_slowdown;
	}
	for (j = 0; j < n; j++)
		if (j != i)
			sum += estimate(m, kernels[i], kernels[j], n - 1, batch);
	return sum / (n - 1);
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

/* The optional parts of a device section a platform needs: "class",
 * "pcie" {gbps, copy_back}, "interference" [{task, co, batch, k,
 * slowdown, co_slowdown}]. 0 or -EINVAL (err says why). */
static int
parse_extras(struct hp_model *m, json_t *dev, const char *qpath, const char *qdev, char *err,
	     size_t errlen)
{
	static const char *const cls[] = { "any", "cpu", "igpu", "dgpu" };
	json_t *c = json_object_get(dev, "class"), *pc = json_object_get(dev, "pcie");
	json_t *il = json_object_get(dev, "interference"), *x;
	char where[512];
	unsigned int i;
	size_t j;

	if (c != NULL) {
		for (i = 1; i < RTE_DIM(cls); i++)
			if (json_is_string(c) && strcmp(json_string_value(c), cls[i]) == 0)
				break;
		if (i == RTE_DIM(cls)) {
			snprintf(err, errlen, "profile %s: devices.%s.class: expected cpu, igpu or dgpu",
				 qpath, qdev);
			return -EINVAL;
		}
		m->cls = (enum hp_model_class)i;
	}
	if (pc != NULL) {
		json_t *cb = json_object_get(pc, "copy_back");

		snprintf(where, sizeof(where), "profile %s: devices.%s.pcie", qpath, qdev);
		if (!json_is_object(pc)) {
			snprintf(err, errlen, "%s: expected an object", where);
			return -EINVAL;
		}
		if (num(pc, "gbps", &m->pcie_gbps, where, err, errlen) < 0)
			return -EINVAL;
		if (m->pcie_gbps <= 0) {
			snprintf(err, errlen, "%s.gbps: expected a number > 0", where);
			return -EINVAL;
		}
		if (cb != NULL && (!json_is_array(cb) || json_array_size(cb) > HP_MODEL_TASKS)) {
			snprintf(err, errlen, "%s.copy_back: expected a list of at most %d task names",
				 where, HP_MODEL_TASKS);
			return -EINVAL;
		}
		json_array_foreach(cb, j, x) {
			if (!json_is_string(x) || json_string_length(x) == 0 ||
			    json_string_length(x) >= sizeof(m->copy_back[0])) {
				snprintf(err, errlen, "%s.copy_back[%zu]: expected a task name", where, j);
				return -EINVAL;
			}
			snprintf(m->copy_back[m->n_copy_back++], sizeof(m->copy_back[0]), "%s",
				 json_string_value(x));
		}
		m->pcie = true;
	}
	if (il == NULL)
		return 0;
	if (!json_is_array(il) || json_array_size(il) > HP_MODEL_INTERF) {
		snprintf(err, errlen, "profile %s: devices.%s.interference: expected a list of at most %d entries",
			 qpath, qdev, HP_MODEL_INTERF);
		return -EINVAL;
	}
	json_array_foreach(il, j, x) {
		struct hp_model_interf *e = &m->interf[j];
		json_t *t = json_object_get(x, "task"), *co = json_object_get(x, "co");
		double b, k;

		snprintf(where, sizeof(where), "profile %s: devices.%s.interference[%zu]", qpath, qdev, j);
		if (!json_is_object(x) || !json_is_string(t) || !json_is_string(co) ||
		    json_string_length(t) == 0 || json_string_length(t) >= sizeof(e->task) ||
		    json_string_length(co) == 0 || json_string_length(co) >= sizeof(e->co)) {
			snprintf(err, errlen, "%s: expected an object with \"task\" and \"co\" names", where);
			return -EINVAL;
		}
		if (num(x, "batch", &b, where, err, errlen) < 0 || num(x, "k", &k, where, err, errlen) < 0 ||
		    num(x, "slowdown", &e->slowdown, where, err, errlen) < 0 ||
		    num(x, "co_slowdown", &e->co_slowdown, where, err, errlen) < 0)
			return -EINVAL;
		if (b < 1 || b > HP_MODEL_BATCH_MAX || k < 1 || k > 64 || k != (uint32_t)k ||
		    e->slowdown >= 1 || e->co_slowdown >= 1) {
			snprintf(err, errlen, "%s: expected batch 1..%d, k 1..64 whole, slow-downs below 1",
				 where, HP_MODEL_BATCH_MAX);
			return -EINVAL;
		}
		snprintf(e->task, sizeof(e->task), "%s", json_string_value(t));
		snprintf(e->co, sizeof(e->co), "%s", json_string_value(co));
		e->batch = (uint32_t)b;
		e->k = (uint32_t)k;
		m->n_interf++;
	}
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
		m->power_idle_w = m->power_busy_w = m->power_off_w = -1;
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
			m->power_off_w = -1;
			if (json_object_get(pw, "off_w") != NULL &&
			    num(pw, "off_w", &m->power_off_w, where, err, errlen) < 0)
				return -EINVAL;
		}
		m->power_off_w = m->power_idle_w < 0 ? -1 : m->power_off_w;
		if (parse_extras(m, dev, qpath, qdev, err, errlen) < 0)
			return -EINVAL;
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
			if (b < 1 || b > HP_MODEL_BATCH_MAX || (i > 0 && b <= t->rows[i - 1].batch)) {
				snprintf(err, errlen, "%s.batch: expected 1..%d, increasing", where,
					 HP_MODEL_BATCH_MAX);
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
