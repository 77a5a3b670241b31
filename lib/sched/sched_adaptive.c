/* SPDX-License-Identifier: BSD-3-Clause
 * adaptive (ours, no training): predicts each packet's completion time on
 * every device and decides in this order:
 *   1. order: a packet of an order-needing flow goes where its flow
 *      already has packets in flight (for this task), or waits; a flow
 *      moves only when it has nothing in flight, so it never reorders
 *   2. deadlines: a latency-sensitive packet goes only to a device whose
 *      predicted completion (its backlog and its own service, scaled by
 *      the device's measured/predicted ratio kappa, plus the best case of
 *      the tasks after this one) meets the deadline; when none does, to
 *      the one that comes closest
 *   3. throughput: while the packets placed ask more of the accelerator
 *      than it has (demand > 90 % or its queue 3/4 of its horizon; off
 *      again below 75 % and half), an offload plan
 *      decides which go to the CPU workers: classes of packets (task x
 *      size bucket of the type table) sorted by how far the CPUs are
 *      behind on them (CPU cost / accelerator cost), the CPUs' time
 *      filled from the best class on (a fractional knapsack, redone every
 *      10 ms from the classes' rates). So the CPUs take what adds most
 *      throughput: AES before LDPC with granularity task, small LDPC
 *      units before large ones. Everything else waits for the accelerator
 *   4. otherwise the earliest predicted completion (at low and medium
 *      load an idle CPU worker serves a packet sooner than a batch)
 * A device whose backlog is beyond its horizon (what keeps it busy: two
 * batches inside and one filling for an accelerator, one accelerator
 * batch for a CPU worker) takes nothing new: the packet waits in the
 * scheduler (rx pauses, the port queue absorbs the burst) instead of in a
 * long device queue, so latency stays bounded while every device is busy.
 *
 * Service-time models: the devices' own (profile for modeled devices,
 * online measurement for CPU workers, --profile), cached as cost lines per
 * device and task, corrected online by kappa = measured busy time /
 * predicted work of the packets completed while the device had work.
 * Decision cost: per device a few multiply-adds; no model calls per packet.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_sched_policy.h"

#define N_FLOWS 65536          /* flow slots when env->max_flows is 0 */
#define HORIZON_BATCHES 3.0    /* accelerator: two batches inside, one
				 * filling (inflight=2 of the GPU worker) */
#define DEADLINE_HORIZON 1.5   /* latency-sensitive packets may queue deeper */
#define SAT_ON 0.90            /* accelerator demand that starts the plan */
#define SAT_OFF 0.75           /* ... and stops it */
#define CPU_TARGET 0.90        /* CPU utilisation the plan fills */
#define PLAN_TICKS 10          /* ms between plans */
#define RATE_TAU 0.3           /* s, class rates (a few hundred packets) */
#define CREDIT_MAX 4.0
#define KAPPA_MIN 0.5
#define KAPPA_MAX 8.0
#define KAPPA_WINDOW 2.0       /* horizons of busy time per kappa sample */

static unsigned int
cost_k(const struct hp_adaptive *a, const struct hp_sched *s, unsigned int step)
{
	return s->env->task_gran ? step : a->nt;
}

static double
amort(const struct hp_adaptive *a, const struct hp_sched *s, unsigned int d,
      const struct hp_sched_pkt *p)
{
	double c = hp_sched_cost_am(&a->cost, d, cost_k(a, s, p->step), p->len);

	return c > 0 ? c : 0;
}

static int
cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

unsigned int
hp_adaptive_bucket(const struct hp_adaptive *a, uint32_t len)
{
	unsigned int b = 0;

	while (b < a->n_bounds && len > a->bounds[b])
		b++;
	return b;
}

