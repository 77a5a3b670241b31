/* SPDX-License-Identifier: BSD-3-Clause
 * The pipeline's lcore loops and the run driver (see hp_pipeline.h).
 *
 * Loss rules (DESIGN.md §1): no stage ever frees a packet it was handed
 * except the sink; a full ring keeps the packet in a staging buffer and the
 * producer stops pulling work until it drains, so only the port drops.
 */
#include <errno.h>
#include <math.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "hp_common.h"
#include "hp_device.h"
#include "hp_model.h"
#include "hp_pipeline.h"
#include "hp_reorder.h"
#include "hp_sched.h"
#include "hp_stage.h"
#include "hp_svc.h"

#define IDLE_POLLS_BEFORE_YIELD 64
#define IDLE_POLLS_BEFORE_SLEEP 4

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define PUB(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

struct run;


struct flowent {
	uint64_t id;
	uint32_t seq;
	uint8_t used;
};

struct sched_lc {
	struct hp_sched s;
	uint32_t room[HP_MAX_DEV];
	struct hp_stage *wst[HP_MAX_DEVICES];
	struct hp_stage txs;
	/* received, classified, not yet placed; a policy that skips packets
	 * (HP_SCHED_SKIP) lets rx go on while there is room */
	struct rte_mbuf *pend[HP_PEND_MAX];
	unsigned int pend_n, pend_idx;
	bool pend_open;
	struct hp_reorder ro;
	struct flowent *flows;
	uint32_t flow_mask;
	uint64_t sent_w[HP_MAX_DEVICES], back_w[HP_MAX_DEVICES];
	uint64_t back_base[HP_MAX_DEVICES];
	uint64_t cyc2ns_mult; /* ns = cycles * mult >> 32 */
	uint64_t dl_cycles[HP_MAX_TYPES + 1];
	struct hp_type_index tix; /* cfg->types by frame length */
	/* counters (scheduler-owned; others read them relaxed) */
	uint64_t rx, tx, bytes_tx, invalid[HP_DROP_REASONS];
	uint64_t dl_pkts, dl_met, task_err;
	uint64_t oh1, proc, oh3; /* cycle sums over tx'ed packets */
	uint64_t busy_cycles, total_cycles;
	/* of busy_cycles, the way in: from the rx poll that brought packets
	 * to the end of that pass (rx, classify, policy, rings to devices);
	 * the rest is the way back (completions, reorder, metrics, tx) */
	uint64_t in_cycles, i_in;
	uint64_t cpu_ns0, cpu_ns; /* thread CPU time: at reset, then spent */
	uint64_t in_flight;
	int done;
	int epoch_seen;
	struct hp_hist lat, ilat; /* the run's; this second's (merged into lat per row) */
	struct hp_hist dlat[HP_MAX_DEVICES]; /* latency per device */
	/* this second's per device: the one histogram a packet is added to;
	 * lat_fold() makes ilat and dlat from them once a row */
	struct hp_hist idlat[HP_MAX_DEVICES];
	/* per-second interval snapshot */
	uint64_t i_tx, i_bytes, i_dl, i_dlmet, i_ro, i_roin, i_off, i_portdrop;
	uint64_t i_held; /* packets the reorder stage held at the last row */
	uint64_t i_roooo; /* reorder.st.arrived_ooo at the last row */
	uint64_t i_busy, i_total, i_wbusy[HP_MAX_DEVICES], i_wtotal[HP_MAX_DEVICES];
	struct hp_load load;
	struct hp_load_raw i_load[HP_LOAD_LOOPS]; /* load counters at the last row */
	/* scheduling policy's view (lib/sched) */
	struct hp_sched_dev sdev[HP_MAX_DEV];
	struct hp_sched_env senv;
	const struct hp_model *pmodel[2]; /* cfg->profile's by role, or NULL */
	/* granularity task: packets between two tasks, waiting for their
	 * next decision; FIFO as large as the mbuf pool, so it never fills
	 * and completions are always taken (no cycle of full buffers) */
	struct rte_mbuf **redo;
	uint32_t redo_mask, redo_head, redo_n;
	uint64_t task_back[HP_MAX_DEVICES][HP_MAX_TASKS];
	uint64_t task_base[HP_MAX_DEVICES][HP_MAX_TASKS];
	uint64_t i_back[HP_MAX_DEVICES]; /* completions at the last row */
	/* input rate and delivered bits for the policy (EWMA, tick) */
	uint64_t tick_t, tick_rx, tick_bytes, next_tick;
	/* the loop's own state between passes (sched_pass) */
	int ep;                   /* the epoch its counters belong to */
	bool rx_closed;           /* end of run: nothing more is read */
	uint64_t next_row, last_row; /* trace rows: next due, last written */
};

struct traffic {
	struct hp_gen gen;
	struct hp_profile prof;
	struct rte_ring *rx_ring; /* port rx queue (gen -> scheduler) */
	struct rte_ring *tx_ring; /* port tx queue (scheduler -> sink) */
	struct hp_task_ctx vctx[HP_MAX_TASKS];
	struct hp_task_ctx gctx[HP_MAX_TASKS]; /* generator bodies (gen_body) */
	uint8_t *scratch;
	uint64_t offered, dropped_port, sink, sink_bytes;
	uint64_t verified, verify_fail, unverified, task_err;
	uint64_t vcount;
	int epoch_seen;
	int stopped; /* acknowledges gen_on == 0 */
	struct hp_load load;
	/* the loop's own state between passes (traffic_pass) */
	uint64_t last;  /* generator: TSC of the last pass */
	/* hp_load: where the next pass starts, if known. A busy pass is
	 * followed by the next at once (the idle action runs only after an
	 * empty one), so its end is the next one's start. With the empty
	 * pass's end below, only a busy pass right after an empty one
	 * still reads the TSC twice for the counters; the others read it
	 * once or not at all. Measured on the 2-vCPU VM: a read costs
	 * ~11 ns, and the null pipeline makes 0.12 traffic passes a packet,
	 * two thirds of them empty, so two reads a pass were ~3 % of a
	 * packet's 80 ns (bench/results/load-2026-11-22g.md, section 4). */
	uint64_t t_next;
	double credit;  /* generator: frames due, not yet offered */
	int ep;         /* the epoch its counters belong to */
	/* --gen-recycle: delivered frames kept for the generator to send
	 * again as they are (LIFO, so they are warm in this core's cache) */
	struct rte_mbuf **recyc;
	unsigned int recyc_n, recyc_cap;
};

struct run {
	const struct hp_run_cfg *cfg;
	double power_w[HP_POWER_MAX]; /* last power sample, for trace rows */
	const struct hp_app *app;
	const struct hp_task_ops *tasks[HP_MAX_TASKS];
	struct rte_mempool *pool;
	uint16_t rx_port, tx_port;
	int rx_port_ok, tx_port_ok;
	unsigned int n_workers;    /* cpu devices */
	unsigned int n_dev;        /* cpu devices + accelerator */
	struct hp_device *dev;
	struct hp_dev_env env;
	struct sched_lc *sc;
	struct traffic *tr;
	unsigned int sched_lcore, traffic_lcore;
	/* control flags */
	int gen_on, calibrating, sched_quit, sink_quit, epoch;
	uint64_t t0; /* TSC when the measured phase began */
	uint64_t hz;
	struct hp_trace_row *rows;
	unsigned int n_rows;
	uint64_t pcap_count;
	/* --stages-as-services: one service per stage (lib/svc) */
	bool svc_on;
	unsigned int n_stages;
	struct stage_svc {
		struct run *r;
		struct hp_device *dev;   /* a device stage, else NULL */
		bool sched;              /* the scheduler, else traffic */
		bool started;            /* its loop's start ran */
		int done;                /* its pass said everything is out */
		uint32_t id;             /* DPDK service id */
		char name[32];           /* RTE_SERVICE_NAME_MAX */
	} stage[HP_MAX_DEVICES + 2];
};

static void sink_verify(struct run *r, struct traffic *tr, struct rte_mbuf *m);

static inline void
idle(const struct run *r, unsigned int *idle_polls)
{
	if (r->cfg->idle_yield && ++(*idle_polls) >= (r->cfg->idle_yield == HP_IDLE_SLEEP ?
					 IDLE_POLLS_BEFORE_SLEEP : IDLE_POLLS_BEFORE_YIELD)) {
		*idle_polls = 0;
		hp_idle_giveup(r->cfg->idle_yield);
	} else {
		rte_pause();
	}
}

/* Load counters (lib/load) of every polling loop: devices, scheduler,
 * and the traffic lcore when there is one. */
static unsigned int
n_loops(const struct run *r)
{
	return r->n_dev + 1 + (r->cfg->src == HP_SRC_GEN ? 1 : 0);
}

static struct hp_load *
loop_load(const struct run *r, unsigned int i)
{
	if (i < r->n_dev)
		return &r->dev[i].load;
	return i == r->n_dev ? &r->sc->load : &r->tr->load;
}

static int
loads_init(struct run *r, char *err, size_t errlen)
{
	unsigned int i, burst = r->cfg->burst;
	int ret = 0;

	for (i = 0; i < n_loops(r) && ret == 0; i++) {
		struct hp_load_conf c = {
			.interval_s = r->cfg->load_interval_s,
			.hz = r->hz,
			.yields = r->cfg->idle_yield != 0,
			/* items per iteration at saturation: a device's burst
			 * or batch; scheduler and traffic each handle rx,
			 * completions and tx in one iteration */
			.max_batch = i < r->n_dev ?
				RTE_MAX(burst, r->dev[i].caps.max_batch_pkts) : 3 * burst,
		};

		snprintf(c.name, sizeof(c.name), "%s", i < r->n_dev ? r->dev[i].name :
			 i == r->n_dev ? "sched" : "traffic");
		ret = hp_load_init(loop_load(r, i), &c);
		if (ret == 0)
			ret = hp_load_register(loop_load(r, i));
	}
	if (ret == 0)
		ret = hp_load_telemetry_init();
	if (ret < 0)
		snprintf(err, errlen, "load counters: %s (--load-interval is 0.01..60 s)",
			 strerror(-ret));
	return ret;
}

static void
loads_fini(struct run *r)
{
	unsigned int i;

	if (r->dev == NULL || r->sc == NULL || r->tr == NULL)
		return;
	for (i = 0; i < n_loops(r); i++)
		hp_load_unregister(loop_load(r, i));
}

/* Device lcores run the device kind's loop (lib/device). */
static int
device_main(void *arg)
{
	struct hp_device *dev = arg;

	return dev->ops->main(dev);
}

/* ------------------------------------------------------------------ */
/* Scheduler lcore: rx, classify, schedule, reorder, tx.               */

static inline uint16_t
flow_slot(struct sched_lc *sc, uint64_t id)
{
	uint32_t i = (uint32_t)id & sc->flow_mask, n;

	for (n = 0; n <= sc->flow_mask; n++, i = (i + 1) & sc->flow_mask) {
		struct flowent *f = &sc->flows[i];

		if (f->used && f->id == id)
			return (uint16_t)i;
		if (!f->used) {
			f->used = 1;
			f->id = id;
			f->seq = 0;
			return (uint16_t)i;
		}
	}
	return HP_FLOW_UNTRACKED;
}

/* Returns 0 if the packet was classified, or drops it with a reason. */
static inline int
classify(struct run *r, struct sched_lc *sc, struct rte_mbuf *m, uint64_t now)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct hp_meta *md = hp_meta(m);
	struct hp_flow_key key;
	enum hp_drop_reason why;
	uint16_t off, len, slot;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	bool reorder, latency;
	int type;

	if (m->nb_segs != 1)
		why = HP_DROP_SEGMENTED;
	else
		why = hp_parse(p, rte_pktmbuf_data_len(m), &key, &off, &len);
	if (why != HP_DROP_NONE) {
		sc->invalid[why]++;
		rte_pktmbuf_free(m);
		return -1;
	}
	/* line 0 but the generator's gen_len, and line 1's device part:
	 * step, status, times (task results are their tasks') */
	RTE_BUILD_BUG_ON(offsetof(struct hp_meta, flow_id) != RTE_CACHE_LINE_SIZE);
	RTE_BUILD_BUG_ON(sizeof(struct hp_meta) > 2 * RTE_CACHE_LINE_SIZE);
	memset(md, 0, HP_META_SCHED_CLEAR);
	memset(&md->flow_id, 0, HP_META_DEV_CLEAR);
	md->flow_id = hp_flow_hash(&key);
	reorder = key.proto == IPPROTO_TCP;
	latency = key.dscp == HP_DSCP_EF;
	type = hp_type_index_lookup(&sc->tix, rte_pktmbuf_pkt_len(m), reorder, latency);
	md->type = (uint8_t)type;
	if (type > 0) {
		/* The table decides: a type row may override the header hints. */
		reorder = cfg->types.t[type - 1].reorder;
		latency = cfg->types.t[type - 1].latency;
	}
	md->t_rx = now;
	if (latency && type > 0) {
		md->flags |= HP_MF_LATENCY;
		md->t_deadline = now + sc->dl_cycles[type];
	}
	slot = flow_slot(sc, md->flow_id);
	md->flow_slot = slot;
	md->flow_seq = slot == HP_FLOW_UNTRACKED ? 0 : sc->flows[slot].seq++;
	if (reorder && slot != HP_FLOW_UNTRACKED)
		md->flags |= HP_MF_REORDER;
	if (key.proto == IPPROTO_TCP)
		md->flags |= HP_MF_TCP;
	md->hdr_seq = md->flow_seq;
	hp_meta_payload(md, p, off, len);
	hp_meta_seq_note(md);
	return 0;
}

