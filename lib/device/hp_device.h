/* SPDX-License-Identifier: BSD-3-Clause
 * The device ops table (DESIGN.md §2-3): where an app's chain runs. A device
 * has a queue in (an rte_ring the scheduler fills), completions out (an
 * rte_ring the scheduler drains), capabilities, a service-time model and
 * statistics. Layers above see struct hp_device and the functions below,
 * never a kind's state. The first word of a spec picks the device kind:
 *   cpu            a loop that runs the chain packet burst by packet burst
 *   model:PROFILE  a batch device (hp_accel.h) whose backend's timing comes
 *                  from a profile, results from the CPU code ("(modeled)")
 *   cuda           a batch device with the CUDA backend (gpu/, a plugin)
 * Adding a device kind = one file + one registration line (HP_DEVICE_REGISTER,
 * or HP_ACCEL_REGISTER for a batch backend); a kind in a plugin also gets
 * one HP_DEVICE_PLUGIN line in dev_plugins.c.
 */
#ifndef HP_DEVICE_H
#define HP_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "hp_batch.h"
#include "hp_load.h"
#include "hp_staging.h"
#include "hp_task.h"

#define HP_DEV_NAMELEN 48
/* completion rings a device can route to: one per scheduler lcore */
#define HP_DEV_MAX_OUT 8
#define HP_DEV_POLL_DONE (-1)	/* poll: quit, and everything is out */

/* What the pipeline shares with every device. */
struct hp_dev_env {
	const int *epoch;        /* counters restart when this changes */
	unsigned int burst;
	uint64_t hz;
	const struct hp_app *app;
	const struct hp_task_ops *tasks[HP_MAX_TASKS];
	const struct hp_task_cfg *task_cfg;
	/* Granularity task (thesis C2): a device runs only task md->step of
	 * each packet and advances it; chain: the whole chain. */
	bool task_gran;
	/* --apps: the tasks are the apps' chains one after another; a
	 * packet runs from its step to its app's end, app_end[md->app]
	 * (one app: app_end[0] = n_tasks, md->app = 0). */
	unsigned int n_apps;
	uint8_t app_end[HP_MAX_APPS];
};

/* What a device is for: a CPU worker (modeled or not) or an accelerator. */
enum hp_dev_role { HP_DEV_ROLE_CPU = 0, HP_DEV_ROLE_ACCEL = 1 };

struct hp_dev_caps {
	uint32_t max_batch_pkts;   /* 1 for a packet-by-packet device */
	uint32_t max_batch_bytes;  /* 0: no byte limit */
	uint32_t min_batch_pkts;
	uint32_t copy_engines;     /* 0 when data is not copied (CPU, modeled) */
	uint32_t streams;
	bool modeled;              /* timings come from a profile, not a device */
	bool one_task;             /* can run a single task of a chain (md->step) */
	uint8_t role;              /* enum hp_dev_role, set by the kind */
	/* modeled power (profile "power"): watts idle and fully busy; only
	 * modeled devices with busy > 0 have a power model */
	double power_idle_w, power_busy_w;
	double power_off_w;        /* switched off (power.off_w); < 0: stays idle */
	char mem_kind[24];         /* "host", "pinned+device", ... */
};

/* Per-device counters, owned by the device's loop and read relaxed. */
struct hp_dev_stats {
	uint64_t pkts, bytes;
	uint64_t busy_cycles, total_cycles;
	uint64_t oh2_cycles;       /* hops between tasks of a chain */
	uint64_t batches, batch_pkts;
	uint64_t flush[HP_FLUSH_REASONS];
	uint64_t fallback_pkts;    /* done on the CPU path after a failure */
	uint64_t model_cycles;     /* modeled service time, summed over batches */
	/* --apps: of model_cycles, by the batch's app (a batch holds one) */
	uint64_t app_model_cycles[HP_MAX_APPS];
	/* a backend's driver calls: on the submit path, and completion
	 * queries (0 when it makes none) */
	uint64_t driver_calls, driver_polls;
	uint64_t gathered_pkts;    /* a GPU backend's: read in place from mbufs */
	uint64_t scattered_pkts;   /* ... and written back into them in place */
	uint64_t prep_cycles, prep_pkts; /* its lcore's per-batch preparation */
	uint64_t commit_cycles, commit_pkts; /* ... and results into the packets */
};

/* A spec's ",key=value" options, parsed the same for every kind; a kind
 * refuses those that do not apply to it. */
struct hp_dev_opts {
	struct hp_batch_cfg batch; /* batch= min_batch= max_bytes= timeout_us= adapt= */
	uint64_t fail_after;       /* fault injection: fail after n packets */
	uint32_t max_inflight;     /* batches inside the backend (0: its own) */
	double time_scale;         /* modeled devices: service times x this */
	int role;                  /* role=cpu|accel; -1: the kind's own */
};