int
hp_adaptive_setup(struct hp_adaptive *a, const struct hp_sched *s, uint32_t n_flows,
		  char *err, size_t errlen)
{
	const struct hp_sched_env *env = s->env;
	uint32_t mean = (uint32_t)(env->imix_mean_bytes > 64 ? env->imix_mean_bytes : 64);
	double acc_batch = 0;
	unsigned int d, i;

	memset(a, 0, sizeof(*a));
	a->nt = env->n_tasks;
	a->acc = -1;
	a->cpu_target = CPU_TARGET;
	if (hp_sched_cost_update(s, &a->cost) == 0) {
		snprintf(err, errlen, "adaptive needs a service-time model of some device (modeled devices, a measured CPU, or --profile)");
		return -EINVAL;
	}
	a->n_flows = n_flows;
	a->flows = calloc((size_t)n_flows * HP_MAX_TASKS, sizeof(*a->flows));
	if (a->flows == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; env->types != NULL && i < env->types->n; i++)
		if (env->types->t[i].max_len < 65535)
			a->bounds[a->n_bounds++] = env->types->t[i].max_len;
	qsort(a->bounds, a->n_bounds, sizeof(a->bounds[0]), cmp_u32);
	/* horizons: an accelerator holds one batch in service and one
	 * filling; a CPU worker enough to stay busy while the packet at the
	 * head waits for the accelerator (one accelerator batch) */
	for (d = 0; d < s->n_dev; d++) {
		a->kappa[d] = 1.0;
		if (s->dev[d].role == HP_ROLE_CPU) {
			a->n_cpu++;
		} else if (a->cost.known[d]) {
			double b = (double)s->dev[d].max_batch *
				hp_sched_cost_am(&a->cost, d, a->nt, mean);

			a->horizon[d] = HORIZON_BATCHES * b;
			if (b > acc_batch) {
				acc_batch = b;
				a->acc = (int)d;
			}
		}
	}
	for (d = 0; d < s->n_dev; d++) {
		if (s->dev[d].role != HP_ROLE_CPU)
			continue;
		a->horizon[d] = acc_batch > 0 ? acc_batch :
			(double)s->dev[d].max_batch * hp_sched_cost_one(&a->cost, d, a->nt, mean);
		if (!(a->horizon[d] > 0))
			a->horizon[d] = (double)env->hz / 1000; /* unknown: 1 ms */
	}
	return 0;
}

void
hp_adaptive_free(struct hp_adaptive *a)
{
	free(a->flows);
	a->flows = NULL;
}

double
hp_adaptive_completion(const struct hp_adaptive *a, const struct hp_sched *s,
		       unsigned int d, const struct hp_sched_pkt *p)
{
	double one = hp_sched_cost_one(&a->cost, d, cost_k(a, s, p->step), p->len);

	return (double)s->now + a->kappa[d] * (a->backlog[d] + (one > 0 ? one : 0));
}

/* The best case of the tasks after this one (granularity task). */
static double
rest_of_chain(const struct hp_adaptive *a, const struct hp_sched *s,
	      const struct hp_sched_pkt *p)
{
	double rest = 0;
	unsigned int k, d;

	for (k = p->step + 1u; s->env->task_gran && k < a->nt; k++) {
		double best = INFINITY;

		for (d = 0; d < s->n_dev; d++) {
			double c = hp_sched_cost_one(&a->cost, d, k, p->len);

			if (a->cost.known[d] && !s->dev[d].failed && c < best)
				best = c;
		}
		rest += isinf(best) ? 0 : best;
	}
	return rest;
}

static struct hp_aflow *
flow_of(struct hp_adaptive *a, const struct hp_sched_pkt *p, const struct hp_sched *s)
{
	unsigned int k = s->env->task_gran ? p->step : 0;

	if (!p->reorder || p->flow_slot >= a->n_flows || k >= HP_MAX_TASKS)
		return NULL;
	return &a->flows[(size_t)p->flow_slot * HP_MAX_TASKS + k];
}

static struct hp_aclass *
class_of(struct hp_adaptive *a, const struct hp_sched *s, const struct hp_sched_pkt *p)
{
	unsigned int k = s->env->task_gran && p->step < HP_MAX_TASKS ? p->step : 0;

	return &a->cls[k][hp_adaptive_bucket(a, p->len)];
}

/* Whether device d's queue is within lim horizons. An accelerator's
 * horizon is also HORIZON_BATCHES full batches counted in packets: the
 * horizon in work is sized for the IMIX mean, and when the plan sends the
 * small packets to the CPUs the accelerator's packets cost more than that,
 * so the work horizon alone closed with the third batch at ~110 of 128
 * packets; it then left on the rate target or the timeout, and every
 * launch cost a whole batch's fixed time for fewer packets (C1 stress:
 * mean batch 123 vs 127, ~2 % of the accelerator's throughput). */
