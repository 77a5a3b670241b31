/* SPDX-License-Identifier: BSD-3-Clause
 * Device and accelerator registries, device creation from a spec string,
 * run-time loading of the CUDA plugin, and the CPU chain runner every
 * device kind shares (the cpu kind runs on it; batch devices use it for
 * modeled results and for the fallback after a failure).
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "hp_common.h"
#include "hp_device.h"

#define HP_MAX_DEV_KINDS 8
#define IDLE_POLLS_BEFORE_YIELD 64
#define IDLE_POLLS_BEFORE_SLEEP 4

#ifndef HP_PROFILE_DIR
#define HP_PROFILE_DIR "profiles"
#endif
#ifndef HP_PLUGIN_DIR
#define HP_PLUGIN_DIR "."
#endif

static const struct hp_device_ops *kinds[HP_MAX_DEV_KINDS];
static unsigned int n_kinds;
static const struct hp_accel_ops *accels[HP_MAX_DEV_KINDS];
static unsigned int n_accels;

int
hp_device_register(const struct hp_device_ops *ops)
{
	if (ops == NULL || ops->kind == NULL || ops->main == NULL ||
	    n_kinds == HP_MAX_DEV_KINDS || hp_device_find(ops->kind) != NULL)
		return -EINVAL;
	kinds[n_kinds++] = ops;
	return 0;
}

const struct hp_device_ops *
hp_device_find(const char *kind)
{
	unsigned int i;

	for (i = 0; i < n_kinds; i++)
		if (strcmp(kinds[i]->kind, kind) == 0)
			return kinds[i];
	return NULL;
}

const struct hp_device_ops *
hp_device_at(unsigned int i)
{
	return i < n_kinds ? kinds[i] : NULL;
}

int
hp_accel_register(const struct hp_accel_ops *ops)
{
	if (ops == NULL || ops->name == NULL || ops->open == NULL ||
	    ops->submit == NULL || ops->poll == NULL ||
	    n_accels == HP_MAX_DEV_KINDS || hp_accel_find(ops->name) != NULL)
		return -EINVAL;
	accels[n_accels++] = ops;
	return 0;
}

const struct hp_accel_ops *
hp_accel_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_accels; i++)
		if (strcmp(accels[i]->name, name) == 0)
			return accels[i];
	return NULL;
}

/* The CUDA backend is a plugin so that hplane builds and runs without
 * CUDA; its constructor registers "cuda" through hp_accel_register. */
static const struct hp_accel_ops *
load_plugin(const char *name, char *err, size_t errlen)
{
	const char *dir = getenv("HP_PLUGIN_DIR");
	char path[1024];
	void *h;

	if (dir == NULL || dir[0] == '\0')
		dir = HP_PLUGIN_DIR;
	snprintf(path, sizeof(path), "%s/libhp_%s.so", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		snprintf(err, errlen,
			 "device '%s' is not available: cannot load %s (%s); build with nvcc on PATH (scripts/setup.sh --with-cuda-compiler) or set HP_PLUGIN_DIR",
			 name, path, dlerror());
		return NULL;
	}
	if (hp_accel_find(name) == NULL) {
		snprintf(err, errlen, "plugin %s did not register device '%s'", path, name);
		dlclose(h);
		return NULL;
	}
	return hp_accel_find(name);
}

