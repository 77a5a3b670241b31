/* SPDX-License-Identifier: BSD-3-Clause
 * The pipeline's run state, shared by its files and no one else (pl_
 * symbols do not leave lib/pipeline): the run, the scheduler stage
 * (pl_sched.c), the traffic stage (pl_traffic.c), verification
 * (pl_verify.c), ports (pl_ports.c) and what is collected from them
 * (pl_collect.c); hp_pipeline.c builds, measures and tears down.
 *
 * Loss rules (DESIGN.md §1): no stage ever frees a packet it was handed
 * except the sink; a full ring keeps the packet in a staging buffer and the
 * producer stops pulling work until it drains, so only the port drops.
 */
#ifndef PL_PRIV_H
#define PL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>
#include <rte_seqlock.h>

#include "hp_device.h"
#include "hp_flowtab.h"
#include "hp_pipeline.h"
#include "hp_reorder.h"
#include "hp_rss.h"
#include "hp_sched.h"
#include "hp_stage.h"
#include "hp_staging.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define PUB(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The scheduler's counters at the last trace row: read and written once a
 * second, kept apart from the pass's state. */
struct pl_sched_row {
	uint64_t tx, bytes, l1pad, dl, dlmet, ro, roin, off, portdrop;
	uint64_t held;             /* packets the reorder stage held */
	uint64_t roooo;            /* reorder.st.arrived_ooo */
	uint64_t outp, outin;      /* order_out, order_out_in_order */
	uint64_t busy, total, in;
	uint64_t wbusy[HP_MAX_DEVICES], wtotal[HP_MAX_DEVICES];
	uint64_t back[HP_MAX_DEVICES]; /* completions per device */
	struct hp_load_raw load[HP_LOAD_LOOPS];
	uint64_t next, last;       /* TSC: next row due, last row written */
};

/* --apps: each app's counters, kept by the scheduler (pl_apps.c). */
struct pl_app_cnt {
	uint64_t rx, tx, bytes, task_err, task_err_sec, dl_pkts, dl_met, order_out, order_in;
	uint64_t admission;       /* dropped by the policy's admission */
	/* dropped at the scheduler's rx, its pending FIFO full: its own rx
	 * queue overflowing, counted as a port drop (reason port) */
	uint64_t port_drop;
	uint64_t dev[HP_MAX_DEVICES];  /* delivered, by the device that ran it */
	/* at the last trace row: rx, tx, dl_pkts, dl_met, the drops */
	uint64_t row_rx, row_tx, row_dl, row_dlmet, row_port, row_adm;
	struct hp_hist lat;            /* ns: the run's, ilat folded per row */
	struct hp_hist ilat;           /* ns: this second's */
};
struct pl_apps {
	unsigned int n;
	uint32_t bound[HP_MAX_APPS];   /* flow hash (upper 32 bits) bounds */
	uint8_t first[HP_MAX_APPS];    /* its first task in the joint chain */
	struct pl_app_cnt c[HP_MAX_APPS];
	/* per-app backpressure: each app's received, classified, not yet
	 * placed packets in arrival order (cap: --ring-size, as an rx
	 * queue of its own), so that one app whose devices are full never
	 * holds back another's (pl_sched.c) */
	struct rte_mbuf **q[HP_MAX_APPS];
	uint32_t qn[HP_MAX_APPS], cap;
	unsigned int rr;               /* the app the next pass starts with */
	/* the source waits for room instead of dropping (pcap at full
	 * speed): rx waits until every app has room, nothing is dropped */
	bool lossless;
};

/* The scheduler stage: rx, classify, schedule, reorder, tx. With
 * --sched-lcores N there are N of them, each with its own rx and tx queue,
 * flows, windows, counters and policy instance (pl_multi.c). */
