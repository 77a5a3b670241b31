/* SPDX-License-Identifier: BSD-3-Clause
 * The registry of device kinds (by the first word of a spec), loading a
 * kind's plugin on first use, device creation from a spec string, and the
 * CPU chain runner every kind shares (the cpu kind runs on it; batch
 * devices use it for modeled results and for the fallback after a
 * failure).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "hp_common.h"
#include "hp_device.h"

#define HP_MAX_DEV_KINDS 8

#ifndef HP_PLUGIN_DIR
#define HP_PLUGIN_DIR "."
#endif

static struct hp_device_kind kinds[HP_MAX_DEV_KINDS];
static unsigned int n_kinds;

static struct hp_device_kind *
kind_slot(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_kinds; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

int
hp_device_kind_register(const struct hp_device_kind *k)
{
	struct hp_device_kind *old;

	if (k == NULL || k->name == NULL || (k->ops == NULL && k->plugin == NULL) ||
	    (k->ops != NULL && (k->ops->start == NULL || k->ops->poll == NULL)))
		return -EINVAL;
	old = kind_slot(k->name);
	if (old != NULL) {
		/* only a plugin's placeholder gives way to the real kind */
		if (old->ops != NULL || k->ops == NULL)
			return -EEXIST;
		*old = (struct hp_device_kind){ .name = k->name, .usage = k->usage,
			.ops = k->ops, .data = k->data, .plugin = old->plugin };
		return 0;
	}
	if (n_kinds == HP_MAX_DEV_KINDS)
		return -ENOSPC;
	kinds[n_kinds++] = *k;
	return 0;
}

const struct hp_device_kind *
hp_device_kind_find(const char *name)
{
	return kind_slot(name);
}

/* "(cpu, model:PROFILE, cuda)": the kinds a spec may name. */
static void
kinds_list(char *buf, size_t len)
{
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < n_kinds && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				      kinds[i].usage ? kinds[i].usage : kinds[i].name);
}

/* A kind in a plugin (so that hplane builds and runs without, e.g., CUDA):
 * its constructor registers the kind when the library is loaded. */
static const struct hp_device_kind *
load_plugin(const struct hp_device_kind *k, char *err, size_t errlen)
{
	const char *dir = getenv("HP_PLUGIN_DIR");
	char path[1024];
	void *h;

	if (dir == NULL || dir[0] == '\0')
		dir = HP_PLUGIN_DIR;
	snprintf(path, sizeof(path), "%s/%s", dir, k->plugin);
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		snprintf(err, errlen, "device '%s' is not available: cannot load %s (%s)%s%s",
			 k->name, path, dlerror(), k->hint ? "; " : "", k->hint ? k->hint : "");
		return NULL;
	}
	if (k->ops == NULL) {   /* the placeholder was replaced in place */
		snprintf(err, errlen, "plugin %s did not register device '%s'", path, k->name);
		dlclose(h);
		return NULL;
	}
	return k;
}

