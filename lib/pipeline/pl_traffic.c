/* SPDX-License-Identifier: BSD-3-Clause
 * The traffic stage, for generated traffic: the sink takes what the
 * scheduler sent to the port's tx ring and verifies it, then the generator
 * offers frames at the scenario's rate to the port's rx ring. Like a NIC,
 * a full rx ring is a port drop that costs the host nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "hp_common.h"
#include "pl_priv.h"

static void
traffic_start(void *arg, bool alone)
{
	struct pl_run *r = arg;
	struct pl_traffic *tr = r->tr;

	tr->alone = alone;
	tr->last = rte_rdtsc();
	tr->t_next = 0;
	tr->credit = 0;
	tr->ep = LOAD(r->epoch);
	tr->epoch_seen = tr->ep;
	hp_load_start(&tr->load, rte_rdtsc());
}

/* Takes what reached the port's tx side: verified, then freed or kept for
 * the generator to send again. */
static unsigned int
sink(struct pl_run *r, struct pl_traffic *tr)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct rte_mbuf *pkts[2 * HP_BURST];
	unsigned int n = 0, i, nf, q, want = RTE_MAX(2 * cfg->burst / tr->n_q, 1u);

	/* every scheduler lcore's tx queue, its share of two bursts each */
	for (q = 0; q < tr->n_q; q++)
		n += rte_ring_dequeue_burst(tr->tx_ring[q], (void **)pkts + n, want, NULL);
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		pl_verify_every(&tr->ver, cfg->verify_every, pkts[i]);
		tr->sink_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	}
	nf = n;
	if (tr->recyc != NULL) {
		/* keep the frames whose length no task changed (a CBC pad
		 * would grow them pass after pass) */
		for (i = 0, nf = 0; i < n; i++) {
			if (tr->recyc_n < tr->recyc_cap &&
			    rte_pktmbuf_pkt_len(pkts[i]) == hp_meta(pkts[i])->gen_len)
				tr->recyc[tr->recyc_n++] = pkts[i];
			else
				pkts[nf++] = pkts[i];
		}
	}
	if (nf)
		rte_pktmbuf_free_bulk(pkts, nf);
	PUB(tr->sink, tr->sink + n);
	PUB(tr->sink_total, tr->sink_total + n);
	return n;
}

/* pcap output with several schedulers: what they sent into the ring
 * port's tx rings goes on to net_pcap, one writer, through staging (a
 * full queue keeps the frames); counted as the sink counts. */
static unsigned int
forward(struct pl_run *r, struct pl_traffic *tr)
{
	struct hp_staging *f = tr->fwd;
	unsigned int n = 0, i, q, want;

	if (f->len)
		hp_staging_flush_eth(f, r->tx_port, 0);
	if (f->len)
		return 0;
	want = RTE_MAX(2 * r->cfg->burst / tr->n_q, 1u);
	for (q = 0; q < tr->n_q; q++)
		n += rte_ring_dequeue_burst(tr->tx_ring[q], (void **)f->buf + n, want, NULL);
	if (n == 0)
		return 0;
	f->len = n;
	for (i = 0; i < n; i++)
		tr->sink_bytes += rte_pktmbuf_pkt_len(f->buf[i]);
	hp_staging_flush_eth(f, r->tx_port, 0);
	PUB(tr->sink, tr->sink + n);
	PUB(tr->sink_total, tr->sink_total + n);
	return n;
}

/* With several rx queues: the frames spread by symmetric RSS over the
 * queues' rings (a flow's frames, both ways, on one queue), each queue
 * a burst enqueue; a frame whose queue is full is a port drop, counted
 * for the run and for its queue. Returns the frames that went. The
 * Toeplitz hash of a frame costs a parse and ~200 cycles here, on the
 * generator's lcore (a NIC's work, not the schedulers'). */
static unsigned int
spread(struct pl_traffic *tr, struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_mbuf *qb[HP_MAX_SCHED_LCORES][HP_BURST];
	unsigned int qn[HP_MAX_SCHED_LCORES] = { 0 }, i, q, k, sent = 0;

	for (i = 0; i < n; i++) {
		uint32_t h = hp_rss_hash_frame(rte_pktmbuf_mtod(pkts[i], const uint8_t *),
					       rte_pktmbuf_data_len(pkts[i]));

		q = hp_rss_queue(&tr->rss, h);
		qb[q][qn[q]++] = pkts[i];
	}
	for (q = 0; q < tr->n_q; q++) {
		if (qn[q] == 0)
			continue;
		k = rte_ring_enqueue_burst(tr->rx_ring[q], (void **)qb[q], qn[q], NULL);
		if (k < qn[q])
			rte_pktmbuf_free_bulk(qb[q] + k, qn[q] - k);
		PUB(tr->q_offered[q], tr->q_offered[q] + qn[q]);
		PUB(tr->q_dropped[q], tr->q_dropped[q] + qn[q] - k);
		sent += k;
	}
	return sent;
}

/* Offers the frames due at the profile's rate (all it can while
 * calibrating); returns the frames that went. */
