/* SPDX-License-Identifier: BSD-3-Clause
 * Platforms and their configurations (hp_plan.h): loading a platform's
 * device models, the throughput of kernels sharing a device, every
 * app -> device-set x batch configuration, and a configuration at an
 * offered load.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hp_common.h"
#include "hp_model.h"
#include "hp_plan.h"

#define PKT_BITS (1500 * 8)   /* the platforms' tables use 1500-byte packets */
#define QUEUE_RHO_MAX 0.999   /* a saturated device waits 500 services (delivered is capped) */

int
hp_platform_load(struct hp_platform *p, const char *name, char *err, size_t errlen)
{
	char path[1024], q[160];
	const char *devs[HP_PLAN_MAX_DEV];
	bool found[HP_PLAN_MAX_DEV];
	json_error_t je;
	json_t *root, *pl, *dl, *x;
	unsigned int i;
	size_t j;
	int ret = -EINVAL;

	memset(p, 0, sizeof(*p));
	if (strchr(name, '/') != NULL || strstr(name, ".json") != NULL)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s.json", hp_profile_dir(), name);
	hp_quote(q, sizeof(q), path, 120);
	root = json_load_file(path, 0, &je);
	if (root == NULL) {
		snprintf(err, errlen, "platform %s: %s", q,
			 errno == ENOENT || strstr(je.text, "unable to open") ? "no such profile"
									       : "not valid JSON");
		return -EINVAL;
	}
	pl = json_object_get(root, "platform");
	dl = json_object_get(pl, "devices");
	if (!json_is_object(pl) || !json_is_array(dl) || json_array_size(dl) == 0 ||
	    json_array_size(dl) > HP_PLAN_MAX_DEV) {
		snprintf(err, errlen, "platform %s: expected \"platform\": {\"devices\": [1..%d names]}",
			 q, HP_PLAN_MAX_DEV);
		goto out;
	}
	json_array_foreach(dl, j, x) {
		if (!json_is_string(x) || json_string_length(x) == 0 ||
		    json_string_length(x) >= HP_PLAN_NAMELEN) {
			snprintf(err, errlen, "platform %s: platform.devices[%zu]: expected a device name",
				 q, j);
			goto out;
		}
		for (i = 0; i < j; i++)
			if (strcmp(p->dev_name[i], json_string_value(x)) == 0) {
				snprintf(err, errlen, "platform %s: platform.devices[%zu]: named twice", q, j);
				goto out;
			}
		snprintf(p->dev_name[j], HP_PLAN_NAMELEN, "%s", json_string_value(x));
		devs[j] = p->dev_name[j];
	}
	p->n_dev = (unsigned int)json_array_size(dl);
	x = json_object_get(pl, "link_mpps");
	if (x != NULL && (!json_is_number(x) || json_number_value(x) < 0)) {
		snprintf(err, errlen, "platform %s: platform.link_mpps: expected a number >= 0", q);
		goto out;
	}
	p->link_pps = x != NULL ? json_number_value(x) * 1e6 : 0;
	x = json_object_get(pl, "gbps_per_mpps");
	if (x != NULL && (!json_is_number(x) || json_number_value(x) <= 0)) {
		snprintf(err, errlen, "platform %s: platform.gbps_per_mpps: expected a number > 0", q);
		goto out;
	}
	p->gbps_per_mpps = x != NULL ? json_number_value(x) : PKT_BITS / 1e3;
	x = json_object_get(root, "name");
	/* shown in reports and errors: one line, bounded */
	hp_quote(p->name, sizeof(p->name), json_is_string(x) && json_string_length(x) > 0 ?
		 json_string_value(x) : name, 60);
	p->dev = calloc(p->n_dev, sizeof(*p->dev));
	if (p->dev == NULL) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = hp_model_load_devices(p->dev, path, devs, p->n_dev, found, err, errlen);
	if (ret == -ENOENT)	/* one device asked for, and absent: err says so */
		ret = -EINVAL;
	for (i = 0; ret == 0 && i < p->n_dev; i++)
		if (!found[i]) {
			snprintf(err, errlen, "platform %s: no device section \"%s\" under \"devices\"",
				 q, hp_quote(path, sizeof(path), p->dev_name[i], 30));
			ret = -EINVAL;
		}
out:
	json_decref(root);
	if (ret < 0)
		hp_platform_free(p);
	return ret;
}

void
hp_platform_free(struct hp_platform *p)
{
	free(p->dev);
	p->dev = NULL;
}

