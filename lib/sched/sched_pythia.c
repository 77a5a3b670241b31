/* SPDX-License-Identifier: BSD-3-Clause
 * pythia: a configuration-level policy (Pythia section V, the monitor and
 * policy on the fly). check() (sched_pythia_check.c) builds every
 * configuration of the run's apps (one, or each app of --apps with its
 * own device set) on a modeled platform (lib/plan) and reads the goal;
 * the run starts in the configuration the goal picks at an idle port, and
 * the monitor re-picks with the measured offered rate every period
 * (tick), when the goal changes, and when the rate itself moves: by more
 * than PY_MOVE since the last evaluation, or past what the active
 * configuration carries with headroom (rate-triggered evaluation). The
 * pick reads the offered rate times a headroom (headroom=F, 1.2). A
 * switch comes at once when the goal changed, at the first evaluation
 * with traffic, or when the active configuration has not carried the rate
 * with headroom for PY_UP_S and the pick carries more; any other winner
 * must win twice in a row over PY_HOLD_S (hysteresis) and carry the rate
 * PY_BAND above the pick's as well as the active one does (a band, so a
 * rate on a boundary does not flap). Under target-rate a token bucket per
 * app at its share of the target (admission) refuses the packets above
 * it: the scheduler drops them with reason admission. A configuration is
 * the set of devices each app may use: pick() places a packet on the
 * least queued of its app's set (inner=fixed) or lets the adaptive policy
 * place it among them per deadline (inner=adaptive), keeping a flow on
 * the device that holds its packets in flight (flow affinity), so a
 * switch neither loses nor reorders a packet; a flow whose device left
 * the configuration is held until its packets came back. Devices outside
 * the configuration count as switched off for power (hp_sched.off_mask).
 * Options: devices=A+B (configurations within those devices only),
 * scale=F (the modeled devices' time dilation: the measured rates x F are
 * the platform's), batch=N (the plan's batch; the devices' own batch
 * limits are fixed when the run starts), headroom=F (1..4, the offered
 * rate's factor in the pick), inner=fixed|adaptive (--goal-inner). The
 * goal changes while running through the telemetry command
 * /heteroplane/goal (hplane ctl goal) and a timed schedule (at=T:NAME,
 * --goal-at). docs/scheduling.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "hp_common.h"
#include "hp_model.h"
#include "hp_plan.h"
#include "hp_sched.h"
#include "hp_sched_policy.h"
#include "sched_pythia.h"

#define PY_WIN 2          /* evaluations another winner needs in a row */
#define PY_ALPHA 0.5      /* weight of a window in the learned capacity */
/* admission: the bucket holds 20 ms at the target. The scheduler lcore
 * of a loaded host stalls for several ms and then takes the port's
 * backlog at once; a 2 ms bucket shed most of it (target-rate:15 with 35
 * offered delivered 8 Gbit/s at load 10 on the 2-vCPU VM). */
#define PY_BUCKET_S 0.02
#define PY_EWMA_TAU 0.1     /* pl_sched.c sched_tick's rate EWMA, undone by py_fast */
#define PY_FAST_S 0.04      /* the monitor's own rate: a window of 40 ms */
#define PY_RING 64          /* ticks (~1 ms) the window is read from */
#define PY_MOVE 0.15        /* a rate move that triggers an evaluation */
#define PY_GAP_S 0.01       /* rate-triggered evaluations at most this often */
#define PY_BAND 1.05        /* a hysteresis switch carries the rate x this too */
#define PY_UP_S 0.02        /* short of headroom this long before an up-switch */
#define PY_HOLD_S 0.1       /* a hysteresis winner wins at least this long */

struct py_flow {
	uint8_t dev;
	uint8_t moving;      /* held until its packets are back, then moved */
	uint8_t target;      /* where a moving flow goes, + 1 (0: the least queued) */
	uint32_t inflight;
	uint32_t gen;        /* the spread it was placed under (py_state.gen) */
};


