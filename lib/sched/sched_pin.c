/* SPDX-License-Identifier: BSD-3-Clause
 * pin: every packet (every task, with granularity task) to one device,
 * --sched-param dev=N (default: the first accelerator, else device 0).
 * Not a policy to run traffic with: `hplane profile` uses it to measure
 * each device with the pipeline around it (thesis Tables 4.6/4.7), and
 * it is the "everything on one device" baseline.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hp_sched.h"
#include "hp_task.h"

static int
pin_init(struct hp_sched *s)
{
	char buf[32];
	const char *v = s->env && hp_task_opt_get(s->env->param, "dev", buf, sizeof(buf)) > 0 ?
		buf : NULL;
	unsigned int d;
	char *end;

	s->cursor = 0;
	for (d = 0; s->dev != NULL && d < s->n_dev; d++)
		if (s->dev[d].role == HP_ROLE_ACCEL) {
			s->cursor = d;
			break;
		}
	if (v != NULL) {
		unsigned long x = strtoul(v, &end, 10);

		if (end == v || *end != '\0' || x >= s->n_dev) {
			snprintf(hp_sched_err, sizeof(hp_sched_err),
				 "dev=%s: expected a device index 0..%u", v, s->n_dev - 1);
			return -1;
		}
		s->cursor = (uint32_t)x;
	}
	return 0;
}

static int
pin_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	RTE_SET_USED(m);
	return s->room[s->cursor] > 0 ? (int)s->cursor : -1;
}

static const struct hp_sched_ops sched_pin = {
	.name = "pin",
	.desc = "every packet to one device (--sched-param dev=N); for profiling and baselines",
	.init = pin_init,
	.pick = pin_pick,
};
HP_SCHED_REGISTER(sched_pin)
