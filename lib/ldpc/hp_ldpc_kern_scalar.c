/* SPDX-License-Identifier: BSD-3-Clause
 * Scalar instance of the layered min-sum kernels (one codeword at a time,
 * batch and single-codeword layouts):
 * the fallback for CPUs without AVX2 and the reference the SIMD kernels
 * are compared against bit for bit in the unit tests.
 */
#include <stdint.h>

#include "hp_ldpc_priv.h"

typedef int V;
#define KW 1
#define KT
#define KN(x) scalar_ ## x

static inline V sat8(int x) { return x > 127 ? 127 : x < -128 ? -128 : x; }
static inline V v_ld(const int8_t *p) { return *p; }
static inline void v_st(int8_t *p, V a) { *p = (int8_t)a; }
static inline V v_ldu(const int8_t *p) { return *p; }
static inline void v_stu(int8_t *p, V a) { *p = (int8_t)a; }
static inline V v_set1(int8_t x) { return x; }
static inline V v_subs(V a, V b) { return sat8(a - b); }
static inline V v_adds(V a, V b) { return sat8(a + b); }
static inline V v_max(V a, V b) { return a > b ? a : b; }
static inline V v_min(V a, V b) { return a < b ? a : b; }
static inline V v_abs(V a) { return a < 0 ? -a : a; }
static inline V v_xor(V a, V b) { return a ^ b; }
static inline V v_or(V a, V b) { return a | b; }
static inline V v_sel_eq(V a, V b, V x, V y) { return a == b ? x : y; }
static inline V v_signof(V m, V s) { return s < 0 ? -m : m; }
/* m * (1 - 2^-k), the subtracted part rounded to nearest (see avx2). */
static inline V v_nms(V m, unsigned int k) { return m - ((m + (1 << (k - 1))) >> k); }
static inline V v_oms(V m, V off) { return m > off ? m - off : 0; }
static inline uint64_t v_negmask(V a) { return a < 0; }

static inline V v_setu(uint8_t x) { return x; }
static inline V v_minu(V a, V b) { return a < b ? a : b; }
static inline V v_maxu(V a, V b) { return a > b ? a : b; }
/* x, or ref where ref is saturated (|ref| >= 127 means infinite). */
static inline V v_keepinf(V x, V ref, V aref) { return aref >= 127 ? ref : x; }

#include "hp_ldpc_kern.h"
#include "hp_ldpc_zkern.h"

int
hp_ldpc_kern_scalar(struct hp_ldpc_batch *b)
{
	return scalar_run(b);
}

int
hp_ldpc_zkern_scalar(struct hp_ldpc_zjob *j)
{
	return scalar_zrun(j);
}
