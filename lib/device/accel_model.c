/* SPDX-License-Identifier: BSD-3-Clause
 * The modeled accelerator (`--gpu model:PROFILE[@device]`): a batch device
 * whose completion times follow a profile (per task: fixed overhead +
 * per-packet + per-byte cost, rows by batch size), and whose results are
 * computed with the CPU implementations when a batch completes, so the
 * sink still verifies every packet. Batches are served one after another
 * (one engine), so a batch submitted behind another waits for it.
 * Every report marks it "(modeled)".
 *
 * Profile files are JSON (format heteroplane-profile-1, profiles/NAME.json);
 * the same format is written by measured profiles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_cycles.h>

#include "hp_common.h"
#include "hp_device.h"
#include "hp_model.h"

#define QCAP 16

struct model_priv {
	struct hp_model m;
	struct hp_batch_job *q[QCAP];   /* submitted, in completion order */
	unsigned int head, n;
	uint64_t busy_until;
};

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

int
hp_model_load(struct hp_model *m, const char *spec, char *err, size_t errlen)
{
	char path[1024], name[128], where[1400], *at;
	const char *devname = "gpu", *key;
	json_error_t je;
	json_t *root, *devs, *dev, *tasks, *rows;
	int ret = -EINVAL;

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
	if (strchr(name, '/') != NULL || strstr(name, ".json") != NULL)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s.json", hp_profile_dir(), name);
	root = json_load_file(path, 0, &je);
	if (root == NULL) {
		snprintf(err, errlen, "profile %s: %s (line %d)", path, je.text, je.line);
		return -EINVAL;
	}
	snprintf(m->profile, sizeof(m->profile), "%s", name);
	snprintf(m->device, sizeof(m->device), "%s", devname);
	devs = json_object_get(root, "devices");
	dev = json_object_get(devs, devname);
	if (!json_is_object(dev)) {
		snprintf(err, errlen, "profile %s: no device '%s' under \"devices\"", path, devname);
		goto out;
	}
	{
		json_t *mb = json_object_get(dev, "max_batch");
		json_t *ce = json_object_get(dev, "copy_engines");
		json_t *mk = json_object_get(dev, "mem_kind");

		if (!json_is_integer(mb) || json_integer_value(mb) < 1 ||
		    json_integer_value(mb) > HP_BATCH_MAX) {
			snprintf(err, errlen, "profile %s: devices.%s.max_batch: expected an integer 1..%d",
				 path, devname, HP_BATCH_MAX);
			goto out;
		}
		m->max_batch = (uint32_t)json_integer_value(mb);
		m->power_idle_w = m->power_busy_w = -1;
		if (json_object_get(dev, "power") != NULL) {
			json_t *pw = json_object_get(dev, "power");

			snprintf(where, sizeof(where), "profile %s: devices.%s.power", path, devname);
			if (!json_is_object(pw)) {
				snprintf(err, errlen, "%s: expected an object", where);
				goto out;
			}
			if (num(pw, "idle_w", &m->power_idle_w, where, err, errlen) < 0 ||
			    num(pw, "busy_w", &m->power_busy_w, where, err, errlen) < 0)
				goto out;
		}
		m->copy_engines = json_is_integer(ce) ? (uint32_t)json_integer_value(ce) : 0;
		snprintf(m->mem_kind, sizeof(m->mem_kind), "%s",
			 json_is_string(mk) ? json_string_value(mk) : "modeled");
	}
	tasks = json_object_get(dev, "tasks");
	if (!json_is_object(tasks) || json_object_size(tasks) == 0) {
		snprintf(err, errlen, "profile %s: devices.%s.tasks: expected an object of tasks", path, devname);
		goto out;
	}
	json_object_foreach(tasks, key, rows) {
		struct hp_model_task *t;
		size_t i;
		json_t *row;

		if (m->n_tasks == HP_MODEL_TASKS) {
			snprintf(err, errlen, "profile %s: more than %d tasks", path, HP_MODEL_TASKS);
			goto out;
		}
		t = &m->tasks[m->n_tasks++];
		snprintf(t->name, sizeof(t->name), "%s", key);
		if (!json_is_array(rows) || json_array_size(rows) == 0 ||
		    json_array_size(rows) > HP_MODEL_ROWS) {
			snprintf(err, errlen, "profile %s: devices.%s.tasks.%s: expected 1..%d rows",
				 path, devname, key, HP_MODEL_ROWS);
			goto out;
		}
		json_array_foreach(rows, i, row) {
			struct hp_model_row *r = &t->rows[i];
			double b;

			snprintf(where, sizeof(where), "profile %s: devices.%s.tasks.%s[%zu]",
				 path, devname, key, i);
			if (!json_is_object(row)) {
				snprintf(err, errlen, "%s: expected an object", where);
				goto out;
			}
			if (num(row, "batch", &b, where, err, errlen) < 0 ||
			    num(row, "fixed_us", &r->fixed_us, where, err, errlen) < 0 ||
			    num(row, "per_pkt_us", &r->per_pkt_us, where, err, errlen) < 0 ||
			    num(row, "per_byte_ns", &r->per_byte_ns, where, err, errlen) < 0)
				goto out;
			if (b < 1 || b > HP_BATCH_MAX || (i > 0 && b <= t->rows[i - 1].batch)) {
				snprintf(err, errlen, "%s.batch: expected 1..%d, increasing", where,
					 HP_BATCH_MAX);
				goto out;
			}
			r->batch = (uint32_t)b;
			t->n_rows++;
		}
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

/* ---- the accelerator backend ---- */

static int
model_open(struct hp_device *dev, const char *arg, char *err, size_t errlen)
{
	struct model_priv *p = calloc(1, sizeof(*p));
	unsigned int k;
	int ret;

	if (p == NULL)
		return -ENOMEM;
	ret = hp_model_load(&p->m, arg, err, errlen);
	if (ret < 0)
		goto fail;
	for (k = 0; k < dev->n_tasks; k++) {
		if (hp_model_predict_us(&p->m, dev->ctx[k].ops->name, 1, 64) < 0) {
			snprintf(err, errlen, "profile %s has no model of task %s on %s (app %s needs it)",
				 p->m.profile, dev->ctx[k].ops->name, p->m.device,
				 dev->env->app->name);
			ret = -ENOTSUP;
			goto fail;
		}
	}
	dev->accel->priv = p;
	snprintf(dev->name, sizeof(dev->name), "model:%s%s%s", p->m.profile,
		 strcmp(p->m.device, "gpu") ? "@" : "", strcmp(p->m.device, "gpu") ? p->m.device : "");
	dev->caps = (struct hp_dev_caps){
		.max_batch_pkts = p->m.max_batch,
		.min_batch_pkts = 1,
		.copy_engines = p->m.copy_engines,
		.streams = 1,
		.modeled = true,
		.one_task = true,
		.power_idle_w = p->m.power_idle_w,
		.power_busy_w = p->m.power_busy_w,
	};
	snprintf(dev->caps.mem_kind, sizeof(dev->caps.mem_kind), "%s", p->m.mem_kind);
	return 0;
fail:
	free(p);
	return ret;
}

static void
model_close(struct hp_device *dev)
{
	free(dev->accel->priv);
	dev->accel->priv = NULL;
}

static uint64_t
model_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
	      uint32_t bytes)
{
	const struct model_priv *p = dev->accel->priv;
	double us = 0;
	unsigned int k;

	for (k = 0; k < dev->n_tasks; k++)
		if (task == HP_MAX_TASKS || task == k)
			us += hp_model_predict_us(&p->m, dev->ctx[k].ops->name, n, bytes);
	return (uint64_t)(us * dev->time_scale * (double)dev->env->hz / 1e6);
}

static int
model_submit(struct hp_device *dev, struct hp_batch_job *job)
{
	struct model_priv *p = dev->accel->priv;
	uint64_t svc = hp_batch_job_service(dev, job);

	if (p->n == QCAP)
		return -EBUSY;
	p->busy_until = RTE_MAX(p->busy_until, job->t_submit) + svc;
	job->t_ready = p->busy_until;
	dev->st.model_cycles += svc;
	p->q[(p->head + p->n) % QCAP] = job;
	p->n++;
	return 0;
}

static struct hp_batch_job *
model_poll(struct hp_device *dev, int *err)
{
	struct model_priv *p = dev->accel->priv;
	struct hp_batch_job *job;
	uint32_t i;

	*err = 0;
	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	if (rte_rdtsc() < job->t_ready)
		return NULL;
	p->head = (p->head + 1) % QCAP;
	p->n--;
	/* The results: the CPU implementations, now that the batch is
	 * "done" (so a failure before this point leaves the data as it
	 * came, for the CPU fallback). */
	for (i = 0; i < job->n; i += HP_BURST)
		hp_device_run_chain(dev, job->pkts + i,
				    (uint16_t)RTE_MIN(job->n - i, (uint32_t)HP_BURST),
				    job->t_submit);
	return job;
}

static unsigned int
model_inflight(const struct hp_device *dev)
{
	const struct model_priv *p = dev->accel->priv;

	return p->n;
}

static struct hp_batch_job *
model_reclaim(struct hp_device *dev)
{
	struct model_priv *p = dev->accel->priv;
	struct hp_batch_job *job;

	if (p->n == 0)
		return NULL;
	job = p->q[p->head];
	p->head = (p->head + 1) % QCAP;
	p->n--;
	return job;
}

static void
model_describe(const struct hp_device *dev, char *buf, size_t len)
{
	const struct model_priv *p = dev->accel->priv;

	snprintf(buf, len, "%s (modeled): profile %s, device %s, max batch %u, %u task model(s)%s",
		 dev->name, p->m.profile, p->m.device, p->m.max_batch, p->m.n_tasks,
		 dev->time_scale != 1.0 ? ", time dilated" : "");
}

static const struct hp_accel_ops accel_model_ops = {
	.name = "model",
	.desc = "modeled accelerator: profile timings, CPU results (reports say modeled)",
	.open = model_open,
	.close = model_close,
	.submit = model_submit,
	.poll = model_poll,
	.inflight = model_inflight,
	.reclaim = model_reclaim,
	.predict = model_predict,
	.describe = model_describe,
};

HP_ACCEL_REGISTER(accel_model_ops);
