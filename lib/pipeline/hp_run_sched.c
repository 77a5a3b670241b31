/* SPDX-License-Identifier: BSD-3-Clause
 * The scheduling policy's side of a run's configuration: the facts it
 * sees before the run starts, and its own check of its options, made
 * before EAL so that bad input costs one line and no start-up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hp_pipeline.h"

void
hp_run_sched_env(const struct hp_run_cfg *cfg, struct hp_sched_env *env)
{
	const struct hp_app *app = hp_app_find(cfg->app);
	unsigned int i;

	memset(env, 0, sizeof(*env));
	env->task_gran = cfg->task_gran;
	env->n_tasks = app != NULL ? app->n_tasks : 0;
	for (i = 0; i < env->n_tasks; i++)
		env->task_names[i] = app->tasks[i];
	/* --apps: the joint chain, as the devices run it (a policy's chain
	 * cost is then the whole joint chain's: per-app costs are not
	 * modeled yet, docs/scheduling.md) */
	if (cfg->mix.n > 1) {
		unsigned int a, k;

		env->n_tasks = cfg->mix.n_tasks;
		env->n_apps = cfg->mix.n;
		for (a = 0; a < cfg->mix.n; a++)
			for (k = 0; k < cfg->mix.app[a]->n_tasks; k++)
				env->task_names[cfg->mix.first[a] + k] = cfg->mix.app[a]->tasks[k];
		for (a = 0; a < cfg->mix.n && a < HP_SCHED_MAX_APPS; a++) {
			env->app_names[a] = cfg->mix.app[a]->name;
			env->app_first[a] = (uint8_t)cfg->mix.first[a];
			env->app_ntasks[a] = (uint8_t)cfg->mix.app[a]->n_tasks;
		}
	}
	env->types = &cfg->types;
	/* CPU workers first, then the accelerators, as the pipeline builds
	 * them; a worker is a CPU even when its timing is modeled */
	env->n_dev = cfg->workers + cfg->n_gpu;
	for (i = 0; i < env->n_dev && i < HP_SCHED_MAX_DEV; i++)
		env->role[i] = i < cfg->workers ? HP_ROLE_CPU : HP_ROLE_ACCEL;
	env->capacity_pps = cfg->capacity_pps;
	for (i = 0; i < cfg->imix.n; i++)
		env->imix_mean_bytes += cfg->imix.size[i] * cfg->imix.share[i];
	env->seed = cfg->seed;
	/* the flow table's positions: rte_hash holds 8 keys at least */
	env->max_flows = cfg->max_flows < 8 ? 8 : cfg->max_flows;
	env->n_params = cfg->n_sched_params;
	memcpy(env->params, cfg->sched_params, sizeof(env->params));
	env->conf = cfg->sched_conf;
}

int
hp_run_sched_check(struct hp_run_cfg *cfg, char *err, size_t errlen)
{
	const struct hp_sched_ops *ops = hp_sched_find(cfg->sched);
	struct hp_sched_env env;
	char serr[512] = "";
	int ret;

	if (ops == NULL) {
		snprintf(err, errlen, "unknown scheduler '%s'", cfg->sched);
		return -EINVAL;
	}
	hp_run_sched_release(cfg);
	hp_run_sched_env(cfg, &env);
	ret = hp_sched_check(ops, &env, serr, sizeof(serr));
	if (ret < 0) {
		snprintf(err, errlen, "scheduler %s: %s", ops->name, serr[0] ? serr : "bad options");
		return ret;
	}
	cfg->sched_conf = env.conf;
	return 0;
}

void
hp_run_sched_release(struct hp_run_cfg *cfg)
{
	hp_sched_conf_free(hp_sched_find(cfg->sched), cfg->sched_conf);
	cfg->sched_conf = NULL;
}