struct py_state {
	struct py_conf *c;
	uint32_t set[HP_PLAN_MAX_DEV];   /* plan device -> sched devices */
	unsigned int n_apps;             /* the plan's: 1 without --apps */
	uint32_t allowed[HP_PLAN_MAX_APPS]; /* per app: sched devices of the
					     * active configuration */
	/* per app the share of its flows each sched device should hold (by
	 * the configuration's capacities), and the spread's generation:
	 * bumped by a switch that gives an app another device */
	double share[HP_PLAN_MAX_APPS][HP_SCHED_MAX_DEV];
	uint32_t gen;
	uint32_t spread_n[HP_PLAN_MAX_APPS][HP_SCHED_MAX_DEV]; /* busy flows given
								 * each device since */
	int active, cand;                /* configurations; cand: last other winner */
	unsigned int cand_n;
	unsigned int settle;             /* evaluations since the last switch */
	double short_pps;                /* delivered in the last window, when
					  * short of the offered (else 0) */
	bool traffic;                    /* an evaluation saw traffic */
	/* the monitor's fast rate per app (py_fast) and the EWMA it undoes */
	double fast[HP_PLAN_MAX_APPS], ewma_prev[HP_PLAN_MAX_APPS];
	uint64_t fast_t;
	double cum[HP_PLAN_MAX_APPS];    /* offered packets so far, per app */
	uint64_t ring_t[PY_RING];        /* the last ticks: TSC and cum */
	double ring_n[PY_RING][HP_PLAN_MAX_APPS];
	unsigned int ring_head, ring_len;
	/* the last evaluation: when, its rate (all apps), and whether the
	 * active configuration was short of it with headroom */
	uint64_t eval_t, gap;
	double eval_pps;
	bool eval_short;
	/* since when the active configuration is short of headroom (0: it
	 * is not), and whether an evaluation acted on it since; since when
	 * the hysteresis candidate wins */
	uint64_t short_since, cand_since, up_hold, cand_hold;
	bool short_acted;
	struct hp_goal goal;
	uint64_t period, next, t0;
	unsigned int at_next;
	uint32_t req_seen;
	uint32_t n_flows;
	struct py_flow *flows;
	uint32_t rr;
	/* admission (target-rate): per app a token bucket of bytes at its
	 * share of the target, refilled by TSC cycles */
	bool admit;
	double tok[HP_PLAN_MAX_APPS], tok_max[HP_PLAN_MAX_APPS];
	double tok_rate[HP_PLAN_MAX_APPS];   /* bytes per cycle */
	uint64_t tok_t[HP_PLAN_MAX_APPS];
	/* inner=adaptive: the adaptive policy's state, and the view of the
	 * scheduler it decides on: devices outside the allowed set failed,
	 * with no room */
	struct hp_adaptive *ad;
	struct hp_sched view;
	struct hp_sched_dev vdev[HP_SCHED_MAX_DEV];
	uint32_t vroom[HP_SCHED_MAX_DEV];
};

/* ---- the goal asked for while running (telemetry thread -> scheduler) ---- */

static struct {
	rte_spinlock_t lk;
	uint32_t gen;             /* bumped by each request */
	struct hp_goal g;
	char text[HP_SCHED_GOALLEN];
	bool running;             /* a pythia run is on */
	struct hp_sched_goalstat st; /* its state, for reads */
} req = { .lk = RTE_SPINLOCK_INITIALIZER };

static int
goal_request(const char *text, char *err, size_t errlen)
{
	struct hp_goal g;
	int ret;

	if (hp_goal_parse(&g, text, err, errlen) < 0)
		return -EINVAL;
	rte_spinlock_lock(&req.lk);
	if (!req.running) {
		snprintf(err, errlen, "no goal-driven run (--goal) is running");
		ret = -ENOENT;
	} else {
		req.g = g;
		snprintf(req.text, sizeof(req.text), "%s", text);
		req.gen++;
		ret = 0;
	}
	rte_spinlock_unlock(&req.lk);
	return ret;
}

static int
goal_state(struct hp_sched_goalstat *st)
{
	int ret;

	rte_spinlock_lock(&req.lk);
	ret = req.running ? 0 : -ENOENT;
	*st = req.st;
	rte_spinlock_unlock(&req.lk);
	return ret;
}

/* /heteroplane/goal[,NAME]: sets the goal when given one, then reads. */
static int
tel_goal(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct hp_sched_goalstat st;
	char err[160] = "";

	RTE_SET_USED(cmd);
	rte_tel_data_start_dict(d);
	if (params != NULL && params[0] != '\0' &&
	    goal_request(params, err, sizeof(err)) < 0) {
		rte_tel_data_add_dict_string(d, "error", err);
		return 0;
	}
	if (goal_state(&st) < 0) {
		rte_tel_data_add_dict_string(d, "error", "no goal-driven run (--goal) is running");
		return 0;
	}
	if (params != NULL && params[0] != '\0')
		rte_tel_data_add_dict_string(d, "requested", params);
	rte_tel_data_add_dict_string(d, "goal", st.goal);
	rte_tel_data_add_dict_string(d, "configuration", st.cfg);
	rte_tel_data_add_dict_u64(d, "switches", st.switches);
	rte_tel_data_add_dict_u64(d, "held_pkts", st.held);
	rte_tel_data_add_dict_u64(d, "goal_changes", st.goal_changes);
	return 0;
}

