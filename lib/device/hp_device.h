/* SPDX-License-Identifier: BSD-3-Clause
 * The device ops table (DESIGN.md §2-3): where an app's chain runs. A device
 * has a queue in (an rte_ring the scheduler fills), completions out (an
 * rte_ring the scheduler drains), capabilities, a service-time model and
 * statistics. The pipeline and the schedulers see only struct hp_device;
 * what runs behind it is the device kind:
 *   cpu    a worker lcore running the chain packet burst by packet burst
 *   batch  a "GPU worker" lcore that aggregates batches (hp_batch.h) and
 *          hands them to an accelerator backend (struct hp_accel_ops):
 *            model:PROFILE  timing from a profile, results computed with
 *                           the CPU implementations (always "(modeled)")
 *            cuda           the CUDA plugin (gpu/, loaded with dlopen)
 * Adding a device kind or backend = one file + one registration line.
 */
#ifndef HP_DEVICE_H
#define HP_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "hp_batch.h"
#include "hp_load.h"
#include "hp_stage.h"
#include "hp_task.h"

#define HP_DEV_NAMELEN 48
#define HP_DEV_POLL_DONE (-1)	/* poll: quit, and everything is out */

/* What the pipeline shares with every device loop. */
struct hp_dev_env {
	const int *epoch;        /* counters restart when this changes */
	unsigned int burst;
	int idle_yield;
	uint64_t hz;
	const struct hp_app *app;
	const struct hp_task_ops *tasks[HP_MAX_TASKS];
	const struct hp_task_cfg *task_cfg;
	/* Granularity task (thesis C2): a device runs only task md->step of
	 * each packet and advances it; chain: the whole chain. */
	bool task_gran;
};

struct hp_dev_caps {
	uint32_t max_batch_pkts;   /* 1 for a packet-by-packet device */
	uint32_t max_batch_bytes;  /* 0: no byte limit */
	uint32_t min_batch_pkts;
	uint32_t copy_engines;     /* 0 when data is not copied (CPU, modeled) */
	uint32_t streams;
	bool modeled;              /* timings come from a profile, not a device */
	bool one_task;             /* can run a single task of a chain (md->step) */
	/* modeled power (profile "power"): watts idle and fully busy; only
	 * modeled devices with busy > 0 have a power model */
	double power_idle_w, power_busy_w;
	char mem_kind[24];         /* "host", "pinned+device", ... */
};

/* Per-device counters, owned by the device lcore and read relaxed. */
struct hp_dev_stats {
	uint64_t pkts, bytes;
	uint64_t busy_cycles, total_cycles;
	uint64_t oh2_cycles;       /* hops between tasks of a chain */
	uint64_t batches, batch_pkts;
	uint64_t flush[HP_FLUSH_REASONS];
	uint64_t fallback_pkts;    /* done on the CPU path after a failure */
	uint64_t model_cycles;     /* modeled service time, summed over batches */
};

struct hp_device;
struct hp_accel;

struct hp_device_ops {
	const char *kind;
	const char *desc;
	/* Sets up the device from "kind[:arg]"; 0 or -errno with err set. */
	int (*init)(struct hp_device *dev, const char *arg, char *err,
		    size_t errlen);
	void (*fini)(struct hp_device *dev);
	/* The device's lcore loop: in -> chain -> out until quit is set and
	 * nothing is left inside. hp_device_main for kinds with start and
	 * poll: start, then poll over and over, pausing when a pass found
	 * nothing. */
	int (*main)(struct hp_device *dev);
	/* The same loop as a service (--stages-as-services, lib/svc): start
	 * once before the first pass, then one pass per poll call, from any
	 * one lcore at a time. poll returns the items it handled, 0 when it
	 * found nothing, HP_DEV_POLL_DONE once quit is set and nothing is
	 * left inside. No packet is held between passes except in the
	 * device's own state (staging, open batches). */
	void (*start)(struct hp_device *dev);
	int (*poll)(struct hp_device *dev);
	/* Predicted service time in TSC cycles of n packets of bytes total,
	 * for one task of the chain (task < n_tasks) or the whole chain
	 * (task == HP_MAX_TASKS). */
	uint64_t (*predict)(const struct hp_device *dev, unsigned int task,
			    uint32_t n, uint32_t bytes);
};

struct hp_device {
	const struct hp_device_ops *ops;
	const struct hp_dev_env *env;
	char name[HP_DEV_NAMELEN];
	unsigned int idx;
	unsigned int lcore;
	struct rte_ring *in;       /* scheduler -> device */
	struct rte_ring *out;      /* device -> scheduler */
	struct hp_dev_caps caps;
	/* CPU task contexts: the cpu kind runs on them; batch devices use
	 * them for modeled results and as the fallback path. */
	unsigned int n_tasks;
	struct hp_task_ctx ctx[HP_MAX_TASKS];
	struct hp_stage ost;       /* output staging (never drops) */
	struct hp_batch_cfg bcfg;  /* batch devices */
	uint64_t fail_after;       /* fault injection: fail after n packets */
	double time_scale;         /* modeled devices: service times x this */
	uint32_t max_inflight;     /* batches inside the backend (0: its own) */
	int quit;
	int epoch_seen;
	int failed;                /* set once; the scheduler stops picking it */
	double failed_at_s;
	char fail_reason[160];
	struct hp_dev_stats st;
	struct hp_load load;       /* the loop's load counters (lib/load) */
	struct hp_accel *accel;
	void *priv;
} __rte_cache_aligned;

