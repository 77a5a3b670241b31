/* SPDX-License-Identifier: BSD-3-Clause
 * The batch device kind: the "GPU worker" loop of Johansson & Pap §4.2.4.
 * It aggregates packets from its ring into batches (hp_batch.h rules),
 * submits them to an accelerator backend (hp_accel.h: model, cuda), polls
 * completions without blocking, and stages finished packets for the
 * scheduler. Every registered backend is a device kind of its name.
 *
 * Failure (a backend error or the fail_after=N fault injection): the
 * device marks itself failed (the scheduler stops picking it), takes every
 * unfinished batch back from the backend, runs it and everything still
 * arriving on its ring through the CPU chain on this lcore, and says so.
 * No packet is lost and none is processed twice: backends write results
 * into the mbufs only when a batch completes.
 *
 * Granularity task: one open batch per task (a GPU worker feeds one kernel
 * per task, like the thesis's baseband and crypto drivers), so a batch
 * never pays two tasks' launch costs for a mix of packets.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "hp_common.h"
#include "hp_accel.h"

#define NJOBS 16

struct batch_priv {
	const struct hp_accel_ops *aops; /* the backend */
	void *accel_priv;               /* the backend's state */
	struct hp_batch_cfg bcfg;       /* batch limits after the backend's */
	uint64_t fail_after;            /* fault injection: fail after n packets */
	double time_scale;              /* modeled service times x this */
	uint32_t max_inflight;          /* batches inside the backend (0: its own) */
	struct hp_batcher b[HP_MAX_TASKS]; /* per open batch (slot) */
	struct hp_batch_job jobs[NJOBS];
	struct hp_batch_job *free_jobs[NJOBS];
	unsigned int n_free;
	unsigned int n_open;            /* slots: 1, or a task each */
	struct hp_batch_job *open[HP_MAX_TASKS]; /* batches being aggregated */
	struct hp_batch_job *done[NJOBS];
	unsigned int done_head, done_n; /* finished, being drained out */
	unsigned int drain_idx;         /* next packet of done[done_head] */
	uint64_t busy_until;            /* predicted end of submitted work */
	uint64_t submitted;             /* packets handed to the backend */
	uint64_t t_start;
};

/* What an open batch's slot runs, predicted: the chain or task `task`
 * (see hp_accel_ops.predict), or with --apps app `task`'s part of the
 * joint chain. */
static uint64_t
slot_predict(const struct hp_device *dev, const struct batch_priv *p, unsigned int task,
	     uint32_t n, uint32_t bytes)
{
	const struct hp_dev_env *env = dev->env;
	uint64_t t = 0;
	unsigned int k;

	if (env->n_apps <= 1 || task >= env->n_apps)
		return p->aops->predict(dev, task, n, bytes);
	for (k = task ? env->app_end[task - 1] : 0; k < env->app_end[task]; k++)
		t += p->aops->predict(dev, k, n, bytes);
	return t;
}

