/* SPDX-License-Identifier: BSD-3-Clause
 * pythia's check(): its options (--goal, --goal-at, --goal-lib,
 * --goal-period, --goal-inner and the --sched-param keys), the goals
 * they name, and every configuration of the run's apps on the platform,
 * read once before the run starts (sched_pythia.c runs them).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_model.h"
#include "hp_plan.h"
#include "hp_sched.h"
#include "sched_pythia.h"

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

void
hp_pythia_conf_free(void *p)
{
	struct py_conf *c = p;

	if (c == NULL)
		return;
	hp_plan_free(&c->pl);
	free(c);
}

int
hp_pythia_check(struct hp_sched_env *env, char *err, size_t errlen)
{
	const char *plat = hp_sched_param(env, "platform");
	const char *goal = hp_sched_param(env, "goal");
	const char *per = hp_sched_param(env, "period");
	const char *bs = hp_sched_param(env, "batch");
	const char *sc = hp_sched_param(env, "scale");
	const char *only = hp_sched_param(env, "devices");
	const char *hr = hp_sched_param(env, "headroom");
	const char *inner = hp_sched_param(env, "inner");
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
	if (inner != NULL && strcmp(inner, "fixed") != 0 && strcmp(inner, "adaptive") != 0) {
		char q[48];

		snprintf(err, errlen, "--goal-inner %s: expected fixed or adaptive",
			 hp_quote(q, sizeof(q), inner, 30));
		goto fail;
	}
	c->inner_adaptive = inner != NULL && strcmp(inner, "adaptive") == 0;
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
	hp_pythia_conf_free(c);
	return -EINVAL;
}
