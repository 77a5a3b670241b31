/* SPDX-License-Identifier: BSD-3-Clause
 * hplane ramp (see ramp.h): a rate profile of steps run by hp_run (finer
 * ones from --fine-from on),
 * then the per-second trace rows merged step by step. Rows are merged
 * exactly for (a) and (b) (raw counter deltas) and time-weighted for (c);
 * the first settle_s of each step and rows that straddle two steps are
 * left out, so every step is measured at one offered rate. Per CPU the
 * CSV also has the kernel's share of time its loops ran (os_cpu), which
 * tools/load_plot.py uses for the saturation capacity, independently of
 * the estimators.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hp_common.h"
#include "hp_gen.h"
#include "ramp.h"

#define RAMP_MAX_STEPS 200
#define ROW_SLACK_S 0.05 /* rows drift a little past the second mark */

extern char **environ;

void
hp_ramp_defaults(struct hp_ramp *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp->hold_s = 5;
	rp->settle_s = 1;
}

void
hp_ramp_free(struct hp_ramp *rp)
{
	free(rp->target);
	rp->target = NULL;
}

int
hp_ramp_rate(struct hp_ramp *rp, const char *s, double *v)
{
	const char *end;
	double x;
	bool abs = true;

	/* whole, finite, bounded (hp_parse_double_prefix); then the unit */
	if (hp_parse_double_prefix(s, 0, HP_RATE_MAX, &x, &end) < 0 || !(x > 0))
		return -EINVAL;
	if (*end == '\0' || !strcmp(end, "x"))
		abs = false;
	else if (!strcmp(end, "k") || !strcmp(end, "K") || !strcmp(end, "kpps"))
		x *= 1e3;
	else if (!strcmp(end, "M") || !strcmp(end, "Mpps"))
		x *= 1e6;
	else if (strcmp(end, "pps") != 0)
		return -EINVAL;
	if (abs && x > HP_RATE_MAX)
		return -EINVAL;
	if (rp->abs_set && rp->abs != abs)
		return -EINVAL;
	rp->abs = abs;
	rp->abs_set = true;
	*v = x;
	return 0;
}

int
hp_ramp_prepare(struct hp_ramp *rp, struct hp_run_cfg *cfg, char *err,
		size_t errlen)
{
	double n_coarse, n_fine = 0;
	unsigned int j;
	FILE *f;

	if (!(rp->from > 0) || !(rp->to >= rp->from) || !(rp->step > 0)) {
		snprintf(err, errlen, "ramp needs --from A --to B --step S with 0 < A <= B and S > 0, all fractions of capacity (0.1, 0.1x) or all rates (50k, 1.2M)");
		return -EINVAL;
	}
	if (!rp->abs && rp->to > 10) {
		snprintf(err, errlen, "ramp --to %g is more than 10x the capacity (rates need a k or M suffix)",
			 rp->to);
		return -EINVAL;
	}
	if (!(rp->hold_s >= 2 && rp->hold_s <= 600)) {
		snprintf(err, errlen, "ramp --hold must be 2..600 s (the first second of each step is left out)");
		return -EINVAL;
	}
	if (rp->fine_from != 0 &&
	    (!(rp->fine_from > rp->from && rp->fine_from <= rp->to) || !(rp->fine_step > 0))) {
		snprintf(err, errlen, "ramp --fine-from F needs --fine-step S > 0 and A < F <= B, in the units of --from");
		return -EINVAL;
	}
	if (rp->fine_from == 0 && rp->fine_step != 0) {
		snprintf(err, errlen, "ramp --fine-step needs --fine-from");
		return -EINVAL;
	}
	/* coarse steps below fine_from, fine ones from it to `to`; counted
	 * in double first, so a tiny step is refused, not overflowed */
	if (rp->fine_from != 0) {
		n_coarse = ceil((rp->fine_from - rp->from) / rp->step - 1e-9);
		n_fine = floor((rp->to - rp->fine_from) / rp->fine_step + 1e-9) + 1;
	} else {
		n_coarse = floor((rp->to - rp->from) / rp->step + 1e-9) + 1;
	}
	if (n_coarse + n_fine > RAMP_MAX_STEPS ||
	    (n_coarse + n_fine) * rp->hold_s > 3600) {
		snprintf(err, errlen, "ramp has %.4g steps of %.0f s: at most %d steps and 3600 s",
			 n_coarse + n_fine, rp->hold_s, RAMP_MAX_STEPS);
		return -EINVAL;
	}
	rp->n_steps = (unsigned int)(n_coarse + n_fine);
	free(rp->target);
	rp->target = calloc(rp->n_steps, sizeof(*rp->target));
	if (rp->target == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (j = 0; j < rp->n_steps; j++)
		rp->target[j] = j < (unsigned int)n_coarse ? rp->from + j * rp->step :
			rp->fine_from + (j - (unsigned int)n_coarse) * rp->fine_step;
	snprintf(rp->profile, sizeof(rp->profile), "%s/ramp_profile.txt", cfg->out_dir);
	f = fopen(rp->profile, "w");
	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", rp->profile, strerror(errno));
		return -EINVAL;
	}
	fprintf(f, "# hplane ramp: <seconds> <rate>, one line a step\n");
	for (j = 0; j < rp->n_steps; j++) {
		double rate = rp->target[j];

		if (rp->abs)
			fprintf(f, "%.3f %.1f\n", j * rp->hold_s, rate);
		else
			fprintf(f, "%.3f %.6gx\n", j * rp->hold_s, rate);
	}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", rp->profile, strerror(errno));
		return -EINVAL;
	}
	cfg->trace_file = rp->profile;
	cfg->duration_s = rp->n_steps * rp->hold_s;
	return 0;
}