static int
batch_init(struct hp_device *dev, const char *arg, const struct hp_dev_opts *o,
	   char *err, size_t errlen)
{
	struct batch_priv *p;
	unsigned int i;
	int ret;

	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	dev->priv = p;
	p->aops = dev->kind->data;
	p->bcfg = o->batch;
	p->fail_after = o->fail_after;
	p->time_scale = o->time_scale;
	p->max_inflight = o->max_inflight;
	for (i = 0; i < NJOBS; i++)
		p->free_jobs[p->n_free++] = &p->jobs[i];
	ret = p->aops->open(dev, arg, err, errlen);
	if (ret < 0) {
		free(p);
		dev->priv = NULL;
		return ret;
	}
	/* the backend filled the caps; what a device is for is the batch
	 * kind's to say: an accelerator unless the spec says otherwise */
	dev->caps.role = o->role >= 0 ? (uint8_t)o->role : HP_DEV_ROLE_ACCEL;
	/* The backend's limits cap what the user asked for. */
	if (dev->caps.max_batch_pkts && p->bcfg.max_pkts > dev->caps.max_batch_pkts)
		p->bcfg.max_pkts = dev->caps.max_batch_pkts;
	if (p->bcfg.max_pkts > HP_STAGING_MAX)
		p->bcfg.max_pkts = HP_STAGING_MAX;
	if (dev->caps.max_batch_bytes &&
	    (p->bcfg.max_bytes == 0 || p->bcfg.max_bytes > dev->caps.max_batch_bytes))
		p->bcfg.max_bytes = dev->caps.max_batch_bytes;
	if (p->bcfg.min_pkts > p->bcfg.max_pkts)
		p->bcfg.min_pkts = p->bcfg.max_pkts;
	dev->caps.min_batch_pkts = p->bcfg.min_pkts;
	/* With --apps a batch holds one app's packets (an open batch per
	 * app): a mixed batch would run each app's kernels one after another
	 * on its stream, every packet waiting for all of them, and each
	 * stage would walk the whole batch to find its app's packets. */
	p->n_open = dev->env->task_gran && dev->caps.one_task ? dev->n_tasks :
		    dev->env->n_apps > 1 ? dev->env->n_apps : 1;
	for (i = 0; i < p->n_open; i++) {
		struct hp_batch_cfg c = p->bcfg;
		unsigned int task = p->n_open == 1 ? HP_MAX_TASKS : i;

		/* Service model of what the slot runs (the chain, or its
		 * task, or its app's chain) for the rate-adapted target:
		 * fixed = predict(1 packet) - per packet, per packet from 2
		 * sizes of a typical 512-byte packet. */
		if (p->aops->predict != NULL) {
			uint64_t t1 = slot_predict(dev, p, task, 1, 512);
			uint64_t tn = slot_predict(dev, p, task, 65, 65 * 512);

			c.svc_per_pkt = tn > t1 ? (tn - t1) / 64 : 0;
			c.svc_fixed = t1 > c.svc_per_pkt ? t1 - c.svc_per_pkt : 0;
		}
		hp_batcher_init(&p->b[i], &c);
	}
	return 0;
}

/* The open batch a packet joins: its task's with granularity task, its
 * app's with --apps. */
static inline unsigned int
slot_of(const struct hp_device *dev, const struct batch_priv *p, const struct rte_mbuf *m)
{
	const struct hp_meta *md = hp_meta((struct rte_mbuf *)(uintptr_t)m);
	unsigned int k;

	if (p->n_open == 1)
		return 0;
	k = dev->env->n_apps > 1 ? md->app : md->step;
	return k < p->n_open ? k : 0;
}

static void
batch_fini(struct hp_device *dev)
{
	struct batch_priv *p = dev->priv;

	if (p != NULL && p->aops->close != NULL)
		p->aops->close(dev);
	free(p);
	dev->priv = NULL;
}

/* The backend's model of n packets, nothing queued counted. */
static uint64_t
batch_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
	      uint32_t bytes)
{
	const struct batch_priv *p = dev->priv;

	return p->aops->predict != NULL ? p->aops->predict(dev, task, n, bytes) : 0;
}

/* When a batch of n packets submitted now would be done: what is queued
 * ahead of it counts, the device serves in order. */
static uint64_t
queued_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
	       uint32_t bytes)
{
	const struct batch_priv *p = dev->priv;
	uint64_t now = rte_rdtsc(), wait;

	if (p->aops->predict == NULL)
		return 0;
	wait = p->busy_until > now ? p->busy_until - now : 0;
	return wait + p->aops->predict(dev, task, n, bytes);
}

static void
push_done(struct batch_priv *p, struct hp_batch_job *job)
{
	p->done[(p->done_head + p->done_n) % NJOBS] = job;
	p->done_n++;
}

/* Completes a job on the CPU path (fallback after a failure). */
static void
job_on_cpu(struct hp_device *dev, struct batch_priv *p, struct hp_batch_job *job)
{
	uint32_t i;

	for (i = 0; i < job->n; i += HP_BURST) {
		uint16_t k = (uint16_t)RTE_MIN(job->n - i, (uint32_t)HP_BURST);

		hp_device_run_chain(dev, job->pkts + i, k, rte_rdtsc());
	}
	dev->st.fallback_pkts += job->n;
	push_done(p, job);
}

