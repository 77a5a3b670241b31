/* SPDX-License-Identifier: BSD-3-Clause
 * Verification of delivered packets: undo the chain with each task's
 * reference path (its verify op, independent of the one that ran), then
 * compare with the CRC32C tag the sender put in the app header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_priv.h"

int
pl_ctx_init_chain(struct pl_run *r, struct hp_task_ctx *ctx, char *err, size_t errlen)
{
	unsigned int k;
	int ret;

	for (k = 0; k < r->app->n_tasks; k++) {
		ctx[k].ops = r->tasks[k];
		ctx[k].cfg = &r->cfg->task;
		ctx[k].priv = NULL;
		if (ctx[k].ops->ctx_init == NULL)
			continue;
		ret = ctx[k].ops->ctx_init(&ctx[k]);
		if (ret < 0) {
			snprintf(err, errlen, "task %s: set-up failed: %s",
				 ctx[k].ops->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

void
pl_ctx_free_chain(struct hp_task_ctx *ctx, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (ctx[k].ops != NULL && ctx[k].ops->ctx_free != NULL)
			ctx[k].ops->ctx_free(&ctx[k]);
}

int
pl_verify_init(struct pl_verify *v, struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_app_mix *mx = &r->cfg->mix;
	unsigned int a;

	v->n_tasks = r->app->n_tasks;
	v->first[0] = 0;
	v->end[0] = (uint8_t)v->n_tasks;
	for (a = 0; mx->n > 1 && a < mx->n; a++) {
		v->first[a] = (uint8_t)mx->first[a];
		v->end[a] = (uint8_t)(mx->first[a] + mx->app[a]->n_tasks);
	}
	v->scratch = malloc(HP_VERIFY_BUF);
	if (v->scratch == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return pl_ctx_init_chain(r, v->vctx, err, errlen);
}

void
pl_verify_free(struct pl_verify *v)
{
	pl_ctx_free_chain(v->vctx, v->n_tasks);
	free(v->scratch);
	v->scratch = NULL;
}

/* The start of the measured phase: the run's counts and the tasks' own
 * (their log lines at the end) leave the calibration out. */
void
pl_verify_reset(struct pl_verify *v)
{
	unsigned int k;

	v->verified = v->fail = v->unverified = v->task_err = 0;
	memset(v->app_ok, 0, sizeof(v->app_ok));
	memset(v->app_fail, 0, sizeof(v->app_fail));
	memset(v->app_unver, 0, sizeof(v->app_unver));
	for (k = 0; k < v->n_tasks; k++)
		if (v->vctx[k].ops != NULL && v->vctx[k].ops->ctx_reset != NULL)
			v->vctx[k].ops->ctx_reset(&v->vctx[k]);
}

void
pl_verify(struct pl_verify *v, struct rte_mbuf *m)
{
	struct hp_meta *md = hp_meta(m);
	const struct hp_app_hdr *h;
	uint32_t len;
	int k;

	if (!(md->flags & HP_MF_HPHDR)) {
		v->unverified++;
		v->app_unver[md->app]++;
		return;
	}
	if (md->status != HP_ST_OK) {
		v->task_err++;
		v->fail++;
		v->app_fail[md->app]++;
		return;
	}
	len = md->data_len;
	if (len > HP_VERIFY_BUF) {
		v->unverified++;
		v->app_unver[md->app]++;
		return;
	}
	memcpy(v->scratch, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), len);
	/* its app's part of the chain, backwards (one app: the chain) */
	for (k = (int)v->end[md->app] - 1; k >= (int)v->first[md->app]; k--) {
		int ret = v->vctx[k].ops->verify ?
			v->vctx[k].ops->verify(&v->vctx[k], m, v->scratch, &len) : -ENOTSUP;

		if (ret == -ENOTSUP) {
			v->unverified++;
			v->app_unver[md->app]++;
		v->app_unver[md->app]++;
			return;
		}
		if (ret < 0) {
			v->fail++;
			v->app_fail[md->app]++;
			return;
		}
	}
	h = rte_pktmbuf_mtod_offset(m, const struct hp_app_hdr *, md->data_off - sizeof(*h));
	if (hp_crc32c(v->scratch, len) != rte_be_to_cpu_32(h->tag)) {
		v->fail++;
		v->app_fail[md->app]++;
	} else {
		v->verified++;
		v->app_ok[md->app]++;
	}
}
