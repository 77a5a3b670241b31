/* SPDX-License-Identifier: BSD-3-Clause
 * hplane profile: characterises every task of an app's chain on every
 * device (the CPU worker kind, and the accelerator given with --gpu), for
 * each IMIX size and a sweep of batch sizes (thesis Tables 4.2-4.5), then
 * the whole chain on each device with the pipeline around it (Tables
 * 4.6/4.7), and writes a profile in the format the modeled device and the
 * schedulers read (heteroplane-profile-1):
 *   devices.<cpu|gpu>.tasks.<task>   rows {batch, fixed_us, per_pkt_us,
 *                                    per_byte_ns}, fitted per batch size
 *                                    over the points at that batch and the
 *                                    one below (least squares)
 *   devices.<..>.measurements        latency median/mean/std (ms) and
 *                                    throughput per task, size, batch
 *   devices.<..>.pipeline            per size: latency mean/median/std and
 *                                    throughput with the pipeline around
 * Bare timing runs on the main lcore: the CPU kind's task process() on
 * bursts of at most 32 (as a worker does), a batch device's backend
 * submit-to-completion (a modeled one reproduces its profile: a check).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "hp_common.h"
#include "hp_device.h"
#include "hp_gen.h"
#include "profile.h"

#define MAX_SIZES HP_IMIX_MAX


int
hp_profile_check(struct hp_profile_opts *o, struct hp_run_cfg *cfg, char *err,
		 size_t errlen)
{
	static char runs[4200];
	const char *p = o->batches ? o->batches : "1,2,4,8,16,32,64,128";
	size_t l = strlen(cfg->out_dir);

	if (cfg->n_gpu > 1) {
		snprintf(err, errlen, "profile characterises one accelerator beside the CPU (a whole platform: profile --configs)");
		return -EINVAL;
	}
	if (l < 6 || strcmp(cfg->out_dir + l - 5, ".json") != 0) {
		snprintf(err, errlen, "profile needs --out FILE.json (the profile to write)");
		return -EINVAL;
	}
	o->out = cfg->out_dir;
	snprintf(runs, sizeof(runs), "%.*s.runs", (int)(l - 5), cfg->out_dir);
	cfg->out_dir = runs;
	if (o->reps == 0)
		o->reps = 20;
	o->n_batch = 0;
	while (*p != '\0') {
		char *end;
		unsigned long b = strtoul(p, &end, 10);

		/* digits only: strtoul takes blanks, '+' and wraps "-1" */
		if (*p < '0' || *p > '9' || end == p || b == 0 || b > HP_BATCH_MAX ||
		    o->n_batch == RTE_DIM(o->batch) ||
		    (o->n_batch && b <= o->batch[o->n_batch - 1]) || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen, "--batches: expected increasing batch sizes 1..%d, at most %zu",
				 HP_BATCH_MAX, RTE_DIM(o->batch));
			return -EINVAL;
		}
		o->batch[o->n_batch++] = (unsigned int)b;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
stats(double *v, unsigned int n, struct hp_prof_point *pt)
{
	double sum = 0, sq = 0;
	unsigned int i;

	qsort(v, n, sizeof(*v), cmp_dbl);
	for (i = 0; i < n; i++)
		sum += v[i];
	pt->mean_ms = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - pt->mean_ms) * (v[i] - pt->mean_ms);
	pt->std_ms = n > 1 ? sqrt(sq / (n - 1)) : 0;
	pt->med_ms = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Least squares of t = fixed + per_pkt x n + per_byte x bytes over the
 * points (3x3 normal equations; per_pkt dropped when every n is equal).
 * Negative coefficients are clamped to 0 (the format wants >= 0). */
