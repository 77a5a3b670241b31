/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench: the service-core test applications of Blazevic & Jansson
 * (§4.3) on heteroplane's balancer (lib/svc).
 *
 *   deadline  each service has a next job deadline; a job of --work-us is
 *             due every work/load seconds (plus uniform jitter), the load
 *             following a per-service profile (constant, ramp, tide). The
 *             delay of a job is start - deadline (thesis §4.5).
 *   token     leaky buckets: tokens accrue at load/--token-cycles per
 *             cycle; a service withdraws --bucket tokens once that many
 *             are there and spins one --token-cycles per token (thesis
 *             §4.3.1).
 *   overhead  runner loop cost of an idle service, bare rte_service vs
 *             through hp_svc (trampoline + sentinels), for the cost note.
 *
 * Per-run CSV: one row per job (deadline,start,delay,service,core, TSC
 * cycles relative to the run start), per-period lcore loads, balancer
 * events, and a JSON summary.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "hp_common.h"
#include "hp_svc.h"
#include "svc_bench.h"

/* The model's costs, from 'svc-bench overhead' on this project's 2.3 GHz
 * VM, which times the runner's loop with 1 and with 3 idle services: the
 * loop's own part is nil within the noise (-4..0 cycles), everything is
 * per service visited: 15 bare and MT-safe, 51 bare and MT-unsafe (the
 * execute lock), 130 through hp_svc (lock + trampoline). The model takes
 * 0 per loop and 130 per call (the deadline service's own idle check, an
 * rdtsc, is not in the 130). An earlier one-service measurement was read
 * as 47 a loop + 96 a call: same total, wrong split.
 */
#define MODEL_LOOP_CYCLES 0
#define MODEL_CALL_CYCLES 130

enum mode { M_DEADLINE, M_TOKEN, M_OVERHEAD };

struct opts {
	enum mode mode;
	unsigned int services, cores;
	int map[SB_MAX_SVC];
	struct sb_profile prof[SB_MAX_SVC];
	unsigned int n_prof;
	int balance;		/* 0 off, 1 load, 2 delay */
	bool scale_down;
	double threshold, sd_threshold, delay_target_us, sd_max_delay;
	enum hp_svc_sd_measure sd_measure;
	unsigned int period_us, interval_us, sustain, cooldown, migrate_timeout_us;
	bool model;		/* dedicated cores modeled in virtual time */
	bool rt;		/* lcores SCHED_FIFO 1, control side 2, for the run */
	double model_ghz;
	uint64_t model_call_cycles, model_loop_cycles;
	double duration, jitter;
	double work_us[SB_MAX_SVC];	/* job size per service */
	unsigned int n_work;
	uint64_t token_cycles, bucket, seed, max_records;
	const char *csv, *loads_csv, *events_csv, *json;
};

static struct sb_run sb;

/* CPU time the service lcores' threads got: on a shared machine a polling
 * thread does not own its CPU, and the delays say little without this.
 * Also the time they were runnable but not running (schedstat field 2):
 * with --rt that is what higher priorities and the kernel's real-time
 * throttling took.
 */
static pid_t lcore_tid[HP_SVC_MAX_LCORES];
static uint64_t run_ns0[HP_SVC_MAX_LCORES], run_ns1[HP_SVC_MAX_LCORES];
static uint64_t wait_ns0[HP_SVC_MAX_LCORES], wait_ns1[HP_SVC_MAX_LCORES];

/* Stalls: spells of more than SB_STALL_US in which a service lcore called
 * no deadline service at all (its runner visits one at least every job,
 * and jobs are at most a few tens of us), i.e. its thread did not run.
 * Written by the lcore itself; read after the run.
 */
#define SB_STALL_US 1000
#define SB_MAX_STALLS 256
struct sb_lc {
	uint64_t last;			/* TSC of its last deadline call's end */
	unsigned int n;
	uint64_t from[SB_MAX_STALLS], to[SB_MAX_STALLS];
} __rte_cache_aligned;
static struct sb_lc sb_lc[RTE_MAX_LCORE];
static uint64_t stall_cycles;

static int
note_tid(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return 0;
}

/* Nanoseconds the thread has run on a CPU and waited on a run queue
 * (/proc schedstat, fields 1 and 2).
 */
static void
thread_ns(pid_t tid, uint64_t *run, uint64_t *wait)
{
	char path[64];
	unsigned long long r = 0, w = 0;
	FILE *f;

	*run = *wait = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	f = fopen(path, "r");
	if (f == NULL)
		return;
	if (fscanf(f, "%llu %llu", &r, &w) == 2) {
		*run = r;
		*wait = w;
	}
	fclose(f);
}

/* --rt: SCHED_FIFO at prio for the calling thread (0: back to normal). */
static int
set_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static int
lcore_set_fifo(void *arg)
{
	return set_fifo((int)(uintptr_t)arg);
}

/* Run on every service lcore (they wait for work): SCHED_FIFO prio or
 * normal; 0 or the first error.
 */
static int
lcores_fifo(const unsigned int *ids, unsigned int n, int prio)
{
	unsigned int i;
	int ret = 0, r;

	for (i = 0; i < n; i++) {
		if (rte_eal_remote_launch(lcore_set_fifo, (void *)(uintptr_t)prio, ids[i]) != 0)
			return -EBUSY;
		r = rte_eal_wait_lcore(ids[i]);
		if (r != 0 && ret == 0)
			ret = r;
	}
	return ret;
}

static inline void
note_call(uint64_t now)
{
	struct sb_lc *l = &sb_lc[rte_lcore_id()];

	if (l->last != 0 && now - l->last > stall_cycles && l->n < SB_MAX_STALLS) {
		l->from[l->n] = l->last;
		l->to[l->n] = now;
		l->n++;
	}
}

/* SPEC: "0.4" or "t:v/t:v/..." with t in [0,1] increasing, v in [0,1]. */
static int
parse_profile(const char *s, struct sb_profile *p)
{
	char buf[256], *save = NULL, *tok, *end;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	p->n = 0;
	if (strchr(buf, ':') == NULL) {
		p->v[0] = strtod(buf, &end);
		if (*end || end == buf || !(p->v[0] >= 0 && p->v[0] <= 1))
			return -1;
		p->t[0] = 0;
		p->n = 1;
		return 0;
	}
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (p->n == SB_MAX_PTS)
			return -1;
		p->t[p->n] = strtod(tok, &end);
		if (*end != ':' || end == tok)
			return -1;
		tok = end + 1;
		p->v[p->n] = strtod(tok, &end);
		if (*end || end == tok || !(p->v[p->n] >= 0 && p->v[p->n] <= 1) ||
		    !(p->t[p->n] >= 0 && p->t[p->n] <= 1) ||
		    (p->n > 0 && !(p->t[p->n] > p->t[p->n - 1])))
			return -1;
		p->n++;
	}
	return p->n ? 0 : -1;
}

