/* SPDX-License-Identifier: BSD-3-Clause
 * The schedulers' state before the run and after it: the policy's view
 * of the devices and its service-time models, the flow table and reorder
 * windows, staging per device; one set per scheduler lcore
 * (--sched-lcores), none shared.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "hp_common.h"
#include "hp_model.h"
#include "pl_priv.h"

/* Service-time model a policy reads for device d: the profile's section
 * for the device's role when the device is not modeled itself, else the
 * device's own (a modeled device's profile, a cpu worker's online
 * measurement, the CUDA plugin's model). Cycles, excluding any queue. */
static uint64_t
sched_predict(const struct hp_sched *s, unsigned int d, unsigned int task,
	      uint32_t n, uint32_t bytes)
{
	const struct pl_sched *sc = s->predict_arg;
	const struct pl_run *r = sc->r;
	const struct hp_device *dev = &r->dev[d];
	const struct hp_model *pm = sc->pmodel[s->dev[d].role];

	if (!s->dev[d].modeled && pm != NULL) {
		double us = 0, t;
		unsigned int k;

		for (k = 0; k < r->app->n_tasks; k++) {
			if (task != HP_MAX_TASKS && task != k)
				continue;
			t = hp_model_predict_us(pm, r->tasks[k]->name, n, bytes);
			us += t > 0 ? t : 0;
		}
		return (uint64_t)(us * (double)r->hz / 1e6);
	}
	return hp_device_predict(dev, task, n, bytes);
}