static void
device_fail(struct hp_device *dev, struct batch_priv *p, const char *why)
{
	struct hp_batch_job *job;
	unsigned int moved = 0;

	__atomic_store_n(&dev->failed, 1, __ATOMIC_RELEASE);
	dev->failed_at_s = (double)(rte_rdtsc() - p->t_start) / (double)dev->env->hz;
	snprintf(dev->fail_reason, sizeof(dev->fail_reason), "%s", why);
	while (p->aops->reclaim != NULL && (job = p->aops->reclaim(dev)) != NULL) {
		moved += job->n;
		job_on_cpu(dev, p, job);
	}
	for (unsigned int k = 0; k < p->n_open; k++) {
		if (p->open[k] != NULL && p->open[k]->n) {
			moved += p->open[k]->n;
			job_on_cpu(dev, p, p->open[k]);
			p->open[k] = NULL;
			hp_batcher_reset(&p->b[k]);
		}
	}
	HP_LOG(WARNING, "device %s failed: %s; %u in-flight packets and all later ones go to the CPU path",
	       dev->name, why, moved);
}

static void
submit_open(struct hp_device *dev, struct batch_priv *p, unsigned int k,
	    enum hp_flush_reason why, uint64_t now)
{
	struct hp_batch_job *job = p->open[k];
	char msg[96];
	int ret;

	/* Fault injection counts packets of the measured phase (epoch >= 1),
	 * so the calibration at full rate does not trip it early. */
	if (p->fail_after && dev->epoch_seen > 0 &&
	    p->submitted + job->n > p->fail_after) {
		snprintf(msg, sizeof(msg), "injected fault after %" PRIu64 " packets",
			 p->fail_after);
		device_fail(dev, p, msg);
		return;
	}
	/* inflight=N: at most N batches inside the backend (a GPU worker
	 * double-buffers; a modeled CPU worker takes its next burst only
	 * when the last one is done). The open batch keeps growing. */
	if (p->max_inflight && p->aops->inflight != NULL &&
	    p->aops->inflight(dev) >= p->max_inflight)
		return;
	job->t_submit = now;
	ret = p->aops->submit(dev, job);
	if (ret == -EBUSY)
		return; /* every stream busy: keep it open, stop taking packets */
	if (ret < 0) {
		snprintf(msg, sizeof(msg), "submit failed: %s", strerror(-ret));
		device_fail(dev, p, msg);
		return;
	}
	if (p->aops->predict != NULL)
		p->busy_until = RTE_MAX(p->busy_until, now) + hp_batch_job_service(dev, job);
	dev->st.flush[why]++;
	dev->st.batches++;
	dev->st.batch_pkts += job->n;
	p->submitted += job->n;
	p->open[k] = NULL;
	hp_batcher_reset(&p->b[k]);
}

/* Moves finished packets into the output staging, then the ring. */
static unsigned int
drain_done(struct hp_device *dev, struct batch_priv *p)
{
	unsigned int moved = 0;

	while (p->done_n && hp_staging_room(&dev->ost)) {
		struct hp_batch_job *job = p->done[p->done_head];

		while (p->drain_idx < job->n && hp_staging_room(&dev->ost)) {
			struct rte_mbuf *m = job->pkts[p->drain_idx++];

			dev->st.bytes += hp_meta(m)->data_len;
			hp_staging_put(&dev->ost, m);
			moved++;
		}
		if (p->drain_idx < job->n)
			break;
		dev->st.pkts += job->n;
		job->n = 0;
		job->bytes = 0;
		p->drain_idx = 0;
		p->done_head = (p->done_head + 1) % NJOBS;
		p->done_n--;
		p->free_jobs[p->n_free++] = job;
	}
	if (dev->ost.len)
		hp_device_flush_out(dev);
	return moved;
}

static void
job_clear(struct hp_batch_job *job)
{
	job->n = 0;
	job->bytes = 0;
	memset(job->task_n, 0, sizeof(job->task_n));
	memset(job->task_bytes, 0, sizeof(job->task_bytes));
}

