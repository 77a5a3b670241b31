/* SPDX-License-Identifier: BSD-3-Clause
 * Layered min-sum kernel, written once over a vector of W int8 lanes (one
 * codeword per lane) and instantiated by hp_ldpc_kern_{scalar,avx2,
 * avx512}.c, which define V, KW, KT (target attribute), KN(name) and the
 * v_* operations before including this file. Lanes never interact, so the
 * three instances produce bit-identical results per codeword.
 *
 * Why lanes = codewords (not lanes = the z rows of a block): every memory
 * access is a plain aligned vector load/store whatever the cyclic shift,
 * with no rotations or padding of z = 27/54/81 to the vector width. The
 * other choice, for latency, is hp_ldpc_zkern.h; both use KN(node), so a
 * lane's arithmetic is the same in each. The L loads and stores in
 * KN(node) are unaligned (aligned here, rotations there): same speed on
 * aligned addresses (nr:1:384 and wifi:1944:1/2 batch throughput
 * unchanged against the aligned build, bench/results/ldpc-lowlat-2026-11-29.md).
 */

/* Returns a bit per lane whose hard decisions violate some check. */
static KT uint64_t
KN(syndrome)(const struct hp_ldpc_batch *b)
{
	const struct hp_ldpc_code *c = b->c;
	const unsigned int z = c->z, mb = c->mb;
	const int8_t *const L = b->L;
	V acc = v_set1(0);
	unsigned int r, e, i;
	unsigned int pos[HP_LDPC_MAXDEG];
	const int8_t *lrow[HP_LDPC_MAXDEG];

	for (r = 0; r < mb; r++) {
		const unsigned int e0 = c->row_start[r];
		const unsigned int d = c->row_start[r + 1] - e0;

		for (e = 0; e < d; e++) {
			pos[e] = c->ent_shift[e0 + e];
			lrow[e] = L + (size_t)c->ent_col[e0 + e] * z * KW;
		}
		for (i = 0; i < z; i++) {
			V x = v_set1(0);

			for (e = 0; e < d; e++) {
				x = v_xor(x, v_ld(lrow[e] + (size_t)pos[e] * KW));
				pos[e] = pos[e] + 1 == z ? 0 : pos[e] + 1;
			}
			acc = v_or(acc, x);
		}
	}
	return v_negmask(acc);
}

/*
 * One vector of check nodes of a layer: d edges, the a-posteriori LLRs
 * at lp[e] + lo (loaded and stored unaligned: aligned in the batch
 * kernel, a rotation of a doubled column in the Z kernel) and the
 * check-to-bit messages at rp[e] + ro. Shared by both kernels, so the
 * arithmetic of a lane is the same in each. first = 1 in the first
 * iteration, where every old check-to-bit message is 0 and is not read.
 */
static inline __attribute__((always_inline)) KT void
KN(node)(int8_t *const *lp, size_t lo, int8_t *const *rp, size_t ro,
	 unsigned int d, const int first, const int oms, const unsigned int ksh,
	 const V off)
{
	const V big = v_setu(128), zero = v_set1(0), c127 = v_setu(127);
	const V rmax = v_setu(HP_LDPC_RMAX);
	V mn1 = big, mn2 = big, sg = zero;
	V s1, s2, t[HP_LDPC_MAXDEG];
	unsigned int e;

	/* Bit-to-check: t = L - R_old. A saturated L (|L| >= 127)
	 * counts as infinite and passes through unchanged:
	 * subtracting R from a clipped sum eroded confident bits
	 * every iteration until they flipped (BER 0.27 after 30
	 * iterations at 3 dB on wifi:1296:1/2, same as an exact
	 * numpy model; the fix costs 5 of the 17 vector ops per
	 * edge). |t| is taken as unsigned (|-128| = 128). Track the
	 * two smallest magnitudes and the sign product. */
	for (e = 0; e < d; e++) {
		V l = v_ldu(lp[e] + lo);
		V x = first ? l :
			v_keepinf(v_subs(l, v_ld(rp[e] + ro)), l, v_abs(l));
		V a = v_abs(x);

		t[e] = x;
		mn2 = v_minu(mn2, v_maxu(mn1, a));
		mn1 = v_minu(mn1, a);
		sg = v_xor(sg, x);
	}
	/* Scaled magnitudes are capped at HP_LDPC_RMAX (OMS clamps
	 * to 127 first so the offset never wraps): with L saturating
	 * at 127 a message near 127 would make t = L - R collapse to
	 * ~0 and the decoder diverge (measured: plain min-sum with
	 * 8-bit channel LLRs, BER 0.6). */
	s1 = v_minu(oms ? v_oms(v_minu(mn1, c127), off) : v_nms(mn1, ksh), rmax);
	s2 = v_minu(oms ? v_oms(v_minu(mn2, c127), off) : v_nms(mn2, ksh), rmax);
	/* Check-to-bit: min of the others (min2 where this edge holds
	 * min1; ties give min1 == min2, so no index is needed), sign
	 * of the others; then L = t + R_new. |t| is taken again
	 * rather than kept: with d up to 19 (NR BG1) t[] and |t|[]
	 * did not fit the 32 vector registers, and the spills cost
	 * more than the extra abs (measured: -8 % time on nr:1:384,
	 * -12 % on wifi:1944:1/2). */
	for (e = 0; e < d; e++) {
		V ae = v_abs(t[e]);
		V mag = v_sel_eq(ae, mn1, s2, s1);
		V rn = v_signof(mag, v_xor(sg, t[e]));

		v_st(rp[e] + ro, rn);
		v_stu(lp[e] + lo, v_keepinf(v_adds(t[e], rn), t[e], ae));
	}
}

