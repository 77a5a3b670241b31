/* SPDX-License-Identifier: BSD-3-Clause
 * The batch device kind: the "GPU worker" lcore of Johansson & Pap §4.2.4.
 * It aggregates packets from its ring into batches (hp_batch.h rules),
 * submits them to an accelerator backend (model, cuda), polls completions
 * without blocking, and stages finished packets for the scheduler.
 *
 * Failure (a backend error or the fail_after=N fault injection): the
 * device marks itself failed (the scheduler stops picking it), takes every
 * unfinished batch back from the backend, runs it and everything still
 * arriving on its ring through the CPU chain on this lcore, and says so.
 * No packet is lost and none is processed twice: backends write results
 * into the mbufs only when a batch completes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "hp_common.h"
#include "hp_device.h"

#define NJOBS 16

struct batch_priv {
	struct hp_batcher b;
	struct hp_batch_job jobs[NJOBS];
	struct hp_batch_job *free_jobs[NJOBS];
	unsigned int n_free;
	struct hp_batch_job *open;      /* batch being aggregated */
	struct hp_batch_job *done[NJOBS];
	unsigned int done_head, done_n; /* finished, being drained out */
	unsigned int drain_idx;         /* next packet of done[done_head] */
	uint64_t busy_until;            /* predicted end of submitted work */
	uint64_t submitted;             /* packets handed to the backend */
	uint64_t t_start;
};

static int
batch_init(struct hp_device *dev, const char *arg, char *err, size_t errlen)
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
	for (i = 0; i < NJOBS; i++)
		p->free_jobs[p->n_free++] = &p->jobs[i];
	ret = dev->accel->ops->open(dev, arg, err, errlen);
	if (ret < 0) {
		free(p);
		dev->priv = NULL;
		return ret;
	}
	/* The backend's limits cap what the user asked for. */
	if (dev->caps.max_batch_pkts && dev->bcfg.max_pkts > dev->caps.max_batch_pkts)
		dev->bcfg.max_pkts = dev->caps.max_batch_pkts;
	if (dev->bcfg.max_pkts > HP_STAGE_MAX)
		dev->bcfg.max_pkts = HP_STAGE_MAX;
	if (dev->caps.max_batch_bytes &&
	    (dev->bcfg.max_bytes == 0 || dev->bcfg.max_bytes > dev->caps.max_batch_bytes))
		dev->bcfg.max_bytes = dev->caps.max_batch_bytes;
	if (dev->bcfg.min_pkts > dev->bcfg.max_pkts)
		dev->bcfg.min_pkts = dev->bcfg.max_pkts;
	/* Service model of the whole chain for the rate-adapted target:
	 * fixed = predict(1 packet) - per packet, per packet from 2 sizes of
	 * a typical 512-byte packet. */
	if (dev->accel->ops->predict != NULL) {
		uint64_t t1 = dev->accel->ops->predict(dev, HP_MAX_TASKS, 1, 512);
		uint64_t tn = dev->accel->ops->predict(dev, HP_MAX_TASKS, 65, 65 * 512);

		dev->bcfg.svc_per_pkt = tn > t1 ? (tn - t1) / 64 : 0;
		dev->bcfg.svc_fixed = t1 > dev->bcfg.svc_per_pkt ? t1 - dev->bcfg.svc_per_pkt : 0;
	}
	dev->caps.min_batch_pkts = dev->bcfg.min_pkts;
	hp_batcher_init(&p->b, &dev->bcfg);
	return 0;
}

static void
batch_fini(struct hp_device *dev)
{
	if (dev->accel != NULL && dev->accel->ops->close != NULL && dev->priv != NULL)
		dev->accel->ops->close(dev);
	free(dev->priv);
	dev->priv = NULL;
}