/* Takes packets from the ring into the open batches. */
static unsigned int
intake(struct hp_device *dev, struct batch_priv *p, uint64_t now)
{
	struct rte_mbuf *pkts[HP_BURST];
	unsigned int n, i, k, want = dev->env->burst;

	/* Room for a burst that may have to finish on the CPU right away. */
	if (hp_staging_room(&dev->ost) < dev->env->burst)
		return 0;
	/* Every slot gets an open batch with room for what is taken: a
	 * packet's task is known only once it is dequeued. */
	for (k = 0; k < p->n_open; k++) {
		if (p->open[k] == NULL) {
			if (p->n_free == 0)
				return 0;
			p->open[k] = p->free_jobs[--p->n_free];
			job_clear(p->open[k]);
		}
		want = RTE_MIN(want, p->b[k].cfg.max_pkts - p->open[k]->n);
	}
	if (want == 0)
		return 0;
	/* Peek-free intake: a packet that does not fit the byte limit ends
	 * the batch and opens the next one, so nothing is put back. */
	n = rte_ring_dequeue_burst(dev->in, (void **)pkts, want, NULL);
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		/* Batch bytes are frame bytes, as in the profiles' tables. */
		uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);

		k = slot_of(dev, p, pkts[i]);
		if (!hp_batcher_fits(&p->b[k], len)) {
			submit_open(dev, p, k, HP_FLUSH_FULL, now);
			if (p->open[k] != NULL || dev->failed || p->n_free == 0) {
				/* Cannot start a new batch now: finish these
				 * on the CPU so nothing is held back. */
				struct rte_mbuf **rest = pkts + i;
				uint16_t nr = (uint16_t)(n - i), j;

				hp_device_run_chain(dev, rest, nr, now);
				dev->st.fallback_pkts += nr;
				dev->st.pkts += nr;
				for (j = 0; j < nr; j++) {
					dev->st.bytes += hp_meta(rest[j])->data_len;
					hp_staging_put(&dev->ost, rest[j]);
				}
				return n;
			}
			p->open[k] = p->free_jobs[--p->n_free];
			job_clear(p->open[k]);
		}
		md->device = (uint8_t)dev->idx;
		p->open[k]->pkts[p->open[k]->n++] = pkts[i];
		p->open[k]->bytes += len;
		if (md->step < HP_MAX_TASKS) {
			p->open[k]->task_n[md->step]++;
			p->open[k]->task_bytes[md->step] += len;
		}
		hp_batcher_add(&p->b[k], len, md->t_deadline, now);
	}
	return n;
}

/* After a failure: the CPU path, burst by burst. */
static unsigned int
fallback_step(struct hp_device *dev)
{
	struct rte_mbuf *pkts[HP_BURST];
	unsigned int n = 0, i;

	if (hp_staging_room(&dev->ost) >= dev->env->burst)
		n = rte_ring_dequeue_burst(dev->in, (void **)pkts, dev->env->burst, NULL);
	if (n == 0)
		return 0;
	hp_device_run_chain(dev, pkts, (uint16_t)n, rte_rdtsc());
	for (i = 0; i < n; i++) {
		dev->st.bytes += hp_meta(pkts[i])->data_len;
		hp_staging_put(&dev->ost, pkts[i]);
	}
	dev->st.fallback_pkts += n;
	dev->st.pkts += n;
	hp_device_flush_out(dev);
	return n;
}

/* The i-th open batch by age of its oldest packet: with one batch per
 * task, a free slot of the backend goes to the batch that waited longest,
 * so a rarely used task's batch is not starved by a busy one's. */
static unsigned int
oldest_open(const struct batch_priv *p, unsigned int i)
{
	unsigned int order[HP_MAX_TASKS], n = p->n_open, a, b;

	for (a = 0; a < n; a++)
		order[a] = a;
	for (a = 0; a < n; a++)           /* n <= 4: a few compares */
		for (b = a + 1; b < n; b++) {
			uint64_t ta = p->open[order[a]] && p->open[order[a]]->n ?
				p->b[order[a]].t_first : UINT64_MAX;
			uint64_t tb = p->open[order[b]] && p->open[order[b]]->n ?
				p->b[order[b]].t_first : UINT64_MAX;

			if (tb < ta) {
				unsigned int t = order[a];

				order[a] = order[b];
				order[b] = t;
			}
		}
	return order[i];
}

