/* SPDX-License-Identifier: BSD-3-Clause
 * Configurations to and from JSON (format heteroplane-configs-1):
 *   platform, link_mpps, gbps_per_mpps, train_time_s, apps [{name, task}],
 *   batches, devices [{name, idle_w, busy_w, off_w}],
 *   configs [{label, batch, mapping {app: [device..]}, kernels [{app,
 *            device, mpps, lat_ms}], mpps, gbps, power_w, train_s}],
 *   coworkers [{device, app, co, k, batch, kernel {ms, mpps, gbps,
 *              slowdown}, aggregated {ms, mpps, gbps}}]
 * Reading back keeps what hp_plan_eval_at and the goals need.
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

static json_t *
kernel_obj(double ms, double pps, double gbps_per_mpps)
{
	return json_pack("{s:f,s:f,s:f}", "ms", ms, "mpps", pps / 1e6, "gbps",
			 pps / 1e6 * gbps_per_mpps);
}

/* Per device: each app beside k = 1 and 3 instances of each app, at each
 * batch (Pythia Tables I-III), link-capped like any configuration. */
static json_t *
coworkers(const struct hp_plan *pl, const struct hp_platform *pf)
{
	static const unsigned int ks[] = { 1, 3 };
	json_t *arr = json_array();
	unsigned int d, a, c, b, ki, i;

	for (d = 0; d < pf->n_dev; d++)
		for (a = 0; a < pl->n_apps; a++)
			for (c = 0; c < pl->n_apps; c++)
				for (b = 0; b < pl->n_batches; b++)
					for (ki = 0; ki < 2; ki++) {
						const char *k[HP_PLAN_MAX_KERNELS];
						double pps[HP_PLAN_MAX_KERNELS], agg = 0, agg_ms = 0;
						double alone, scale = 1;
						unsigned int n = 1 + ks[ki];
						uint32_t bt = pl->batches[b];

						k[0] = pl->task[a];
						for (i = 1; i < n; i++)
							k[i] = pl->task[c];
						if (hp_plan_device_rates(pf, d, k, n, bt, pps) < 0)
							continue;
						for (i = 0; i < n; i++)
							agg += pps[i];
						if (pl->link_pps > 0 && agg > pl->link_pps)
							scale = pl->link_pps / agg;
						agg = 0;
						for (i = 0; i < n; i++) {
							pps[i] *= scale;
							agg += pps[i];
							agg_ms += bt / pps[i] * 1e3;
						}
						alone = hp_model_rate_pps(&pf->dev[d], k[0], bt);
						json_t *kern = kernel_obj(bt / pps[0] * 1e3, pps[0],
									  pl->gbps_per_mpps);
						json_object_set_new(kern, "slowdown",
								    json_real(1 - pps[0] / alone));
						json_array_append_new(arr, json_pack(
							"{s:s,s:s,s:s,s:I,s:I,s:o,s:o}", "device",
							pl->dev_name[d], "app", pl->app[a], "co", pl->app[c],
							"k", (json_int_t)ks[ki], "batch", (json_int_t)bt,
							"kernel", kern, "aggregated",
							kernel_obj(agg_ms, agg, pl->gbps_per_mpps)));
					}
	return arr;
}