static unsigned int
generate(struct pl_run *r, struct pl_traffic *tr, uint64_t now)
{
	unsigned int burst = r->cfg->burst, i, k, sent, room, fit, old;
	struct rte_mbuf *pkts[HP_BURST];
	double rate, dt = (double)(now - tr->last) / (double)r->hz;

	if (LOAD(r->calibrating))
		rate = 1e12;
	else
		rate = hp_profile_rate(&tr->prof, (double)(now - r->t0) / (double)r->hz);
	tr->credit += rate * dt;
	/* A preempted generator catches up at most this much, so offered
	 * load stays close to the profile. */
	if (tr->credit > 4096)
		tr->credit = 4096;
	if (tr->credit < 1)
		return 0;
	k = tr->credit < burst ? (unsigned int)tr->credit : burst;
	/* --packets N: the port receives exactly N in the measured phase;
	 * after that the generator offers nothing more */
	if (r->cfg->max_packets && !LOAD(r->calibrating)) {
		uint64_t in = tr->offered - tr->dropped_port;

		if (in >= r->cfg->max_packets) {
			tr->credit = 0;
			return 0;
		}
		k = (unsigned int)RTE_MIN((uint64_t)k, r->cfg->max_packets - in);
	}
	/* Like a NIC, a full rx queue drops at no cost to the host: only
	 * frames that fit are built. A generator that built and freed them
	 * would burn the CPU it shares with the scheduler on a small machine
	 * (then capacity measures the OS's time slices, not the pipeline).
	 * Only this lcore enqueues, so the free count cannot shrink. */
	/* several queues: the room of each is known only once a frame's
	 * queue is (spread()) */
	room = tr->n_q > 1 ? k : rte_ring_free_count(tr->rx_ring[0]);
	fit = RTE_MIN(k, room);
	old = RTE_MIN(fit, tr->recyc_n);
	for (i = 0; i < old; i++)
		pkts[i] = tr->recyc[--tr->recyc_n];
	if (fit > old && rte_pktmbuf_alloc_bulk(r->pool, pkts + old, fit - old) != 0)
		fit = old; /* no buffer for the "NIC": a port drop */
	/* The port's arrival stamp (latency counts from it, time in the rx
	 * queue included): one store a frame into metadata line 0, which
	 * the scheduler writes next anyway; a built frame's line is being
	 * written here already (gen_len). */
	for (i = 0; i < old; i++)
		hp_meta(pkts[i])->t_rx = now;
	for (i = old; i < fit; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);

		hp_gen_build(&tr->gen, pkts[i]);
		md->gen_len = (uint16_t)rte_pktmbuf_pkt_len(pkts[i]);
		md->t_rx = now;
	}
	if (unlikely(tr->n_q > 1)) {
		sent = spread(tr, pkts, fit);
	} else {
		sent = fit ? rte_ring_enqueue_burst(tr->rx_ring[0], (void **)pkts, fit, NULL) : 0;
		if (sent < fit)
			rte_pktmbuf_free_bulk(pkts + sent, fit - sent);
	}
	if (sent < k)
		PUB(tr->dropped_port, tr->dropped_port + k - sent);
	PUB(tr->offered, tr->offered + k);
	PUB(tr->sent_total, tr->sent_total + sent);
	tr->credit -= k;
	return sent;
}

static bool
sched_all_done(const struct pl_run *r)
{
	for (unsigned int i = 0; i < r->n_sc; i++)
		if (!hp_stage_done(PL_STAGE_SCHED(r, i)))
			return false;
	return true;
}

static bool
tx_rings_empty(const struct pl_traffic *tr)
{
	for (unsigned int q = 0; q < tr->n_q; q++)
		if (rte_ring_count(tr->tx_ring[q]) != 0)
			return false;
	return true;
}

/* One pass: sink, then generator. Its state between passes is in *tr
 * (the generator's credit and clock, the epoch), so it can run as a
 * service. */
static __rte_noinline int
traffic_pass(void *arg)
{
	struct pl_run *r = arg;
	struct pl_traffic *tr = r->tr;
	uint64_t now, t1, t0 = tr->t_next ? tr->t_next : hp_load_tsc();
	unsigned int work;
	int ctl;

	if (LOAD(r->epoch) != tr->ep) {
		tr->ep = LOAD(r->epoch);
		tr->offered = tr->dropped_port = tr->sink = tr->sink_bytes = 0;
		memset(tr->q_offered, 0, sizeof(tr->q_offered));
		memset(tr->q_dropped, 0, sizeof(tr->q_dropped));
		pl_verify_reset(&tr->ver);
		STORE(tr->epoch_seen, tr->ep);
	}
	work = tr->fwd != NULL ? forward(r, tr) : sink(r, tr);
	now = rte_rdtsc();
	ctl = LOAD(r->gen_ctl);
	if (ctl & 1)
		work += generate(r, tr, now);
	else
		tr->credit = 0;
	tr->last = now;
	/* every frame of the setting read above is in the ring now */
	STORE(tr->gen_ack, ctl);
	if (LOAD(r->sink_quit) && sched_all_done(r) && tr->sink == PL_SUM(r, tx) &&
	    tx_rings_empty(tr) && (tr->fwd == NULL || tr->fwd->len == 0))
		return HP_STAGE_DONE;
	/* An empty pass did nothing after `now` but look at the credit:
	 * its end is `now`. Saving that read matters: on a CPU the
	 * scheduler shares, the two hand the CPU over through empty passes
	 * (two thirds of the null pipeline's passes, 3.8M in 4 s). */
	t1 = work ? hp_load_tsc() : now;
	hp_load_poll(&tr->load, t0, t1, work);
	tr->t_next = work && tr->alone ? t1 : 0;
	return work ? (int)work : -EAGAIN;
}

