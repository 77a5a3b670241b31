/* SPDX-License-Identifier: BSD-3-Clause
 * The pythia policy's own, shared by its two files: what check()
 * (sched_pythia_check.c: the options, the goals, the plan) leaves for
 * the run (sched_pythia.c: the monitor and the placement).
 */
#ifndef SCHED_PYTHIA_H
#define SCHED_PYTHIA_H

#include <stdbool.h>
#include <stddef.h>

#include "hp_plan.h"
#include "hp_sched.h"

#define PY_MAX_AT 16
#define PY_BATCH_DEF 1024   /* the 1024 row: the live devices batch 128 by default */
#define PY_HEADROOM 1.2     /* the offered rate's factor in the pick */

struct py_at {
	double t;
	struct hp_goal g;
	char text[HP_SCHED_GOALLEN];
};

/* What check() read: the plan of the run's apps and the goals. */
struct py_conf {
	struct hp_plan pl;
	bool cpu_dev[HP_PLAN_MAX_DEV];   /* platform device of class CPU */
	struct hp_goal goal;
	char goal_text[HP_SCHED_GOALLEN];
	double period_s;
	double scale;     /* the modeled devices' time dilation (scale=F) */
	double headroom;  /* the offered rate's factor in the pick (headroom=F) */
	bool inner_adaptive;  /* inner=adaptive: packets placed per deadline */
	unsigned int n_at;
	struct py_at at[PY_MAX_AT];
};

/* The ops' check and conf_free (sched_pythia_check.c). */
int hp_pythia_check(struct hp_sched_env *env, char *err, size_t errlen);
void hp_pythia_conf_free(void *conf);

#endif /* SCHED_PYTHIA_H */
