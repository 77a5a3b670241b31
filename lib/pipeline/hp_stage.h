/* SPDX-License-Identifier: BSD-3-Clause
 * Pipeline stages (DESIGN.md §2): a pollable unit of work behind an ops
 * table, and the one launcher that runs an array of them either on an
 * lcore each or as DPDK services on service lcores (lib/svc balances
 * those). The scheduler, every device and the traffic source/sink are
 * stages; the launcher knows none of them.
 *
 * A pass follows DPDK's service callbacks: it returns the items it moved,
 * or -EAGAIN when it found nothing; HP_STAGE_DONE once it was asked to stop
 * and holds nothing any more. Between two passes a stage keeps its packets
 * in its own state (staging, windows), never on a stack, so the passes may
 * run on different lcores, one at a time.
 */
#ifndef HP_STAGE_H
#define HP_STAGE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#define HP_STAGE_DONE (-ESHUTDOWN)
#define HP_STAGE_NAMELEN 32	/* a service's name (RTE_SERVICE_NAME_MAX) */

struct hp_stage_ops {
	const char *name;
	/* Optional, on the lcore that runs it, before its first pass. alone:
	 * it has that thread to itself (an lcore loop), so its passes follow
	 * each other and the thread's CPU time is its own; false as a
	 * service among others. */
	void (*start)(void *arg, bool alone);
	int (*pass)(void *arg);
	/* From another thread: finish what it holds, then report
	 * HP_STAGE_DONE. */
	void (*stop)(void *arg);
	/* Optional, after its last pass, on the lcore that ran it. */
	void (*finish)(void *arg);
};

struct hp_launch;

struct hp_stage {
	const struct hp_stage_ops *ops;
	void *arg;
	char name[HP_STAGE_NAMELEN];  /* "hp_cpu0", "hp_sched", "hp_traffic" */
	/* the launcher's */
	const struct hp_launch *launch;
	bool launched;
	bool started;
	int done;                     /* its last pass is over */
	unsigned int lcore;           /* lcore mode: where it runs */
	uint32_t svc_id;              /* service mode: its DPDK service */
};

struct hp_launch_conf {
	bool services;                /* DPDK services, else an lcore each */
	unsigned int n_service_cores;
	const unsigned int *service_cores;
	int svc_mode;                 /* < 0: no balancing, else enum hp_svc_mode */
	bool svc_scale_down;          /* the balancer may park service lcores */
	int idle;                     /* lcore loops: HP_IDLE_SPIN, _YIELD, _SLEEP */
	bool quiet;                   /* no "services: ..." lines */
};

struct hp_launch {
	struct hp_launch_conf conf;
	struct hp_stage *stages;
	unsigned int n;
	bool svc_on;
};

/* Runs stages[0..n) in that order: on the EAL worker lcores after the
 * main one, or as services mapped round robin over the service lcores.
 * On failure (err set) the stages launched so far keep running: stop and
 * join every stage as after a success. */
int hp_launch_start(struct hp_launch *l, struct hp_stage *stages, unsigned int n,
		    const struct hp_launch_conf *conf, char *err, size_t errlen);
/* Asks a stage to finish (its ops->stop). */
void hp_stage_stop(struct hp_stage *st);
/* Waits for a stage's last pass; a stage never launched is done at once. */
void hp_launch_join(struct hp_launch *l, struct hp_stage *st);
/* Whether a stage's last pass is over. */
bool hp_stage_done(const struct hp_stage *st);
/* After every stage is joined: reaps the lcores, or reports where each
 * service ended and stops the service lcores. */
void hp_launch_end(struct hp_launch *l);

#endif /* HP_STAGE_H */
