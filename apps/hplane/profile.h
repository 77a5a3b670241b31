/* SPDX-License-Identifier: BSD-3-Clause
 * hplane profile (every task on every device, for each IMIX size and a
 * sweep of batch sizes, bare and with the pipeline around it; writes a
 * heteroplane-profile-1 JSON) and hplane compare (runs the scheduler
 * comparison through tools/sched_compare.py). docs/scheduling.md.
 */
#ifndef HP_APP_PROFILE_H
#define HP_APP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "hp_pipeline.h"

struct hp_app;

struct hp_profile_opts {
	const char *out;       /* the profile JSON to write (--out) */
	const char *batches;   /* "1,2,4,...": batch sizes to sweep */
	unsigned int reps;     /* repetitions per point */
	unsigned int n_batch;
	unsigned int batch[16];   /* = HP_PLAN_MAX_BATCHES */
	const char *configs;   /* --configs APPS: the offline analysis */
	const char *platform;  /* --platform NAME (configs' platform) */
	double train_time_s;   /* --train-time S per configuration */
	unsigned int n_apps;
	const struct hp_app *app[4];
	int argc;              /* the command line, for the pipeline runs */
	char **argv;
};

/* One point: the median, mean and deviation (ms) of a task's time on a
 * batch, and the frame length it was timed with. */
struct hp_prof_point {
	double med_ms, mean_ms, std_ms;
	uint32_t frame;
};
struct hp_device;
struct rte_mempool;
/* Times task k of dev's app on batches of b frames of size bytes, reps
 * times, bare (the CPU kind in bursts, a batch device through its
 * backend), as profile does for every point. 0 or -errno with err. */
int hp_profile_time(struct hp_device *dev, struct rte_mempool *mp, const struct hp_run_cfg *cfg,
		    unsigned int k, unsigned int b, uint32_t size, uint64_t seed, unsigned int reps,
		    struct hp_prof_point *pt, char *err, size_t errlen);

/* Checks the options before EAL starts (--out FILE.json becomes o->out;
 * the pipeline runs go to FILE.runs/); 0 or -EINVAL with err. */
int hp_profile_check(struct hp_profile_opts *o, struct hp_run_cfg *cfg,
		     char *err, size_t errlen);
/* Runs the profile (EAL is up) and writes o->out. 0 or -errno with err. */
int hp_cmd_profile(const struct hp_profile_opts *o, struct hp_run_cfg *cfg,
		   char *err, size_t errlen);
/* Whether spec's device (up to its options) is among cfg's accelerators
 * already (err says so): two batchers on one device are refused. */
bool hp_gpu_twice(const struct hp_run_cfg *cfg, const char *spec, char *err, size_t errlen);
/* --platform NAME for a run: its cpu-class section models the CPU workers
 * (--cpu-model NAME@SEC), every other section is one modeled accelerator
 * (--gpu model:NAME@SEC) after any --gpu given; the specs are written to
 * spec[], which must live as long as cfg. 0 or -EINVAL with err. */
#define HP_PLATFORM_SPECS (HP_MAX_ACCEL + 1)
int hp_platform_apply(struct hp_run_cfg *cfg, const char *name, char (*spec)[160], char *err,
		      size_t errlen);

/* --configs: checks the apps, --batches (up to 64K), --platform and
 * --out before anything runs; 0 or -EINVAL with err. */
int hp_configs_check(struct hp_profile_opts *o, char *err, size_t errlen);
/* Computes every configuration of o->app on o->platform and writes
 * o->out (configs.c, lib/plan). 0 or -errno with err. */
int hp_cmd_configs(const struct hp_profile_opts *o, char *err, size_t errlen);
/* Without --platform (EAL is up): measures each app alone on the CPU
 * worker kind and each --gpu, then the same configurations. */
int hp_cmd_configs_measure(const struct hp_profile_opts *o, struct hp_run_cfg *cfg, char *err,
			   size_t errlen);
/* hplane compare ARGS: execs tools/sched_compare.py with this binary. */
int hp_cmd_compare(int argc, char **argv);
/* hplane ctl goal [NAME]: a running instance's goal (ctl.c). */
int hp_cmd_ctl(int argc, char **argv);

#endif /* HP_APP_PROFILE_H */
