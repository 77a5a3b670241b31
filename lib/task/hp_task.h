/* SPDX-License-Identifier: BSD-3-Clause
 * The task ops table: one network function (AES-CTR, MD5, DPI, ...) with a
 * batch entry point that devices call, and a reference path that the sink
 * uses to verify what the batch path did. Each task is one folder,
 * lib/task/<name>/, with its struct hp_task_ops and HP_TASK_REGISTER()
 * line, and its kernel if it offloads (docs/architecture.md, "Adding a
 * task"); apps are in hp_apps.c.
 */
#ifndef HP_TASK_H
#define HP_TASK_H

#include <stddef.h>
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
	/* The tx port's checksum offloads (HP_PKT_TX_CKSUM_OFFLOADS bits it
	 * has enabled; 0: none), for hp_pkt_l4_fixup. */
	uint64_t tx_offload;
};

struct hp_task_ops;

/* ---- offload: a task's core transform run by an accelerator ----
 * An accelerator (the cuda device) runs a kernel that the task names
 * (hp_task_ops.offload); the task keeps everything else (keys, IVs,
 * padding, headers, where results go), so the packets come out
 * byte-identical to process(). */

/* One packet's kernel arguments, filled by offload_prep. */
struct hp_offload {
	uint8_t key[16];
	uint8_t iv[16];
	uint32_t in_len;   /* bytes the task wrote into the staging */
	uint32_t aux;      /* task-private (e.g. padding added) */
	/* prep with no staging (offload_in_place): where the in_len bytes
	 * are, in the packet's mbuf, for the accelerator to read in place */
	const uint8_t *src;
	/* ... and where the kernel's output goes in place (the payload for
	 * a cipher, the metadata field for a digest or a match record), so
	 * the accelerator writes it there itself; NULL: back through
	 * offload_done's copy */
	uint8_t *dst;
	/* with dst, set before done for a kernel that changes the data: the
	 * ones' complement sum of the bytes it wrote there (RFC 1071, the
	 * data's byte order from dst, folded), for hp_pkt_l4_fixup_sum */
	uint16_t out_sum;
};

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
	 * into meta (res32, digest, ...). A task that changes the L4 payload
	 * (or its length) leaves the packet's headers right before it
	 * returns, with hp_pkt_l4_fixup (lengths, IPv4 and UDP/TCP checksums
	 * or the tx port's offload flags): the payload is still in its
	 * core's cache there, and every device kind runs either process or
	 * offload_done (which does the same). A packet the task cannot
	 * handle gets meta->status = HP_ST_TASK_ERR and a task_err code (the
	 * scheduler drops it with reason task_error); it is never freed
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
	/* Optional: writes the data region of a generated packet so that the
	 * task has real work and the sink can check its result (LDPC
	 * codewords from known info bits, payloads with planted patterns).
	 * Only the first task of an app's chain is asked. Runs on the
	 * generator's lcore with a context of its own (made by ctx_init with
	 * the run's cfg). gen_id: the packet's index, whose low 32 bits go
	 * into hp_app_hdr.gen_id; size: the frame size drawn from the IMIX;
	 * hdr_len: bytes of headers in front of the body; room: bytes the
	 * body may take (at least size - hdr_len). Returns the body length
	 * written, 0..room; the frame becomes hdr_len + that. The body must
	 * follow from ctx->cfg and the low 32 bits of gen_id alone, so that
	 * verify can rebuild what was sent. */
	uint32_t (*gen_body)(struct hp_task_ctx *ctx, uint64_t gen_id,
			     uint32_t size, uint32_t hdr_len, uint8_t *body,
			     uint32_t room);
	/* Optional: the option names the task reads from cfg->param,
	 * comma-separated ("engine,patterns"), and a check of their values
	 * that needs no context, so a CLI can reject bad input before start
	 * (0, or -EINVAL with a one-line reason in err). */
	const char *params;
	int (*param_check)(const char *param, char *err, size_t errlen);
	/* Optional offload: the name of the accelerator kernel that does the
	 * task's core transform ("aes_ctr", "md5", ...: an accelerator looks
	 * it up by this name; NULL: none). prep: does what process() does
	 * before the transform, without changing the packet (a failed
	 * accelerator batch is redone by process() from scratch), writes the
	 * kernel's input into stage (room bytes) and the arguments into o.
	 * Returns 0, 1 when the packet needs no transform (nothing to do), or
	 * -errno after setting the packet's status as process() would. done:
	 * puts the kernel's output (the transformed bytes, or the result
	 * record) into the packet as process() would have. data: the table
	 * the kernel reads (the DFA, the LDPC code), as one flat blob of *len
	 * bytes with offsets instead of pointers, uploaded once as it is; its
	 * format is the task's and its kernel's (defined in the task's
	 * folder). NULL when the kernel needs none. */
	const char *offload;
	/* prep accepts stage == NULL: it then copies nothing and points
	 * o->src at the in_len bytes of the packet's first segment it would
	 * have copied (the kernel reads them as they are), so the
	 * accelerator reads the packet in place (zero copy); it may also
	 * point o->dst where the output belongs, and offload_done is then
	 * called with out NULL once the accelerator wrote it there (done
	 * does only the rest: headers, checksums). */
	bool offload_in_place;
	int (*offload_prep)(struct hp_task_ctx *ctx, struct rte_mbuf *m,
			    struct hp_offload *o, uint8_t *stage, uint32_t room);
	void (*offload_done)(struct hp_task_ctx *ctx, struct rte_mbuf *m,
			     const struct hp_offload *o, const uint8_t *out);
	const void *(*offload_data)(struct hp_task_ctx *ctx, size_t *len);
	/* Optional: zeroes what the context has counted so far (the counts
	 * ctx_free logs), at the start of the measured phase, so that the
	 * capacity calibration before it is not counted. */
	void (*ctx_reset)(struct hp_task_ctx *ctx);
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

/* ---- generator bodies and task options of an app ---- */

/* The context, among an app's chain contexts ctx[0..n_tasks), whose task
 * writes generated bodies (the first task, if it has gen_body), or NULL. */
struct hp_task_ctx *hp_app_body_ctx(const struct hp_app *app,
				    struct hp_task_ctx *ctx);
/* gen_body of the context arg (a struct hp_task_ctx *) in the shape of
 * hp_gen_body_fn (hp_gen.h), for hp_gen_set_body(). */
uint32_t hp_task_gen_body(void *arg, uint64_t gen_id, uint32_t size,
			  uint32_t hdr_len, uint8_t *body, uint32_t room);
/* Sets ctx up as a generator's body writer for task ops (its context made
 * with cfg), for hp_gen_set_body(g, hp_task_gen_body, ctx). Returns 1 when
 * set up (free it with ops->ctx_free), 0 when the task writes no bodies
 * (ctx->ops is then NULL), or the -errno of its ctx_init. */
int hp_task_body_init(struct hp_task_ctx *ctx, const struct hp_task_ops *ops,
		      const struct hp_task_cfg *cfg);
/* Checks a --param string for an app: comma-separated name=value items,
 * each name read by some task of the chain, each value accepted by that
 * task's param_check. 0 or -EINVAL with a one-line reason in err. */
int hp_app_param_check(const struct hp_app *app, const char *param,
		       char *err, size_t errlen);
/* Looks up "name=" in a --param string and copies its value into val:
 * 1 when found, 0 when not (or param is NULL), -E2BIG when the value does
 * not fit vlen bytes with its NUL. */
int hp_task_opt_get(const char *param, const char *name, char *val,
		    size_t vlen);

/* ---- helpers for task code ---- */

/* Marks a packet the task cannot handle (process() and offload_prep). */
static inline void
hp_task_fail(struct hp_meta *md, int err)
{
	md->status = HP_ST_TASK_ERR;
	md->task_err = (uint8_t)err;
}

/* The same for a security task (encryption): a packet it refuses would
 * have left in clear text, so its drop breaks the run's invariants. */
static inline void
hp_task_fail_secure(struct hp_meta *md, int err)
{
	hp_task_fail(md, err);
	md->sec_err = 1;
}

/* Takes the next packets of pkts[*i..n) that are still fine (status
 * OK), at most HP_BURST, checking that their data region lies in the
 * first segment (else the packet fails with EINVAL): the mbufs into m,
 * their data regions into data and len. *i moves past what was looked
 * at. Returns how many were taken. */
unsigned int hp_task_burst(struct rte_mbuf **pkts, uint16_t n, uint16_t *i,
			   struct rte_mbuf **m, const uint8_t **data,
			   uint32_t *len);

/* offload_prep of a task whose kernel reads the data region as it is
 * (md5, dpi): process()'s checks, then the region into the staging, or
 * with stage NULL its address into o->src (offload_in_place). */
int hp_task_offload_copy_in(struct hp_task_ctx *ctx, struct rte_mbuf *m,
			    struct hp_offload *o, uint8_t *stage, uint32_t room);

/* Rejects --param items whose name is not in known (NULL-terminated), so
 * a typo is an error: 0 or -EINVAL (logged, naming task). */
int hp_task_opt_check(const char *task, const char *param,
		      const char *const *known);

/* One option whose value is one of words (NULL-terminated, at least one):
 * 0 when absent (val untouched) or valid (copied into val), -EINVAL with
 * a one-line reason in err otherwise. */
int hp_task_opt_word(const char *task, const char *param, const char *name,
		     const char *const *words, char *val, size_t vlen,
		     char *err, size_t errlen);

#endif /* HP_TASK_H */