RTE_INIT(hp_pythia_tel)
{
	rte_telemetry_register_cmd("/heteroplane/goal", tel_goal,
				   "Reads the active goal and configuration; with a parameter NAME[:ARG] sets the goal");
}

/* ---- the run ---- */

static void
py_publish(struct hp_sched *s)
{
	rte_spinlock_lock(&req.lk);
	req.st = s->gs;
	rte_spinlock_unlock(&req.lk);
}

/* Admission follows the goal: under target-rate each app's bucket fills
 * at its share (of the measured offered rate; equal before any is
 * measured) of the target, in bytes of the run's clock (the platform's
 * Gbit/s are the measured ones x scale). */
static void
py_admission(const struct hp_sched *s, struct py_state *st, const double *off)
{
	double tot = 0, bps;
	unsigned int a;

	st->admit = st->goal.ops != NULL && strcmp(st->goal.ops->name, "target-rate") == 0;
	if (!st->admit)
		return;
	for (a = 0; a < st->n_apps; a++)
		tot += off[a];
	bps = st->goal.param * 1e9 / 8 / st->c->scale;
	for (a = 0; a < st->n_apps; a++) {
		double share = tot > 0 ? off[a] / tot : 1.0 / st->n_apps;

		st->tok_rate[a] = bps * share / (double)s->env->hz;
		st->tok_max[a] = RTE_MAX(bps * share * PY_BUCKET_S, 16384.0);
		if (st->tok[a] > st->tok_max[a])
			st->tok[a] = st->tok_max[a];
	}
}

/* The target of target-rate in the plan's packets per second. */
static double
py_target_pps(const struct py_state *st)
{
	return st->goal.param * 1e6 / st->c->pl.gbps_per_mpps;
}

/* Makes configuration k active: each app's devices (sched indices)
 * allowed to it, the devices no app uses off for power. */
static void
py_activate(struct hp_sched *s, struct py_state *st, int k)
{
	const struct hp_plan_cfg *cf = &st->c->pl.cfg[k];
	uint32_t allowed = 0, before;
	bool grew = false;
	unsigned int a, j, d;

	for (a = 0; a < st->n_apps; a++) {
		double tot = 0;

		before = st->allowed[a];
		st->allowed[a] = 0;
		memset(st->share[a], 0, sizeof(st->share[a]));
		for (j = 0; j < st->c->pl.n_dev; j++) {
			if (!(cf->devmask[a] & (1u << j)))
				continue;
			st->allowed[a] |= st->set[j];
			for (d = 0; d < s->n_dev; d++)	/* a platform device's workers */
				if (st->set[j] & (1u << d))
					st->share[a][d] = cf->pps[a][j] /
						__builtin_popcount(st->set[j]);
			tot += cf->pps[a][j];
		}
		for (d = 0; d < s->n_dev && tot > 0; d++)
			st->share[a][d] /= tot;
		grew |= st->active >= 0 && (st->allowed[a] & ~before) != 0;
		allowed |= st->allowed[a];
	}
	if (grew) {
		st->gen++;	/* the busy flows spread onto the new devices */
		memset(st->spread_n, 0, sizeof(st->spread_n));
	}
	if (st->active >= 0 && k != st->active)
		s->gs.switches++;
	st->settle = 0;
	st->active = k;
	st->short_since = 0;
	st->short_acted = false;
	__atomic_store_n(&s->off_mask, ~allowed & ((s->n_dev >= 32) ? ~0u : (1u << s->n_dev) - 1),
			 __ATOMIC_RELAXED);
	hp_plan_cfg_label(&st->c->pl, cf, s->gs.cfg, sizeof(s->gs.cfg));
}

static void
py_state_free(struct py_state *st)
{
	if (st == NULL)
		return;
	if (st->ad != NULL)
		hp_adaptive_free(st->ad);
	free(st->ad);
	free(st->flows);
	free(st);
}

