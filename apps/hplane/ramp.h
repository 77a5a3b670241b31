/* SPDX-License-Identifier: BSD-3-Clause
 * hplane ramp: the linearity experiment of Rydén & Näslund (§3.1, §4.4).
 * Offers stepped load (fractions of the measured capacity, or pps), then
 * writes per step the offered load, each load estimator of each polling
 * loop (and of each CPU: the sum of its lcores), and the drops, to
 * OUT/ramp.csv; tools/load_plot.py draws and scores it.
 */
#ifndef HP_RAMP_H
#define HP_RAMP_H

#include <stdbool.h>
#include <stddef.h>

#include "hp_pipeline.h"

struct hp_ramp {
	double from, to, step;   /* fractions of capacity, or pps if abs */
	/* From fine_from on (0: never) the steps are fine_step apart: the
	 * drop onset and the 95 % crossing are only known to a step, so the
	 * top of the ramp gets finer steps than the linear part needs. */
	double fine_from, fine_step;
	bool abs, abs_set;       /* units seen so far (all must agree) */
	double hold_s;           /* seconds per step */
	double settle_s;         /* first seconds of a step left out */
	unsigned int n_steps;
	double *target;          /* n_steps rates (hp_ramp_prepare allocates) */
	char profile[4200];      /* the rate profile written for hp_run */
};

void hp_ramp_defaults(struct hp_ramp *rp);
/* "0.3" or "0.3x": fraction of capacity; "50k", "1.5M", "1.5Mpps": pps.
 * 0, or -EINVAL (not a positive number, or units mixed with earlier). */
int hp_ramp_rate(struct hp_ramp *rp, const char *s, double *v);
/* Checks the ramp and writes its rate profile into cfg->out_dir; sets
 * cfg->trace_file and cfg->duration_s. 0 or -EINVAL with err set. */
int hp_ramp_prepare(struct hp_ramp *rp, struct hp_run_cfg *cfg, char *err,
		    size_t errlen);
/* Frees what hp_ramp_prepare allocated. */
void hp_ramp_free(struct hp_ramp *rp);
/* After hp_run: per-step table on stdout, OUT/ramp.csv, and the plot
 * (OUT/ramp.png) when tools/load_plot.py and its Python are found.
 * 0 or -errno with err set. */
int hp_ramp_report(const struct hp_ramp *rp, const struct hp_run_cfg *cfg,
		   const struct hp_run_result *res, char *err, size_t errlen);

#endif /* HP_RAMP_H */