static uint64_t
batch_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
	      uint32_t bytes)
{
	const struct batch_priv *p = dev->priv;
	uint64_t now = rte_rdtsc(), wait;

	if (dev->accel->ops->predict == NULL)
		return 0;
	/* What is queued ahead of it counts: the device serves in order. */
	wait = p->busy_until > now ? p->busy_until - now : 0;
	return wait + dev->accel->ops->predict(dev, task, n, bytes);
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
	while (dev->accel->ops->reclaim != NULL &&
	       (job = dev->accel->ops->reclaim(dev)) != NULL) {
		moved += job->n;
		job_on_cpu(dev, p, job);
	}
	if (p->open != NULL && p->open->n) {
		moved += p->open->n;
		job_on_cpu(dev, p, p->open);
		p->open = NULL;
		hp_batcher_reset(&p->b);
	}
	HP_LOG(WARNING, "device %s failed: %s; %u in-flight packets and all later ones go to the CPU path",
	       dev->name, why, moved);
}

static void
submit_open(struct hp_device *dev, struct batch_priv *p, enum hp_flush_reason why,
	    uint64_t now)
{
	struct hp_batch_job *job = p->open;
	char msg[96];
	int ret;

	/* Fault injection counts packets of the measured phase (epoch >= 1),
	 * so the calibration at full rate does not trip it early. */
	if (dev->fail_after && dev->epoch_seen > 0 &&
	    p->submitted + job->n > dev->fail_after) {
		snprintf(msg, sizeof(msg), "injected fault after %" PRIu64 " packets",
			 dev->fail_after);
		device_fail(dev, p, msg);
		return;
	}
	job->t_submit = now;
	ret = dev->accel->ops->submit(dev, job);
	if (ret == -EBUSY)
		return; /* every stream busy: keep it open, stop taking packets */
	if (ret < 0) {
		snprintf(msg, sizeof(msg), "submit failed: %s", strerror(-ret));
		device_fail(dev, p, msg);
		return;
	}
	if (dev->accel->ops->predict != NULL)
		p->busy_until = RTE_MAX(p->busy_until, now) +
			dev->accel->ops->predict(dev, HP_MAX_TASKS, job->n, job->bytes);
	dev->st.flush[why]++;
	dev->st.batches++;
	dev->st.batch_pkts += job->n;
	p->submitted += job->n;
	p->open = NULL;
	hp_batcher_reset(&p->b);
}

