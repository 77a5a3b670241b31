/* SPDX-License-Identifier: BSD-3-Clause
 * hplane profile --configs APPS --platform NAME: Pythia's offline
 * analysis (section VI-A) on a modeled platform: every app -> device-set
 * mapping x batch size, each with its throughput, latency and power per
 * app and together, and the co-worker runs of Tables I-III; written as
 * heteroplane-configs-1 (lib/plan). On a modeled platform nothing runs:
 * the models are computed. Without --platform the devices of the command
 * line (the CPU worker kind and each --gpu) are measured, short: each app
 * alone on each device at each batch size (bare, as hplane profile times
 * a point), and apps sharing a device are estimated as time sharing (no
 * interference is measured).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "hp_common.h"
#include "hp_device.h"
#include "hp_model.h"
#include "hp_plan.h"
#include "hp_task.h"
#include "profile.h"

#define DEFAULT_BATCHES "1024,2048,4096,8192,16384,32768,65536"
#define MEASURED_BATCHES "1024,2048,4096"   /* what a batch device can be sent */

bool
hp_gpu_twice(const struct hp_run_cfg *cfg, const char *spec, char *err, size_t errlen)
{
	size_t l = strcspn(spec, ",");
	char q[80];
	unsigned int j;

	for (j = 0; j < cfg->n_gpu; j++)
		if (strcspn(cfg->gpus[j], ",") == l && !strncmp(cfg->gpus[j], spec, l)) {
			snprintf(err, errlen, "--gpu %s: that device is given twice",
				 hp_quote(q, sizeof(q), spec, 60));
			return true;
		}
	return false;
}

int
hp_platform_apply(struct hp_run_cfg *cfg, const char *name, char (*spec)[160], char *err,
		  size_t errlen)
{
	struct hp_platform pf;
	unsigned int i, k = 0;
	int ret = 0;

	if (hp_platform_load(&pf, name, err, errlen) < 0) {
		char why[400];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "--platform: %s", why);
		return -EINVAL;
	}
	for (i = 0; i < pf.n_dev && ret == 0; i++) {
		bool cpu = pf.dev[i].cls == HP_MODEL_CLASS_CPU;

		ret = -EINVAL;
		if (cpu && cfg->cpu_model != NULL)
			snprintf(err, errlen, "--platform models the CPU workers itself: no --cpu-model with it");
		else if (!cpu && cfg->n_gpu == HP_MAX_ACCEL)
			snprintf(err, errlen, "--platform: with the --gpu given, more than %d accelerators",
				 HP_MAX_ACCEL);
		else if (k == HP_PLATFORM_SPECS ||
			 snprintf(spec[k], 160, "%s%s@%s", cpu ? "" : "model:", name, pf.dev_name[i]) >= 160)
			snprintf(err, errlen, "--platform: name too long");
		else if (!cpu && hp_gpu_twice(cfg, spec[k], err, errlen))
			;
		else
			ret = 0;
		if (ret == 0 && cpu)
			cfg->cpu_model = spec[k++];
		else if (ret == 0)
			cfg->gpus[cfg->n_gpu++] = spec[k++];
	}
	hp_platform_free(&pf);
	return ret;
}

int
hp_configs_check(struct hp_profile_opts *o, char *err, size_t errlen)
{
	const char *p = o->batches ? o->batches : o->platform ? DEFAULT_BATCHES : MEASURED_BATCHES;
	unsigned int bmax = o->platform ? HP_MODEL_BATCH_MAX : HP_BATCH_MAX;
	char list[256], q[64], *tok, *save = NULL;
	size_t l = o->out ? strlen(o->out) : 0;

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
	if (o->reps == 0)
		o->reps = 5;	/* measured: short */
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

		if (*p < '0' || *p > '9' || end == p || b == 0 || b > bmax ||
		    o->n_batch == HP_PLAN_MAX_BATCHES ||
		    (o->n_batch && b <= o->batch[o->n_batch - 1]) || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen, "--batches: expected increasing batch sizes 1..%u%s, at most %d",
				 bmax, o->platform ? "" : " (measured devices)", HP_PLAN_MAX_BATCHES);
			return -EINVAL;
		}
		o->batch[o->n_batch++] = (unsigned int)b;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* Every app alone on every device of the command line, at each batch
 * size, into pf's models (one row per batch: its measured time per
 * packet). A device that batches is sent at most its own batch limit; the
 * CPU worker kind runs bursts, so it is timed on one (its cost per packet
 * does not depend on a batch it never forms). */
