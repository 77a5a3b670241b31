/* SPDX-License-Identifier: BSD-3-Clause
 * The state and the pure decision functions of the static, qlearn and
 * adaptive policies, exposed so that unit tests can check decisions on
 * constructed states without a pipeline (tests/unit/test_sched.c). The
 * ops tables in sched_*.c wrap these.
 */
#ifndef HP_SCHED_POLICY_H
#define HP_SCHED_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "hp_sched.h"

/* ---- static: Johansson & Pap Algorithm 1 (chain), 2 and 3 (task) ---- */

/* Which line of the thesis's algorithm made the decision. */
enum hp_static_line {
	HP_STATIC_A1_CPU = 2,       /* Alg. 1 line 2: small, loose, busy, no order */
	HP_STATIC_A1_ACC = 4,       /* Alg. 1 line 4: everything else */
	HP_STATIC_A1_RETRY = 10,    /* line 10: tight deadline or order: wait */
	HP_STATIC_A1_FALLBACK = 12, /* line 12: any device with room */
	HP_STATIC_A2_ACC = 101,     /* Alg. 2 line 1: heavy task on the accelerator */
	HP_STATIC_A3_REORDER_CPU = 202, /* Alg. 3 line 2: > max, order: flow's CPU */
	HP_STATIC_A3_CPU_MED = 204, /* line 4: > medium, no order */
	HP_STATIC_A3_CPU_MIN = 206, /* line 6: > min, no order, small */
	HP_STATIC_A3_ACC = 208,     /* line 8: accelerator */
	HP_STATIC_A3_RETRY_LOW = 215, /* line 15: below min: wait for the accelerator */
	HP_STATIC_A3_RETRY_ORDER = 217, /* line 17: medium..max with order: wait */
	HP_STATIC_A3_FALLBACK = 220, /* line 20: any device with room */
	HP_STATIC_WAIT = 0,         /* no device with room at all */
};

struct hp_static {
	struct hp_sched_cost cost;
	int acc;                 /* the accelerator (first HP_ROLE_ACCEL) */
	unsigned int n_cpu;
	int cpu[HP_SCHED_MAX_DEV];     /* the CPU-role devices */
	uint32_t size_cpu;       /* packet size threshold for the CPU (bytes) */
	uint64_t lat_cpu;        /* latency threshold (cycles): the CPU path's
				  * worst case for a packet of size_cpu */
	double util;             /* accelerator utilisation that counts as busy */
	double rate1;            /* Alg. 1 input-rate threshold (pps) */
	double rate_min, rate_med, rate_max; /* Alg. 3 (pps) */
	double g_all, g_heavy;   /* accelerator capacity: whole chain, heavy
				  * tasks only (pps; 0 = unbounded) */
	bool heavy[HP_MAX_TASKS]; /* Alg. 2 tasks: accelerator only */
	uint32_t rr;
};

/* Derives every threshold from the devices' service-time models (the
 * profile). 0, or -EINVAL with a one-line reason in err. */
int hp_static_derive(struct hp_static *st, const struct hp_sched *s, char *err,
		     size_t errlen);
/* The decision for p (device index or -1); *line says which line. */
int hp_static_decide(struct hp_static *st, const struct hp_sched *s,
		     const struct hp_sched_pkt *p, enum hp_static_line *line);

/* ---- qlearn: §4.10 ---- */

#define HP_Q_RATE_LEVELS 5
#define HP_Q_MAX_DEV_BITS 8    /* ring-fill bits: 2^devices states */
#define HP_Q_FORMAT "heteroplane-qtable-1"

struct hp_qtable {
	bool task_gran;
	unsigned int n_dev, n_types, n_tasks, n_actions;
	unsigned int n_states;       /* rate levels x 2^n_dev x n_types */
	char roles[HP_SCHED_MAX_DEV + 1];  /* 'c' / 'a' per device */
	double *q;                   /* n_states x n_actions; NAN: unvisited */
	uint32_t *visits;
};

/* Per state-action results of a training run (reward eq. 4.2). */
struct hp_qstat {
	uint64_t n;              /* decisions that completed */
	double lat_s;            /* sum of their latencies, seconds */
	double tput;             /* sum of the throughput when they completed */
	uint64_t dl_n, dl_met;   /* latency-sensitive ones, and met */
};

struct hp_qlearn {
	struct hp_qtable t;
	struct hp_qstat *st;     /* training only */
	double cap_pps;          /* input-rate scale for the levels */
	uint64_t rng;
	int best_default[HP_MAX_TASKS]; /* action for a never-seen state */
	unsigned int min_visits;
};

int hp_qtable_alloc(struct hp_qtable *t, bool task_gran, unsigned int n_dev,
		    unsigned int n_types, unsigned int n_tasks, const char *roles);
void hp_qtable_free(struct hp_qtable *t);
/* Reads a table; 0 or -EINVAL/-ENOENT with a one-line reason in err. */
int hp_qtable_load(struct hp_qtable *t, const char *path, char *err, size_t errlen);
int hp_qtable_save(const struct hp_qtable *t, const char *path, char *err,
		   size_t errlen);
/* Input-rate level 0..4 (quarters of cap, the last one open). */
unsigned int hp_q_rate_level(double rate_pps, double cap_pps);
/* Ring status (Source Code 4.3): bit j set when device j's queue is more
 * than half full. */