/* The policy's view: run facts, devices, models, the between-tasks FIFO. */
static int
sched_setup(struct pl_run *r, struct pl_sched *sc, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int i;

	/* the facts known before the run, its options and what the policy's
	 * check read (cfg->sched_conf), then what only the run knows */
	hp_run_sched_env(cfg, &sc->senv);
	sc->senv.hz = r->hz;
	for (i = 0; i < r->n_dev; i++) {
		struct hp_dev_info info;

		hp_device_info(&r->dev[i], &info);
		sc->sdev[i] = (struct hp_sched_dev){
			.role = info.role == HP_DEV_ROLE_CPU ? HP_ROLE_CPU : HP_ROLE_ACCEL,
			.modeled = info.modeled,
			.max_batch = info.batch ? info.max_batch : cfg->burst,
			.min_batch = info.batch ? info.min_batch : 1,
			.queue_cap = cfg->ring_size + 2 * cfg->burst,
		};
		sc->senv.role[i] = sc->sdev[i].role;
	}
	for (i = 0; i < 2; i++)
		sc->pmodel[i] = cfg->profile != NULL ? cfg->profile->role[i] : NULL;
	sc->s.dev = sc->sdev;
	sc->s.env = &sc->senv;
	sc->s.predict = sched_predict;
	sc->s.predict_arg = sc;
	if (cfg->task_gran) {
		uint32_t n = rte_align32pow2(cfg->mbufs + 1);

		sc->redo = calloc(n, sizeof(*sc->redo));
		if (sc->redo == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		sc->redo_mask = n - 1;
	}
	return 0;
}

/* How long a window waits for a gap (hp_reorder.h), in microseconds:
 * --reorder-hold-us, else the longest deadline of the type table (past
 * it no packet of the run is still on time), else the thesis's 100 ms. */
double
pl_reorder_hold_us(const struct hp_run_cfg *cfg)
{
	double us = 0;
	unsigned int i;

	if (cfg->reorder_hold_us > 0)
		return cfg->reorder_hold_us;
	for (i = 0; i < cfg->types.n; i++)
		if (cfg->types.t[i].latency && cfg->types.t[i].deadline_us > us)
			us = cfg->types.t[i].deadline_us;
	return us > 0 ? us : 100000.0;
}

/* The flow table and the reorder windows: a window per flow that holds
 * something, at most one per mbuf (only held packets take one). */
static int
sched_flows_setup(struct pl_run *r, struct pl_sched *sc, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	/* 0: flows are never removed */
	uint64_t idle = cfg->flow_idle_s > 0 ? (uint64_t)(cfg->flow_idle_s * (double)r->hz) :
					       (uint64_t)INT64_MAX;
	int ret;

	/* the sweep runs once a tick (1 ms) */
	ret = hp_flowtab_init(&sc->ft, cfg->max_flows, idle,
			      (uint64_t)(cfg->flow_idle_s * 1000.0), (int)rte_socket_id());
	if (ret < 0) {
		snprintf(err, errlen, "flow table of %u flows: %s", cfg->max_flows,
			 ret == -EINVAL ? "bad size" : "out of memory");
		return ret;
	}
	ret = hp_reorder_init_pool(&sc->ro, sc->ft.n_pos, cfg->reorder_win, cfg->mbufs);
	if (ret < 0) {
		snprintf(err, errlen, "reorder windows: %s", ret == -EINVAL ?
			 "window must be a power of two >= 2" : "out of memory");
		return ret;
	}
	sc->ro.hold = (uint64_t)(pl_reorder_hold_us(cfg) * 1e-6 * (double)r->hz);
	return 0;
}

/* One scheduler's state: flow table, reorder windows, deadlines, staging
 * per device, its completion rings, and the policy's view and set-up. */
static int
sched_setup_one(struct pl_run *r, struct pl_sched *sc, const struct hp_sched_ops *sops,
		char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	char serr[256] = "";
	unsigned int i;
	int ret;

	ret = sched_flows_setup(r, sc, err, errlen);
	if (ret < 0)
		return ret;
	sc->cyc2ns_mult = (uint64_t)((1e9 * 4294967296.0) / (double)r->hz);
	sc->port_stamps = cfg->src == HP_SRC_GEN;
	for (i = 0; i < cfg->types.n; i++)
		sc->dl_cycles[i + 1] = hp_us_to_tsc(cfg->types.t[i].deadline_us);
	hp_type_index_build(&sc->tix, &cfg->types);
	hp_staging_init(&sc->txs, HP_STAGING_MAX);
	sc->s.ops = sops;
	sc->s.n_dev = r->n_dev;
	sc->s.room = sc->room;
	ret = sched_setup(r, sc, err, errlen);
	if (ret < 0)
		return ret;
	if (sops->init && (ret = sops->init(&sc->s, serr, sizeof(serr))) < 0) {
		snprintf(err, errlen, "scheduler %s: %s", sops->name,
			 serr[0] ? serr : "set-up failed");
		return ret;
	}
	hp_hist_reset(&sc->lat);
	hp_hist_reset(&sc->ilat);
	for (i = 0; i < HP_MAX_DEVICES; i++) {
		hp_hist_reset(&sc->dlat[i]);
		hp_hist_reset(&sc->idlat[i]);
	}
	if (pl_apps_setup(r, sc) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < r->n_dev; i++) {
		sc->wst[i] = rte_zmalloc("hp_wstage", sizeof(struct hp_staging), 0);
		if (sc->wst[i] == NULL) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		hp_staging_init(sc->wst[i], 2 * cfg->burst);
		sc->room[i] = sc->wst[i]->cap;
		sc->dout[i] = r->n_sc > 1 ? r->dev[i].outs[sc->idx] : r->dev[i].out;
	}
	return 0;
}

/* Every scheduler, each on its queue pair (queue i for scheduler i). */
int
pl_sched_setup(struct pl_run *r, const struct hp_sched_ops *sops, char *err,
	       size_t errlen)
{
	unsigned int i;
	int ret;

	for (i = 0; i < r->n_sc; i++) {
		r->sc[i].r = r;
		r->sc[i].idx = i;
		r->sc[i].q = (uint16_t)i;
		ret = sched_setup_one(r, &r->sc[i], sops, err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void
sched_free_one(struct pl_sched *sc)
{
	unsigned int i;

	free(sc->redo);
	pl_apps_free(sc->apps);
	sc->apps = NULL;
	for (i = 0; i < HP_MAX_DEVICES; i++)
		rte_free(sc->wst[i]);
	if (sc->s.ops && sc->s.ops->fini)
		sc->s.ops->fini(&sc->s);
	hp_reorder_free(&sc->ro);
	hp_flowtab_free(&sc->ft);
}

void
pl_sched_free(struct pl_run *r)
{
	unsigned int i;

	if (r->sc == NULL)
		return;
	for (i = 0; i < r->n_sc; i++)
		sched_free_one(&r->sc[i]);
}
