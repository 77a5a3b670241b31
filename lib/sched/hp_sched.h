/* SPDX-License-Identifier: BSD-3-Clause
 * The sched ops table: the policy that picks a device for a packet. It sees
 * the packet's metadata and a view of each device (room, role, queue,
 * service-time model); it never knows what a device is. Adding a policy =
 * one file + HP_SCHED_REGISTER().
 *
 * Granularity (Johansson & Pap §4.2, Figure 4.1): with `chain` (C1) pick()
 * is asked once per packet and the device runs the app's whole chain; with
 * `task` (C2) it is asked before every task (hp_meta.step says which), the
 * device runs that one task and the packet comes back through the
 * scheduler for the next decision.
 */
#ifndef HP_SCHED_H
#define HP_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_mbuf.h>

#include "hp_pkt.h"

#define HP_MAX_DEV 32
/* pick() result: this packet cannot go now, but the ones received after it
 * may be placed first (the policy keeps per-flow order itself); -1 stops
 * the scheduler's pass (Source Code 4.1: rx waits for this packet). */
#define HP_SCHED_SKIP (-2)
#define HP_PEND_MAX 128  /* received packets the scheduler may hold */

struct hp_sched_ops;
struct hp_sched;

/* What a device is for scheduling purposes. CPU workers are HP_ROLE_CPU
 * even when their timing is modeled (--cpu-model). */
enum hp_sched_role { HP_ROLE_CPU = 0, HP_ROLE_ACCEL = 1 };

/* A policy's view of one device, kept by the pipeline every iteration. */
struct hp_sched_dev {
	uint8_t role;          /* enum hp_sched_role */
	uint8_t failed;        /* never pick a failed device */
	uint8_t modeled;
	uint32_t max_batch;    /* 1..: largest batch the device serves */
	uint32_t min_batch;
	uint32_t queued;       /* packets handed to it (staging included) and
				* not back yet */
	uint32_t queue_cap;    /* what its input ring and staging hold */
};

/* Run-wide facts a policy may read (set once before init). */
struct hp_sched_env {
	bool task_gran;              /* granularity task (C2) */
	unsigned int n_tasks;        /* tasks of the app's chain */
	const char *task_names[HP_MAX_TASKS];
	const struct hp_type_table *types;
	uint64_t hz;                 /* TSC cycles per second */
	double capacity_pps;         /* the run's capacity (measured or given) */
	double imix_mean_bytes;      /* mean frame bytes of the offered mix */
	const char *profile;         /* profile for policies that need one */
	const char *param;           /* --sched-param string (may be NULL) */
	const char *qtable;          /* Q-table file (qlearn) */
	bool train;                  /* qlearn: random actions, write table */
	uint64_t seed;
	double time_scale;           /* modeled time dilation (1 = none) */
};

/* Predicted service time, in TSC cycles, of n packets of bytes total for
 * one task (task < n_tasks) or the whole chain (HP_MAX_TASKS) on device d,
 * excluding anything already queued there. */
typedef uint64_t (*hp_sched_predict_fn)(const struct hp_sched *s, unsigned int d,
					unsigned int task, uint32_t n,
					uint32_t bytes);

struct hp_sched {
	const struct hp_sched_ops *ops;
	unsigned int n_dev;
	/* Room (packets) in each device's staging buffer, kept by the
	 * pipeline; a policy must not pick a device with room 0. */
	const uint32_t *room;
	uint32_t cursor;
	void *priv;
	/* ---- added for the model-based policies (all optional to read) */
	const struct hp_sched_dev *dev;  /* n_dev entries */
	const struct hp_sched_env *env;
	hp_sched_predict_fn predict;     /* NULL when nothing predicts */
	void *predict_arg;
	uint64_t now;                    /* TSC of this scheduling round */
	uint64_t round;                  /* counts the passes over the packets
					  * waiting to be placed */
	double rate_pps;                 /* input rate (EWMA over ~50 ms) */
	double tput_bps;                 /* delivered bits/s (EWMA ~50 ms) */
};

