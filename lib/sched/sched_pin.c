/* SPDX-License-Identifier: BSD-3-Clause
 * pin: every packet (every task, with granularity task) to one device,
 * --sched-param dev=N (default: the first accelerator, else device 0).
 * Not a policy to run traffic with: `hplane profile` uses it to measure
 * each device with the pipeline around it (thesis Tables 4.6/4.7), and
 * it is the "everything on one device" baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "hp_common.h"
#include "hp_sched.h"

/* dev=N of env into *d when given (N < n_dev): 0, or -EINVAL. */
static int
pin_dev(const struct hp_sched_env *env, unsigned int n_dev, uint32_t *d, char *err,
	size_t errlen)
{
	const char *v = hp_sched_param(env, "dev");
	unsigned int x;
	char q[48];

	if (v == NULL)
		return 0;
	if (n_dev == 0 || hp_parse_uint(v, 0, n_dev - 1, &x) < 0) {
		snprintf(err, errlen, "dev=%s: expected a device index 0..%u",
			 hp_quote(q, sizeof(q), v, 32), n_dev - 1);
		return -EINVAL;
	}
	*d = (uint32_t)x;
	return 0;
}

static int
pin_check(struct hp_sched_env *env, char *err, size_t errlen)
{
	uint32_t d;

	return pin_dev(env, env->n_dev, &d, err, errlen);
}

static int
pin_init(struct hp_sched *s, char *err, size_t errlen)
{
	unsigned int d;

	s->cursor = 0;
	for (d = 0; s->dev != NULL && d < s->n_dev; d++)
		if (s->dev[d].role == HP_ROLE_ACCEL) {
			s->cursor = d;
			break;
		}
	return s->env != NULL ? pin_dev(s->env, s->n_dev, &s->cursor, err, errlen) : 0;
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
	.params = (const char *const[]){ "dev", NULL },
	.check = pin_check,
	.init = pin_init,
	.pick = pin_pick,
};
HP_SCHED_REGISTER(sched_pin)
