/* SPDX-License-Identifier: BSD-3-Clause
 * The `ldpc` task and the `ran` app (LDPC decode, then AES-128-CTR;
 * Johansson & Pap §4.1/§4.3). The data region holds 243-byte units, each
 * the hard decisions of one IEEE 802.11n n=1944 R=1/2 codeword (the
 * thesis IMIX: 1, 2 or 6 units); each becomes its decoded info bits plus
 * the list of corrected bit positions (format in hp_ldpc.h), so the
 * sink's reference path can rebuild the received bytes exactly. All units
 * of a burst go through the decoder in one call, so the 32/64 SIMD lanes
 * fill even with one codeword per packet. Traffic that should decode is
 * made with hp_ldpc_unit_gen().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "hp_common.h"
#include "hp_ldpc.h"
#include "hp_task.h"

/* Units decoded per decoder call; a burst with more is split. */
#define LDPC_TASK_UNITS 256

struct ldpc_priv {
	struct hp_ldpc_code *code;
	struct hp_ldpc_dec *dec;
	void *scratch;
};

static void
ldpc_free(struct hp_task_ctx *ctx)
{
	struct ldpc_priv *p = ctx->priv;

	if (p == NULL)
		return;
	rte_free(p->scratch);
	hp_ldpc_dec_free(p->dec);
	hp_ldpc_code_free(p->code);
	free(p);
	ctx->priv = NULL;
}

static int
ldpc_init(struct hp_task_ctx *ctx)
{
	struct hp_ldpc_dec_cfg cfg;
	struct ldpc_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (p == NULL)
		return -ENOMEM;
	ctx->priv = p;
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.max_iter = 20;
	rc = hp_ldpc_code_create(HP_LDPC_UNIT_CODE, &p->code);
	if (rc == 0)
		rc = hp_ldpc_dec_create(p->code, &cfg, &p->dec);
	if (rc == 0) {
		p->scratch = rte_malloc_socket("hp_ldpc", hp_ldpc_units_scratch(p->dec,
					       LDPC_TASK_UNITS), 64, ctx->cfg->socket);
		if (p->scratch == NULL)
			rc = -ENOMEM;
	}
	if (rc < 0) {
		HP_LOG(ERR, "ldpc: decoder set-up failed: %s", strerror(-rc));
		ldpc_free(ctx);
	}
	return rc;
}

static void
flush(struct ldpc_priv *p, struct rte_mbuf **pk, uint8_t **bodies,
      uint32_t *lens, unsigned int n)
{
	uint8_t ok[RTE_MAX(LDPC_TASK_UNITS, 64)];
	unsigned int i;
	int rc;

	if (n == 0)
		return;
	rc = hp_ldpc_units_decode(p->dec, bodies, lens, n, ok, p->scratch);
	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pk[i]);

		if (rc >= 0 && ok[i]) {
			md->res32 = lens[i] / HP_LDPC_UNIT_LEN;
			continue;
		}
		md->res32 = 0;
		md->status = HP_ST_TASK_ERR;
		md->task_err = rc < 0 ? (uint16_t)-rc : EBADMSG;
	}
}

static uint16_t
ldpc_process(struct hp_task_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ldpc_priv *p = ctx->priv;
	struct rte_mbuf *pk[LDPC_TASK_UNITS];
	uint8_t *bodies[LDPC_TASK_UNITS];
	uint32_t lens[LDPC_TASK_UNITS];
	unsigned int i, np = 0, units = 0;

	for (i = 0; i < n; i++) {
		struct hp_meta *md = hp_meta(pkts[i]);
		unsigned int nu = md->data_len / HP_LDPC_UNIT_LEN;

		if (nu == 0 || nu > LDPC_TASK_UNITS) {
			md->res32 = 0;
			md->status = HP_ST_TASK_ERR;
			md->task_err = EMSGSIZE;
			continue;
		}
		if (units + nu > LDPC_TASK_UNITS || np == LDPC_TASK_UNITS) {
			flush(p, pk, bodies, lens, np);
			np = units = 0;
		}
		pk[np] = pkts[i];
		bodies[np] = rte_pktmbuf_mtod_offset(pkts[i], uint8_t *, md->data_off);
		lens[np] = md->data_len;
		np++;
		units += nu;
	}
	flush(p, pk, bodies, lens, np);
	return n;
}

/* Reference path: re-encode the info bits (the encoder, not the decoder
 * that produced them) and flip the listed positions back. */
static int
ldpc_verify(struct hp_task_ctx *ctx, struct rte_mbuf *m, uint8_t *buf,
	    uint32_t *len)
{
	struct ldpc_priv *p = ctx->priv;
	struct hp_meta *md = hp_meta(m);

	if (md->res32 == 0)
		return 0;  /* left unchanged (counted as a task error) */
	if (md->res32 != *len / HP_LDPC_UNIT_LEN)
		return -EBADMSG;
	return hp_ldpc_units_restore(p->code, buf, *len) == 0 ? 0 : -EBADMSG;
}

static const struct hp_task_ops task_ldpc = {
	.name = "ldpc",
	.desc = "LDPC decode of 243-byte units (802.11n n=1944 R=1/2, layered min-sum, SIMD)",
	.ctx_init = ldpc_init,
	.ctx_free = ldpc_free,
	.process = ldpc_process,
	.verify = ldpc_verify,
};
HP_TASK_REGISTER(task_ldpc)

static const struct hp_app app_ran = {
	.name = "ran",
	.desc = "LDPC decode then AES-128-CTR (thesis baseband + crypto chain)",
	.n_tasks = 2,
	.tasks = { "ldpc", "aes_ctr" },
};
HP_APP_REGISTER(app_ran)