struct hp_sched_ops {
	const char *name;
	const char *desc;
	/* Optional; on failure writes a one-line reason to hp_sched_err. */
	int (*init)(struct hp_sched *s);
	void (*fini)(struct hp_sched *s);   /* optional */
	/* Device index for m, or -1 when no device can take it now (the
	 * caller keeps the packet and retries). With task granularity the
	 * decision is for task hp_meta(m)->step. */
	int (*pick)(struct hp_sched *s, struct rte_mbuf *m);
	/* Optional feedback: m came back from device d having run task
	 * step (chain: HP_MAX_TASKS) ... */
	void (*done)(struct hp_sched *s, struct rte_mbuf *m, unsigned int d,
		     unsigned int step, uint64_t now);
	/* ... and m left for tx (after reorder); its deadline is decided. */
	void (*tx)(struct hp_sched *s, struct rte_mbuf *m, uint64_t now);
	/* Optional, about once a millisecond on the scheduler lcore. */
	void (*tick)(struct hp_sched *s, uint64_t now);
	/* Optional, after the run has drained (qlearn training writes its
	 * table here). 0 or -errno with a one-line reason in err. */
	int (*finish)(struct hp_sched *s, char *err, size_t errlen);
};

int hp_sched_register(const struct hp_sched_ops *ops);
const struct hp_sched_ops *hp_sched_find(const char *name);
const struct hp_sched_ops *hp_sched_at(unsigned int i);

/* The reason the last init() failed, for the caller's one-line error. */
extern char hp_sched_err[256];

/* Helpers for policies. */
/* Index of the least-queued device of a role with room, or -1. */
int hp_sched_least_queued(const struct hp_sched *s, enum hp_sched_role role);
/* What a policy reads of a packet (tests build these without mbufs). */
struct hp_sched_pkt {
	uint32_t len;         /* frame bytes */
	uint8_t step;         /* task to decide (always 0 with chain) */
	uint8_t type;         /* packet type (1-based; 0: no table row) */
	bool reorder;         /* its flow needs order */
	uint16_t flow_slot;   /* HP_FLOW_UNTRACKED: no per-flow state */
	uint64_t flow_id;
	uint64_t t_rx;        /* TSC at scheduler rx */
	uint64_t deadline;    /* TSC; 0: none */
};

static inline void
hp_sched_pkt_of(struct rte_mbuf *m, struct hp_sched_pkt *p)
{
	const struct hp_meta *md = hp_meta(m);

	p->len = rte_pktmbuf_pkt_len(m);
	p->step = md->step;
	p->type = md->type;
	p->reorder = (md->flags & HP_MF_REORDER) != 0;
	p->flow_slot = md->flow_slot;
	p->flow_id = md->flow_id;
	p->t_rx = md->t_rx;
	p->deadline = (md->flags & HP_MF_LATENCY) ? md->t_deadline : 0;
}

/* Service-time models a policy caches (s->predict is a function call
 * through the device layer, too slow per packet): per device and task
 * (index n_tasks: the whole chain), cycles = a + b x frame bytes, for one
 * packet served alone and per packet of a full batch (amortized). */
struct hp_sched_cost {
	double one_a[HP_MAX_DEV][HP_MAX_TASKS + 1], one_b[HP_MAX_DEV][HP_MAX_TASKS + 1];
	double am_a[HP_MAX_DEV][HP_MAX_TASKS + 1], am_b[HP_MAX_DEV][HP_MAX_TASKS + 1];
	bool known[HP_MAX_DEV];   /* the device's model gave non-zero times */
};

/* Fills c from s->predict; returns how many devices have a model. */
unsigned int hp_sched_cost_update(const struct hp_sched *s, struct hp_sched_cost *c);

/* Cycles of task k (s->env->n_tasks: the chain) of a len-byte packet on
 * device d: served alone, or per packet in a full batch. */
static inline double
hp_sched_cost_one(const struct hp_sched_cost *c, unsigned int d, unsigned int k,
		  uint32_t len)
{
	return c->one_a[d][k] + c->one_b[d][k] * len;
}

static inline double
hp_sched_cost_am(const struct hp_sched_cost *c, unsigned int d, unsigned int k,
		 uint32_t len)
{
	return c->am_a[d][k] + c->am_b[d][k] * len;
}


#define HP_SCHED_REGISTER(ops) \
	RTE_INIT(hp_sched_reg_ ## ops) { hp_sched_register(&(ops)); }

#endif /* HP_SCHED_H */