/* Folds the per-device histograms of the open second into the second's
 * (ilat) and each device's run histogram (dlat). */
static void
lat_fold(struct run *r, struct sched_lc *sc)
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
account_tx(struct sched_lc *sc, struct rte_mbuf *m, uint64_t now)
{
	struct hp_meta *md = hp_meta(m);
	uint64_t lat = now - md->t_rx;
	uint64_t ns = (lat * sc->cyc2ns_mult) >> 32;

	sc->bytes_tx += rte_pktmbuf_pkt_len(m);
	/* one add per packet (~23 instructions, callgrind): the second's,
	 * the run's and the device's histograms are sums of these, formed
	 * once a row by lat_fold() */
	hp_hist_add(&sc->idlat[md->device], ns);
	sc->oh1 += md->t_work - md->t_rx;
	sc->proc += md->t_done - md->t_work;
	sc->oh3 += now - md->t_done;
	if (md->flags & HP_MF_LATENCY) {
		sc->dl_pkts++;
		if (now <= md->t_deadline)
			sc->dl_met++;
	}
	if (md->status != HP_ST_OK)
		sc->task_err++;
	if (sc->s.ops->tx != NULL)
		sc->s.ops->tx(&sc->s, m, now);
}

static void
sched_reset(struct run *r, struct sched_lc *sc)
{
	memset(sc->invalid, 0, sizeof(sc->invalid));
	sc->rx = sc->tx = sc->bytes_tx = 0;
	sc->dl_pkts = sc->dl_met = sc->task_err = 0;
	sc->oh1 = sc->proc = sc->oh3 = 0;
	sc->busy_cycles = sc->total_cycles = sc->in_cycles = sc->i_in = 0;
	sc->cpu_ns0 = hp_thread_cpu_ns();
	sc->i_tx = sc->i_bytes = sc->i_dl = sc->i_dlmet = sc->i_ro = sc->i_roin = 0;
	sc->i_held = sc->ro.held; /* held packets survive the reset */
	sc->i_roooo = 0;
	sc->i_off = sc->i_portdrop = 0;
	sc->i_busy = sc->i_total = 0;
	memset(sc->i_wbusy, 0, sizeof(sc->i_wbusy));
	memset(sc->i_wtotal, 0, sizeof(sc->i_wtotal));
	/* sent_w/back_w stay monotonic (they define what is in flight); the
	 * device share is counted from here. */
	memcpy(sc->back_base, sc->back_w, sizeof(sc->back_w));
	memcpy(sc->task_base, sc->task_back, sizeof(sc->task_back));
	sc->tick_rx = 0;
	sc->tick_bytes = 0;
	memcpy(sc->i_back, sc->back_w, sizeof(sc->back_w));
	hp_reorder_reset_stats(&sc->ro);
	hp_hist_reset(&sc->lat);
	hp_hist_reset(&sc->ilat);
	for (unsigned int d = 0; d < HP_MAX_DEVICES; d++) {
		hp_hist_reset(&sc->dlat[d]);
		hp_hist_reset(&sc->idlat[d]);
	}
	for (unsigned int l = 0; l < n_loops(r); l++)
		hp_load_read(loop_load(r, l), &sc->i_load[l]);
	sc->txs.retries = 0;
}

static uint64_t
port_drops(struct run *r)
{
	struct rte_eth_stats st;

	if (r->cfg->src == HP_SRC_GEN)
		return LOAD(r->tr->dropped_port);
	if (rte_eth_stats_get(r->rx_port, &st) != 0)
		return 0;
	return st.imissed + st.rx_nombuf + st.ierrors;
}

static uint64_t
offered_now(struct run *r)
{
	if (r->cfg->src == HP_SRC_GEN)
		return LOAD(r->tr->offered);
	return r->sc->rx + port_drops(r);
}

/* One trace row per second, computed by the lcore that owns the data. */
static void
sched_row(struct run *r, struct sched_lc *sc, uint64_t now, double dt)
{
	struct hp_trace_row *row;
	uint64_t off = offered_now(r), pd = port_drops(r);
	uint64_t ro = sc->ro.st.packets, roin = sc->ro.st.in_order;
	unsigned int i;

	if (r->n_rows >= HP_TRACE_MAX)
		return;
	row = &r->rows[r->n_rows];
	lat_fold(r, sc);
	row->t = (double)(now - r->t0) / (double)r->hz;
	row->offered_pps = (double)(off - sc->i_off) / dt;
	row->delivered_pps = (double)(sc->tx - sc->i_tx) / dt;
	row->gbps = (double)(sc->bytes_tx - sc->i_bytes) * 8 / dt / 1e9;
	row->p50_us = (double)hp_hist_quantile(&sc->ilat, 0.5) / 1e3;
	row->p99_us = (double)hp_hist_quantile(&sc->ilat, 0.99) / 1e3;
	row->deadline_pct = sc->dl_pkts > sc->i_dl ?
		100.0 * (double)(sc->dl_met - sc->i_dlmet) / (double)(sc->dl_pkts - sc->i_dl) : 100.0;
	{
		/* in-order sends over the second's sends (pushed less what
		 * the window kept; releases of earlier packets count too) */
		int64_t sent = (int64_t)(ro - sc->i_ro) + (int64_t)sc->i_held -
			       (int64_t)sc->ro.held;

		row->reorder_pct = sent > 0 ?
			100.0 * (double)(roin - sc->i_roin) / (double)sent : 100.0;
	}
	row->arrived_pct = ro > sc->i_ro ? 100.0 - 100.0 * (double)(sc->ro.st.arrived_ooo - sc->i_roooo) /
		(double)(ro - sc->i_ro) : 100.0;
	row->dropped_port = pd - sc->i_portdrop;
	row->sched_busy_pct = sc->total_cycles > sc->i_total ?
		100.0 * (double)(sc->busy_cycles - sc->i_busy) /
		(double)(sc->total_cycles - sc->i_total) : 0;
	row->sched_in_pct = sc->busy_cycles > sc->i_busy ?
		100.0 * (double)(sc->in_cycles - sc->i_in) /
		(double)(sc->busy_cycles - sc->i_busy) : 0;
	sc->i_in = sc->in_cycles;
	for (i = 0; i < r->n_dev; i++) {
		uint64_t b = LOAD(r->dev[i].st.busy_cycles), t = LOAD(r->dev[i].st.total_cycles);

		row->worker_busy_pct[i] = t > sc->i_wtotal[i] ?
			100.0 * (double)(b - sc->i_wbusy[i]) / (double)(t - sc->i_wtotal[i]) : 0;
		sc->i_wbusy[i] = b;
		sc->i_wtotal[i] = t;
	}
	row->mean_us = hp_hist_mean(&sc->ilat) / 1e3;
	{
		uint64_t all = 0;

		for (i = 0; i < r->n_dev; i++)
			all += sc->back_w[i] - sc->i_back[i];
		for (i = 0; i < r->n_dev; i++) {
			row->dev_share_pct[i] = all ? 100.0 * (double)(sc->back_w[i] - sc->i_back[i]) /
				(double)all : 0;
			sc->i_back[i] = sc->back_w[i];
		}
	}
	for (i = 0; i < HP_POWER_MAX; i++)
		__atomic_load(&r->power_w[i], &row->power_w[i], __ATOMIC_RELAXED);
	sc->i_tx = sc->tx;
	sc->i_bytes = sc->bytes_tx;
	sc->i_dl = sc->dl_pkts;
	sc->i_dlmet = sc->dl_met;
	sc->i_ro = ro;
	sc->i_roin = roin;
	sc->i_held = sc->ro.held;
	sc->i_roooo = sc->ro.st.arrived_ooo;
	sc->i_off = off;
	sc->i_portdrop = pd;
	sc->i_busy = sc->busy_cycles;
	sc->i_total = sc->total_cycles;
	hp_hist_merge(&sc->lat, &sc->ilat);
	hp_hist_reset(&sc->ilat);
	row->n_load = n_loops(r);
	for (i = 0; i < row->n_load; i++)
		hp_load_row_take(loop_load(r, i), &sc->i_load[i], &row->load[i]);
	STORE(r->n_rows, r->n_rows + 1);
}

