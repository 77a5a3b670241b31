/* SPDX-License-Identifier: BSD-3-Clause
 * AVX2 instance of the layered min-sum kernels: 32 codewords per batch,
 * one int8 lane each (avx2_run), and one codeword with the lanes over 32
 * of its z check nodes (avx2_zrun, hp_ldpc_zkern.h). Compiled with a target attribute, so it builds on
 * any x86-64 compiler flags and only runs where the CPU has AVX2.
 */
#include <stdint.h>
#include <immintrin.h>

#include "hp_ldpc_priv.h"

typedef __m256i V;
#define KW 32
#define KT __attribute__((target("avx2")))
/* Vector helpers: always inlined, also at -O0, so no AVX code sits in a
 * function without the ISA in its name (tests/isa/check_isa.py). */
#define KH static inline __attribute__((always_inline)) KT
#define KN(x) avx2_ ## x

KH V v_ld(const int8_t *p) { return _mm256_load_si256((const __m256i *)p); }
KH void v_st(int8_t *p, V a) { _mm256_store_si256((__m256i *)p, a); }
KH V v_ldu(const int8_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
KH void v_stu(int8_t *p, V a) { _mm256_storeu_si256((__m256i *)p, a); }
KH V v_set1(int8_t x) { return _mm256_set1_epi8(x); }
KH V v_subs(V a, V b) { return _mm256_subs_epi8(a, b); }
KH V v_adds(V a, V b) { return _mm256_adds_epi8(a, b); }
KH V v_max(V a, V b) { return _mm256_max_epi8(a, b); }
KH V v_min(V a, V b) { return _mm256_min_epi8(a, b); }
KH V v_abs(V a) { return _mm256_abs_epi8(a); }
KH V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }
KH V v_or(V a, V b) { return _mm256_or_si256(a, b); }
KH V v_sel_eq(V a, V b, V x, V y)
{
	return _mm256_blendv_epi8(y, x, _mm256_cmpeq_epi8(a, b));
}
/* sign_epi8 zeroes where s == 0; OR-ing 1 keeps the sign bit and avoids it. */
KH V v_signof(V m, V s)
{
	return _mm256_sign_epi8(m, _mm256_or_si256(s, _mm256_set1_epi8(1)));
}
/* m * (1 - 2^-k) with m/2^k rounded to nearest: truncation made small
 * messages (1..3 steps at k = 2) unscaled, i.e. plain min-sum, which
 * cost NR BG1 ~0.5 dB. No 8-bit shift in AVX2: shift 16-bit words and
 * mask the bits that crossed. m <= 128, so m + 2^(k-1) fits a byte. */
KH V v_nms(V m, unsigned int k)
{
	V r = _mm256_add_epi8(m, _mm256_set1_epi8((char)(1 << (k - 1))));
	V sh = _mm256_srl_epi16(r, _mm_cvtsi32_si128((int)k));

	return _mm256_sub_epi8(m, _mm256_and_si256(sh, _mm256_set1_epi8((char)(0xff >> k))));
}
KH V v_oms(V m, V off) { return _mm256_subs_epu8(m, off); }
KH uint64_t v_negmask(V a) { return (uint32_t)_mm256_movemask_epi8(a); }

KH V v_setu(uint8_t x) { return _mm256_set1_epi8((char)x); }
KH V v_minu(V a, V b) { return _mm256_min_epu8(a, b); }
KH V v_maxu(V a, V b) { return _mm256_max_epu8(a, b); }
KH V v_keepinf(V x, V ref, V aref)
{
	V c = _mm256_set1_epi8(127);

	return _mm256_blendv_epi8(x, ref, _mm256_cmpeq_epi8(_mm256_min_epu8(aref, c), c));
}

#include "hp_ldpc_kern.h"
#include "hp_ldpc_zkern.h"

int
hp_ldpc_kern_avx2(struct hp_ldpc_batch *b)
{
	return avx2_run(b);
}

int
hp_ldpc_zkern_avx2(struct hp_ldpc_zjob *j)
{
	return avx2_zrun(j);
}
