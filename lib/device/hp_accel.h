/* SPDX-License-Identifier: BSD-3-Clause
 * Accelerator backends behind the batch device kind (dev_batch.c): the
 * batch kind aggregates packets into jobs, a backend runs them. Each
 * registered backend is a device kind of its own name ("model", "cuda");
 * adding one = one file + HP_ACCEL_REGISTER.
 */
#ifndef HP_ACCEL_H
#define HP_ACCEL_H

#include <stdint.h>

#include "hp_device.h"

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

struct hp_accel_ops {
	const char *name;          /* the device kind it makes: "model", "cuda" */
	const char *usage;         /* how a spec names it ("model:PROFILE"); NULL: name */
	const char *desc;
	/* Optional: whether the backend can run task t (the cuda plugin: a
	 * kernel is registered under t's offload name); open refuses a chain
	 * with a task it does not support. NULL: any task. */
	bool (*supports)(const struct hp_task_ops *t);
	/* Optional, before EAL starts: checks the spec's argument and may
	 * keep what it read for the open that follows (hp_device_check). */
	int (*check)(const char *arg, char *err, size_t errlen);
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

/* Makes ops a device kind named ops->name, served by the batch kind. */
int hp_accel_register(const struct hp_accel_ops *ops);

#define HP_ACCEL_REGISTER(ops) \
	RTE_INIT(hp_accel_reg_ ## ops) { hp_accel_register(&(ops)); }

/* The backend's own state on a batch device (NULL until it sets it). */
void *hp_accel_priv(const struct hp_device *dev);
void hp_accel_set_priv(struct hp_device *dev, void *priv);
/* The device's scale=F option: modeled service times x F. */
double hp_accel_time_scale(const struct hp_device *dev);

/* Predicted service time (cycles) of a job: the whole chain of its
 * packets, or with granularity task the sum over the tasks it holds. */
uint64_t hp_batch_job_service(const struct hp_device *dev,
			      const struct hp_batch_job *job);

#endif /* HP_ACCEL_H */