/* Granularity task: a packet back from one task. Counts where each task
 * ran, tells the policy, and queues the packet for its next decision;
 * returns true then (false: the chain is done, on to reorder and tx). */
static inline bool
task_back(struct run *r, struct sched_lc *sc, struct rte_mbuf *m, unsigned int w,
	  uint64_t now)
{
	struct hp_meta *md = hp_meta(m);
	unsigned int k, n_tasks = r->app->n_tasks;

	if (r->cfg->task_gran) {
		k = md->step ? md->step - 1u : 0;
		sc->task_back[w][k]++;
	} else {
		for (k = 0; k < n_tasks; k++)
			sc->task_back[w][k]++;
		k = HP_MAX_TASKS;
	}
	if (sc->s.ops->done != NULL)
		sc->s.ops->done(&sc->s, m, w, k, now);
	if (!r->cfg->task_gran || md->step >= n_tasks)
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
sched_tick(struct run *r, struct sched_lc *sc, uint64_t now)
{
	double dt = (double)(now - sc->tick_t) / (double)r->hz, a;
	uint64_t off = offered_now(r);

	if (sc->tick_t != 0 && dt > 0 && off >= sc->tick_rx) {
		a = 1.0 - exp(-dt / 0.1);
		sc->s.rate_pps += a * ((double)(off - sc->tick_rx) / dt - sc->s.rate_pps);
		sc->s.tput_bps += a * ((double)(sc->bytes_tx - sc->tick_bytes) * 8 / dt -
				       sc->s.tput_bps);
	}
	sc->tick_t = now;
	sc->tick_rx = off;
	sc->tick_bytes = sc->bytes_tx;
	sc->next_tick = now + r->hz / 1000;
	if (sc->s.ops->tick != NULL)
		sc->s.ops->tick(&sc->s, now);
}

static void
sched_start(struct run *r)
{
	struct sched_lc *sc = r->sc;

	sc->ep = LOAD(r->epoch);
	sc->epoch_seen = sc->ep;
	sc->next_row = sc->last_row = 0;
	sc->rx_closed = false;
	hp_load_start(&sc->load, rte_rdtsc());
}

/* One pass of the scheduler: completions -> reorder -> tx, rx + classify,
 * distribute, flush, trace row, end of run. Returns the packets it moved
 * (1 while it flushes reorder windows at the end), 0 when it found
 * nothing, -1 once everything is out. Every packet it
 * touches is in sc's staging, pend, redo or reorder state when it
 * returns: nothing lives on its stack between passes, so it can run as a
 * service that moves between lcores. One copy, called by the lcore loop
 * and by the service: a second, inlined copy would make the compiler stop
 * inlining classify() and the row code into it (two callers each), which
 * costs a call per packet; this way the lcore loop pays one call per
 * pass (~2 ns), and classify stays inlined as before the split. */
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

static __rte_noinline int
sched_pass(struct run *r)
{
	struct sched_lc *sc = r->sc;
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int burst = cfg->burst, nw = r->n_dev;
	unsigned int w, i;
	struct rte_mbuf *buf[HP_BURST], *emit[HP_STAGE_MAX];
	uint64_t t0 = rte_rdtsc(), now, inflight = 0, t_in = 0;
	unsigned int work = 0, n, e;

	if (LOAD(r->epoch) != sc->ep) {
		sc->ep = LOAD(r->epoch);
		sched_reset(r, sc);
		sc->next_row = 0;
		STORE(sc->epoch_seen, sc->ep);
	}
	/* 1. completions -> reorder -> tx staging */
	for (w = 0; w < nw; w++) {
		if (hp_stage_room(&sc->txs) < burst + sc->ro.win + 1)
			break;
		n = rte_ring_dequeue_burst(r->dev[w].out, (void **)buf, burst, NULL);
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
		for (i = 0; i < n; i++) {
			struct hp_meta *md = hp_meta(buf[i]);
			unsigned int k;

			if (i + PF_AHEAD < n)
				prefetch_back(buf[i + PF_AHEAD]);

			if (task_back(r, sc, buf[i], w, now))
				continue; /* back for its next task */
			if (md->flags & HP_MF_REORDER) {
				e = hp_reorder_push(&sc->ro, md->flow_slot,
						    md->flow_seq, buf[i], emit);
			} else {
				emit[0] = buf[i];
				e = 1;
			}
			for (k = 0; k < e; k++) {
				account_tx(sc, emit[k], now);
				/* foreign ports: the sink check runs here */
				if (cfg->src != HP_SRC_GEN && cfg->verify_every &&
				    ++r->tr->vcount >= cfg->verify_every) {
					r->tr->vcount = 0;
					sink_verify(r, r->tr, emit[k]);
				}
				hp_stage_put(&sc->txs, emit[k]);
			}
		}
	}
	/* 2. tx */
	if (sc->txs.len) {
		n = cfg->src == HP_SRC_GEN ?
			hp_stage_flush_ring(&sc->txs, r->tr->tx_ring) :
			hp_stage_flush_eth(&sc->txs, r->tx_port, 0);
		sc->tx += n;
		work += n;
	}
	/* 3. rx + classify, only when the last burst is placed (or
	 * all that is left was skipped by the policy and fits) */
	/* Foreign ports are read only in the measured phase, so a
	 * replayed file is counted whole. */
	if ((sc->pend_n == 0 || (sc->pend_open && sc->pend_n + burst <= HP_PEND_MAX)) &&
	    !sc->rx_closed &&
	    (cfg->src == HP_SRC_GEN || LOAD(r->t0) != 0)) {
		/* the packets' arrival: the poll that brings them, ahead of
		 * the burst so that the way-in share below includes the poll.
		 * A pass that has done nothing yet reuses its start: an empty
		 * poll then reads the TSC twice, not three times (~50 cycles
		 * a read on this VM). */
		now = work ? rte_rdtsc() : t0;
		n = rte_eth_rx_burst(r->rx_port, 0, buf, (uint16_t)burst);
		if (n == 0 && LOAD(r->sched_quit))
			sc->rx_closed = true;
		if (n > 0) {
			t_in = now;
			/* Two stages ahead of classify(): the mbuf's first
			 * line 2 x PF_AHEAD packets ahead (address known, no
			 * load), then PF_AHEAD ahead the header line (its
			 * address is in that mbuf line, which has landed) and
			 * the metadata classify() writes (for writing:
			 * hp_prefetch_meta). */
			for (i = 0; i < RTE_MIN(n, 2 * PF_AHEAD); i++)
				rte_prefetch0(buf[i]);
			for (i = 0; i < RTE_MIN(n, PF_AHEAD); i++)
				prefetch_in(buf[i]);
			sc->rx += n;
			work += n;
			for (i = 0; i < n; i++) {
				if (i + 2 * PF_AHEAD < n)
					rte_prefetch0(buf[i + 2 * PF_AHEAD]);
				if (i + PF_AHEAD < n)
					prefetch_in(buf[i + PF_AHEAD]);
				if (classify(r, sc, buf[i], now) == 0)
					sc->pend[sc->pend_n++] = buf[i];
			}
		}
	} else if (!sc->rx_closed && LOAD(r->sched_quit) && cfg->src != HP_SRC_GEN) {
		sc->rx_closed = true;
	}
	/* 4. distribute (thesis Source Code 4.1): a packet no device
	 * can take stays in pend, and rx waits. With granularity
	 * task the packets between two tasks go first (older). */
	sc->s.now = t0;
	while (sc->redo_n) {
		struct rte_mbuf *m = sc->redo[sc->redo_head];
		int d = sc->s.ops->pick(&sc->s, m);

		if (d < 0)
			break;
		hp_meta(m)->t_sched = t0;
		hp_stage_put(sc->wst[d], m);
		sc->room[d]--;
		sc->sdev[d].queued++;
		sc->redo_head = (sc->redo_head + 1) & sc->redo_mask;
		sc->redo_n--;
	}
	/* pend in order; a skipped packet stays and the ones behind it
	 * may go (the policy keeps per-flow order), -1 stops the pass */
	sc->s.round++;
	sc->pend_open = true;
	for (i = 0, e = 0; i < sc->pend_n; i++) {
		struct rte_mbuf *m = sc->pend[i];
		int d = sc->s.ops->pick(&sc->s, m);

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
		hp_meta(m)->t_sched = t0;
		hp_stage_put(sc->wst[d], m);
		sc->room[d]--;
		sc->sdev[d].queued++;
	}
	sc->pend_n = e;
	/* 5. flush device staging */
	for (w = 0; w < nw; w++) {
		if (sc->wst[w]->len) {
			n = hp_stage_flush_ring(sc->wst[w], r->dev[w].in);
			sc->sent_w[w] += n;
		}
		/* A failed device gets nothing new; what it holds, it
		 * finishes on the CPU path. */
		sc->sdev[w].failed = LOAD(r->dev[w].failed) != 0;
		sc->room[w] = sc->sdev[w].failed ? 0 : hp_stage_room(sc->wst[w]);
		sc->sdev[w].queued = (uint32_t)(sc->sent_w[w] - sc->back_w[w] + sc->wst[w]->len);
		inflight += sc->sdev[w].queued;
	}
	inflight += sc->pend_n - sc->pend_idx + sc->ro.held + sc->txs.len + sc->redo_n;
	PUB(sc->in_flight, inflight);
	now = rte_rdtsc();
	sc->total_cycles += now - t0;
	if (work)
		sc->busy_cycles += now - t0;
	if (t_in)
		sc->in_cycles += now - t_in;
	hp_load_poll(&sc->load, t0, now, work);
	if (now >= sc->next_tick)
		sched_tick(r, sc, now);
	/* 6. one trace row per second, on a fixed grid from t0: a row
	 * that comes late does not push the later ones (rows must not
	 * drift out of the steps of a ramp); dt is the real span. */
	if (LOAD(r->t0) && (LOAD(r->gen_on) || cfg->src != HP_SRC_GEN)) {
		if (sc->next_row == 0) {
			sc->next_row = r->t0 + r->hz;
			sc->last_row = r->t0;
		}
		if (now >= sc->next_row) {
			sched_row(r, sc, now, (double)(now - sc->last_row) / (double)r->hz);
			sc->last_row = now;
			while (sc->next_row <= now)
				sc->next_row += r->hz;
		}
	}
	/* 7. end of run: everything is out, flush reorder windows */
	if (LOAD(r->sched_quit) && sc->rx_closed && inflight == sc->ro.held &&
	    sc->txs.len == 0) {
		if (sc->ro.held == 0)
			return -1;
		for (i = 0; i <= sc->flow_mask && sc->ro.held; i++) {
			unsigned int k;

			e = hp_reorder_flush(&sc->ro, i, emit);
			for (k = 0; k < e; k++) {
				account_tx(sc, emit[k], now);
				hp_stage_put(&sc->txs, emit[k]);
			}
			if (sc->txs.len > sc->txs.cap / 2)
				break;
		}
		return 1;
	}
	return (int)work;
}

/* An lcore loop: the stage's start, then its pass until it says it is
 * done, pausing after a pass that found nothing. Inlined with constant
 * functions: direct calls. */
static __rte_always_inline void
lcore_loop(struct run *r, void (*start)(struct run *), int (*pass)(struct run *))
{
	unsigned int idle_polls = 0;
	int n;

	start(r);
	while ((n = pass(r)) >= 0)
		if (n == 0)
			idle(r, &idle_polls);
}

static int
sched_main(void *arg)
{
	struct run *r = arg;
	struct sched_lc *sc = r->sc;

	lcore_loop(r, sched_start, sched_pass);
	sc->cpu_ns = hp_thread_cpu_ns() - sc->cpu_ns0;
	STORE(sc->done, 1);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Traffic lcore: generator (port rx side) and sink (port tx side).    */

/* Verifies one delivered packet end to end: undo the chain with each
 * task's reference path, then compare with the sender's CRC32C tag. */
static void
sink_verify(struct run *r, struct traffic *tr, struct rte_mbuf *m)
{
	struct hp_meta *md = hp_meta(m);
	const struct hp_app_hdr *h;
	uint32_t len;
	int k;

	if (!(md->flags & HP_MF_HPHDR)) {
		tr->unverified++;
		return;
	}
	if (md->status != HP_ST_OK) {
		tr->task_err++;
		tr->verify_fail++;
		return;
	}
	len = md->data_len;
	if (len > HP_VERIFY_BUF) {
		tr->unverified++;
		return;
	}
	memcpy(tr->scratch, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), len);
	for (k = (int)r->app->n_tasks - 1; k >= 0; k--) {
		int ret = tr->vctx[k].ops->verify ?
			tr->vctx[k].ops->verify(&tr->vctx[k], m, tr->scratch, &len) :
			-ENOTSUP;

		if (ret == -ENOTSUP) {
			tr->unverified++;
			return;
		}
		if (ret < 0) {
			tr->verify_fail++;
			return;
		}
	}
	h = rte_pktmbuf_mtod_offset(m, const struct hp_app_hdr *,
				    md->data_off - sizeof(*h));
	if (hp_crc32c(tr->scratch, len) != rte_be_to_cpu_32(h->tag))
		tr->verify_fail++;
	else
		tr->verified++;
}

static void
traffic_start(struct run *r)
{
	struct traffic *tr = r->tr;

	tr->last = rte_rdtsc();
	tr->t_next = 0;
	tr->credit = 0;
	tr->ep = LOAD(r->epoch);
	tr->epoch_seen = tr->ep;
	hp_load_start(&tr->load, rte_rdtsc());
}

/* One pass of the traffic loop: sink, then generator. Returns the packets
 * it moved, 0 when it found nothing, -1 once the sink has everything the
 * scheduler sent. Its state between passes is in *tr (the generator's
 * credit and clock, the epoch), so it can run as a service. One copy for
 * the lcore loop and the service, like sched_pass. */
static __rte_noinline int
traffic_pass(struct run *r)
{
	struct traffic *tr = r->tr;
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int burst = cfg->burst, i;
	struct rte_mbuf *pkts[2 * HP_BURST];
	unsigned int n, work = 0;
	uint64_t now, t1, t0 = tr->t_next ? tr->t_next : hp_load_tsc();

	if (LOAD(r->epoch) != tr->ep) {
		tr->ep = LOAD(r->epoch);
		tr->offered = tr->dropped_port = tr->sink = tr->sink_bytes = 0;
		tr->verified = tr->verify_fail = tr->unverified = tr->task_err = 0;
		STORE(tr->epoch_seen, tr->ep);
	}
	/* sink */
	n = rte_ring_dequeue_burst(tr->tx_ring, (void **)pkts, 2 * burst, NULL);
	for (i = 0; i < n; i++) {
		if (cfg->verify_every && ++tr->vcount >= cfg->verify_every) {
			tr->vcount = 0;
			sink_verify(r, tr, pkts[i]);
		}
		tr->sink_bytes += rte_pktmbuf_pkt_len(pkts[i]);
	}
	if (n) {
		unsigned int nf = n;

		if (tr->recyc != NULL) {
			/* keep the frames whose length no task changed (a CBC
			 * pad would grow them pass after pass) */
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
		work += n;
	}
	/* generator */
	now = rte_rdtsc();
	if (LOAD(r->gen_on)) {
		double rate, dt = (double)(now - tr->last) / (double)r->hz;
		unsigned int k, sent, room, fit, old;

		if (LOAD(r->calibrating))
			rate = 1e12;
		else
			rate = hp_profile_rate(&tr->prof,
					       (double)(now - r->t0) / (double)r->hz);
		tr->credit += rate * dt;
		/* A preempted generator catches up at most this much,
		 * so offered load stays close to the profile. */
		if (tr->credit > 4096)
			tr->credit = 4096;
		if (tr->credit >= 1) {
			k = tr->credit < burst ? (unsigned int)tr->credit : burst;
			/* Like a NIC, a full rx queue drops at no cost to
			 * the host: only frames that fit are built. A
			 * generator that built and freed them would burn
			 * the CPU it shares with the scheduler on a small
			 * machine (then capacity measures the OS's time
			 * slices, not the pipeline). Only this lcore
			 * enqueues, so the free count cannot shrink. */
			room = rte_ring_free_count(tr->rx_ring);
			fit = RTE_MIN(k, room);
			old = RTE_MIN(fit, tr->recyc_n);
			for (i = 0; i < old; i++)
				pkts[i] = tr->recyc[--tr->recyc_n];
			if (fit > old &&
			    rte_pktmbuf_alloc_bulk(r->pool, pkts + old, fit - old) != 0)
				fit = old; /* no buffer for the "NIC": a port drop */
			for (i = old; i < fit; i++) {
				hp_gen_build(&tr->gen, pkts[i]);
				hp_meta(pkts[i])->gen_len = (uint16_t)rte_pktmbuf_pkt_len(pkts[i]);
			}
			sent = fit ? rte_ring_enqueue_burst(tr->rx_ring, (void **)pkts,
							    fit, NULL) : 0;
			if (sent < fit)
				rte_pktmbuf_free_bulk(pkts + sent, fit - sent);
			if (sent < k)
				PUB(tr->dropped_port, tr->dropped_port + k - sent);
			PUB(tr->offered, tr->offered + k);
			tr->credit -= k;
			work += sent;
		}
		STORE(tr->stopped, 0);
	} else {
		tr->credit = 0;
		STORE(tr->stopped, 1);
	}
	tr->last = now;
	if (LOAD(r->sink_quit) && LOAD(r->sc->done) &&
	    tr->sink == r->sc->tx && rte_ring_count(tr->tx_ring) == 0)
		return -1;
	/* An empty pass did nothing after `now` but look at the credit:
	 * its end is `now`. Saving that read matters: on a CPU the
	 * scheduler shares, the two hand the CPU over through empty passes
	 * (two thirds of the null pipeline's passes, 3.8M in 4 s). */
	t1 = work ? hp_load_tsc() : now;
	hp_load_poll(&tr->load, t0, t1, work);
	tr->t_next = work ? t1 : 0;
	return (int)work;
}

static int
traffic_main(void *arg)
{
	lcore_loop(arg, traffic_start, traffic_pass);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Set-up and the control loop on the main lcore.                      */

static int
port_setup(struct run *r, uint16_t port, char *err, size_t errlen)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nrx = (uint16_t)r->cfg->ring_size, ntx = (uint16_t)r->cfg->ring_size;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret == 0)
		ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nrx, rte_eth_dev_socket_id(port),
					     NULL, r->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, ntx, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0) {
		snprintf(err, errlen, "cannot set up port %u (%s): %s", port,
			 info.driver_name ? info.driver_name : "?", strerror(-ret));
		return ret;
	}
	rte_eth_promiscuous_enable(port);
	return 0;
}