static inline void
spin(uint64_t from, uint64_t cycles)
{
	/* simulated work: the thesis reads the TSC until the job's time is up */
	while (rte_rdtsc() - from < cycles)
		;
}

/* Deadline service: one job per call when due. Idle path: one rdtsc and a
 * compare (~25 cycles).
 */
static int32_t
deadline_fn(void *arg)
{
	struct sb_svc *d = arg;
	uint64_t now = rte_rdtsc();
	struct sb_rec *r;
	uint64_t end;

	note_call(now);
	if (now < d->deadline || now >= d->t_end) {
		sb_lc[rte_lcore_id()].last = now;
		return -EAGAIN;
	}
	hp_svc_job_delay(now - d->deadline);
	r = sb_record(d, d->deadline, now, rte_lcore_id());
	spin(now, d->work);
	end = rte_rdtsc();
	sb_rec_done(r, end - now);
	sb_lc[rte_lcore_id()].last = end;
	d->jobs++;
	sb_next_deadline(d);
	return 0;
}

/* Token service: the bucket fills with time; at the limit, withdraw a
 * bucketful and spin one --token-cycles per token.
 */
static int32_t
token_fn(void *arg)
{
	struct sb_svc *d = arg;
	uint64_t now = rte_rdtsc(), n;
	double x, load, over, wait;

	if (now >= d->t_end || now < d->t0)
		return -EAGAIN;
	x = (double)(now - d->t0) / (double)(d->t_end - d->t0);
	load = sb_profile_at(&d->prof, x);
	d->tokens += load * (double)(now - d->last) / (double)d->work;
	d->last = now;
	if (d->tokens < (double)d->jitter)	/* jitter holds the bucket size */
		return -EAGAIN;
	/* one bucketful per call: calls stay short, so the round robin
	 * interleaves the services, and a backlog shows as tokens piling up
	 * (thesis §6.1.1) instead of one call that runs for milliseconds
	 */
	n = (uint64_t)d->jitter;
	/* the bucket reached its limit 'over' tokens ago */
	over = d->tokens - d->jitter;
	wait = load > 0 ? over * (double)d->work / load : 0.0;
	hp_svc_job_delay((uint64_t)wait);
	sb_record(d, now - (uint64_t)wait, now, rte_lcore_id());
	spin(now, n * d->work);
	d->tokens -= (double)n;
	d->units += n;
	d->jobs++;
	return 0;
}

static void
on_event(const struct hp_svc_event *ev, void *arg)
{
	(void)arg;
	sb_note_event(&sb, ev, ev->service_id < HP_SVC_MAX_SERVICES ?
		      rte_service_get_name(ev->service_id) : "-");
}

static void
on_period(uint64_t tsc, void *arg)
{
	unsigned int i, n = hp_svc_lcore_count();
	struct sb_lsample *ls;

	(void)arg;
	if (sb.n_lsamples == sb.cap_lsamples)
		return;
	ls = &sb.lsamples[sb.n_lsamples++];
	ls->t = (int64_t)(tsc - sb.t0);
	ls->active = 0;
	for (i = 0; i < n; i++) {
		unsigned int lc = hp_svc_lcore_id(i);

		ls->load[i] = (float)hp_svc_lcore_load(lc, HP_SVC_PERIOD);
		if (hp_svc_lcore_active(lc))
			ls->active |= 1u << i;
	}
}

static void
usage(FILE *f)
{
	fprintf(f,
"usage: svc-bench deadline|token|overhead [options] [-- EAL args]\n"
"  --services N          services (1-%d, default 2)\n"
"  --cores N             service lcores (default 2): the first N EAL workers\n"
"  --map LIST            lcore index per service, e.g. 0,0,1 (default all 0)\n"
"  --load SPEC[,SPEC..]  per-service load: 0.4 or t:v/t:v (t in 0..1 of the run)\n"
"  --balance off|load|delay   (default load)\n"
"  --scale-down          consolidate and park cores when all are cold\n"
"  --threshold F         core load that triggers a move (0.70)\n"
"  --scale-down-threshold F   (0.20)\n"
"  --scale-down-max-delay F   predicted extra delay allowed (0.10, <0: none)\n"
"  --scale-down-measure response|wait   ... of the jobs' response time\n"
"                        (wait + service, default) or of their wait alone\n"
"  --delay-target-us F   delay mode: a mean delay above this is hot (1.0)\n"
"  --sustain N --cooldown N   anti-thrashing, in intervals (2, 20)\n"
"  --period-us N --interval-us N   sampling and balancing (250, 5000)\n"
"  --migrate-timeout-us N  give up a migration after (100000)\n"
"  --rt                  for the run only: service lcores SCHED_FIFO 1, the\n"
"                        control side (main lcore, asleep between periods)\n"
"                        SCHED_FIFO 2; runs over ~0.9 s meet the kernel's\n"
"                        real-time throttling (see docs/svc.md)\n"
"  --model               deadline only: run on MODELED dedicated cores in\n"
"                        virtual time (no EAL; the real balancer decisions)\n"
"  --model-ghz F --model-call-cycles N --model-loop-cycles N\n"
"                        the model's TSC and costs (2.3, %d, %d: measured\n"
"                        with 'svc-bench overhead' on this project's VM)\n"
"  --duration S          seconds (default 1)\n"
"  --work-us F[,F..]     deadline job size in us, one or per service (10)\n"
"  --jitter F            deadline jitter, fraction of the gap (default 1.0)\n"
"  --token-cycles N --bucket N   token mode: cycles per token, tokens per\n"
"                        withdrawal (100, 64)\n"
"  --seed N --max-records N\n"
"  --csv FILE            one row per job: deadline,start,delay,service,core\n"
"  --loads-csv FILE      per period: t,lcore,load,active\n"
"  --events-csv FILE     balancer actions\n"
"  --json FILE           summary\n"
"Without EAL args: --no-huge --no-pci --no-shconf -m 256 and --lcores with\n"
"main on CPU 0 and service lcores on CPUs 1, 0, 1, ...\n", SB_MAX_SVC,
	MODEL_CALL_CYCLES, MODEL_LOOP_CYCLES);
}