struct pl_sched {
	struct hp_sched s;
	struct pl_run *r;         /* the run (the stage's arg is the scheduler) */
	unsigned int idx;         /* among the schedulers: hp_meta's owner */
	uint16_t q;               /* its rx and tx queue on the ports */
	/* each device's completion ring for this scheduler */
	struct rte_ring *dout[HP_MAX_DEVICES];
	uint32_t room[HP_MAX_DEVICES];
	struct hp_staging *wst[HP_MAX_DEVICES];
	struct hp_staging txs;
	/* received, classified, not yet placed; a policy that skips packets
	 * (HP_SCHED_SKIP) lets rx go on while there is room */
	struct rte_mbuf *pend[HP_PEND_MAX];
	unsigned int pend_n;
	bool pend_open;
	struct hp_reorder ro;
	struct hp_flowtab ft;     /* flows by 5-tuple: sequence, order, in flight */
	uint64_t sent_w[HP_MAX_DEVICES], back_w[HP_MAX_DEVICES];
	uint64_t back_base[HP_MAX_DEVICES];
	uint64_t cyc2ns_mult; /* ns = cycles * mult >> 32 */
	uint64_t dl_cycles[HP_MAX_TYPES + 1];
	struct hp_type_index tix; /* cfg->types by frame length */
	/* counters (scheduler-owned; others read them relaxed) */
	uint64_t rx, tx, bytes_tx, invalid[HP_DROP_REASONS];
	uint64_t bytes_rx;        /* L2, every frame received */
	uint64_t l1_pad;          /* delivered runts' padding to 60 B */
	struct hp_type_count tcnt[HP_MAX_TYPES + 1]; /* per packet type */
	/* the port stamped each frame's arrival in t_rx (the generator, at
	 * its enqueue); else the rx burst's time is the arrival */
	bool port_stamps;
	uint64_t freed;           /* frames it freed (invalid), never reset */
	uint64_t dl_pkts, dl_met;
	/* packets a task refused, dropped with reason task_error; of them,
	 * refused by a security task (the exit status says so) */
	uint64_t task_err, task_err_sec;
	/* packets the policy's admission refused (HP_SCHED_DROP), dropped
	 * with reason admission */
	uint64_t admission;
	uint64_t untracked;       /* packets of flows the full table refused */
	/* at tx, against each flow's input order: order-needing packets
	 * sent, those sent after every lower sequence of their flow, and
	 * packets of any tracked flow sent behind a higher sequence */
	uint64_t order_out, order_out_in_order, out_of_order_all;
	uint64_t oh1, proc, oh3; /* cycle sums over tx'ed packets */
	uint64_t busy_cycles, total_cycles;
	/* of busy_cycles, the way in: from the rx poll that brought packets
	 * to the rings of the devices (rx, classify, policy, flush); the rest
	 * is the way back (completions, reorder, metrics, tx) */
	uint64_t in_cycles;
	uint64_t cpu_ns0, cpu_ns; /* thread CPU time: at reset, then spent */
	bool alone;               /* it has its thread to itself (cpu_ns) */
	uint64_t in_flight;
	int epoch_seen;
	struct hp_hist lat, ilat; /* the run's; this second's (merged into lat per row) */
	struct hp_hist dlat[HP_MAX_DEVICES]; /* latency per device */
	/* this second's per device: the one histogram a packet is added to;
	 * pl_lat_fold() makes ilat and dlat from them once a row */
	struct hp_hist idlat[HP_MAX_DEVICES];
	struct hp_load load;
	/* --apps: the per-app counters; NULL with one app, so that the
	 * one-app path pays one never-taken branch at rx and at tx */
	struct pl_apps *apps;
	/* --apps: the apps' drops at this scheduler's rx (sum of their
	 * port_drop), a part of the run's port drops (pl_port_drops) */
	uint64_t app_port_drops;
	uint64_t results_written, results_no_room; /* --tx-results */
	/* scheduling policy's view (lib/sched) */
	struct hp_sched_dev sdev[HP_SCHED_MAX_DEV];
	struct hp_sched_env senv;
	const struct hp_model *pmodel[2]; /* cfg->profile's by role, or NULL */
	/* granularity task: packets between two tasks, waiting for their
	 * next decision; FIFO as large as the mbuf pool, so it never fills
	 * and completions are always taken (no cycle of full buffers) */
	struct rte_mbuf **redo;
	uint32_t redo_mask, redo_head, redo_n;
	uint64_t task_back[HP_MAX_DEVICES][HP_MAX_TASKS];
	uint64_t task_base[HP_MAX_DEVICES][HP_MAX_TASKS];
	/* input rate and delivered bits for the policy (EWMA, tick) */
	uint64_t tick_t, tick_rx, tick_bytes, next_tick;
	uint64_t tick_app_rx[HP_MAX_APPS];  /* --apps: received, at the last tick */
	/* the pass's own state between passes */
	int ep;                   /* the epoch its counters belong to */
	bool rx_closed;           /* end of run: nothing more is read */
	struct pl_sched_row row __rte_cache_aligned;
};

