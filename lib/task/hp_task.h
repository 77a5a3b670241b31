/* SPDX-License-Identifier: BSD-3-Clause
 * The task ops table: one network function (AES-CTR, MD5, DPI, ...) with a
 * batch entry point that devices call, and a reference path that the sink
 * uses to verify what the batch path did. Adding a task = one new file with
 * a struct hp_task_ops and one HP_TASK_REGISTER() line.
 */
#ifndef HP_TASK_H
#define HP_TASK_H

#include <stdint.h>
#include <rte_mbuf.h>

#include "hp_pkt.h"

#define HP_TASK_NAMELEN 32
#define HP_VERIFY_BUF 16384 /* largest data region the sink verifies */

/* Configuration shared by every task instance of a run. */
struct hp_task_cfg {
	uint8_t key[16];       /* master key (AES tasks derive per-flow keys) */
	const char *param;     /* task-specific option string (may be NULL) */
	unsigned int socket;   /* NUMA socket of the calling lcore */
};

struct hp_task_ops;

/* One instance per lcore (tasks keep per-lcore state: cipher contexts,
 * scratch buffers); never shared between threads. */
struct hp_task_ctx {
	const struct hp_task_ops *ops;
	const struct hp_task_cfg *cfg;
	void *priv;
};

struct hp_task_ops {
	const char *name;
	/* One-line description for --help / `hplane list`. */
	const char *desc;
	/* Creates per-lcore state in ctx->priv. 0 or -errno. */
	int (*ctx_init)(struct hp_task_ctx *ctx);
	void (*ctx_free)(struct hp_task_ctx *ctx);
	/* Runs the function on n packets in place. The data region of each
	 * packet is meta->data_off/data_len; results that are not payload go
	 * into meta (res32, digest, ...). A packet the task cannot handle gets
	 * meta->status = HP_ST_TASK_ERR and a task_err code; it is never freed
	 * here. Returns the number of packets processed (always n). */
	uint16_t (*process)(struct hp_task_ctx *ctx, struct rte_mbuf **pkts,
			    uint16_t n);
	/* Reference path for verification, run by the sink on a copy: buf
	 * holds the data region as the task left it (*len bytes, capacity at
	 * least HP_VERIFY_BUF) and must hold, on return, the data region as it
	 * was before the task (*len updated if the task changed the length).
	 * The reference must not share code with process() where a second
	 * implementation exists (e.g. OpenSSL EVP vs. a multi-buffer library).
	 * Returns 0 when the task's result is right, -EBADMSG when it is not,
	 * -ENOTSUP when it cannot be checked. */
	int (*verify)(struct hp_task_ctx *ctx, struct rte_mbuf *m,
		      uint8_t *buf, uint32_t *len);
};

int hp_task_register(const struct hp_task_ops *ops);
const struct hp_task_ops *hp_task_find(const char *name);
/* Iterates registered tasks: i = 0.. until NULL. */
const struct hp_task_ops *hp_task_at(unsigned int i);

#define HP_TASK_REGISTER(ops) \
	RTE_INIT(hp_task_reg_ ## ops) { hp_task_register(&(ops)); }

/* ---- apps: a named chain of tasks ---- */
struct hp_app {
	const char *name;
	const char *desc;
	unsigned int n_tasks;
	const char *tasks[HP_MAX_TASKS];
};

int hp_app_register(const struct hp_app *app);
const struct hp_app *hp_app_find(const char *name);
const struct hp_app *hp_app_at(unsigned int i);

#define HP_APP_REGISTER(app) \
	RTE_INIT(hp_app_reg_ ## app) { hp_app_register(&(app)); }

#endif /* HP_TASK_H */
