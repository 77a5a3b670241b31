/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench internals shared by the real runs on service lcores
 * (svc_bench.c) and the dedicated-core model (svc_model.c): the services'
 * load profiles and deadlines, the per-job records and the run's outputs
 * (sb_run.c), with the run's state in one struct sb_run.
 */
#ifndef SVC_BENCH_H
#define SVC_BENCH_H

#include <stdbool.h>
#include <stdint.h>

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

#endif /* SVC_BENCH_H */