/* Verification of delivered packets against what was sent (pl_verify.c):
 * at the sink, or at the scheduler's tx for foreign ports. */
struct pl_verify {
	struct hp_task_ctx vctx[HP_MAX_TASKS];
	unsigned int n_tasks;
	/* each app's part of the joint chain (one app: 0..n_tasks) and its
	 * packets verified and failed (--apps) */
	uint8_t first[HP_MAX_APPS], end[HP_MAX_APPS];
	uint64_t app_ok[HP_MAX_APPS], app_fail[HP_MAX_APPS], app_unver[HP_MAX_APPS];
	uint8_t *scratch;
	uint64_t count;           /* packets since the last one checked */
	uint64_t verified, fail, unverified, task_err;
};

/* The traffic stage: the generator (port rx side) and the sink (tx side). */
struct pl_traffic {
	struct hp_gen gen;
	struct hp_profile prof;
	/* the port's queues, one pair per scheduler lcore: rx (gen ->
	 * scheduler) and tx (scheduler -> sink); with several, the generator
	 * spreads its frames over the rx rings by symmetric RSS (hp_rss.h) */
	unsigned int n_q;
	struct rte_ring *rx_ring[HP_MAX_SCHED_LCORES];
	struct rte_ring *tx_ring[HP_MAX_SCHED_LCORES];
	struct hp_rss rss;
	struct hp_staging *fwd;   /* pcap output with several schedulers (forward()) */
	uint64_t q_offered[HP_MAX_SCHED_LCORES]; /* frames each rx queue was offered */
	uint64_t q_dropped[HP_MAX_SCHED_LCORES]; /* ... that found it full */
	struct pl_verify ver;
	struct hp_task_ctx gctx[HP_MAX_TASKS]; /* generator bodies (gen_body) */
	/* --apps: each generator flow's app, and each app's body writer
	 * (NULL: random bytes) */
	uint8_t *flow_app;
	struct hp_task_ctx *body_ctx[HP_MAX_APPS];
	uint64_t body_rng;
	uint64_t offered, dropped_port, sink, sink_bytes;
	uint64_t sent_total, sink_total; /* never reset: drained when equal */
	int epoch_seen;
	int gen_ack;              /* the last gen_ctl a whole pass saw */
	struct hp_load load;
	bool alone;               /* an lcore of its own (see t_next) */
	/* the pass's own state between passes */
	uint64_t last;  /* generator: TSC of the last pass */
	/* hp_load: where the next pass starts, if known. A busy pass is
	 * followed by the next at once (the idle action runs only after an
	 * empty one), so its end is the next one's start. With the empty
	 * pass's end below, only a busy pass right after an empty one
	 * still reads the TSC twice for the counters; the others read it
	 * once or not at all. Measured on the 2-vCPU VM: a read costs
	 * ~11 ns, and the null pipeline makes 0.12 traffic passes a packet,
	 * two thirds of them empty, so two reads a pass were ~3 % of a
	 * packet's 80 ns (bench/results/load-2026-11-22g.md, section 4).
	 * As a service other services run between two passes: 0 then. */
	uint64_t t_next;
	double credit;  /* generator: frames due, not yet offered */
	int ep;         /* the epoch its counters belong to */
	/* --gen-recycle: delivered frames kept for the generator to send
	 * again as they are (LIFO, so they are warm in this core's cache) */
	struct rte_mbuf **recyc;
	unsigned int recyc_n, recyc_cap;
};

/* Latency as telemetry reads it (pl_tel.c): a copy the scheduler makes
 * once a trace row, under a seqlock, since the histograms it reads are
 * merged then and a reader would see them half-merged. Nanoseconds. */
#define PL_TEL_NQ 4 /* quantiles: pl_tel_q */
struct pl_lat_snap {
	uint64_t rows;                /* trace rows so far */
	uint64_t t_ns;                /* the window's end, since t0 */
	uint64_t w_ns;                /* the window's length */
	uint64_t w_count, w_sum, w_max, w_q[PL_TEL_NQ]; /* the last window */
	uint64_t count, sum, min, max, q[PL_TEL_NQ];    /* since the start */
	uint64_t d_count[HP_MAX_DEVICES], d_sum[HP_MAX_DEVICES], d_p99[HP_MAX_DEVICES];
};

/* Power as telemetry reads it: what the main lcore's last sample said. */
struct pl_power_pub {
	unsigned int n;               /* sources; names set before n */
	char name[HP_POWER_MAX][HP_POWER_NAMELEN];
	bool modeled[HP_POWER_MAX];
	double joules[HP_POWER_MAX];  /* since the measured phase began */
};

