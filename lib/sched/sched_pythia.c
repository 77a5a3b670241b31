/* SPDX-License-Identifier: BSD-3-Clause
 * pythia: a configuration-level policy (Pythia section V, the monitor and
 * policy on the fly). check() builds every configuration of the run's
 * apps (one, or each app of --apps with its own device set) on a modeled
 * platform (lib/plan) and reads the goal; the run starts
 * in the configuration the goal picks at the offered rate, and every
 * period (tick) the monitor re-picks with the measured offered rate and
 * switches when another configuration wins twice in a row (hysteresis),
 * at once when the goal changed or the active configuration cannot carry
 * the measured offered rate. The pick reads the offered rate times a
 * headroom (headroom=F, 1.2), so the next configuration comes in before
 * the active one saturates. Under target-rate a token bucket per app at
 * its share of the target (admission) refuses the packets above it: the
 * scheduler drops them with reason admission. A configuration is the set of devices
 * each app may use, at each app's measured input rate: pick() places a
 * packet on the least queued of its app's set,
 * keeping a flow on the device that holds its packets in flight (flow
 * affinity), so a switch neither loses nor reorders a packet; a flow
 * whose device left the configuration is held until its packets came
 * back. Devices outside the configuration count as switched off for
 * power (hp_sched.off_mask). Options: devices=A+B (configurations within
 * those devices only), scale=F (the modeled devices' time dilation: the
 * measured rates x F are the platform's), batch=N (the plan's batch; the
 * devices' own batch limits are fixed when the run starts), headroom=F
 * (1..4, the offered rate's factor in the pick). The goal
 * changes while running through
 * the telemetry command /heteroplane/goal (hplane ctl goal)
 * and a timed schedule (at=T:NAME, --goal-at). docs/scheduling.md.
 */
#include <dlfcn.h>
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

#define PY_MAX_AT 16
#define PY_WIN 2          /* evaluations another winner needs in a row */
#define PY_ALPHA 0.5      /* weight of a window in the learned capacity */
#define PY_BATCH_DEF 1024   /* the 1024 row: the live devices batch 128 by default */
#define PY_HEADROOM 1.2     /* the offered rate's factor in the pick */
#define PY_BUCKET_S 0.002   /* admission: the bucket holds 2 ms at the target */

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
	unsigned int n_at;
	struct py_at at[PY_MAX_AT];
};

struct py_flow {
	uint8_t dev;
	uint8_t moving;      /* held until its packets are back, then moved */
	uint32_t inflight;
};

struct py_state {
	struct py_conf *c;
	uint32_t set[HP_PLAN_MAX_DEV];   /* plan device -> sched devices */
	unsigned int n_apps;             /* the plan's: 1 without --apps */
	uint32_t allowed[HP_PLAN_MAX_APPS]; /* per app: sched devices of the
					     * active configuration */
	int active, cand;                /* configurations; cand: last other winner */
	unsigned int cand_n;
	unsigned int settle;             /* evaluations since the last switch */
	double short_pps;                /* delivered in the last window, when
					  * short of the offered (else 0) */
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

/* ---- check: the plan, the goals, a goal library ---- */

static int
goal_lib(const char *path, char *err, size_t errlen)
{
	const struct hp_goal_ops *ops;
	char q[160];
	void *h;
	int ret;

	hp_quote(q, sizeof(q), path, 120);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(err, errlen, "--goal-lib %s: cannot load it (%.120s)", q, dlerror());
		return -EINVAL;
	}
	ops = dlsym(h, HP_GOAL_OPS_SYMBOL);
	if (ops == NULL) {
		snprintf(err, errlen, "--goal-lib %s: no symbol %s (a struct hp_goal_ops)", q,
			 HP_GOAL_OPS_SYMBOL);
		dlclose(h);
		return -EINVAL;
	}
	if (hp_goal_find(ops->name != NULL ? ops->name : "") == ops)
		return 0;	/* checked once already: the handle stays open */
	ret = hp_goal_register(ops);
	if (ret < 0) {
		snprintf(err, errlen, "--goal-lib %s: %s", q, ret == -EEXIST ?
			 "its goal's name is taken" : ret == -ENOSPC ? "too many goals" :
			 "its ops table lacks a name or a score");
		dlclose(h);
		return -EINVAL;
	}
	return 0;	/* registered ops live in it: never closed */
}

