/* SPDX-License-Identifier: BSD-3-Clause
 * The service-core balancer's decision, as a pure function over a load
 * table (Blazevic & Jansson §4.4, plus their §8 future work: delay-based
 * balancing and scale-down). No DPDK here: the runtime (hp_svc.c) builds
 * the table from its statistics and applies what this returns, and the
 * unit tests feed it synthetic tables.
 */
#ifndef HP_SVC_BALANCE_H
#define HP_SVC_BALANCE_H

#include <stdbool.h>
#include <stdint.h>

/* Services are indexed by their DPDK service id (RTE_SERVICE_NUM_MAX is 64
 * in 22.11); lcores by their index among the managed service lcores, so an
 * lcore set is a 32-bit mask.
 */
#define HP_SVC_MAX_SERVICES 64
#define HP_SVC_MAX_LCORES 32

enum hp_svc_mode {
	HP_SVC_MODE_LOAD = 0,	/* thesis: useful CPU load over a threshold */
	HP_SVC_MODE_DELAY,	/* §8.1: measured arrival-to-service delay */
};

/* What scale-down's delay guard bounds (docs/svc.md, "Which delay"). */
enum hp_svc_sd_measure {
	/* A job's response time: arrival to completion, i.e. the wait plus
	 * its own service time; what a user of the consolidated lcores sees. */
	HP_SVC_SD_RESPONSE = 0,
	/* The wait alone (arrival to service start, the thesis's delay). At
	 * low load that is half the round-robin runner's loop, which grows
	 * with every service merged onto the lcore, so no consolidation of
	 * polled services passes a bound on it; kept to show exactly that. */
	HP_SVC_SD_WAIT,
};

struct hp_svc_policy {
	enum hp_svc_mode mode;
	double threshold;	/* core load that triggers a move (0.70) */
	double hysteresis;	/* a receiver must end at or under threshold - this */
	double min_gain;	/* the busier of the two cores must drop by this much */
	uint32_t sustain;	/* intervals a core must stay hot before acting */
	uint32_t cooldown;	/* intervals a moved service stays where it went */
	uint32_t cooldown_max;	/* cap of the ping-pong back-off */
	double delay_target;	/* cycles: a service's mean delay above this is hot */
	double delay_min_gain;	/* predicted total delay must drop by this fraction */
	bool scale_down;	/* consolidate and park cores when all are cold */
	double scale_down_threshold; /* every active core under this (0.20) */
	uint32_t scale_down_sustain; /* for this many intervals */
	double scale_down_max_delay; /* predicted extra delay allowed, as a
				      * fraction of the delay measured over the
				      * cold spell, or predicted when no service
				      * reports delays (0.10); < 0: no guard */
	enum hp_svc_sd_measure scale_down_measure; /* of what (response) */
};

/* What one service did on one lcore during the last balancing interval. */
struct hp_svc_cell {
	double load;		/* busy cycles / interval cycles */
	uint64_t jobs;		/* calls that did useful work */
	double delay_sum;	/* cycles, as reported by the service */
	uint64_t delay_n;	/* jobs that reported a delay */
	uint64_t idle_calls;	/* calls that found nothing (-EAGAIN) */
	double idle_cycles;	/* cycles those calls took (0: unknown) */
};

struct hp_svc_table {
	uint32_t n_lcores;	/* managed lcores, indices 0 .. n_lcores-1 */
	uint32_t active;	/* lcores running (the others are parked) */
	uint64_t interval_cycles; /* length of the interval the cells cover */
	/* The runner's own cycles per loop on each lcore, outside the service
	 * calls (0: unknown). With the cells' idle-call cycles it gives the
	 * length of an lcore's idle round-robin loop: a job that arrives on an
	 * idle lcore waits half of it on average, and consolidation makes it
	 * longer (the poll term of the delay prediction, docs/svc.md).
	 */
	double loop_cycles[HP_SVC_MAX_LCORES];
	uint64_t present;	/* services under management */
	uint64_t mt_safe;	/* services that may run as several instances */
	uint32_t allowed[HP_SVC_MAX_SERVICES]; /* where a service may run */
	uint32_t running[HP_SVC_MAX_SERVICES]; /* where it is mapped now */
	struct hp_svc_cell cell[HP_SVC_MAX_SERVICES][HP_SVC_MAX_LCORES];
};

