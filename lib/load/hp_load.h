/* SPDX-License-Identifier: BSD-3-Clause
 * Load estimation for polling loops (Rydén & Näslund, ch. 4): how busy is a
 * core that always shows 100 % in top, and how close is it to dropping?
 *
 * Every polling loop owns one struct hp_load and calls hp_load_poll() once
 * per iteration with the iteration's start and end TSC and the number of
 * items it handled. That keeps raw cumulative counters (wall time, busy
 * time, polls, empty polls, items, and a table of iteration cost per batch
 * size); any window is computed exactly from two snapshots of them. Three
 * estimators are computed per window:
 *   (a) polls:  non-empty polls / polls                       (thesis eq. 4.2)
 *   (b) busy:   time in non-empty polls / all time            (thesis eq. 4.3)
 *   (c) load:   items x cost of one item at full batches / all time, where
 *               that cost is learnt from the batch-size table with the cost
 *               of an empty poll removed (docs/load.md explains the model).
 * (c) is linear in the offered rate by construction and reads 1.0 where the
 * loop saturates, which is what (b) misses: at low load every item pays a
 * whole poll and a small, inefficient batch.
 *
 * Threads: only the owning lcore writes the counters (relaxed 64-bit stores,
 * never torn); any thread may read them. The owner also closes a window
 * every conf.interval_s and publishes its estimates (hp_load_last()).
 */
#ifndef HP_LOAD_H
#define HP_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_seqcount.h>

#include "hp_load_config.h" /* HP_LOAD_COUNTERS: meson option load_counters */

/* Batch-size table: exact sizes 1..HP_LOAD_MAX_BATCH-1, the last bucket
 * holds everything larger, bucket 0 the empty polls. */
#define HP_LOAD_MAX_BATCH 128
#define HP_LOAD_HIST (HP_LOAD_MAX_BATCH + 1)

#define HP_LOAD_INTERVAL_DEFAULT 1.0  /* s */
#define HP_LOAD_INTERVAL_MIN 0.01     /* s */
#define HP_LOAD_INTERVAL_MAX 60.0     /* s */
#define HP_LOAD_NAMELEN 48

struct hp_load_conf {
	char name[HP_LOAD_NAMELEN];  /* "sched", "w0", ... */
	unsigned int lcore;          /* set by hp_load_start on an EAL lcore */
	int cpu;                     /* first CPU of that lcore, -1 unknown */
	unsigned int max_batch;      /* items one iteration takes at saturation */
	double interval_s;           /* window; 0: HP_LOAD_INTERVAL_DEFAULT */
	uint64_t hz;                 /* TSC rate; 0: rte_get_tsc_hz() */
	double warn_threshold;       /* projected load that warns; 0: 0.9 */
	double warn_horizon_s;       /* how far ahead to project; 0: 2 s */
	bool yields;                 /* the loop gives the CPU away when idle
					(sleep, sched_yield): a pause of up to
					5 ms after an empty poll is then its
					own doing; after a busy one, and in a
					loop that never yields, a pause over
					50 us is time the CPU was taken away */
};

/* One bucket of the batch-size table (32 bytes: one iteration touches one
 * cache line). lim is the owner's outlier limit, not a counter. */
struct hp_load_bucket {
	uint64_t n;    /* iterations of this batch size */
	uint64_t cyc;  /* their own time (poll + work), TSC cycles */
	uint64_t pkts; /* their items */
	uint64_t lim;  /* longer iterations were preempted: not in the table */
};

/* A snapshot of the raw cumulative counters. */
struct hp_load_raw {
	uint64_t tsc;          /* end of the last iteration counted */
	uint64_t total_cycles; /* wall time covered: busy + empty + between polls */
	uint64_t busy_cycles;  /* own time of iterations that had work (tb1) */
	uint64_t polls;        /* iterations (ti) */
	uint64_t empty_polls;  /* iterations without work (i0) */
	uint64_t packets;      /* items handled */
	uint64_t outliers;     /* iterations left out of the table */
	uint64_t outlier_cycles; /* their time, and long pauses between
				    iterations of a loop that never yields:
				    the CPU was taken away */
	uint64_t warn_count;   /* the owner's warnings so far */
	bool cpu_shared;       /* another registered loop runs on this CPU */
	/* The kernel's view of the owning thread (hp_load_row_take fills
	 * these; 0 when not read): CLOCK_MONOTONIC, and from schedstat the
	 * time it ran and the time it waited runnable for a CPU. */
	uint64_t os_ns, os_run_ns, os_wait_ns;
	/* The most of any window the owning thread can have: the kernel's
	 * real-time bandwidth (sched_rt_runtime_us / sched_rt_period_us,
	 * 0.95 by default) when it runs SCHED_FIFO/RR, 1 otherwise; 0 when
	 * not read (hp_load_read leaves it so). The owner's windows and
	 * hp_load_row_take fill it (one sched_getscheduler a window). */
	double cpu_max;
	uint64_t hn[HP_LOAD_HIST], hcyc[HP_LOAD_HIST], hpkts[HP_LOAD_HIST];
};

