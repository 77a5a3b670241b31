/* SPDX-License-Identifier: BSD-3-Clause
 * load-synth: the synthetic accuracy experiment on real lcores (issue 6),
 * and the cost of the load counters.
 *
 * accuracy: a generator lcore offers items into an rte_ring at a paced
 *   rate; a worker lcore polls the ring in bursts of 32 and spins a known
 *   number of TSC cycles per item, updating lib/load's counters. The true
 *   utilization is rate x cost / hz; the table gives each estimator per
 *   level (the unit test does the same against a simulated clock).
 * cost: the worker loop compiled twice, with and without hp_load_poll(),
 *   run saturated (the ring is refilled by the worker itself) and empty,
 *   alternating variants; items or polls per second, median of the rounds.
 * update: hp_load_poll() alone in a tight loop on made-up timestamps (no
 *   EAL, no rdtsc inside): cycles per call, best of the rounds.
 *
 * --rt: the worker runs SCHED_FIFO (priority 1), like hplane's lcores in
 *   bench/load, so other tenants cannot take its CPU; the kernel's
 *   real-time throttling then stops it ~50 ms a second (it never sleeps),
 *   and the truth is also given over the share of the CPU it can have.
 *
 * accuracy starts with --calib S (0.5) of overload, as hplane calibrates
 *   before a ramp, so the loop has seen full batches.
 *
 * usage: load-synth [accuracy|cost|update] [--cost CYC] [--secs S] [--rt]
 *                   [--calib S] [--rounds N] [--levels 0.1,0.3,...]
 *                   [-- EAL args]
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "hp_load.h"

#define BURST 32
#define RING 4096
#define MAX_LEVELS 32

struct shared {
	struct rte_ring *ring;
	double rate;            /* items per second, 0: generator idle */
	uint64_t cost;          /* spin cycles per item */
	int quit, gen_quit;
	uint64_t offered, dropped;
	uint64_t items;         /* worker: items done (cost mode) */
	uint64_t polls;
	uint64_t cpu_ns;        /* worker: its thread's CPU time (cost mode) */
	int rt;                 /* --rt: the worker asks for SCHED_FIFO */
	int rt_err;             /* errno of that request, 0 if granted */
	struct hp_load ld;
};

static struct shared sh;

static inline void
spin(uint64_t cyc)
{
	uint64_t s = rte_rdtsc();

	while (rte_rdtsc() - s < cyc)
		rte_pause();
}

/* The generator: paced by the TSC, bursts of up to 32. */
static int
gen_main(void *arg)
{
	uint64_t hz = rte_get_tsc_hz(), last = rte_rdtsc(), seq = 1;
	double credit = 0;
	void *objs[BURST];

	RTE_SET_USED(arg);
	while (!__atomic_load_n(&sh.gen_quit, __ATOMIC_ACQUIRE)) {
		uint64_t now = rte_rdtsc();
		double rate;
		unsigned int k, i, sent;

		__atomic_load(&sh.rate, &rate, __ATOMIC_RELAXED);
		credit += rate * (double)(now - last) / (double)hz;
		last = now;
		if (rate <= 0)
			credit = 0;
		if (credit > 4096)
			credit = 4096;
		if (credit < 1) {
			rte_pause();
			continue;
		}
		k = credit < BURST ? (unsigned int)credit : BURST;
		for (i = 0; i < k; i++)
			objs[i] = (void *)(uintptr_t)seq++;
		sent = rte_ring_enqueue_burst(sh.ring, objs, k, NULL);
		credit -= k;
		__atomic_store_n(&sh.offered, sh.offered + k, __ATOMIC_RELAXED);
		__atomic_store_n(&sh.dropped, sh.dropped + k - sent, __ATOMIC_RELAXED);
	}
	return 0;
}

/* CPU time of the calling thread: the cost runs divide by it, so time
 * the thread was preempted (other tenants of a shared machine) is not
 * charged to either variant. */
static uint64_t
thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The measured loop, with or without counters. refill: put items back
 * (saturated cost runs). */