static void
fit(const double *n, const double *bytes, const double *t, unsigned int m, double *fixed,
    double *per_pkt, double *per_byte)
{
	double A[3][4] = { { 0 } }, x[3] = { 0, 0, 0 };
	bool one_n = true;
	unsigned int i, j, k, dim;

	for (i = 1; i < m; i++)
		if (n[i] != n[0])
			one_n = false;
	dim = one_n ? 2 : 3;
	for (i = 0; i < m; i++) {
		double f[3] = { 1, bytes[i], n[i] };

		for (j = 0; j < dim; j++) {
			for (k = 0; k < dim; k++)
				A[j][k] += f[j] * f[k];
			A[j][3] += f[j] * t[i];
		}
	}
	for (j = 0; j < dim; j++) {           /* Gauss-Jordan */
		double p = A[j][j];

		if (fabs(p) < 1e-12)
			continue;
		for (k = 0; k <= 3; k++)
			A[j][k] /= p;
		for (i = 0; i < dim; i++) {
			double f = A[i][j];

			if (i == j)
				continue;
			for (k = 0; k <= 3; k++)
				A[i][k] -= f * A[j][k];
		}
	}
	for (j = 0; j < dim; j++)
		x[j] = fabs(A[j][j]) < 1e-12 ? 0 : A[j][3];
	*fixed = x[0] > 0 ? x[0] : 0;
	*per_byte = x[1] > 0 ? x[1] : 0;
	*per_pkt = dim == 3 && x[2] > 0 ? x[2] : 0;
	if (x[0] < 0 && one_n)            /* no fixed part: all per packet */
		*per_pkt = 0;
}

/* Frames of one size for the chain, with task data set as classify does,
 * and the tasks before `task` already run (their output is task's input). */
static int
make_batch(struct hp_gen *g, struct rte_mempool *mp, struct hp_device *dev,
	   unsigned int task, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int i, k;

	if (rte_pktmbuf_alloc_bulk(mp, pkts, n) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		struct hp_flow_key key;
		struct hp_pkt_hdrs h;

		hp_gen_build(g, pkts[i]);
		if (hp_parse_hdrs(rte_pktmbuf_mtod(pkts[i], const uint8_t *),
				  rte_pktmbuf_data_len(pkts[i]), &key, &h) != HP_DROP_NONE) {
			rte_pktmbuf_free_bulk(pkts, n);
			return -EINVAL;
		}
		memset(md, 0, offsetof(struct hp_meta, res32));
		md->flow_id = hp_flow_hash(&key);
		hp_meta_classified(md, rte_pktmbuf_mtod(pkts[i], const uint8_t *), &h);
		hp_meta_seq_note(md);
	}
	for (k = 0; k < task; k++)
		for (i = 0; i < n; i += HP_BURST)
			dev->ctx[k].ops->process(&dev->ctx[k], pkts + i,
						 (uint16_t)RTE_MIN(n - i, (unsigned int)HP_BURST));
	for (i = 0; i < n; i++)
		hp_meta(pkts[i])->step = (uint8_t)task;
	return 0;
}

/* One timed execution of task on n packets: the CPU kind in bursts, a
 * batch device through its backend. Cycles, or 0 on failure. */
static uint64_t
time_once(struct hp_device *dev, unsigned int task, struct rte_mbuf **pkts,
	  unsigned int n)
{
	uint64_t cyc = 0;

	return hp_device_time_batch(dev, task, pkts, n, &cyc) < 0 ? 0 : cyc;
}

static json_t *
row_json(unsigned int batch, double fixed_us, double per_pkt_us, double per_byte_ns)
{
	json_t *r = json_object();

	json_object_set_new(r, "batch", json_integer(batch));
	json_object_set_new(r, "fixed_us", json_real(round(fixed_us * 1000) / 1000));
	json_object_set_new(r, "per_pkt_us", json_real(round(per_pkt_us * 1000) / 1000));
	json_object_set_new(r, "per_byte_ns", json_real(round(per_byte_ns * 1000) / 1000));
	return r;
}

/* A signal asked to stop (stop.h): the profile ends without writing. */
static bool
stopped(const struct hp_run_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->stop_signal == NULL || *cfg->stop_signal == 0)
		return false;
	snprintf(err, errlen, "profile: interrupted, nothing written");
	return true;
}

int
hp_profile_time(struct hp_device *dev, struct rte_mempool *mp, const struct hp_run_cfg *cfg,
		unsigned int k, unsigned int b, uint32_t size, uint64_t seed, unsigned int reps,
		struct hp_prof_point *pt, char *err, size_t errlen)
{
	struct hp_imix one = { .n = 1, .size = { size }, .share = { 1.0 } };
	struct rte_mbuf **pkts = calloc(b, sizeof(*pkts));
	double *v = calloc(reps, sizeof(double));
	double hz = (double)rte_get_tsc_hz();
	struct hp_task_ctx gctx;
	struct hp_gen g;
	unsigned int rep;
	int ret;

