/* SPDX-License-Identifier: BSD-3-Clause
 * Load estimation for polling loops: windows, the three estimators and the
 * projected-load warning (see hp_load.h and docs/load.md for the model).
 * Nothing here runs per iteration except through hp_load_poll(); the
 * window roll runs on the owning lcore once per interval (~1 us).
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "hp_load.h"

/* A bucket's mean is trusted (empty-poll cost, level, outlier limit)
 * after this many iterations. */
#define MIN_BUCKET_N 32
/* The cost at full batches is read from the largest batch sizes seen,
 * taken together until they hold this many items: few enough that a
 * short saturated spell (a calibration, a burst) is enough, many enough
 * that IMIX-sized cost variation averages out (~1 %). */
#define MIN_TOP_PKTS 4096
#define MIN_TOP_ITERS 16
/* Outlier limit: an iteration longer than LIM_MULT x its bucket's mean
 * plus LIM_US lost the CPU. Interrupts (a few us) stay in, preemption by
 * another thread (a time slice, >= 100 us) goes out. */
#define LIM_MULT 4
#define LIM_US 50.0
#define LIM_MIN_N 64
/* A batch size seen fewer than LIM_MIN_N times (a backlog after a stop, a
 * rare burst) has no mean of its own yet: its limit is taken from the
 * dearest item cost of the trusted sizes, with twice the margin (cold
 * single items cost ~4.5x a full batch's, bench/results/load-*). Without
 * it a 50 ms stop of the kernel's real-time throttling in such an
 * iteration went into the table as work and lifted (c)'s level by 10 %. */
#define LIM_DERIVED_MULT (2 * LIM_MULT)
/* After an empty poll a yielding loop sleeps (~100 us) or yields (a time
 * slice of whoever else wants the CPU, a few ms): a pause longer than
 * this was not its own. */
#define IDLE_GAP_US 5000.0
/* Trend of (c) for the projection: EWMA time constant. */
#define TREND_TAU_S 1.0
#define WARN_HYSTERESIS 0.05

int
hp_load_init(struct hp_load *ld, const struct hp_load_conf *conf)
{
	struct hp_load_conf c = *conf;
	unsigned int k;

	if (c.interval_s == 0)
		c.interval_s = HP_LOAD_INTERVAL_DEFAULT;
	if (c.warn_threshold == 0)
		c.warn_threshold = 0.9;
	if (c.warn_horizon_s == 0)
		c.warn_horizon_s = 2.0;
	if (!(c.interval_s >= HP_LOAD_INTERVAL_MIN && c.interval_s <= HP_LOAD_INTERVAL_MAX) ||
	    c.max_batch == 0 || !(c.warn_threshold > 0 && c.warn_threshold <= 2) ||
	    !(c.warn_horizon_s > 0 && c.warn_horizon_s <= 3600))
		return -EINVAL;
	if (c.hz == 0)
		c.hz = rte_get_tsc_hz();
	if (c.hz == 0)
		return -EINVAL;
	c.name[HP_LOAD_NAMELEN - 1] = '\0';
	c.cpu = -1;
	memset(ld, 0, sizeof(*ld));
	ld->conf = c;
	ld->interval_cyc = (uint64_t)(c.interval_s * (double)c.hz);
	ld->gap_lim = (uint64_t)(LIM_US * (double)c.hz / 1e6);
	ld->gap_lim_idle = c.yields ? (uint64_t)(IDLE_GAP_US * (double)c.hz / 1e6) :
				      ld->gap_lim;
	ld->gap_lim_next = ld->gap_lim_idle;
	for (k = 0; k < HP_LOAD_HIST; k++)
		ld->hist[k].lim = UINT64_MAX;
	ld->next_roll = UINT64_MAX; /* no window until hp_load_start */
	rte_seqcount_init(&ld->est_sc);
	return 0;
}

/* The kernel's real-time bandwidth: a SCHED_FIFO/RR thread that would run
 * more than runtime of every period is stopped for the rest of it
 * (Documentation/scheduler/sched-rt-group.rst; 950 ms of 1 s by default,
 * -1 = no limit). Read once per process; 1 where unknown. */