/* What layers above need to know of a device. */
struct hp_dev_info {
	const char *kind;          /* the spec word it was made from */
	enum hp_dev_role role;
	bool modeled;
	bool batch;                /* aggregates packets into batches */
	uint32_t max_batch;        /* the most packets it serves at once */
	uint32_t min_batch;
};

struct hp_device;

struct hp_device_kind;

struct hp_device_ops {
	const char *desc;
	/* Optional, before EAL starts: checks the spec's argument of kind k
	 * and may read what it names (a profile), keeping it for the init
	 * that follows, so a file is read once. 0 or -errno with err set. */
	int (*check)(const struct hp_device_kind *k, const char *arg, char *err,
		     size_t errlen);
	/* Sets the device up from the spec's argument (after "kind:", NULL
	 * without) and options. 0 or -errno with err set. */
	int (*init)(struct hp_device *dev, const char *arg,
		    const struct hp_dev_opts *o, char *err, size_t errlen);
	void (*fini)(struct hp_device *dev);
	/* The device's loop, one pass at a time, run by whoever polls it (an
	 * lcore of its own or a service lcore): start once on that lcore
	 * before the first pass, then poll. poll returns the items it
	 * handled, 0 when it found nothing, HP_DEV_POLL_DONE once quit is set
	 * and nothing is left inside. No packet is held between passes except
	 * in the device's own state (staging, open batches), so consecutive
	 * passes may run on different lcores (never two at once). */
	void (*start)(struct hp_device *dev);
	int (*poll)(struct hp_device *dev);
	/* Service time in TSC cycles of n packets of bytes total, for one
	 * task of the chain (task < n_tasks) or the whole chain (task ==
	 * HP_MAX_TASKS), excluding anything queued on the device. Optional. */
	uint64_t (*predict)(const struct hp_device *dev, unsigned int task,
			    uint32_t n, uint32_t bytes);
	/* Optional: refines hp_device_info's answer (batch limits). */
	void (*info)(const struct hp_device *dev, struct hp_dev_info *info);
	/* Optional: one line describing the device (GPU model, versions). */
	void (*describe)(const struct hp_device *dev, char *buf, size_t len);
	/* Optional: runs task `task` of n prepared packets at once, outside
	 * any loop, and says how long the device took (hplane profile). */
	int (*time_batch)(struct hp_device *dev, unsigned int task,
			  struct rte_mbuf **pkts, uint32_t n, uint64_t *cycles);
};

/* A device kind: the word a spec starts with and what serves it. */
struct hp_device_kind {
	const char *name;          /* "cpu", "model", "cuda" */
	const char *usage;         /* how a spec names it ("model:PROFILE");
				    * NULL: name */
	const struct hp_device_ops *ops; /* NULL: in a plugin not loaded yet */
	const void *data;          /* the kind's own (a batch kind's backend) */
	const char *plugin;        /* shared object that registers the kind */
	const char *hint;          /* what to do when the plugin cannot load */
};

struct hp_device {
	const struct hp_device_ops *ops;
	const struct hp_device_kind *kind;
	const struct hp_dev_env *env;
	char name[HP_DEV_NAMELEN];
	unsigned int idx;
	struct rte_ring *in;       /* scheduler -> device */
	struct rte_ring *out;      /* device -> scheduler (outs[0]) */
	/* --sched-lcores N > 1: a completion ring per scheduler lcore; a
	 * packet goes back to its meta's owner (n_out 0 or 1: out only) */
	struct rte_ring *outs[HP_DEV_MAX_OUT];
	unsigned int n_out;
	struct hp_dev_caps caps;
	/* CPU task contexts: the cpu kind runs on them; batch devices use
	 * them for modeled results and as the fallback path. */
	unsigned int n_tasks;
	struct hp_task_ctx ctx[HP_MAX_TASKS];
	struct hp_staging ost;     /* output staging (never drops) */
	int quit;
	int epoch_seen;
	int failed;                /* set once; the scheduler stops picking it */
	double failed_at_s;
	char fail_reason[160];
	struct hp_dev_stats st;
	struct hp_load load;       /* the loop's load counters (lib/load) */
	void *priv;                /* the kind's state */
} __rte_cache_aligned;

/* Registers a kind; a kind registered without ops (a plugin's placeholder)
 * is replaced when the plugin registers the real one. 0 or -EINVAL. */
int hp_device_kind_register(const struct hp_device_kind *k);
const struct hp_device_kind *hp_device_kind_find(const char *name);