	pt->frame = 0;
	if (pkts == NULL || v == NULL) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = hp_gen_init(&g, &one, &cfg->types, 4, seed, err, errlen);
	if (ret < 0)
		goto out;
	ret = hp_task_body_init(&gctx, dev->ctx[0].ops, &cfg->task);
	if (ret < 0) {
		snprintf(err, errlen, "profile: task %s: set-up failed: %s",
			 dev->ctx[0].ops->name, strerror(-ret));
		hp_gen_free(&g);
		goto out;
	}
	ret = 0;
	if (gctx.ops != NULL)
		hp_gen_set_body(&g, hp_task_gen_body, &gctx);
	for (rep = 0; rep < reps && ret == 0; rep++) {
		uint64_t c;

		if (stopped(cfg, err, errlen)) {
			ret = -EINTR;
			break;
		}
		ret = make_batch(&g, mp, dev, k, pkts, b);
		if (ret < 0) {
			snprintf(err, errlen, "profile: cannot build packets: %s", strerror(-ret));
			break;
		}
		pt->frame = rte_pktmbuf_pkt_len(pkts[0]);
		c = time_once(dev, k, pkts, b);
		rte_pktmbuf_free_bulk(pkts, b);
		if (c == 0) {
			snprintf(err, errlen, "profile: device %s failed on task %s", dev->name,
				 dev->ctx[k].ops->name);
			ret = -EIO;
			break;
		}
		v[rep] = (double)c / hz * 1e3;
	}
	if (gctx.ops != NULL && gctx.ops->ctx_free != NULL)
		gctx.ops->ctx_free(&gctx);
	hp_gen_free(&g);
	if (ret == 0)
		stats(v, reps, pt);
out:
	return ret;
}

/* The bare part for one device: measurements and fitted rows. */
static int
profile_device(const struct hp_profile_opts *o, const struct hp_run_cfg *cfg,
	       struct hp_device *dev, struct rte_mempool *mp, json_t *jdev, char *err,
	       size_t errlen)
{
	json_t *tasks = json_object(), *meas = json_array();
	struct hp_dev_info info;
	unsigned int k, ki, si, bi, maxb;
	/* A device that runs whole chains runs a packet at step k through
	 * every task from k on: it is timed on the suffixes, last task first,
	 * and task k is charged the time its suffix adds to the next one's
	 * (chain_t: the next suffix's median per batch and size, us). */
	bool chain;
	double chain_t[RTE_DIM(o->batch)][MAX_SIZES] = { { 0 } };
	int ret = 0;

	json_object_set_new(jdev, "tasks", tasks);
	json_object_set_new(jdev, "measurements", meas);
	hp_device_info(dev, &info);
	maxb = info.batch ? info.max_batch : HP_BURST;
	chain = info.batch && !dev->caps.one_task && dev->n_tasks > 1;
	if (chain)
		json_object_set_new(jdev, "chain_only", json_true());
	for (k = 0; k < dev->n_tasks; k++)
		json_object_set_new(tasks, dev->ctx[k].ops->name, json_array());
	for (ki = 0; ki < dev->n_tasks && ret == 0; ki++) {
		/* per batch size: the points (n, bytes, t) at every size */
		double pn[2 * MAX_SIZES], pb[2 * MAX_SIZES], pt[2 * MAX_SIZES];
		double prev_n[MAX_SIZES], prev_b[MAX_SIZES], prev_t[MAX_SIZES];
		unsigned int n_prev = 0;
		json_t *rows;

		k = chain ? dev->n_tasks - 1 - ki : ki;
		rows = json_object_get(tasks, dev->ctx[k].ops->name);
		for (bi = 0; bi < o->n_batch && o->batch[bi] <= maxb && ret == 0; bi++) {
			unsigned int b = o->batch[bi], m = 0;
			double fx, pp, pby;

			for (si = 0; si < cfg->imix.n && ret == 0; si++) {
				struct hp_prof_point ptv;
				uint32_t frame;
				json_t *e;

				ret = hp_profile_time(dev, mp, cfg, k, b, cfg->imix.size[si],
						      cfg->seed + si, o->reps, &ptv, err, errlen);
				if (ret < 0)
					break;
				frame = ptv.frame;
				e = json_object();
				json_object_set_new(e, "task", json_string(dev->ctx[k].ops->name));
				if (chain)
					json_object_set_new(e, "chain_from", json_integer(k));
				json_object_set_new(e, "size", json_integer(cfg->imix.size[si]));
				json_object_set_new(e, "frame_bytes", json_integer(frame));
				json_object_set_new(e, "batch", json_integer(b));
				json_object_set_new(e, "median_ms", json_real(ptv.med_ms));
				json_object_set_new(e, "mean_ms", json_real(ptv.mean_ms));
				json_object_set_new(e, "std_ms", json_real(ptv.std_ms));
				json_object_set_new(e, "pps", json_real(b / (ptv.med_ms / 1e3)));
				json_object_set_new(e, "mbps", json_real((double)b * frame * 8 /
									 (ptv.med_ms / 1e3) / 1e6));
				json_array_append_new(meas, e);
				printf("  %-22s %-8s %5u B  batch %4u  median %9.4f ms  mean %9.4f  std %8.4f  %10.0f pps\n",
				       dev->name, dev->ctx[k].ops->name, cfg->imix.size[si], b,
				       ptv.med_ms, ptv.mean_ms, ptv.std_ms, b / (ptv.med_ms / 1e3));
				fflush(stdout);
				pn[m] = b;
				pb[m] = (double)b * frame;
				pt[m] = ptv.med_ms * 1e3; /* us */
				if (chain) {
					double suffix = pt[m];

					pt[m] -= chain_t[bi][si];
					chain_t[bi][si] = suffix;
				}
				m++;
			}
			if (ret < 0)
				break;
			/* this batch size's points and the one below it */
			memcpy(pn + m, prev_n, n_prev * sizeof(double));
			memcpy(pb + m, prev_b, n_prev * sizeof(double));
			memcpy(pt + m, prev_t, n_prev * sizeof(double));
			fit(pn, pb, pt, m + n_prev, &fx, &pp, &pby);
			json_array_append_new(rows, row_json(b, fx, pp, pby * 1e3));
			memcpy(prev_n, pn, m * sizeof(double));
			memcpy(prev_b, pb, m * sizeof(double));
			memcpy(prev_t, pt, m * sizeof(double));
			n_prev = m;
		}
	}
	return ret;
}