/* Estimates over one window. Loads are fractions (1.0 = saturated). */
struct hp_load_est {
	double t_s;              /* window length */
	double polls;            /* (a) eq. 4.2 */
	double busy;             /* (b) eq. 4.3 */
	double load;             /* (c) */
	double headroom;         /* 1 - (c), at least 0 */
	double pps;              /* items per second */
	double cycles_per_pkt;   /* busy cycles / item, as observed */
	double sat_cycles_per_pkt; /* (c)'s cost of one item at full batches */
	double capacity_pps;     /* hz / sat_cycles_per_pkt */
	double empty_poll_cycles;  /* measured cost of one empty poll */
	double mean_batch;       /* items / non-empty poll */
	double level;            /* this window's work cost vs the learnt table */
	double stolen;           /* share of the window the OS took the CPU
				    away (preempted iterations, pauses that
				    were not the loop's own): (c) counts
				    only the rest, unless the CPU is shared
				    with another loop (then the loops' sum
				    is the CPU's); never more than the
				    thread can have (cpu_max) either */
	double projected;        /* trend of (c) projected warn_horizon_s ahead */
	uint64_t packets;        /* items in the window */
	uint64_t warn_count;     /* upward crossings of warn_threshold so far */
	bool warn;               /* projected >= threshold (with hysteresis) */
};

struct hp_load {
	/* hot: the owner writes these every iteration */
	uint64_t last;
	uint64_t total_cycles, busy_cycles, polls, empty_polls, packets, outliers;
	uint64_t outlier_cycles;
	uint64_t gap_lim;          /* longer pauses after a busy iteration: preempted */
	uint64_t gap_lim_idle;     /* the same after an empty one (a yielding
				      loop may pause by itself then) */
	uint64_t gap_lim_next;     /* the one that applies before the next poll */
	uint64_t next_roll;
	bool cpu_shared;           /* set by hp_load_start (registry) */
	struct hp_load_bucket hist[HP_LOAD_HIST] __rte_cache_aligned;
	/* cold: the owner writes these once per window */
	struct hp_load_conf conf __rte_cache_aligned;
	uint64_t interval_cyc;
	uint64_t windows;
	struct hp_load_raw prev;   /* start of the open window */
	double trend_load, trend_slope;
	bool trend_init, warned;
	uint64_t warn_count;
	int tid;                   /* the owner's thread id (hp_load_start), 0 unknown */
	rte_seqcount_t est_sc;
	struct hp_load_est est;    /* the last closed window */
} __rte_cache_aligned;

/* Fills defaults, checks ranges: 0 or -EINVAL (interval outside
 * 10 ms..60 s, max_batch 0, threshold outside (0, 2]). */
int hp_load_init(struct hp_load *ld, const struct hp_load_conf *conf);
/* The owner calls this right before its loop: the first window starts;
 * on an EAL lcore it records the lcore id and its CPU, and marks loops
 * that share that CPU (registered ones). */
void hp_load_start(struct hp_load *ld, uint64_t now);
/* Closes the open window at `now` (the owner does this by itself from
 * hp_load_poll; exposed for tests and for loops that stop). */
void hp_load_roll(struct hp_load *ld, uint64_t now);

/* Hot path, once per iteration: t0 = start of the iteration, t1 = its end
 * (after the work, before any pause or yield), n = items handled.
 * Measured cost (`load-synth update`, 2-core Xeon VM,
 * bench/results/load-2026-11-22c.md): 6.5 TSC cycles per call on top of
 * the loop's own TSC reads; the window roll (~1 us, one
 * sched_getscheduler) runs once per interval. */
static inline void
hp_load_poll(struct hp_load *ld, uint64_t t0, uint64_t t1, unsigned int n)
{
#if HP_LOAD_COUNTERS
#define HP_LOAD_ADD_(f, v) __atomic_store_n(&(f), (f) + (v), __ATOMIC_RELAXED)
	uint64_t d = t1 - t0;
	struct hp_load_bucket *b =
		&ld->hist[n < HP_LOAD_MAX_BATCH ? n : HP_LOAD_MAX_BATCH];

	HP_LOAD_ADD_(ld->total_cycles, t1 - ld->last);
	/* Between iterations a loop pauses for ~100 cycles, and a yielding
	 * loop may sleep or yield after an empty poll, never after a busy
	 * one: a much longer pause is time the CPU was taken away (a time
	 * slice of another thread, the kernel's real-time throttling). */
	if (unlikely(t0 - ld->last > ld->gap_lim_next))
		HP_LOAD_ADD_(ld->outlier_cycles, t0 - ld->last);
	__atomic_store_n(&ld->last, t1, __ATOMIC_RELAXED);
	ld->gap_lim_next = n ? ld->gap_lim : ld->gap_lim_idle;
	HP_LOAD_ADD_(ld->polls, 1);
	if (n == 0) {
		HP_LOAD_ADD_(ld->empty_polls, 1);
	} else {
		HP_LOAD_ADD_(ld->busy_cycles, d);
		HP_LOAD_ADD_(ld->packets, n);
	}
	/* An iteration that took far longer than its batch size usually
	 * does lost the CPU (preemption, a yield inside): it counts in the
	 * totals above, not in the cost table. */
	if (likely(d <= b->lim)) {
		HP_LOAD_ADD_(b->n, 1);
		HP_LOAD_ADD_(b->cyc, d);
		HP_LOAD_ADD_(b->pkts, n);
	} else {
		HP_LOAD_ADD_(ld->outliers, 1);
		HP_LOAD_ADD_(ld->outlier_cycles, d);
	}
	if (unlikely(t1 >= ld->next_roll))
		hp_load_roll(ld, t1);
#undef HP_LOAD_ADD_
#else
	RTE_SET_USED(ld);
	RTE_SET_USED(t0);
	RTE_SET_USED(t1);
	RTE_SET_USED(n);
#endif
}