static int
parse_u64(const char *key, const char *val, uint64_t max, uint64_t *out,
	  char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno != 0 || end == val || *end != '\0' || v > max || val[0] == '-') {
		snprintf(err, errlen, "device option %s=%s: expected an integer 0..%llu",
			 key, val, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Parses ",key=value" options into dev (batch limits, fault injection). */
static int
parse_opts(struct hp_device *dev, char *opts, char *err, size_t errlen)
{
	char *save = NULL, *tok;
	uint64_t v = 0;
	int ret;

	for (tok = strtok_r(opts, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL) {
			snprintf(err, errlen, "device option '%s': expected key=value", tok);
			return -EINVAL;
		}
		*eq++ = '\0';
		if (strcmp(tok, "batch") == 0) {
			ret = parse_u64(tok, eq, HP_BATCH_MAX, &v, err, errlen);
			if (ret == 0 && v == 0) {
				snprintf(err, errlen, "device option batch must be 1..%d",
					 HP_BATCH_MAX);
				ret = -EINVAL;
			}
			dev->bcfg.max_pkts = (uint32_t)v;
		} else if (strcmp(tok, "min_batch") == 0) {
			ret = parse_u64(tok, eq, HP_BATCH_MAX, &v, err, errlen);
			dev->bcfg.min_pkts = (uint32_t)v;
		} else if (strcmp(tok, "max_bytes") == 0) {
			ret = parse_u64(tok, eq, UINT32_MAX, &v, err, errlen);
			dev->bcfg.max_bytes = (uint32_t)v;
		} else if (strcmp(tok, "timeout_us") == 0) {
			ret = parse_u64(tok, eq, 10000000, &v, err, errlen);
			dev->bcfg.timeout = hp_us_to_tsc((double)v);
		} else if (strcmp(tok, "adapt") == 0) {
			ret = parse_u64(tok, eq, 1, &v, err, errlen);
			dev->bcfg.adapt = v != 0;
		} else if (strcmp(tok, "fail_after") == 0) {
			ret = parse_u64(tok, eq, UINT64_MAX - 1, &v, err, errlen);
			dev->fail_after = v;
		} else if (strcmp(tok, "inflight") == 0) {
			ret = parse_u64(tok, eq, 64, &v, err, errlen);
			if (ret == 0 && v == 0) {
				snprintf(err, errlen, "device option inflight must be 1..64");
				ret = -EINVAL;
			}
			dev->max_inflight = (uint32_t)v;
		} else if (strcmp(tok, "scale") == 0) {
			char *end;
			double f = strtod(eq, &end);

			ret = 0;
			if (end == eq || *end != '\0' || !(f >= 0.01 && f <= 1000)) {
				snprintf(err, errlen, "device option scale=%s: expected a number 0.01..1000", eq);
				ret = -EINVAL;
			}
			dev->time_scale = f;
		} else {
			snprintf(err, errlen,
				 "unknown device option '%s' (batch, min_batch, max_bytes, timeout_us, adapt, fail_after, inflight, scale)",
				 tok);
			return -EINVAL;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

int
hp_device_create(struct hp_device *dev, const char *spec,
		 const struct hp_dev_env *env, unsigned int idx, char *err,
		 size_t errlen)
{
	char buf[512], *opts, *arg;
	const struct hp_device_ops *ops;
	unsigned int k;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->env = env;
	dev->idx = idx;
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "device spec too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	opts = strchr(buf, ',');
	if (opts != NULL)
		*opts++ = '\0';
	arg = strchr(buf, ':');
	if (arg != NULL)
		*arg++ = '\0';
	/* Defaults for batch devices: the thesis's 128-packet batches, no
	 * byte limit, a 4-packet minimum, 200 us timeout, rate adaptation. */
	dev->bcfg = (struct hp_batch_cfg){
		.max_pkts = 128,
		.max_bytes = 0,
		.min_pkts = 4,
		.timeout = hp_us_to_tsc(200),
		.margin = hp_us_to_tsc(20),
		.adapt = true,
	};
	dev->time_scale = 1.0;
	if (opts != NULL && (ret = parse_opts(dev, opts, err, errlen)) < 0)
		return ret;
	if (strcmp(buf, "cpu") == 0) {
		ops = hp_device_find("cpu");
		if (dev->fail_after || dev->max_inflight || dev->time_scale != 1.0) {
			snprintf(err, errlen, "fail_after, inflight and scale apply to batch devices, not cpu");
			return -EINVAL;
		}
	} else {
		const struct hp_accel_ops *a = hp_accel_find(buf);

		if (a == NULL && strcmp(buf, "cuda") == 0)
			a = load_plugin(buf, err, errlen);
		else if (a == NULL)
			snprintf(err, errlen, "unknown device '%s' (cpu, model:PROFILE, cuda)", buf);
		if (a == NULL)
			return -ENODEV;
		dev->accel = calloc(1, sizeof(*dev->accel));
		if (dev->accel == NULL)
			return -ENOMEM;
		dev->accel->ops = a;
		ops = hp_device_find("batch");
	}
	if (ops == NULL) {
		snprintf(err, errlen, "device kind for '%s' is not built in", buf);
		ret = -ENODEV;
		goto fail;
	}
	dev->ops = ops;
	dev->n_tasks = env->app->n_tasks;
	for (k = 0; k < dev->n_tasks; k++) {
		dev->ctx[k].ops = env->tasks[k];
		dev->ctx[k].cfg = env->task_cfg;
		if (dev->ctx[k].ops->ctx_init != NULL &&
		    (ret = dev->ctx[k].ops->ctx_init(&dev->ctx[k])) < 0) {
			snprintf(err, errlen, "task %s: set-up failed: %s",
				 dev->ctx[k].ops->name, strerror(-ret));
			dev->ctx[k].ops = NULL;
			goto fail;
		}
	}
	ret = ops->init ? ops->init(dev, arg, err, errlen) : 0;
	if (ret < 0)
		goto fail;
	return 0;
fail:
	hp_device_destroy(dev);
	return ret;
}

void
hp_device_destroy(struct hp_device *dev)
{
	unsigned int k;

	if (dev->ops != NULL && dev->ops->fini != NULL)
		dev->ops->fini(dev);
	for (k = 0; k < dev->n_tasks; k++)
		if (dev->ctx[k].ops != NULL && dev->ctx[k].ops->ctx_free != NULL)
			dev->ctx[k].ops->ctx_free(&dev->ctx[k]);
	dev->n_tasks = 0;
	free(dev->accel);
	dev->accel = NULL;
	dev->ops = NULL;
}

void
hp_device_run_chain(struct hp_device *dev, struct rte_mbuf **pkts, uint16_t n,
		    uint64_t t0)
{
	bool one = dev->env->task_gran;
	struct rte_mbuf *sub[HP_BURST];
	uint64_t t1 = t0;
	unsigned int i, k, m;

	RTE_ASSERT(n <= HP_BURST);
	/* The mbufs and their metadata line 1 were written on other cores
	 * (the generator or NIC, then the scheduler): ask for all of the
	 * burst's lines before the first pass needs them; tasks find buf_addr
	 * and data_off (the mbuf's first line) there too. */
	for (i = 0; i < n; i++) {
		rte_prefetch0(pkts[i]);
		hp_prefetch_meta_dev(pkts[i]);
	}
	if (dev->n_tasks == 1) {
		/* One task: every packet here runs it (a packet reaches a
		 * device with step < n_tasks, so step is 0), and nothing is
		 * read from the metadata before the task runs. The task
		 * reaches packet i's lines after packets 0..i-1's work,
		 * when the prefetches above have landed; a loop over the
		 * metadata first waits for every line written on the
		 * scheduler's core. A/B, AES-CTR worker: 545 -> 517
		 * cycles a packet, lower in 5 of 6 paired rounds
		 * (bench/results/pipeline-2026-11-22d.md, addendum). The
		 * general path must read each packet's step first. */
		dev->ctx[0].ops->process(&dev->ctx[0], pkts, n);
		t1 = rte_rdtsc();
		for (i = 0; i < n; i++) {
			struct hp_meta *md = hp_meta(pkts[i]);

			RTE_ASSERT(md->step == 0);
			md->t_work = t0;
			md->t_done = t1;
			md->device = (uint8_t)dev->idx;
			md->step = 1;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);

		/* t_work: when the packet's first task started anywhere */
		if (md->step == 0)
			md->t_work = t0;
		md->device = (uint8_t)dev->idx;
	}
	for (k = 0; k < dev->n_tasks; k++) {
		uint64_t ts, hop = 0;

		/* The packets that run task k here: the chain from their
		 * step on, or only their step with granularity task. */
		for (i = 0, m = 0; i < n; i++) {
			const struct hp_meta *md = hp_meta(pkts[i]);

			if (md->step <= k && (one ? k == md->step : true))
				sub[m++] = pkts[i];
		}
		if (m == 0)
			continue;
		ts = rte_rdtsc();
		/* Overhead 2 (thesis Fig. 5.1): from the end of the previous
		 * task to the start of this one: the hop inside the device
		 * (chain), or the way back through the scheduler (task). */
		for (i = 0; i < m && k > 0; i++) {
			const struct hp_meta *md = hp_meta(sub[i]);

			hop += md->step == k ? ts - RTE_MIN(md->t_done, ts) : ts - t1;
		}
		dev->st.oh2_cycles += hop;
		dev->ctx[k].ops->process(&dev->ctx[k], sub, (uint16_t)m);
		t1 = rte_rdtsc();
		/* t_done: when the packet's last task so far ended (also
		 * the start of overhead 2 for its next one) */
		for (i = 0; i < m; i++)
			hp_meta(sub[i])->t_done = t1;
	}
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);

		md->step = one ? (uint8_t)(md->step + 1) : (uint8_t)dev->n_tasks;
	}
}

uint64_t
hp_batch_job_service(const struct hp_device *dev, const struct hp_batch_job *job)
{
	const struct hp_accel_ops *a = dev->accel->ops;
	uint64_t t = 0;
	unsigned int k;

	if (a->predict == NULL)
		return 0;
	if (!dev->env->task_gran)
		return a->predict(dev, HP_MAX_TASKS, job->n, job->bytes);
	for (k = 0; k < dev->n_tasks; k++)
		if (job->task_n[k])
			t += a->predict(dev, k, job->task_n[k], job->task_bytes[k]);
	return t;
}

bool
hp_device_epoch(struct hp_device *dev)
{
	int e = __atomic_load_n(dev->env->epoch, __ATOMIC_ACQUIRE);

	if (e == dev->epoch_seen)
		return false;
	memset(&dev->st, 0, sizeof(dev->st));
	__atomic_store_n(&dev->epoch_seen, e, __ATOMIC_RELEASE);
	return true;
}

void
hp_device_idle(const struct hp_device *dev, unsigned int *idle_polls)
{
	if (dev->env->idle_yield && ++(*idle_polls) >= (dev->env->idle_yield == HP_IDLE_SLEEP ?
					 IDLE_POLLS_BEFORE_SLEEP : IDLE_POLLS_BEFORE_YIELD)) {
		*idle_polls = 0;
		hp_idle_giveup(dev->env->idle_yield);
	} else {
		rte_pause();
	}
}

/* One indirect call per pass (a few cycles against a burst's work). */
int
hp_device_main(struct hp_device *dev)
{
	unsigned int idle_polls = 0;
	int n;

	dev->ops->start(dev);
	while ((n = dev->ops->poll(dev)) != HP_DEV_POLL_DONE)
		if (n == 0)
			hp_device_idle(dev, &idle_polls);
	return 0;
}