static void
traffic_stop(void *arg)
{
	struct pl_run *r = arg;

	STORE(r->sink_quit, 1);
}

const struct hp_stage_ops pl_traffic_stage = {
	.name = "traffic",
	.start = traffic_start,
	.pass = traffic_pass,
	.stop = traffic_stop,
};

void
pl_gen_set(struct pl_run *r, bool on)
{
	int ctl = ((r->gen_ctl >> 1) + 1) << 1 | (on ? 1 : 0);

	STORE(r->gen_ctl, ctl);
	if (on || r->cfg->src != HP_SRC_GEN || !PL_STAGE_TRAFFIC(r)->launched)
		return;
	while (LOAD(r->tr->gen_ack) != ctl && !hp_stage_done(PL_STAGE_TRAFFIC(r)))
		usleep(200);
}

/* Exact, unlike a look at the rings and counters one after another: a
 * burst the scheduler has taken from the rx ring but not yet published
 * as in flight would pass such a check. */
void
pl_wait_drained(struct pl_run *r)
{
	while (LOAD(r->tr->sent_total) != LOAD(r->tr->sink_total) + PL_SUM(r, freed))
		usleep(500);
}

/* The generator and the sink's verification (the app's first task may
 * write the bodies: LDPC codewords from known bits, planted patterns, so
 * the sink can check the result; it gets a context of its own here). */
int
pl_traffic_setup(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct pl_traffic *tr = r->tr;
	int ret;

	if (cfg->gen_recycle) {
		/* a frame sent again is not checked: its body is what the
		 * tasks left, and its sequence numbers repeat */
		if (cfg->verify_every != 0 || cfg->src != HP_SRC_GEN) {
			snprintf(err, errlen, "generator recycling needs the generator source and verification off");
			return -EINVAL;
		}
		tr->recyc_cap = cfg->mbufs;
		tr->recyc = calloc(tr->recyc_cap, sizeof(*tr->recyc));
		if (tr->recyc == NULL)
			return -ENOMEM;
	}
	ret = pl_verify_init(&tr->ver, r, err, errlen);
	if (ret == 0 && cfg->src == HP_SRC_PCAP && r->n_sc > 1) {
		/* the pcap output's one writer (forward()) */
		tr->n_q = r->n_sc;
		for (unsigned int q = 0; q < tr->n_q; q++)
			tr->tx_ring[q] = pl_ports_txr(r, q);
		tr->fwd = rte_zmalloc("hp_fwd", sizeof(*tr->fwd), 0);
		if (tr->fwd == NULL)
			return -ENOMEM;
		hp_staging_init(tr->fwd, 2 * cfg->burst);
	}
	if (ret < 0 || cfg->src != HP_SRC_GEN)
		return ret;
	ret = hp_gen_init(&tr->gen, &cfg->imix, &cfg->types, cfg->flows_per_type,
			  cfg->seed, err, errlen);
	if (ret < 0)
		return ret;
	ret = pl_ctx_init_chain(r, tr->gctx, err, errlen);
	if (ret < 0)
		return ret;
	if (cfg->mix.n > 1) {
		ret = pl_apps_gen_setup(r, tr, err, errlen);
		if (ret < 0)
			return ret;
	} else if (hp_app_body_ctx(r->app, tr->gctx) != NULL) {
		hp_gen_set_body(&tr->gen, hp_task_gen_body, hp_app_body_ctx(r->app, tr->gctx));
	}
	/* nothing is verified: the emulated NIC needs no tags */
	hp_gen_set_tag(&tr->gen, cfg->verify_every != 0);
	return 0;
}

void
pl_traffic_free(struct pl_run *r)
{
	struct pl_traffic *tr = r->tr;

	if (tr == NULL)
		return;
	pl_verify_free(&tr->ver);
	pl_ctx_free_chain(tr->gctx, r->app->n_tasks);
	free(tr->flow_app);
	tr->flow_app = NULL;
	if (tr->recyc_n)
		rte_pktmbuf_free_bulk(tr->recyc, tr->recyc_n);
	free(tr->recyc);
	hp_gen_free(&tr->gen);
	if (tr->fwd != NULL) {
		/* the rings are the ports' (pl_ports_close) */
		if (tr->fwd->len)
			rte_pktmbuf_free_bulk(tr->fwd->buf, tr->fwd->len);
		rte_free(tr->fwd);
		return;
	}
	for (unsigned int q = 0; q < HP_MAX_SCHED_LCORES; q++) {
		rte_ring_free(tr->rx_ring[q]);
		rte_ring_free(tr->tx_ring[q]);
	}
}
