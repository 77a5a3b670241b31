/* SPDX-License-Identifier: BSD-3-Clause
 * The balancer's decision over a load table (see hp_svc_balance.h).
 *
 * Load mode is the thesis's §4.4 rule: a core over the threshold gives its
 * lightest service that is not alone to the least-loaded allowed core, if
 * that core stays under the threshold. Delay mode (§8.1) triggers on the
 * services' measured delays and picks the single move that minimises a
 * queueing prediction of the total delay. Scale-down (§8.3) empties the
 * coldest core when every core is cold, then parks it. Anti-thrashing:
 * a core must be hot for 'sustain' intervals, a moved service is frozen
 * for 'cooldown' intervals (doubled each time it returns to the core it
 * left), a receiver must end 'hysteresis' under the threshold and the
 * busier core must gain at least 'min_gain'; in delay mode the same move
 * must come out best for 'sustain' intervals in a row.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hp_svc_balance.h"

void
hp_svc_policy_default(struct hp_svc_policy *p)
{
	*p = (struct hp_svc_policy){
		.mode = HP_SVC_MODE_LOAD,
		.threshold = 0.70,
		.hysteresis = 0.05,
		.min_gain = 0.03,
		.sustain = 2,
		.cooldown = 20,
		.cooldown_max = 640,
		.delay_target = 2000.0,
		.delay_min_gain = 0.20,
		.scale_down = false,
		.scale_down_threshold = 0.20,
		.scale_down_sustain = 20,
		.scale_down_max_delay = 0.10,
		.scale_down_measure = HP_SVC_SD_RESPONSE,
	};
}

int
hp_svc_policy_check(const struct hp_svc_policy *p)
{
	if (p == NULL)
		return -EINVAL;
	if (p->mode != HP_SVC_MODE_LOAD && p->mode != HP_SVC_MODE_DELAY)
		return -EINVAL;
	if (!(p->threshold > 0.0 && p->threshold <= 1.0) ||
	    !(p->hysteresis >= 0.0 && p->hysteresis < p->threshold) ||
	    !(p->min_gain >= 0.0 && p->min_gain < 1.0) ||
	    !(p->delay_target >= 0.0) || !(p->delay_min_gain >= 0.0) ||
	    !(p->scale_down_threshold >= 0.0 &&
	      p->scale_down_threshold < p->threshold) ||
	    isnan(p->scale_down_max_delay) ||
	    (p->scale_down_measure != HP_SVC_SD_RESPONSE &&
	     p->scale_down_measure != HP_SVC_SD_WAIT))
		return -EINVAL;
	if (p->cooldown_max < p->cooldown)
		return -EINVAL;
	return 0;
}

void
hp_svc_bstate_init(struct hp_svc_bstate *st)
{
	unsigned int s;

	memset(st, 0, sizeof(*st));
	for (s = 0; s < HP_SVC_MAX_SERVICES; s++)
		st->last_from[s] = -1;
	st->sd_victim = -1;
}

const char *
hp_svc_action_name(enum hp_svc_action a)
{
	switch (a) {
	case HP_SVC_ACT_NONE: return "none";
	case HP_SVC_ACT_MOVE: return "move";
	case HP_SVC_ACT_DROP: return "drop";
	case HP_SVC_ACT_PARK: return "park";
	}
	return "?";
}

double
hp_svc_table_lcore_load(const struct hp_svc_table *t, uint32_t l)
{
	double sum = 0.0;
	unsigned int s;

	for (s = 0; s < HP_SVC_MAX_SERVICES; s++)
		if (t->present & (UINT64_C(1) << s))
			sum += t->cell[s][l].load;
	return sum;
}

double
hp_svc_predict_wait(const double *rho, const double *work, unsigned int n)
{
	double r = 0.0, res = 0.0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		r += rho[i];
		res += rho[i] * work[i] / 2.0;
	}
	if (r > 0.99)
		r = 0.99;
	return res / (1.0 - r);
}

double
hp_svc_predict_delay(const double *rho, const double *work, unsigned int n,
		     double loop)
{
	return hp_svc_predict_wait(rho, work, n) + (loop > 0.0 ? loop / 2.0 : 0.0);
}

/* ---- working view of a table: one entry per running instance ---- */