#define WORKER(NAME, COUNT)						\
static int								\
NAME(void *arg)								\
{									\
	void *objs[BURST];						\
	bool refill = arg != NULL;					\
	uint64_t items = 0, polls = 0, c0 = thread_ns();		\
									\
	if (sh.rt) {							\
		struct sched_param sp = { .sched_priority = 1 };	\
									\
		sh.rt_err = sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0; \
	}								\
	if (COUNT)							\
		hp_load_start(&sh.ld, rte_rdtsc());			\
	while (!__atomic_load_n(&sh.quit, __ATOMIC_ACQUIRE)) {		\
		uint64_t t0 = rte_rdtsc(), t1;				\
		unsigned int n, i;					\
									\
		n = rte_ring_dequeue_burst(sh.ring, objs, BURST, NULL);	\
		polls++;						\
		if (n == 0) {						\
			if (COUNT)					\
				hp_load_poll(&sh.ld, t0, rte_rdtsc(), 0); \
			rte_pause();					\
			continue;					\
		}							\
		for (i = 0; i < n; i++)					\
			spin(sh.cost);					\
		if (refill)						\
			rte_ring_enqueue_burst(sh.ring, objs, n, NULL);	\
		items += n;						\
		t1 = rte_rdtsc();					\
		if (COUNT)						\
			hp_load_poll(&sh.ld, t0, t1, n);		\
	}								\
	sh.items = items;						\
	sh.polls = polls;						\
	sh.cpu_ns = thread_ns() - c0;					\
	return 0;							\
}
WORKER(worker_count, 1)
WORKER(worker_plain, 0)

static int
parse_levels(const char *s, double *lv, unsigned int *n)
{
	char *end;

	*n = 0;
	while (*s && *n < MAX_LEVELS) {
		double v = strtod(s, &end);

		if (end == s || !(v > 0 && v < 1.5))
			return -EINVAL;
		lv[(*n)++] = v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -EINVAL;
	}
	return *n ? 0 : -EINVAL;
}