static int
parse_u(const char *s, uint64_t *v, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

static int
parse_d(const char *s, double *v, double lo, double hi)
{
	char *end;

	*v = strtod(s, &end);
	return (*end || end == s || !(*v >= lo && *v <= hi)) ? -1 : 0;
}

/* One item of a comma-separated per-service list: 0 or -1. */
typedef int (*list_item_fn)(const char *s, struct opts *o, unsigned int i);

static int
one_map(const char *s, struct opts *o, unsigned int i)
{
	uint64_t u;

	if (parse_u(s, &u, 0, HP_SVC_MAX_LCORES - 1) < 0)
		return -1;
	o->map[i] = (int)u;
	return 0;
}

static int
one_profile(const char *s, struct opts *o, unsigned int i)
{
	return parse_profile(s, &o->prof[i]);
}

static int
one_work(const char *s, struct opts *o, unsigned int i)
{
	return parse_d(s, &o->work_us[i], 0.1, 100000);
}

/* "a,b,c": at most SB_MAX_SVC items, each through fn; *n = their count. */
static int
parse_list(const char *a, list_item_fn fn, struct opts *o, unsigned int *n)
{
	char buf[1024], *save = NULL, *t;
	unsigned int i = 0;

	if (strlen(a) >= sizeof(buf) || a[0] == ',' || strstr(a, ",,") != NULL ||
	    (a[0] != '\0' && a[strlen(a) - 1] == ','))
		return -1;	/* an empty item */
	strcpy(buf, a);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), i++)
		if (i >= SB_MAX_SVC || fn(t, o, i) < 0)
			return -1;
	*n = i;
	return i ? 0 : -1;
}

enum {
	O_SERVICES = 256, O_CORES, O_MAP, O_LOAD, O_BALANCE, O_SD, O_THR, O_SDTHR,
	O_SDMAX, O_SDMEAS, O_DTARGET, O_SUSTAIN, O_COOLDOWN, O_PERIOD, O_INTERVAL, O_DUR,
	O_WORK, O_JITTER, O_TOKC, O_BUCKET, O_SEED, O_MAXREC, O_CSV, O_LCSV,
	O_ECSV, O_JSON, O_MIGTO, O_MODEL, O_MGHZ, O_MCALL, O_MLOOP, O_RT,
};

