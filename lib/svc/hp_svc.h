/* SPDX-License-Identifier: BSD-3-Clause
 * Service cores that balance themselves: per-service statistics on top of
 * DPDK 22.11's rte_service, and a balancer that moves services between
 * service lcores at run time (Blazevic & Jansson, §4 and §8).
 *
 * A service registered here runs through a trampoline that times every
 * call: a call that returns -EAGAIN (DPDK 22.11's "found nothing" value)
 * counts as idle, any other as useful work. Statistics are kept per service
 * and per lcore, cumulative, per sampling period (250 us) and per balancing
 * interval (5 ms). The control side (hp_svc_tick, or a control thread)
 * closes periods and intervals and, at every interval, asks the balancer
 * (hp_svc_balance.h) for one decision and applies it safely.
 *
 * Control-plane calls (everything but hp_svc_job_delay) come from one
 * thread at a time; they are serialised against the control thread.
 */
#ifndef HP_SVC_H
#define HP_SVC_H

#include <stdbool.h>
#include <stdint.h>

#include "hp_svc_balance.h"

/* The service may run as several instances at once (RTE_SERVICE_CAP_MT_SAFE). */
#define HP_SVC_F_MT_SAFE (1u << 0)

/* A service callback: >= 0 after useful work, -EAGAIN when it found none. */
typedef int32_t (*hp_svc_fn)(void *arg);

struct hp_svc_conf {
	uint32_t period_us;	/* sampling period (250) */
	uint32_t interval_us;	/* balancing interval (5000), a multiple of it */
	bool balance;		/* false: statistics only, nothing moves */
	struct hp_svc_policy policy; /* delay_target in cycles */
	bool dpdk_stats;	/* also enable DPDK's own counters (cross-check,
				 * and needed for adopted services) */
	uint32_t migrate_timeout_us; /* give up a migration after (100000) */
};

enum hp_svc_window {
	HP_SVC_CUMULATIVE = 0,	/* since registration */
	HP_SVC_PERIOD,		/* the last closed sampling period */
	HP_SVC_INTERVAL,	/* the last closed balancing interval */
};

struct hp_svc_stats {
	uint64_t calls;		/* callback invocations */
	uint64_t idle_calls;	/* of which returned -EAGAIN */
	uint64_t busy_cycles;	/* cycles in calls that did useful work */
	uint64_t call_cycles;	/* cycles in all calls */
	uint64_t total_cycles;	/* TSC cycles the window lasted */
	uint64_t delay_sum;	/* job delays reported by the service (cycles) */
	uint64_t delay_n;
	uint64_t delay_max;
};

/* One applied (or failed) balancer decision. */
struct hp_svc_event {
	uint64_t tsc;		/* when it was applied */
	struct hp_svc_decision d; /* lcore fields are indices, see below */
	uint32_t service_id;
	int from_lcore;		/* lcore ids, -1 when not applicable */
	int to_lcore;
	int result;		/* 0 or -errno */
	uint64_t migrate_cycles; /* unmap on source .. picked up on destination */
};

typedef void (*hp_svc_event_cb)(const struct hp_svc_event *ev, void *arg);
/* Called by the control side after every closed sampling period. */
typedef void (*hp_svc_period_cb)(uint64_t tsc, void *arg);

void hp_svc_conf_default(struct hp_svc_conf *c);
int hp_svc_init(const struct hp_svc_conf *c);

/* Make lcore_id a managed service lcore (rte_service_lcore_add). Its index
 * (0, 1, ... in call order) is what decisions and the load table use.
 */
int hp_svc_lcore_add(unsigned int lcore_id);
int hp_svc_lcore_index(unsigned int lcore_id);
unsigned int hp_svc_lcore_id(unsigned int index);
unsigned int hp_svc_lcore_count(void);
bool hp_svc_lcore_active(unsigned int lcore_id);

int hp_svc_register(const char *name, hp_svc_fn fn, void *arg, uint32_t flags,
		    uint32_t *id);
/* Take an already registered DPDK service under management. Its callback
 * cannot be wrapped, so its statistics come from DPDK's own counters
 * (busy cycles exclude -EAGAIN calls in 22.11; idle calls are unknown).
 */
int hp_svc_adopt(uint32_t id);

/* The allowed mask (where the user permits a service, e.g. NUMA-local
 * lcores) is separate from the running mapping. Default: every managed
 * lcore. Disallowing an lcore the service runs on is refused (-EBUSY).
 */
int hp_svc_allow(uint32_t id, unsigned int lcore_id, bool allow);
/* Map or unmap a service on an lcore by hand; it must be allowed there. */
int hp_svc_map(uint32_t id, unsigned int lcore_id, bool on);
/* Bit i set: the service runs on managed lcore index i. */
uint32_t hp_svc_running(uint32_t id);

/* Start the services and the managed lcores; lcores with nothing mapped
 * are parked (not started) when the policy has scale_down, else started.
 */
int hp_svc_start(void);
/* Close a period when one has passed, an interval when one has, balance.
 * Returns the number of actions applied (0 or 1) or -errno.
 */
int hp_svc_tick(uint64_t now);
/* The TSC at which hp_svc_tick() next has a period to close (0 before
 * hp_svc_start): a control loop of its own sleeps until then.
 */
uint64_t hp_svc_next_tick(void);
/* A control thread that calls hp_svc_tick every period. */
int hp_svc_ctl_start(void);
int hp_svc_ctl_stop(void);
/* Stop lcores and services (waits until none runs), then unregister. */
int hp_svc_stop(void);
void hp_svc_fini(void);

/* From inside a service callback: the delay of the job it is about to
 * serve (arrival to start), for statistics and the delay-based mode.
 */
void hp_svc_job_delay(uint64_t cycles);

int hp_svc_stats_get(uint32_t id, unsigned int lcore_id, enum hp_svc_window w,
		     struct hp_svc_stats *st);
/* Useful load of an lcore over a window (busy cycles / window cycles). */
double hp_svc_lcore_load(unsigned int lcore_id, enum hp_svc_window w);
/* Loops of the lcore's service runner (RTE_SERVICE_LCORE_ATTR_LOOPS). */
uint64_t hp_svc_lcore_loops(unsigned int lcore_id);

void hp_svc_set_event_cb(hp_svc_event_cb cb, void *arg);
void hp_svc_set_period_cb(hp_svc_period_cb cb, void *arg);
/* Actions applied since start, and how many failed. */
uint64_t hp_svc_moves(void);
uint64_t hp_svc_move_failures(void);
/* The last interval's table as built for the balancer (for tools/tests). */
const struct hp_svc_table *hp_svc_last_table(void);

#endif /* HP_SVC_H */