static inline bool
hp_load_enabled(void)
{
	return HP_LOAD_COUNTERS != 0;
}

/* Any thread: a snapshot of the raw counters (each field untorn; fields
 * may be one iteration apart, which no window of >= 10 ms notices). */
void hp_load_read(const struct hp_load *ld, struct hp_load_raw *out);
/* Any thread: the estimates of the last closed window; -EAGAIN if none
 * has closed yet. */
int hp_load_last(const struct hp_load *ld, struct hp_load_est *out);
/* Estimates over the window a -> b (b later). max_batch and hz as in the
 * loop's conf; b->cpu_max, where set, caps the time the loop had. Trend
 * fields are left 0. 0, or -EINVAL if b is not later. */
int hp_load_compute(const struct hp_load_raw *a, const struct hp_load_raw *b,
		    unsigned int max_batch, uint64_t hz, struct hp_load_est *e);

/* TSC for loops that read none of their own: 0 when counters are
 * compiled out, so the read goes away with them. */
static inline uint64_t
hp_load_tsc(void)
{
#if HP_LOAD_COUNTERS
	return rte_rdtsc();
#else
	return 0;
#endif
}

/* The most of a window thread tid (0: the caller) can have (see
 * hp_load_raw.cpu_max): one sched_getscheduler; the kernel's real-time
 * bandwidth is read once per process. 1 where unknown. */
double hp_load_cpu_max(int tid);

/* ---- per-second rows: progress line, trace.csv, ramp (hp_load_report.c) ---- */

/* One loop over one row's interval: the estimates and the raw deltas
 * that let rows be merged exactly ((a) and (b); (c) time-weighted). */
struct hp_load_row {
	double polls, busy, load, headroom, projected;
	double cycles_per_pkt, sat_cycles_per_pkt;
	uint64_t d_total, d_busy, d_polls, d_empty, d_pkts, d_lost;
	/* the kernel's view (schedstat), independent of the counters:
	 * wall ns covered, ns the thread ran, ns it waited for a CPU */
	uint64_t d_os_ns, d_os_run, d_os_wait;
	uint64_t warn_count;
	bool warn_new;  /* a warning fired during this row */
	int cpu;
};

/* Reads ld, fills row from the window prev -> now, moves prev to now.
 * Also reads the owning thread's schedstat (one small /proc read: this
 * runs once a row, never in a polling iteration). */
void hp_load_row_take(const struct hp_load *ld, struct hp_load_raw *prev,
		      struct hp_load_row *row);
/* Merges rows (same loop, consecutive) into one. */
void hp_load_row_merge(struct hp_load_row *acc, const struct hp_load_row *r);
/* "cpu0 62% (busy 70%, polls 9%, headroom 38%, 1234 cyc/item)" */
int hp_load_row_str(char *buf, size_t len, const char *name,
		    const struct hp_load_row *row);
/* trace.csv / ramp.csv columns for one loop: the header names are
 * prefixed with the loop's name. */
void hp_load_csv_head(FILE *f, const char *name);
void hp_load_csv_cols(FILE *f, const struct hp_load_row *row);

/* ---- registry, telemetry (hp_load_tel.c) ---- */

/* Makes a loop visible to telemetry and hp_load_foreach: 0, -EEXIST,
 * -ENOSPC (HP_LOAD_MAX_LOOPS). Unregister before freeing it. */
#define HP_LOAD_MAX_LOOPS 128
int hp_load_register(struct hp_load *ld);
void hp_load_unregister(struct hp_load *ld);
/* Marks ld and every registered loop on the same CPU as sharing it. */
void hp_load_mark_shared(struct hp_load *ld);
/* Calls fn for every registered loop under the registry lock; stops at
 * the first non-zero return and returns it. */
int hp_load_foreach(int (*fn)(const struct hp_load *ld, void *arg), void *arg);
/* Registers the telemetry command /heteroplane/lcore/load (once) and,
 * where DPDK has it (23.03+), the EAL lcore usage callback. 0 or -errno. */
int hp_load_telemetry_init(void);

#endif /* HP_LOAD_H */