static int
parse_at(struct py_conf *c, const char *v, char *err, size_t errlen)
{
	const char *colon = strchr(v, ':');
	char num[32], q[64];
	char *end;
	double t;
	struct py_at *a;

	hp_quote(q, sizeof(q), v, 40);
	if (colon == NULL || colon == v || (size_t)(colon - v) >= sizeof(num)) {
		snprintf(err, errlen, "--goal-at %s: expected T:GOAL (seconds into the run)", q);
		return -EINVAL;
	}
	memcpy(num, v, (size_t)(colon - v));
	num[colon - v] = '\0';
	t = strtod(num, &end);
	if (*end != '\0' || !(t >= 0) || t > 1e6) {
		snprintf(err, errlen, "--goal-at %s: expected T:GOAL (seconds into the run)", q);
		return -EINVAL;
	}
	if (c->n_at == PY_MAX_AT) {
		snprintf(err, errlen, "--goal-at: at most %d", PY_MAX_AT);
		return -EINVAL;
	}
	if (c->n_at > 0 && t < c->at[c->n_at - 1].t) {
		snprintf(err, errlen, "--goal-at %s: times must not decrease", q);
		return -EINVAL;
	}
	a = &c->at[c->n_at];
	if (hp_goal_parse(&a->g, colon + 1, err, errlen) < 0)
		return -EINVAL;
	a->t = t;
	snprintf(a->text, sizeof(a->text), "%s", colon + 1);
	c->n_at++;
	return 0;
}

/* devices=A+B: only configurations within these platform devices. */
static int
only_devices(struct py_conf *c, const char *v, char *err, size_t errlen)
{
	char buf[160], q[64], *tok, *save = NULL;
	unsigned int mask = 0, i, j, n = 0;

	hp_quote(q, sizeof(q), v, 40);
	if (strlen(v) >= sizeof(buf)) {
		snprintf(err, errlen, "devices=%s: too long", q);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, "+", &save); tok != NULL; tok = strtok_r(NULL, "+", &save)) {
		for (j = 0; j < c->pl.n_dev && strcmp(c->pl.dev_name[j], tok) != 0; j++)
			;
		if (j == c->pl.n_dev) {
			snprintf(err, errlen, "devices=%s: expected devices of platform %s joined by +",
				 q, c->pl.platform);
			return -EINVAL;
		}
		mask |= 1u << j;
	}
	for (i = 0; i < c->pl.n_cfg; i++) {
		for (j = 0; j < c->pl.n_apps && (c->pl.cfg[i].devmask[j] & ~mask) == 0; j++)
			;
		if (j == c->pl.n_apps)
			c->pl.cfg[n++] = c->pl.cfg[i];
	}
	if (n == 0) {
		snprintf(err, errlen, "devices=%s: no configuration left", q);
		return -EINVAL;
	}
	c->pl.n_cfg = n;
	return 0;
}

static void
py_conf_free(void *p)
{
	struct py_conf *c = p;

	if (c == NULL)
		return;
	hp_plan_free(&c->pl);
	free(c);
}

