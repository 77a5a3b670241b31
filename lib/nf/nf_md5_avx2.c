/* SPDX-License-Identifier: BSD-3-Clause
 * AVX2 instance of the multi-buffer MD5: 8 lanes. Compiled with a target
 * attribute, so it builds with the baseline flags and runs only where
 * nf_md5.c found AVX2.
 */
#include <immintrin.h>

#include "nf_priv.h"

#define LANES 8
typedef __m256i vec;
#define KT __attribute__((target("avx2")))
#define KN hp_nf_md5_mb_avx2
#define VSET1(x) _mm256_set1_epi32((int)(x))
#define VADD(a, b) _mm256_add_epi32(a, b)
#define VROL(x, s) _mm256_or_si256(_mm256_slli_epi32(x, s), \
				   _mm256_srli_epi32(x, 32 - (s)))
#define VXOR(a, b) _mm256_xor_si256(a, b)
#define VAND(a, b) _mm256_and_si256(a, b)
#define VF(b, c, d) VXOR(d, VAND(b, VXOR(c, d)))
#define VG(b, c, d) VXOR(c, VAND(d, VXOR(b, c)))
#define VH(b, c, d) VXOR(VXOR(b, c), d)
#define VI(b, c, d) VXOR(c, _mm256_or_si256(b, VXOR(d, VSET1(0xffffffffu))))
#define VLOAD(p) _mm256_load_si256((const __m256i *)(p))
#define VSTORE(p, v) _mm256_store_si256((__m256i *)(p), v)
#define VGATHER(idx, base) _mm256_i32gather_epi32((const int *)(base), idx, 1)
#define VLOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define VSTOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define VZERO() _mm256_setzero_si256()

#include "nf_md5_mb.h"
