/* SPDX-License-Identifier: BSD-3-Clause
 * The scheduler stage: one pass takes packets the way in (rx, classify,
 * the policy's pick, the device rings) and then the way back (completions,
 * per-flow reorder, metrics, tx), then keeps the books (in flight, load,
 * the policy's tick, one trace row a second, the end of the run).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "hp_common.h"
#include "hp_model.h"
#include "pl_priv.h"

/* How many packets ahead of their turn the scheduler prefetches a
 * packet's lines, on both ways (the l3fwd pattern). On the way in, all of
 * a burst's header prefetches at once first load every mbuf's first line
 * to find the header (a miss each, all waiting together); PF_AHEAD
 * ahead, those lines have landed. On the way back, 3 lines a packet for
 * a whole burst at once outrun the core's line fill buffers and stall
 * the prefetching loop. Null task, A/B in one run
 * (bench/results/pipeline-2026-11-22d.md): way in 99 -> 74 cycles a
 * packet, way back 71 -> 62; 2 and 4 alike, 8 a little worse. */
#define PF_AHEAD 4u

/* Returns 0 if the packet was classified, or drops it with a reason. Its
 * flow is sched_flows()' (the burst's lookups go together); HP_MF_REORDER
 * says here whether this packet's type needs order. */
static inline int
classify(struct pl_run *r, struct pl_sched *sc, struct rte_mbuf *m, uint64_t now)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct hp_meta *md = hp_meta(m);
	struct hp_flow_key key;
	struct hp_pkt_hdrs h;
	enum hp_drop_reason why;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	bool reorder, latency;
	uint64_t arrival;
	int type;

	if (m->nb_segs != 1)
		why = HP_DROP_SEGMENTED;
	else
		why = hp_parse_hdrs(p, rte_pktmbuf_data_len(m), &key, &h);
	if (why != HP_DROP_NONE) {
		sc->invalid[why]++;
		PUB(sc->freed, sc->freed + 1);
		rte_pktmbuf_free(m);
		return -1;
	}
	/* line 0 but the generator's gen_len, and line 1's device part:
	 * step, status, times (task results are their tasks') */
	RTE_BUILD_BUG_ON(offsetof(struct hp_meta, flow_id) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(HP_MAX_DEVICES > HP_SCHED_MAX_DEV);
	RTE_BUILD_BUG_ON(sizeof(struct hp_meta) > 2 * RTE_CACHE_LINE_SIZE);
	/* latency counts from the port's arrival: the generator's stamp
	 * (its time in the port's queue included), else this rx burst's */
	arrival = sc->port_stamps ? md->t_rx : now;
	memset(md, 0, HP_META_SCHED_CLEAR);
	memset(&md->flow_id, 0, HP_META_DEV_CLEAR);
	md->flow_id = hp_flow_hash(&key);
	md->owner = (uint8_t)sc->idx; /* its completions come back here */
	reorder = key.proto == IPPROTO_TCP;
	latency = key.dscp == HP_DSCP_EF;
	type = hp_type_index_lookup(&sc->tix, rte_pktmbuf_pkt_len(m), reorder, latency);
	md->type = (uint8_t)type;
	sc->tcnt[type].rx++;
	if (type > 0) {
		/* The table decides: a type row may override the header hints. */
		reorder = cfg->types.t[type - 1].reorder;
		latency = cfg->types.t[type - 1].latency;
	}
	md->t_rx = arrival;
	if (latency && type > 0) {
		md->flags |= HP_MF_LATENCY;
		md->t_deadline = arrival + sc->dl_cycles[type];
	}
	/* order: the type's, or the header's (TCP, whatever the type
	 * table says of this size: order belongs to the flow) */
	if (reorder || key.proto == IPPROTO_TCP)
		md->flags |= HP_MF_REORDER;
	if (key.proto == IPPROTO_TCP)
		md->flags |= HP_MF_TCP;
	hp_meta_classified(md, p, &h);
	/* --apps: the flow's app (one app: app and step stay 0 from the
	 * clear above, no lookup) */
	if (unlikely(sc->apps != NULL))
		pl_apps_classify(sc->apps, md);
	return 0;
}

/* The classified packets' flows, looked up together so that rte_hash
 * prefetches the burst's buckets and keys at once, then per packet its
 * sequence; whether it is kept in order, which is its flow's property:
 * a flow needs order from its first packet that does (TCP, or a type
 * that needs order) on, whatever the sizes (types) of its packets after
 * that, so the window never waits for a sequence that goes around it;
 * and whether the sequence is unique (a security task refuses one that
 * is not). */
