/* SPDX-License-Identifier: BSD-3-Clause
 * The sched ops table: the policy that picks a device for a packet. It sees
 * the packet's metadata and a view of each device (room, role, queue,
 * service-time model); it never knows what a device is. Adding a policy =
 * one file + HP_SCHED_REGISTER(). Options only one policy reads reach it
 * as KEY=VALUE items (--sched-param) that it checks and parses itself.
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

/* The most devices a policy's tables hold; the pipeline runs at most
 * HP_MAX_DEVICES (hp_pipeline.h), checked at build time there. */
#define HP_SCHED_MAX_DEV 32
#define HP_SCHED_MAX_APPS 4   /* --apps: at least the pipeline's HP_MAX_APPS */
/* pick() result: this packet cannot go now, but the ones received after it
 * may be placed first (the policy keeps per-flow order itself); -1 stops
 * the scheduler's pass (Source Code 4.1: rx waits for this packet). */
#define HP_SCHED_SKIP (-2)
/* pick() result: the policy's admission refuses this packet (pythia's
 * target-rate: above the target); the scheduler drops it with reason
 * admission, counted, never sent on. */
#define HP_SCHED_DROP (-3)
#define HP_PEND_MAX 128  /* received packets the scheduler may hold */

struct hp_sched_ops;
struct hp_sched;

#define HP_SCHED_GOALLEN 40
/* A configuration-level policy's state (pythia): the summary, the trace
 * and the progress line show it; empty goal: the policy has none. */
struct hp_sched_goalstat {
	char goal[HP_SCHED_GOALLEN];  /* active goal, as given */
	char cfg[64];                 /* active configuration's label */
	uint64_t switches;            /* configuration changes */
	uint64_t held;                /* packets held for a flow to move */
	uint64_t goal_changes;        /* goals set while running */
	uint64_t learned;             /* windows that updated the stored capacity */
};

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
	/* --sched-lcores N > 1: packets in its input ring from every
	 * scheduler lcore (rte_ring_count once a pass), the cheap shared
	 * estimate beside this lcore's own queued; 0 with one */
	uint32_t shared;
};

#define HP_SCHED_MAX_PARAMS 16  /* KEY=VALUE options of one run */

/* Run-wide facts every policy may read, and its own options. check() sees
 * them before the run starts, when hz is still 0; init() and the hooks
 * after it see them all. */
struct hp_sched_env {
	bool task_gran;              /* granularity task (C2) */
	unsigned int n_tasks;        /* tasks of the app's chain */
	const char *task_names[HP_MAX_TASKS];
	/* --apps: the run's apps (n_apps 0 with one app); app a runs tasks
	 * app_first[a] .. + app_ntasks[a] of the joint chain, and a packet's
	 * app is hp_meta's app */
	unsigned int n_apps;
	const char *app_names[HP_SCHED_MAX_APPS];
	uint8_t app_first[HP_SCHED_MAX_APPS], app_ntasks[HP_SCHED_MAX_APPS];
	const struct hp_type_table *types;
	unsigned int n_dev;          /* devices, in the order of hp_sched.dev */
	uint8_t role[HP_SCHED_MAX_DEV];    /* enum hp_sched_role of each */
	uint64_t hz;                 /* TSC cycles per second (0 in check) */
	double capacity_pps;         /* the capacity given (0: measured later) */
	double imix_mean_bytes;      /* mean frame bytes of the offered mix */
	uint64_t seed;
	uint32_t max_flows;          /* flow slots of the run (flow_slot < it) */
	/* The policy's own options, "KEY=VALUE" each, in the order given
	 * (hp_sched_param() finds one); hp_sched_check() refuses a key the
	 * policy does not list in hp_sched_ops.params. */
	unsigned int n_params;
	const char *params[HP_SCHED_MAX_PARAMS];
	/* What check() read and parsed for init() (a file is read once); the
	 * policy's own, freed by its conf_free(). NULL when it kept nothing. */
	void *conf;
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
	uint64_t t_run;                  /* TSC when the measured phase (the
					  * trace's clock) began; 0 before */
	uint64_t round;                  /* counts the passes over the packets
					  * waiting to be placed */
	double rate_pps;                 /* input rate (EWMA over ~50 ms) */
	double tput_bps;                 /* delivered bits/s (EWMA ~50 ms) */
	/* --apps: each app's input rate (EWMA as rate_pps): rate_pps split
	 * by the apps' shares of what was received, since the port drops
	 * before a packet's app is known */
	double app_rate_pps[HP_SCHED_MAX_APPS];
	/* devices the policy switched off (bit d): their modeled power is
	 * their off power; written by the scheduler, read by the power
	 * sampler (relaxed) */
	uint32_t off_mask;
	struct hp_sched_goalstat gs;     /* scheduler lcore's own */
};