static bool
open_empty(const struct batch_priv *p)
{
	unsigned int k;

	for (k = 0; k < p->n_open; k++)
		if (p->open[k] != NULL && p->open[k]->n)
			return false;
	return true;
}

static void
batch_start(struct hp_device *dev)
{
	struct batch_priv *p = dev->priv;

	/* Staging holds one whole batch, so a finished batch never waits
	 * for a full ring packet by packet more than once. */
	hp_staging_init(&dev->ost, HP_STAGING_MAX);
	p->t_start = rte_rdtsc();
	hp_load_start(&dev->load, p->t_start);
}

/* One pass: finished batches out, completions in, intake, flush checks.
 * Whoever polls the device (an lcore loop or a service) calls it. */
static int
batch_pass(struct hp_device *dev)
{
	struct batch_priv *p = dev->priv;
	uint64_t t0 = rte_rdtsc(), now;
	unsigned int work = 0;
	bool quit = __atomic_load_n(&dev->quit, __ATOMIC_ACQUIRE);

	/* fail_after and the failure time count from the measured
	 * phase, not from the capacity calibration. */
	if (hp_device_epoch(dev)) {
		p->submitted = 0;
		p->t_start = t0;
	}
	work += drain_done(dev, p);
	if (dev->failed) {
		work += fallback_step(dev);
	} else {
		int e = 0;
		struct hp_batch_job *job;

		/* completions (never blocks) */
		while (p->done_n < NJOBS &&
		       (job = p->aops->poll(dev, &e)) != NULL) {
			uint32_t i;

			now = rte_rdtsc();
			for (i = 0; i < job->n; i++) {
				struct hp_meta *md = hp_meta(job->pkts[i]);

				/* A backend that cannot run single
				 * tasks ran the whole chain. */
				if (!dev->caps.one_task)
					md->step = dev->env->app_end[md->app];
				/* t_work: the packet's first task */
				if (!dev->env->task_gran || md->step == 1)
					md->t_work = job->t_submit;
				md->t_done = now;
			}
			push_done(p, job);
			work += job->n;
		}
		if (e < 0) {
			char msg[96];

			snprintf(msg, sizeof(msg), "completion failed: %s", strerror(-e));
			device_fail(dev, p, msg);
			return 1;	/* the next pass takes the CPU path */
		}
		now = rte_rdtsc();
		work += intake(dev, p, now);
		for (unsigned int i = 0; i < p->n_open; i++) {
			unsigned int k = oldest_open(p, i);
			struct hp_batch_job *o = p->open[k];
			enum hp_flush_reason why;

			if (o == NULL || o->n == 0)
				continue;
			why = quit && rte_ring_count(dev->in) == 0 ? HP_FLUSH_DRAIN :
				hp_batcher_check(&p->b[k], now,
						 queued_predict(dev, p->n_open > 1 ? k : HP_MAX_TASKS,
								o->n, o->bytes));
			if (why != HP_FLUSH_NONE)
				submit_open(dev, p, k, why, now);
		}
	}
	if (quit && rte_ring_count(dev->in) == 0 && dev->ost.len == 0 &&
	    p->done_n == 0 && open_empty(p) &&
	    (dev->failed || p->aops->inflight(dev) == 0))
		return HP_DEV_POLL_DONE;
	now = rte_rdtsc();
	dev->st.total_cycles += now - t0;
	if (work)
		dev->st.busy_cycles += now - t0;
	hp_load_poll(&dev->load, t0, now, work);
	return (int)work;
}

static void
batch_info(const struct hp_device *dev, struct hp_dev_info *info)
{
	const struct batch_priv *p = dev->priv;

	info->batch = true;
	info->max_batch = p->bcfg.max_pkts;
	info->min_batch = p->bcfg.min_pkts;
}