static double
rt_share(void)
{
	static double share; /* 0: not read yet (a benign race: same value) */
	long rt = -1, per = 0;
	FILE *f;

	if (share > 0)
		return share;
	f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	if (f != NULL) {
		if (fscanf(f, "%ld", &rt) != 1)
			rt = -1;
		fclose(f);
	}
	f = fopen("/proc/sys/kernel/sched_rt_period_us", "r");
	if (f != NULL) {
		if (fscanf(f, "%ld", &per) != 1)
			per = 0;
		fclose(f);
	}
	share = rt >= 0 && per > 0 && rt < per ? (double)rt / (double)per : 1.0;
	return share;
}

double
hp_load_cpu_max(int tid)
{
	int pol = sched_getscheduler(tid);

	return pol == SCHED_FIFO || pol == SCHED_RR ? rt_share() : 1.0;
}

/* The owner's own consistent snapshot (plain reads: it is the writer). */
static void
snap_own(const struct hp_load *ld, struct hp_load_raw *r)
{
	unsigned int k;

	r->tsc = ld->last;
	r->total_cycles = ld->total_cycles;
	r->busy_cycles = ld->busy_cycles;
	r->polls = ld->polls;
	r->empty_polls = ld->empty_polls;
	r->packets = ld->packets;
	r->outliers = ld->outliers;
	r->outlier_cycles = ld->outlier_cycles;
	r->cpu_shared = ld->cpu_shared;
	r->warn_count = ld->warn_count;
	r->os_ns = r->os_run_ns = r->os_wait_ns = 0;
	r->cpu_max = hp_load_cpu_max(0); /* once a window, on the owner */
	for (k = 0; k < HP_LOAD_HIST; k++) {
		r->hn[k] = ld->hist[k].n;
		r->hcyc[k] = ld->hist[k].cyc;
		r->hpkts[k] = ld->hist[k].pkts;
	}
}

void
hp_load_read(const struct hp_load *ld, struct hp_load_raw *r)
{
#define RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
	unsigned int k;

	/* total first, busy after: a window never shows busy > total */
	r->tsc = RD(ld->last);
	r->total_cycles = RD(ld->total_cycles);
	r->polls = RD(ld->polls);
	r->empty_polls = RD(ld->empty_polls);
	r->busy_cycles = RD(ld->busy_cycles);
	r->packets = RD(ld->packets);
	r->outliers = RD(ld->outliers);
	r->outlier_cycles = RD(ld->outlier_cycles);
	r->cpu_shared = RD(ld->cpu_shared);
	r->warn_count = RD(ld->warn_count);
	r->os_ns = r->os_run_ns = r->os_wait_ns = 0; /* hp_load_row_take's */
	r->cpu_max = 0;
	for (k = 0; k < HP_LOAD_HIST; k++) {
		r->hn[k] = RD(ld->hist[k].n);
		r->hcyc[k] = RD(ld->hist[k].cyc);
		r->hpkts[k] = RD(ld->hist[k].pkts);
	}
#undef RD
}

void
hp_load_start(struct hp_load *ld, uint64_t now)
{
	unsigned int lc = rte_lcore_id();

	/* once, before the loop: lets the reporting thread read the
	 * kernel's accounting of this thread (hp_load_row_take) */
	__atomic_store_n(&ld->tid, (int)syscall(SYS_gettid), __ATOMIC_RELAXED);
	if (lc < RTE_MAX_LCORE) {
		rte_cpuset_t cs = rte_lcore_cpuset(lc);
		int cpu;

		ld->conf.lcore = lc;
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &cs))
				break;
		/* read by other loops' hp_load_start (under the registry lock) */
		__atomic_store_n(&ld->conf.cpu, cpu < CPU_SETSIZE ? cpu : -1,
				 __ATOMIC_RELAXED);
		hp_load_mark_shared(ld);
	}
	__atomic_store_n(&ld->last, now, __ATOMIC_RELAXED);
	snap_own(ld, &ld->prev);
	ld->next_roll = now + ld->interval_cyc;
}