/* Stages, in launch order: devices, the schedulers, traffic. */
#define PL_STAGE_SCHED(r, i) (&(r)->stage[(r)->n_dev + (i)])
#define PL_STAGE_TRAFFIC(r) (&(r)->stage[(r)->n_dev + (r)->n_sc])

struct pl_run {
	const struct hp_run_cfg *cfg;
	double power_w[HP_POWER_MAX]; /* last power sample, for trace rows */
	struct pl_power_pub power;    /* ... and for telemetry */
	rte_seqlock_t lat_lock;       /* lat_snap's */
	struct pl_lat_snap lat_snap;
	const struct hp_app *app;  /* with --apps, mix_app: the joint chain */
	const struct hp_task_ops *tasks[HP_MAX_TASKS];
	struct hp_app mix_app;
	struct rte_mempool *pool;
	uint16_t rx_port, tx_port;
	/* where the schedulers send: tx_port, or with several schedulers
	 * and a pcap output the ring port (the traffic stage passes it on) */
	uint16_t sched_tx_port;
	int rx_port_ok, tx_port_ok;
	uint64_t tx_offload;       /* checksum offloads enabled on tx_port */
	unsigned int n_dev;        /* cpu devices + accelerator */
	struct hp_device *dev;
	struct hp_dev_env env;
	/* the devices' task configuration: the run's, with tx_offload */
	struct hp_task_cfg task_cfg;
	struct pl_sched *sc;       /* n_sc of them (--sched-lcores) */
	unsigned int n_sc;
	struct pl_traffic *tr;
	/* control: gen_ctl = changes << 1 | generator on (pl_gen_set) */
	int gen_ctl, calibrating, sched_quit, sink_quit, epoch;
	uint64_t t0; /* TSC when the measured phase began */
	uint64_t hz;
	struct hp_trace_row *rows;
	unsigned int n_rows;
	unsigned int shown;        /* rows printed as progress lines */
	uint64_t pcap_count;       /* records a pcap source offers, all passes */
	struct pl_ports *ports;    /* pl_ports.c's own state */
	/* the pcap output: written under a temporary name, renamed once the
	 * port is closed (pl_ports.c's pcap_setup sets both) */
	char tx_pcap[4200], tx_pcap_tmp[4220];
	struct hp_eth_view eth0;   /* ethdev's counts when the measured phase began */
	unsigned int n_stages;
	struct hp_stage stage[HP_MAX_DEVICES + HP_MAX_SCHED_LCORES + 1];
	struct hp_launch launch;
};

/* pl_sched.c */
extern const struct hp_stage_ops pl_sched_stage;
void pl_lat_fold(struct pl_run *r, struct pl_sched *sc);

/* pl_sched_init.c: the schedulers' state, r->n_sc of them */
int pl_sched_setup(struct pl_run *r, const struct hp_sched_ops *sops, char *err,
		   size_t errlen);
void pl_sched_free(struct pl_run *r);
double pl_reorder_hold_us(const struct hp_run_cfg *cfg);

/* pl_multi.c: several scheduler lcores */
/* A scheduler counter summed over the schedulers, read relaxed while they
 * run (each writes only its own). */
uint64_t pl_sum_u64(const struct pl_run *r, size_t off);
#define PL_SUM(r, field) pl_sum_u64((r), offsetof(struct pl_sched, field))
/* What a trace row reads of the schedulers: the one's own counters, or
 * with several the sums of all (scheduler 0 writes the rows). */
struct pl_row_src {
	uint64_t tx, bytes_tx, l1_pad, dl_pkts, dl_met, order_out, order_out_in_order;
	uint64_t ro_packets, ro_in_order, ro_ooo, ro_held;
	uint64_t busy, total, in;
	uint64_t back[HP_MAX_DEVICES];
};
void pl_row_src(const struct pl_run *r, const struct pl_sched *sc, struct pl_row_src *v);
/* The policy's shared view with several schedulers: each device's input
 * ring as all of them filled it. */
void pl_multi_books(struct pl_run *r, struct pl_sched *sc);
/* After the stages stopped: each scheduler's report (res->sched_lcores),
 * then every scheduler's counters and histograms added into r->sc[0], so
 * that pl_collect() reads the run's totals there. */