static void
batch_describe(const struct hp_device *dev, char *buf, size_t len)
{
	const struct batch_priv *p = dev->priv;

	if (p->aops->describe != NULL)
		p->aops->describe(dev, buf, len);
	else
		snprintf(buf, len, "%s", dev->name);
}

/* One job of task `task` through the backend, waiting for it (hplane
 * profile). A modeled device is done at its modeled completion; the CPU
 * code that makes its results runs after that and is no part of it. */
static int
batch_time_batch(struct hp_device *dev, unsigned int task, struct rte_mbuf **pkts,
		 uint32_t n, uint64_t *cycles)
{
	struct batch_priv *p = dev->priv;
	struct hp_batch_job *job = calloc(1, sizeof(*job));
	uint64_t t0, t1;
	uint32_t i;
	int e = 0, ret;

	if (job == NULL)
		return -ENOMEM;
	job->n = n;
	for (i = 0; i < n; i++) {
		job->pkts[i] = pkts[i];
		job->bytes += rte_pktmbuf_pkt_len(pkts[i]);
	}
	job->task_n[task] = n;
	job->task_bytes[task] = job->bytes;
	t0 = job->t_submit = rte_rdtsc();
	ret = p->aops->submit(dev, job);
	while (ret == 0 && p->aops->poll(dev, &e) == NULL) {
		if (e < 0)
			ret = e;
		rte_pause();
	}
	t1 = rte_rdtsc();
	if (dev->caps.modeled && job->t_ready > t0 && job->t_ready < t1)
		t1 = job->t_ready;
	*cycles = t1 - t0;
	free(job);
	return ret;
}

static int
batch_check(const struct hp_device_kind *k, const char *arg, char *err, size_t errlen)
{
	const struct hp_accel_ops *a = k->data;

	return a->check != NULL ? a->check(arg, err, errlen) : 0;
}

static const struct hp_device_ops dev_batch_ops = {
	.desc = "batch device (GPU worker): aggregation, accelerator backend, CPU fallback",
	.check = batch_check,
	.init = batch_init,
	.fini = batch_fini,
	.start = batch_start,
	.poll = batch_pass,
	.predict = batch_predict,
	.info = batch_info,
	.describe = batch_describe,
	.time_batch = batch_time_batch,
};

int
hp_accel_register(const struct hp_accel_ops *ops)
{
	struct hp_device_kind k;

	if (ops == NULL || ops->name == NULL || ops->open == NULL ||
	    ops->submit == NULL || ops->poll == NULL || ops->inflight == NULL)
		return -EINVAL;
	k = (struct hp_device_kind){
		.name = ops->name,
		.usage = ops->usage,
		.ops = &dev_batch_ops,
		.data = ops,
	};
	return hp_device_kind_register(&k);
}

void *
hp_accel_priv(const struct hp_device *dev)
{
	const struct batch_priv *p = dev->priv;

	return p->accel_priv;
}

void
hp_accel_set_priv(struct hp_device *dev, void *priv)
{
	struct batch_priv *p = dev->priv;

	p->accel_priv = priv;
}

double
hp_accel_time_scale(const struct hp_device *dev)
{
	const struct batch_priv *p = dev->priv;

	return p->time_scale;
}

uint64_t
hp_batch_job_service(const struct hp_device *dev, const struct hp_batch_job *job)
{
	const struct batch_priv *p = dev->priv;
	uint64_t t = 0;
	unsigned int k;

	if (p->aops->predict == NULL)
		return 0;
	/* --apps: the job is one app's (slot_of); its chain from its step */
	if (dev->env->n_apps > 1 && job->n) {
		const struct hp_meta *md = hp_meta(job->pkts[0]);

		for (k = md->step; k < dev->env->app_end[md->app]; k++)
			t += p->aops->predict(dev, k, job->n, job->bytes);
		return t;
	}
	if (!dev->env->task_gran)
		return p->aops->predict(dev, HP_MAX_TASKS, job->n, job->bytes);
	for (k = 0; k < dev->n_tasks; k++)
		if (job->task_n[k])
			t += p->aops->predict(dev, k, job->task_n[k], job->task_bytes[k]);
	return t;
}