unsigned int hp_q_ring_bits(const struct hp_sched *s);
/* Eq. 4.1 with the ring bits spanning 2^devices: ((I x 2^W) + RS) x T + PT. */
unsigned int hp_q_state(const struct hp_qtable *t, unsigned int rate_level,
			unsigned int ring_bits, unsigned int ptype);
/* Eq. 4.2: R = (met / latency-sensitive) x throughput / latency (1 for the
 * first factor when the state-action saw no latency-sensitive packet). */
double hp_q_reward(const struct hp_qstat *q);
/* Action index of (step, role): chain 0 cpu / 1 accel; task 2 x step + role. */
static inline unsigned int
hp_q_action(const struct hp_qtable *t, unsigned int step, unsigned int role)
{
	return t->task_gran ? 2 * step + role : role;
}
/* Greedy action for state S at step (inference): the best visited one,
 * else the default. Returns the role (0 cpu, 1 accel). */
unsigned int hp_q_best_role(const struct hp_qlearn *ql, unsigned int state,
			    unsigned int step);
/* Turns training results into the table (Q = R per visited pair). */
void hp_q_finish_training(struct hp_qlearn *ql);

/* ---- adaptive (ours) ---- */

struct hp_aflow {            /* per flow and task: where its packets are */
	uint8_t dev;
	uint16_t inflight;
	uint32_t skip_round;     /* a packet of it was skipped in this pass */
	uint64_t t_last;         /* TSC of its last placement */
	double gap;              /* EWMA of cycles between placements */
};

#define HP_A_BUCKETS (HP_MAX_TYPES + 1)

/* A class of packets for the offload plan: a task and a size bucket. */
struct hp_aclass {
	uint32_t n;          /* placed since the last plan */
	uint32_t n_free;     /* ... of those, free to go anywhere (not bound
			      * to their flow's device) */
	double rate;         /* placed per second (EWMA) */
	double rate_free;    /* free ones per second: what the plan can move */
	double len;          /* mean frame bytes (EWMA) */
	double x;            /* share of the class the plan sends to CPUs */
	double credit;       /* x accumulated per packet; >= 1: spill one */
};

struct hp_adaptive {
	struct hp_sched_cost cost;
	unsigned int nt;                 /* tasks; cost index nt = chain */
	int acc;                         /* the accelerator, -1 if none */
	unsigned int n_cpu;
	double backlog[HP_SCHED_MAX_DEV];      /* predicted cycles queued per device */
	double kappa[HP_SCHED_MAX_DEV];        /* measured / predicted service (online) */
	double horizon[HP_SCHED_MAX_DEV];      /* backlog (cycles) that keeps it busy */
	/* the offload plan (fractional knapsack, every plan_ticks): while the
	 * placed mix asks more of the accelerator than it has (demand), CPU
	 * time goes to the classes the CPUs are least behind on */
	uint32_t bounds[HP_MAX_TYPES];   /* size buckets: the type table's */
	unsigned int n_bounds;
	struct hp_aclass cls[HP_MAX_TASKS][HP_A_BUCKETS];
	bool sat;                        /* the plan is on */
	double demand;                   /* accelerator utilisation asked for */
	double cpu_target;               /* CPU utilisation the plan fills */
	/* online model update: predicted work completed per device since the
	 * last update, and the time it had work */
	double done_work[HP_SCHED_MAX_DEV];
	uint64_t busy_cyc[HP_SCHED_MAX_DEV];
	uint64_t last_tick, last_plan, ticks;
	uint32_t n_flows;
	struct hp_aflow *flows;          /* n_flows x HP_MAX_TASKS */
	uint64_t spilled, held, affine;  /* decisions by kind (stats) */
};

int hp_adaptive_setup(struct hp_adaptive *a, const struct hp_sched *s,
		      uint32_t n_flows, char *err, size_t errlen);
void hp_adaptive_free(struct hp_adaptive *a);
/* Predicted completion (TSC) of p on device d, from the device's backlog
 * and its online-corrected service-time model. */
double hp_adaptive_completion(const struct hp_adaptive *a, const struct hp_sched *s,
			      unsigned int d, const struct hp_sched_pkt *p);
/* The decision for p (device, or HP_SCHED_SKIP: not now, the packets
 * behind it may go first); accounts the packet on the device it picks. */
int hp_adaptive_decide(struct hp_adaptive *a, const struct hp_sched *s,
		       const struct hp_sched_pkt *p);
/* A packet that ran task step (HP_MAX_TASKS: the chain) came back from d. */
void hp_adaptive_done(struct hp_adaptive *a, const struct hp_sched *s,
		      const struct hp_sched_pkt *p, unsigned int d, unsigned int step);
void hp_adaptive_tick(struct hp_adaptive *a, const struct hp_sched *s, uint64_t now);
/* Recomputes the offload plan from the classes' rates (dt seconds since
 * the last plan); exposed for tests. */
void hp_adaptive_plan(struct hp_adaptive *a, const struct hp_sched *s, double dt);
/* The size bucket of a frame. */
unsigned int hp_adaptive_bucket(const struct hp_adaptive *a, uint32_t len);

#endif /* HP_SCHED_POLICY_H */
