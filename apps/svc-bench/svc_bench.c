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

/* the stalls each service lcore notes in its deadline calls */
struct sb_lc sb_lc[RTE_MAX_LCORE];
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
sleep_cycles(uint64_t c)
{
	uint64_t ns = c * 1000000000ull / rte_get_tsc_hz();
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* The balancing policy from the options (hz: cycles per second). */
static void
make_policy(const struct sb_opts *o, double hz, struct hp_svc_policy *p)
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
make_services(const struct sb_opts *o, uint64_t t_end)
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
free_services(const struct sb_opts *o)
{
	unsigned int s;

	for (s = 0; s < o->services; s++) {
		free(sb.svcs[s].rec);
		sb.svcs[s].rec = NULL;
	}
	free(sb.lsamples);
	sb.lsamples = NULL;
}


/* The same run on modeled dedicated cores: no EAL, virtual time. */
static int
run_model(const struct sb_opts *o)
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
	sb_print_header(&sb, o);
	ret = sb_model_run(&sb, &m, &res);
	if (ret < 0) {
		fprintf(stderr, "svc-bench: model: %s\n", strerror(-ret));
		free_services(o);
		return 1;
	}
	sb_print_summary(&sb, o, &res);
	ret = sb_write_outputs(&sb, o, &res);
	free_services(o);
	return ret < 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	struct sb_opts o = {
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
	ret = sb_parse_opts(&o, split, argv);
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
		ret = sb_run_overhead(lcore_ids[0], o.duration);
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
	sb_print_header(&sb, &o);
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
	sb_print_summary(&sb, &o, &res);
	ret = sb_write_outputs(&sb, &o, &res);
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