static inline void
sched_flows(struct pl_sched *sc, struct rte_mbuf **pkts, unsigned int n, uint64_t now)
{
	struct hp_flowtab *ft = &sc->ft;
	uint64_t ids[HP_BURST];
	int32_t pos[HP_BURST];
	unsigned int i;

	for (i = 0; i < n; i++)
		ids[i] = hp_meta(pkts[i])->flow_id;
	hp_flowtab_find_bulk(ft, ids, n, pos);
	for (i = 0; i < RTE_MIN(n, PF_AHEAD); i++)
		if (pos[i] >= 0)
			hp_flowtab_prefetch(ft, (uint32_t)pos[i]);
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		bool order = (md->flags & HP_MF_REORDER) != 0;
		uint32_t slot;

		if (i + PF_AHEAD < n && pos[i + PF_AHEAD] >= 0)
			hp_flowtab_prefetch(ft, (uint32_t)pos[i + PF_AHEAD]);
		slot = pos[i] >= 0 ? (uint32_t)pos[i] : hp_flowtab_add(ft, ids[i], now);
		md->flow_slot = slot;
		md->flags &= ~HP_MF_REORDER;
		if (likely(slot != HP_FLOW_UNTRACKED)) {
			struct hp_flow *f = &ft->f[slot];

			md->flow_seq = hp_flowtab_in(ft, slot, now);
			if (unlikely(order && !f->order)) {
				f->order = 1;
				hp_reorder_flow_start(&sc->ro, slot, md->flow_seq);
			}
			if (f->order)
				md->flags |= HP_MF_REORDER;
		} else {
			hp_flowtab_count(ft, 1);
			sc->untracked++;
		}
		if (!(md->flags & HP_MF_HPHDR))
			md->hdr_seq = md->flow_seq;
		hp_meta_seq_note(md);
		/* 2^32 packets in: a 32-bit sequence may repeat (IV reuse) */
		if (unlikely(!hp_flowtab_seq_unique(ft)) && !(md->flags & HP_MF_HPHDR))
			md->seq_ok = 0;
	}
}

/* Folds the per-device histograms of the open second into the second's
 * (ilat) and each device's run histogram (dlat). */
void
pl_lat_fold(struct pl_run *r, struct pl_sched *sc)
{
	unsigned int d;

	for (d = 0; d < r->n_dev; d++) {
		hp_hist_merge(&sc->ilat, &sc->idlat[d]);
		hp_hist_merge(&sc->dlat[d], &sc->idlat[d]);
		hp_hist_reset(&sc->idlat[d]);
	}
}

/* Metrics at the point a packet is handed to tx. */
static inline void
account_tx(struct pl_sched *sc, struct rte_mbuf *m, uint64_t now)
{
	struct hp_meta *md = hp_meta(m);
	struct hp_type_count *tc = &sc->tcnt[md->type];
	uint64_t lat = now - md->t_rx;
	uint64_t ns = (lat * sc->cyc2ns_mult) >> 32;
	uint32_t len = rte_pktmbuf_pkt_len(m);

	sc->bytes_tx += len;
	/* per type and L1 (a runt is padded on the wire): a few adds and a
	 * conditional move on lines this function reads anyway */
	sc->l1_pad += len < HP_ETH_MIN_NOFCS ? HP_ETH_MIN_NOFCS - len : 0;
	tc->tx++;
	tc->bytes += len;
	/* one add per packet (~23 instructions, callgrind): the second's,
	 * the run's and the device's histograms are sums of these, formed
	 * once a row by pl_lat_fold() */
	hp_hist_add(&sc->idlat[md->device], ns);
	sc->oh1 += md->t_work - md->t_rx;
	sc->proc += md->t_done - md->t_work;
	sc->oh3 += now - md->t_done;
	if (md->flags & HP_MF_LATENCY) {
		sc->dl_pkts++;
		tc->dl_pkts++;
		if (now <= md->t_deadline) {
			sc->dl_met++;
			tc->dl_met++;
		}
	}
	/* order as the flow's receiver sees it: behind a higher sequence of
	 * its flow that already left, or not (the window's books aside) */
	if (likely(md->flow_slot != HP_FLOW_UNTRACKED)) {
		bool ok = hp_flowtab_out(&sc->ft, md->flow_slot, md->flow_seq, true);

		sc->out_of_order_all += !ok;
		if (md->flags & HP_MF_REORDER) {
			sc->order_out++;
			sc->order_out_in_order += ok;
		}
		if (unlikely(sc->apps != NULL))
			pl_apps_tx(sc->apps, md, ns, len, now,
				   md->flags & HP_MF_REORDER ? (int)ok : -1);
	} else if (unlikely(sc->apps != NULL)) {
		pl_apps_tx(sc->apps, md, ns, len, now, -1);
	}
	if (sc->s.ops->tx != NULL)
		sc->s.ops->tx(&sc->s, m, now);
}

