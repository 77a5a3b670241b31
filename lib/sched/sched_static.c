/* SPDX-License-Identifier: BSD-3-Clause
 * static: the thesis's packet-size and latency sensitive scheduler
 * (Johansson & Pap §4.9): Algorithm 1 with granularity chain (C1),
 * Algorithms 2 and 3 with granularity task (C2), with their fallbacks.
 *
 * The thresholds are not constants: they are derived at start from the
 * devices' service-time models (the profile of modeled devices, or
 * --profile for real ones), the type table, the queue sizes and the
 * observed input rate:
 *   size_cpu  the type table's size boundaries, smallest first, as long
 *             as the CPU/accelerator cost ratio of the chain stays within
 *             1.5x of the smallest class's (the thesis offloads "the
 *             smaller size": where the CPU is least behind)
 *   lat_cpu   what a CPU worker can promise a packet of size_cpu: its
 *             queue (ring + staging) full of such packets ahead of it.
 *             Packets with a tighter budget never go to a CPU (the thesis's
 *             cpu and gpu latency thresholds are this one figure)
 *   rates     from the accelerator's capacity at full batches for the
 *             mix's mean size: g_all (whole chain) and g_heavy (only the
 *             tasks it must run): rate1 = rate_min = util x g_all (util
 *             0.5 by default, --sched-param util=), rate_med = g_all,
 *             rate_max = g_heavy (Table 4.8: the accelerator saturated by
 *             the heavy task alone)
 *   heavy     a task whose CPU workers together would add less than a
 *             quarter of the accelerator's rate for it (LDPC on the
 *             Jetson: ~26x slower per packet) follows Algorithm 2
 * Decision cost: a few compares per packet (no model calls on the path).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_sched_policy.h"

#define SIZE_RATIO_SPREAD 1.5
#define HEAVY_PER_CPU 4.0

static int
cpu_least(const struct hp_static *st, const struct hp_sched *s)
{
	unsigned int i;
	int best = -1;

	for (i = 0; i < st->n_cpu; i++) {
		int d = st->cpu[i];

		if (s->room[d] == 0 || s->dev[d].failed)
			continue;
		if (best < 0 || s->dev[d].queued < s->dev[best].queued)
			best = d;
	}
	return best;
}

static int
acc_if_room(const struct hp_static *st, const struct hp_sched *s)
{
	return s->room[st->acc] > 0 && !s->dev[st->acc].failed ? st->acc : -1;
}

/* "enqueue_packet(worker_id)": the next device in turn with room. */
static int
fallback(struct hp_static *st, const struct hp_sched *s)
{
	unsigned int i;

	for (i = 0; i < s->n_dev; i++) {
		unsigned int d = (st->rr + i) % s->n_dev;

		if (s->room[d] > 0 && !s->dev[d].failed) {
			st->rr = d + 1;
			return (int)d;
		}
	}
	return -1;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* util=U (0 < U <= 1, default 0.5): the accelerator utilisation that
 * counts as busy. 0 or -EINVAL. */
static int
static_util(const struct hp_sched_env *env, double *util, char *err, size_t errlen)
{
	const char *v = hp_sched_param(env, "util");
	char q[48];

	*util = 0.5;
	if (v == NULL)
		return 0;
	if (hp_parse_double(v, 0, 1, util) < 0 || !(*util > 0)) {
		snprintf(err, errlen, "util=%s: expected 0 < util <= 1",
			 hp_quote(q, sizeof(q), v, 32));
		return -EINVAL;
	}
	return 0;
}

int
hp_static_derive(struct hp_static *st, const struct hp_sched *s, char *err,
		 size_t errlen)
{
	const struct hp_sched_env *env = s->env;
	unsigned int d, i, k, nt = env->n_tasks, n_sz = 0;
	uint32_t sizes[HP_MAX_TYPES + 1];
	double mean = env->imix_mean_bytes > 64 ? env->imix_mean_bytes : 64;
	double hz = (double)env->hz, best, heavy_cyc = 0;
	int c0;

	memset(st, 0, sizeof(*st));
	st->acc = -1;
	for (d = 0; d < s->n_dev; d++) {
		if (s->dev[d].role == HP_ROLE_CPU)
			st->cpu[st->n_cpu++] = (int)d;
		else if (st->acc < 0)
			st->acc = (int)d;
	}
	if (st->acc < 0 || st->n_cpu == 0) {
		snprintf(err, errlen, "static needs CPU workers and an accelerator (--gpu)");
		return -EINVAL;
	}
	c0 = st->cpu[0];
	hp_sched_cost_update(s, &st->cost);
	if (!st->cost.known[st->acc] || !st->cost.known[c0]) {
		snprintf(err, errlen, "static derives its thresholds from service-time models: use modeled devices (--cpu-model, --gpu model:) or --profile NAME (hplane profile writes one)");
		return -EINVAL;
	}
	if (static_util(env, &st->util, err, errlen) < 0)
		return -EINVAL;
	/* the packet size threshold: boundaries of the type table */
	for (i = 0; env->types != NULL && i < env->types->n; i++) {
		uint32_t b = env->types->t[i].max_len;

		if (b < 65535)
			sizes[n_sz++] = b;
	}
	if (n_sz == 0)
		sizes[n_sz++] = (uint32_t)mean;
	qsort(sizes, n_sz, sizeof(sizes[0]), cmp_u32);
	best = hp_sched_cost_one(&st->cost, c0, nt, sizes[0]) /
		hp_sched_cost_am(&st->cost, st->acc, nt, sizes[0]);
	st->size_cpu = sizes[0];
	for (i = 1; i < n_sz; i++) {
		double r = hp_sched_cost_one(&st->cost, c0, nt, sizes[i]) /
			hp_sched_cost_am(&st->cost, st->acc, nt, sizes[i]);

		if (sizes[i] == sizes[i - 1])
			continue;
		if (r > SIZE_RATIO_SPREAD * best)
			break;
		st->size_cpu = sizes[i];
	}
	st->lat_cpu = (uint64_t)((double)s->dev[c0].queue_cap *
				 hp_sched_cost_one(&st->cost, c0, nt, st->size_cpu));
	/* the accelerator's capacities and the heavy tasks */
	st->g_all = hz / hp_sched_cost_am(&st->cost, st->acc, nt, (uint32_t)mean);
	for (k = 0; k < nt; k++) {
		double cpu = hp_sched_cost_one(&st->cost, c0, k, (uint32_t)mean);
		double acc = hp_sched_cost_am(&st->cost, st->acc, k, (uint32_t)mean);

		st->heavy[k] = acc > 0 && cpu / acc > HEAVY_PER_CPU * st->n_cpu;
		if (st->heavy[k])
			heavy_cyc += acc;
	}
	st->g_heavy = heavy_cyc > 0 ? hz / heavy_cyc : 0;
	st->rate1 = st->rate_min = st->util * st->g_all;
	st->rate_med = st->g_all;
	st->rate_max = st->g_heavy > 0 ? st->g_heavy : INFINITY;
	return 0;
}

int
hp_static_decide(struct hp_static *st, const struct hp_sched *s,
		 const struct hp_sched_pkt *p, enum hp_static_line *line)
{
	uint64_t budget = p->deadline == 0 ? UINT64_MAX :
		p->deadline > p->t_rx ? p->deadline - p->t_rx : 0;
	double rate = s->rate_pps;
	int d;

	if (!s->env->task_gran) {
		/* Algorithm 1 */
		if (p->len <= st->size_cpu && budget > st->lat_cpu && rate > st->rate1 &&
		    !p->reorder) {
			*line = HP_STATIC_A1_CPU;
			d = cpu_least(st, s);
		} else {
			*line = HP_STATIC_A1_ACC;
			d = acc_if_room(st, s);
		}
		if (d >= 0)
			return d;
		if (budget < st->lat_cpu || p->reorder) {
			*line = HP_STATIC_A1_RETRY;
			return -1;
		}
		*line = HP_STATIC_A1_FALLBACK;
		d = fallback(st, s);
		if (d < 0)
			*line = HP_STATIC_WAIT;
		return d;
	}
	if (st->heavy[p->step]) {
		/* Algorithm 2 */
		*line = HP_STATIC_A2_ACC;
		return acc_if_room(st, s);
	}
	/* Algorithm 3 */
	if (rate > st->rate_max && p->reorder) {
		/* a designated CPU worker per flow keeps its order */
		d = st->cpu[p->flow_id % st->n_cpu];
		d = s->room[d] > 0 && !s->dev[d].failed ? d : -1;
		*line = HP_STATIC_A3_REORDER_CPU;
	} else if (rate > st->rate_med && !p->reorder) {
		d = cpu_least(st, s);
		*line = HP_STATIC_A3_CPU_MED;
	} else if (rate > st->rate_min && !p->reorder && p->len < st->size_cpu) {
		d = cpu_least(st, s);
		*line = HP_STATIC_A3_CPU_MIN;
	} else {
		d = acc_if_room(st, s);
		*line = HP_STATIC_A3_ACC;
	}
	if (d >= 0)
		return d;
	if (rate < st->rate_min) {
		*line = HP_STATIC_A3_RETRY_LOW;
		return -1;
	}
	if (rate > st->rate_med && rate < st->rate_max && p->reorder) {
		*line = HP_STATIC_A3_RETRY_ORDER;
		return -1;
	}
	*line = HP_STATIC_A3_FALLBACK;
	d = fallback(st, s);
	if (d < 0)
		*line = HP_STATIC_WAIT;
	return d;
}

/* ---- ops ---- */

static int
static_check(struct hp_sched_env *env, char *err, size_t errlen)
{
	double util;

	return static_util(env, &util, err, errlen);
}

static int
static_init(struct hp_sched *s, char *err, size_t errlen)
{
	struct hp_static *st = calloc(1, sizeof(*st));
	int ret;

	if (st == NULL)
		return -ENOMEM;
	ret = hp_static_derive(st, s, err, errlen);
	if (ret < 0) {
		free(st);
		return ret;
	}
	s->priv = st;
	printf("static: size_cpu %u B, lat_cpu %.2f ms, accelerator %.0f pps (chain) %.0f pps (heavy tasks); rates: C1 %.0f, min %.0f, medium %.0f, max %.0f pps; heavy tasks:",
	       st->size_cpu, (double)st->lat_cpu / (double)s->env->hz * 1e3, st->g_all,
	       st->g_heavy, st->rate1, st->rate_min, st->rate_med, st->rate_max);
	for (unsigned int k = 0; k < s->env->n_tasks; k++)
		if (st->heavy[k])
			printf(" %s", s->env->task_names[k]);
	printf("\n");
	return 0;
}

static void
static_fini(struct hp_sched *s)
{
	free(s->priv);
	s->priv = NULL;
}

static int
static_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	struct hp_sched_pkt p;
	enum hp_static_line line;

	hp_sched_pkt_of(m, &p);
	return hp_static_decide(s->priv, s, &p, &line);
}

static const struct hp_sched_ops sched_static = {
	.name = "static",
	.desc = "thesis Algorithm 1 (chain) / 2-3 (task), thresholds from the profile (§4.9)",
	.params = (const char *const[]){ "util", NULL },
	.check = static_check,
	.init = static_init,
	.fini = static_fini,
	.pick = static_pick,
};
HP_SCHED_REGISTER(sched_static)
