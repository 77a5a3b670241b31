/* SPDX-License-Identifier: BSD-3-Clause
 * AVX-512F instance of the multi-buffer MD5: 16 lanes, one VPTERNLOGD per
 * round function and VPROLD for the rotations. Compiled with a target
 * attribute, so it builds with the baseline flags and runs only where
 * nf_md5.c found AVX-512F.
 */
#include <immintrin.h>

#include "nf_priv.h"

#define LANES 16
typedef __m512i vec;
#define KT __attribute__((target("avx512f")))
#define KN hp_nf_md5_mb_avx512
#define VSET1(x) _mm512_set1_epi32((int)(x))
#define VADD(a, b) _mm512_add_epi32(a, b)
#define VROL(x, s) _mm512_rol_epi32(x, s)
/* One VPTERNLOGD per round function (truth tables for b, c, d). */
#define VF(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0xCA)
#define VG(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0xE4)
#define VH(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0x96)
#define VI(b, c, d) _mm512_ternarylogic_epi32(b, c, d, 0x39)
#define VLOAD(p) _mm512_load_si512((const void *)(p))
#define VSTORE(p, v) _mm512_store_si512((void *)(p), v)
#define VGATHER(idx, base) _mm512_i32gather_epi32(idx, (const void *)(base), 1)
#define VLOADU(p) _mm512_loadu_si512((const void *)(p))
#define VSTOREU(p, v) _mm512_storeu_si512((void *)(p), v)
#define VZERO() _mm512_setzero_si512()

#include "nf_md5_mb.h"
