/* SPDX-License-Identifier: BSD-3-Clause
 * Offline analysis of configurations (Pythia section VI-A) and the goals
 * that choose among them (VI-C). A platform is a profile with a
 * "platform" object naming several device sections (profiles/
 * pythia-8700k.json); a configuration maps each app to one or more of its
 * devices (an app split over several keeps each flow on one) at one batch
 * size. hp_plan_build computes every configuration's capacity, latency
 * and power from the devices' models, with the interference of the
 * kernels that share a device; the result is written to and read back
 * from JSON (format heteroplane-configs-1), and hp_goal_pick chooses the
 * best configuration for a goal at an offered load. The live monitor that
 * uses them is lib/sched/sched_pythia.c (docs/scheduling.md).
 */
#ifndef HP_PLAN_H
#define HP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_PLAN_MAX_DEV 4
#define HP_PLAN_MAX_APPS 4
#define HP_PLAN_MAX_BATCHES 16
#define HP_PLAN_MAX_KERNELS 8   /* kernels sharing one device */
#define HP_PLAN_NAMELEN 32

struct hp_model;

struct hp_platform {
	char name[64];
	double link_pps;          /* the NIC's ceiling (0: none) */
	double gbps_per_mpps;     /* how the platform's tables count Gbit/s */
	unsigned int n_dev;
	char dev_name[HP_PLAN_MAX_DEV][HP_PLAN_NAMELEN];
	struct hp_model *dev;     /* n_dev models */
};

/* Loads profile NAME (profiles dir) or FILE.json with a "platform"
 * object. 0 or -EINVAL/-ENOMEM with one line in err. */
int hp_platform_load(struct hp_platform *p, const char *name, char *err, size_t errlen);
void hp_platform_free(struct hp_platform *p);

/* Throughput (pps) of each of n kernels (task names) sharing device dev
 * at batch, with their interference and the device's PCIe link; the
 * caller's order matters only for a measured pair (hp_model_slowdown_of).
 * 0 or -EINVAL (a task the device does not model, n out of range). */
int hp_plan_device_rates(const struct hp_platform *p, unsigned int dev,
			 const char *const *kernels, unsigned int n, uint32_t batch, double *pps);

/* One configuration: per app its devices; capacities at saturation. */
struct hp_plan_cfg {
	uint32_t batch;
	uint8_t devmask[HP_PLAN_MAX_APPS];
	double pps[HP_PLAN_MAX_APPS][HP_PLAN_MAX_DEV];    /* app on device */
	double lat_ms[HP_PLAN_MAX_APPS][HP_PLAN_MAX_DEV]; /* a batch's time */
	double cap_pps;    /* all apps, link-capped */
	double power_w;    /* every used device busy */
	double train_s;    /* the paper's training time for it */
};

struct hp_plan {
	char platform[64];
	double link_pps, gbps_per_mpps;
	unsigned int n_dev, n_apps, n_batches;
	char dev_name[HP_PLAN_MAX_DEV][HP_PLAN_NAMELEN];
	double idle_w[HP_PLAN_MAX_DEV], busy_w[HP_PLAN_MAX_DEV], off_w[HP_PLAN_MAX_DEV];
	char app[HP_PLAN_MAX_APPS][HP_PLAN_NAMELEN];
	char task[HP_PLAN_MAX_APPS][HP_PLAN_NAMELEN];
	uint32_t batches[HP_PLAN_MAX_BATCHES];
	double train_time_s;
	unsigned int n_cfg;
	struct hp_plan_cfg *cfg;
};

/* Every mapping of apps (name and its one task each) onto non-empty device
 * sets x batches. train_time_s: how long the paper's offline analysis
 * would run each configuration (recorded). 0 or -errno with err. */
int hp_plan_build(struct hp_plan *pl, const struct hp_platform *pf, const char *const *apps,
		  const char *const *tasks, unsigned int n_apps, const uint32_t *batches,
		  unsigned int n_batches, double train_time_s, char *err, size_t errlen);
void hp_plan_free(struct hp_plan *pl);
/* A configuration's name: "ids=igpu+dgpu,vpn=cpu@4096". */
void hp_plan_cfg_label(const struct hp_plan *pl, const struct hp_plan_cfg *c, char *buf,
		       size_t len);

/* heteroplane-configs-1: write (0 or -errno) and read back (0 or -EINVAL
 * with err). Given the platform, the file also holds its co-worker runs:
 * per device, each app beside k = 1 and 3 instances of each app at each
 * batch, per kernel and aggregated (Pythia's Tables I-III). */
int hp_plan_write(const struct hp_plan *pl, const struct hp_platform *pf, const char *path,
		  char *err, size_t errlen);
int hp_plan_load(struct hp_plan *pl, const char *path, char *err, size_t errlen);

/* A configuration at an offered load (pps per app). */
struct hp_plan_eval {
	double offered_pps, delivered_pps, delivered_gbps;
	double app_delivered_pps[HP_PLAN_MAX_APPS];
	double dev_util[HP_PLAN_MAX_DEV];
	double power_w;          /* devices' power at this load */
	double lat_ms;           /* delivered-weighted over apps: batch fill + service */
	double j_per_gbit;       /* power / delivered Gbit/s */
};
void hp_plan_eval_at(const struct hp_plan *pl, unsigned int idx, const double *offered_pps,
		     struct hp_plan_eval *ev);

/* ---- goals (the ops a --goal-lib FILE.so will export as hp_goal_ops_v1) ---- */
#define HP_GOAL_OPS_SYMBOL "hp_goal_ops_v1"

struct hp_goal_ops {
	const char *name;     /* what --goal takes: NAME or NAME:ARG */
	const char *desc;
	bool takes_arg;
	/* ARG into *param: 0 or -EINVAL with err (only with takes_arg) */
	int (*parse)(const char *arg, double *param, char *err, size_t errlen);
	/* how good configuration ev is at the offered load, lower better;
	 * NAN when it cannot serve the goal (then the pick falls back to the
	 * most delivered). Ties go to less power, then less latency. */
	double (*score)(const struct hp_plan_eval *ev, double param);
};

struct hp_goal {
	const struct hp_goal_ops *ops;
	double param;
};

/* Built-ins: max-throughput, min-latency, min-energy, min-power,
 * target-rate:GBPS. */
const struct hp_goal_ops *hp_goal_find(const char *name);
/* Adds a goal (a loaded library's); -EEXIST for a known name, -ENOSPC. */
int hp_goal_register(const struct hp_goal_ops *ops);
/* "NAME[:ARG]": 0 or -EINVAL with one line in err. */
int hp_goal_parse(struct hp_goal *g, const char *text, char *err, size_t errlen);
/* The best configuration for g at the offered load (pps per app): its
 * index, ev filled; -ENOENT when the plan has none. */
int hp_goal_pick(const struct hp_plan *pl, const struct hp_goal *g, const double *offered_pps,
		 struct hp_plan_eval *ev);

#endif /* HP_PLAN_H */