static int
py_init(struct hp_sched *s, char *err, size_t errlen)
{
	struct py_conf *c = s->env != NULL ? s->env->conf : NULL;
	struct py_state *st;
	double off[HP_PLAN_MAX_APPS] = { 0 };
	struct hp_plan_eval ev;
	unsigned int d, j, acc = 0;
	int k;

	if (c == NULL) {
		snprintf(err, errlen, "pythia needs --goal with a --platform");
		return -EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		goto nomem;
	st->c = c;
	st->active = -1;
	st->cand = -1;
	st->n_apps = c->pl.n_apps;
	/* the platform's CPU is every CPU worker; its accelerators are the
	 * run's in the order --platform added them */
	for (d = 0; d < s->n_dev; d++) {
		bool cpu = s->dev[d].role == HP_ROLE_CPU;
		unsigned int n = 0;

		for (j = 0; j < c->pl.n_dev; j++) {
			if (c->cpu_dev[j] != cpu)
				continue;
			if (cpu || n++ == acc)
				break;
		}
		if (j == c->pl.n_dev) {
			snprintf(err, errlen, "pythia: device %u has no counterpart on platform %s",
				 d, c->pl.platform);
			free(st);
			return -EINVAL;
		}
		acc += !cpu;
		st->set[j] |= 1u << d;
	}
	for (j = 0; j < c->pl.n_dev; j++)
		if (st->set[j] == 0) {
			snprintf(err, errlen, "pythia: platform device %s is not in the run",
				 c->pl.dev_name[j]);
			free(st);
			return -EINVAL;
		}
	st->n_flows = s->env->max_flows;
	st->flows = calloc(st->n_flows ? st->n_flows : 1, sizeof(*st->flows));
	if (st->flows == NULL) {
		free(st);
		goto nomem;
	}
	if (c->inner_adaptive) {
		int ret;

		st->ad = calloc(1, sizeof(*st->ad));
		if (st->ad == NULL) {
			py_state_free(st);
			goto nomem;
		}
		ret = hp_adaptive_setup(st->ad, s, st->n_flows ? st->n_flows : 1, err, errlen);
		if (ret < 0) {
			free(st->ad);
			st->ad = NULL;
			py_state_free(st);
			return ret;
		}
	}
	st->goal = c->goal;
	snprintf(s->gs.goal, sizeof(s->gs.goal), "%s", c->goal_text);
	/* nothing is measured yet: the goal's pick for an idle port; the
	 * first window (a quarter period) re-picks at the measured rate */
	k = hp_goal_pick(&c->pl, &st->goal, off, &ev);
	py_activate(s, st, k < 0 ? 0 : k);
	py_admission(s, st, off);
	st->period = (uint64_t)(c->period_s * (double)s->env->hz);
	st->gap = (uint64_t)(PY_GAP_S * (double)s->env->hz);
	st->up_hold = (uint64_t)(PY_UP_S * (double)s->env->hz);
	st->cand_hold = (uint64_t)(PY_HOLD_S * (double)s->env->hz);
	s->priv = st;
	rte_spinlock_lock(&req.lk);
	req.running = true;
	st->req_seen = req.gen;
	req.st = s->gs;
	rte_spinlock_unlock(&req.lk);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

static void
py_fini(struct hp_sched *s)
{
	struct py_state *st = s->priv;

	rte_spinlock_lock(&req.lk);
	req.running = false;
	rte_spinlock_unlock(&req.lk);
	py_state_free(st);
	s->priv = NULL;
}

/* The least queued device of allowed with room, round robin among equals. */
static int
py_least(const struct hp_sched *s, struct py_state *st, uint32_t allowed)
{
	int best = -1;
	unsigned int i, d;

	for (i = 0; i < s->n_dev; i++) {
		d = (st->rr + i) % s->n_dev;
		if (!(allowed & (1u << d)) || s->room[d] == 0 || s->dev[d].failed)
			continue;
		if (best < 0 || s->dev[d].queued < s->dev[best].queued)
			best = (int)d;
	}
	st->rr++;
	return best;
}

/* Whether a flow on d should move: another allowed device is far less
 * queued (a device the configuration added gets flows this way; without
 * it a busy flow, never empty, would stay on its device for good). */
static bool
py_unbalanced(const struct hp_sched *s, uint32_t allowed, unsigned int d)
{
	unsigned int i;

	for (i = 0; i < s->n_dev; i++)
		if (i != d && (allowed & (1u << i)) && !s->dev[i].failed &&
		    s->dev[d].queued > 2 * s->dev[i].queued + 2 * s->dev[d].max_batch)
			return true;
	return false;
}

/* The adaptive policy's view of the scheduler: the devices outside
 * allowed failed and without room, so it never picks them and its
 * offload plan counts no CPU time the configuration does not have. */
static const struct hp_sched *
py_view(const struct hp_sched *s, struct py_state *st, uint32_t allowed)
{
	unsigned int d;

	st->view = *s;
	st->view.dev = st->vdev;
	st->view.room = st->vroom;
	for (d = 0; d < s->n_dev; d++) {
		bool in = allowed & (1u << d);

		st->vdev[d] = s->dev[d];
		st->vdev[d].failed |= !in;
		st->vroom[d] = in ? s->room[d] : 0;
	}
	return &st->view;
}

/* inner=adaptive: the configuration sets the devices, adaptive places
 * the packet among them per deadline (docs/scheduling.md). A flow with
 * packets in flight on a device the configuration left is held here
 * until they are back: adaptive would take its device, failed in the
 * view, for a real failure and start the flow afresh elsewhere. Cost:
 * the view (a copy of the scheduler's state and of the few devices,
 * ~40 cycles) beside adaptive's own decision (not measured apart on the
 * loaded VM). */
static int
py_pick_adaptive(struct hp_sched *s, struct py_state *st, struct rte_mbuf *m,
		 uint32_t allowed)
{
	struct hp_meta *md = hp_meta(m);
	struct py_flow *f = md->flow_slot < st->n_flows ? &st->flows[md->flow_slot] : NULL;
	struct hp_sched_pkt p;
	int d;

	if (f != NULL && f->inflight > 0 && !(allowed & (1u << f->dev))) {
		if (!(md->flags & HP_MF_HELD)) {
			md->flags |= HP_MF_HELD;
			s->gs.held++;
		}
		return HP_SCHED_SKIP;
	}
	hp_sched_pkt_of(m, &p);
	d = hp_adaptive_decide(st->ad, py_view(s, st, allowed), &p);
	if (d >= 0 && f != NULL) {
		f->dev = (uint8_t)d;
		f->inflight++;
	}
	return d;
}

/* A switch gave the app of busy flow f another device: where the flow
 * belongs now, the device furthest below its share of the app's busy
 * flows (by the configuration's capacities) as they come; if elsewhere,
 * it moves (held until its packets are back). Without it a flow that is
 * always in flight stays on its device after the switch, and the device
 * the switch relieved keeps its queue until py_unbalanced finds it 2
 * batches over: at 8 -> 20 Gbit/s on the GTX with 16 flows, ~100 ms of
 * packets waited behind it (p99 3.3 ms vs 1.85 ms for both GPUs fixed).
 * Counted, not hashed: 16 flows hashed by share put 2 to 9 on the UHD
 * 630 (5.6 expected), and either GPU then queued. */
static void
py_spread(struct py_state *st, struct py_flow *f, const struct hp_meta *md, uint32_t allowed)
{
	unsigned int a = md->app < st->n_apps ? md->app : 0, d;
	int best = -1;
	double bv = 0;

	f->gen = st->gen;
	if (!(allowed & (1u << f->dev)))
		return;		/* its device left: it moves anyway */
	for (d = 0; d < HP_SCHED_MAX_DEV; d++) {
		double v;

		if (!(allowed & (1u << d)) || st->share[a][d] <= 0)
			continue;
		v = (st->spread_n[a][d] + 1) / st->share[a][d];
		if (best < 0 || v < bv || (v == bv && d == f->dev)) {
			best = (int)d;
			bv = v;
		}
	}
	if (best < 0)
		return;
	st->spread_n[a][best]++;
	if ((unsigned int)best != f->dev) {
		f->target = (uint8_t)(best + 1);
		f->moving = 1;
	}
}

/* Cost: a flow lookup and a scan of the few devices, ~20 cycles a packet
 * beside the scheduler's ~300 (not measured apart on the loaded VM). */
static int
py_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	struct py_state *st = s->priv;
	struct hp_meta *md = hp_meta(m);
	/* the packet's app's devices (a flow is one app's: pl_apps.c) */
	uint32_t allowed = st->allowed[md->app < st->n_apps ? md->app : 0];
	struct py_flow *f;
	int d;

	if (st->admit && !(md->flags & HP_MF_ADMITTED)) {
		unsigned int a = md->app < st->n_apps ? md->app : 0;
		double len = rte_pktmbuf_pkt_len(m);

		st->tok[a] = RTE_MIN(st->tok_max[a], st->tok[a] +
				     (double)(s->now - st->tok_t[a]) * st->tok_rate[a]);
		st->tok_t[a] = s->now;
		if (st->tok[a] < len)
			return HP_SCHED_DROP;	/* above the target: admission */
		st->tok[a] -= len;
		md->flags |= HP_MF_ADMITTED;
	}
	if (st->ad != NULL)
		return py_pick_adaptive(s, st, m, allowed);
	if (md->flow_slot >= st->n_flows)	/* untracked: no order to keep */
		return py_least(s, st, allowed);
	f = &st->flows[md->flow_slot];
	if (f->inflight > 0 && f->gen != st->gen && !f->moving)
		py_spread(st, f, md, allowed);
	if (f->inflight > 0) {
		if (!f->moving && (!(allowed & (1u << f->dev)) ||
				   py_unbalanced(s, allowed, f->dev)))
			f->moving = 1;
		if (f->moving) {
			/* its device left the configuration or another has far
			 * less queued: wait for its packets there, then move;
			 * later flows go on */
			if (!(md->flags & HP_MF_HELD)) {
				md->flags |= HP_MF_HELD;
				s->gs.held++;
			}
			return HP_SCHED_SKIP;
		}
		d = s->room[f->dev] > 0 ? (int)f->dev : HP_SCHED_SKIP;
	} else {
		d = f->target - 1;
		if (f->target == 0 || !(allowed & (1u << d)) || s->room[d] == 0 ||
		    s->dev[d].failed)
			d = py_least(s, st, allowed);
		if (d < 0)
			return -1;
		f->dev = (uint8_t)d;
		f->moving = 0;
		f->target = 0;
		f->gen = st->gen;
	}
	if (d >= 0)
		f->inflight++;
	return d;
}

static void
py_done(struct hp_sched *s, struct rte_mbuf *m, unsigned int d, unsigned int step,
	uint64_t now)
{
	struct py_state *st = s->priv;
	const struct hp_meta *md = hp_meta(m);

	RTE_SET_USED(now);
	if (md->flow_slot < st->n_flows && st->flows[md->flow_slot].inflight > 0)
		st->flows[md->flow_slot].inflight--;
	if (st->ad != NULL) {
		struct hp_sched_pkt p;

		hp_sched_pkt_of(m, &p);
		hp_adaptive_done(st->ad, s, &p, d, step);
	}
}

/* The monitor's learning (the paper compares the last two windows): two
 * settled windows in a row (from the third evaluation after a switch,
 * when the moved flows' batches are out) in which the active
 * configuration delivered short of the offered rate by more than 2 %,
 * and agree within 10 %, measured its capacity; the stored per-device
 * capacities of the app in it are scaled toward their mean (EWMA,
 * PY_ALPHA), and its total with them. A window it carried says nothing
 * of its capacity: unchanged. */
static void
py_learn(struct hp_sched *s, struct py_state *st, double offered, double delivered)
{
	struct hp_plan_cfg *cf = &st->c->pl.cfg[st->active];
	double stored = 0, prev = st->short_pps, f;
	unsigned int j;

	for (j = 0; j < st->c->pl.n_dev; j++)
		stored += cf->pps[0][j];
	st->short_pps = offered > 0 && delivered > 0 && delivered < offered * 0.98 ? delivered : 0;
	if (st->short_pps == 0 || prev == 0 || fabs(delivered - prev) > 0.1 * prev ||
	    !(stored > 0))
		return;
	f = 1 + PY_ALPHA * ((delivered + prev) / 2 / stored - 1);
	for (j = 0; j < st->c->pl.n_dev; j++)
		cf->pps[0][j] *= f;
	cf->cap_pps *= f;
	s->gs.learned++;
}

/* The monitor's fast rate, per app. pl_sched.c's EWMA (time constant
 * PY_EWMA_TAU) lags a step: after 8 -> 20 Gbit/s it reaches 16.7 (what
 * the GTX's 20 carries with headroom 1.2) only ~130 ms later, while the
 * GTX saturates. Its change over one tick, undone, is that tick's own
 * count of offered packets; the fast rate is their sum over the last
 * PY_FAST_S (a window, not a shorter EWMA: on the loaded host the
 * generator catches up after a stall of several ms in one burst, which
 * a 10 ms EWMA read as 2x the rate, and a window counts it at its
 * worth). py_tick runs right after every EWMA update, at the same TSC,
 * so the interval is the EWMA's; a tick that left the EWMA alone counts
 * its rate. */
static void
py_fast(const struct hp_sched *s, struct py_state *st, uint64_t now)
{
	unsigned int i, j, n = st->n_apps;
	uint64_t w = (uint64_t)(PY_FAST_S * (double)s->env->hz);
	double dt = 0, a = 0, span;

	if (st->fast_t != 0 && now > st->fast_t) {
		dt = (double)(now - st->fast_t) / (double)s->env->hz;
		a = 1 - exp(-dt / PY_EWMA_TAU);
	}
	for (i = 0; i < n; i++) {
		double cur = n > 1 ? s->app_rate_pps[i] : s->rate_pps;

		if (a > 1e-9)
			st->cum[i] += RTE_MAX(st->ewma_prev[i] + (cur - st->ewma_prev[i]) / a,
					      0.0) * dt;
		st->ewma_prev[i] = cur;
	}
	st->fast_t = now;
	st->ring_head = (st->ring_head + 1) % PY_RING;
	st->ring_t[st->ring_head] = now;
	memcpy(st->ring_n[st->ring_head], st->cum, sizeof(st->cum));
	if (st->ring_len < PY_RING)
		st->ring_len++;
	/* the newest sample at least the window old, else the oldest */
	for (j = 1; j < st->ring_len; j++) {
		i = (st->ring_head + PY_RING - j) % PY_RING;
		if (now - st->ring_t[i] >= w || j == st->ring_len - 1)
			break;
	}
	if (st->ring_len < 2)
		return;
	/* a span under PY_GAP_S (the run's first ms) is a burst or two:
	 * not a rate yet */
	span = (double)(now - st->ring_t[i]) / (double)s->env->hz;
	for (j = 0; j < n && span >= PY_GAP_S; j++)
		st->fast[j] = (st->cum[j] - st->ring_n[i][j]) / span;
}

/* The offered rate per app the monitor evaluates at, in the plan's
 * packets: the higher of the EWMA and the fast rate, so a rise counts at
 * once and a fall only once the EWMA saw it too; *tot their sum. want:
 * the same x headroom. */
static void
py_rates(const struct hp_sched *s, const struct py_state *st, double *off, double *want,
	 double *tot)
{
	unsigned int a;

	*tot = 0;
	for (a = 0; a < st->n_apps; a++) {
		double ewma = st->n_apps > 1 ? s->app_rate_pps[a] : s->rate_pps;

		off[a] = RTE_MAX(ewma, st->fast[a]) * st->c->scale;
		want[a] = off[a] * st->c->headroom;
		*tot += off[a];
	}
}

/* Whether configuration k delivers less than the whole of load (under
 * admission, of min(load, the target)). */
static bool
py_short(const struct py_state *st, int k, const double *load, struct hp_plan_eval *ev)
{
	double need;

	hp_plan_eval_at(&st->c->pl, (unsigned int)k, load, ev);
	need = st->admit ? RTE_MIN(ev->offered_pps, py_target_pps(st)) : ev->offered_pps;
	return ev->delivered_pps < need * 0.999;
}

/* Rate-triggered evaluation: the rate moved by more than PY_MOVE since
 * the last evaluation, crossed what the active configuration carries
 * with headroom (either way), or stayed past it PY_UP_S (once: at the top
 * of the plan nothing carries more, and the evaluation would come back
 * every PY_GAP_S). */
static bool
py_triggered(const struct hp_sched *s, const struct py_state *st, uint64_t now)
{
	double off[HP_PLAN_MAX_APPS] = { 0 }, want[HP_PLAN_MAX_APPS] = { 0 }, tot;
	struct hp_plan_eval ev;
	bool short_now;

	if (now - st->eval_t < st->gap)
		return false;
	py_rates(s, st, off, want, &tot);
	if (fabs(tot - st->eval_pps) > PY_MOVE * st->eval_pps)
		return true;
	short_now = py_short(st, st->active, want, &ev);
	if (short_now != st->eval_short)
		return true;
	return short_now && !st->short_acted && st->short_since != 0 &&
	       now - st->short_since >= st->up_hold;
}

/* One evaluation: the pick at the rate with headroom, and the switch. */
static void
py_evaluate(struct hp_sched *s, struct py_state *st, uint64_t now, bool changed, bool timer)
{
	double off[HP_PLAN_MAX_APPS] = { 0 }, want[HP_PLAN_MAX_APPS] = { 0 };
	double band[HP_PLAN_MAX_APPS] = { 0 };
	struct hp_plan_eval ev, cur, nxt;
	bool now_switch = changed, short_cur, up = false;
	double deliv, tot;
	unsigned int a;
	int k;

	py_rates(s, st, off, want, &tot);
	if (timer) {
		/* learning compares period-long windows of the EWMA's rate and
		 * what was delivered, in the plan's packets (frames of the
		 * mix's mean size); it reads the run's total delivered: with
		 * several apps one app's shortfall is not the configuration's,
		 * so it learns alone. Under admission the configuration is
		 * offered at most the target: delivering the target is not a
		 * shortfall to learn from. */
		double slow = s->rate_pps * st->c->scale;

		st->next = now + st->period;
		deliv = s->env->imix_mean_bytes > 0 ?
			s->tput_bps / 8 / s->env->imix_mean_bytes * st->c->scale : 0;
		if (!changed && ++st->settle > 2 && st->n_apps == 1)
			py_learn(s, st, st->admit ? RTE_MIN(slow, py_target_pps(st)) : slow,
				 deliv);
		else
			st->short_pps = 0;
	}
	/* the idle start's pick was a guess: the first traffic decides */
	if (!st->traffic && tot > 0) {
		st->traffic = true;
		now_switch = true;
	}
	py_admission(s, st, off);
	short_cur = py_short(st, st->active, want, &cur);
	if (!short_cur) {
		st->short_since = 0;
		st->short_acted = false;
	} else if (st->short_since == 0) {
		st->short_since = now;
	}
	k = hp_goal_pick(&st->c->pl, &st->goal, want, &ev);
	if (k >= 0 && k != st->active && !now_switch && short_cur) {
		/* the active configuration short of the rate with headroom
		 * (of the target, under target-rate), and k carries more: no
		 * hysteresis, the queue builds (then the port drops) while it
		 * waits; but short for PY_UP_S, not at one reading: on the
		 * loaded host a stalled generator's catch-up burst fills the
		 * fast rate's window for its 40 ms */
		hp_plan_eval_at(&st->c->pl, (unsigned int)k, want, &nxt);
		up = nxt.delivered_pps > cur.delivered_pps;
		now_switch = up && now - st->short_since >= st->up_hold;
	}
	if (short_cur && now - st->short_since >= st->up_hold)
		st->short_acted = true;
	if (k < 0 || k == st->active) {
		st->cand_n = 0;
	} else if (now_switch) {
		py_activate(s, st, k);	/* the operator asked, or saturated: at once */
		st->cand_n = 0;
	} else if (!up) {
		/* hysteresis: the same other winner PY_WIN evaluations in a
		 * row over PY_HOLD_S at least (evaluations come as often as
		 * every PY_GAP_S), which carries the rate x PY_BAND as well as
		 * the active one does, so a rate on a boundary does not flap */
		for (a = 0; a < st->n_apps; a++)
			band[a] = want[a] * PY_BAND;
		hp_plan_eval_at(&st->c->pl, (unsigned int)st->active, band, &cur);
		hp_plan_eval_at(&st->c->pl, (unsigned int)k, band, &nxt);
		if (nxt.delivered_pps < cur.delivered_pps * 0.999) {
			st->cand_n = 0;
		} else {
			if (k != st->cand || st->cand_n == 0) {
				st->cand = k;
				st->cand_n = 0;
				st->cand_since = now;
			}
			st->cand_n++;
			if (st->cand_n >= PY_WIN && now - st->cand_since >= st->cand_hold) {
				py_activate(s, st, k);
				st->cand_n = 0;
			}
		}
	}
	st->eval_t = now;
	st->eval_pps = tot;
	st->eval_short = py_short(st, st->active, want, &cur);
	py_publish(s);
}

static void
py_tick(struct hp_sched *s, uint64_t now)
{
	struct py_state *st = s->priv;
	bool changed = false, timer;
	double t;
	uint32_t gen;

	if (st->t0 == 0) {
		st->t0 = now;
		st->next = now + st->period / 4;	/* the first window: short */
	}
	py_fast(s, st, now);
	t = (double)(now - st->t0) / (double)s->env->hz;
	while (st->at_next < st->c->n_at && t >= st->c->at[st->at_next].t) {
		const struct py_at *a = &st->c->at[st->at_next++];

		st->goal = a->g;
		snprintf(s->gs.goal, sizeof(s->gs.goal), "%s", a->text);
		changed = true;
	}
	gen = __atomic_load_n(&req.gen, __ATOMIC_ACQUIRE);
	if (gen != st->req_seen) {
		rte_spinlock_lock(&req.lk);
		st->req_seen = req.gen;
		st->goal = req.g;
		snprintf(s->gs.goal, sizeof(s->gs.goal), "%s", req.text);
		rte_spinlock_unlock(&req.lk);
		changed = true;
	}
	if (changed)
		s->gs.goal_changes++;
	if (st->ad != NULL) {
		uint32_t all = 0;
		unsigned int a;

		for (a = 0; a < st->n_apps; a++)
			all |= st->allowed[a];
		hp_adaptive_tick(st->ad, py_view(s, st, all), now);
	}
	timer = now >= st->next;
	if (changed || timer || py_triggered(s, st, now))
		py_evaluate(s, st, now, changed, timer);
}

static const struct hp_sched_ops sched_pythia = {
	.name = "pythia",
	.desc = "configuration-level (Pythia): the goal picks the devices from a platform's configurations, re-checked on a timer (--goal)",
	.params = (const char *const[]){ "platform", "goal", "period", "at", "lib", "batch", "scale", "devices", "headroom", "inner", NULL },
	.check = hp_pythia_check,
	.conf_free = hp_pythia_conf_free,
	.init = py_init,
	.fini = py_fini,
	.pick = py_pick,
	.done = py_done,
	.tick = py_tick,
};
HP_SCHED_REGISTER(sched_pythia)
