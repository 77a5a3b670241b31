/* SPDX-License-Identifier: BSD-3-Clause
 * LDPC decoder front end: configuration checks, run-time choice of the
 * kernel (AVX-512BW, AVX2, scalar via __builtin_cpu_supports), and the
 * batching that interleaves up to 64 codewords lane by lane and gathers
 * the decoded information bits back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_ldpc_priv.h"

struct hp_ldpc_dec {
	const struct hp_ldpc_code *c;
	struct hp_ldpc_dec_cfg cfg;
	enum hp_ldpc_isa isa;
	unsigned int W;
	int (*kern)(struct hp_ldpc_batch *b);
	int8_t *L, *R;
	size_t rbytes;
};

void
hp_ldpc_dec_cfg_default(struct hp_ldpc_dec_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_iter = 10;
	cfg->alg = HP_LDPC_NMS;
	cfg->nms_shift = 2;
	cfg->oms_offset = 1;
	cfg->isa = HP_LDPC_ISA_AUTO;
}

int
hp_ldpc_isa_supported(enum hp_ldpc_isa isa)
{
	switch (isa) {
	case HP_LDPC_ISA_AUTO:
	case HP_LDPC_ISA_SCALAR:
		return 1;
#if defined(__x86_64__) || defined(__i386__)
	case HP_LDPC_ISA_AVX2:
		return __builtin_cpu_supports("avx2");
	case HP_LDPC_ISA_AVX512:
		return __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512bw");
#endif
	default:
		return 0;
	}
}

int
hp_ldpc_dec_create(const struct hp_ldpc_code *c,
		   const struct hp_ldpc_dec_cfg *cfg, struct hp_ldpc_dec **out)
{
	struct hp_ldpc_dec *d;
	enum hp_ldpc_isa isa;

	if (c == NULL || cfg == NULL || out == NULL)
		return -EINVAL;
	*out = NULL;
	if (cfg->max_iter < 1 || cfg->max_iter > 255 ||
	    (cfg->alg != HP_LDPC_NMS && cfg->alg != HP_LDPC_OMS) ||
	    cfg->nms_shift < 1 || cfg->nms_shift > 7 ||
	    cfg->oms_offset > 15 || cfg->isa > HP_LDPC_ISA_AVX512)
		return -EINVAL;
	isa = cfg->isa;
	if (isa == HP_LDPC_ISA_AUTO)
		isa = hp_ldpc_isa_supported(HP_LDPC_ISA_AVX512) ? HP_LDPC_ISA_AVX512 :
		      hp_ldpc_isa_supported(HP_LDPC_ISA_AVX2) ? HP_LDPC_ISA_AVX2 :
		      HP_LDPC_ISA_SCALAR;
	if (!hp_ldpc_isa_supported(isa))
		return -ENOTSUP;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	d->c = c;
	d->cfg = *cfg;
	d->isa = isa;
	switch (isa) {
	case HP_LDPC_ISA_AVX512:
		d->W = 64;
		d->kern = hp_ldpc_kern_avx512;
		break;
	case HP_LDPC_ISA_AVX2:
		d->W = 32;
		d->kern = hp_ldpc_kern_avx2;
		break;
	default:
		d->W = 1;
		d->kern = hp_ldpc_kern_scalar;
		break;
	}
	d->rbytes = (size_t)c->nnz * c->z * d->W;
	/* 64-byte alignment: the kernels use aligned vector loads. */
	d->L = aligned_alloc(64, ((size_t)c->nb * c->z * d->W + 63) & ~(size_t)63);
	d->R = aligned_alloc(64, (d->rbytes + 63) & ~(size_t)63);
	if (d->L == NULL || d->R == NULL) {
		hp_ldpc_dec_free(d);
		return -ENOMEM;
	}
	*out = d;
	return 0;
}

void
hp_ldpc_dec_free(struct hp_ldpc_dec *d)
{
	if (d == NULL)
		return;
	free(d->L);
	free(d->R);
	free(d);
}

unsigned int
hp_ldpc_dec_lanes(const struct hp_ldpc_dec *d) { return d->W; }

const char *
hp_ldpc_dec_isa(const struct hp_ldpc_dec *d)
{
	return d->isa == HP_LDPC_ISA_AVX512 ? "avx512" :
	       d->isa == HP_LDPC_ISA_AVX2 ? "avx2" : "scalar";
}

void
hp_ldpc_extract(struct hp_ldpc_batch *b, unsigned int W, unsigned int lane,
		unsigned int iters, int ok)
{
	unsigned int k = b->c->kb * b->c->z, j;
	const int8_t *L = b->L + lane;
	uint8_t *out = b->info[lane];

	for (j = 0; j < k; j++)
		out[j] = L[(size_t)j * W] < 0;
	if (b->res[lane]) {
		b->res[lane]->ok = ok;
		b->res[lane]->iters = iters;
	}
}

int
hp_ldpc_decode(struct hp_ldpc_dec *d, const int8_t *llr, size_t llr_len,
	       unsigned int n_cw, uint8_t *info, struct hp_ldpc_result *res)
{
	const struct hp_ldpc_code *c;
	unsigned int W, n, k, p, nf, done = 0, lane, j;
	struct hp_ldpc_batch b;
	int nok = 0, rc;

	if (d == NULL || (n_cw && (llr == NULL || info == NULL)))
		return -EINVAL;
	c = d->c;
	W = d->W;
	n = c->nb * c->z - c->punct;
	k = c->kb * c->z;
	p = c->punct;
	nf = c->nb * c->z;
	if (llr_len != n)
		return -EINVAL;
	memset(&b, 0, sizeof(b));
	b.c = c;
	b.L = d->L;
	b.R = d->R;
	b.max_iter = d->cfg.max_iter;
	b.alg = d->cfg.alg;
	b.nms_shift = d->cfg.nms_shift;
	b.oms_offset = d->cfg.oms_offset;
	b.early = !d->cfg.no_early_stop;
	while (done < n_cw) {
		unsigned int m = n_cw - done < W ? n_cw - done : W;

		/* Interleave: bit j of lane l at L[j * W + l]. Punctured bits
		 * start at 0 (no information); idle lanes carry a confident
		 * all-zero codeword, which satisfies H at once. */
		for (lane = 0; lane < W; lane++) {
			int8_t *Lp = d->L + lane;

			if (lane >= m) {
				for (j = 0; j < nf; j++)
					Lp[(size_t)j * W] = 127;
				continue;
			}
			const int8_t *src = llr + (size_t)(done + lane) * n;

			for (j = 0; j < p; j++)
				Lp[(size_t)j * W] = 0;
			for (j = 0; j < n; j++)
				Lp[(size_t)(p + j) * W] = src[j] < -127 ? -127 : src[j];
			b.info[lane] = info + (size_t)(done + lane) * k;
			b.res[lane] = res ? &res[done + lane] : NULL;
		}
		b.nlanes = m;
		memset(d->R, 0, d->rbytes);
		rc = d->kern(&b);
		if (rc < 0)
			return rc;
		nok += rc;
		done += m;
	}
	return nok;
}