int
hp_load_compute(const struct hp_load_raw *a, const struct hp_load_raw *b,
		unsigned int max_batch, uint64_t hz, struct hp_load_est *e)
{
	uint64_t dt, polls, empty, pk, busy, lost, tn = 0, tc = 0, tp = 0;
	const struct hp_load_raw *ref;
	double p = 0, w, level = 1, sumc = 0, sume = 0, sat, had;
	int k;

	memset(e, 0, sizeof(*e));
	if (b->total_cycles < a->total_cycles || b->polls < a->polls ||
	    max_batch == 0 || hz == 0)
		return -EINVAL;
	dt = b->total_cycles - a->total_cycles;
	polls = b->polls - a->polls;
	empty = b->empty_polls - a->empty_polls;
	pk = b->packets - a->packets;
	busy = b->busy_cycles - a->busy_cycles;
	lost = b->outlier_cycles - a->outlier_cycles;
	e->t_s = (double)dt / (double)hz;
	e->packets = pk;
	if (dt == 0)
		return 0;
	/* (a) eq. 4.2 and (b) eq. 4.3 */
	e->polls = polls ? (double)(polls - empty) / (double)polls : 0;
	e->busy = (double)busy / (double)dt;
	e->pps = (double)pk * (double)hz / (double)dt;
	e->cycles_per_pkt = pk ? (double)busy / (double)pk : 0;
	e->mean_batch = polls > empty ? (double)pk / (double)(polls - empty) : 0;

	/* (c) prices the window's items with what the loop learnt before
	 * the window (ref = a): the window then measures only the level. A
	 * loop too young for that learns from everything up to b. */
	ref = b;
	for (k = 1; k <= HP_LOAD_MAX_BATCH; k++)
		tp += a->hpkts[k];
	if (tp >= MIN_TOP_PKTS)
		ref = a;
	tp = 0;
	/* The cost of an empty poll: every non-empty poll pays it too, but
	 * at saturation a whole batch shares it. */
	if (ref->hn[0] >= MIN_BUCKET_N)
		p = (double)ref->hcyc[0] / (double)ref->hn[0];
	else if (b->hn[0] >= MIN_BUCKET_N)
		p = (double)b->hcyc[0] / (double)b->hn[0];
	e->empty_poll_cycles = p;
	/* Work per item at the largest batches seen: batch effects (fixed
	 * per-batch cost, multi-buffer lanes) make small batches dearer per
	 * item, and saturation runs full batches. */
	for (k = HP_LOAD_MAX_BATCH; k >= 1; k--) {
		tn += ref->hn[k];
		tc += ref->hcyc[k];
		tp += ref->hpkts[k];
		if (tp >= MIN_TOP_PKTS && tn >= MIN_TOP_ITERS)
			break;
	}
	if (tp == 0)
		return 0; /* no item ever: pk is 0 too */
	w = ((double)tc - (double)tn * p) / (double)tp;
	if (w <= 0)
		w = (double)tc / (double)tp;
	/* Level: this window's work against the learnt table, batch size for
	 * batch size, so a heavier or lighter traffic mix shows at once. */
	for (k = 1; k <= HP_LOAD_MAX_BATCH; k++) {
		uint64_t dn = b->hn[k] - a->hn[k];
		double mean;

		if (dn == 0 || ref->hn[k] < MIN_BUCKET_N)
			continue;
		mean = (double)ref->hcyc[k] / (double)ref->hn[k];
		sume += (double)dn * (mean - p);
		sumc += (double)(b->hcyc[k] - a->hcyc[k]) - (double)dn * p;
	}
	if (sume > 0 && sumc > 0)
		level = sumc / sume;
	sat = level * w + p / (double)max_batch;
	e->level = level;
	e->sat_cycles_per_pkt = sat;
	e->capacity_pps = (double)hz / sat;
	/* Time the loop spent preempted inside an iteration was not its to
	 * use (another thread or the hypervisor had the CPU): the load is
	 * the work over the time it had (at most 90 % is taken as lost).
	 * Loops that share a CPU preempt each other, so for them the lost
	 * time is mostly a sibling's work: they stay shares of wall time,
	 * and their sum is the CPU's load. */
	if (lost > dt - dt / 10)
		lost = dt - dt / 10;
	e->stolen = (double)lost / (double)dt;
	if (b->cpu_shared)
		lost = 0;
	/* A real-time thread never has more than the kernel's real-time
	 * share of a window (the rest it is throttled, which is then found
	 * as lost time): that is where it saturates, so a window in which
	 * it was not throttled counts that share too. */
	had = (double)(dt - lost);
	if (b->cpu_max > 0 && b->cpu_max < 1)
		had = fmin(had, b->cpu_max * (double)dt);
	/* Items never cost more at saturation than the loop spends on them
	 * now (batches only get cheaper per item), so the work is at most
	 * the busy time: this bounds a level misled by a loop whose items
	 * are of different kinds (the traffic lcore generates and sinks). */
	e->load = fmin((double)pk * sat, (double)busy) / had;
	e->headroom = e->load < 1 ? 1 - e->load : 0;
	return 0;
}