static bool
within_horizon(const struct hp_adaptive *a, const struct hp_sched *s, unsigned int d,
	       double lim)
{
	if (a->backlog[d] < lim * a->horizon[d])
		return true;
	return s->dev[d].role != HP_ROLE_CPU && s->dev[d].max_batch > 1 &&
		(double)s->dev[d].queued < lim * HORIZON_BATCHES * (double)s->dev[d].max_batch;
}

/* Whether order-needing flow f (NULL: none) is too heavy for a CPU
 * worker: its packets, placed every f->gap cycles, would take more than
 * half of one (the first CPU worker's model; a flow throttled by a
 * worker's horizon shows that worker's whole rate, so it counts too).
 * A flow not placed yet (gap 0) counts as heavy: its first packet goes
 * to the accelerator, and from then on its placements tell. */
static bool
heavy(const struct hp_adaptive *a, const struct hp_sched *s, const struct hp_aflow *f,
      const struct hp_sched_pkt *p)
{
	unsigned int d;

	if (f == NULL || a->acc < 0)
		return false;
	for (d = 0; d < s->n_dev; d++)
		if (s->dev[d].role == HP_ROLE_CPU && a->cost.known[d])
			return hp_sched_cost_one(&a->cost, d, cost_k(a, s, p->step), p->len) *
				a->kappa[d] > 0.5 * f->gap;
	return false;
}

/* Places p on d; bound: it had to follow its flow (the plan cannot move
 * such packets, so they do not count as movable). */
static int
place(struct hp_adaptive *a, const struct hp_sched *s, const struct hp_sched_pkt *p,
      int d, bool bound)
{
	struct hp_aflow *f = flow_of(a, p, s);
	struct hp_aclass *c = class_of(a, s, p);

	a->backlog[d] += amort(a, s, (unsigned int)d, p);
	/* a class's rate counts its arrivals: placements for the first
	 * task, completions of the task before for the later ones (their
	 * placements lag whenever they wait for the CPUs) */
	if (p->step == 0 || !s->env->task_gran) {
		c->n++;
		c->n_free += !bound && !heavy(a, s, flow_of(a, p, s), p);
	}
	c->len += c->len > 0 ? (p->len - c->len) / 64 : p->len;
	if (f != NULL) {
		f->dev = (uint8_t)d;
		f->inflight++;
		if (f->t_last != 0 && s->now >= f->t_last)
			f->gap += ((double)(s->now - f->t_last) - f->gap) / 8;
		else
			f->gap = (double)s->env->hz; /* first: 1 s, light */
		f->t_last = s->now;
	}
	return d;
}

static int
take(struct hp_adaptive *a, const struct hp_sched *s, const struct hp_sched_pkt *p,
     int d)
{
	return place(a, s, p, d, false);
}

/* Not now: the packets behind it may go first, except its flow's. */
static int
hold(struct hp_adaptive *a, const struct hp_sched *s, struct hp_aflow *f)
{
	a->held++;
	if (f != NULL)
		f->skip_round = (uint32_t)(s->round + 1); /* 0: never */
	return HP_SCHED_SKIP;
}