/*
 * One layer: the z check nodes of base row r, one codeword per lane.
 * first = 1 in the first
 * iteration of a batch, where every old check-to-bit message is 0: the
 * message array is then only written, not read (and needs no clearing
 * beforehand). For NR BG1 Z=384 the array is 7.8 MB, past L2, so that
 * saves a 7.8 MB memset and a 7.8 MB read per batch: at 5 iterations
 * 18 % of the message traffic. Inlined with first constant, so each
 * iteration runs a loop without the test.
 */
static inline __attribute__((always_inline)) KT void
KN(layer)(const struct hp_ldpc_code *c, int8_t *const L, int8_t *const R,
	  unsigned int r, const int first, const int oms, const unsigned int ksh,
	  const V off)
{
	const unsigned int z = c->z, e0 = c->row_start[r];
	const unsigned int d = c->row_start[r + 1] - e0;
	unsigned int e, i;
	unsigned int pos[HP_LDPC_MAXDEG];
	int8_t *lrow[HP_LDPC_MAXDEG], *rrow[HP_LDPC_MAXDEG];

	for (e = 0; e < d; e++) {
		pos[e] = c->ent_shift[e0 + e];
		lrow[e] = L + (size_t)c->ent_col[e0 + e] * z * KW;
		rrow[e] = R + (size_t)(e0 + e) * z * KW;
	}
	/* Runs of n check nodes in which no edge's column position wraps
	 * (at most d + 1 per row), so the inner loops advance plain
	 * pointers instead of testing every position for the wrap
	 * (measured: -6 % time on both nr:1:384 and wifi:1944:1/2). */
	for (i = 0; i < z;) {
		unsigned int n = z - i, j;
		int8_t *lp[HP_LDPC_MAXDEG];

		for (e = 0; e < d; e++) {
			if (z - pos[e] < n)
				n = z - pos[e];
			lp[e] = lrow[e] + (size_t)pos[e] * KW;
		}
		for (j = 0; j < n; j++, i++)
			KN(node)(lp, (size_t)j * KW, rrow, (size_t)i * KW, d, first,
				 oms, ksh, off);
		for (e = 0; e < d; e++)
			pos[e] = pos[e] + n == z ? 0 : pos[e] + n;
	}
}

/*
 * One batch: up to max_iter layered iterations over the block rows, each
 * row processed for its z check nodes. Everything the loops read is
 * copied to locals first: the int8 stores may alias any memory as far as
 * the compiler knows, and reloading the batch fields after each store
 * cost ~2x. Measured (bench/results/ldpc-2026-11-22.md, AVX-512BW):
 * wifi:1944:1/2, 10 iterations, 64 codewords per batch in 358 us, i.e.
 * ~5.1 ns per edge update of 64 lanes (6966 edges per iteration) with
 * the syndrome and the lane interleave included; NR BG1 Z=384 (121k
 * edges, 7.8 MB of messages, past L2) 4.7 ms for 5 iterations, ~7.7 ns.
 */
static KT int
KN(run)(struct hp_ldpc_batch *b)
{
	const struct hp_ldpc_code *c = b->c;
	const unsigned int mb = c->mb, max_iter = b->max_iter;
	const unsigned int nlanes = b->nlanes, ksh = b->nms_shift;
	const int oms = b->alg == HP_LDPC_OMS, early = b->early;
	int8_t *const L = b->L, *const R = b->R;
	const V off = v_set1((int8_t)b->oms_offset);
	const uint64_t all = nlanes >= 64 ? ~0ULL : (1ULL << nlanes) - 1;
	uint64_t done = 0;
	unsigned int it, r;
	int nok = 0;

	for (it = 1; it <= max_iter; it++) {
		if (it == 1)
			for (r = 0; r < mb; r++)
				KN(layer)(c, L, R, r, 1, oms, ksh, off);
		else
			for (r = 0; r < mb; r++)
				KN(layer)(c, L, R, r, 0, oms, ksh, off);
		if (early || it == max_iter) {
			uint64_t good = all & ~KN(syndrome)(b) & ~done;

			if (good) {
				hp_ldpc_extract(b, KW, good, it, 1);
				done |= good;
				nok += __builtin_popcountll(good);
			}
			if (done == all)
				return nok;
		}
	}
	if (all & ~done)
		hp_ldpc_extract(b, KW, all & ~done, max_iter, 0);
	return nok;
}