static void
sched_reset(struct pl_run *r, struct pl_sched *sc)
{
	struct pl_sched_row *row = &sc->row;

	memset(sc->invalid, 0, sizeof(sc->invalid));
	memset(sc->tcnt, 0, sizeof(sc->tcnt));
	sc->rx = sc->tx = sc->bytes_tx = sc->bytes_rx = sc->l1_pad = 0;
	sc->dl_pkts = sc->dl_met = sc->task_err = sc->task_err_sec = sc->admission = 0;
	sc->untracked = sc->order_out = sc->order_out_in_order = sc->out_of_order_all = 0;
	/* flows stay (their sequences go on); their counts start here */
	sc->ft.st = (struct hp_flowtab_stats){ .peak = sc->ft.live };
	sc->oh1 = sc->proc = sc->oh3 = 0;
	sc->busy_cycles = sc->total_cycles = sc->in_cycles = 0;
	sc->cpu_ns0 = hp_thread_cpu_ns();
	sc->s.t_run = rte_rdtsc();
	/* sent_w/back_w stay monotonic (they define what is in flight); the
	 * device share is counted from here. */
	memcpy(sc->back_base, sc->back_w, sizeof(sc->back_w));
	memcpy(sc->task_base, sc->task_back, sizeof(sc->task_back));
	sc->tick_rx = 0;
	sc->tick_bytes = 0;
	memset(sc->tick_app_rx, 0, sizeof(sc->tick_app_rx));
	hp_reorder_reset_stats(&sc->ro);
	if (sc->apps != NULL)
		pl_apps_reset(sc->apps);
	PUB(sc->app_port_drops, 0);
	sc->results_written = sc->results_no_room = 0;
	hp_hist_reset(&sc->lat);
	hp_hist_reset(&sc->ilat);
	for (unsigned int d = 0; d < HP_MAX_DEVICES; d++) {
		hp_hist_reset(&sc->dlat[d]);
		hp_hist_reset(&sc->idlat[d]);
	}
	if (sc->idx == 0) /* telemetry's latency starts over too */
		pl_tel_lat_publish(r, sc, 0, 0);
	sc->txs.retries = 0;
	/* the rows count from here too */
	memset(row, 0, offsetof(struct pl_sched_row, load));
	row->held = sc->ro.held; /* held packets survive the reset */
	memcpy(row->back, sc->back_w, sizeof(sc->back_w));
	if (unlikely(r->n_sc > 1) && sc->idx == 0) {
		/* its rows count every scheduler's completions (drained:
		 * no scheduler's back_w moves around the epoch) */
		struct pl_row_src v;

		pl_row_src(r, sc, &v);
		memcpy(row->back, v.back, sizeof(v.back));
	}
	for (unsigned int l = 0; l < pl_n_loops(r); l++)
		hp_load_read(pl_loop_load(r, l), &row->load[l]);
	row->next = 0;
}

/* Granularity task: a packet back from one task. Counts where each task
 * ran, tells the policy, and queues the packet for its next decision;
 * returns true then (false: the chain is done, on to reorder and tx). */
static inline bool
task_back(struct pl_run *r, struct pl_sched *sc, struct rte_mbuf *m, unsigned int w,
	  uint64_t now)
{
	struct hp_meta *md = hp_meta(m);
	unsigned int k, n_tasks = r->app->n_tasks;

	if (r->cfg->task_gran) {
		k = md->step ? md->step - 1u : 0;
		sc->task_back[w][k]++;
	} else {
		unsigned int k0 = 0, k1 = n_tasks;

		/* --apps: the packet ran its app's part of the joint chain */
		if (unlikely(sc->apps != NULL)) {
			k0 = sc->apps->first[md->app];
			k1 = r->env.app_end[md->app];
		}
		for (k = k0; k < k1; k++)
			sc->task_back[w][k]++;
		k = HP_MAX_TASKS;
	}
	if (sc->s.ops->done != NULL)
		sc->s.ops->done(&sc->s, m, w, k, now);
	if (!r->cfg->task_gran || md->step >= n_tasks || md->status != HP_ST_OK)
		return false;
	sc->redo[(sc->redo_head + sc->redo_n) & sc->redo_mask] = m;
	sc->redo_n++;
	return true;
}