int
hp_adaptive_decide(struct hp_adaptive *a, const struct hp_sched *s,
		   const struct hp_sched_pkt *p)
{
	struct hp_aflow *f = flow_of(a, p, s);
	double cmin = INFINITY, best_t = INFINITY, t_cl = INFINITY, rest, t[HP_SCHED_MAX_DEV];
	bool open[HP_SCHED_MAX_DEV];
	int cheapest = -1, pick = -1, closest = -1;
	unsigned int d;

	/* 1. order: after a skipped packet of its flow it waits too; it
	 * stays with the flow's device while the flow has packets there */
	if (f != NULL && f->skip_round == (uint32_t)(s->round + 1))
		return HP_SCHED_SKIP;
	if (f != NULL && f->inflight > 0) {
		d = f->dev;
		/* a flow follows its device only while that device is within
		 * its horizon; else it waits until its packets there are
		 * back, and then moves. A flow that is always in flight (one
		 * heavy flow: the thesis's traffic has one order sequence per
		 * type) would otherwise stay on a worker it overloads for the
		 * whole run: at stress a CPU worker got every type 1 packet
		 * and missed 88 % of them. (Not also "while it meets the
		 * deadline": when no device does, after a host stall, every
		 * latency-sensitive flow then got one packet per round trip
		 * and their held packets blocked rx: 0.03 Gbps.) */
		if (d < s->n_dev && s->room[d] > 0 && !s->dev[d].failed &&
		    within_horizon(a, s, d, p->deadline ? DEADLINE_HORIZON : 1.0)) {
			a->affine++;
			return place(a, s, p, (int)d, true);
		}
		if (d < s->n_dev && !s->dev[d].failed)
			return hold(a, s, f);
		/* its device failed: what it holds finishes on that device's
		 * CPU path, in order; start afresh */
	}
	for (d = 0; d < s->n_dev; d++) {
		double c = amort(a, s, d, p);

		/* a latency-sensitive packet may go a little beyond the
		 * horizon rather than wait in front of it */
		open[d] = a->cost.known[d] && !s->dev[d].failed && s->room[d] > 0 &&
			within_horizon(a, s, d, p->deadline ? DEADLINE_HORIZON : 1.0);
		t[d] = open[d] ? hp_adaptive_completion(a, s, d, p) : INFINITY;
		if (a->cost.known[d] && !s->dev[d].failed && c < cmin) {
			cmin = c;
			cheapest = (int)d;
		}
	}
	if (cheapest < 0) {
		/* no model at all: the least-queued device with room */
		int lq = hp_sched_least_queued(s, HP_ROLE_ACCEL);

		return lq >= 0 ? lq : hp_sched_least_queued(s, HP_ROLE_CPU);
	}
	/* 2. deadlines: only devices that meet it; if none, the closest */
	if (p->deadline != 0) {
		bool any = false;

		rest = rest_of_chain(a, s, p);
		for (d = 0; d < s->n_dev; d++) {
			if (!open[d])
				continue;
			if (t[d] + rest < t_cl) {
				t_cl = t[d] + rest;
				closest = (int)d;
			}
			if (t[d] + rest > (double)p->deadline)
				open[d] = false;
			else
				any = true;
		}
		if (!any)
			return closest >= 0 ? take(a, s, p, closest) : hold(a, s, f);
	}
	/* 2b. a heavy flow that needs order (its packets would fill half a
	 * CPU worker) starts on the accelerator, like the thesis's static
	 * sends every reorder packet to the GPU: on a CPU worker it is
	 * capped at that worker's rate, and with one order sequence per
	 * type at stress that held every packet behind it (C1: 0.03 Gbps).
	 * A CPU only when the accelerator misses a deadline that a CPU
	 * meets; otherwise the flow waits for room */
	if (heavy(a, s, f, p) && !s->dev[a->acc].failed) {
		if (open[a->acc])
			return take(a, s, p, a->acc);
		if (p->deadline == 0)
			return hold(a, s, f);
	}
	/* 3. the offload plan while the accelerator is short of time */
	if (a->sat && cheapest == a->acc) {
		struct hp_aclass *c = class_of(a, s, p);

		if (c->x > 0) {
			c->credit = fmin(CREDIT_MAX, c->credit + c->x);
			if (c->credit >= 1) {
				/* the marginal class (x < 1) may fill half of a
				 * CPU's horizon: the rest stays for the classes
				 * planned wholly for the CPUs */
				double lim = c->x >= 1.0 ? 1.0 : 0.5;

				for (d = 0; d < s->n_dev; d++)
					if (open[d] && s->dev[d].role == HP_ROLE_CPU &&
					    a->backlog[d] < lim * a->horizon[d] && t[d] < best_t) {
						best_t = t[d];
						pick = (int)d;
					}
				if (pick >= 0) {
					c->credit -= 1;
					a->spilled++;
					return take(a, s, p, pick);
				}
				/* a class planned wholly for the CPUs waits
				 * for them: a few of its packets would cost
				 * the accelerator a batch launch each (not a
				 * packet with a deadline: that one goes on) */
				if (c->x >= 1.0 && p->deadline == 0)
					return hold(a, s, f);
			}
		}
		if (open[cheapest])
			return take(a, s, p, cheapest);
		if (p->deadline == 0)
			return hold(a, s, f);
		/* a deadline another device meets: step 4 */
	}
	/* 4. the earliest predicted completion */
	for (d = 0; d < s->n_dev; d++)
		if (open[d] && t[d] < best_t) {
			best_t = t[d];
			pick = (int)d;
		}
	if (pick < 0)
		return hold(a, s, f);
	return take(a, s, p, pick);
}