int
hp_plan_write(const struct hp_plan *pl, const struct hp_platform *pf, const char *path,
	      char *err, size_t errlen)
{
	json_t *root, *apps = json_array(), *bat = json_array(), *devs = json_array();
	json_t *cfgs = json_array();
	char label[256];
	unsigned int i, a, d;
	int ret = 0;

	for (a = 0; a < pl->n_apps; a++)
		json_array_append_new(apps, json_pack("{s:s,s:s}", "name", pl->app[a], "task",
						      pl->task[a]));
	for (i = 0; i < pl->n_batches; i++)
		json_array_append_new(bat, json_integer(pl->batches[i]));
	for (d = 0; d < pl->n_dev; d++)
		json_array_append_new(devs, json_pack("{s:s,s:f,s:f,s:f}", "name", pl->dev_name[d],
						      "idle_w", pl->idle_w[d], "busy_w",
						      pl->busy_w[d], "off_w", pl->off_w[d]));
	for (i = 0; i < pl->n_cfg; i++) {
		const struct hp_plan_cfg *c = &pl->cfg[i];
		json_t *map = json_object(), *kern = json_array();

		for (a = 0; a < pl->n_apps; a++) {
			json_t *on = json_array();

			for (d = 0; d < pl->n_dev; d++) {
				if (!(c->devmask[a] & (1u << d)))
					continue;
				json_array_append_new(on, json_string(pl->dev_name[d]));
				json_array_append_new(kern, json_pack("{s:s,s:s,s:f,s:f}", "app",
					pl->app[a], "device", pl->dev_name[d], "mpps",
					c->pps[a][d] / 1e6, "lat_ms", c->lat_ms[a][d]));
			}
			json_object_set_new(map, pl->app[a], on);
		}
		hp_plan_cfg_label(pl, c, label, sizeof(label));
		json_array_append_new(cfgs, json_pack("{s:s,s:I,s:o,s:o,s:f,s:f,s:f,s:f}",
			"label", label, "batch", (json_int_t)c->batch, "mapping", map, "kernels", kern,
			"mpps", c->cap_pps / 1e6, "gbps", c->cap_pps / 1e6 * pl->gbps_per_mpps,
			"power_w", c->power_w, "train_s", c->train_s));
	}
	root = json_pack("{s:s,s:s,s:f,s:f,s:f,s:o,s:o,s:o,s:o}", "format",
			 "heteroplane-configs-1", "platform", pl->platform, "link_mpps",
			 pl->link_pps / 1e6, "gbps_per_mpps", pl->gbps_per_mpps, "train_time_s",
			 pl->train_time_s, "apps", apps, "batches", bat, "devices", devs,
			 "configs", cfgs);
	if (root == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (pf != NULL)
		json_object_set_new(root, "coworkers", coworkers(pl, pf));
	if (json_dump_file(root, path, JSON_INDENT(1)) < 0) {
		char q[160];

		snprintf(err, errlen, "cannot write %s", hp_quote(q, sizeof(q), path, 120));
		ret = -EIO;
	}
	json_decref(root);
	return ret;
}

static int
index_of(char (*names)[HP_PLAN_NAMELEN], unsigned int n, const char *s)
{
	unsigned int i;

	for (i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

int
hp_plan_load(struct hp_plan *pl, const char *path, char *err, size_t errlen)
{
	json_t *root, *apps, *devs, *cfgs, *bat, *x, *k;
	char q[160];
	json_error_t je;
	size_t i, j;
	int ret = -EINVAL;

	memset(pl, 0, sizeof(*pl));
	hp_quote(q, sizeof(q), path, 120);
	root = json_load_file(path, 0, &je);
	if (root == NULL) {
		snprintf(err, errlen, "configs %s: cannot read it as JSON (line %d)", q, je.line);
		return -EINVAL;
	}
	x = json_object_get(root, "format");
	apps = json_object_get(root, "apps");
	devs = json_object_get(root, "devices");
	cfgs = json_object_get(root, "configs");
	bat = json_object_get(root, "batches");
	if (!json_is_string(x) || strcmp(json_string_value(x), "heteroplane-configs-1") != 0 ||
	    !json_is_array(apps) || json_array_size(apps) == 0 ||
	    json_array_size(apps) > HP_PLAN_MAX_APPS || !json_is_array(devs) ||
	    json_array_size(devs) == 0 || json_array_size(devs) > HP_PLAN_MAX_DEV ||
	    !json_is_array(cfgs) || json_array_size(cfgs) == 0 || !json_is_array(bat) ||
	    json_array_size(bat) > HP_PLAN_MAX_BATCHES) {
		snprintf(err, errlen, "configs %s: not a heteroplane-configs-1 file (apps, devices, configs, batches)",
			 q);
		goto out;
	}
	hp_quote(pl->platform, sizeof(pl->platform),
		 json_is_string(json_object_get(root, "platform")) ?
		 json_string_value(json_object_get(root, "platform")) : "", 60);
	pl->link_pps = json_number_value(json_object_get(root, "link_mpps")) * 1e6;
	pl->gbps_per_mpps = json_number_value(json_object_get(root, "gbps_per_mpps"));
	pl->train_time_s = json_number_value(json_object_get(root, "train_time_s"));
	if (!(pl->link_pps >= 0) || !(pl->gbps_per_mpps > 0)) {
		snprintf(err, errlen, "configs %s: link_mpps >= 0 and gbps_per_mpps > 0 expected", q);
		goto out;
	}
	json_array_foreach(apps, i, x) {
		const char *n = json_string_value(json_object_get(x, "name"));
		const char *t = json_string_value(json_object_get(x, "task"));

		if (n == NULL || t == NULL || strlen(n) == 0 || strlen(n) >= HP_PLAN_NAMELEN ||
		    strlen(t) >= HP_PLAN_NAMELEN || index_of(pl->app, pl->n_apps, n) >= 0) {
			snprintf(err, errlen, "configs %s: apps[%zu]: expected a new {name, task}", q, i);
			goto out;
		}
		snprintf(pl->app[i], HP_PLAN_NAMELEN, "%s", n);
		snprintf(pl->task[i], HP_PLAN_NAMELEN, "%s", t);
		pl->n_apps++;
	}
	json_array_foreach(devs, i, x) {
		const char *n = json_string_value(json_object_get(x, "name"));
		double *w[3] = { &pl->idle_w[i], &pl->busy_w[i], &pl->off_w[i] };
		static const char *const key[3] = { "idle_w", "busy_w", "off_w" };

		if (n == NULL || strlen(n) == 0 || strlen(n) >= HP_PLAN_NAMELEN ||
		    index_of(pl->dev_name, pl->n_dev, n) >= 0) {
			snprintf(err, errlen, "configs %s: devices[%zu]: expected a new {name, ...}", q, i);
			goto out;
		}
		for (j = 0; j < 3; j++) {
			k = json_object_get(x, key[j]);
			if (!json_is_number(k) || json_number_value(k) < 0) {
				snprintf(err, errlen, "configs %s: devices[%zu].%s: expected a number >= 0",
					 q, i, key[j]);
				goto out;
			}
			*w[j] = json_number_value(k);
		}
		snprintf(pl->dev_name[i], HP_PLAN_NAMELEN, "%s", n);
		pl->n_dev++;
	}
	json_array_foreach(bat, i, x)
		pl->batches[pl->n_batches++] = (uint32_t)json_integer_value(x);
	pl->cfg = calloc(json_array_size(cfgs), sizeof(*pl->cfg));
	if (pl->cfg == NULL) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	json_array_foreach(cfgs, i, x) {
		struct hp_plan_cfg *c = &pl->cfg[i];
		json_t *kern = json_object_get(x, "kernels");
		json_int_t b = json_integer_value(json_object_get(x, "batch"));

		if (b < 1 || b > HP_MODEL_BATCH_MAX || !json_is_array(kern) ||
		    !json_is_number(json_object_get(x, "power_w"))) {
			snprintf(err, errlen, "configs %s: configs[%zu]: expected batch, kernels, power_w", q, i);
			goto out;
		}
		c->batch = (uint32_t)b;
		c->power_w = json_number_value(json_object_get(x, "power_w"));
		c->train_s = json_number_value(json_object_get(x, "train_s"));
		json_array_foreach(kern, j, k) {
			int a = index_of(pl->app, pl->n_apps, json_string_value(json_object_get(k, "app")));
			int d = index_of(pl->dev_name, pl->n_dev,
					 json_string_value(json_object_get(k, "device")));
			double mpps = json_number_value(json_object_get(k, "mpps"));
			double lat = json_number_value(json_object_get(k, "lat_ms"));

			if (a < 0 || d < 0 || !(mpps > 0) || !(lat > 0) || isinf(mpps) || isinf(lat)) {
				snprintf(err, errlen, "configs %s: configs[%zu].kernels[%zu]: expected a known app and device, mpps > 0, lat_ms > 0",
					 q, i, j);
				goto out;
			}
			c->devmask[a] |= (uint8_t)(1u << d);
			c->pps[a][d] = mpps * 1e6;
			c->lat_ms[a][d] = lat;
			c->cap_pps += mpps * 1e6;
		}
		if (pl->link_pps > 0 && c->cap_pps > pl->link_pps)
			c->cap_pps = pl->link_pps;
		pl->n_cfg++;
	}
	ret = 0;
out:
	json_decref(root);
	if (ret < 0)
		hp_plan_free(pl);
	return ret;
}