struct step {
	double t_s, offered, delivered;
	uint64_t drops;
	unsigned int rows;
	struct hp_load_row load[HP_LOAD_LOOPS];
};

/* The CPU of each loop (from the last row: set once its lcore ran), and
 * the distinct CPUs. A CPU is as loaded as all its lcores together. */
static unsigned int
cpus_of(const struct hp_run_result *res, int *loop_cpu, int *cpu)
{
	unsigned int n = 0, i, k;

	for (i = 0; i < res->n_load; i++) {
		int c = res->n_rows ? res->rows[res->n_rows - 1].load[i].cpu : -1;

		loop_cpu[i] = c;
		if (c < 0)
			continue;
		for (k = 0; k < n && cpu[k] != c; k++)
			;
		if (k == n)
			cpu[n++] = c;
	}
	return n;
}

/* Sums over the loops on one CPU: the estimators, and the kernel's
 * share of time those threads ran and waited for the CPU (-1 when the
 * kernel's view was not read). */
static void
cpu_sum(const struct hp_run_result *res, const struct step *st,
	const int *loop_cpu, int cpu, double *est, double *os)
{
	unsigned int i;

	est[0] = est[1] = est[2] = os[0] = os[1] = 0;
	for (i = 0; i < res->n_load; i++) {
		const struct hp_load_row *l = &st->load[i];

		if (loop_cpu[i] != cpu)
			continue;
		est[0] += l->polls;
		est[1] += l->busy;
		est[2] += l->load;
		if (l->d_os_ns == 0 || os[0] < 0) {
			os[0] = os[1] = -1;
			continue;
		}
		os[0] += (double)l->d_os_run / (double)l->d_os_ns;
		os[1] += (double)l->d_os_wait / (double)l->d_os_ns;
	}
}