void
hp_adaptive_done(struct hp_adaptive *a, const struct hp_sched *s,
		 const struct hp_sched_pkt *p, unsigned int d, unsigned int step)
{
	struct hp_sched_pkt q = *p;
	struct hp_aflow *f;
	double w;

	/* the task it ran (the packet's step has moved on) */
	q.step = step == HP_MAX_TASKS ? 0 : (uint8_t)step;
	w = amort(a, s, d, &q);
	a->backlog[d] = a->backlog[d] > w ? a->backlog[d] - w : 0;
	a->done_work[d] += w;
	if (s->env->task_gran && step != HP_MAX_TASKS && step + 1u < a->nt) {
		struct hp_sched_pkt nx = q;
		struct hp_aclass *c;

		nx.step = (uint8_t)(step + 1);
		c = class_of(a, s, &nx);
		c->n++;
		c->n_free++;
	}
	f = flow_of(a, &q, s);
	if (f != NULL && f->inflight > 0)
		f->inflight--;
}

/* One class of the knapsack, sorted by ratio. */
struct cand {
	struct hp_aclass *c;
	double ratio, cpu_cost;
};

static int
cmp_cand(const void *x, const void *y)
{
	double a = ((const struct cand *)x)->ratio, b = ((const struct cand *)y)->ratio;

	return a < b ? -1 : a > b;
}

void
hp_adaptive_plan(struct hp_adaptive *a, const struct hp_sched *s, double dt)
{
	struct cand cd[HP_MAX_TASKS * HP_A_BUCKETS];
	double hz = (double)s->env->hz, budget = 0, w = dt > 0 ? 1.0 - exp(-dt / RATE_TAU) : 0, bl;
	unsigned int k, b, d, n = 0, nk = s->env->task_gran ? a->nt : 1, i;
	int c0 = -1;

	a->demand = 0;
	for (d = 0; d < s->n_dev; d++)
		if (s->dev[d].role == HP_ROLE_CPU && a->cost.known[d] && !s->dev[d].failed) {
			if (c0 < 0)
				c0 = (int)d;
			budget += a->cpu_target / a->kappa[d];
		}
	for (k = 0; k < nk; k++) {
		for (b = 0; b <= a->n_bounds; b++) {
			struct hp_aclass *c = &a->cls[k][b];
			double acc, cpu;
			uint32_t len;

			if (dt > 0) {
				c->rate += w * ((double)c->n / dt - c->rate);
				c->rate_free += w * ((double)c->n_free / dt - c->rate_free);
			}
			c->n = c->n_free = 0;
			c->x = 0;
			if (c->rate <= 0 || a->acc < 0 || c0 < 0)
				continue;
			len = (uint32_t)c->len;
			acc = hp_sched_cost_am(&a->cost, (unsigned int)a->acc, cost_k(a, s, k), len) *
				a->kappa[a->acc];
			cpu = hp_sched_cost_one(&a->cost, (unsigned int)c0, cost_k(a, s, k), len);
			a->demand += c->rate * acc / hz;
			if (acc > 0 && cpu > 0)
				cd[n++] = (struct cand){ c, cpu / acc, cpu };
		}
	}
	/* on when the mix asks too much or the accelerator's queue says so
	 * (rates of a few packets per window are noisy); off when neither */
	bl = a->acc >= 0 && a->horizon[a->acc] > 0 ? a->backlog[a->acc] / a->horizon[a->acc] : 0;
	if (a->demand > SAT_ON || bl > 0.75)
		a->sat = true;
	else if (a->demand < SAT_OFF && bl < 0.5)
		a->sat = false;
	if (!a->sat)
		return;
	/* fractional knapsack: CPU seconds per second, best ratio first */
	qsort(cd, n, sizeof(cd[0]), cmp_cand);
	for (i = 0; i < n && budget > 0; i++) {
		double need = cd[i].c->rate_free * cd[i].cpu_cost / hz;

		cd[i].c->x = need <= budget ? 1.0 : budget / need;
		budget -= need * cd[i].c->x;
	}
}