int hp_device_register(const struct hp_device_ops *ops);
const struct hp_device_ops *hp_device_find(const char *kind);
const struct hp_device_ops *hp_device_at(unsigned int i);

#define HP_DEVICE_REGISTER(ops) \
	RTE_INIT(hp_dev_reg_ ## ops) { hp_device_register(&(ops)); }

/* Creates a device from a spec: "cpu", "model:PROFILE[,opt=v...]",
 * "cuda[,opt=v...]". Batch options: batch=N, min_batch=N, max_bytes=N,
 * timeout_us=T, adapt=0|1, fail_after=N, inflight=N (batches inside the
 * backend at once), scale=F (modeled devices: every service time x F, to
 * run a modeled platform slower than the profile on a small machine). */
int hp_device_create(struct hp_device *dev, const char *spec,
		     const struct hp_dev_env *env, unsigned int idx,
		     char *err, size_t errlen);
void hp_device_destroy(struct hp_device *dev);

/* Runs dev's chain on the CPU task contexts (process, t_work/t_done,
 * overhead 2); shared by the cpu kind, modeled results and fallback.
 * Each packet runs from its md->step to the end of the chain, or only
 * that one task with granularity task; md->step advances. n <= HP_BURST. */
void hp_device_run_chain(struct hp_device *dev, struct rte_mbuf **pkts,
			 uint16_t n, uint64_t t0);

/* Resets the stats when the pipeline's epoch moved; returns true then. */
bool hp_device_epoch(struct hp_device *dev);

/* Idle pause of a polling loop (yields the CPU after a while when asked). */
void hp_device_idle(const struct hp_device *dev, unsigned int *idle_polls);

/* The lcore loop of a kind with start and poll ops (its .main): start,
 * then poll until HP_DEV_POLL_DONE, pausing after a pass with nothing. */
int hp_device_main(struct hp_device *dev);

/* ---- accelerator backends behind the batch device ---- */

/* One batch in flight. */
struct hp_batch_job {
	struct rte_mbuf *pkts[HP_BATCH_MAX];
	uint32_t n;
	uint32_t bytes;
	uint64_t t_submit;
	uint64_t t_ready;          /* modeled completion time (model backend) */
	int slot;                  /* backend's stream / slot index */
	/* packets and frame bytes by the task they run (md->step), for
	 * granularity task where one batch may mix steps */
	uint32_t task_n[HP_MAX_TASKS];
	uint32_t task_bytes[HP_MAX_TASKS];
};

/* Predicted service time (cycles) of a job: the whole chain of its
 * packets, or with granularity task the sum over the tasks it holds. */
uint64_t hp_batch_job_service(const struct hp_device *dev,
			      const struct hp_batch_job *job);

struct hp_accel_ops {
	const char *name;
	const char *desc;
	/* Optional: whether the backend can run task t (the cuda plugin: a
	 * kernel is registered under t's offload name); open refuses a chain
	 * with a task it does not support. NULL: any task. */
	bool (*supports)(const struct hp_task_ops *t);
	/* Opens the backend for dev's chain; checks every task of the chain
	 * has an implementation here and says which one does not. Fills
	 * dev->caps (batch limits, copy engines, memory kind). */
	int (*open)(struct hp_device *dev, const char *arg, char *err,
		    size_t errlen);
	void (*close)(struct hp_device *dev);
	/* Starts a batch; 0, -EBUSY (no free slot: try later) or another
	 * -errno (device failure: the caller falls back to the CPU). */
	int (*submit)(struct hp_device *dev, struct hp_batch_job *job);
	/* Returns a finished job (results written back into the mbufs),
	 * NULL when none is ready; *err set to -errno on device failure. */
	struct hp_batch_job *(*poll)(struct hp_device *dev, int *err);
	/* Jobs still inside the device (handed back by fail()). */
	unsigned int (*inflight)(const struct hp_device *dev);
	/* After a failure: hands every unfinished job back, in submit
	 * order, so the caller completes them on the CPU. */
	struct hp_batch_job *(*reclaim)(struct hp_device *dev);
	uint64_t (*predict)(const struct hp_device *dev, unsigned int task,
			    uint32_t n, uint32_t bytes);
	/* One line describing the device (GPU model, versions, engines). */
	void (*describe)(const struct hp_device *dev, char *buf, size_t len);
};

struct hp_accel {
	const struct hp_accel_ops *ops;
	void *priv;
};

int hp_accel_register(const struct hp_accel_ops *ops);
const struct hp_accel_ops *hp_accel_find(const char *name);

#define HP_ACCEL_REGISTER(ops) \
	RTE_INIT(hp_accel_reg_ ## ops) { hp_accel_register(&(ops)); }

#endif /* HP_DEVICE_H */
