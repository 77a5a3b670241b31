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
hp_ldpc_extract(struct hp_ldpc_batch *b, unsigned int W, uint64_t mask,
		unsigned int iters, int ok)
{
	const unsigned int k = b->c->kb * b->c->z;
	unsigned int lanes[HP_LDPC_MAXLANES], nl = 0, j, l;

	for (l = 0; mask; l++, mask >>= 1)
		if (mask & 1)
			lanes[nl++] = l;
	for (j = 0; j < k; j++) {
		const int8_t *row = b->L + (size_t)j * W;

		for (l = 0; l < nl; l++)
			b->info[lanes[l]][j] = row[lanes[l]] < 0;
	}
	for (l = 0; l < nl; l++)
		if (b->res[lanes[l]]) {
			b->res[lanes[l]]->ok = ok;
			b->res[lanes[l]]->iters = iters;
		}
}

/* Interleaves m codewords into L (bit j of lane l at L[j * W + l]) in
 * tiles of 64 bits so source and destination stay in L1: the untiled loop
 * swept n cache lines per lane and cost ~30% of a wifi:1944 decode. */
static void
interleave(int8_t *L, unsigned int W, const int8_t *llr, unsigned int n,
	   unsigned int p, unsigned int m)
{
	const unsigned int nf = n + p;
	unsigned int j0, j, l;

	for (j = 0; j < p; j++)
		memset(L + (size_t)j * W, 0, m);
	for (j0 = 0; j0 < n; j0 += 64) {
		unsigned int j1 = j0 + 64 < n ? j0 + 64 : n;

		for (l = 0; l < m; l++) {
			const int8_t *src = llr + (size_t)l * n;

			for (j = j0; j < j1; j++)
				L[(size_t)(p + j) * W + l] = src[j] < -127 ? -127 : src[j];
		}
	}
	/* Idle lanes carry a confident all-zero codeword: it satisfies H at
	 * once and never delays the early stop. */
	if (m < W)
		for (j = 0; j < nf; j++)
			memset(L + (size_t)j * W + m, 127, W - m);
}

int
hp_ldpc_decode(struct hp_ldpc_dec *d, const int8_t *llr, size_t llr_len,
	       unsigned int n_cw, uint8_t *info, struct hp_ldpc_result *res)
{
	const struct hp_ldpc_code *c;
	unsigned int W, n, k, p, done = 0, lane;
	struct hp_ldpc_batch b;
	int nok = 0, rc;

	if (d == NULL || (n_cw && (llr == NULL || info == NULL)))
		return -EINVAL;
	c = d->c;
	W = d->W;
	n = c->nb * c->z - c->punct;
	k = c->kb * c->z;
	p = c->punct;
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

		interleave(d->L, W, llr + (size_t)done * n, n, p, m);
		for (lane = 0; lane < m; lane++) {
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
