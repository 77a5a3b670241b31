/* SPDX-License-Identifier: BSD-3-Clause
 * Layered min-sum kernel, written once over a vector of W int8 lanes (one
 * codeword per lane) and instantiated by hp_ldpc_kern_{scalar,avx2,
 * avx512}.c, which define V, KW, KT (target attribute), KN(name) and the
 * v_* operations before including this file. Lanes never interact, so the
 * three instances produce bit-identical results per codeword.
 *
 * Why lanes = codewords (not lanes = the z rows of a block): every memory
 * access is a plain aligned vector load/store whatever the cyclic shift,
 * with no rotations or padding of z = 27/54/81 to the vector width.
 */

/* Scaled check-to-bit magnitude (normalised or offset min-sum). */
static inline KT V
KN(scale)(V m, const struct hp_ldpc_batch *b, V off)
{
	if (b->alg == HP_LDPC_OMS)
		return v_oms(m, off);
	return v_nms(m, b->nms_shift);
}

/* Returns a bit per lane whose hard decisions violate some check. */
static KT uint64_t
KN(syndrome)(const struct hp_ldpc_batch *b)
{
	const struct hp_ldpc_code *c = b->c;
	const unsigned int z = c->z;
	const int8_t *L = b->L;
	V acc = v_set1(0);
	unsigned int r, e, i;
	unsigned int pos[HP_LDPC_MAXDEG], base[HP_LDPC_MAXDEG];

	for (r = 0; r < c->mb; r++) {
		unsigned int e0 = c->row_start[r];
		unsigned int d = c->row_start[r + 1] - e0;

		for (e = 0; e < d; e++) {
			pos[e] = c->ent_shift[e0 + e];
			base[e] = c->ent_col[e0 + e] * z;
		}
		for (i = 0; i < z; i++) {
			V x = v_set1(0);

			for (e = 0; e < d; e++) {
				x = v_xor(x, v_ld(L + (size_t)(base[e] + pos[e]) * KW));
				if (++pos[e] == z)
					pos[e] = 0;
			}
			acc = v_or(acc, x);
		}
	}
	return v_negmask(acc);
}

/*
 * One batch: up to max_iter layered iterations over the block rows, each
 * row processed for its z check nodes. Cost (measured on the Xeon in
 * bench/results/ldpc-*.md, AVX-512BW, 64 lanes): about 1.1 ns per edge
 * and iteration for 64 codewords, i.e. ~17 vector ops per edge.
 */
static KT int
KN(run)(struct hp_ldpc_batch *b)
{
	const struct hp_ldpc_code *c = b->c;
	const unsigned int z = c->z;
	int8_t *L = b->L, *R = b->R;
	const V m127 = v_set1(-127), big = v_set1(127);
	const V off = v_set1((int8_t)b->oms_offset);
	const uint64_t all = b->nlanes >= 64 ? ~0ULL : (1ULL << b->nlanes) - 1;
	uint64_t done = 0;
	unsigned int it, r, e, i, lane;
	unsigned int pos[HP_LDPC_MAXDEG], base[HP_LDPC_MAXDEG];
	V t[HP_LDPC_MAXDEG];
	int nok = 0;

	for (it = 1; it <= b->max_iter; it++) {
		for (r = 0; r < c->mb; r++) {
			unsigned int e0 = c->row_start[r];
			unsigned int d = c->row_start[r + 1] - e0;

			for (e = 0; e < d; e++) {
				pos[e] = c->ent_shift[e0 + e];
				base[e] = c->ent_col[e0 + e] * z;
			}
			for (i = 0; i < z; i++) {
				V mn1 = big, mn2 = big, sg = v_set1(0);
				V s1, s2;

				/* Bit-to-check: t = L - R_old; track the
				 * two smallest magnitudes and the sign
				 * product (XOR of sign bits). */
				for (e = 0; e < d; e++) {
					const int8_t *lp = L + (size_t)(base[e] + pos[e]) * KW;
					const int8_t *rp = R + ((size_t)(e0 + e) * z + i) * KW;
					V x = v_max(v_subs(v_ld(lp), v_ld(rp)), m127);
					V a = v_abs(x);

					t[e] = x;
					mn2 = v_min(mn2, v_max(mn1, a));
					mn1 = v_min(mn1, a);
					sg = v_xor(sg, x);
				}
				s1 = KN(scale)(mn1, b, off);
				s2 = KN(scale)(mn2, b, off);
				/* Check-to-bit: min of the others (min2 where
				 * this edge holds min1; ties give min1 ==
				 * min2, so no index is needed), sign of the
				 * others; then L = t + R_new. */
				for (e = 0; e < d; e++) {
					int8_t *lp = L + (size_t)(base[e] + pos[e]) * KW;
					int8_t *rp = R + ((size_t)(e0 + e) * z + i) * KW;
					V mag = v_sel_eq(v_abs(t[e]), mn1, s2, s1);
					V rn = v_signof(mag, v_xor(sg, t[e]));

					v_st(rp, rn);
					v_st(lp, v_max(v_adds(t[e], rn), m127));
					if (++pos[e] == z)
						pos[e] = 0;
				}
			}
		}
		if (b->early || it == b->max_iter) {
			uint64_t good = all & ~KN(syndrome)(b) & ~done;

			for (lane = 0; good; lane++, good >>= 1)
				if (good & 1) {
					hp_ldpc_extract(b, KW, lane, it, 1);
					done |= 1ULL << lane;
					nok++;
				}
			if (done == all)
				return nok;
		}
	}
	for (lane = 0; lane < b->nlanes; lane++)
		if (!(done & (1ULL << lane)))
			hp_ldpc_extract(b, KW, lane, b->max_iter, 0);
	return nok;
}