void pl_multi_collect(struct pl_run *r, struct hp_run_result *res);
/* Whether every scheduler but the first is done (the first writes the
 * last trace row after them). */
bool pl_others_done(const struct pl_run *r);

/* Whether the run has a traffic stage: the generator, or the one
 * writer of a pcap output that several schedulers send to. */
static inline bool
pl_has_traffic(const struct pl_run *r)
{
	return r->cfg->src == HP_SRC_GEN || (r->cfg->src == HP_SRC_PCAP && r->n_sc > 1);
}

/* pl_traffic.c */
extern const struct hp_stage_ops pl_traffic_stage;
int pl_traffic_setup(struct pl_run *r, char *err, size_t errlen);
void pl_traffic_free(struct pl_run *r);
/* Turns the generator on or off; off waits until a whole traffic pass has
 * seen it: no frame is on its way to the port after this. */
void pl_gen_set(struct pl_run *r, bool on);
/* With the generator off: every frame it sent is at the sink or freed. */
void pl_wait_drained(struct pl_run *r);

/* pl_verify.c */
int pl_verify_init(struct pl_verify *v, struct pl_run *r, char *err, size_t errlen);
void pl_verify_free(struct pl_verify *v);
void pl_verify_reset(struct pl_verify *v);
void pl_verify(struct pl_verify *v, struct rte_mbuf *m);

/* Checks every `every`-th packet (0: none). */
static inline void
pl_verify_every(struct pl_verify *v, unsigned int every, struct rte_mbuf *m)
{
	if (every && ++v->count >= every) {
		v->count = 0;
		pl_verify(v, m);
	}
}
/* Task contexts for the app's chain (verification, generator bodies). */
int pl_ctx_init_chain(struct pl_run *r, struct hp_task_ctx *ctx, char *err,
		      size_t errlen);
void pl_ctx_free_chain(struct hp_task_ctx *ctx, unsigned int n);

/* pl_ports.c: also creates r->pool, its mbufs as long as the port's
 * frames can be */
int pl_ports_setup(struct pl_run *r, char *err, size_t errlen);
/* Stops what feeds the rx port from outside the stages (a pcap replay):
 * nothing more arrives after it, so the scheduler's last poll drains it. */
void pl_ports_stop_rx(struct pl_run *r);
void pl_ports_close(struct pl_run *r);
uint64_t pl_port_drops(struct pl_run *r);
/* pcap with several schedulers: the ring port's tx ring of queue q */
struct rte_ring *pl_ports_txr(struct pl_run *r, unsigned int q);
uint64_t pl_offered_now(struct pl_run *r);
void pl_ports_report(struct pl_run *r, struct hp_port_report *rep);
/* ethdev's counts of the ports: since the measured phase began (mark)
 * or, with mark, from now on */
void pl_port_ethdev(struct pl_run *r, struct hp_eth_view *v, bool mark);

/* pl_replay.c: a pcap file replayed into a ring, paced by its timestamps */
struct pl_pcap_info {
	uint64_t records;          /* whole records before the end or a cut */
	uint32_t caplen_max;
	bool cut;                  /* a record after them could not be read */
	char cut_why[160];         /* libpcap's reason */
	uint64_t span_ns;          /* last timestamp - first, one pass */
};
struct pl_replay;
/* Opens the file and reads its first record: a capture of Ethernet
 * frames, not cut before its first record. */
int pl_pcap_check(const char *path, char *err, size_t errlen);
/* Reads the whole file once: an Ethernet capture with a record. */
int pl_pcap_scan(const char *path, struct pl_pcap_info *info, char *err, size_t errlen);
/* A thread that, once r->t0 is set, puts the file's frames into the rx
 * rings at their time (cfg->pcap_speed, cfg->pcap_loops), mbufs from
 * r->pool; with several rings, each frame into its RSS queue's. */
int pl_replay_start(struct pl_run *r, struct rte_ring *const *ring, unsigned int n_ring,
		    const struct pl_pcap_info *info, struct pl_replay **rp, char *err,
		    size_t errlen);
/* Joins the thread (once; what it held is freed): nothing more arrives. */
void pl_replay_stop(struct pl_replay *rp);
void pl_replay_free(struct pl_replay *rp);
/* Frames the paced replay found no room for in the ring (a full rx queue). */
uint64_t pl_replay_drops(const struct pl_replay *rp);