static int
py_check(struct hp_sched_env *env, char *err, size_t errlen)
{
	const char *plat = hp_sched_param(env, "platform");
	const char *goal = hp_sched_param(env, "goal");
	const char *per = hp_sched_param(env, "period");
	const char *bs = hp_sched_param(env, "batch");
	const char *sc = hp_sched_param(env, "scale");
	const char *only = hp_sched_param(env, "devices");
	const char *hr = hp_sched_param(env, "headroom");
	const char *app[HP_PLAN_MAX_APPS], *task[HP_PLAN_MAX_APPS];
	unsigned int n_apps = env->n_apps > 1 ? env->n_apps : 1;
	struct hp_platform pf;
	struct py_conf *c;
	uint32_t batch = PY_BATCH_DEF;
	unsigned int i, x;
	int ret = -EINVAL;

	for (i = 0; i < env->n_params; i++)	/* libraries first: goals may name theirs */
		if (!strncmp(env->params[i], "lib=", 4) &&
		    goal_lib(env->params[i] + 4, err, errlen) < 0)
			return -EINVAL;
	if (plat == NULL) {
		snprintf(err, errlen, "--goal needs a modeled platform (--platform NAME): the configurations come from its profile");
		return -EINVAL;
	}
	if (env->n_apps <= 1 && env->n_tasks != 1) {
		snprintf(err, errlen, "--goal: the app is a chain of %u tasks; configurations model one kernel per app (ids, dedup, vpn, crypto)",
			 env->n_tasks);
		return -EINVAL;
	}
	if (n_apps > HP_PLAN_MAX_APPS) {
		snprintf(err, errlen, "--goal: at most %d apps", HP_PLAN_MAX_APPS);
		return -EINVAL;
	}
	for (i = 0; env->n_apps > 1 && i < env->n_apps; i++)
		if (env->app_ntasks[i] != 1) {
			snprintf(err, errlen, "--goal: app %s is a chain of %u tasks; configurations model one kernel per app (ids, dedup, vpn, crypto)",
				 env->app_names[i], env->app_ntasks[i]);
			return -EINVAL;
		}
	if (bs != NULL && hp_parse_uint(bs, 1, HP_MODEL_BATCH_MAX, &x) < 0) {
		snprintf(err, errlen, "batch=: expected 1..%d", HP_MODEL_BATCH_MAX);
		return -EINVAL;
	}
	if (bs != NULL)
		batch = x;
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->period_s = 0.5;
	if (per != NULL) {
		char *end;
		double ms = strtod(per, &end);

		if (*end != '\0' || !(ms >= 10 && ms <= 60000)) {
			snprintf(err, errlen, "--goal-period: expected 10..60000 ms");
			goto fail;
		}
		c->period_s = ms / 1e3;
	}
	c->scale = 1;
	if (sc != NULL) {
		char *end;

		c->scale = strtod(sc, &end);
		if (*end != '\0' || !(c->scale >= 0.01 && c->scale <= 1000)) {
			snprintf(err, errlen, "scale=: expected the devices' scale, 0.01..1000");
			goto fail;
		}
	}
	c->headroom = PY_HEADROOM;
	if (hr != NULL) {
		char *end;

		c->headroom = strtod(hr, &end);
		if (*end != '\0' || !(c->headroom >= 1 && c->headroom <= 4)) {
			snprintf(err, errlen, "headroom=: expected the offered rate's factor, 1..4");
			goto fail;
		}
	}
	if (hp_goal_parse(&c->goal, goal != NULL ? goal : "max-throughput", err, errlen) < 0)
		goto fail;
	snprintf(c->goal_text, sizeof(c->goal_text), "%s", goal != NULL ? goal : "max-throughput");
	for (i = 0; i < env->n_params; i++)
		if (!strncmp(env->params[i], "at=", 3) &&
		    parse_at(c, env->params[i] + 3, err, errlen) < 0)
			goto fail;
	if (hp_platform_load(&pf, plat, err, errlen) < 0)
		goto fail;
	if (env->n_apps > 1) {
		for (i = 0; i < n_apps; i++) {
			app[i] = env->app_names[i];
			task[i] = env->task_names[env->app_first[i]];
		}
	} else {
		app[0] = task[0] = env->task_names[0];
	}
	ret = hp_plan_build(&c->pl, &pf, app, task, n_apps, &batch, 1, 0, err, errlen);
	for (i = 0; ret == 0 && i < pf.n_dev; i++)
		c->cpu_dev[i] = pf.dev[i].cls == HP_MODEL_CLASS_CPU;
	hp_platform_free(&pf);
	if (ret < 0 || (only != NULL && only_devices(c, only, err, errlen) < 0))
		goto fail;
	env->conf = c;
	return 0;
fail:
	py_conf_free(c);
	return -EINVAL;
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
	uint32_t allowed = 0;
	unsigned int a, j;

	for (a = 0; a < st->n_apps; a++) {
		st->allowed[a] = 0;
		for (j = 0; j < st->c->pl.n_dev; j++)
			if (cf->devmask[a] & (1u << j))
				st->allowed[a] |= st->set[j];
		allowed |= st->allowed[a];
	}
	if (st->active >= 0 && k != st->active)
		s->gs.switches++;
	st->settle = 0;
	st->active = k;
	__atomic_store_n(&s->off_mask, ~allowed & ((s->n_dev >= 32) ? ~0u : (1u << s->n_dev) - 1),
			 __ATOMIC_RELAXED);
	hp_plan_cfg_label(&st->c->pl, cf, s->gs.cfg, sizeof(s->gs.cfg));
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
	st->goal = c->goal;
	snprintf(s->gs.goal, sizeof(s->gs.goal), "%s", c->goal_text);
	/* nothing is measured yet: the goal's pick for an idle port; the
	 * first window (a quarter period) re-picks at the measured rate */
	k = hp_goal_pick(&c->pl, &st->goal, off, &ev);
	py_activate(s, st, k < 0 ? 0 : k);
	py_admission(s, st, off);
	st->period = (uint64_t)(c->period_s * (double)s->env->hz);
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
	if (st != NULL)
		free(st->flows);
	free(st);
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
	if (md->flow_slot >= st->n_flows)	/* untracked: no order to keep */
		return py_least(s, st, allowed);
	f = &st->flows[md->flow_slot];
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
		d = py_least(s, st, allowed);
		if (d < 0)
			return -1;
		f->dev = (uint8_t)d;
		f->moving = 0;
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

	RTE_SET_USED(d);
	RTE_SET_USED(step);
	RTE_SET_USED(now);
	if (md->flow_slot < st->n_flows && st->flows[md->flow_slot].inflight > 0)
		st->flows[md->flow_slot].inflight--;
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

static void
py_tick(struct hp_sched *s, uint64_t now)
{
	struct py_state *st = s->priv;
	double off[HP_PLAN_MAX_APPS] = { 0 }, want[HP_PLAN_MAX_APPS] = { 0 };
	struct hp_plan_eval ev, cur, nxt;
	bool changed = false, short_now = false;
	double t, deliv, tot = 0;
	unsigned int a;
	uint32_t gen;
	int k;

	if (st->t0 == 0) {
		st->t0 = now;
		st->next = now + st->period / 4;	/* the first window: short */
	}
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
	if (!changed && now < st->next)
		return;
	st->next = now + st->period;
	/* the offered rate and what was delivered (EWMA over ~50 ms), in
	 * the plan's packets: frames of the mix's mean size */
	if (st->n_apps > 1) {
		for (a = 0; a < st->n_apps; a++)
			off[a] = s->app_rate_pps[a] * st->c->scale;
	} else {
		off[0] = s->rate_pps * st->c->scale;
	}
	deliv = s->env->imix_mean_bytes > 0 ?
		s->tput_bps / 8 / s->env->imix_mean_bytes * st->c->scale : 0;
	/* learning reads the run's total delivered: with several apps one
	 * app's shortfall is not the configuration's, so it learns alone */
	/* under admission the configuration is offered at most the target:
	 * delivering the target is not a shortfall to learn from */
	if (!changed && ++st->settle > 2 && st->n_apps == 1)
		py_learn(s, st, st->admit ? RTE_MIN(off[0], py_target_pps(st)) : off[0], deliv);
	else
		st->short_pps = 0;
	/* the pick reads the offered rate with headroom, so the next
	 * configuration comes in before the active one saturates */
	for (a = 0; a < st->n_apps; a++) {
		want[a] = off[a] * st->c->headroom;
		tot += off[a];
	}
	py_admission(s, st, off);
	k = hp_goal_pick(&st->c->pl, &st->goal, want, &ev);
	if (k >= 0 && k != st->active) {
		/* the active configuration short of the measured offered rate
		 * (of the target, under target-rate), and k carries more: no
		 * hysteresis, the port would drop while it waits */
		hp_plan_eval_at(&st->c->pl, (unsigned int)st->active, off, &cur);
		hp_plan_eval_at(&st->c->pl, (unsigned int)k, off, &nxt);
		double need = st->admit ? RTE_MIN(tot, py_target_pps(st)) : tot;

		short_now = cur.delivered_pps < need * 0.999 &&
			    nxt.delivered_pps > cur.delivered_pps;
	}
	if (k < 0 || k == st->active) {
		st->cand_n = 0;
	} else if (changed || short_now) {
		py_activate(s, st, k);	/* the operator asked, or saturated: at once */
		st->cand_n = 0;
	} else {
		/* hysteresis: the same other winner PY_WIN evaluations in a
		 * row, so a rate on a boundary does not flap */
		st->cand_n = k == st->cand ? st->cand_n + 1 : 1;
		st->cand = k;
		if (st->cand_n >= PY_WIN) {
			py_activate(s, st, k);
			st->cand_n = 0;
		}
	}
	py_publish(s);
}

static const struct hp_sched_ops sched_pythia = {
	.name = "pythia",
	.desc = "configuration-level (Pythia): the goal picks the devices from a platform's configurations, re-checked on a timer (--goal)",
	.params = (const char *const[]){ "platform", "goal", "period", "at", "lib", "batch", "scale", "devices", "headroom", NULL },
	.check = py_check,
	.conf_free = py_conf_free,
	.init = py_init,
	.fini = py_fini,
	.pick = py_pick,
	.done = py_done,
	.tick = py_tick,
};
HP_SCHED_REGISTER(sched_pythia)