/* About once a millisecond: the input rate and delivered bits the
 * policies read (EWMA, time constant 100 ms: long enough to span a few
 * GPU batches at low rates, short enough to follow a scenario's steps),
 * then the policy's own tick. The input rate is what the port is
 * offered (received + dropped there): under overload the received rate
 * only mirrors what the scheduler lets in. */
static void
sched_tick(struct pl_run *r, struct pl_sched *sc, uint64_t now)
{
	double dt = (double)(now - sc->tick_t) / (double)r->hz, a;
	/* several scheduler lcores: each is offered its share (RSS) */
	uint64_t off = pl_offered_now(r) / r->n_sc;

	if (sc->tick_t != 0 && dt > 0 && off >= sc->tick_rx) {
		a = 1.0 - exp(-dt / 0.1);
		sc->s.rate_pps += a * ((double)(off - sc->tick_rx) / dt - sc->s.rate_pps);
		sc->s.tput_bps += a * ((double)(sc->bytes_tx - sc->tick_bytes) * 8 / dt -
				       sc->s.tput_bps);
		if (sc->apps != NULL)
			pl_apps_rate(sc, (double)(off - sc->tick_rx) / dt, a);
	}
	if (sc->apps != NULL)
		pl_apps_tick_mark(sc);
	sc->tick_t = now;
	sc->tick_rx = off;
	sc->tick_bytes = sc->bytes_tx;
	sc->next_tick = now + r->hz / 1000;
	if (sc->s.ops->tick != NULL)
		sc->s.ops->tick(&sc->s, now);
	/* idle flows out, a slice of the table a tick (hp_flowtab.h) */
	hp_flowtab_expire(&sc->ft, now);
}

/* rx: the header line and the metadata classify() writes */
static inline void
prefetch_in(struct rte_mbuf *m)
{
	rte_prefetch0(rte_pktmbuf_mtod(m, void *));
	hp_prefetch_meta(m);
}

/* completions: pkt_len and both metadata lines account_tx() reads */
static inline void
prefetch_back(struct rte_mbuf *m)
{
	const uint8_t *md = (const uint8_t *)hp_meta(m);

	rte_prefetch0(m); /* pkt_len */
	rte_prefetch0(md);
	rte_prefetch0(md + RTE_CACHE_LINE_SIZE);
}

/* --apps, per-app backpressure (pl_apps_in): a burst's classified
 * packets into their apps' FIFOs, then their flows, per app, in arrival
 * order. */
static __rte_noinline void
apps_in(struct pl_sched *sc, struct rte_mbuf **pkts, unsigned int n, uint64_t now)
{
	struct pl_apps *ap = sc->apps;
	uint32_t start[HP_MAX_APPS];
	unsigned int a;

	pl_apps_in(sc, pkts, n, start);
	for (a = 0; a < ap->n; a++)
		if (ap->qn[a] > start[a])
			sched_flows(sc, &ap->q[a][start[a]], ap->qn[a] - start[a], now);
}

/* Whether rx waits: one app, while pend's head cannot be placed (or
 * pend has no room for a burst); --apps, while no app has room for one. */
static __rte_always_inline bool
rx_blocked(const struct pl_sched *sc, unsigned int burst, const bool apps)
{
	if (apps)
		return !pl_apps_open(sc->apps, burst);
	return sc->pend_n != 0 && (!sc->pend_open || sc->pend_n + burst > HP_PEND_MAX);
}

/* Way in, 1: rx and classify into pend, only when the last burst is
 * placed (or all that is left was skipped by the policy and fits). The
 * packets' arrival is the pass's start, the TSC read that began it.
 * Foreign ports are read only in the measured phase, so a replayed file
 * is counted whole. apps (a constant, sched_pass): --apps, into the
 * apps' FIFOs instead of pend. */