struct hp_sched_ops {
	const char *name;
	const char *desc;
	/* The --sched-param keys it reads, NULL-terminated (NULL: none). */
	const char *const *params;
	/* Optional, before the run starts and without EAL: checks the
	 * options and whatever files they name against env, so that bad
	 * input is refused before anything starts. What init() will need of
	 * it (a file's contents) goes to env->conf. 0 or -errno with a
	 * one-line reason in err. */
	int (*check)(struct hp_sched_env *env, char *err, size_t errlen);
	/* Frees a conf that check() left (optional: none left). */
	void (*conf_free)(void *conf);
	/* Optional; 0 or -errno with a one-line reason in err. */
	int (*init)(struct hp_sched *s, char *err, size_t errlen);
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

/* Before the run: every option's key is one ops lists, then ops->check.
 * env->conf is set to what the policy kept (release it with
 * hp_sched_conf_free once the run is over). 0 or -errno with a one-line
 * reason in err. */
int hp_sched_check(const struct hp_sched_ops *ops, struct hp_sched_env *env,
		   char *err, size_t errlen);
void hp_sched_conf_free(const struct hp_sched_ops *ops, void *conf);
/* The value of option key (the last one given wins), or NULL. */
const char *hp_sched_param(const struct hp_sched_env *env, const char *key);

/* --profile: service-time models for devices that are not modeled
 * themselves, a profile's "cpu" and "gpu" sections by role, loaded once
 * by whoever starts the run and handed to it. */
struct hp_model;
struct hp_sched_profile {
	struct hp_model *role[2];    /* by enum hp_sched_role; NULL: none */
	struct hp_model *models;     /* both sections, read at once */
};

/* Loads NAME (profiles/NAME.json) or FILE.json: 0, or -errno with a
 * one-line reason when it is unreadable or has neither section. */
int hp_sched_profile_load(struct hp_sched_profile *p, const char *name,
			  char *err, size_t errlen);
void hp_sched_profile_free(struct hp_sched_profile *p);

/* Helpers for policies. */
/* Index of the least-queued device of a role with room, or -1. */
int hp_sched_least_queued(const struct hp_sched *s, enum hp_sched_role role);
/* What a policy reads of a packet (tests build these without mbufs). */
struct hp_sched_pkt {
	uint32_t len;         /* frame bytes */
	uint8_t step;         /* task to decide (always 0 with chain) */
	uint8_t type;         /* packet type (1-based; 0: no table row) */
	bool reorder;         /* its flow needs order */
	uint32_t flow_slot;   /* HP_FLOW_UNTRACKED: no per-flow state */
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
	double one_a[HP_SCHED_MAX_DEV][HP_MAX_TASKS + 1], one_b[HP_SCHED_MAX_DEV][HP_MAX_TASKS + 1];
	double am_a[HP_SCHED_MAX_DEV][HP_MAX_TASKS + 1], am_b[HP_SCHED_MAX_DEV][HP_MAX_TASKS + 1];
	bool known[HP_SCHED_MAX_DEV];   /* the device's model gave non-zero times */
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