/* pl_apps.c: several apps at once (--apps) */
/* The apps' chains joined into one (r->mix_app), for the devices. */
const struct hp_app *pl_apps_chain(struct pl_run *r);
/* Per-app counters of the scheduler, or -ENOMEM. */
int pl_apps_setup(struct pl_run *r, struct pl_sched *sc);
/* The app of a flow: its hash's place among the shares (the upper 32
 * bits of the flow id against cumulative share bounds). */
static inline unsigned int
pl_app_of(const uint32_t *bound, unsigned int n, uint64_t flow_id)
{
	uint32_t h = (uint32_t)(flow_id >> 32);
	unsigned int a = 0;

	while (a + 1 < n && h >= bound[a])
		a++;
	return a;
}
void pl_apps_collect(struct pl_run *r, struct hp_run_result *res);
void pl_apps_reset(struct pl_apps *ap);
void pl_apps_free(struct pl_apps *ap);
/* The apps' columns of a trace row (dt: the row's seconds). */
void pl_apps_row(struct pl_apps *ap, struct hp_trace_row *row, double dt);
/* --tx-results: appends the HP_RESULTS_LEN trailer (counted in sc). */
void pl_tx_results(struct pl_sched *sc, struct rte_mbuf *m);
/* Per packet at tx (order: -1 not order-needing, else in order or not)
 * and at a task's refusal. Out of line: only --apps runs call them. */
void pl_apps_tx(struct pl_apps *ap, const struct hp_meta *md, uint64_t ns, uint32_t len,
		uint64_t now, int order);
/* The generator's side: each flow's app and a body hook that writes the
 * body of the frame's app (pl_traffic.c calls it with --apps). */
int pl_apps_gen_setup(struct pl_run *r, struct pl_traffic *tr, char *err, size_t errlen);

/* classify()'s part with --apps: the packet's app and where its chain
 * starts in the joint chain. */
static inline void
pl_apps_classify(struct pl_apps *ap, struct hp_meta *md)
{
	unsigned int a = pl_app_of(ap->bound, ap->n, md->flow_id);

	md->app = (uint8_t)a;
	md->step = ap->first[a];
	ap->c[a].rx++;
}

/* The scheduler's --apps parts (pl_sched.c calls them only with --apps,
 * out of line as they were): the way in, a burst's classified packets
 * to their apps' FIFOs or dropped (start: each FIFO's length before, for
 * their flows); the placement; each app's input rate at a tick (a: the
 * EWMA's weight) and the counters it is taken from. */
void pl_apps_in(struct pl_sched *sc, struct rte_mbuf **pkts, unsigned int n, uint32_t *start);
void pl_apps_place(struct pl_run *r, struct pl_sched *sc, uint64_t now);
void pl_apps_rate(struct pl_sched *sc, double off_pps, double a);
void pl_apps_tick_mark(struct pl_sched *sc);
/* pl_sched.c: the policy's admission refused m (HP_SCHED_DROP) */
void pl_sched_admit_drop(struct pl_run *r, struct pl_sched *sc, struct rte_mbuf *m,
			 uint64_t now);

/* Whether rx may read a burst with --apps: some app has room for one
 * (every app, from a source that waits for room) */
static inline bool
pl_apps_open(const struct pl_apps *ap, unsigned int burst)
{
	unsigned int a, open = 0;

	for (a = 0; a < ap->n; a++)
		open += ap->qn[a] + burst <= ap->cap;
	return ap->lossless ? open == ap->n : open != 0;
}

/* pl_tel.c: the /heteroplane/ telemetry commands read the run attached
 * (one at a time; registered once a process) */
int pl_tel_attach(struct pl_run *r, char *err, size_t errlen);
void pl_tel_detach(struct pl_run *r);
/* The scheduler, once a trace row: latency for telemetry (t: TSC). */
void pl_tel_lat_publish(struct pl_run *r, const struct pl_sched *sc, uint64_t t, double dt);

/* pl_collect.c */
unsigned int pl_n_loops(const struct pl_run *r);
struct hp_load *pl_loop_load(const struct pl_run *r, unsigned int i);
int pl_loads_init(struct pl_run *r, char *err, size_t errlen);
void pl_loads_fini(struct pl_run *r);
/* Prints the trace rows written since the last call. */
void pl_progress(struct pl_run *r);
void pl_collect(struct pl_run *r, struct hp_run_result *res);
/* The scheduler's trace row of the second that ended (dt: its seconds). */
void pl_sched_row(struct pl_run *r, struct pl_sched *sc, uint64_t now, double dt);

#endif /* PL_PRIV_H */
