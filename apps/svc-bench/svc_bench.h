/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench internals shared by the real runs on service lcores
 * (svc_bench.c) and the dedicated-core model (svc_model.c): the services'
 * load profiles and deadlines, the per-job records and the balancer's
 * events (sb_run.c), with the run's state in one struct sb_run; and the
 * application's parts: its options (sb_opts.c), its outputs (sb_out.c)
 * and the runner-overhead probe (sb_overhead.c).
 */
#ifndef SVC_BENCH_H
#define SVC_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "hp_svc.h"

#define SB_MAX_SVC 8
#define SB_MAX_PTS 16
#define SB_MAX_EVENTS 4096

/* A load profile: piecewise linear over the run's normalised time. */
struct sb_profile {
	unsigned int n;
	double t[SB_MAX_PTS];
	double v[SB_MAX_PTS];
};

struct sb_rec {
	uint64_t deadline;	/* relative to the run start */
	uint64_t start;
	uint32_t lcore;
	uint32_t dur;		/* the job's service time: start to done (cycles,
				 * saturated; 0 where not measured: token) */
};

struct sb_svc {
	uint32_t idx, id;
	char name[32];
	struct sb_profile prof;
	uint64_t t0, t_end, work;
	uint64_t nominal, deadline;
	double jitter;
	uint64_t rng;
	double tokens;
	uint64_t last;
	uint64_t jobs, units;
	struct sb_rec *rec;
	uint64_t n_rec, cap, lost;
	const struct sb_run *run;	/* its run's start and TSC rate */
} __attribute__((aligned(64)));

struct sb_lsample {
	int64_t t;		/* the control side starts before the run */
	float load[HP_SVC_MAX_LCORES];
	uint32_t active;
};

/* What a run leaves for the outputs, from hp_svc or from the model. */
struct sb_result {
	bool modeled;
	unsigned int n_lcores;
	unsigned int lcore_id[HP_SVC_MAX_LCORES];
	double cpu_share[HP_SVC_MAX_LCORES]; /* < 0: not measured */
	double wait_share[HP_SVC_MAX_LCORES]; /* runnable, not running */
	bool rt;			/* lcores ran SCHED_FIFO */
	uint32_t running[SB_MAX_SVC];
	uint64_t moves, failures;
	double active_mean;
};

/* The dedicated-core model's set-up (svc_model.c). */
struct sb_model {
	unsigned int services, cores;
	const int *map;			/* lcore index per service */
	bool balance;
	struct hp_svc_policy policy;
	uint64_t period, interval;	/* cycles */
	uint64_t call_cycles;		/* one service call through the trampoline */
	uint64_t loop_cycles;		/* the runner's own cost per loop */
};

/* One run's shared state: the services, the balancer's events and the
 * load samples, from the real runner (svc_bench.c) or the model
 * (svc_model.c). Passed explicitly so that neither file reaches into the
 * other's globals. */
struct sb_run {
	struct sb_svc svcs[SB_MAX_SVC];
	struct hp_svc_event events[SB_MAX_EVENTS];
	unsigned int n_events;
	uint64_t t0;			/* the run's start (TSC) */
	double hz;
	struct sb_lsample *lsamples;
	size_t n_lsamples, cap_lsamples;
};

double sb_profile_at(const struct sb_profile *p, double x);
void sb_next_deadline(struct sb_svc *d);
/* Returns the record (to set its dur when the job is done), NULL when the
 * buffer is full. */
struct sb_rec *sb_record(struct sb_svc *d, uint64_t deadline, uint64_t start,
			 uint32_t lcore);
void sb_rec_done(struct sb_rec *r, uint64_t cycles);
void sb_note_event(struct sb_run *sb, const struct hp_svc_event *ev,
		   const char *service_name);

/* Runs the deadline services of sb->svcs[] on modeled dedicated cores
 * from sb->t0 to their t_end, balanced by hp_svc_decide; fills *res.
 */
int sb_model_run(struct sb_run *sb, const struct sb_model *m, struct sb_result *res);

/* ---- the application (svc_bench.c and its parts) ---- */

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

enum sb_mode { M_DEADLINE, M_TOKEN, M_OVERHEAD };

struct sb_opts {
	enum sb_mode mode;
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
/* Per lcore id; a modeled run leaves them empty. */
extern struct sb_lc sb_lc[RTE_MAX_LCORE];

/* Parses argv (the mode, then options) into o, which holds the defaults:
 * 0, 1 after --help (printed), -1 after one line on stderr. */
int sb_parse_opts(struct sb_opts *o, int argc, char **argv);
void sb_print_header(const struct sb_run *sb, const struct sb_opts *o);
void sb_print_summary(const struct sb_run *sb, const struct sb_opts *o,
		      const struct sb_result *res);
/* The files the options name (--csv, --loads-csv, --events-csv, --json):
 * 0, or -1 after one line on stderr. */
int sb_write_outputs(const struct sb_run *sb, const struct sb_opts *o,
		     const struct sb_result *res);
/* svc-bench overhead: prints the runner's loop cost on lcore. */
int sb_run_overhead(unsigned int lcore, double seconds);

#endif /* SVC_BENCH_H */
