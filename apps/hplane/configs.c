/* SPDX-License-Identifier: BSD-3-Clause
 * hplane profile --configs APPS --platform NAME: Pythia's offline
 * analysis (section VI-A) on a modeled platform: every app -> device-set
 * mapping x batch size, each with its throughput, latency and power per
 * app and together, and the co-worker runs of Tables I-III; written as
 * heteroplane-configs-1 (lib/plan). Needs no EAL: the models are computed.
 * Real devices are not measured this way yet (refused).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_model.h"
#include "hp_plan.h"
#include "hp_task.h"
#include "profile.h"

#define DEFAULT_BATCHES "1024,2048,4096,8192,16384,32768,65536"

int
hp_configs_check(struct hp_profile_opts *o, char *err, size_t errlen)
{
	const char *p = o->batches ? o->batches : DEFAULT_BATCHES;
	char list[256], q[64], *tok, *save = NULL;
	size_t l = o->out ? strlen(o->out) : 0;

	if (o->platform == NULL) {
		snprintf(err, errlen, "profile --configs computes a modeled platform's configurations: give --platform NAME (measuring real devices this way is not built yet)");
		return -EINVAL;
	}
	if (l < 6 || strcmp(o->out + l - 5, ".json") != 0) {
		snprintf(err, errlen, "profile --configs needs --out FILE.json (the configurations to write)");
		return -EINVAL;
	}
	if (strlen(o->configs) >= sizeof(list)) {
		snprintf(err, errlen, "--configs: list too long");
		return -EINVAL;
	}
	snprintf(list, sizeof(list), "%s", o->configs);
	if (o->train_time_s == 0)
		o->train_time_s = 1.0;
	o->n_apps = 0;
	for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		const struct hp_app *app = hp_app_find(tok);
		unsigned int i;

		hp_quote(q, sizeof(q), tok, 40);
		if (app == NULL) {
			snprintf(err, errlen, "--configs: unknown app %s (hplane list)", q);
			return -EINVAL;
		}
		if (app->n_tasks != 1) {
			snprintf(err, errlen, "--configs: app %s is a chain of %u tasks; configurations model one kernel per app (ids, dedup, vpn, crypto)",
				 q, app->n_tasks);
			return -EINVAL;
		}
		for (i = 0; i < o->n_apps; i++)
			if (o->app[i] == app) {
				snprintf(err, errlen, "--configs: app %s named twice", q);
				return -EINVAL;
			}
		if (o->n_apps == HP_PLAN_MAX_APPS) {
			snprintf(err, errlen, "--configs: at most %d apps", HP_PLAN_MAX_APPS);
			return -EINVAL;
		}
		o->app[o->n_apps++] = app;
	}
	if (o->n_apps == 0) {
		snprintf(err, errlen, "--configs: expected apps, e.g. --configs ids,vpn,dedup");
		return -EINVAL;
	}
	o->n_batch = 0;
	while (*p != '\0') {
		char *end;
		unsigned long b = strtoul(p, &end, 10);

		if (*p < '0' || *p > '9' || end == p || b == 0 || b > HP_MODEL_BATCH_MAX ||
		    o->n_batch == HP_PLAN_MAX_BATCHES ||
		    (o->n_batch && b <= o->batch[o->n_batch - 1]) || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen, "--batches: expected increasing batch sizes 1..%d, at most %d",
				 HP_MODEL_BATCH_MAX, HP_PLAN_MAX_BATCHES);
			return -EINVAL;
		}
		o->batch[o->n_batch++] = (unsigned int)b;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int
hp_cmd_configs(const struct hp_profile_opts *o, char *err, size_t errlen)
{
	static const char *const goals[] = { "max-throughput", "min-latency", "min-energy",
					     "target-rate:10" };
	const char *apps[HP_PLAN_MAX_APPS], *tasks[HP_PLAN_MAX_APPS];
	static const double loads[] = { 2, 5, 10, 15 };
	double offered[HP_PLAN_MAX_APPS];
	struct hp_platform pf;
	struct hp_plan pl;
	uint32_t batches[HP_PLAN_MAX_BATCHES];
	char label[256];
	unsigned int i, l;
	int ret;

	ret = hp_platform_load(&pf, o->platform, err, errlen);
	if (ret < 0)
		return ret;
	for (i = 0; i < o->n_apps; i++) {
		apps[i] = o->app[i]->name;
		tasks[i] = o->app[i]->tasks[0];
	}
	for (i = 0; i < o->n_batch; i++)
		batches[i] = o->batch[i];
	ret = hp_plan_build(&pl, &pf, apps, tasks, o->n_apps, batches, o->n_batch, o->train_time_s,
			    err, errlen);
	if (ret < 0)
		goto out;
	ret = hp_plan_write(&pl, &pf, o->out, err, errlen);
	if (ret < 0)
		goto out;
	printf("configs: platform %s (modeled), %u devices, %u apps, %u batch sizes: %u configurations -> %s\n",
	       pf.name, pf.n_dev, o->n_apps, o->n_batch, pl.n_cfg, o->out);
	printf("configs: training %.3g s per configuration would take %.0f s on the machine\n",
	       o->train_time_s, o->train_time_s * pl.n_cfg);
	/* what each goal picks when every app offers 2, 5, 10, 15 Gbit/s
	 * (the paper's Fig. 5 rates are 10 to 20 Gbit/s per app) */
	for (l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
		for (i = 0; i < o->n_apps; i++)
			offered[i] = loads[l] / pl.gbps_per_mpps * 1e6;
		for (i = 0; i < sizeof(goals) / sizeof(goals[0]); i++) {
			struct hp_goal g;
			struct hp_plan_eval ev;
			int k;

			if (hp_goal_parse(&g, goals[i], err, errlen) < 0 ||
			    (k = hp_goal_pick(&pl, &g, offered, &ev)) < 0)
				continue;
			hp_plan_cfg_label(&pl, &pl.cfg[k], label, sizeof(label));
			printf("configs: %g Gbit/s per app, %-15s %s: %.1f Gbit/s, %.1f W, %.2f ms\n",
			       loads[l], goals[i], label, ev.delivered_gbps, ev.power_w, ev.lat_ms);
		}
	}
	hp_plan_free(&pl);
out:
	hp_platform_free(&pf);
	return ret;
}
