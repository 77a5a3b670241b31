/* SPDX-License-Identifier: BSD-3-Clause
 * The modeled accelerator (`--gpu model:PROFILE[@device]`): a batch device
 * whose completion times follow a profile (per task: fixed overhead +
 * per-packet + per-byte cost, rows by batch size), and whose results are
 * computed with the CPU implementations when a batch completes, so the
 * sink still verifies every packet. Batches are served one after another
 * (one engine), so a batch submitted behind another waits for it.
 * Every report marks it "(modeled)".
 *
 * Profiles (format heteroplane-profile-1) are read by hp_model.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "hp_common.h"
#include "hp_accel.h"
#include "hp_model.h"

#define QCAP 16

struct model_priv {
	struct hp_model m;
	struct hp_batch_job *q[QCAP];   /* submitted, in completion order */
	unsigned int head, n;
	uint64_t busy_until;
};

/* ---- the accelerator backend ---- */

/* Profiles read by model_check before EAL, handed to the model_open of
 * the same argument so that each file is read once (a run has at most a
 * CPU model and a GPU model; several workers share the CPU's). */
#define HANDOFF 4
static struct {
	char arg[256];
	struct hp_model m;
} handoff[HANDOFF];
static unsigned int n_handoff;

static int
model_check(const char *arg, char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n_handoff; i++)
		if (strcmp(handoff[i].arg, arg != NULL ? arg : "") == 0)
			return 0;
	if (n_handoff == HANDOFF || arg == NULL || strlen(arg) >= sizeof(handoff[0].arg)) {
		static struct hp_model m;	/* checked only: open reads it again */

		return hp_model_load(&m, arg, err, errlen);
	}
	ret = hp_model_load(&handoff[n_handoff].m, arg, err, errlen);
	if (ret < 0)
		return ret;
	snprintf(handoff[n_handoff].arg, sizeof(handoff[0].arg), "%s", arg);
	n_handoff++;
	return 0;
}

static int
model_get(struct hp_model *m, const char *arg, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; arg != NULL && i < n_handoff; i++)
		if (strcmp(handoff[i].arg, arg) == 0) {
			*m = handoff[i].m;
			return 0;
		}
	return hp_model_load(m, arg, err, errlen);
}

static int
model_open(struct hp_device *dev, const char *arg, char *err, size_t errlen)
{
	struct model_priv *p = calloc(1, sizeof(*p));
	unsigned int k;
	int ret;

	if (p == NULL)
		return -ENOMEM;
	ret = model_get(&p->m, arg, err, errlen);
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
	hp_accel_set_priv(dev, p);
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
		.power_off_w = p->m.power_off_w,
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
	free(hp_accel_priv(dev));
	hp_accel_set_priv(dev, NULL);
}

static uint64_t
model_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
	      uint32_t bytes)
{
	const struct model_priv *p = hp_accel_priv(dev);
	double us = 0;
	unsigned int k;

	for (k = 0; k < dev->n_tasks; k++)
		if (task == HP_MAX_TASKS || task == k)
			us += hp_model_predict_us(&p->m, dev->ctx[k].ops->name, n, bytes);
	return (uint64_t)(us * hp_accel_time_scale(dev) * (double)dev->env->hz / 1e6);
}

static int
model_submit(struct hp_device *dev, struct hp_batch_job *job)
{
	struct model_priv *p = hp_accel_priv(dev);
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
	struct model_priv *p = hp_accel_priv(dev);
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
	const struct model_priv *p = hp_accel_priv(dev);

	return p->n;
}

static struct hp_batch_job *
model_reclaim(struct hp_device *dev)
{
	struct model_priv *p = hp_accel_priv(dev);
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
	const struct model_priv *p = hp_accel_priv(dev);

	snprintf(buf, len, "%s (modeled): profile %s, device %s, max batch %u, %u task model(s)%s",
		 dev->name, p->m.profile, p->m.device, p->m.max_batch, p->m.n_tasks,
		 hp_accel_time_scale(dev) != 1.0 ? ", time dilated" : "");
}

static const struct hp_accel_ops accel_model_ops = {
	.name = "model",
	.usage = "model:PROFILE",
	.desc = "modeled accelerator: profile timings, CPU results (reports say modeled)",
	.check = model_check,
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