static int
accuracy(unsigned int wl, unsigned int gl, const double *lv, unsigned int nl,
	 double secs, double calib)
{
	uint64_t hz = rte_get_tsc_hz();
	struct hp_load_conf c = { .name = "synth", .max_batch = BURST, .hz = hz };
	unsigned int i, used = 0;
	double mae_b = 0, mae_c = 0, max_b = 0, max_c = 0, cap = 1;

	if (hp_load_init(&sh.ld, &c) < 0)
		return -EINVAL;
	sh.quit = sh.gen_quit = 0;
	rte_eal_remote_launch(gen_main, NULL, gl);
	rte_eal_remote_launch(worker_count, NULL, wl);
	usleep(100000); /* the worker has started (and asked for its class) */
	if (sh.rt && sh.rt_err == 0)
		cap = hp_load_cpu_max(__atomic_load_n(&sh.ld.tid, __ATOMIC_RELAXED));
	printf("accuracy: %" PRIu64 " cycles per item, hz %" PRIu64 ", %.1f s per level, worker %s\n",
	       sh.cost, hz, secs, !sh.rt ? "in the normal class" :
	       sh.rt_err ? "in the normal class (SCHED_FIFO refused)" : "SCHED_FIFO");
	if (cap < 1)
		printf("  the worker can have %.0f %% of the CPU (the kernel's real-time share): "
		       "'true' is the work over that, '(wall)' over the whole CPU\n", cap * 100);
	if (calib > 0) {
		/* a saturated spell first, as hplane calibrates before a ramp:
		 * the loop learns what an item costs in full batches */
		double over = 2.0 * (double)hz / (double)sh.cost, zero = 0;

		__atomic_store(&sh.rate, &over, __ATOMIC_RELAXED);
		usleep((useconds_t)(calib * 1e6));
		__atomic_store(&sh.rate, &zero, __ATOMIC_RELAXED);
		usleep(100000); /* the ring drains */
		printf("  calibration: %.1f s offered at twice the worker's capacity\n", calib);
	}
	printf("  %6s %7s %9s %9s | %8s %8s %8s | %7s %6s %8s\n", "true", "(wall)", "offered",
	       "dropped", "(a)", "(b)", "(c)", "stolen", "batch", "cyc/item");
	for (i = 0; i < nl; i++) {
		struct hp_load_raw a, b;
		struct hp_load_est e;
		uint64_t off0, drop0;
		double truth, rate = lv[i] * (double)hz / (double)sh.cost;

		__atomic_store(&sh.rate, &rate, __ATOMIC_RELAXED);
		usleep(300000); /* settle */
		hp_load_read(&sh.ld, &a);
		off0 = __atomic_load_n(&sh.offered, __ATOMIC_RELAXED);
		drop0 = __atomic_load_n(&sh.dropped, __ATOMIC_RELAXED);
		usleep((useconds_t)(secs * 1e6));
		hp_load_read(&sh.ld, &b);
		if (b.total_cycles == a.total_cycles ||
		    __atomic_load_n(&sh.offered, __ATOMIC_RELAXED) == off0) {
			printf("  level %.0f%%: no iteration or no item in the window (lcores starved), left out\n",
			       lv[i] * 100);
			continue;
		}
		hp_load_compute(&a, &b, BURST, hz, &e);
		/* truth from what entered the ring in the window (offered less
		 * dropped: the work there was), not the target */
		truth = (double)(__atomic_load_n(&sh.offered, __ATOMIC_RELAXED) - off0 -
				 (__atomic_load_n(&sh.dropped, __ATOMIC_RELAXED) - drop0)) *
			(double)sh.cost / (double)(b.total_cycles - a.total_cycles) / cap;
		printf("  %5.1f%% %6.1f%% %9.0f %9" PRIu64 " | %7.1f%% %7.1f%% %7.1f%% | %6.1f%% %6.2f %8.0f\n",
		       truth * 100, truth * cap * 100, e.pps,
		       __atomic_load_n(&sh.dropped, __ATOMIC_RELAXED) - drop0,
		       e.polls * 100, e.busy * 100, e.load * 100, e.stolen * 100,
		       e.mean_batch, e.cycles_per_pkt);
		used++;
		mae_b += fabs(e.busy - truth);
		mae_c += fabs(e.load - truth);
		max_b = fmax(max_b, fabs(e.busy - truth));
		max_c = fmax(max_c, fabs(e.load - truth));
	}
	if (used)
		printf("  (b) busy: mean |error| %.1f points, max %.1f; (c) load: mean %.1f, max %.1f (%u levels)\n",
		       mae_b * 100 / used, max_b * 100, mae_c * 100 / used, max_c * 100, used);
	__atomic_store_n(&sh.quit, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&sh.gen_quit, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	return 0;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One timed run of a variant: items per second (saturated) or polls per
 * second (empty ring). */
static double
cost_run(unsigned int wl, lcore_function_t *fn, bool saturated, double secs)
{
	struct hp_load_conf c = { .name = "cost", .max_batch = BURST };
	void *objs[RING];
	unsigned int i, n;

	hp_load_init(&sh.ld, &c);
	rte_ring_reset(sh.ring);
	if (saturated) {
		for (i = 0; i < RING - 1; i++)
			objs[i] = (void *)(uintptr_t)(i + 1);
		n = rte_ring_enqueue_burst(sh.ring, objs, RING - 1, NULL);
		RTE_SET_USED(n);
	}
	sh.quit = 0;
	rte_eal_remote_launch(fn, saturated ? (void *)1 : NULL, wl);
	usleep((useconds_t)(secs * 1e6));
	__atomic_store_n(&sh.quit, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(wl);
	/* per second of the worker's own CPU time */
	return sh.cpu_ns ? (double)(saturated ? sh.items : sh.polls) * 1e9 / (double)sh.cpu_ns : 0;
}

static void
cost(unsigned int wl, double secs, unsigned int rounds)
{
	static const uint64_t costs[] = { 0, 200, 2000 };
	unsigned int k, r;

	printf("cost of the counters: worker loop with vs without hp_load_poll(), %u alternating rounds of %.1f s, medians, per second of the worker thread's CPU time\n",
	       rounds, secs);
	printf("  %-22s %14s %14s %9s\n", "case", "with", "without", "cost");
	for (k = 0; k <= sizeof(costs) / sizeof(costs[0]); k++) {
		double with[64], without[64], mw, mo;
		bool sat = k < sizeof(costs) / sizeof(costs[0]);
		char name[64];

		sh.cost = sat ? costs[k] : 0;
		for (r = 0; r < rounds; r++) {
			/* alternate which variant goes first */
			if (r & 1) {
				without[r] = cost_run(wl, worker_plain, sat, secs);
				with[r] = cost_run(wl, worker_count, sat, secs);
			} else {
				with[r] = cost_run(wl, worker_count, sat, secs);
				without[r] = cost_run(wl, worker_plain, sat, secs);
			}
		}
		qsort(with, rounds, sizeof(double), cmp_dbl);
		qsort(without, rounds, sizeof(double), cmp_dbl);
		mw = with[rounds / 2];
		mo = without[rounds / 2];
		if (sat)
			snprintf(name, sizeof(name), "saturated, %" PRIu64 " cyc/item", costs[k]);
		else
			snprintf(name, sizeof(name), "empty ring (polls/s)");
		printf("  %-22s %12.0f/s %12.0f/s %8.2f%%   (%.1f cycles per %s)\n", name, mw, mo,
		       100 * (mo - mw) / mo,
		       (double)rte_get_tsc_hz() / mw - (double)rte_get_tsc_hz() / mo,
		       sat ? "item" : "poll");
	}
}

/* The update alone: what one hp_load_poll() costs, without the loop's own
 * TSC reads (timestamps are made up, batch sizes vary 0..31). */
static int
update_cost(unsigned int rounds)
{
	static struct hp_load ld;
	struct hp_load_conf c = { .name = "update", .max_batch = BURST, .hz = 2000000000ULL };
	const uint64_t n = 50000000;
	double best = 1e9, base = 1e9;
	unsigned int r;
	uint64_t i, t = 0;

	if (hp_load_init(&ld, &c) < 0)
		return -EINVAL;
	hp_load_start(&ld, 0);
	for (r = 0; r < rounds; r++) {
		uint64_t s = rte_rdtsc();

		for (i = 0; i < n; i++) {
			unsigned int k = (unsigned int)(i * 7) & 31;

			hp_load_poll(&ld, t, t + 100 + k, k);
			t += 150;
			__asm__ volatile("" ::: "memory");
		}
		best = fmin(best, (double)(rte_rdtsc() - s) / (double)n);
		s = rte_rdtsc();
		for (i = 0; i < n; i++) {
			t += 150 + ((i * 7) & 31);
			__asm__ volatile("" ::: "memory");
		}
		base = fmin(base, (double)(rte_rdtsc() - s) / (double)n);
	}
	printf("update: hp_load_poll() costs %.1f TSC cycles per call (the empty loop around it %.1f), best of %u rounds of %" PRIu64 " calls\n",
	       best - base, base, rounds, n);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *mode = "accuracy", *levels = "0.1,0.3,0.5,0.7,0.9";
	char *eargv[16], lc[64], prefix[64];
	int eargc = 0, i, split = argc;
	double lv[MAX_LEVELS], secs = 1.0, calib = 0.5;
	unsigned int nl, rounds = 5, wl, gl;

	sh.cost = 2000;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			split = i;
			break;
		}
		if (!strcmp(argv[i], "accuracy") || !strcmp(argv[i], "cost") ||
		    !strcmp(argv[i], "update"))
			mode = argv[i];
		else if (!strcmp(argv[i], "--cost") && i + 1 < argc)
			sh.cost = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--secs") && i + 1 < argc)
			secs = atof(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--levels") && i + 1 < argc)
			levels = argv[++i];
		else if (!strcmp(argv[i], "--rt"))
			sh.rt = 1;
		else if (!strcmp(argv[i], "--calib") && i + 1 < argc)
			calib = atof(argv[++i]);
		else {
			fprintf(stderr, "load-synth: bad argument '%s' (accuracy|cost|update, --cost, --secs, --calib, --rounds, --levels, --rt)\n",
				argv[i]);
			return 2;
		}
	}
	if (parse_levels(levels, lv, &nl) < 0 || !(secs >= 0.1 && secs <= 60) ||
	    !(calib >= 0 && calib <= 10) ||
	    rounds < 1 || rounds > 64 || sh.cost == 0 || sh.cost > 10000000) {
		fprintf(stderr, "load-synth: bad --levels, --secs (0.1..60), --calib (0..10), --rounds (1..64) or --cost\n");
		return 2;
	}
	if (!strcmp(mode, "update"))
		return update_cost(rounds) < 0 ? 1 : 0;
	eargv[eargc++] = argv[0];
	if (split < argc) {
		for (i = split + 1; i < argc && eargc < 15; i++)
			eargv[eargc++] = argv[i];
	} else {
		/* main and generator share CPU 0; the worker has CPU 1 */
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(lc, sizeof(lc), "--lcores=0@0,1@0,2@%d", ncpu > 1 ? 1 : 0);
		snprintf(prefix, sizeof(prefix), "--file-prefix=loadsynth%d", (int)getpid());
		eargv[eargc++] = (char *)"--no-huge";
		eargv[eargc++] = (char *)"--no-pci";
		eargv[eargc++] = (char *)"-m";
		eargv[eargc++] = (char *)"128";
		eargv[eargc++] = (char *)"--no-shconf";
		eargv[eargc++] = (char *)"--no-telemetry";
		eargv[eargc++] = (char *)"--log-level=lib.eal:error";
		eargv[eargc++] = prefix;
		eargv[eargc++] = lc;
	}
	eargv[eargc] = NULL;
	if (rte_eal_init(eargc, eargv) < 0) {
		fprintf(stderr, "load-synth: EAL initialisation failed\n");
		return 2;
	}
	gl = rte_get_next_lcore(-1, 1, 0);
	wl = rte_get_next_lcore(gl, 1, 0);
	if (gl >= RTE_MAX_LCORE || wl >= RTE_MAX_LCORE) {
		fprintf(stderr, "load-synth: needs 3 lcores (main, generator, worker)\n");
		rte_eal_cleanup();
		return 2;
	}
	sh.ring = rte_ring_create("synth", RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (sh.ring == NULL) {
		fprintf(stderr, "load-synth: cannot create the ring\n");
		rte_eal_cleanup();
		return 1;
	}
	if (!hp_load_enabled())
		printf("note: built with -Dload_counters=false: the counters are compiled out\n");
	if (!strcmp(mode, "accuracy"))
		accuracy(wl, gl, lv, nl, secs, calib);
	else
		cost(wl, secs, rounds);
	rte_ring_free(sh.ring);
	rte_eal_cleanup();
	return 0;
}
