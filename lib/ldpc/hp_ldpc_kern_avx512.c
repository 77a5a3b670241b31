/* SPDX-License-Identifier: BSD-3-Clause
 * AVX-512BW instance of the layered min-sum kernels: 64 codewords per
 * batch, one int8 lane each (avx512_run), and one codeword with the lanes
 * over 64 of its z check nodes (avx512_zrun, hp_ldpc_zkern.h). Runs only where the CPU has AVX-512BW.
 */
#include <stdint.h>
#include <immintrin.h>

#include "hp_ldpc_priv.h"

typedef __m512i V;
#define KW 64
#define KT __attribute__((target("avx512f,avx512bw")))
/* Vector helpers: always inlined, also at -O0, so no AVX code sits in a
 * function without the ISA in its name (tests/isa/check_isa.py). */
#define KH static inline __attribute__((always_inline)) KT
#define KN(x) avx512_ ## x

KH V v_ld(const int8_t *p) { return _mm512_load_si512((const void *)p); }
KH void v_st(int8_t *p, V a) { _mm512_store_si512((void *)p, a); }
KH V v_ldu(const int8_t *p) { return _mm512_loadu_si512((const void *)p); }
KH void v_stu(int8_t *p, V a) { _mm512_storeu_si512((void *)p, a); }
KH V v_set1(int8_t x) { return _mm512_set1_epi8(x); }
KH V v_subs(V a, V b) { return _mm512_subs_epi8(a, b); }
KH V v_adds(V a, V b) { return _mm512_adds_epi8(a, b); }
KH V v_max(V a, V b) { return _mm512_max_epi8(a, b); }
KH V v_min(V a, V b) { return _mm512_min_epi8(a, b); }
KH V v_abs(V a) { return _mm512_abs_epi8(a); }
KH V v_xor(V a, V b) { return _mm512_xor_si512(a, b); }
KH V v_or(V a, V b) { return _mm512_or_si512(a, b); }
KH V v_sel_eq(V a, V b, V x, V y)
{
	return _mm512_mask_blend_epi8(_mm512_cmpeq_epi8_mask(a, b), y, x);
}
/* AVX-512 has no sign_epi8: negate under the sign-bit mask of s. */
KH V v_signof(V m, V s)
{
	return _mm512_mask_sub_epi8(m, _mm512_movepi8_mask(s), _mm512_setzero_si512(), m);
}
/* m * (1 - 2^-k), m/2^k rounded to nearest (see the AVX2 file). */
KH V v_nms(V m, unsigned int k)
{
	V r = _mm512_add_epi8(m, _mm512_set1_epi8((char)(1 << (k - 1))));
	V sh = _mm512_srl_epi16(r, _mm_cvtsi32_si128((int)k));

	return _mm512_sub_epi8(m, _mm512_and_si512(sh, _mm512_set1_epi8((char)(0xff >> k))));
}
KH V v_oms(V m, V off) { return _mm512_subs_epu8(m, off); }
KH uint64_t v_negmask(V a) { return _mm512_movepi8_mask(a); }

KH V v_setu(uint8_t x) { return _mm512_set1_epi8((char)x); }
KH V v_minu(V a, V b) { return _mm512_min_epu8(a, b); }
KH V v_maxu(V a, V b) { return _mm512_max_epu8(a, b); }
KH V v_keepinf(V x, V ref, V aref)
{
	return _mm512_mask_mov_epi8(x, _mm512_cmpge_epu8_mask(aref, _mm512_set1_epi8(127)), ref);
}

#include "hp_ldpc_kern.h"
#include "hp_ldpc_zkern.h"

int
hp_ldpc_kern_avx512(struct hp_ldpc_batch *b)
{
	return avx512_run(b);
}

int
hp_ldpc_zkern_avx512(struct hp_ldpc_zjob *j)
{
	return avx512_zrun(j);
}