static int
measure(const struct hp_profile_opts *o, const struct hp_run_cfg *cfg, struct hp_platform *pf,
	char *err, size_t errlen)
{
	char cpu_spec[600] = "cpu";
	struct rte_mempool *mp;
	static int epoch;
	uint32_t size = 0;
	unsigned int a, d, i, b;
	int ret = 0;

	for (i = 0; i < cfg->imix.n; i++)	/* Pythia's packets are 1500 B: the largest */
		size = cfg->imix.size[i] > size ? cfg->imix.size[i] : size;
	if (cfg->cpu_model != NULL)
		hp_device_cpu_model_spec(cpu_spec, sizeof(cpu_spec), cfg->cpu_model, cfg->burst, NULL);
	mp = hp_pktmbuf_pool("hp_cfgs", 2 * HP_BATCH_MAX + 1024, (int)rte_socket_id());
	if (mp == NULL) {
		snprintf(err, errlen, "cannot create the packet pool (try a larger -m)");
		return -ENOMEM;
	}
	pf->gbps_per_mpps = size * 8 / 1e3;
	for (a = 0; a < o->n_apps && ret == 0; a++) {
		struct hp_dev_env env = {
			.epoch = &epoch, .burst = cfg->burst, .hz = rte_get_tsc_hz(),
			.app = o->app[a], .task_cfg = &cfg->task, .task_gran = true,
		};

		env.tasks[0] = hp_task_find(o->app[a]->tasks[0]);
		for (d = 0; d < pf->n_dev && ret == 0; d++) {
			struct hp_model *m = &pf->dev[d];
			struct hp_model_task *t = &m->tasks[m->n_tasks];
			struct hp_device dev = { 0 };
			struct hp_dev_info info;
			unsigned int maxb;

			ret = hp_device_create(&dev, d == 0 ? cpu_spec : cfg->gpus[d - 1], &env, d, err,
					       errlen);
			if (ret < 0)
				break;
			hp_device_info(&dev, &info);
			maxb = info.batch ? info.max_batch : HP_BURST;
			if (a == 0) {
				snprintf(pf->dev_name[d], HP_PLAN_NAMELEN, "%.*s", HP_PLAN_NAMELEN - 1,
					 d == 0 ? "cpu" : dev.name);
				m->max_batch = maxb;
				m->power_idle_w = dev.caps.power_idle_w > 0 ? dev.caps.power_idle_w : 0;
				m->power_busy_w = dev.caps.power_busy_w > 0 ? dev.caps.power_busy_w : 0;
				m->power_off_w = -1;
				m->cls = d == 0 ? HP_MODEL_CLASS_CPU : HP_MODEL_CLASS_ANY;
			}
			snprintf(t->name, sizeof(t->name), "%s", o->app[a]->tasks[0]);
			for (b = 0; b < o->n_batch && ret == 0; b++) {
				unsigned int n = o->batch[b] < maxb ? o->batch[b] : maxb;
				struct hp_prof_point pt;

				ret = hp_profile_time(&dev, mp, cfg, 0, n, size, cfg->seed + b, o->reps,
						      &pt, err, errlen);
				if (ret < 0)
					break;
				t->rows[t->n_rows++] = (struct hp_model_row){
					.batch = o->batch[b], .per_pkt_us = pt.med_ms * 1e3 / n,
				};
				printf("  %-24s %-8s batch %5u (timed on %4u)  %10.0f pps alone\n",
				       pf->dev_name[d], t->name, o->batch[b], n, n / (pt.med_ms / 1e3));
			}
			m->n_tasks++;
			hp_device_destroy(&dev);
		}
	}
	rte_mempool_free(mp);
	return ret;
}

/* Every configuration of the options' apps (each by its first task) and
 * batch sizes on the platform's devices. */
static int
plan_build(const struct hp_profile_opts *o, const struct hp_platform *pf, struct hp_plan *pl,
	   char *err, size_t errlen)
{
	const char *apps[HP_PLAN_MAX_APPS], *tasks[HP_PLAN_MAX_APPS];
	uint32_t batches[HP_PLAN_MAX_BATCHES];
	unsigned int i;

	for (i = 0; i < o->n_apps; i++) {
		apps[i] = o->app[i]->name;
		tasks[i] = o->app[i]->tasks[0];
	}
	for (i = 0; i < o->n_batch; i++)
		batches[i] = o->batch[i];
	return hp_plan_build(pl, pf, apps, tasks, o->n_apps, batches, o->n_batch, o->train_time_s,
			     err, errlen);
}

int
hp_cmd_configs_measure(const struct hp_profile_opts *o, struct hp_run_cfg *cfg, char *err,
		       size_t errlen)
{
	struct hp_platform pf = { .n_dev = 1 + cfg->n_gpu };
	struct hp_plan pl;
	int ret;

	if (pf.n_dev > HP_PLAN_MAX_DEV) {
		snprintf(err, errlen, "--configs: at most %d devices (the CPU worker and %d --gpu)",
			 HP_PLAN_MAX_DEV, HP_PLAN_MAX_DEV - 1);
		return -EINVAL;
	}
	snprintf(pf.name, sizeof(pf.name), "measured");
	pf.dev = calloc(pf.n_dev, sizeof(*pf.dev));
	if (pf.dev == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	printf("configs: measuring %u apps alone on %u devices, %u repetitions per point\n",
	       o->n_apps, pf.n_dev, o->reps);
	ret = measure(o, cfg, &pf, err, errlen);
	if (ret < 0)
		goto out;
	ret = plan_build(o, &pf, &pl, err, errlen);
	if (ret < 0)
		goto out;
	ret = hp_plan_write(&pl, &pf, o->out, err, errlen);
	if (ret == 0)
		printf("configs: %u configurations (apps sharing a device estimated as time sharing: no interference measured) -> %s\n",
		       pl.n_cfg, o->out);
	hp_plan_free(&pl);
out:
	hp_platform_free(&pf);
	return ret;
}

int
hp_cmd_configs(const struct hp_profile_opts *o, char *err, size_t errlen)
{
	static const char *const goals[] = { "max-throughput", "min-latency", "min-energy",
					     "target-rate:10" };
	static const double loads[] = { 2, 5, 10, 15 };
	double offered[HP_PLAN_MAX_APPS];
	struct hp_platform pf;
	struct hp_plan pl;
	char label[256];
	unsigned int i, l;
	int ret;

	ret = hp_platform_load(&pf, o->platform, err, errlen);
	if (ret < 0)
		return ret;
	ret = plan_build(o, &pf, &pl, err, errlen);
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