static int
parse_opts(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "services", 1, NULL, O_SERVICES }, { "cores", 1, NULL, O_CORES },
		{ "map", 1, NULL, O_MAP }, { "load", 1, NULL, O_LOAD },
		{ "balance", 1, NULL, O_BALANCE }, { "scale-down", 0, NULL, O_SD },
		{ "threshold", 1, NULL, O_THR },
		{ "scale-down-threshold", 1, NULL, O_SDTHR },
		{ "scale-down-max-delay", 1, NULL, O_SDMAX },
		{ "scale-down-measure", 1, NULL, O_SDMEAS },
		{ "delay-target-us", 1, NULL, O_DTARGET },
		{ "sustain", 1, NULL, O_SUSTAIN }, { "cooldown", 1, NULL, O_COOLDOWN },
		{ "period-us", 1, NULL, O_PERIOD }, { "interval-us", 1, NULL, O_INTERVAL },
		{ "duration", 1, NULL, O_DUR }, { "work-us", 1, NULL, O_WORK },
		{ "jitter", 1, NULL, O_JITTER }, { "token-cycles", 1, NULL, O_TOKC },
		{ "bucket", 1, NULL, O_BUCKET }, { "seed", 1, NULL, O_SEED },
		{ "max-records", 1, NULL, O_MAXREC }, { "csv", 1, NULL, O_CSV },
		{ "loads-csv", 1, NULL, O_LCSV }, { "events-csv", 1, NULL, O_ECSV },
		{ "json", 1, NULL, O_JSON }, { "migrate-timeout-us", 1, NULL, O_MIGTO },
		{ "model", 0, NULL, O_MODEL }, { "model-ghz", 1, NULL, O_MGHZ },
		{ "model-call-cycles", 1, NULL, O_MCALL },
		{ "model-loop-cycles", 1, NULL, O_MLOOP },
		{ "rt", 0, NULL, O_RT },
		{ "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode;
	uint64_t u;
	int opt, bad, li = 0;
	unsigned int i, n;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? -1 : 1;
	}
	mode = argv[1];
	if (strcmp(mode, "deadline") == 0)
		o->mode = M_DEADLINE;
	else if (strcmp(mode, "token") == 0)
		o->mode = M_TOKEN;
	else if (strcmp(mode, "overhead") == 0)
		o->mode = M_OVERHEAD;
	else {
		fprintf(stderr, "svc-bench: unknown mode '%s' (deadline, token, overhead)\n", mode);
		return -1;
	}
	optind = 2;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", lo, &li)) != -1) {
		const char *a = optarg;

		bad = 0;
		switch (opt) {
		case O_SERVICES: bad = parse_u(a, &u, 1, SB_MAX_SVC); o->services = u; break;
		case O_CORES: bad = parse_u(a, &u, 1, HP_SVC_MAX_LCORES); o->cores = u; break;
		case O_MAP: bad = parse_list(a, one_map, o, &n); break;
		case O_LOAD: bad = parse_list(a, one_profile, o, &o->n_prof); break;
		case O_BALANCE:
			if (strcmp(a, "off") == 0)
				o->balance = 0;
			else if (strcmp(a, "load") == 0)
				o->balance = 1;
			else if (strcmp(a, "delay") == 0)
				o->balance = 2;
			else
				bad = 1;
			break;
		case O_SD: o->scale_down = true; break;
		case O_THR: bad = parse_d(a, &o->threshold, 0.01, 1.0); break;
		case O_SDTHR: bad = parse_d(a, &o->sd_threshold, 0.0, 0.99); break;
		case O_SDMAX: bad = parse_d(a, &o->sd_max_delay, -1.0, 100.0); break;
		case O_SDMEAS:
			if (strcmp(a, "response") == 0)
				o->sd_measure = HP_SVC_SD_RESPONSE;
			else if (strcmp(a, "wait") == 0)
				o->sd_measure = HP_SVC_SD_WAIT;
			else
				bad = 1;
			break;
		case O_DTARGET: bad = parse_d(a, &o->delay_target_us, 0.0, 1e6); break;
		case O_SUSTAIN: bad = parse_u(a, &u, 1, 1000); o->sustain = u; break;
		case O_COOLDOWN: bad = parse_u(a, &u, 0, 100000); o->cooldown = u; break;
		case O_PERIOD: bad = parse_u(a, &u, 10, 1000000); o->period_us = u; break;
		case O_INTERVAL: bad = parse_u(a, &u, 10, 10000000); o->interval_us = u; break;
		case O_DUR: bad = parse_d(a, &o->duration, 0.01, 600); break;
		case O_WORK: bad = parse_list(a, one_work, o, &o->n_work); break;
		case O_JITTER: bad = parse_d(a, &o->jitter, 0.0, 1.0); break;
		case O_TOKC: bad = parse_u(a, &o->token_cycles, 1, 1000000); break;
		case O_BUCKET: bad = parse_u(a, &o->bucket, 1, 1000000); break;
		case O_SEED: bad = parse_u(a, &o->seed, 0, UINT64_MAX); break;
		case O_MAXREC: bad = parse_u(a, &o->max_records, 1, 100000000); break;
		case O_CSV: o->csv = a; break;
		case O_LCSV: o->loads_csv = a; break;
		case O_ECSV: o->events_csv = a; break;
		case O_JSON: o->json = a; break;
		case O_MIGTO: bad = parse_u(a, &u, 1, 10000000); o->migrate_timeout_us = u; break;
		case O_MODEL: o->model = true; break;
		case O_MGHZ: bad = parse_d(a, &o->model_ghz, 0.1, 10.0); break;
		case O_MCALL: bad = parse_u(a, &o->model_call_cycles, 1, 1000000); break;
		case O_MLOOP: bad = parse_u(a, &o->model_loop_cycles, 0, 1000000); break;
		case O_RT: o->rt = true; break;
		case 'h': usage(stdout); return 1;
		case ':':
			fprintf(stderr, "svc-bench: %s needs a value\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "svc-bench: unknown option %s\n", argv[optind - 1]);
			return -1;
		}
		if (bad) {
			char q[64];

			/* one line whatever the value held */
			fprintf(stderr, "svc-bench: bad value '%s' for --%s\n",
				hp_quote(q, sizeof(q), a, 48), lo[li].name);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "svc-bench: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	for (i = 0; i < o->services; i++)
		if (o->map[i] >= (int)o->cores) {
			fprintf(stderr, "svc-bench: service %u mapped to lcore index %d, "
				"only %u cores\n", i, o->map[i], o->cores);
			return -1;
		}
	if (o->n_work != 1 && o->n_work != o->services) {
		fprintf(stderr, "svc-bench: --work-us gives %u sizes for %u services\n",
			o->n_work, o->services);
		return -1;
	}
	if (o->n_prof != 0 && o->n_prof != 1 && o->n_prof != o->services) {
		fprintf(stderr, "svc-bench: --load gives %u profiles for %u services\n",
			o->n_prof, o->services);
		return -1;
	}
	if (o->interval_us < o->period_us || o->interval_us % o->period_us) {
		fprintf(stderr, "svc-bench: --interval-us must be a multiple of --period-us\n");
		return -1;
	}
	if (o->rt && (o->model || o->mode == M_OVERHEAD)) {
		fprintf(stderr, "svc-bench: --rt is for deadline and token runs on real lcores\n");
		return -1;
	}
	if (o->model && o->mode != M_DEADLINE) {
		fprintf(stderr, "svc-bench: --model runs the deadline application only\n");
		return -1;
	}
	if (o->sd_threshold >= o->threshold) {
		fprintf(stderr, "svc-bench: --scale-down-threshold must be under --threshold\n");
		return -1;
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct sstat {
	uint64_t n, p50, p99, max;
	double mean, sum;
	double resp_mean;	/* response: delay + the job's service time */
	uint64_t stalled_n;	/* jobs whose wait spans a stall of their lcore */
	double stalled_sum;	/* ... and their delays */
};

/* Did the lcore stall while a job waited from deadline to start (both
 * relative to the run start)?
 */
static bool
waited_through_stall(const struct sb_rec *r)
{
	const struct sb_lc *l = &sb_lc[r->lcore];
	unsigned int k;

	for (k = 0; k < l->n; k++)
		if (l->from[k] - sb.t0 < r->start && l->to[k] - sb.t0 > r->deadline)
			return true;
	return false;
}

static void
delay_stats(const struct sb_svc *d, struct sstat *s)
{
	uint64_t *v, i;

	memset(s, 0, sizeof(*s));
	if (d->n_rec == 0)
		return;
	v = malloc(d->n_rec * sizeof(*v));
	if (v == NULL)
		return;
	for (i = 0; i < d->n_rec; i++) {
		v[i] = d->rec[i].start - d->rec[i].deadline;
		s->sum += (double)v[i];
		s->resp_mean += (double)v[i] + (double)d->rec[i].dur;
		if (d->rec[i].lcore < RTE_MAX_LCORE && waited_through_stall(&d->rec[i])) {
			s->stalled_n++;
			s->stalled_sum += (double)v[i];
		}
	}
	s->resp_mean /= (double)d->n_rec;
	qsort(v, d->n_rec, sizeof(*v), cmp_u64);
	s->n = d->n_rec;
	s->mean = s->sum / (double)d->n_rec;
	s->p50 = v[d->n_rec / 2];
	s->p99 = v[(d->n_rec * 99) / 100];
	s->max = v[d->n_rec - 1];
	free(v);
}

/* One row per job: deadline,start,delay,service,core. */
static void
put_jobs(FILE *f, const struct opts *o, const struct sb_result *res)
{
	unsigned int i;
	uint64_t j;

	(void)res;
	fprintf(f, "deadline,start,delay,service,core\n");
	for (i = 0; i < o->services; i++)
		for (j = 0; j < sb.svcs[i].n_rec; j++) {
			const struct sb_rec *r = &sb.svcs[i].rec[j];

			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u\n",
				r->deadline, r->start, r->start - r->deadline, i, r->lcore);
		}
}

/* Per period and service lcore: useful load, active (not parked). */
static void
put_loads(FILE *f, const struct opts *o, const struct sb_result *res)
{
	unsigned int k;
	size_t j;

	(void)o;
	fprintf(f, "t,lcore,load,active\n");
	for (j = 0; j < sb.n_lsamples; j++)
		for (k = 0; k < res->n_lcores; k++)
			fprintf(f, "%" PRId64 ",%u,%.4f,%u\n", sb.lsamples[j].t,
				res->lcore_id[k], sb.lsamples[j].load[k],
				(sb.lsamples[j].active >> k) & 1u);
}

/* The balancer's actions; the reason may hold a comma: quoted. */
static void
put_events(FILE *f, const struct opts *o, const struct sb_result *res)
{
	unsigned int i, k;

	(void)res;
	fprintf(f, "t,action,service,from,to,reason,result,cycles\n");
	for (k = 0; k < sb.n_events; k++) {
		const struct hp_svc_event *e = &sb.events[k];
		int s = -1;

		for (i = 0; i < o->services; i++)
			if (sb.svcs[i].id == e->service_id)
				s = (int)i;
		fprintf(f, "%" PRId64 ",%s,%d,%d,%d,\"%s\",%d,%" PRIu64 "\n",
			(int64_t)(e->tsc - sb.t0), hp_svc_action_name(e->d.action), s,
			e->from_lcore, e->to_lcore, e->d.reason, e->result, e->migrate_cycles);
	}
}

static void
put_json(FILE *f, const struct opts *o, const struct sb_result *res)
{
	unsigned int i, k;

	fprintf(f, "{\n  \"mode\": \"%s\",\n  \"balance\": \"%s\",\n"
		"  \"scale_down\": %s,\n  \"duration_s\": %g,\n  \"tsc_hz\": %.0f,\n"
		"  \"modeled\": %s,\n"
		"  \"cores\": %u,\n  \"mean_active_cores\": %.4f,\n"
		"  \"moves\": %" PRIu64 ",\n  \"move_failures\": %" PRIu64 ",\n",
		o->mode == M_TOKEN ? "token" : "deadline",
		o->balance == 0 ? "off" : o->balance == 1 ? "load" : "delay",
		o->scale_down ? "true" : "false", o->duration, sb.hz,
		res->modeled ? "true" : "false", o->cores,
		res->active_mean, res->moves, res->failures);
	fprintf(f, "  \"rt\": %s,\n  \"lcore_cpu_share\": [", res->rt ? "true" : "false");
	for (k = 0; k < res->n_lcores; k++)
		fprintf(f, "%s%.4f", k ? ", " : "", res->cpu_share[k]);
	fprintf(f, "],\n  \"lcore_wait_share\": [");
	for (k = 0; k < res->n_lcores; k++)
		fprintf(f, "%s%.4f", k ? ", " : "", res->wait_share[k]);
	fprintf(f, "],\n  \"lcore_stalls\": [");
	for (k = 0; k < res->n_lcores; k++)
		fprintf(f, "%s%u", k ? ", " : "", res->modeled ? 0 : sb_lc[res->lcore_id[k]].n);
	fprintf(f, "],\n  \"lcore_stall_s\": [");
	for (k = 0; k < res->n_lcores; k++) {
		const struct sb_lc *l = &sb_lc[res->lcore_id[k]];
		uint64_t t = 0;
		unsigned int j;

		for (j = 0; !res->modeled && j < l->n; j++)
			t += l->to[j] - l->from[j];
		fprintf(f, "%s%.6f", k ? ", " : "", (double)t / sb.hz);
	}
	fprintf(f, "],\n  \"services\": [\n");
	for (i = 0; i < o->services; i++) {
		struct sstat s;

		delay_stats(&sb.svcs[i], &s);
		fprintf(f, "    {\"service\": %u, \"jobs\": %" PRIu64 ", \"units\": %"
			PRIu64 ", \"lost_records\": %" PRIu64 ", \"delay_mean\": %.1f,"
			" \"delay_sum\": %.0f, \"delay_p50\": %" PRIu64 ", \"delay_p99\": %"
			PRIu64 ", \"delay_max\": %" PRIu64 ", \"response_mean\": %.1f,"
			" \"stalled_jobs\": %" PRIu64 ", \"stalled_delay_sum\": %.0f,"
			" \"running\": %u}%s\n",
			i, sb.svcs[i].jobs, sb.svcs[i].units, sb.svcs[i].lost, s.mean, s.sum,
			s.p50, s.p99, s.max, s.resp_mean, s.stalled_n, s.stalled_sum,
			res->running[i],
			i + 1 < o->services ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
}

typedef void (*put_fn)(FILE *f, const struct opts *o, const struct sb_result *res);

static int
write_file(const char *path, put_fn put, const struct opts *o,
	   const struct sb_result *res)
{
	FILE *f;

	if (path == NULL)
		return 0;
	f = fopen(path, "w");
	if (f != NULL) {
		put(f, o, res);
		if (fclose(f) == 0)
			return 0;
	}
	{
		char q[256];

		fprintf(stderr, "svc-bench: cannot write %s: %s\n",
			hp_quote(q, sizeof(q), path, 200), strerror(errno));
	}
	return -1;
}

static int
write_outputs(const struct opts *o, const struct sb_result *res)
{
	if (write_file(o->csv, put_jobs, o, res) < 0 ||
	    write_file(o->loads_csv, put_loads, o, res) < 0 ||
	    write_file(o->events_csv, put_events, o, res) < 0 ||
	    write_file(o->json, put_json, o, res) < 0)
		return -1;
	return 0;
}

static int32_t
bare_idle(void *arg)
{
	(void)arg;
	return -EAGAIN;
}

/* Cycles per runner loop over 10 ms windows; the least preempted window
 * (the minimum) is the loop's cost on a shared CPU.
 */
static double
loop_cycles(unsigned int lcore, double seconds, uint64_t (*loops)(unsigned int))
{
	double best = INFINITY;
	unsigned int w, n = (unsigned int)(seconds * 100) + 1;

	for (w = 0; w < n; w++) {
		uint64_t l0 = loops(lcore), t0 = rte_rdtsc(), l1, t1;

		usleep(10000);
		l1 = loops(lcore);
		t1 = rte_rdtsc();
		if (l1 > l0 && (double)(t1 - t0) / (double)(l1 - l0) < best)
			best = (double)(t1 - t0) / (double)(l1 - l0);
	}
	return best;
}

static uint64_t
bare_loops(unsigned int lcore)
{
	uint64_t v = 0;

	rte_service_lcore_attr_get(lcore, RTE_SERVICE_LCORE_ATTR_LOOPS, &v);
	return v;
}

/* Cycles per runner loop of bare DPDK with n idle services registered
 * and mapped here (MT-safe or not: an MT-unsafe one costs a spinlock
 * trylock/unlock a call), DPDK's statistics on or off.
 */
static int
bare_loop(unsigned int lcore, unsigned int n, bool mt_safe, bool stats,
	  double seconds, double *cyc)
{
	struct rte_service_spec spec = {
		.callback = bare_idle, .socket_id = SOCKET_ID_ANY,
		.capabilities = mt_safe ? RTE_SERVICE_CAP_MT_SAFE : 0,
	};
	uint32_t id[SB_MAX_SVC];
	unsigned int i, k = 0;
	int ret = -1;

	if (rte_service_lcore_add(lcore) < 0)
		return -1;
	for (k = 0; k < n; k++) {
		snprintf(spec.name, sizeof(spec.name), "bare_idle%u", k);
		if (rte_service_component_register(&spec, &id[k]) < 0)
			goto out;
		rte_service_component_runstate_set(id[k], 1);
		rte_service_runstate_set(id[k], 1);
		rte_service_set_stats_enable(id[k], stats);
		rte_service_map_lcore_set(id[k], lcore, 1);
	}
	rte_service_lcore_start(lcore);
	usleep(10000);
	*cyc = loop_cycles(lcore, seconds, bare_loops);
	/* a running service mapped only here would make the stop fail */
	for (i = 0; i < n; i++)
		rte_service_runstate_set(id[i], 0);
	if (rte_service_lcore_stop(lcore) < 0)
		goto out;
	rte_eal_wait_lcore(lcore);
	ret = 0;
out:
	for (i = 0; i < k; i++) {
		rte_service_map_lcore_set(id[i], lcore, 0);
		rte_service_component_unregister(id[i]);
	}
	rte_service_lcore_del(lcore);
	return ret;
}

/* The runner's cost split into a part per loop and a part per service
 * visited (from the loop with 1 and with 3 idle services), bare DPDK and
 * through hp_svc. That split is what decides whether consolidation can be
 * cheap at low load: a job waits half a loop for the runner to come round
 * to its service, and merging k services onto one lcore adds (k - 1) per-
 * service parts to a loop that has one per-loop part (docs/svc.md).
 */
static int
run_overhead(unsigned int lcore, double seconds)
{
	static const struct {
		const char *what;
		bool mt_safe, stats;
	} v[] = {
		{ "bare rte_service, MT-unsafe (spinlock a call)", false, false },
		{ "bare rte_service, MT-safe (no lock)", true, false },
		{ "bare rte_service, MT-unsafe, DPDK's stats on", false, true },
	};
	struct hp_svc_conf c;
	double one, three, per;
	uint32_t id[3];
	unsigned int i;

	printf("runner loop of idle services (cycles; best 10 ms window of %.1f s:\n"
	       "the least preempted on a shared CPU)\n"
	       "%-48s %8s %8s %9s %9s\n", seconds, "", "1 svc", "3 svcs",
	       "per svc", "per loop");
	for (i = 0; i < RTE_DIM(v); i++) {
		if (bare_loop(lcore, 1, v[i].mt_safe, v[i].stats, seconds, &one) < 0 ||
		    bare_loop(lcore, 3, v[i].mt_safe, v[i].stats, seconds, &three) < 0)
			return -1;
		per = (three - one) / 2;
		printf("%-48s %8.1f %8.1f %9.1f %9.1f\n", v[i].what, one, three, per,
		       one - per);
	}
	hp_svc_conf_default(&c);
	c.balance = false;
	if (hp_svc_init(&c) < 0 || hp_svc_lcore_add(lcore) < 0)
		return -1;
	for (i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "hp_idle%u", i);
		if (hp_svc_register(name, bare_idle, NULL, 0, &id[i]) < 0)
			return -1;
	}
	if (hp_svc_map(id[0], lcore, true) < 0 || hp_svc_start() < 0)
		return -1;
	usleep(10000);
	one = loop_cycles(lcore, seconds, hp_svc_lcore_loops);
	if (hp_svc_map(id[1], lcore, true) < 0 || hp_svc_map(id[2], lcore, true) < 0)
		return -1;
	usleep(10000);
	three = loop_cycles(lcore, seconds, hp_svc_lcore_loops);
	hp_svc_fini();
	per = (three - one) / 2;
	printf("%-48s %8.1f %8.1f %9.1f %9.1f\n", "through hp_svc (MT-unsafe + trampoline)",
	       one, three, per, one - per);
	return 0;
}

static void
sleep_cycles(uint64_t c)
{
	uint64_t ns = c * 1000000000ull / rte_get_tsc_hz();
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* The balancing policy from the options (hz: cycles per second). */
static void
make_policy(const struct opts *o, double hz, struct hp_svc_policy *p)
{
	hp_svc_policy_default(p);
	p->mode = o->balance == 2 ? HP_SVC_MODE_DELAY : HP_SVC_MODE_LOAD;
	p->threshold = o->threshold;
	p->scale_down = o->scale_down;
	p->scale_down_threshold = o->sd_threshold;
	p->scale_down_max_delay = o->sd_max_delay;
	p->scale_down_measure = o->sd_measure;
	p->delay_target = o->delay_target_us * hz / 1e6;
	p->sustain = o->sustain;
	p->cooldown = o->cooldown;
	if (p->cooldown_max < p->cooldown)
		p->cooldown_max = p->cooldown;
	if (p->hysteresis >= p->threshold)
		p->hysteresis = p->threshold / 2;
}

/* The services' state and record buffers for a run from sb.t0. */
static int
make_services(const struct opts *o, uint64_t t_end)
{
	unsigned int s;

	sb.cap_lsamples = (size_t)(o->duration * 1e6 / o->period_us) + 1000;
	sb.lsamples = calloc(sb.cap_lsamples, sizeof(*sb.lsamples));
	if (sb.lsamples == NULL)
		return -ENOMEM;
	for (s = 0; s < o->services; s++) {
		struct sb_svc *d = &sb.svcs[s];

		memset(d, 0, sizeof(*d));
		d->idx = s;
		d->run = &sb;
		d->prof = o->n_prof == 0 ? (struct sb_profile){ .n = 1, .v = { 0.3 } } :
			  o->prof[o->n_prof == 1 ? 0 : s];
		d->t0 = sb.t0;
		d->t_end = t_end;
		d->rng = o->seed * 0x9E3779B97F4A7C15ull + s + 1;
		d->cap = o->max_records / o->services;
		d->rec = malloc(d->cap * sizeof(*d->rec));
		if (d->rec == NULL)
			return -ENOMEM;
		snprintf(d->name, sizeof(d->name), "%s%u",
			 o->mode == M_TOKEN ? "tok" : "dl", s);
		if (o->mode == M_TOKEN) {
			d->work = o->token_cycles;
			d->jitter = (double)o->bucket;
			d->last = sb.t0;
		} else {
			double l0 = sb_profile_at(&d->prof, 0.0);

			d->work = (uint64_t)(o->work_us[o->n_work == 1 ? 0 : s] * sb.hz / 1e6);
			d->jitter = o->jitter;
			/* random phase so the services do not start in step */
			d->nominal = sb.t0 + (uint64_t)((double)(hp_rand64(&d->rng) % 1000) /
					1000.0 * (l0 > 1e-4 ? (double)d->work / l0 : 0.0));
			sb_next_deadline(d);
		}
	}
	return 0;
}

static void
free_services(const struct opts *o)
{
	unsigned int s;

	for (s = 0; s < o->services; s++) {
		free(sb.svcs[s].rec);
		sb.svcs[s].rec = NULL;
	}
	free(sb.lsamples);
	sb.lsamples = NULL;
}

static void
print_header(const struct opts *o)
{
	printf("svc-bench %s: %u services on %u %sservice lcores, balance %s%s, %.2f s, "
	       "TSC %.3f GHz\n", o->mode == M_TOKEN ? "token" : "deadline", o->services,
	       o->cores, o->model ? "MODELED dedicated " : "",
	       o->balance == 0 ? "off" : o->balance == 1 ? "load" : "delay",
	       o->scale_down ? " + scale-down" : "", o->duration, sb.hz / 1e9);
}

static void
print_summary(const struct opts *o, const struct sb_result *res)
{
	unsigned int s;

	for (s = 0; s < o->services; s++) {
		struct sstat st;

		delay_stats(&sb.svcs[s], &st);
		printf("  service %u (%s): %" PRIu64 " %s, delay mean %.2f us p50 %.2f p99 %.2f "
		       "max %.1f us, response mean %.2f us, on lcore mask 0x%x%s\n", s,
		       sb.svcs[s].name,
		       o->mode == M_TOKEN ? sb.svcs[s].units : sb.svcs[s].jobs,
		       o->mode == M_TOKEN ? "tokens" : "jobs",
		       st.mean * 1e6 / sb.hz, (double)st.p50 * 1e6 / sb.hz,
		       (double)st.p99 * 1e6 / sb.hz, (double)st.max * 1e6 / sb.hz,
		       st.resp_mean * 1e6 / sb.hz,
		       res->running[s], sb.svcs[s].lost ? " (records lost)" : "");
	}
	printf("  actions %" PRIu64 " (failed %" PRIu64 "), mean active service lcores %.2f\n",
	       res->moves, res->failures, res->active_mean);
	if (res->modeled)
		return;
	printf("  CPU time the service lcores got:");
	for (s = 0; s < res->n_lcores; s++)
		printf(" lcore %u %.0f %% (waited %.1f %%, %u stalls)", res->lcore_id[s],
		       100.0 * res->cpu_share[s], 100.0 * res->wait_share[s],
		       sb_lc[res->lcore_id[s]].n);
	printf(" of the run's wall time%s\n", res->rt ? ", SCHED_FIFO" : "");
}

/* The same run on modeled dedicated cores: no EAL, virtual time. */
static int
run_model(const struct opts *o)
{
	struct sb_model m = {
		.services = o->services, .cores = o->cores, .map = o->map,
		.balance = o->balance != 0,
		.call_cycles = o->model_call_cycles, .loop_cycles = o->model_loop_cycles,
	};
	struct sb_result res;
	int ret;

	sb.hz = o->model_ghz * 1e9;
	m.period = (uint64_t)((double)o->period_us * sb.hz / 1e6);
	m.interval = m.period * (o->interval_us / o->period_us);
	make_policy(o, sb.hz, &m.policy);
	sb.t0 = (uint64_t)sb.hz;	/* virtual TSC starts at 1 s */
	ret = make_services(o, sb.t0 + (uint64_t)(o->duration * sb.hz));
	if (ret < 0) {
		fprintf(stderr, "svc-bench: out of memory\n");
		free_services(o);
		return 1;
	}
	print_header(o);
	ret = sb_model_run(&sb, &m, &res);
	if (ret < 0) {
		fprintf(stderr, "svc-bench: model: %s\n", strerror(-ret));
		free_services(o);
		return 1;
	}
	print_summary(o, &res);
	ret = write_outputs(o, &res);
	free_services(o);
	return ret < 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct opts o = {
		.services = 2, .cores = 2, .balance = 1, .threshold = 0.70,
		.sd_threshold = 0.20, .sd_max_delay = 0.10, .delay_target_us = 1.0,
		.period_us = 250, .interval_us = 5000, .sustain = 2, .cooldown = 20,
		.duration = 1.0, .work_us = { 10.0 }, .n_work = 1, .jitter = 1.0,
		.token_cycles = 100,
		.bucket = 64, .seed = 1, .max_records = 4000000,
		.migrate_timeout_us = 100000, .model_ghz = 2.3,
		.model_call_cycles = MODEL_CALL_CYCLES, .model_loop_cycles = MODEL_LOOP_CYCLES,
	};
	char *eal[64], lcores[256];
	int n_eal = 0, split = argc, ret, i, len;
	unsigned int s, lc, lcore_ids[HP_SVC_MAX_LCORES];
	struct hp_svc_conf c;
	struct sb_result res = { .modeled = false };
	uint64_t hz, t_end, now, active_cyc = 0, last;
	double wall_ns;
	bool cpu_noted;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			split = i;
			break;
		}
	ret = parse_opts(&o, split, argv);
	if (ret != 0)
		return ret < 0 ? 2 : 0;
	if (o.model)
		return run_model(&o);
	if (o.mode == M_OVERHEAD)
		o.cores = 1;

	eal[n_eal++] = argv[0];
	if (split + 1 < argc) {
		for (i = split + 1; i < argc && n_eal < 63; i++)
			eal[n_eal++] = argv[i];
	} else {
		len = snprintf(lcores, sizeof(lcores), "--lcores=0@0");
		for (s = 1; s <= o.cores; s++)
			len += snprintf(lcores + len, sizeof(lcores) - (size_t)len,
					",%u@%u", s, s % 2);
		eal[n_eal++] = "--no-huge";
		eal[n_eal++] = "--no-pci";
		eal[n_eal++] = "--no-shconf";
		eal[n_eal++] = "-m";
		eal[n_eal++] = "256";
		eal[n_eal++] = "--log-level=lib.eal:error";
		eal[n_eal++] = lcores;
	}
	eal[n_eal] = NULL;
	if (rte_eal_init(n_eal, eal) < 0) {
		fprintf(stderr, "svc-bench: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 2;
	}
	hz = rte_get_tsc_hz();
	sb.hz = (double)hz;
	lc = rte_get_main_lcore();
	for (s = 0; s < o.cores; s++) {
		lc = rte_get_next_lcore(lc, 1, 0);
		if (lc >= RTE_MAX_LCORE) {
			fprintf(stderr, "svc-bench: %u service lcores asked, EAL has %u workers\n",
				o.cores, s);
			rte_eal_cleanup();
			return 2;
		}
		lcore_ids[s] = lc;
		if (rte_eal_remote_launch(note_tid, &lcore_tid[s], lc) == 0)
			rte_eal_wait_lcore(lc);
	}
	if (o.mode == M_OVERHEAD) {
		ret = run_overhead(lcore_ids[0], o.duration);
		rte_eal_cleanup();
		return ret < 0 ? 1 : 0;
	}

	hp_svc_conf_default(&c);
	c.period_us = o.period_us;
	c.interval_us = o.interval_us;
	c.balance = o.balance != 0;
	c.migrate_timeout_us = o.migrate_timeout_us;
	make_policy(&o, sb.hz, &c.policy);
	ret = hp_svc_init(&c);
	if (ret < 0) {
		fprintf(stderr, "svc-bench: hp_svc_init: %s\n", strerror(-ret));
		goto fail;
	}
	for (s = 0; s < o.cores; s++)
		if ((ret = hp_svc_lcore_add(lcore_ids[s])) < 0) {
			fprintf(stderr, "svc-bench: lcore %u: %s\n", lcore_ids[s], strerror(-ret));
			goto fail;
		}

	sb.t0 = rte_rdtsc() + hz / 50;	/* 20 ms to start the lcores */
	t_end = sb.t0 + (uint64_t)(o.duration * (double)hz);
	if (make_services(&o, t_end) < 0)
		goto nomem;
	for (s = 0; s < o.services; s++) {
		struct sb_svc *d = &sb.svcs[s];

		ret = hp_svc_register(d->name, o.mode == M_TOKEN ? token_fn : deadline_fn,
				      d, 0, &d->id);
		if (ret < 0)
			goto fail;
		ret = hp_svc_map(d->id, lcore_ids[o.map[s]], true);
		if (ret < 0) {
			fprintf(stderr, "svc-bench: mapping service %u: %s\n", s, strerror(-ret));
			goto fail;
		}
	}
	hp_svc_set_event_cb(on_event, NULL);
	hp_svc_set_period_cb(on_period, NULL);
	print_header(&o);
	stall_cycles = hz * SB_STALL_US / 1000000;
	/* --rt: the lcores FIFO 1 before their runners start, the control
	 * side FIFO 2 (it sleeps between periods and preempts a runner for a
	 * tick); as normal threads neither would get a CPU from the other
	 */
	if (o.rt) {
		res.rt = true;	/* the fail path puts them back */
		ret = lcores_fifo(lcore_ids, o.cores, 1);
		if (ret == 0)
			ret = set_fifo(2);
		if (ret != 0) {
			fprintf(stderr, "svc-bench: --rt: cannot make threads SCHED_FIFO: %s\n",
				strerror(ret < 0 ? -ret : ret));
			goto fail;
		}
	}
	ret = hp_svc_start();
	if (ret < 0) {
		fprintf(stderr, "svc-bench: start: %s\n", strerror(-ret));
		goto fail;
	}
	/* the main lcore is the control side: sample, balance, sleep until the
	 * next period is due (one wake-up a period: every wake-up takes a CPU
	 * from a runner)
	 */
	last = rte_rdtsc();
	cpu_noted = false;
	while ((now = rte_rdtsc()) < t_end) {
		uint32_t act = 0;
		uint64_t next;

		if (!cpu_noted && now >= sb.t0) {
			for (s = 0; s < o.cores; s++) {
				thread_ns(lcore_tid[s], &run_ns0[s], &wait_ns0[s]);
				sb_lc[lcore_ids[s]].n = 0;	/* the start-up is no stall */
			}
			cpu_noted = true;
		}
		hp_svc_tick(now);
		for (s = 0; s < o.cores; s++)
			act += hp_svc_lcore_active(lcore_ids[s]);
		if (now > sb.t0)
			active_cyc += act * (now - (last > sb.t0 ? last : sb.t0));
		last = now;
		now = rte_rdtsc();
		next = hp_svc_next_tick();
		if (!cpu_noted && next > sb.t0)
			next = sb.t0;
		if (next > t_end)
			next = t_end;
		if (next > now)
			sleep_cycles(next - now);
	}
	for (s = 0; s < o.cores; s++)
		thread_ns(lcore_tid[s], &run_ns1[s], &wait_ns1[s]);
	hp_svc_stop();
	if (o.rt) {
		/* this thread first: rte_eal_wait_lcore() spins, and at FIFO 2
		 * it would keep the lcore sharing its CPU from ever running
		 */
		set_fifo(0);
		lcores_fifo(lcore_ids, o.cores, 0);
	}
	wall_ns = (double)(rte_rdtsc() - sb.t0) * 1e9 / (double)hz;
	res.active_mean = (double)active_cyc / (double)(t_end - sb.t0);
	res.n_lcores = o.cores;
	for (s = 0; s < o.cores; s++) {
		res.lcore_id[s] = lcore_ids[s];
		res.cpu_share[s] = (double)(run_ns1[s] - run_ns0[s]) / wall_ns;
		res.wait_share[s] = (double)(wait_ns1[s] - wait_ns0[s]) / wall_ns;
	}
	for (s = 0; s < o.services; s++)
		res.running[s] = hp_svc_running(sb.svcs[s].id);
	res.moves = hp_svc_moves();
	res.failures = hp_svc_move_failures();
	print_summary(&o, &res);
	ret = write_outputs(&o, &res);
	hp_svc_fini();
	free_services(&o);
	rte_eal_cleanup();
	return ret < 0 ? 1 : 0;
nomem:
	fprintf(stderr, "svc-bench: out of memory\n");
fail:
	hp_svc_fini();
	if (res.rt) {
		set_fifo(0);
		lcores_fifo(lcore_ids, o.cores, 0);
	}
	free_services(&o);
	rte_eal_cleanup();
	return 1;
}