int
hp_plan_device_rates(const struct hp_platform *p, unsigned int dev, const char *const *kernels,
		     unsigned int n, uint32_t batch, double *pps)
{
	const struct hp_model *m;
	double in_bits = 0, back_bits = 0, scale = 1;
	unsigned int i;

	if (dev >= p->n_dev || n == 0 || n > HP_PLAN_MAX_KERNELS)
		return -EINVAL;
	m = &p->dev[dev];
	for (i = 0; i < n; i++) {
		double alone = hp_model_rate_pps(m, kernels[i], batch);

		if (alone <= 0)
			return -EINVAL;
		pps[i] = alone * (1 - hp_model_slowdown_of(m, kernels, n, i, batch));
		in_bits += pps[i] * PKT_BITS;
		if (hp_model_copies_back(m, kernels[i]))
			back_bits += pps[i] * PKT_BITS;
	}
	/* behind PCIe every packet crosses the link (and back for a task
	 * that changes it): a link shorter than the kernels slows them all */
	if (m->pcie) {
		double worst = in_bits > back_bits ? in_bits : back_bits;

		if (worst > m->pcie_gbps * 1e9)
			scale = m->pcie_gbps * 1e9 / worst;
	}
	for (i = 0; i < n; i++)
		pps[i] *= scale;
	return 0;
}

void
hp_plan_cfg_label(const struct hp_plan *pl, const struct hp_plan_cfg *c, char *buf, size_t len)
{
	size_t o = 0;
	unsigned int a, d;

	buf[0] = '\0';
	for (a = 0; a < pl->n_apps && o < len; a++) {
		o += (size_t)snprintf(buf + o, len - o, "%s%s=", a ? "," : "", pl->app[a]);
		for (d = 0; d < pl->n_dev && o < len; d++)
			if (c->devmask[a] & (1u << d))
				o += (size_t)snprintf(buf + o, len - o, "%s%s",
						      buf[o - 1] == '=' ? "" : "+", pl->dev_name[d]);
	}
	if (o < len)
		snprintf(buf + o, len - o, "@%u", c->batch);
}

/* Capacities of configuration c: on each device the apps mapped there run
 * side by side (in app order, which picks a measured pair's entry). */
static int
cfg_compute(struct hp_plan *pl, const struct hp_platform *pf, struct hp_plan_cfg *c)
{
	double busy = 0;
	unsigned int a, d;

	c->cap_pps = 0;
	for (d = 0; d < pl->n_dev; d++) {
		const char *k[HP_PLAN_MAX_APPS];
		unsigned int who[HP_PLAN_MAX_APPS], n = 0, i;
		double pps[HP_PLAN_MAX_APPS];

		for (a = 0; a < pl->n_apps; a++)
			if (c->devmask[a] & (1u << d)) {
				who[n] = a;
				k[n++] = pl->task[a];
			}
		if (n == 0) {
			busy += pl->off_w[d];
			continue;
		}
		if (hp_plan_device_rates(pf, d, k, n, c->batch, pps) < 0)
			return -EINVAL;
		busy += pl->busy_w[d];
		for (i = 0; i < n; i++) {
			c->pps[who[i]][d] = pps[i];
			c->lat_ms[who[i]][d] = c->batch / pps[i] * 1e3;
			c->cap_pps += pps[i];
		}
	}
	if (pl->link_pps > 0 && c->cap_pps > pl->link_pps)
		c->cap_pps = pl->link_pps;
	c->power_w = busy;
	c->train_s = pl->train_time_s;
	return 0;
}