/* This binary, for the child runs. */
static int
self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Runs `hplane run` (the options the profile was given, then ours) and
 * waits; 0 or -errno. A child process per run: one process runs the
 * pipeline once (its ports and pools are named). */
static int
child_run(char *const *argv, const char *log)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		FILE *f = freopen(log, "w", stdout);

		if (f != NULL)
			dup2(fileno(stdout), 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

static double
jnum(json_t *o, const char *a, const char *b)
{
	json_t *x = json_object_get(o, a);

	if (b != NULL)
		x = json_object_get(x, b);
	return json_is_number(x) ? json_number_value(x) : 0;
}

/* Whether arg is a flag profile_pipeline gives its runs itself (a flag
 * with a value is refused when given twice): 0 if not, else how many
 * arguments it takes up (2 for "--out DIR", 1 for "--out=DIR" or a flag
 * without a value). */
static int
own_flag(const char *arg)
{
	static const char *const with_value[] = {
		"--out", "--sched", "--sched-param", "--qtable", "--granularity",
		"--imix-sizes", "--imix-shares", "--scenario", "--trace",
	};
	unsigned int i;
	size_t n;

	if (!strcmp(arg, "--quiet"))
		return 1;
	for (i = 0; i < RTE_DIM(with_value); i++) {
		n = strlen(with_value[i]);
		if (!strncmp(arg, with_value[i], n) && (arg[n] == '\0' || arg[n] == '='))
			return arg[n] == '=' ? 1 : 2;
	}
	return 0;
}

/* With the pipeline around it: the whole chain pinned to each device,
 * one IMIX size at a time, at the stress rate, as `hplane run` children
 * given the profile's own options (less --out) and ours after them. */
static int
profile_pipeline(const struct hp_profile_opts *o, struct hp_run_cfg *cfg, unsigned int d,
		 json_t *jdev, char *err, size_t errlen)
{
	json_t *arr = json_array();
	char self[4096], param[32], dir[4200], log[4300], size[16];
	char **av = calloc((size_t)o->argc + 24, sizeof(*av));
	unsigned int si;
	int i, k, ret = 0;

	json_object_set_new(jdev, "pipeline", arr);
	if (av == NULL || self_path(self, sizeof(self)) < 0) {
		free(av);
		snprintf(err, errlen, "profile: cannot run the pipeline runs");
		return -ENOMEM;
	}
	snprintf(param, sizeof(param), "dev=%u", d);
	mkdir(cfg->out_dir, 0755);
	for (si = 0; si < cfg->imix.n && ret == 0; si++) {
		json_error_t je;
		json_t *sum;
		char path[4400];
		int eal = -1;

		snprintf(size, sizeof(size), "%u", cfg->imix.size[si]);
		snprintf(dir, sizeof(dir), "%.4000s/dev%u-%u", cfg->out_dir, d, cfg->imix.size[si]);
		snprintf(log, sizeof(log), "%s.log", dir);
		k = 0;
		av[k++] = self;
		av[k++] = (char *)"run";
		for (i = 2; i < o->argc; i++) {
			int skip;

			if (!strcmp(o->argv[i], "--")) {
				eal = i;
				break;
			}
			skip = own_flag(o->argv[i]);
			if (skip > 0) {
				i += skip - 1;
				continue;
			}
			av[k++] = o->argv[i];
		}
		av[k++] = (char *)"--sched";
		av[k++] = (char *)"pin";
		av[k++] = (char *)"--sched-param";
		av[k++] = param;
		av[k++] = (char *)"--granularity";
		av[k++] = (char *)"chain";
		av[k++] = (char *)"--imix-sizes";
		av[k++] = size;
		av[k++] = (char *)"--imix-shares";
		av[k++] = (char *)"1";
		av[k++] = (char *)"--scenario";
		av[k++] = (char *)"stress";
		av[k++] = (char *)"--quiet";
		av[k++] = (char *)"--out";
		av[k++] = dir;
		for (i = eal; eal >= 0 && i < o->argc; i++)
			av[k++] = o->argv[i];
		av[k] = NULL;
		ret = child_run(av, log);
		if (stopped(cfg, err, errlen)) {
			ret = -EINTR;
			break;
		}
		snprintf(path, sizeof(path), "%s/summary.json", dir);
		sum = ret == 0 ? json_load_file(path, 0, &je) : NULL;
		if (sum == NULL) {
			snprintf(err, errlen, "profile: the pipeline run on device %u failed, see %.300s", d, log);
			ret = -EIO;
			break;
		}
		{
			json_t *e = json_object();
			double pps = jnum(sum, "throughput_mpps", NULL) * 1e6;

			json_object_set_new(e, "size", json_integer(cfg->imix.size[si]));
			json_object_set_new(e, "latency_mean_ms", json_real(jnum(sum, "latency_us", "mean") / 1e3));
			json_object_set_new(e, "latency_median_ms", json_real(jnum(sum, "latency_us", "p50") / 1e3));
			json_object_set_new(e, "latency_std_ms", json_real(jnum(sum, "latency_us", "std") / 1e3));
			json_object_set_new(e, "pps", json_real(pps));
			json_object_set_new(e, "mbps", json_real(jnum(sum, "throughput_gbps", NULL) * 1e3));
			json_object_set_new(e, "run", json_string(dir));
			json_array_append_new(arr, e);
			printf("  pipeline: device %u, %u B: %.0f pps, latency mean %.3f ms\n", d,
			       cfg->imix.size[si], pps, jnum(sum, "latency_us", "mean") / 1e3);
			fflush(stdout);
		}
		json_decref(sum);
	}
	free(av);
	return ret;
}

int
hp_cmd_profile(const struct hp_profile_opts *o, struct hp_run_cfg *cfg, char *err,
	       size_t errlen)
{
	const struct hp_app *app = hp_app_find(cfg->app);
	struct hp_dev_env env = { 0 };
	static int epoch;
	struct hp_device *dev = calloc(2, sizeof(*dev));
	struct rte_mempool *mp = NULL;
	json_t *root = json_object(), *devs = json_object();
	char cpu_spec[600] = "cpu", src[600], runs[4200], path[4096];
	const char *out = o->out;
	struct utsname un;
	unsigned int i, n_dev = cfg->n_gpu ? 2 : 1;
	struct hp_dev_info info;
	bool modeled = false;
	time_t now = time(NULL);
	int ret = 0;

	snprintf(path, sizeof(path), "%s", out);
	snprintf(runs, sizeof(runs), "%.4000s", cfg->out_dir);
	if (dev == NULL || root == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	env.epoch = &epoch;
	env.burst = cfg->burst;
	env.hz = rte_get_tsc_hz();
	env.app = app;
	env.task_cfg = &cfg->task;
	env.task_gran = true; /* one task at a time */
	for (i = 0; i < app->n_tasks; i++)
		env.tasks[i] = hp_task_find(app->tasks[i]);
	if (cfg->cpu_model != NULL)
		hp_device_cpu_model_spec(cpu_spec, sizeof(cpu_spec), cfg->cpu_model, cfg->burst, NULL);
	mp = hp_pktmbuf_pool("hp_prof", 2 * HP_BATCH_MAX + 1024, (int)rte_socket_id());
	if (mp == NULL) {
		snprintf(err, errlen, "cannot create the packet pool (try a larger -m)");
		ret = -ENOMEM;
		goto out;
	}
	printf("profile: app %s, %u repetitions per point, sizes", app->name, o->reps);
	for (i = 0; i < cfg->imix.n; i++)
		printf(" %u", cfg->imix.size[i]);
	printf("\n");
	for (i = 0; i < n_dev && ret == 0; i++) {
		json_t *jd = json_object();

		ret = hp_device_create(&dev[i], i == 0 ? cpu_spec : cfg->gpus[0], &env, i, err, errlen);
		if (ret < 0) {
			json_decref(jd);
			break;
		}
		modeled |= dev[i].caps.modeled;
		json_object_set_new(devs, i == 0 ? "cpu" : "gpu", jd);
		hp_device_info(&dev[i], &info);
		json_object_set_new(jd, "max_batch", json_integer(i == 0 ? cfg->burst :
								   info.max_batch));
		json_object_set_new(jd, "copy_engines", json_integer(dev[i].caps.copy_engines));
		json_object_set_new(jd, "mem_kind", json_string(dev[i].caps.mem_kind[0] ?
								dev[i].caps.mem_kind : "host"));
		json_object_set_new(jd, "device", json_string(dev[i].name));
		ret = profile_device(o, cfg, &dev[i], mp, jd, err, errlen);
	}
	for (i = 0; i < n_dev; i++)
		if (dev[i].ops != NULL)
			hp_device_destroy(&dev[i]);
	rte_mempool_free(mp);
	mp = NULL;
	for (i = 0; i < n_dev && ret == 0; i++)
		ret = profile_pipeline(o, cfg, i == 0 ? 0 : cfg->workers,
				       json_object_get(devs, i == 0 ? "cpu" : "gpu"), err, errlen);
	if (ret < 0)
		goto out;
	uname(&un);
	{
		char when[64];

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", gmtime(&now));
		snprintf(src, sizeof(src), "hplane profile on %.100s (%.20s), %s UTC: app %s, %u repetitions per point, pipeline runs in %.300s%s",
			 un.nodename, un.machine, when, app->name, o->reps, runs,
			 modeled ? "; modeled devices reproduce their own profile" : "");
	}
	json_object_set_new(root, "format", json_string("heteroplane-profile-1"));
	json_object_set_new(root, "name", json_string(app->name));
	json_object_set_new(root, "modeled", json_boolean(modeled));
	json_object_set_new(root, "source", json_string(src));
	json_object_set_new(root, "devices", devs);
	devs = NULL;
	if (json_dump_file(root, path, JSON_INDENT(2)) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		ret = -EIO;
		goto out;
	}
	printf("profile: wrote %s\n", path);
out:
	json_decref(devs);
	json_decref(root);
	rte_mempool_free(mp);
	free(dev);
	return ret;
}

int
hp_cmd_compare(int argc, char **argv)
{
	char tool[4200], py[4200], self[4096];
	char **av = calloc((size_t)argc + 4, sizeof(*av));
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int i, k = 0;

	if (av == NULL || n <= 0) {
		fprintf(stderr, "hplane: compare: cannot find this binary\n");
		free(av);
		return 1;
	}
	self[n] = '\0';
#ifdef HP_SOURCE_ROOT
	snprintf(tool, sizeof(tool), "%s/tools/sched_compare.py", HP_SOURCE_ROOT);
	snprintf(py, sizeof(py), "%s/.venv/bin/python", HP_SOURCE_ROOT);
#else
	snprintf(tool, sizeof(tool), "tools/sched_compare.py");
	snprintf(py, sizeof(py), ".venv/bin/python");
#endif
	if (access(py, X_OK) != 0)
		snprintf(py, sizeof(py), "/usr/bin/python3");
	av[k++] = py;
	av[k++] = tool;
	av[k++] = (char *)"--hplane";
	av[k++] = self;
	for (i = 1; i < argc; i++)
		av[k++] = argv[i];
	av[k] = NULL;
	execv(py, av);
	fprintf(stderr, "hplane: compare: cannot run %s %s: %s\n", py, tool, strerror(errno));
	free(av);
	return 1;
}