static void
run_plot(const char *csv, const char *png)
{
#ifdef HP_SOURCE_ROOT
	char tool[1024], py[1024];
	char *argv[] = { py, tool, (char *)csv, (char *)"-o", (char *)png, NULL };
	pid_t pid;
	int st;

	snprintf(tool, sizeof(tool), "%s/tools/load_plot.py", HP_SOURCE_ROOT);
	snprintf(py, sizeof(py), "%s/.venv/bin/python", HP_SOURCE_ROOT);
	if (access(py, X_OK) != 0)
		snprintf(py, sizeof(py), "/usr/bin/python3");
	if (access(tool, R_OK) == 0 && access(py, X_OK) == 0) {
		fflush(stdout);
		if (posix_spawn(&pid, py, NULL, NULL, argv, environ) == 0 &&
		    waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return;
	}
#endif
	printf("  plot: python3 tools/load_plot.py %s -o %s\n", csv, png);
}

int
hp_ramp_report(const struct hp_ramp *rp, const struct hp_run_cfg *cfg,
	       const struct hp_run_result *res, char *err, size_t errlen)
{
	struct step *steps;
	char path[4200], png[4200];
	double prev_t = 0;
	unsigned int i, j, l, ncpu;
	int cpu[HP_LOAD_LOOPS], loop_cpu[HP_LOAD_LOOPS];
	FILE *f;

	steps = calloc(rp->n_steps, sizeof(*steps));
	if (steps == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < res->n_rows; i++) {
		const struct hp_trace_row *row = &res->rows[i];
		double t0 = prev_t, t1 = row->t, s0;
		struct step *st;

		prev_t = row->t;
		j = (unsigned int)floor((t0 + ROW_SLACK_S) / rp->hold_s);
		if (j >= rp->n_steps)
			continue;
		s0 = j * rp->hold_s;
		if (t0 + ROW_SLACK_S < s0 + rp->settle_s ||
		    t1 > s0 + rp->hold_s + ROW_SLACK_S)
			continue; /* settling, or straddles two steps */
		st = &steps[j];
		st->t_s += t1 - t0;
		st->offered += row->offered_pps * (t1 - t0);
		st->delivered += row->delivered_pps * (t1 - t0);
		st->drops += row->dropped_port;
		st->rows++;
		for (l = 0; l < row->n_load && l < res->n_load; l++)
			hp_load_row_merge(&st->load[l], &row->load[l]);
	}
	snprintf(path, sizeof(path), "%s/ramp.csv", cfg->out_dir);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		free(steps);
		return -errno;
	}
	ncpu = cpus_of(res, loop_cpu, cpu);
	fprintf(f, "# hplane ramp: app %s, %u worker(s), burst %u, ring %u, mbufs %u, capacity %.1f pps, hold %.1f s (first %.1f s left out)\n",
		cfg->app, cfg->workers, cfg->burst, cfg->ring_size, cfg->mbufs,
		res->capacity_pps, rp->hold_s, rp->settle_s);
	fprintf(f, "step,target,offered_pps,offered_frac,delivered_pps,drops,drop_ratio,rows");
	for (l = 0; l < res->n_load; l++)
		hp_load_csv_head(f, res->load_name[l]);
	for (l = 0; l < ncpu; l++)
		fprintf(f, ",core%d_a_polls,core%d_b_busy,core%d_c_load,core%d_os_cpu,core%d_os_wait",
			cpu[l], cpu[l], cpu[l], cpu[l], cpu[l]);
	fprintf(f, "\n");
	printf("\n=== ramp: app %s, capacity %.3f Mpps; per step (c) load / (b) busy / (a) polls ===\n",
	       cfg->app, res->capacity_pps / 1e6);
	printf("  %-8s %10s %7s %9s", "target", "offered", "of cap", "drops");
	for (l = 0; l < res->n_load; l++)
		printf("  %-20s", res->load_name[l]);
	printf("\n");
	for (j = 0; j < rp->n_steps; j++) {
		struct step *st = &steps[j];
		double target = rp->target[j];
		double off = st->t_s > 0 ? st->offered / st->t_s : 0;
		double del = st->t_s > 0 ? st->delivered / st->t_s : 0;
		double ratio = st->offered > 0 ? (double)st->drops / st->offered : 0;

		fprintf(f, "%u,%.6g,%.1f,%.5f,%.1f,%" PRIu64 ",%.6f,%u", j, target, off,
			res->capacity_pps > 0 ? off / res->capacity_pps : 0, del,
			st->drops, ratio, st->rows);
		for (l = 0; l < res->n_load; l++)
			hp_load_csv_cols(f, &st->load[l]);
		for (l = 0; l < ncpu; l++) {
			double est[3], os[2];

			cpu_sum(res, st, loop_cpu, cpu[l], est, os);
			fprintf(f, ",%.4f,%.4f,%.4f,%.4f,%.4f", est[0], est[1], est[2], os[0], os[1]);
		}
		fprintf(f, "\n");
		printf("  %-8.4g %8.3f M %6.1f%% %9" PRIu64, target, off / 1e6,
		       res->capacity_pps > 0 ? 100 * off / res->capacity_pps : 0, st->drops);
		for (l = 0; l < res->n_load; l++)
			printf("  %5.1f/%5.1f/%5.1f%%  ", st->load[l].load * 100,
			       st->load[l].busy * 100, st->load[l].polls * 100);
		printf("%s\n", st->rows ? "" : "  (no settled row: hold longer)");
	}
	free(steps);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	printf("  %-26s %s\n", "written", path);
	snprintf(png, sizeof(png), "%s/ramp.png", cfg->out_dir);
	run_plot(path, png);
	return 0;
}