/* Moves finished packets into the output staging, then the ring. */
static unsigned int
drain_done(struct hp_device *dev, struct batch_priv *p)
{
	unsigned int moved = 0;

	while (p->done_n && hp_stage_room(&dev->ost)) {
		struct hp_batch_job *job = p->done[p->done_head];

		while (p->drain_idx < job->n && hp_stage_room(&dev->ost)) {
			struct rte_mbuf *m = job->pkts[p->drain_idx++];

			dev->st.bytes += hp_meta(m)->data_len;
			hp_stage_put(&dev->ost, m);
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
		hp_stage_flush_ring(&dev->ost, dev->out);
	return moved;
}

/* Takes packets from the ring into the open batch. */
static unsigned int
intake(struct hp_device *dev, struct batch_priv *p, uint64_t now)
{
	struct rte_mbuf *pkts[HP_BURST];
	unsigned int n, i, want;

	/* Room for a burst that may have to finish on the CPU right away. */
	if (hp_stage_room(&dev->ost) < dev->env->burst)
		return 0;
	if (p->open == NULL) {
		if (p->n_free == 0)
			return 0;
		p->open = p->free_jobs[--p->n_free];
		p->open->n = 0;
		p->open->bytes = 0;
	}
	want = RTE_MIN(dev->env->burst, p->b.cfg.max_pkts - p->open->n);
	if (want == 0)
		return 0;
	/* Peek-free intake: a packet that does not fit the byte limit ends
	 * the batch and opens the next one, so nothing is put back. */
	n = rte_ring_dequeue_burst(dev->in, (void **)pkts, want, NULL);
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		/* Batch bytes are frame bytes, as in the profiles' tables. */
		uint32_t len = rte_pktmbuf_pkt_len(pkts[i]);

		if (!hp_batcher_fits(&p->b, len)) {
			submit_open(dev, p, HP_FLUSH_FULL, now);
			if (p->open != NULL || dev->failed || p->n_free == 0) {
				/* Cannot start a new batch now: finish these
				 * on the CPU so nothing is held back. */
				struct rte_mbuf **rest = pkts + i;
				uint16_t k = (uint16_t)(n - i), j;

				hp_device_run_chain(dev, rest, k, now);
				dev->st.fallback_pkts += k;
				dev->st.pkts += k;
				for (j = 0; j < k; j++) {
					dev->st.bytes += hp_meta(rest[j])->data_len;
					hp_stage_put(&dev->ost, rest[j]);
				}
				return n;
			}
			p->open = p->free_jobs[--p->n_free];
			p->open->n = 0;
			p->open->bytes = 0;
		}
		md->device = (uint8_t)dev->idx;
		p->open->pkts[p->open->n++] = pkts[i];
		p->open->bytes += len;
		hp_batcher_add(&p->b, len, md->t_deadline, now);
	}
	return n;
}

/* After a failure: the CPU path, burst by burst. */
static unsigned int
fallback_step(struct hp_device *dev)
{
	struct rte_mbuf *pkts[HP_BURST];
	unsigned int n = 0, i;

	if (hp_stage_room(&dev->ost) >= dev->env->burst)
		n = rte_ring_dequeue_burst(dev->in, (void **)pkts, dev->env->burst, NULL);
	if (n == 0)
		return 0;
	hp_device_run_chain(dev, pkts, (uint16_t)n, rte_rdtsc());
	for (i = 0; i < n; i++) {
		dev->st.bytes += hp_meta(pkts[i])->data_len;
		hp_stage_put(&dev->ost, pkts[i]);
	}
	dev->st.fallback_pkts += n;
	dev->st.pkts += n;
	hp_stage_flush_ring(&dev->ost, dev->out);
	return n;
}

static int
batch_main(struct hp_device *dev)
{
	struct batch_priv *p = dev->priv;
	unsigned int idle_polls = 0;

	/* Staging holds one whole batch, so a finished batch never waits
	 * for a full ring packet by packet more than once. */
	hp_stage_init(&dev->ost, HP_STAGE_MAX);
	p->t_start = rte_rdtsc();
	hp_load_start(&dev->load, p->t_start);
	for (;;) {
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
			       (job = dev->accel->ops->poll(dev, &e)) != NULL) {
				uint32_t i;

				now = rte_rdtsc();
				for (i = 0; i < job->n; i++) {
					hp_meta(job->pkts[i])->t_work = job->t_submit;
					hp_meta(job->pkts[i])->t_done = now;
				}
				push_done(p, job);
				work += job->n;
			}
			if (e < 0) {
				char msg[96];

				snprintf(msg, sizeof(msg), "completion failed: %s", strerror(-e));
				device_fail(dev, p, msg);
				continue;
			}
			now = rte_rdtsc();
			work += intake(dev, p, now);
			if (p->open != NULL && p->open->n) {
				enum hp_flush_reason why = quit && rte_ring_count(dev->in) == 0 ?
					HP_FLUSH_DRAIN :
					hp_batcher_check(&p->b, now,
							 batch_predict(dev, HP_MAX_TASKS, p->open->n,
								       p->open->bytes));
				if (why != HP_FLUSH_NONE)
					submit_open(dev, p, why, now);
			}
		}
		if (quit && rte_ring_count(dev->in) == 0 && dev->ost.len == 0 &&
		    p->done_n == 0 && (p->open == NULL || p->open->n == 0) &&
		    (dev->failed || dev->accel->ops->inflight(dev) == 0))
			break;
		now = rte_rdtsc();
		dev->st.total_cycles += now - t0;
		if (work)
			dev->st.busy_cycles += now - t0;
		hp_load_poll(&dev->load, t0, now, work);
		if (!work)
			hp_device_idle(dev, &idle_polls);
	}
	return 0;
}

static const struct hp_device_ops dev_batch_ops = {
	.kind = "batch",
	.desc = "batch device (GPU worker): aggregation, accelerator backend, CPU fallback",
	.init = batch_init,
	.fini = batch_fini,
	.main = batch_main,
	.predict = batch_predict,
};

HP_DEVICE_REGISTER(dev_batch_ops);