static int
vdev_port(const char *name, const char *args, uint16_t *port, char *err,
	  size_t errlen)
{
	int ret = rte_vdev_init(name, args);

	if (ret == 0)
		ret = rte_eth_dev_get_port_by_name(name, port);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create %s (%s): %s", name, args,
			 strerror(-ret));
		return ret;
	}
	return 0;
}

static int
pcap_count(const char *path, uint64_t *count, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *hdr;
	const u_char *data;
	pcap_t *p;
	int ret;

	p = pcap_open_offline(path, ebuf);
	if (p == NULL) {
		snprintf(err, errlen, "cannot read pcap %s: %s", path, ebuf);
		return -EINVAL;
	}
	*count = 0;
	while ((ret = pcap_next_ex(p, &hdr, &data)) == 1)
		(*count)++;
	if (ret == -1) {
		snprintf(err, errlen, "cannot read pcap %s: %s", path, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
	return 0;
}

static int
ports_setup(struct run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	char args[2200], tx[1024];
	int ret;

	switch (cfg->src) {
	case HP_SRC_GEN: {
		struct rte_ring *rxr[1], *txr[1];

		rxr[0] = rte_ring_create("hp_port_rx", cfg->ring_size, rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		txr[0] = rte_ring_create("hp_port_tx", cfg->ring_size, rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rxr[0] == NULL || txr[0] == NULL) {
			snprintf(err, errlen, "cannot create port rings: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
		r->tr->rx_ring = rxr[0];
		r->tr->tx_ring = txr[0];
		ret = rte_eth_from_rings("hp_gen", rxr, 1, txr, 1, rte_socket_id());
		if (ret < 0) {
			snprintf(err, errlen, "cannot create ring port: %s",
				 rte_strerror(rte_errno));
			return -EIO;
		}
		r->rx_port = r->tx_port = (uint16_t)ret;
		break;
	}
	case HP_SRC_PCAP:
		ret = pcap_count(cfg->src_arg, &r->pcap_count, err, errlen);
		if (ret < 0)
			return ret;
		if (cfg->tx_arg != NULL)
			snprintf(tx, sizeof(tx), "%s", cfg->tx_arg);
		else
			snprintf(tx, sizeof(tx), "%s/out.pcap", cfg->out_dir);
		snprintf(args, sizeof(args), "rx_pcap=%s,tx_pcap=%s", cfg->src_arg, tx);
		ret = vdev_port("net_pcap_hp", args, &r->rx_port, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port = r->rx_port;
		break;
	case HP_SRC_AF_PACKET:
		if (if_nametoindex(cfg->src_arg) == 0) {
			snprintf(err, errlen, "interface %s does not exist", cfg->src_arg);
			return -ENODEV;
		}
		snprintf(args, sizeof(args), "iface=%s,qpairs=1", cfg->src_arg);
		ret = vdev_port("net_af_packet_hp", args, &r->rx_port, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port = r->rx_port;
		if (cfg->tx_arg != NULL && strcmp(cfg->tx_arg, cfg->src_arg) != 0) {
			if (if_nametoindex(cfg->tx_arg) == 0) {
				snprintf(err, errlen, "interface %s does not exist",
					 cfg->tx_arg);
				return -ENODEV;
			}
			snprintf(args, sizeof(args), "iface=%s,qpairs=1", cfg->tx_arg);
			ret = vdev_port("net_af_packet_hptx", args, &r->tx_port, err,
					errlen);
			if (ret < 0)
				return ret;
		}
		break;
	}
	ret = port_setup(r, r->rx_port, err, errlen);
	if (ret < 0)
		return ret;
	r->rx_port_ok = 1;
	if (r->tx_port != r->rx_port) {
		ret = port_setup(r, r->tx_port, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port_ok = 1;
	}
	return 0;
}

static void
ports_close(struct run *r)
{
	if (r->rx_port_ok) {
		rte_eth_dev_stop(r->rx_port);
		rte_eth_dev_close(r->rx_port);
	}
	if (r->tx_port_ok) {
		rte_eth_dev_stop(r->tx_port);
		rte_eth_dev_close(r->tx_port);
	}
	r->rx_port_ok = r->tx_port_ok = 0;
}

static int
ctx_init_chain(struct run *r, struct hp_task_ctx *ctx, char *err, size_t errlen)
{
	unsigned int k;
	int ret;

	for (k = 0; k < r->app->n_tasks; k++) {
		ctx[k].ops = r->tasks[k];
		ctx[k].cfg = &r->cfg->task;
		ctx[k].priv = NULL;
		if (ctx[k].ops->ctx_init == NULL)
			continue;
		ret = ctx[k].ops->ctx_init(&ctx[k]);
		if (ret < 0) {
			snprintf(err, errlen, "task %s: set-up failed: %s",
				 ctx[k].ops->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void
ctx_free_chain(struct run *r, struct hp_task_ctx *ctx)
{
	unsigned int k;

	for (k = 0; k < r->app->n_tasks; k++)
		if (ctx[k].ops != NULL && ctx[k].ops->ctx_free != NULL)
			ctx[k].ops->ctx_free(&ctx[k]);
}

static void
wait_until(const int *flag, int want)
{
	while (LOAD(*flag) != want)
		usleep(200);
}

/* Waits until nothing is in flight and the sink has everything sent. */
static void
wait_drained(struct run *r)
{
	for (;;) {
		if (LOAD(r->sc->in_flight) == 0 && rte_ring_count(r->tr->rx_ring) == 0 &&
		    rte_ring_count(r->tr->tx_ring) == 0 &&
		    LOAD(r->tr->sink) == LOAD(r->sc->tx))
			break;
		usleep(500);
	}
}

static void
print_row(const struct run *r, const struct hp_trace_row *row)
{
	char load[256];
	size_t o;
	unsigned int i;

	o = (size_t)snprintf(load, sizeof(load), "sched %3.0f%%", row->sched_busy_pct);
	for (i = 0; i < r->n_dev && o < sizeof(load); i++)
		o += (size_t)snprintf(load + o, sizeof(load) - o, " %s %3.0f%%",
				      r->dev[i].name, row->worker_busy_pct[i]);
	printf("[%5.1fs] offered %8.3f Mpps  delivered %8.3f Mpps %7.3f Gbps  p50 %8.1f us  p99 %8.1f us  deadline %5.1f%%  reorder %5.1f%%  port-drops %" PRIu64 "  load: %s\n",
	       row->t, row->offered_pps / 1e6, row->delivered_pps / 1e6, row->gbps,
	       row->p50_us, row->p99_us, row->deadline_pct, row->reorder_pct,
	       row->dropped_port, load);
	/* load estimates (lib/load, docs/load.md), one loop a line */
	for (i = 0; i < row->n_load; i++) {
		const struct hp_load *ld = loop_load(r, i);

		hp_load_row_str(load, sizeof(load), ld->conf.name, &row->load[i]);
		printf("         load %s\n", load);
		if (row->load[i].warn_new)
			printf("         warning: %s projected load %.0f%% crosses %.0f%% (now %.0f%%)\n",
			       ld->conf.name, row->load[i].projected * 100,
			       ld->conf.warn_threshold * 100, row->load[i].load * 100);
	}
	fflush(stdout);
}

static void
progress(struct run *r, unsigned int *shown)
{
	unsigned int n = LOAD(r->n_rows);

	for (; *shown < n; (*shown)++)
		if (!r->cfg->quiet)
			print_row(r, &r->rows[*shown]);
}

static void
collect(struct run *r, struct hp_run_result *res)
{
	struct sched_lc *sc = r->sc;
	uint64_t cyc = 0, n = 0, oh2 = 0, wp = 0;
	unsigned int i;

	res->received = sc->rx;
	res->n_tasks = r->app->n_tasks;
	memcpy(res->dropped_invalid, sc->invalid, sizeof(sc->invalid));
	/* what came after the last row */
	lat_fold(r, sc);
	hp_hist_merge(&sc->lat, &sc->ilat);
	hp_hist_reset(&sc->ilat);
	res->lat = sc->lat;
	res->deadline_pkts = sc->dl_pkts;
	res->deadline_met = sc->dl_met;
	res->reorder_pkts = sc->ro.st.packets;
	res->reorder_in_order = sc->ro.st.in_order;
	res->reorder_late = sc->ro.st.late;
	res->reorder_drains = sc->ro.st.early_drains;
	res->reorder_arrived_ooo = sc->ro.st.arrived_ooo;
	res->reorder_drained = sc->ro.st.drained;
	res->n_dev = r->n_dev;
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_device *d = &r->dev[i];
		struct hp_dev_report *dr = &res->dev[i];

		res->dev_pkts[i] = sc->back_w[i] - sc->back_base[i];
		for (unsigned int k = 0; k < r->app->n_tasks; k++)
			res->dev_task_pkts[i][k] = sc->task_back[i][k] - sc->task_base[i][k];
		oh2 += d->st.oh2_cycles;
		wp += d->st.pkts;
		res->stage_retries += d->ost.retries + sc->wst[i]->retries;
		snprintf(dr->name, sizeof(dr->name), "%s", d->name);
		dr->modeled = d->caps.modeled;
		dr->batch = d->accel != NULL;
		dr->pkts = sc->dlat[i].count;
		dr->lat_mean_us = hp_hist_mean(&sc->dlat[i]) / 1e3;
		dr->lat_p99_us = (double)hp_hist_quantile(&sc->dlat[i], 0.99) / 1e3;
		dr->batches = d->st.batches;
		dr->batch_pkts = d->st.batch_pkts;
		RTE_BUILD_BUG_ON(HP_FLUSH_REASONS > RTE_DIM(dr->flush));
		memcpy(dr->flush, d->st.flush, sizeof(d->st.flush));
		dr->fallback_pkts = d->st.fallback_pkts;
		dr->failed = d->failed != 0;
		dr->failed_at_s = d->failed_at_s;
		snprintf(dr->fail_reason, sizeof(dr->fail_reason), "%s", d->fail_reason);
		dr->busy_pct = d->st.total_cycles ?
			100.0 * (double)d->st.busy_cycles / (double)d->st.total_cycles : 0;
		dr->model_busy_pct = res->duration_s > 0 ?
			100.0 * (double)d->st.model_cycles / (double)r->hz / res->duration_s : 0;
	}
	res->stage_retries += sc->txs.retries;
	n = sc->tx;
	if (n) {
		double us = 1e6 / (double)r->hz;

		res->oh1_us = (double)sc->oh1 / (double)n * us;
		res->proc_us = (double)sc->proc / (double)n * us;
		res->oh3_us = (double)sc->oh3 / (double)n * us;
		/* hops per delivered packet (st.pkts counts tasks with
		 * granularity task, packets with chain) */
		res->oh2_us = wp ? (double)oh2 / (double)(r->cfg->task_gran ? n : wp) * us : 0;
	}
	/* Dispatch cost: the CPU time the scheduler thread had, times the
	 * share of its loop time that found work, per packet received.
	 * TSC spans alone (busy_cycles) also count the slices another
	 * thread ran while this one was preempted mid-iteration; the share
	 * busy/total is hit by preemption alike in its numerator and
	 * denominator, so it survives. Exact when the loop is saturated. */
	cyc = sc->cpu_ns && sc->total_cycles ?
		(uint64_t)((double)sc->cpu_ns * 1e-9 * (double)r->hz *
			   (double)sc->busy_cycles / (double)sc->total_cycles) :
		sc->busy_cycles;
	res->sched_cycles_per_pkt = sc->rx ? (double)cyc / (double)sc->rx : 0;
	res->sched_in_cycles_per_pkt = sc->busy_cycles ?
		res->sched_cycles_per_pkt * (double)sc->in_cycles / (double)sc->busy_cycles : 0;
	if (r->cfg->src == HP_SRC_GEN) {
		res->offered = r->tr->offered;
		res->dropped_port = r->tr->dropped_port;
		res->delivered = r->tr->sink;
		res->bytes_delivered = r->tr->sink_bytes;
		res->verified = r->tr->verified;
		res->verify_failures = r->tr->verify_fail;
		res->unverified = r->tr->unverified;
		res->task_errors = r->tr->task_err;
	} else {
		res->dropped_port = port_drops(r);
		res->offered = res->received + res->dropped_port;
		res->delivered = sc->tx;
		res->bytes_delivered = sc->bytes_tx;
		res->verified = r->tr->verified;
		res->verify_failures = r->tr->verify_fail;
		res->unverified = r->tr->unverified;
		res->task_errors = sc->task_err;
	}
	/* What came in and neither left nor was dropped with a reason. */
	{
		uint64_t inv = 0, out;

		for (i = 0; i < HP_DROP_REASONS; i++)
			inv += res->dropped_invalid[i];
		out = res->delivered + inv;
		res->dropped_internal = res->received > out ? res->received - out : 0;
	}
	res->n_rows = r->n_rows;
	res->rows = r->rows;
	r->rows = NULL;
}

static int
launch(unsigned int *next, lcore_function_t *fn, void *arg, unsigned int *id,
       char *err, size_t errlen)
{
	unsigned int lc = rte_get_next_lcore(*next, 1, 0);
	int ret;

	if (lc >= RTE_MAX_LCORE) {
		snprintf(err, errlen, "ran out of lcores");
		return -ENODEV;
	}
	ret = rte_eal_remote_launch(fn, arg, lc);
	if (ret < 0) {
		snprintf(err, errlen, "cannot launch lcore %u: %s", lc, strerror(-ret));
		return ret;
	}
	*next = lc;
	*id = lc;
	return 0;
}

/* ------------------------------------------------------------------ */
/* --stages-as-services: the same passes as DPDK services (lib/svc).    */

/* A stage as a service: one pass of its loop per call, -EAGAIN when the
 * pass found nothing (DPDK 22.11's idle value, which lib/svc's statistics
 * and balancer read). Registered MT-unsafe: DPDK never runs it on two
 * lcores at once, so a stage keeps its order (reorder, per-flow FIFO) and
 * its single-producer/consumer rings wherever it runs; lib/svc moves it
 * only when it is not running. After its last pass it stays idle until
 * hp_svc_fini unmaps it. Cost per call: this switch and lib/svc's
 * trampoline (two TSC reads, docs/svc.md) on top of the pass. */
static int32_t
stage_service(void *arg)
{
	struct stage_svc *st = arg;
	int n;

	if (st->done)
		return -EAGAIN;
	if (unlikely(!st->started)) {
		/* on the service lcore: lib/load notes the CPU it runs on */
		if (st->dev != NULL)
			st->dev->ops->start(st->dev);
		else if (st->sched)
			sched_start(st->r);
		else
			traffic_start(st->r);
		st->started = true;
	}
	if (st->dev != NULL)
		n = st->dev->ops->poll(st->dev);
	else if (st->sched)
		n = sched_pass(st->r);
	else {
		n = traffic_pass(st->r);
		/* other services run between two calls: the end of this
		 * pass is not the start of the next */
		st->r->tr->t_next = 0;
	}
	if (n < 0) {
		if (st->sched)
			STORE(st->r->sc->done, 1);
		STORE(st->done, 1);
		return -EAGAIN;
	}
	return n > 0 ? 0 : -EAGAIN;
}

static void
stage_event(const struct hp_svc_event *ev, void *arg)
{
	const struct run *r = arg;
	const char *name = "-";
	unsigned int i;

	if (r->cfg->quiet)
		return;
	for (i = 0; i < r->n_stages; i++)
		if (r->stage[i].id == ev->service_id)
			name = r->stage[i].name;
	printf("services: %s %s lcore %d -> %d (%s)%s\n", hp_svc_action_name(ev->d.action),
	       name, ev->from_lcore, ev->to_lcore, ev->d.reason,
	       ev->result == 0 ? "" : " failed");
	fflush(stdout);
}

/* Registers every stage as a service, maps them round robin over the
 * service lcores (devices first, then scheduler and traffic) and starts
 * them with the balancer's control thread. */
static int
stages_launch(struct run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct hp_svc_conf c;
	unsigned int i, k;
	int ret;

	for (i = 0; i < r->n_dev; i++)
		if (r->dev[i].ops->poll == NULL || r->dev[i].ops->start == NULL) {
			snprintf(err, errlen, "device %s cannot run as a service (no poll function)",
				 r->dev[i].name);
			return -ENOTSUP;
		}
	hp_svc_conf_default(&c);
	c.balance = cfg->svc_mode >= 0;
	if (c.balance) {
		c.policy.mode = (enum hp_svc_mode)cfg->svc_mode;
		c.policy.scale_down = cfg->svc_scale_down;
	}
	ret = hp_svc_init(&c);
	if (ret < 0) {
		snprintf(err, errlen, "service cores: %s", strerror(-ret));
		return ret;
	}
	hp_svc_set_event_cb(stage_event, r);
	for (i = 0; i < cfg->n_service_cores; i++) {
		ret = hp_svc_lcore_add(cfg->service_cores[i]);
		if (ret < 0) {
			snprintf(err, errlen, "--service-cores: lcore %u cannot be a service lcore: %s",
				 cfg->service_cores[i], strerror(-ret));
			goto fail;
		}
	}
	r->n_stages = 0;
	for (i = 0; i < r->n_dev; i++) {
		struct stage_svc *st = &r->stage[r->n_stages++];

		st->dev = &r->dev[i];
		snprintf(st->name, sizeof(st->name), "hp_%.28s", r->dev[i].name);
	}
	r->stage[r->n_stages].sched = true;
	snprintf(r->stage[r->n_stages++].name, sizeof(r->stage[0].name), "hp_sched");
	if (cfg->src == HP_SRC_GEN)
		snprintf(r->stage[r->n_stages++].name, sizeof(r->stage[0].name), "hp_traffic");
	for (k = 0; k < r->n_stages; k++) {
		struct stage_svc *st = &r->stage[k];
		unsigned int lc = cfg->service_cores[k % cfg->n_service_cores];

		st->r = r;
		ret = hp_svc_register(st->name, stage_service, st, 0, &st->id);
		if (ret == 0)
			ret = hp_svc_map(st->id, lc, true);
		if (ret < 0) {
			snprintf(err, errlen, "service %s: %s", st->name, strerror(-ret));
			goto fail;
		}
		if (!cfg->quiet)
			printf("services: %s on lcore %u\n", st->name, lc);
	}
	ret = hp_svc_start();
	if (ret == 0)
		ret = hp_svc_ctl_start();
	if (ret < 0) {
		snprintf(err, errlen, "service cores: cannot start: %s", strerror(-ret));
		goto fail;
	}
	r->svc_on = true;
	return 0;
fail:
	hp_svc_fini();
	return ret;
}

/* Waits for a stage to finish: its lcore, or its service's last pass. */
static void
stage_join(struct run *r, const int *svc_done, unsigned int lcore)
{
	if (r->svc_on)
		wait_until(svc_done, 1);
	else
		rte_eal_wait_lcore(lcore);
}

/* After the run: where each stage ended, what the balancer did, and the
 * services' own statistics (useful share of their calls' cycles). */
static void
stages_report(struct run *r)
{
	unsigned int k, i, n;

	if (r->cfg->quiet)
		return;
	for (k = 0; k < r->n_stages; k++) {
		struct hp_svc_stats t = { 0 };
		uint32_t run = hp_svc_running(r->stage[k].id);

		for (i = 0; i < hp_svc_lcore_count(); i++) {
			struct hp_svc_stats x;

			if (hp_svc_stats_get(r->stage[k].id, hp_svc_lcore_id(i),
					     HP_SVC_CUMULATIVE, &x) < 0)
				continue;
			t.calls += x.calls;
			t.idle_calls += x.idle_calls;
			t.busy_cycles += x.busy_cycles;
			t.call_cycles += x.call_cycles;
		}
		printf("services: %s ends on lcore %d: %" PRIu64 " calls, %.1f %% idle, "
		       "%.1f %% of its cycles useful\n", r->stage[k].name,
		       run ? (int)hp_svc_lcore_id((unsigned int)__builtin_ctz(run)) : -1,
		       t.calls, t.calls ? 100.0 * (double)t.idle_calls / (double)t.calls : 0.0,
		       t.call_cycles ? 100.0 * (double)t.busy_cycles / (double)t.call_cycles : 0.0);
	}
	printf("services: balancer actions %" PRIu64 " (failed %" PRIu64 ")\n",
	       hp_svc_moves(), hp_svc_move_failures());
	for (k = 0, n = 0; k < r->cfg->n_service_cores; k++)
		n += hp_svc_lcore_active(r->cfg->service_cores[k]);
	printf("services: %u of %u service lcores active at the end%s\n", n,
	       r->cfg->n_service_cores, r->cfg->svc_scale_down ? " (scale-down on)" : "");
}

/* Service-time model a policy reads for device d: --profile's section
 * for the device's role when the device is not modeled itself, else the
 * device's own (a modeled device's profile, a cpu worker's online
 * measurement, the CUDA plugin's model). Cycles, excluding any queue. */
static uint64_t
sched_predict(const struct hp_sched *s, unsigned int d, unsigned int task,
	      uint32_t n, uint32_t bytes)
{
	const struct run *r = s->predict_arg;
	const struct hp_device *dev = &r->dev[d];
	const struct hp_model *pm = r->sc->pmodel[s->dev[d].role];

	if (!dev->caps.modeled && pm != NULL) {
		double us = 0, t;
		unsigned int k;

		for (k = 0; k < dev->n_tasks; k++) {
			if (task != HP_MAX_TASKS && task != k)
				continue;
			t = hp_model_predict_us(pm, dev->ctx[k].ops->name, n, bytes);
			us += t > 0 ? t : 0;
		}
		return (uint64_t)(us * (double)r->hz / 1e6);
	}
	if (dev->accel != NULL)
		return dev->accel->ops->predict != NULL ?
			dev->accel->ops->predict(dev, task, n, bytes) : 0;
	return dev->ops->predict != NULL ? dev->ops->predict(dev, task, n, bytes) : 0;
}

/* The policy's view: run facts, devices, models, the between-tasks FIFO. */
static int
sched_setup(struct run *r, struct sched_lc *sc, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int i;

	/* the facts known before the run, its options and what the policy's
	 * check read (cfg->sched_conf), then what only the run knows */
	hp_run_sched_env(cfg, &sc->senv);
	sc->senv.hz = r->hz;
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_device *d = &r->dev[i];

		sc->sdev[i] = (struct hp_sched_dev){
			.role = sc->senv.role[i],
			.modeled = d->caps.modeled,
			.max_batch = d->accel != NULL ? d->bcfg.max_pkts : cfg->burst,
			.min_batch = d->accel != NULL ? d->bcfg.min_pkts : 1,
			.queue_cap = cfg->ring_size + 2 * cfg->burst,
		};
	}
	for (i = 0; i < 2; i++)
		sc->pmodel[i] = cfg->profile != NULL ? cfg->profile->role[i] : NULL;
	sc->s.dev = sc->sdev;
	sc->s.env = &sc->senv;
	sc->s.predict = sched_predict;
	sc->s.predict_arg = r;
	if (cfg->task_gran) {
		uint32_t n = rte_align32pow2(cfg->mbufs + 1);

		sc->redo = calloc(n, sizeof(*sc->redo));
		if (sc->redo == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		sc->redo_mask = n - 1;
	}
	return 0;
}

/* Power (lib/power): measured sources and a modeled one per modeled
 * device with a power model; NULL when nothing could be set up. */
static struct hp_power *
power_open(struct run *r, uint64_t now, uint64_t *model_cyc)
{
	struct hp_power *pw = malloc(sizeof(*pw));
	unsigned int i;

	if (pw == NULL)
		return NULL;
	hp_power_open(pw, getenv("HP_POWERCAP_DIR"));
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_device *d = &r->dev[i];
		char nm[HP_POWER_NAMELEN];

		if (!d->caps.modeled || d->caps.power_busy_w <= 0)
			continue;
		snprintf(nm, sizeof(nm), "%.36s (modeled)", d->name);
		hp_power_add_modeled(pw, nm, d->caps.power_idle_w, d->caps.power_busy_w);
		model_cyc[i] = LOAD(d->st.model_cycles);
	}
	hp_power_start(pw, (double)now / (double)r->hz);
	return pw;
}

/* One power sample: modeled devices get their modeled busy share over the
 * interval (modeled service time / elapsed time). */
static void
power_sample(struct run *r, struct hp_power *pw, uint64_t now, uint64_t *t_last,
	     uint64_t *model_cyc)
{
	unsigned int i, k = 0;
	double dt = (double)(now - *t_last);

	for (i = 0; i < pw->n; i++)
		if (pw->src[i].kind != HP_POWER_MODELED)
			k++;
	for (i = 0; i < r->n_dev && k < pw->n; i++) {
		const struct hp_device *d = &r->dev[i];
		uint64_t mc;

		if (!d->caps.modeled || d->caps.power_busy_w <= 0)
			continue;
		mc = LOAD(d->st.model_cycles);
		/* the counters restart at the measured phase's epoch */
		pw->src[k++].util = dt > 0 && mc >= model_cyc[i] ?
			(double)(mc - model_cyc[i]) / dt : 0;
		model_cyc[i] = mc;
	}
	hp_power_sample(pw, (double)now / (double)r->hz);
	*t_last = now;
	for (i = 0; i < pw->n && i < HP_POWER_MAX; i++)
		__atomic_store(&r->power_w[i], &pw->src[i].watts, __ATOMIC_RELAXED);
}

int
hp_run(const struct hp_run_cfg *cfg, struct hp_run_result *res, char *err,
       size_t errlen)
{
	struct run run = { 0 }, *r = &run;
	const struct hp_sched_ops *sops;
	unsigned int need, i, next, shown = 0, launched_w = 0;
	bool sched_launched = false, traffic_launched = false;
	uint64_t start, stop_at, next_power;
	char name[RTE_RING_NAMESIZE], cpu_spec[600] = "cpu";
	struct hp_power *pw = NULL;
	uint64_t pw_model[HP_MAX_DEVICES] = { 0 }, pw_t = 0;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	r->cfg = cfg;
	r->hz = rte_get_tsc_hz();
	r->app = hp_app_find(cfg->app);
	if (r->app == NULL) {
		snprintf(err, errlen, "unknown app '%s' (see hplane list)", cfg->app);
		return -EINVAL;
	}
	for (i = 0; i < r->app->n_tasks; i++) {
		r->tasks[i] = hp_task_find(r->app->tasks[i]);
		if (r->tasks[i] == NULL) {
			snprintf(err, errlen, "app %s needs task '%s', which is not built in",
				 cfg->app, r->app->tasks[i]);
			return -ENOTSUP;
		}
	}
	sops = hp_sched_find(cfg->sched);
	if (sops == NULL) {
		snprintf(err, errlen, "unknown scheduler '%s' (see hplane list)", cfg->sched);
		return -EINVAL;
	}
	if (cfg->workers == 0 || cfg->workers > HP_MAX_WORKERS) {
		snprintf(err, errlen, "--workers must be 1..%d", HP_MAX_WORKERS);
		return -EINVAL;
	}
	r->n_dev = cfg->workers + (cfg->gpu != NULL ? 1 : 0);
	need = 2 + r->n_dev + (cfg->src == HP_SRC_GEN ? 1 : 0);
	if (cfg->stages_as_services) {
		/* every stage runs on the listed service lcores */
		if (cfg->n_service_cores == 0 || cfg->n_service_cores > HP_MAX_SERVICE_CORES) {
			snprintf(err, errlen, "--service-cores needs 1..%d lcores",
				 HP_MAX_SERVICE_CORES);
			return -EINVAL;
		}
		for (i = 0; i < cfg->n_service_cores; i++) {
			unsigned int lc = cfg->service_cores[i], k;

			if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) ||
			    lc == rte_get_main_lcore()) {
				snprintf(err, errlen, "--service-cores: lcore %u is not an EAL worker lcore (the main lcore is %u; map more with --lcores)",
					 lc, rte_get_main_lcore());
				return -EINVAL;
			}
			for (k = 0; k < i; k++)
				if (cfg->service_cores[k] == lc) {
					snprintf(err, errlen, "--service-cores: lcore %u listed twice", lc);
					return -EINVAL;
				}
		}
		need = 0;
	} else if (cfg->n_service_cores) {
		snprintf(err, errlen, "--service-cores needs --stages-as-services");
		return -EINVAL;
	}
	if (rte_lcore_count() < need) {
		snprintf(err, errlen, "%u workers%s need %u lcores (main, scheduler%s, workers%s) but EAL has %u: map more with --lcores",
			 cfg->workers, cfg->gpu ? " and a device" : "", need,
			 cfg->src == HP_SRC_GEN ? ", traffic" : "",
			 cfg->gpu ? ", device" : "", rte_lcore_count());
		return -EINVAL;
	}
	if (cfg->burst == 0 || cfg->burst > HP_BURST) {
		snprintf(err, errlen, "--burst must be 1..%d", HP_BURST);
		return -EINVAL;
	}
	r->n_workers = cfg->workers;
	r->rows = calloc(HP_TRACE_MAX, sizeof(*r->rows));
	r->dev = rte_zmalloc("hp_devices", sizeof(*r->dev) * r->n_dev, RTE_CACHE_LINE_SIZE);
	r->sc = rte_zmalloc("hp_sched", sizeof(*r->sc), RTE_CACHE_LINE_SIZE);
	r->tr = rte_zmalloc("hp_traffic", sizeof(*r->tr), RTE_CACHE_LINE_SIZE);
	if (r->rows == NULL || r->dev == NULL || r->sc == NULL || r->tr == NULL) {
		snprintf(err, errlen, "out of memory (try a larger -m)");
		ret = -ENOMEM;
		goto out;
	}
	r->pool = hp_pktmbuf_pool("hp_mbufs", cfg->mbufs, (int)rte_socket_id());
	if (r->pool == NULL) {
		snprintf(err, errlen, "cannot create %u mbufs: %s (try a larger -m or fewer --mbufs)",
			 cfg->mbufs, rte_strerror(rte_errno));
		ret = -ENOMEM;
		goto out;
	}
	ret = ports_setup(r, err, errlen);
	if (ret < 0)
		goto out;

	/* devices: cfg->workers cpu workers, then the accelerator if any */
	r->env = (struct hp_dev_env){
		.epoch = &r->epoch,
		.burst = cfg->burst,
		.idle_yield = cfg->idle_yield,
		.hz = r->hz,
		.app = r->app,
		.task_cfg = &cfg->task,
		.task_gran = cfg->task_gran,
	};
	memcpy(r->env.tasks, r->tasks, sizeof(r->tasks));
	/* --cpu-model: each CPU worker is a modeled device with the profile's
	 * cpu section: bursts of up to 32 served one after another (one
	 * engine, no minimum), so a slow CPU next to a modeled GPU keeps the
	 * thesis's proportions on a fast host (docs/scheduling.md). */
	if (cfg->cpu_model != NULL) {
		const char *comma = strchr(cfg->cpu_model, ',');
		int nl = comma ? (int)(comma - cfg->cpu_model) : (int)strlen(cfg->cpu_model);

		snprintf(cpu_spec, sizeof(cpu_spec), "model:%.*s%s,batch=%u,min_batch=1,inflight=1%s",
			 nl, cfg->cpu_model, memchr(cfg->cpu_model, '@', (size_t)nl) ? "" : "@cpu",
			 cfg->burst, comma ? comma : "");
	}
	for (i = 0; i < r->n_dev; i++) {
		struct hp_device *d = &r->dev[i];

		ret = hp_device_create(d, i < cfg->workers ? cpu_spec : cfg->gpu, &r->env, i,
				       err, errlen);
		if (ret < 0)
			goto out;
		if (i < cfg->workers && cfg->cpu_model != NULL) {
			char nm[HP_DEV_NAMELEN];

			snprintf(nm, sizeof(nm), "cpu%u(%.30s)", i, d->name);
			memcpy(d->name, nm, sizeof(nm));
		}
		if (cfg->task_gran && r->app->n_tasks > 1 && !d->caps.one_task) {
			snprintf(err, errlen, "device %s runs whole chains only: --granularity task needs devices that run one task at a time (cpu, model:)",
				 d->name);
			ret = -ENOTSUP;
			goto out;
		}
		snprintf(name, sizeof(name), "hp_d%u_in", i);
		d->in = rte_ring_create(name, cfg->ring_size, rte_socket_id(),
					RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "hp_d%u_out", i);
		d->out = rte_ring_create(name, cfg->ring_size, rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (d->in == NULL || d->out == NULL) {
			snprintf(err, errlen, "cannot create device rings: %s",
				 rte_strerror(rte_errno));
			ret = -ENOMEM;
			goto out;
		}
		if (d->accel != NULL && !cfg->quiet) {
			char line[256];

			d->accel->ops->describe(d, line, sizeof(line));
			printf("device %u: %s\n", i, line);
		}
	}

	/* scheduler state */
	{
		struct sched_lc *sc = r->sc;
		uint32_t nf = rte_align32pow2(cfg->max_flows);
		char serr[256] = "";

		sc->flows = calloc(nf, sizeof(*sc->flows));
		sc->flow_mask = nf - 1;
		if (sc->flows == NULL || nf > 65535) {
			snprintf(err, errlen, "--max-flows must be 1..32768");
			ret = -EINVAL;
			goto out;
		}
		ret = hp_reorder_init(&sc->ro, nf, cfg->reorder_win);
		if (ret < 0) {
			snprintf(err, errlen, "--reorder-window must be a power of two >= 2");
			goto out;
		}
		sc->cyc2ns_mult = (uint64_t)((1e9 * 4294967296.0) / (double)r->hz);
		for (i = 0; i < cfg->types.n; i++)
			sc->dl_cycles[i + 1] = hp_us_to_tsc(cfg->types.t[i].deadline_us);
		hp_type_index_build(&sc->tix, &cfg->types);
		hp_stage_init(&sc->txs, HP_STAGE_MAX);
		sc->s.ops = sops;
		sc->s.n_dev = r->n_dev;
		sc->s.room = sc->room;
		ret = sched_setup(r, sc, err, errlen);
		if (ret < 0)
			goto out;
		if (sops->init && (ret = sops->init(&sc->s, serr, sizeof(serr))) < 0) {
			snprintf(err, errlen, "scheduler %s: %s", sops->name,
				 serr[0] ? serr : "set-up failed");
			goto out;
		}
		hp_hist_reset(&sc->lat);
		hp_hist_reset(&sc->ilat);
		for (i = 0; i < HP_MAX_DEVICES; i++) {
			hp_hist_reset(&sc->dlat[i]);
			hp_hist_reset(&sc->idlat[i]);
		}
		for (i = 0; i < r->n_dev; i++) {
			sc->wst[i] = rte_zmalloc("hp_wstage", sizeof(struct hp_stage), 0);
			if (sc->wst[i] == NULL) {
				ret = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			hp_stage_init(sc->wst[i], 2 * cfg->burst);
			sc->room[i] = sc->wst[i]->cap;
		}
	}
	/* traffic and verification */
	r->tr->scratch = malloc(HP_VERIFY_BUF);
	if (r->tr->scratch == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	if (cfg->gen_recycle) {
		/* a frame sent again is not checked: its body is what the
		 * tasks left, and its sequence numbers repeat */
		if (cfg->verify_every != 0 || cfg->src != HP_SRC_GEN) {
			snprintf(err, errlen, "--gen-recycle needs the generator (--source gen) and --verify-every 0");
			ret = -EINVAL;
			goto out;
		}
		r->tr->recyc_cap = cfg->mbufs;
		r->tr->recyc = calloc(r->tr->recyc_cap, sizeof(*r->tr->recyc));
		if (r->tr->recyc == NULL) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = ctx_init_chain(r, r->tr->vctx, err, errlen);
	if (ret < 0)
		goto out;
	if (cfg->src == HP_SRC_GEN) {
		ret = hp_gen_init(&r->tr->gen, &cfg->imix, &cfg->types,
				  cfg->flows_per_type, cfg->seed, err, errlen);
		if (ret < 0)
			goto out;
		/* The app's first task may write the bodies (LDPC codewords
		 * from known bits, planted patterns) so the sink can check the
		 * result; it gets a context of its own on the traffic lcore. */
		ret = ctx_init_chain(r, r->tr->gctx, err, errlen);
		if (ret < 0)
			goto out;
		if (hp_app_body_ctx(r->app, r->tr->gctx) != NULL)
			hp_gen_set_body(&r->tr->gen, hp_task_gen_body,
					hp_app_body_ctx(r->app, r->tr->gctx));
		/* nothing is verified: the emulated NIC needs no tags */
		hp_gen_set_tag(&r->tr->gen, cfg->verify_every != 0);
	}

	ret = loads_init(r, err, errlen);
	if (ret < 0)
		goto out;
	res->n_load = n_loops(r);
	for (i = 0; i < res->n_load; i++)
		snprintf(res->load_name[i], sizeof(res->load_name[i]), "%s",
			 loop_load(r, i)->conf.name);

	/* launch: scheduler, traffic, workers; or all of them as services */
	if (cfg->stages_as_services) {
		ret = stages_launch(r, err, errlen);
		if (ret < 0)
			goto stop;
		launched_w = r->n_dev;
		sched_launched = true;
		traffic_launched = cfg->src == HP_SRC_GEN;
		goto launched;
	}
	next = rte_get_main_lcore();
	for (i = 0; i < r->n_dev; i++) {
		ret = launch(&next, device_main, &r->dev[i], &r->dev[i].lcore, err, errlen);
		if (ret < 0)
			goto stop;
		launched_w++;
	}
	ret = launch(&next, sched_main, r, &r->sched_lcore, err, errlen);
	if (ret < 0)
		goto stop;
	sched_launched = true;
	if (cfg->src == HP_SRC_GEN) {
		ret = launch(&next, traffic_main, r, &r->traffic_lcore, err, errlen);
		if (ret < 0)
			goto stop;
		traffic_launched = true;
	}
launched:

	/* capacity: measured with the same app, unless given */
	res->capacity_pps = cfg->capacity_pps;
	if (cfg->src == HP_SRC_GEN && cfg->capacity_pps <= 0) {
		uint64_t a, b;
		double half = cfg->calib_s / 2;

		STORE(r->calibrating, 1);
		STORE(r->gen_on, 1);
		usleep((useconds_t)(half * 1e6));
		a = LOAD(r->tr->sink);
		usleep((useconds_t)(half * 1e6));
		b = LOAD(r->tr->sink);
		STORE(r->gen_on, 0);
		wait_until(&r->tr->stopped, 1);
		wait_drained(r);
		STORE(r->calibrating, 0);
		res->capacity_pps = (double)(b - a) / half;
		if (res->capacity_pps < 1000)
			res->capacity_pps = 1000;
		if (!cfg->quiet)
			printf("capacity: %.3f Mpps measured over %.2f s with app %s\n",
			       res->capacity_pps / 1e6, half, cfg->app);
	}
	if (cfg->src == HP_SRC_GEN) {
		if (cfg->trace_file != NULL)
			ret = hp_profile_load(&r->tr->prof, cfg->trace_file,
					      res->capacity_pps, err, errlen);
		else
			ret = hp_profile_scenario(&r->tr->prof, cfg->scenario,
						  res->capacity_pps, cfg->duration_s, cfg->seed);
		if (ret < 0) {
			if (cfg->trace_file == NULL)
				snprintf(err, errlen, "unknown scenario '%s' (low, medium, stress, standard, random)",
					 cfg->scenario);
			goto stop;
		}
	}
	/* measured phase: every lcore zeroes its own counters */
	STORE(r->epoch, 1);
	wait_until(&r->sc->epoch_seen, 1);
	for (i = 0; i < r->n_dev; i++)
		wait_until(&r->dev[i].epoch_seen, 1);
	if (traffic_launched)
		wait_until(&r->tr->epoch_seen, 1);
	start = rte_rdtsc();
	stop_at = start + (uint64_t)(cfg->duration_s * (double)r->hz);
	STORE(r->t0, start);
	pw = power_open(r, start, pw_model);
	pw_t = start;
	next_power = start + (uint64_t)((cfg->power_interval_s > 0 ? cfg->power_interval_s : 1.0) *
					(double)r->hz);
	printf("running: app %s, %u worker(s)%s%s%s, source %s, up to %.1f s\n", cfg->app,
	       cfg->workers, cfg->gpu ? " + device " : "",
	       cfg->gpu ? r->dev[r->n_dev - 1].name : "",
	       cfg->gpu && r->dev[r->n_dev - 1].caps.modeled ? " (modeled)" : "",
	       cfg->src == HP_SRC_GEN ? "generator" : cfg->src_arg, cfg->duration_s);
	fflush(stdout);
	if (cfg->src == HP_SRC_GEN)
		STORE(r->gen_on, 1);
	for (;;) {
		uint64_t now = rte_rdtsc();

		progress(r, &shown);
		if (pw != NULL && now >= next_power) {
			power_sample(r, pw, now, &pw_t, pw_model);
			next_power = now + (uint64_t)((cfg->power_interval_s > 0 ?
						       cfg->power_interval_s : 1.0) * (double)r->hz);
		}
		if (now >= stop_at)
			break;
		if (cfg->src == HP_SRC_PCAP &&
		    LOAD(r->sc->rx) + port_drops(r) >= r->pcap_count)
			break;
		if (cfg->max_packets && LOAD(r->sc->rx) >= cfg->max_packets)
			break;
		usleep(2000);
	}
	res->duration_s = (double)(rte_rdtsc() - start) / (double)r->hz;
	if (pw != NULL) {
		power_sample(r, pw, rte_rdtsc(), &pw_t, pw_model);
		hp_power_report(pw, res->duration_s, &res->power);
	}
stop:
	/* Stop order: generator, then scheduler (drains everything in
	 * flight), then workers, then the sink. */
	STORE(r->gen_on, 0);
	if (traffic_launched)
		wait_until(&r->tr->stopped, 1);
	STORE(r->sched_quit, 1);
	if (sched_launched)
		stage_join(r, &r->sc->done, r->sched_lcore);
	else
		STORE(r->sc->done, 1);
	for (i = 0; i < launched_w; i++) {
		STORE(r->dev[i].quit, 1);
		stage_join(r, &r->stage[i].done, r->dev[i].lcore);
	}
	STORE(r->sink_quit, 1);
	if (traffic_launched)
		stage_join(r, &r->stage[r->n_dev + 1].done, r->traffic_lcore);
	if (r->svc_on) {
		stages_report(r);
		hp_svc_fini();
		r->svc_on = false;
	}
	progress(r, &shown);
	if (ret == 0 && sched_launched)
		collect(r, res);
	/* the policy's end of run (qlearn training writes its table) */
	if (ret == 0 && sched_launched && sops->finish != NULL)
		ret = sops->finish(&r->sc->s, err, errlen);
out:
	loads_fini(r);
	ports_close(r);
	if (r->dev != NULL) {
		for (i = 0; i < r->n_dev; i++) {
			hp_device_destroy(&r->dev[i]);
			rte_ring_free(r->dev[i].in);
			rte_ring_free(r->dev[i].out);
		}
	}
	if (r->tr != NULL) {
		ctx_free_chain(r, r->tr->vctx);
		ctx_free_chain(r, r->tr->gctx);
		free(r->tr->scratch);
		if (r->tr->recyc_n)
			rte_pktmbuf_free_bulk(r->tr->recyc, r->tr->recyc_n);
		free(r->tr->recyc);
		hp_gen_free(&r->tr->gen);
		rte_ring_free(r->tr->rx_ring);
		rte_ring_free(r->tr->tx_ring);
	}
	if (pw != NULL) {
		hp_power_close(pw);
		free(pw);
	}
	if (r->sc != NULL) {
		free(r->sc->redo);
		for (i = 0; i < HP_MAX_DEVICES; i++)
			rte_free(r->sc->wst[i]);
		if (r->sc->s.ops && r->sc->s.ops->fini)
			r->sc->s.ops->fini(&r->sc->s);
		hp_reorder_free(&r->sc->ro);
		free(r->sc->flows);
	}
	if (r->pool != NULL) {
		res->mbufs_total = r->pool->size;
		res->mbufs_leaked = r->pool->size - rte_mempool_avail_count(r->pool);
		rte_mempool_free(r->pool);
	}
	rte_free(r->dev);
	rte_free(r->sc);
	rte_free(r->tr);
	free(r->rows);
	return ret;
}
