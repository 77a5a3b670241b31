/* SPDX-License-Identifier: BSD-3-Clause
 * Scheduler registry and the round-robin policy (Johansson & Pap §4.8):
 * the next device in turn that has room; packet properties are ignored.
 */
#include <errno.h>
#include <string.h>

#include "hp_sched.h"

#define HP_MAX_SCHED 16

static const struct hp_sched_ops *scheds[HP_MAX_SCHED];
static unsigned int n_scheds;

int
hp_sched_register(const struct hp_sched_ops *ops)
{
	if (ops == NULL || ops->name == NULL || ops->pick == NULL ||
	    n_scheds == HP_MAX_SCHED || hp_sched_find(ops->name) != NULL)
		return -EINVAL;
	scheds[n_scheds++] = ops;
	return 0;
}

const struct hp_sched_ops *
hp_sched_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_scheds; i++)
		if (strcmp(scheds[i]->name, name) == 0)
			return scheds[i];
	return NULL;
}

const struct hp_sched_ops *
hp_sched_at(unsigned int i)
{
	return i < n_scheds ? scheds[i] : NULL;
}

static int
rr_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	unsigned int i, d;

	RTE_SET_USED(m);
	for (i = 0; i < s->n_dev; i++) {
		d = s->cursor;
		s->cursor = (s->cursor + 1 == s->n_dev) ? 0 : s->cursor + 1;
		if (s->room[d] > 0)
			return (int)d;
	}
	return -1;
}

static const struct hp_sched_ops sched_rr = {
	.name = "rr",
	.desc = "round robin over devices that have room (thesis §4.8)",
	.pick = rr_pick,
};
HP_SCHED_REGISTER(sched_rr)