struct inst {
	uint32_t s;		/* service */
	uint32_t l;		/* lcore index */
	double load;
	double work;		/* cycles per useful call */
	double rate;		/* useful calls per cycle */
	double poll;		/* cycles of one idle call (0: unknown) */
};

#define NOWHERE UINT32_MAX	/* an instance a plan drops */

struct view {
	const struct hp_svc_table *t;
	double load[HP_SVC_MAX_LCORES];	/* measured load per lcore */
	uint32_t n_on[HP_SVC_MAX_LCORES];	/* services mapped per lcore */
	struct inst in[HP_SVC_MAX_SERVICES * HP_SVC_MAX_LCORES];
	unsigned int n_in;
	double runner;			/* runner cycles per loop where unknown */
	uint32_t at[HP_SVC_MAX_SERVICES * HP_SVC_MAX_LCORES]; /* a plan's lcores */
};

static inline bool
bit32(uint32_t m, uint32_t i)
{
	return (m >> i) & 1u;
}

static int
view_build(struct view *v, const struct hp_svc_table *t)
{
	unsigned int known = 0;
	uint32_t s, l;

	if (t->n_lcores == 0 || t->n_lcores > HP_SVC_MAX_LCORES)
		return -EINVAL;
	memset(v->load, 0, sizeof(v->load));
	memset(v->n_on, 0, sizeof(v->n_on));
	v->t = t;
	v->n_in = 0;
	for (l = 0; l < t->n_lcores; l++)
		v->load[l] = hp_svc_table_lcore_load(t, l);
	for (s = 0; s < HP_SVC_MAX_SERVICES; s++) {
		if (!(t->present & (UINT64_C(1) << s)))
			continue;
		if (t->n_lcores < 32 && (t->running[s] >> t->n_lcores) != 0)
			return -EINVAL;
		for (l = 0; l < t->n_lcores; l++) {
			const struct hp_svc_cell *c = &t->cell[s][l];

			if (!(c->load >= 0.0) || c->load > 1.5 ||
			    !(c->idle_cycles >= 0.0) || isinf(c->idle_cycles))
				return -EINVAL;
			if (!bit32(t->running[s], l))
				continue;
			v->n_on[l]++;
			v->in[v->n_in++] = (struct inst){
				.s = s, .l = l, .load = c->load,
				.work = c->jobs ? c->load * (double)t->interval_cycles /
						  (double)c->jobs : 0.0,
				.rate = t->interval_cycles ?
					(double)c->jobs / (double)t->interval_cycles : 0.0,
				.poll = c->idle_calls ?
					c->idle_cycles / (double)c->idle_calls : 0.0,
			};
		}
	}
	/* a parked lcore's runner cost is not measured: take the mean of
	 * the measured ones (the same runner code on the same machine)
	 */
	v->runner = 0.0;
	for (l = 0; l < t->n_lcores; l++) {
		if (!(t->loop_cycles[l] >= 0.0) || isinf(t->loop_cycles[l]))
			return -EINVAL;
		if (t->loop_cycles[l] > 0.0) {
			v->runner += t->loop_cycles[l];
			known++;
		}
	}
	if (known > 0)
		v->runner /= (double)known;
	return 0;
}

static double
runner_cycles(const struct view *v, uint32_t l)
{
	return v->t->loop_cycles[l] > 0.0 ? v->t->loop_cycles[l] : v->runner;
}

/* Delay cost of lcore l (jobs per cycle times predicted wait) with instance
 * 'minus' taken away and instance 'plus' added (either may be NULL).
 */