static __rte_always_inline unsigned int
sched_rx(struct pl_run *r, struct pl_sched *sc, uint64_t now, const bool apps)
{
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int burst = cfg->burst, n, i, k;
	struct rte_mbuf *buf[HP_BURST], **in;
	int quit;

	if (sc->rx_closed)
		return 0;
	if (rx_blocked(sc, burst, apps) || (cfg->src != HP_SRC_GEN && LOAD(r->t0) == 0)) {
		if (cfg->src != HP_SRC_GEN && LOAD(r->sched_quit))
			sc->rx_closed = true;
		return 0;
	}
	/* --packets N from a foreign port: exactly N (the generator stops
	 * itself at N); what comes later stays in the port */
	if (cfg->max_packets && cfg->src != HP_SRC_GEN) {
		if (sc->rx >= cfg->max_packets) {
			sc->rx_closed = LOAD(r->sched_quit) != 0;
			return 0;
		}
		burst = (unsigned int)RTE_MIN((uint64_t)burst, cfg->max_packets - sc->rx);
	}
	/* Read before the poll: a frame enqueued before the stop was asked
	 * for is in the ring when the poll runs, so an empty poll after it
	 * means nothing more comes. Read after, a preemption between the two
	 * left frames in the port for good (mbufs leaked). */
	quit = LOAD(r->sched_quit);
	n = rte_eth_rx_burst(r->rx_port, sc->q, buf, (uint16_t)burst);
	if (n == 0) {
		if (quit)
			sc->rx_closed = true;
		return 0;
	}
	/* Two stages ahead of classify(): the mbuf's first line 2 x PF_AHEAD
	 * packets ahead (address known, no load), then PF_AHEAD ahead the
	 * header line (its address is in that mbuf line, which has landed)
	 * and the metadata classify() writes (for writing: hp_prefetch_meta). */
	for (i = 0; i < RTE_MIN(n, 2 * PF_AHEAD); i++)
		rte_prefetch0(buf[i]);
	for (i = 0; i < RTE_MIN(n, PF_AHEAD); i++)
		prefetch_in(buf[i]);
	sc->rx += n;
	/* --apps: the classified packets stay in buf (k <= i: only slots
	 * already read are written) for apps_in() */
	in = apps ? buf : &sc->pend[sc->pend_n];
	for (i = 0, k = 0; i < n; i++) {
		if (i + 2 * PF_AHEAD < n)
			rte_prefetch0(buf[i + 2 * PF_AHEAD]);
		if (i + PF_AHEAD < n)
			prefetch_in(buf[i + PF_AHEAD]);
		sc->bytes_rx += rte_pktmbuf_pkt_len(buf[i]);
		if (classify(r, sc, buf[i], now) == 0)
			in[k++] = buf[i];
	}
	if (apps) {
		apps_in(sc, buf, k, now);
		return n;
	}
	if (k != 0)
		sched_flows(sc, in, k, now);
	sc->pend_n += k;
	return n;
}

/* Way in, 2: the policy places packets (thesis Source Code 4.1); one no
 * device can take stays in pend, and rx waits. With granularity task the
 * packets between two tasks go first (older). apps: from the apps'
 * FIFOs (pl_apps_place) instead of pend. */
static __rte_always_inline void
sched_distribute(struct pl_run *r, struct pl_sched *sc, uint64_t now, const bool apps)
{
	unsigned int i, e;

	sc->s.now = now;
	while (sc->redo_n) {
		struct rte_mbuf *m = sc->redo[sc->redo_head];
		int d = sc->s.ops->pick(&sc->s, m);

		if (unlikely(d == HP_SCHED_DROP)) {
			pl_sched_admit_drop(r, sc, m, now);
			sc->redo_head = (sc->redo_head + 1) & sc->redo_mask;
			sc->redo_n--;
			continue;
		}
		if (d < 0)
			break;
		hp_meta(m)->t_sched = now;
		hp_staging_put(sc->wst[d], m);
		sc->room[d]--;
		sc->sdev[d].queued++;
		sc->redo_head = (sc->redo_head + 1) & sc->redo_mask;
		sc->redo_n--;
	}
	/* pend in order; a skipped packet stays and the ones behind it
	 * may go (the policy keeps per-flow order), -1 stops the pass */
	sc->s.round++;
	if (apps) {
		pl_apps_place(r, sc, now);
		return;
	}
	sc->pend_open = true;
	for (i = 0, e = 0; i < sc->pend_n; i++) {
		struct rte_mbuf *m = sc->pend[i];
		int d = sc->s.ops->pick(&sc->s, m);

		if (unlikely(d == HP_SCHED_DROP)) {
			pl_sched_admit_drop(r, sc, m, now);
			continue;
		}
		if (d < 0) {
			sc->pend[e++] = m;
			if (d == HP_SCHED_SKIP)
				continue;
			sc->pend_open = false;
			memmove(sc->pend + e, sc->pend + i + 1,
				(sc->pend_n - i - 1) * sizeof(sc->pend[0]));
			e += sc->pend_n - i - 1;
			break;
		}
		hp_meta(m)->t_sched = now;
		hp_staging_put(sc->wst[d], m);
		sc->room[d]--;
		sc->sdev[d].queued++;
	}
	sc->pend_n = e;
}

