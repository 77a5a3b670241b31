/* SPDX-License-Identifier: BSD-3-Clause
 * Low-latency (single-codeword) layered min-sum, written once over a
 * vector of W int8 lanes that hold W of the z check nodes of one base
 * row (the Z dimension), and instantiated after hp_ldpc_kern.h in
 * hp_ldpc_kern_{scalar,avx2,avx512}.c with the same v_* operations and
 * the same per-vector node (KN(node)), so a codeword decodes to exactly
 * what the batch kernel gives it.
 *
 * Layout (struct hp_ldpc_zjob): each base column is stored twice in a
 * row, L[c * S + j] = L[c * S + j + z] for j < z, so the circulant shift
 * s is a plain unaligned load at s + i for check nodes i..i+W-1. The z
 * check nodes of a row touch disjoint bits of each column (a circulant is
 * a permutation), so processing them W at a time gives the batch
 * kernel's sequential result. Lanes i >= z of the last vector (z is not
 * a multiple of W for 802.11n's 27/54/81 or most NR sizes) compute
 * garbage that only lands in positions the resync below rewrites or in
 * the padding past 2z, which only such lanes read.
 */

/* n bytes from src to dst (disjoint), whole vectors; a tail shorter
 * than a vector is done as one vector ending at n when n >= W, so no
 * byte outside [0, n) is written. */
static inline __attribute__((always_inline)) KT void
KN(zcopy)(int8_t *dst, const int8_t *src, unsigned int n)
{
	unsigned int o;

	if (n < KW) {
		for (o = 0; o < n; o++)
			dst[o] = src[o];
		return;
	}
	for (o = 0; o + KW <= n; o += KW)
		v_stu(dst + o, v_ldu(src + o));
	if (o < n)
		v_stu(dst + n - KW, v_ldu(src + n - KW));
}

/*
 * One layer of the Z kernel: row r's z check nodes W at a time, then
 * each of its columns resynced. The layer wrote the column's values at
 * physical [s, s + z): positions >= s of the low copy and < s of the
 * high one, so copy [s, z) up and [z, z + s) down. Cost, measured by
 * leaving the copies out (wrong words, same work otherwise; CPU time,
 * Zen 4): 20 % of the decode on nr:1:384 with AVX-512, 16 % with AVX2,
 * 27 % on wifi:1944:1/2 with AVX2 (its loads read what the layer has
 * just stored, at another alignment). Storing each result vector to both
 * copies from the register would avoid the reloads, but the lanes past z
 * then need masked stores (AVX2 has none for bytes); not done.
 */
static inline __attribute__((always_inline)) KT void
KN(zlayer)(const struct hp_ldpc_code *c, int8_t *const L, int8_t *const R,
	   unsigned int S, unsigned int zp, unsigned int r, const int first,
	   const int oms, const unsigned int ksh, const V off)
{
	const unsigned int z = c->z, e0 = c->row_start[r];
	const unsigned int d = c->row_start[r + 1] - e0;
	int8_t *lp[HP_LDPC_MAXDEG], *rp[HP_LDPC_MAXDEG];
	unsigned int e, v;

	for (e = 0; e < d; e++) {
		lp[e] = L + (size_t)c->ent_col[e0 + e] * S + c->ent_shift[e0 + e];
		rp[e] = R + (size_t)(e0 + e) * zp;
	}
	for (v = 0; v < zp; v += KW)
		KN(node)(lp, v, rp, v, d, first, oms, ksh, off);
	for (e = 0; e < d; e++) {
		const unsigned int s = c->ent_shift[e0 + e];
		int8_t *col = L + (size_t)c->ent_col[e0 + e] * S;

		KN(zcopy)(col + z + s, col + s, z - s);
		KN(zcopy)(col, col + z, s);
	}
}

/* 1 when the hard decisions violate some check (lanes past z masked). */
static KT int
KN(zsyndrome)(const struct hp_ldpc_code *c, const int8_t *L, unsigned int S,
	      unsigned int zp)
{
	const unsigned int z = c->z, mb = c->mb;
	const int8_t *lp[HP_LDPC_MAXDEG];
	unsigned int r, e, v;

	for (r = 0; r < mb; r++) {
		const unsigned int e0 = c->row_start[r];
		const unsigned int d = c->row_start[r + 1] - e0;

		for (e = 0; e < d; e++)
			lp[e] = L + (size_t)c->ent_col[e0 + e] * S + c->ent_shift[e0 + e];
		for (v = 0; v < zp; v += KW) {
			const unsigned int nv = z - v;
			V x = v_set1(0);

			for (e = 0; e < d; e++)
				x = v_xor(x, v_ldu(lp[e] + v));
			if (v_negmask(x) & (nv >= 64 ? ~0ULL : (1ULL << nv) - 1))
				return 1;
		}
	}
	return 0;
}

/* Hard decisions of the first out_bits bits (low copies of the columns). */
static KT void
KN(zextract)(const struct hp_ldpc_zjob *j)
{
	const unsigned int z = j->c->z;
	unsigned int b, col;

	for (b = 0, col = 0; b < j->out_bits; b += z, col++) {
		const int8_t *src = j->L + (size_t)col * j->S;
		const unsigned int n = j->out_bits - b < z ? j->out_bits - b : z;
		unsigned int i;

		for (i = 0; i < n; i++)
			j->out[b + i] = (uint8_t)src[i] >> 7;
	}
}

/*
 * One codeword: the batch kernel's iterations, early stop and outcome
 * (KN(run)), with the z check nodes of a row spread over the lanes.
 * Returns 1 when it decoded to a valid codeword, else 0. Measured
 * (bench/results/ldpc-lowlat-2026-11-29.md, Zen 4): nr:1:384 at 5
 * iterations 59 us with AVX-512 (316 edges x 6 vectors x 5 iterations:
 * ~6 ns per vector edge update, resync included), 61-90 us with AVX2;
 * wifi:1944:1/2 at 10 iterations 12.1 / 9.7 us.
 */
static KT int
KN(zrun)(struct hp_ldpc_zjob *j)
{
	const struct hp_ldpc_code *c = j->c;
	const unsigned int mb = c->mb, max_iter = j->max_iter, ksh = j->nms_shift;
	const unsigned int S = j->S, zp = j->zp;
	const int oms = j->alg == HP_LDPC_OMS, early = j->early;
	int8_t *const L = j->L, *const R = j->R;
	const V off = v_set1((int8_t)j->oms_offset);
	unsigned int it, r;
	int ok = 0;

	for (it = 1; it <= max_iter; it++) {
		if (it == 1)
			for (r = 0; r < mb; r++)
				KN(zlayer)(c, L, R, S, zp, r, 1, oms, ksh, off);
		else
			for (r = 0; r < mb; r++)
				KN(zlayer)(c, L, R, S, zp, r, 0, oms, ksh, off);
		if ((early || it == max_iter) && !KN(zsyndrome)(c, L, S, zp)) {
			ok = 1;
			break;
		}
	}
	KN(zextract)(j);
	if (j->res) {
		j->res->ok = (uint8_t)ok;
		j->res->iters = (uint8_t)(ok ? it : max_iter);
	}
	return ok;
}