void
hp_adaptive_tick(struct hp_adaptive *a, const struct hp_sched *s, uint64_t now)
{
	uint64_t dt = a->last_tick ? now - a->last_tick : 0;
	unsigned int d;

	a->last_tick = now;
	a->ticks++;
	for (d = 0; d < s->n_dev; d++) {
		/* resynchronise: nothing queued means no backlog */
		if (s->dev[d].queued == 0)
			a->backlog[d] = 0;
		else
			a->busy_cyc[d] += dt;
	}
	if (a->ticks % PLAN_TICKS == 0) {
		if (a->last_plan != 0)
			hp_adaptive_plan(a, s, (double)(now - a->last_plan) / (double)s->env->hz);
		a->last_plan = now;
	}
	/* kappa: measured busy time over predicted work completed, once a
	 * device had work for two horizons (several of its batches: a batch
	 * completes all at once, so shorter windows see all or nothing) */
	for (d = 0; d < s->n_dev; d++) {
		if ((double)a->busy_cyc[d] < KAPPA_WINDOW * a->horizon[d])
			continue;
		if (a->done_work[d] > 0) {
			double k = (double)a->busy_cyc[d] / a->done_work[d];

			k = fmin(KAPPA_MAX, fmax(KAPPA_MIN, k));
			a->kappa[d] += 0.25 * (k - a->kappa[d]);
		}
		a->done_work[d] = 0;
		a->busy_cyc[d] = 0;
	}
	if (getenv("HP_ADAPTIVE_DEBUG") && a->ticks % 500 == 0) {
		fprintf(stderr, "adaptive t%" PRIu64 " sat %d demand %.2f rate %.0f |", a->ticks,
			a->sat, a->demand, s->rate_pps);
		for (d = 0; d < s->n_dev; d++)
			fprintf(stderr, " d%u q%u bl %.1f/%.1f ms k %.2f", d, s->dev[d].queued,
				a->backlog[d] / (double)s->env->hz * 1e3,
				a->horizon[d] / (double)s->env->hz * 1e3, a->kappa[d]);
		fprintf(stderr, " | x");
		for (unsigned int k = 0; k < (s->env->task_gran ? a->nt : 1); k++)
			for (unsigned int b = 0; b <= a->n_bounds; b++)
				fprintf(stderr, " %.2f", a->cls[k][b].x);
		fprintf(stderr, "\n");
	}
}

/* ---- ops ---- */

static int
adaptive_init(struct hp_sched *s, char *err, size_t errlen)
{
	struct hp_adaptive *a = calloc(1, sizeof(*a));
	int ret;

	if (a == NULL)
		return -ENOMEM;
	ret = hp_adaptive_setup(a, s, s->env->max_flows ? s->env->max_flows : N_FLOWS,
				err, errlen);
	if (ret < 0) {
		free(a);
		return ret;
	}
	s->priv = a;
	return 0;
}

static void
adaptive_fini(struct hp_sched *s)
{
	struct hp_adaptive *a = s->priv;

	if (a == NULL)
		return;
	hp_adaptive_free(a);
	free(a);
	s->priv = NULL;
}

static int
adaptive_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	struct hp_sched_pkt p;

	hp_sched_pkt_of(m, &p);
	return hp_adaptive_decide(s->priv, s, &p);
}

static void
adaptive_done(struct hp_sched *s, struct rte_mbuf *m, unsigned int d, unsigned int step,
	      uint64_t now)
{
	struct hp_sched_pkt p;

	RTE_SET_USED(now);
	hp_sched_pkt_of(m, &p);
	hp_adaptive_done(s->priv, s, &p, d, step);
}

static void
adaptive_tick(struct hp_sched *s, uint64_t now)
{
	hp_adaptive_tick(s->priv, s, now);
}

static int
adaptive_finish(struct hp_sched *s, char *err, size_t errlen)
{
	struct hp_adaptive *a = s->priv;

	RTE_SET_USED(err);
	RTE_SET_USED(errlen);
	printf("adaptive: %" PRIu64 " packets spilled to CPU workers by the plan, %" PRIu64 " kept with their flow; kappa",
	       a->spilled, a->affine);
	for (unsigned int d = 0; d < s->n_dev; d++)
		printf(" %.2f", a->kappa[d]);
	printf("\n");
	return 0;
}

static const struct hp_sched_ops sched_adaptive = {
	.name = "adaptive",
	.desc = "ours: predicted completion per device, deadlines first, flow affinity, offload plan by cost (no training)",
	.init = adaptive_init,
	.fini = adaptive_fini,
	.pick = adaptive_pick,
	.done = adaptive_done,
	.tick = adaptive_tick,
	.finish = adaptive_finish,
};
HP_SCHED_REGISTER(sched_adaptive)