#define HP_DEVICE_REGISTER(kind) \
	RTE_INIT(hp_dev_reg_ ## kind) { hp_device_kind_register(&(kind)); }
/* A kind that a plugin (file, in HP_PLUGIN_DIR) registers when loaded. */
#define HP_DEVICE_PLUGIN(nm, file, why) \
	RTE_INIT(hp_dev_plugin_ ## nm) { \
		static const struct hp_device_kind k = { \
			.name = #nm, .plugin = (file), .hint = (why) }; \
		hp_device_kind_register(&k); \
	}

/* Creates a device from a spec: "cpu", "model:PROFILE[,opt=v...]",
 * "cuda[,opt=v...]". Options: batch=N, min_batch=N, max_bytes=N,
 * timeout_us=T, adapt=0|1, fail_after=N, inflight=N (batches inside the
 * backend at once), scale=F (modeled devices: every service time x F, to
 * run a modeled platform slower than the profile on a small machine),
 * role=cpu|accel (what the device is for the schedulers). */
int hp_device_create(struct hp_device *dev, const char *spec,
		     const struct hp_dev_env *env, unsigned int idx,
		     char *err, size_t errlen);
void hp_device_destroy(struct hp_device *dev);

/* The spec of a CPU worker modeled from a profile: model is
 * "PROFILE[@section][,opt=v...]" (section cpu by default), served in
 * bursts of up to burst packets one after another with no minimum; extra
 * (may be NULL) adds options before the model's own. */
/* Checks a device spec before EAL starts: its kind (a kind in a plugin not
 * loaded yet is checked when it loads), its options and, where the kind
 * has a check, its argument. 0 or -errno with a one-line reason. */
int hp_device_check(const char *spec, char *err, size_t errlen);
int hp_device_cpu_model_spec(char *buf, size_t len, const char *model,
			     unsigned int burst, const char *extra);

void hp_device_info(const struct hp_device *dev, struct hp_dev_info *info);
/* Service time in cycles (see hp_device_ops.predict); 0 when unknown. */
uint64_t hp_device_predict(const struct hp_device *dev, unsigned int task,
			   uint32_t n, uint32_t bytes);
/* One line describing the device; -ENOTSUP when the kind has none. */
int hp_device_describe(const struct hp_device *dev, char *buf, size_t len);
/* See hp_device_ops.time_batch; -ENOTSUP when the kind cannot. */
int hp_device_time_batch(struct hp_device *dev, unsigned int task,
			 struct rte_mbuf **pkts, uint32_t n, uint64_t *cycles);

/* The device's loop (see hp_device_ops): start on the polling lcore, a
 * pass, and the request to finish. */
static inline void
hp_device_start(struct hp_device *dev)
{
	dev->ops->start(dev);
}

static inline int
hp_device_poll(struct hp_device *dev)
{
	return dev->ops->poll(dev);
}

static inline void
hp_device_quit(struct hp_device *dev)
{
	__atomic_store_n(&dev->quit, 1, __ATOMIC_RELEASE);
}

/* Whether the device failed (it takes no new packets then). */
static inline bool
hp_device_failed(const struct hp_device *dev)
{
	return __atomic_load_n(&dev->failed, __ATOMIC_ACQUIRE) != 0;
}

/* Whether task k of the joint chain is the packet's to run here: at or
 * after its step, before its app's end. */
static inline bool
hp_dev_runs(const struct hp_device *dev, const struct hp_meta *md, unsigned int k)
{
	return md->step <= k && k < dev->env->app_end[md->app];
}

/* Runs dev's chain on the CPU task contexts (process, t_work/t_done,
 * overhead 2); shared by the cpu kind, modeled results and fallback.
 * Each packet runs from its md->step to the end of the chain, or only
 * that one task with granularity task; md->step advances. n <= HP_BURST. */
void hp_device_run_chain(struct hp_device *dev, struct rte_mbuf **pkts,
			 uint16_t n, uint64_t t0);

/* Output staging into the completion rings, each packet to its owner's
 * (hp_meta owner) when there are several; the rest stays staged. Returns
 * how many went. With one ring it is the staging's flush as before. */
uint32_t hp_device_flush_routed(struct hp_device *dev);

static inline uint32_t
hp_device_flush_out(struct hp_device *dev)
{
	if (likely(dev->n_out <= 1))
		return hp_staging_flush_ring(&dev->ost, dev->out);
	return hp_device_flush_routed(dev);
}

/* Resets the stats when the pipeline's epoch moved; returns true then. */
bool hp_device_epoch(struct hp_device *dev);

#endif /* HP_DEVICE_H */