/* Way in, 3: the device staging into the devices' rings. */
static inline void
sched_flush(struct pl_run *r, struct pl_sched *sc)
{
	unsigned int w;

	for (w = 0; w < r->n_dev; w++)
		if (sc->wst[w]->len)
			sc->sent_w[w] += hp_staging_flush_ring(sc->wst[w], r->dev[w].in);
}

/* Packets on their way out: metrics, the check of foreign traffic, tx
 * staging. */
static inline void
sched_out(struct pl_run *r, struct pl_sched *sc, struct rte_mbuf **emit, unsigned int e,
	  uint64_t now)
{
	const struct hp_run_cfg *cfg = r->cfg;
	const bool results = cfg->tx_results;
	unsigned int k;

	for (k = 0; k < e; k++) {
		account_tx(sc, emit[k], now);
		/* foreign ports: the sink's check runs here */
		if (cfg->src != HP_SRC_GEN)
			pl_verify_every(&r->tr->ver, cfg->verify_every, emit[k]);
		if (unlikely(results))
			pl_tx_results(sc, emit[k]);
		hp_staging_put(&sc->txs, emit[k]);
	}
}

/* A packet a task refused, or the policy's admission refused
 * (admission true), never leaves as it is: it is dropped here with reason
 * task_error (a security task's refusal apart) or admission, and counted,
 * and its sequence is skipped, so its flow's window does not wait for it.
 * Writes what the skip releases to emit; returns how many. Out of line:
 * it is rare. */
static __rte_noinline unsigned int
sched_drop(struct pl_sched *sc, struct rte_mbuf *m, bool admission, struct rte_mbuf **emit)
{
	struct hp_meta *md = hp_meta(m);
	unsigned int e = 0;

	if (admission) {
		sc->admission++;
		if (sc->apps != NULL)
			sc->apps->c[md->app].admission++;
	} else {
		sc->task_err++;
		sc->task_err_sec += md->sec_err;
		if (sc->apps != NULL) {
			sc->apps->c[md->app].task_err++;
			sc->apps->c[md->app].task_err_sec += md->sec_err;
		}
	}
	if (md->flow_slot != HP_FLOW_UNTRACKED) {
		if (md->flags & HP_MF_REORDER)
			e = hp_reorder_skip(&sc->ro, md->flow_slot, md->flow_seq, emit);
		hp_flowtab_out(&sc->ft, md->flow_slot, md->flow_seq, false);
	}
	PUB(sc->freed, sc->freed + 1);
	rte_pktmbuf_free(m);
	return e;
}

/* The policy's admission refused m (HP_SCHED_DROP): dropped with reason
 * admission; what the skip of its sequence releases goes out. */
__rte_noinline void
pl_sched_admit_drop(struct pl_run *r, struct pl_sched *sc, struct rte_mbuf *m, uint64_t now)
{
	struct rte_mbuf *emit[HP_STAGING_MAX];
	unsigned int e = sched_drop(sc, m, true, emit);

	sched_out(r, sc, emit, e, now);
}

/* Way back, 1: windows whose gap outlived the hold drain, then
 * completions -> reorder -> tx staging, while tx staging has room for a
 * burst and what it may release. */