static void
trend(struct hp_load *ld, struct hp_load_est *e)
{
	double a = 1 - exp(-e->t_s / TREND_TAU_S), thr = ld->conf.warn_threshold;

	if (!ld->trend_init) {
		ld->trend_load = e->load;
		ld->trend_slope = 0;
		ld->trend_init = true;
	} else {
		double nl = ld->trend_load + a * (e->load - ld->trend_load);

		ld->trend_slope += a * ((nl - ld->trend_load) / e->t_s - ld->trend_slope);
		ld->trend_load = nl;
	}
	/* Only a rising trend is projected: a falling one must not hide
	 * what the current window shows. */
	e->projected = fmax(e->load, ld->trend_load +
			    fmax(ld->trend_slope, 0) * ld->conf.warn_horizon_s);
	if (!ld->warned && e->projected >= thr) {
		ld->warned = true;
		__atomic_store_n(&ld->warn_count, ld->warn_count + 1, __ATOMIC_RELAXED);
	} else if (ld->warned && e->projected < thr - WARN_HYSTERESIS) {
		ld->warned = false;
	}
	e->warn = ld->warned;
	e->warn_count = ld->warn_count;
}

static void
update_limits(struct hp_load *ld, const struct hp_load_raw *r)
{
	double extra = LIM_US * (double)ld->conf.hz / 1e6, p = 0, item = 0;
	unsigned int k;

	if (r->hn[0] >= LIM_MIN_N)
		p = (double)r->hcyc[0] / (double)r->hn[0];
	for (k = 0; k < HP_LOAD_HIST; k++) {
		if (r->hn[k] < LIM_MIN_N)
			continue;
		ld->hist[k].lim = (uint64_t)(LIM_MULT * (double)r->hcyc[k] /
					     (double)r->hn[k] + extra);
		if (k >= 1 && k < HP_LOAD_MAX_BATCH)
			item = fmax(item, ((double)r->hcyc[k] / (double)r->hn[k] - p) / k);
	}
	/* untrusted sizes, from the dearest trusted item (the last bucket
	 * has no fixed size: it keeps no limit until it has a mean) */
	if (item > 0)
		for (k = 1; k < HP_LOAD_MAX_BATCH; k++)
			if (r->hn[k] < LIM_MIN_N)
				ld->hist[k].lim = (uint64_t)(LIM_DERIVED_MULT *
							     (p + k * item) + extra);
}

void
hp_load_roll(struct hp_load *ld, uint64_t now)
{
	struct hp_load_raw cur;
	struct hp_load_est e;

	snap_own(ld, &cur);
	if (cur.total_cycles > ld->prev.total_cycles &&
	    hp_load_compute(&ld->prev, &cur, ld->conf.max_batch, ld->conf.hz, &e) == 0) {
		trend(ld, &e);
		rte_seqcount_write_begin(&ld->est_sc);
		ld->est = e;
		ld->windows++;
		rte_seqcount_write_end(&ld->est_sc);
		update_limits(ld, &cur);
		ld->prev = cur;
	}
	ld->next_roll = now + ld->interval_cyc;
}

int
hp_load_last(const struct hp_load *ld, struct hp_load_est *out)
{
	uint32_t sn;
	uint64_t w;

	do {
		sn = rte_seqcount_read_begin(&ld->est_sc);
		*out = ld->est;
		w = ld->windows;
	} while (rte_seqcount_read_retry(&ld->est_sc, sn));
	return w ? 0 : -EAGAIN;
}