static double
lcore_cost(const struct view *v, uint32_t l, const struct inst *minus,
	   const struct inst *plus)
{
	double rho[HP_SVC_MAX_SERVICES + 1], work[HP_SVC_MAX_SERVICES + 1];
	double rate = 0.0, loop = runner_cycles(v, l);
	unsigned int i, n = 0;

	for (i = 0; i < v->n_in; i++) {
		const struct inst *x = &v->in[i];

		if (x->l != l || x == minus)
			continue;
		rho[n] = x->load;
		work[n++] = x->work;
		rate += x->rate;
		loop += x->poll;
	}
	if (plus != NULL) {
		rho[n] = plus->load;
		work[n++] = plus->work;
		rate += plus->rate;
		loop += plus->poll;
	}
	return n ? rate * hp_svc_predict_delay(rho, work, n, loop) : 0.0;
}

/* Delay cost of lcore l when instance i sits on at[i] (a plan). */
static double
lcore_cost_at(const struct view *v, uint32_t l, const uint32_t *at)
{
	double rho[HP_SVC_MAX_SERVICES], work[HP_SVC_MAX_SERVICES];
	double rate = 0.0, loop = runner_cycles(v, l);
	unsigned int i, n = 0;

	for (i = 0; i < v->n_in && n < HP_SVC_MAX_SERVICES; i++) {
		if (at[i] != l)
			continue;
		rho[n] = v->in[i].load;
		work[n++] = v->in[i].work;
		rate += v->in[i].rate;
		loop += v->in[i].poll;
	}
	return n ? rate * hp_svc_predict_delay(rho, work, n, loop) : 0.0;
}

static double
total_cost(const struct view *v)
{
	double d = 0.0;
	uint32_t l;

	for (l = 0; l < v->t->n_lcores; l++)
		d += lcore_cost(v, l, NULL, NULL);
	return d;
}

static bool
frozen(const struct hp_svc_bstate *st, uint32_t s)
{
	return st->frozen_until[s] > st->interval;
}

/* Least-loaded lcore that may take instance x: allowed for the service,
 * not its current lcore, no instance of it already (multi-instance rule),
 * and ending at or under the receiver limit. Active lcores first; a parked
 * one only when scale-down (and so scale-up) is on. -1 when none.
 */
static int
find_receiver(const struct hp_svc_policy *p, const struct view *v,
	      const struct inst *x, bool *unpark)
{
	const struct hp_svc_table *t = v->t;
	double limit = p->threshold - p->hysteresis;
	int best = -1, parked = -1;
	uint32_t l;

	for (l = 0; l < t->n_lcores; l++) {
		if (l == x->l || !bit32(t->allowed[x->s], l) ||
		    bit32(t->running[x->s], l))
			continue;
		if (!bit32(t->active, l)) {
			if (parked < 0)
				parked = (int)l;
			continue;
		}
		if (best < 0 || v->load[l] < v->load[best])
			best = (int)l;
	}
	*unpark = false;
	if (best >= 0 && v->load[best] + x->load <= limit)
		return best;
	if (p->scale_down && parked >= 0 && x->load <= limit) {
		*unpark = true;
		return parked;
	}
	return -1;
}

static void
note_move(const struct hp_svc_policy *p, struct hp_svc_bstate *st,
	  const struct hp_svc_decision *d, bool scale_down)
{
	uint32_t s = d->service;

	/* A service that stayed put long enough earns a fresh cooldown; one
	 * that goes back to the core it just left waits twice as long.
	 */
	if (st->backoff[s] == 0 ||
	    st->interval - st->moved_at[s] > 4ull * st->backoff[s])
		st->backoff[s] = p->cooldown;
	else if (d->action == HP_SVC_ACT_MOVE && st->last_from[s] == (int32_t)d->to)
		st->backoff[s] = st->backoff[s] * 2 > p->cooldown_max ?
				 p->cooldown_max : st->backoff[s] * 2;
	st->frozen_until[s] = st->interval + 1 + st->backoff[s];
	st->moved_at[s] = st->interval;
	st->last_from[s] = (int32_t)d->from;
	st->hot[d->from] = 0;
	if (d->action == HP_SVC_ACT_MOVE)
		st->hot[d->to] = 0;
	/* a scale-down step keeps going; any other move ends a cold spell */
	if (!scale_down)
		st->cold = 0;
}

