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
#define KN_NG hp_nf_md5_mb_nogather_avx512
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
#define VTRANSPOSE(m, row) transpose16(m, row)

/* 16 rows of 16 words (one 64-byte block per lane) to 16 vectors of one
 * word from every lane: 32-bit and 64-bit unpacks inside the 128-bit
 * lanes, then two rounds of 128-bit lane shuffles (64 shuffles). */
static inline __attribute__((always_inline)) KT void
transpose16(vec m[16], const uint8_t *const row[16])
{
	vec x[16], t[16];

	for (int i = 0; i < 16; i++)
		x[i] = VLOADU(row[i]);
	for (int i = 0; i < 16; i += 2) {
		t[i] = _mm512_unpacklo_epi32(x[i], x[i + 1]);
		t[i + 1] = _mm512_unpackhi_epi32(x[i], x[i + 1]);
	}
	/* x[4g + j]: word 4k + j of rows 4g..4g+3 in 128-bit lane k. */
	for (int g = 0; g < 16; g += 4) {
		x[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
		x[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
		x[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
		x[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
	}
	for (int j = 0; j < 4; j++) {
		vec v0 = _mm512_shuffle_i32x4(x[j], x[4 + j], 0x88);
		vec v1 = _mm512_shuffle_i32x4(x[j], x[4 + j], 0xDD);
		vec v2 = _mm512_shuffle_i32x4(x[8 + j], x[12 + j], 0x88);
		vec v3 = _mm512_shuffle_i32x4(x[8 + j], x[12 + j], 0xDD);

		m[j] = _mm512_shuffle_i32x4(v0, v2, 0x88);
		m[4 + j] = _mm512_shuffle_i32x4(v1, v3, 0x88);
		m[8 + j] = _mm512_shuffle_i32x4(v0, v2, 0xDD);
		m[12 + j] = _mm512_shuffle_i32x4(v1, v3, 0xDD);
	}
}

#include "nf_md5_mb.h"
