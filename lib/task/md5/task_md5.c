/* SPDX-License-Identifier: BSD-3-Clause
 * The md5 task (app dedup): the MD5 digest of the data region into the
 * packet's metadata, through lib/nf's own AVX-512/AVX2 multi-buffer MD5
 * (OpenSSL for small calls and as the reference), and its offload to the
 * md5 kernel (md5.cu). Task parameters: docs/nf.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_nf.h"
#include "hp_task.h"

static int
md5_param_check(const char *param, char *err, size_t errlen)
{
	static const char *const impls[] = { "mb", "ref", NULL };
	char v[16];

	return hp_task_opt_word("md5", param, "impl", impls, v, sizeof(v), err, errlen);
}

/* Below this many packets in a call, OpenSSL's scalar MD5 beats lanes
 * that would mostly hash the idle block (bench/tasks: one message alone on
 * 16 lanes runs at ~0.8x OpenSSL; a batch of 32 at ~7-10x). */
#define MD5_MB_MIN 4

struct md5_priv {
	int ref_only; /* impl=ref */
	struct hp_nf_md5_job jobs[HP_BURST];
	struct rte_mbuf *m[HP_BURST];
	const uint8_t *data[HP_BURST];
	uint32_t len[HP_BURST];
};

static int
md5_init(struct hp_task_ctx *ctx)
{
	static const char *const known[] = { "impl", NULL };
	struct md5_priv *p;
	char impl[16] = "mb";

	if (hp_task_opt_check("md5", ctx->cfg->param, known) != 0 ||
	    hp_task_opt_get(ctx->cfg->param, "impl", impl, sizeof(impl)) < 0 ||
	    (strcmp(impl, "mb") != 0 && strcmp(impl, "ref") != 0)) {
		HP_LOG(ERR, "md5: --param impl=mb|ref");
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->ref_only = strcmp(impl, "ref") == 0 || hp_nf_md5_mb_lanes() == 0;
	ctx->priv = p;
	return 0;
}

static void
md5_free(struct hp_task_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

static uint16_t
md5_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct md5_priv *p = ctx->priv;
	uint16_t i = 0;

	while (i < n) {
		unsigned int k = hp_task_burst(pkts, n, &i, p->m, p->data, p->len);

		for (unsigned int j = 0; j < k; j++)
			p->jobs[j] = (struct hp_nf_md5_job){ .data = p->data[j],
				.len = p->len[j], .digest = hp_meta(p->m[j])->digest };
		if (p->ref_only || k < MD5_MB_MIN) {
			for (unsigned int j = 0; j < k; j++)
				hp_nf_md5_ref(p->jobs[j].data, p->jobs[j].len,
					      p->jobs[j].digest);
		} else {
			hp_nf_md5_mb(p->jobs, k);
		}
	}
	return n;
}

static int
md5_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	   uint32_t *len)
{
	uint8_t d[16];

	if (hp_nf_md5_ref(buf, *len, d) != 0)
		return -ENOTSUP;
	return memcmp(d, hp_meta(m)->digest, 16) == 0 ? 0 : -EBADMSG;
}

/* hp_task_offload_copy_in, and in place the digest's home in the
 * metadata, where the accelerator writes it itself. */
static int
md5_offload_prep(struct hp_task_ctx *ctx, struct rte_mbuf *m, struct hp_offload *o,
		 uint8_t *stage, uint32_t room)
{
	int ret = hp_task_offload_copy_in(ctx, m, o, stage, room);

	if (ret == 0 && stage == NULL)
		o->dst = hp_meta(m)->digest;
	return ret;
}

/* out NULL: the accelerator already wrote the digest (o->dst). */
static void
md5_offload_done(struct hp_task_ctx *ctx, struct rte_mbuf *m, const struct hp_offload *o,
		 const uint8_t *out)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(o);
	if (out != NULL)
		memcpy(hp_meta(m)->digest, out, 16);
}

static const struct hp_task_ops task_md5 = {
	.name = "md5",
	.desc = "MD5 of the data region into meta digest (own AVX-512/AVX2 multi-buffer; --param impl=mb|ref)",
	.ctx_init = md5_init,
	.ctx_free = md5_free,
	.process = md5_process,
	.verify = md5_verify,
	.offload = "md5",
	.offload_in_place = true,
	.offload_prep = md5_offload_prep,
	.offload_done = md5_offload_done,
	.params = "impl",
	.param_check = md5_param_check,
};
HP_TASK_REGISTER(task_md5)