/* Instances on lcore l, lightest first (insertion sort: tens of entries). */
static unsigned int
instances_on(const struct view *v, uint32_t l, const struct inst **out)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < v->n_in; i++) {
		if (v->in[i].l != l)
			continue;
		for (j = n; j > 0 && out[j - 1]->load > v->in[i].load; j--)
			out[j] = out[j - 1];
		out[j] = &v->in[i];
		n++;
	}
	return n;
}

static int
try_threshold(const struct hp_svc_policy *p, const struct view *v,
	      const struct hp_svc_bstate *st, struct hp_svc_decision *d)
{
	const struct hp_svc_table *t = v->t;
	const struct inst *on[HP_SVC_MAX_SERVICES];
	uint32_t order[HP_SVC_MAX_LCORES];
	unsigned int n = 0, i, j, k;

	/* hot cores, busiest first */
	for (i = 0; i < t->n_lcores; i++) {
		if (!bit32(t->active, i) || st->hot[i] < p->sustain ||
		    v->load[i] <= p->threshold)
			continue;
		for (j = n; j > 0 && v->load[order[j - 1]] < v->load[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	for (i = 0; i < n; i++) {
		uint32_t src = order[i];
		unsigned int m;

		if (v->n_on[src] < 2)	/* alone: moving it only moves the problem */
			continue;
		m = instances_on(v, src, on);
		for (k = 0; k < m; k++) {
			const struct inst *x = on[k];
			double after_src, after_r, gain;
			bool unpark;
			int r;

			if (frozen(st, x->s))
				continue;
			r = find_receiver(p, v, x, &unpark);
			if (r < 0)
				continue;
			after_src = v->load[src] - x->load;
			after_r = (unpark ? 0.0 : v->load[r]) + x->load;
			gain = v->load[src] - (after_src > after_r ? after_src : after_r);
			if (gain < p->min_gain)
				continue;
			*d = (struct hp_svc_decision){
				.action = HP_SVC_ACT_MOVE, .service = x->s,
				.from = src, .to = (uint32_t)r, .unpark = unpark,
				.reason = unpark ? "threshold, scale-up" : "threshold",
				.before = v->load[src],
				.after = after_src > after_r ? after_src : after_r,
			};
			return 1;
		}
	}
	return 0;
}

/* Delay mode: the single move that most lowers the predicted total delay,
 * from a core where some service's delay is over the target. Measured
 * delays and loads are noisy (a preempted lcore, a burst), so the same
 * move must come out best for 'sustain' intervals in a row.
 */
static int
try_delay(const struct hp_svc_policy *p, const struct view *v,
	  struct hp_svc_bstate *st, struct hp_svc_decision *d)
{
	const struct hp_svc_table *t = v->t;
	double limit = p->threshold - p->hysteresis;
	double cur, best = INFINITY;
	const struct inst *bx = NULL;
	uint32_t br = 0;
	bool bunpark = false;
	unsigned int i;
	uint32_t r;

	cur = total_cost(v);
	for (i = 0; i < v->n_in; i++) {
		const struct inst *x = &v->in[i];
		bool parked_tried = false;

		if (!bit32(t->active, x->l) || st->hot[x->l] == 0 ||
		    v->n_on[x->l] < 2 || frozen(st, x->s))
			continue;
		for (r = 0; r < t->n_lcores; r++) {
			bool unpark = !bit32(t->active, r);
			struct inst moved = *x;
			double c;

			if (r == x->l || !bit32(t->allowed[x->s], r) ||
			    bit32(t->running[x->s], r))
				continue;
			if (unpark && (!p->scale_down || parked_tried))
				continue;
			if ((unpark ? 0.0 : v->load[r]) + x->load > limit)
				continue;
			parked_tried |= unpark;
			moved.l = r;
			c = cur - lcore_cost(v, x->l, NULL, NULL) -
			    lcore_cost(v, r, NULL, NULL) +
			    lcore_cost(v, x->l, x, NULL) + lcore_cost(v, r, NULL, &moved);
			if (c < best) {
				best = c;
				bx = x;
				br = r;
				bunpark = unpark;
			}
		}
	}
	if (bx == NULL || !(cur - best >= p->delay_min_gain * cur) || cur <= 0.0) {
		st->dcand_n = 0;
		return 0;
	}
	if (st->dcand_n > 0 && st->dcand_s == (int32_t)bx->s &&
	    st->dcand_from == (int32_t)bx->l && st->dcand_to == (int32_t)br) {
		st->dcand_n++;
	} else {
		st->dcand_s = (int32_t)bx->s;
		st->dcand_from = (int32_t)bx->l;
		st->dcand_to = (int32_t)br;
		st->dcand_n = 1;
	}
	if (st->dcand_n < p->sustain)
		return 0;
	st->dcand_n = 0;
	*d = (struct hp_svc_decision){
		.action = HP_SVC_ACT_MOVE, .service = bx->s, .from = bx->l,
		.to = br, .unpark = bunpark,
		.reason = bunpark ? "delay, scale-up" : "delay",
		.before = cur, .after = best,
	};
	return 1;
}

/* Job rates and loads of the instances over the cold spell (a service's
 * split evenly over its instances), in place of the last interval's.
 */
static void
spell_rates(struct view *v, const struct hp_svc_bstate *st)
{
	unsigned int i;

	if (st->sd_cycles == 0)
		return;
	for (i = 0; i < v->n_in; i++) {
		struct inst *x = &v->in[i];
		int n = __builtin_popcount(v->t->running[x->s]);

		x->rate = (double)st->sd_jobs[x->s] / (double)st->sd_cycles /
			  (double)(n > 0 ? n : 1);
		x->load = st->sd_busy[x->s] / (double)st->sd_cycles /
			  (double)(n > 0 ? n : 1);
		x->work = st->sd_jobs[x->s] ?
			  st->sd_busy[x->s] / (double)st->sd_jobs[x->s] : 0.0;
	}
}

/* Scale-down: empty the coldest core whose every instance can go elsewhere
 * (first fit, heaviest first, each receiver staying under the threshold),
 * one step per interval; park it once empty. The delay guard prices the
 * whole plan (the delay prediction of every lcore after it against before
 * it: queueing, and the round-robin loop that the receivers' runners now
 * take longer to come round, which is all a job waits for at low load)
 * when the plan starts; a plan under way (*victim) is carried
 * on without pricing it again, so it cannot stop half-way because the
 * first step changed the measurements.
 */
static int
try_scale_down(const struct hp_svc_policy *p, struct view *v,
	       const struct hp_svc_bstate *st, struct hp_svc_decision *d,
	       int *victim_out)
{
	const struct hp_svc_table *t = v->t;
	double limit = p->threshold - p->hysteresis;
	uint32_t tried = 0;
	unsigned int n_active = 0, i;
	uint32_t l;

	for (l = 0; l < t->n_lcores; l++)
		n_active += bit32(t->active, l);
	if (n_active < 2)
		return 0;
	spell_rates(v, st);
	for (;;) {
		const struct inst *on[HP_SVC_MAX_SERVICES];
		double load[HP_SVC_MAX_LCORES], before, after;
		uint32_t running[HP_SVC_MAX_SERVICES];
		struct hp_svc_decision first = { .action = HP_SVC_ACT_NONE };
		int victim = -1;
		bool ok = true, committed = false;
		unsigned int m, k;

		if (st->sd_victim >= 0 && (uint32_t)st->sd_victim < t->n_lcores &&
		    bit32(t->active, (uint32_t)st->sd_victim) &&
		    !bit32(tried, (uint32_t)st->sd_victim)) {
			victim = st->sd_victim;
			committed = true;
		} else {
			for (l = 0; l < t->n_lcores; l++) {
				if (!bit32(t->active, l) || bit32(tried, l))
					continue;
				if (victim < 0 || v->load[l] <= v->load[victim])
					victim = (int)l;
			}
		}
		if (victim < 0)
			return 0;
		tried |= 1u << victim;
		m = instances_on(v, (uint32_t)victim, on);
		if (m == 0) {
			*d = (struct hp_svc_decision){
				.action = HP_SVC_ACT_PARK, .from = (uint32_t)victim,
				.reason = "scale-down",
				.before = v->load[victim], .after = 0.0,
			};
			*victim_out = victim;
			return 1;
		}
		memcpy(load, v->load, sizeof(load));
		memcpy(running, t->running, sizeof(running));
		for (i = 0; i < v->n_in; i++)
			v->at[i] = v->in[i].l;
		for (k = m; k-- > 0 && ok;) {	/* heaviest first */
			const struct inst *x = on[k];
			uint32_t others = running[x->s] & t->active &
					  ~(1u << victim);
			struct hp_svc_decision step;
			int r = -1;

			if (frozen(st, x->s)) {
				ok = false;
				break;
			}
			if ((t->mt_safe & (UINT64_C(1) << x->s)) && others) {
				v->at[x - v->in] = NOWHERE;
				step = (struct hp_svc_decision){
					.action = HP_SVC_ACT_DROP, .service = x->s,
					.from = x->l, .reason = "scale-down",
				};
			} else {
				for (l = 0; l < t->n_lcores; l++) {
					if (l == (uint32_t)victim ||
					    !bit32(t->active, l) ||
					    !bit32(t->allowed[x->s], l) ||
					    bit32(running[x->s], l))
						continue;
					if (r < 0 || load[l] < load[r])
						r = (int)l;
				}
				if (r < 0 || load[r] + x->load > limit) {
					ok = false;
					break;
				}
				v->at[x - v->in] = (uint32_t)r;
				load[r] += x->load;
				running[x->s] |= 1u << r;
				step = (struct hp_svc_decision){
					.action = HP_SVC_ACT_MOVE, .service = x->s,
					.from = x->l, .to = (uint32_t)r,
					.reason = "scale-down",
					.before = v->load[victim], .after = load[r],
				};
			}
			if (first.action == HP_SVC_ACT_NONE)
				first = step;
		}
		if (!ok)
			continue;
		/* The delay guard: the plan's predicted extra delay (cycles of
		 * delay per cycle, summed over jobs) within the budget of the
		 * delay measured over the cold spell, or of the predicted one
		 * when no service reports delays. Job rates come from the whole
		 * spell: at low load an interval may hold no job at all, and a
		 * guard that needs one would wave every plan through.
		 * Bounding the response time (wait + service), the budget
		 * also holds the jobs' own service cycles per cycle, i.e. the
		 * services' summed load: a plan does not change how long a job
		 * runs, only how long it waits, so the extra is the same.
		 */
		if (!committed && p->scale_down_max_delay >= 0.0) {
			double ref;

			before = total_cost(v);
			after = 0.0;
			for (l = 0; l < t->n_lcores; l++)
				after += lcore_cost_at(v, l, v->at);
			ref = st->sd_delay_n > 0 && st->sd_cycles > 0 ?
			      st->sd_delay_sum / (double)st->sd_cycles : before;
			if (p->scale_down_measure == HP_SVC_SD_RESPONSE)
				for (i = 0; i < v->n_in; i++)
					ref += v->in[i].load;
			if (after - before > p->scale_down_max_delay * ref)
				continue;
		}
		*d = first;
		*victim_out = victim;
		return 1;
	}
}

/* Accumulate this interval into the cold spell, or start a fresh one. */
static void
spell_note(struct hp_svc_bstate *st, const struct hp_svc_table *t)
{
	uint32_t s, l;

	if (st->cold <= 1) {
		memset(st->sd_jobs, 0, sizeof(st->sd_jobs));
		memset(st->sd_busy, 0, sizeof(st->sd_busy));
		st->sd_cycles = 0;
		st->sd_delay_sum = 0.0;
		st->sd_delay_n = 0;
	}
	if (st->cold == 0)
		return;
	st->sd_cycles += t->interval_cycles;
	for (s = 0; s < HP_SVC_MAX_SERVICES; s++) {
		if (!(t->present & (UINT64_C(1) << s)))
			continue;
		for (l = 0; l < t->n_lcores; l++) {
			st->sd_jobs[s] += t->cell[s][l].jobs;
			st->sd_busy[s] += t->cell[s][l].load *
					  (double)t->interval_cycles;
			st->sd_delay_sum += t->cell[s][l].delay_sum;
			st->sd_delay_n += t->cell[s][l].delay_n;
		}
	}
}

int
hp_svc_decide(const struct hp_svc_policy *p, const struct hp_svc_table *t,
	      struct hp_svc_bstate *st, struct hp_svc_decision *d)
{
	struct view *v;
	bool all_cold = true, scale = false;
	unsigned int n_active = 0;
	int victim = -1;
	uint32_t l;
	int ret;

	if (p == NULL || t == NULL || st == NULL || d == NULL ||
	    hp_svc_policy_check(p) < 0)
		return -EINVAL;
	/* ~85 KB of instances: off the (control thread's) stack; once per
	 * balancing interval, so the allocation is noise.
	 */
	v = malloc(sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	ret = view_build(v, t);
	if (ret < 0)
		goto out;
	*d = (struct hp_svc_decision){ .action = HP_SVC_ACT_NONE, .reason = "" };

	for (l = 0; l < t->n_lcores; l++) {
		bool hot = false;
		unsigned int i;

		if (!bit32(t->active, l)) {
			st->hot[l] = 0;
			continue;
		}
		n_active++;
		if (v->load[l] >= p->scale_down_threshold)
			all_cold = false;
		hot = v->load[l] > p->threshold;
		if (p->mode == HP_SVC_MODE_DELAY)
			for (i = 0; i < v->n_in && !hot; i++) {
				const struct hp_svc_cell *c = &t->cell[v->in[i].s][l];

				if (v->in[i].l == l && c->delay_n > 0 &&
				    c->delay_sum / (double)c->delay_n > p->delay_target)
					hot = true;
			}
		st->hot[l] = hot ? st->hot[l] + 1 : 0;
	}
	st->cold = (all_cold && n_active >= 2) ? st->cold + 1 : 0;
	spell_note(st, t);

	if (p->mode == HP_SVC_MODE_DELAY)
		ret = try_delay(p, v, st, d);
	if (ret == 0)
		ret = try_threshold(p, v, st, d);
	/* an active core left empty (a finished scale-down plan: its
	 * receiver may now be over the cold line) parks at once: it costs
	 * no delay
	 */
	for (l = 0; ret == 0 && p->scale_down && n_active >= 2 && l < t->n_lcores; l++)
		if (bit32(t->active, l) && v->n_on[l] == 0) {
			*d = (struct hp_svc_decision){
				.action = HP_SVC_ACT_PARK, .from = l,
				.reason = "scale-down, empty", .before = 0.0, .after = 0.0,
			};
			ret = 1;
		}
	if (ret == 0 && p->scale_down && st->cold >= p->scale_down_sustain) {
		ret = try_scale_down(p, v, st, d, &victim);
		scale = true;
	}
	if (ret > 0 && d->action != HP_SVC_ACT_PARK)
		note_move(p, st, d, scale);
	else if (ret > 0)
		st->cold = 0;	/* parked: look again after a fresh cold spell */
	/* a scale-down plan lasts while its steps follow one another */
	st->sd_victim = (ret > 0 && scale && d->action != HP_SVC_ACT_PARK) ? victim :
			(st->cold > 0 && ret == 0 ? st->sd_victim : -1);
	st->interval++;
out:
	free(v);
	return ret;
}