static inline unsigned int
sched_collect(struct pl_run *r, struct pl_sched *sc, uint64_t t0)
{
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int burst = cfg->burst, w, i, n, e, work = 0;
	struct rte_mbuf *buf[HP_BURST], *emit[HP_STAGING_MAX];
	uint64_t now;

	sc->ro.now = t0;
	if (unlikely(hp_reorder_due(&sc->ro))) {
		e = hp_reorder_expire(&sc->ro, emit, hp_staging_room(&sc->txs));
		sched_out(r, sc, emit, e, t0);
		work += e;
	}
	for (w = 0; w < r->n_dev; w++) {
		if (hp_staging_room(&sc->txs) < burst + sc->ro.win + 1)
			break;
		n = rte_ring_dequeue_burst(sc->dout[w], (void **)buf, burst, NULL);
		if (n == 0)
			continue;
		work += n;
		sc->back_w[w] += n;
		/* The device wrote metadata line 1 on its core: fetch each
		 * packet's lines PF_AHEAD packets before its turn, not one
		 * serial miss each; line 0 (arrival, order) is this core's. */
		for (i = 0; i < RTE_MIN(n, PF_AHEAD); i++)
			prefetch_back(buf[i]);
		now = rte_rdtsc();
		sc->ro.now = now;
		for (i = 0; i < n; i++) {
			struct hp_meta *md = hp_meta(buf[i]);

			if (i + PF_AHEAD < n)
				prefetch_back(buf[i + PF_AHEAD]);
			if (task_back(r, sc, buf[i], w, now))
				continue; /* back for its next task */
			if (unlikely(md->status != HP_ST_OK)) {
				e = sched_drop(sc, buf[i], false, emit);
			} else if (md->flags & HP_MF_REORDER) {
				e = hp_reorder_push(&sc->ro, md->flow_slot,
						    md->flow_seq, buf[i], emit);
			} else {
				emit[0] = buf[i];
				e = 1;
			}
			sched_out(r, sc, emit, e, now);
		}
	}
	return work;
}

/* Way back, 2: tx. */
static inline unsigned int
sched_tx(struct pl_run *r, struct pl_sched *sc)
{
	unsigned int n;

	if (sc->txs.len == 0)
		return 0;
	/* through the port for every source, the generator's ring port too,
	 * so that ethdev's opackets counts what left (docs/operations.md):
	 * one call through the PMD's burst function and one add per burst,
	 * not per packet, over the ring enqueue it makes anyway */
	n = hp_staging_flush_eth(&sc->txs, r->sched_tx_port, sc->q);
	sc->tx += n;
	return n;
}

/* The policy's view of each device for the next pass, and everything in
 * flight: sent - returned per device + staging + pend + reorder held + tx
 * staging + between tasks. A failed device gets nothing new; what it
 * holds, it finishes on the CPU path. */
static inline uint64_t
sched_books(struct pl_run *r, struct pl_sched *sc)
{
	uint64_t inflight = 0;
	unsigned int w;

	for (w = 0; w < r->n_dev; w++) {
		sc->sdev[w].failed = hp_device_failed(&r->dev[w]);
		sc->room[w] = sc->sdev[w].failed ? 0 : hp_staging_room(sc->wst[w]);
		sc->sdev[w].queued = (uint32_t)(sc->sent_w[w] - sc->back_w[w] + sc->wst[w]->len);
		inflight += sc->sdev[w].queued;
	}
	inflight += sc->pend_n + sc->ro.held + sc->txs.len + sc->redo_n;
	PUB(sc->in_flight, inflight);
	if (unlikely(r->n_sc > 1))
		pl_multi_books(r, sc);
	return inflight;
}

/* One trace row per second, on a fixed grid from t0: a row that comes
 * late does not push the later ones (rows must not drift out of the steps
 * of a ramp); dt is the real span. */
static inline void
sched_rows(struct pl_run *r, struct pl_sched *sc, uint64_t now)
{
	/* with several schedulers the first writes the rows for all */
	if (sc->idx != 0 || LOAD(r->t0) == 0 ||
	    !((LOAD(r->gen_ctl) & 1) || r->cfg->src != HP_SRC_GEN))
		return;
	if (sc->row.next == 0) {
		sc->row.next = r->t0 + r->hz;
		sc->row.last = r->t0;
	}
	if (now >= sc->row.next) {
		pl_sched_row(r, sc, now, (double)(now - sc->row.last) / (double)r->hz);
		sc->row.last = now;
		while (sc->row.next <= now)
			sc->row.next += r->hz;
	}
}

/* End of run, everything else out: the reorder windows let go of what
 * they hold (the flows on the hold queue), a part per pass so tx staging
 * never overflows. Out of line: it runs a few times a run. */
static __rte_noinline int
sched_drain_windows(struct pl_run *r, struct pl_sched *sc, uint64_t now)
{
	struct rte_mbuf *emit[HP_STAGING_MAX];
	unsigned int e;

	if (sc->ro.held == 0)
		return HP_STAGE_DONE;
	while (sc->ro.held && sc->txs.len <= sc->txs.cap / 2) {
		e = hp_reorder_flush_next(&sc->ro, emit);
		if (e == 0) {
			/* cannot happen: every flow holding a packet is queued */
			HP_LOG(ERR, "reorder: %" PRIu64 " packets held by no queued flow",
			       sc->ro.held);
			return HP_STAGE_DONE;
		}
		sched_out(r, sc, emit, e, now);
	}
	return 1;
}