static int
parse_u64(const char *key, const char *val, uint64_t max, uint64_t *out,
	  char *err, size_t errlen)
{
	uint64_t v;

	if (hp_parse_u64(val, 0, max, &v) < 0) {
		snprintf(err, errlen, "device option %s=%s: expected an integer 0..%llu",
			 key, val, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Defaults: the thesis's 128-packet batches, no byte limit, a 4-packet
 * minimum, 200 us timeout, rate adaptation; the kind's own role. */
static void
opts_default(struct hp_dev_opts *o)
{
	*o = (struct hp_dev_opts){
		.batch = {
			.max_pkts = 128,
			.max_bytes = 0,
			.min_pkts = 4,
			.timeout = hp_us_to_tsc(200),
			.margin = hp_us_to_tsc(20),
			.adapt = true,
		},
		.time_scale = 1.0,
		.role = -1,
	};
}

/* One ",key=value" option into o. */
static int
parse_opt(struct hp_dev_opts *o, const char *key, const char *val, char *err,
	  size_t errlen)
{
	uint64_t v = 0;
	int ret;

	if (strcmp(key, "batch") == 0) {
		ret = parse_u64(key, val, HP_BATCH_MAX, &v, err, errlen);
		if (ret == 0 && v == 0) {
			snprintf(err, errlen, "device option batch must be 1..%d", HP_BATCH_MAX);
			ret = -EINVAL;
		}
		o->batch.max_pkts = (uint32_t)v;
	} else if (strcmp(key, "min_batch") == 0) {
		ret = parse_u64(key, val, HP_BATCH_MAX, &v, err, errlen);
		o->batch.min_pkts = (uint32_t)v;
	} else if (strcmp(key, "max_bytes") == 0) {
		ret = parse_u64(key, val, UINT32_MAX, &v, err, errlen);
		o->batch.max_bytes = (uint32_t)v;
	} else if (strcmp(key, "timeout_us") == 0) {
		ret = parse_u64(key, val, 10000000, &v, err, errlen);
		o->batch.timeout = hp_us_to_tsc((double)v);
	} else if (strcmp(key, "adapt") == 0) {
		ret = parse_u64(key, val, 1, &v, err, errlen);
		o->batch.adapt = v != 0;
	} else if (strcmp(key, "fail_after") == 0) {
		ret = parse_u64(key, val, UINT64_MAX - 1, &v, err, errlen);
		o->fail_after = v;
	} else if (strcmp(key, "inflight") == 0) {
		ret = parse_u64(key, val, 64, &v, err, errlen);
		if (ret == 0 && v == 0) {
			snprintf(err, errlen, "device option inflight must be 1..64");
			ret = -EINVAL;
		}
		o->max_inflight = (uint32_t)v;
	} else if (strcmp(key, "scale") == 0) {
		double f = 0;

		ret = 0;
		if (hp_parse_double(val, 0.01, 1000, &f) < 0) {
			snprintf(err, errlen, "device option scale=%s: expected a number 0.01..1000", val);
			ret = -EINVAL;
		}
		o->time_scale = f;
	} else if (strcmp(key, "role") == 0) {
		ret = 0;
		if (strcmp(val, "cpu") == 0) {
			o->role = HP_DEV_ROLE_CPU;
		} else if (strcmp(val, "accel") == 0) {
			o->role = HP_DEV_ROLE_ACCEL;
		} else {
			snprintf(err, errlen, "device option role=%s: expected cpu or accel", val);
			ret = -EINVAL;
		}
	} else {
		snprintf(err, errlen,
			 "unknown device option '%s' (batch, min_batch, max_bytes, timeout_us, adapt, fail_after, inflight, scale, role)",
			 key);
		return -EINVAL;
	}
	return ret;
}

static int
parse_opts(struct hp_dev_opts *o, char *opts, char *err, size_t errlen)
{
	char *save = NULL, *tok;
	int ret;

	for (tok = strtok_r(opts, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL) {
			snprintf(err, errlen, "device option '%s': expected key=value", tok);
			return -EINVAL;
		}
		*eq++ = '\0';
		ret = parse_opt(o, tok, eq, err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The kind a spec's first word names, loading its plugin if need be. */
static const struct hp_device_kind *
kind_of(const char *word, char *err, size_t errlen)
{
	const struct hp_device_kind *k = kind_slot(word);
	char list[256];

	if (k != NULL && k->ops == NULL)
		k = load_plugin(k, err, errlen);
	else if (k == NULL) {
		kinds_list(list, sizeof(list));
		snprintf(err, errlen, "unknown device '%s' (%s)", word, list);
	}
	return k;
}

/* Splits "kind[:arg][,opt=v,...]" in buf (a copy of spec) and parses the
 * options into o. */
static int
spec_split(char *buf, size_t len, const char *spec, char **arg, struct hp_dev_opts *o,
	   char *err, size_t errlen)
{
	char *opts;

	if (strlen(spec) >= len) {
		snprintf(err, errlen, "device spec too long");
		return -EINVAL;
	}
	snprintf(buf, len, "%s", spec);
	opts = strchr(buf, ',');
	if (opts != NULL)
		*opts++ = '\0';
	*arg = strchr(buf, ':');
	if (*arg != NULL)
		*(*arg)++ = '\0';
	opts_default(o);
	return opts != NULL ? parse_opts(o, opts, err, errlen) : 0;
}

int
hp_device_check(const char *spec, char *err, size_t errlen)
{
	const struct hp_device_kind *k;
	struct hp_dev_opts o;
	char buf[512], list[256], *arg;
	int ret;

	ret = spec_split(buf, sizeof(buf), spec, &arg, &o, err, errlen);
	if (ret < 0)
		return ret;
	k = kind_slot(buf);
	if (k == NULL) {
		kinds_list(list, sizeof(list));
		snprintf(err, errlen, "unknown device '%s' (%s)", buf, list);
		return -ENODEV;
	}
	return k->ops != NULL && k->ops->check != NULL ? k->ops->check(k, arg, err, errlen) : 0;
}

int
hp_device_create(struct hp_device *dev, const char *spec,
		 const struct hp_dev_env *env, unsigned int idx, char *err,
		 size_t errlen)
{
	const struct hp_device_kind *kind;
	struct hp_dev_opts o;
	char buf[512], *arg;
	unsigned int k;
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->env = env;
	dev->idx = idx;
	ret = spec_split(buf, sizeof(buf), spec, &arg, &o, err, errlen);
	if (ret < 0)
		return ret;
	kind = kind_of(buf, err, errlen);
	if (kind == NULL)
		return -ENODEV;
	dev->kind = kind;
	dev->ops = kind->ops;
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
	ret = dev->ops->init ? dev->ops->init(dev, arg, &o, err, errlen) : 0;
	if (ret < 0)
		goto fail;
	return 0;
fail:
	hp_device_destroy(dev);
	return ret;
}

/* A stable counting sort of the staged packets by owner, one burst
 * enqueue per owner, and what did not fit back at the front in owner
 * order (each owner's packets keep theirs, which is all reorder needs).
 * A few adds and one store a packet over the meta line the device wrote. */
uint32_t
hp_device_flush_routed(struct hp_device *dev)
{
	struct hp_staging *s = &dev->ost;
	struct rte_mbuf *grp[HP_STAGING_MAX];
	uint32_t off[HP_DEV_MAX_OUT + 1] = { 0 }, at[HP_DEV_MAX_OUT];
	uint32_t i, k, n, keep = 0, sent = 0;
	unsigned int o;

	if (s->len == 0)
		return 0;
	for (i = 0; i < s->len; i++) {
		o = hp_meta(s->buf[i])->owner;
		off[(o < dev->n_out ? o : 0) + 1]++;
	}
	for (o = 0; o < dev->n_out; o++) {
		off[o + 1] += off[o];
		at[o] = off[o];
	}
	for (i = 0; i < s->len; i++) {
		o = hp_meta(s->buf[i])->owner;
		grp[at[o < dev->n_out ? o : 0]++] = s->buf[i];
	}
	for (o = 0; o < dev->n_out; o++) {
		n = off[o + 1] - off[o];
		if (n == 0)
			continue;
		k = rte_ring_enqueue_burst(dev->outs[o], (void **)(grp + off[o]), n, NULL);
		sent += k;
		for (i = k; i < n; i++)
			s->buf[keep++] = grp[off[o] + i];
	}
	if (keep)
		s->retries++;
	s->len = keep;
	return sent;
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
	dev->ops = NULL;
}

int
hp_device_cpu_model_spec(char *buf, size_t len, const char *model, unsigned int burst,
			 const char *extra)
{
	const char *comma = strchr(model, ',');
	int nl = comma ? (int)(comma - model) : (int)strlen(model);
	int n;

	n = snprintf(buf, len, "model:%.*s%s,batch=%u,min_batch=1%s%s%s", nl, model,
		     memchr(model, '@', (size_t)nl) ? "" : "@cpu", burst,
		     extra ? "," : "", extra ? extra : "", comma ? comma : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void
hp_device_info(const struct hp_device *dev, struct hp_dev_info *info)
{
	*info = (struct hp_dev_info){
		.kind = dev->kind->name,
		.role = (enum hp_dev_role)dev->caps.role,
		.modeled = dev->caps.modeled,
		.max_batch = dev->caps.max_batch_pkts,
		.min_batch = dev->caps.min_batch_pkts,
	};
	if (dev->ops->info != NULL)
		dev->ops->info(dev, info);
}

uint64_t
hp_device_predict(const struct hp_device *dev, unsigned int task, uint32_t n,
		  uint32_t bytes)
{
	return dev->ops->predict != NULL ? dev->ops->predict(dev, task, n, bytes) : 0;
}

int
hp_device_describe(const struct hp_device *dev, char *buf, size_t len)
{
	if (dev->ops->describe == NULL)
		return -ENOTSUP;
	dev->ops->describe(dev, buf, len);
	return 0;
}

int
hp_device_time_batch(struct hp_device *dev, unsigned int task,
		     struct rte_mbuf **pkts, uint32_t n, uint64_t *cycles)
{
	if (dev->ops->time_batch == NULL)
		return -ENOTSUP;
	return dev->ops->time_batch(dev, task, pkts, n, cycles);
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

		/* t_work: when the packet's first task started anywhere
		 * (with --apps its first is its app's, step > 0; t_work is
		 * 0 until then, cleared at classify) */
		if (md->step == 0 || md->t_work == 0)
			md->t_work = t0;
		md->device = (uint8_t)dev->idx;
	}
	for (k = 0; k < dev->n_tasks; k++) {
		uint64_t ts, hop = 0;

		/* The packets that run task k here: the chain from their
		 * step on, or only their step with granularity task. With
		 * --apps each task belongs to one app, so this groups the
		 * burst by app: one process call per app present. */
		for (i = 0, m = 0; i < n; i++) {
			const struct hp_meta *md = hp_meta(pkts[i]);

			if (hp_dev_runs(dev, md, k) && (one ? k == md->step : true))
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

			/* (a packet whose app's chain starts at k has
			 * run nothing before: t_done is 0, no hop) */
			hop += md->step != k ? ts - t1 :
			       md->t_done != 0 ? ts - RTE_MIN(md->t_done, ts) : 0;
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

		md->step = one ? (uint8_t)(md->step + 1) : dev->env->app_end[md->app];
	}
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