enum hp_svc_action {
	HP_SVC_ACT_NONE = 0,
	HP_SVC_ACT_MOVE,	/* unmap service from 'from', map it on 'to' */
	HP_SVC_ACT_DROP,	/* remove the instance on 'from' (another runs) */
	HP_SVC_ACT_PARK,	/* stop lcore 'from': it has no service left */
};

struct hp_svc_decision {
	enum hp_svc_action action;
	uint32_t service;
	uint32_t from;		/* lcore index */
	uint32_t to;		/* lcore index (MOVE) */
	bool unpark;		/* MOVE onto a parked lcore: start it first */
	const char *reason;	/* static string for logs */
	double before;		/* metric before (load of the hot core or total delay) */
	double after;		/* predicted metric after */
};

/* What the balancer remembers between intervals. */
struct hp_svc_bstate {
	uint64_t interval;			/* intervals decided so far */
	uint32_t hot[HP_SVC_MAX_LCORES];	/* consecutive hot intervals */
	uint32_t cold;				/* consecutive all-cold intervals */
	uint64_t frozen_until[HP_SVC_MAX_SERVICES]; /* interval number */
	uint32_t backoff[HP_SVC_MAX_SERVICES];	/* current cooldown length */
	int32_t last_from[HP_SVC_MAX_SERVICES];	/* lcore the service last left */
	uint64_t moved_at[HP_SVC_MAX_SERVICES];	/* interval of its last move */
	int32_t sd_victim;			/* lcore a scale-down plan empties */
	int32_t dcand_s, dcand_from, dcand_to;	/* delay mode's best move ... */
	uint32_t dcand_n;			/* ... found this many times in a row */
	/* The current cold spell (scale-down's guard prices a plan on it: at
	 * low load one interval holds a handful of jobs, or none)
	 */
	uint64_t sd_jobs[HP_SVC_MAX_SERVICES];	/* useful calls per service */
	double sd_busy[HP_SVC_MAX_SERVICES];	/* their cycles */
	uint64_t sd_cycles;			/* cycles the spell lasted */
	double sd_delay_sum;			/* reported delays, cycles */
	uint64_t sd_delay_n;
};

/* Thesis defaults, plus the anti-thrashing knobs (documented in docs/svc.md). */
void hp_svc_policy_default(struct hp_svc_policy *p);
int hp_svc_policy_check(const struct hp_svc_policy *p);
void hp_svc_bstate_init(struct hp_svc_bstate *st);

/* Load of lcore index l: sum of the useful loads of the services on it. */
double hp_svc_table_lcore_load(const struct hp_svc_table *t, uint32_t l);

/* Predicted mean wait (cycles) of a job arriving on an lcore that runs n
 * services with useful loads rho[i] and job sizes work[i] (cycles): the
 * M/G/1 mean wait with deterministic jobs, sum(rho_i * W_i / 2) / (1 - rho),
 * rho capped at 0.99 so an overloaded core predicts a large, finite wait.
 */
double hp_svc_predict_wait(const double *rho, const double *work, unsigned int n);

/* Predicted mean delay (cycles) of a job on such an lcore whose idle
 * round-robin loop lasts loop cycles (the runner's own cycles plus one idle
 * call of each service on it): the queueing wait above plus the wait for
 * the runner to come round to the job's service, loop / 2.
 */
double hp_svc_predict_delay(const double *rho, const double *work, unsigned int n,
			    double loop);

/* One decision per interval. Updates *st (hot counters, cooldowns) as if
 * the decision is applied. Returns 1 when *d holds an action, 0 for none,
 * -EINVAL on a malformed table or policy.
 */
int hp_svc_decide(const struct hp_svc_policy *p, const struct hp_svc_table *t,
		  struct hp_svc_bstate *st, struct hp_svc_decision *d);

const char *hp_svc_action_name(enum hp_svc_action a);

#endif /* HP_SVC_BALANCE_H */