int
hp_plan_build(struct hp_plan *pl, const struct hp_platform *pf, const char *const *apps,
	      const char *const *tasks, unsigned int n_apps, const uint32_t *batches,
	      unsigned int n_batches, double train_time_s, char *err, size_t errlen)
{
	unsigned int a, d, b, n_maps = 1, m, i;
	char q[48];

	memset(pl, 0, sizeof(*pl));
	if (n_apps == 0 || n_apps > HP_PLAN_MAX_APPS || n_batches == 0 ||
	    n_batches > HP_PLAN_MAX_BATCHES || pf->n_dev == 0) {
		snprintf(err, errlen, "configurations need 1..%d apps and 1..%d batch sizes",
			 HP_PLAN_MAX_APPS, HP_PLAN_MAX_BATCHES);
		return -EINVAL;
	}
	snprintf(pl->platform, sizeof(pl->platform), "%s", pf->name);
	pl->link_pps = pf->link_pps;
	pl->gbps_per_mpps = pf->gbps_per_mpps;
	pl->n_dev = pf->n_dev;
	pl->n_apps = n_apps;
	pl->n_batches = n_batches;
	pl->train_time_s = train_time_s;
	for (d = 0; d < pf->n_dev; d++) {
		const struct hp_model *md = &pf->dev[d];

		memcpy(pl->dev_name[d], pf->dev_name[d], HP_PLAN_NAMELEN);
		pl->idle_w[d] = md->power_idle_w > 0 ? md->power_idle_w : 0;
		pl->busy_w[d] = md->power_busy_w > 0 ? md->power_busy_w : 0;
		pl->off_w[d] = md->power_off_w >= 0 ? md->power_off_w : pl->idle_w[d];
	}
	for (a = 0; a < n_apps; a++) {
		for (i = 0; i < a; i++)
			if (strcmp(apps[i], apps[a]) == 0) {
				snprintf(err, errlen, "app %s named twice",
					 hp_quote(q, sizeof(q), apps[a], 30));
				return -EINVAL;
			}
		snprintf(pl->app[a], HP_PLAN_NAMELEN, "%s", apps[a]);
		snprintf(pl->task[a], HP_PLAN_NAMELEN, "%s", tasks[a]);
		for (d = 0; d < pf->n_dev; d++)
			if (hp_model_rate_pps(&pf->dev[d], tasks[a], batches[0]) < 0) {
				snprintf(err, errlen, "platform %s: device %s has no model of task %s (app %s)",
					 pf->name, pf->dev_name[d], tasks[a], pl->app[a]);
				return -EINVAL;
			}
	}
	memcpy(pl->batches, batches, n_batches * sizeof(*batches));
	for (a = 0; a < n_apps; a++)
		n_maps *= (1u << pf->n_dev) - 1;
	pl->cfg = calloc((size_t)n_maps * n_batches, sizeof(*pl->cfg));
	if (pl->cfg == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (m = 0; m < n_maps; m++) {
		for (b = 0; b < n_batches; b++) {
			struct hp_plan_cfg *c = &pl->cfg[pl->n_cfg];
			unsigned int rest = m;

			for (a = 0; a < n_apps; a++) {	/* m in base 2^n_dev - 1 */
				c->devmask[a] = (uint8_t)(rest % ((1u << pf->n_dev) - 1) + 1);
				rest /= (1u << pf->n_dev) - 1;
			}
			c->batch = batches[b];
			if (cfg_compute(pl, pf, c) < 0) {
				snprintf(err, errlen, "platform %s: a configuration could not be computed",
					 pf->name);
				hp_plan_free(pl);
				return -EINVAL;
			}
			pl->n_cfg++;
		}
	}
	return 0;
}

void
hp_plan_free(struct hp_plan *pl)
{
	free(pl->cfg);
	pl->cfg = NULL;
	pl->n_cfg = 0;
}

void
hp_plan_eval_at(const struct hp_plan *pl, unsigned int idx, const double *offered_pps,
		struct hp_plan_eval *ev)
{
	const struct hp_plan_cfg *c = &pl->cfg[idx];
	double scale = 1, lat_w = 0;
	unsigned int a, d;

	memset(ev, 0, sizeof(*ev));
	for (a = 0; a < pl->n_apps; a++) {
		double cap = 0;

		for (d = 0; d < pl->n_dev; d++)
			cap += c->pps[a][d];
		ev->offered_pps += offered_pps[a];
		ev->app_delivered_pps[a] = offered_pps[a] < cap ? offered_pps[a] : cap;
		ev->delivered_pps += ev->app_delivered_pps[a];
	}
	/* the NIC's ceiling: every app gets the same share of it */
	if (pl->link_pps > 0 && ev->delivered_pps > pl->link_pps)
		scale = pl->link_pps / ev->delivered_pps;
	ev->delivered_pps *= scale;
	for (a = 0; a < pl->n_apps; a++) {
		double cap = 0, lat = 0;

		ev->app_delivered_pps[a] *= scale;
		for (d = 0; d < pl->n_dev; d++)
			cap += c->pps[a][d];
		/* flows spread over the app's devices by their capacity; a
		 * batch waits to fill at its device's share, then behind the
		 * batches before it (M/D/1's mean wait, rho / 2(1 - rho)
		 * services: near saturation a configuration reads slow, so
		 * min-latency keeps away from it), then is served */
		for (d = 0; d < pl->n_dev && ev->app_delivered_pps[a] > 0; d++) {
			double load, l, rho;

			if (c->pps[a][d] <= 0)
				continue;
			load = ev->app_delivered_pps[a] * c->pps[a][d] / cap;
			rho = fmin(load / c->pps[a][d], QUEUE_RHO_MAX);
			l = c->batch / load * 1e3 + c->lat_ms[a][d] * (1 + rho / (2 * (1 - rho)));
			lat = l > lat ? l : lat;
			if (load / c->pps[a][d] > ev->dev_util[d])
				ev->dev_util[d] = load / c->pps[a][d];
		}
		lat_w += lat * ev->app_delivered_pps[a];
	}
	for (d = 0; d < pl->n_dev; d++) {
		bool used = false;

		for (a = 0; a < pl->n_apps; a++)
			used |= (c->devmask[a] >> d) & 1;
		ev->power_w += used ? pl->idle_w[d] + (pl->busy_w[d] - pl->idle_w[d]) * ev->dev_util[d]
				    : pl->off_w[d];
	}
	ev->delivered_gbps = ev->delivered_pps / 1e6 * pl->gbps_per_mpps;
	ev->lat_ms = ev->delivered_pps > 0 ? lat_w / ev->delivered_pps : 0;
	ev->j_per_gbit = ev->delivered_gbps > 0 ? ev->power_w / ev->delivered_gbps : INFINITY;
}