/* One pass; see the top of this file. Every packet it touches is in sc's
 * staging, pend, redo or reorder state when it returns: nothing lives on
 * its stack between passes, so it can run as a service that moves between
 * lcores. The per-packet steps are inlined into it (each has one caller),
 * so the launcher pays one call per pass and classify() none per packet. */
static __rte_noinline int
sched_pass(void *arg)
{
	struct pl_sched *sc = arg;
	struct pl_run *r = sc->r;
	uint64_t t0 = rte_rdtsc(), now, inflight;
	unsigned int work, in;

	if (LOAD(r->epoch) != sc->ep) {
		sc->ep = LOAD(r->epoch);
		sched_reset(r, sc);
		STORE(sc->epoch_seen, sc->ep);
	}
	/* the way in: rx, classify, pick a device, into its ring */
	/* apps a constant in each: the one-app path is compiled without
	 * the --apps parts (one branch a pass here) */
	if (likely(sc->apps == NULL)) {
		in = sched_rx(r, sc, t0, false);
		sched_distribute(r, sc, t0, false);
	} else {
		in = sched_rx(r, sc, t0, true);
		sched_distribute(r, sc, t0, true);
	}
	sched_flush(r, sc);
	if (in)
		sc->in_cycles += rte_rdtsc() - t0;
	/* the way back: completions, reorder, tx */
	work = in + sched_collect(r, sc, t0);
	work += sched_tx(r, sc);
	inflight = sched_books(r, sc);
	now = rte_rdtsc();
	sc->total_cycles += now - t0;
	if (work)
		sc->busy_cycles += now - t0;
	hp_load_poll(&sc->load, t0, now, work);
	if (now >= sc->next_tick)
		sched_tick(r, sc, now);
	sched_rows(r, sc, now);
	if (LOAD(r->sched_quit) && sc->rx_closed && inflight == sc->ro.held &&
	    sc->txs.len == 0) {
		int d = sched_drain_windows(r, sc, now);

		/* the first scheduler ends last: its last row counts all */
		if (d == HP_STAGE_DONE && unlikely(r->n_sc > 1) && sc->idx == 0 &&
		    !pl_others_done(r))
			return -EAGAIN;
		return d;
	}
	return work ? (int)work : -EAGAIN;
}

static void
sched_start(void *arg, bool alone)
{
	struct pl_sched *sc = arg;
	struct pl_run *r = sc->r;

	sc->alone = alone;
	sc->ep = LOAD(r->epoch);
	sc->epoch_seen = sc->ep;
	sc->row.next = sc->row.last = 0;
	sc->rx_closed = false;
	hp_load_start(&sc->load, rte_rdtsc());
}

static void
sched_stop(void *arg)
{
	struct pl_run *r = ((struct pl_sched *)arg)->r;

	STORE(r->sched_quit, 1);
}

/* The thread's CPU time is the scheduler's only on an lcore of its own;
 * as a service the summary falls back to its TSC spans. */
static void
sched_finish(void *arg)
{
	struct pl_sched *sc = arg;
	struct pl_run *r = sc->r;
	uint64_t now = rte_rdtsc();

	if (sc->alone)
		sc->cpu_ns = hp_thread_cpu_ns() - sc->cpu_ns0;
	/* the last, partial second (a 4 s run had 3 rows), up to the end of
	 * the drain, so that the rows add up to the run; a tail of a few ms
	 * with nothing delivered in it would be a row of rates made of noise
	 * (a late scheduler may deliver thousands in those ms, or drop: they
	 * count) */
	if (sc->idx == 0 && LOAD(r->t0) != 0 && sc->row.next != 0 &&
	    (now - sc->row.last >= r->hz / 20 || sc->tx != sc->row.tx ||
	     pl_port_drops(r) != sc->row.portdrop))
		pl_sched_row(r, sc, now, (double)(now - sc->row.last) / (double)r->hz);
}

const struct hp_stage_ops pl_sched_stage = {
	.name = "sched",
	.start = sched_start,
	.pass = sched_pass,
	.stop = sched_stop,
	.finish = sched_finish,
};
