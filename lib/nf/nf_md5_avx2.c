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
#define KN_NG hp_nf_md5_mb_nogather_avx2
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
#define VTRANSPOSE(m, row) transpose8x2(m, row)

/* 8 lanes' 64-byte blocks to 16 vectors of one word from every lane: two
 * 8x8 transposes (32/64-bit unpacks, then 128-bit permutes; 48 shuffles). */
static inline __attribute__((always_inline)) KT void
transpose8x2(vec m[16], const uint8_t *const row[8])
{
	for (int h = 0; h < 2; h++) {
		vec x[8], t[8];

		for (int i = 0; i < 8; i++)
			x[i] = VLOADU(row[i] + 32 * h);
		for (int i = 0; i < 8; i += 2) {
			t[i] = _mm256_unpacklo_epi32(x[i], x[i + 1]);
			t[i + 1] = _mm256_unpackhi_epi32(x[i], x[i + 1]);
		}
		for (int g = 0; g < 8; g += 4) {
			x[g] = _mm256_unpacklo_epi64(t[g], t[g + 2]);
			x[g + 1] = _mm256_unpackhi_epi64(t[g], t[g + 2]);
			x[g + 2] = _mm256_unpacklo_epi64(t[g + 1], t[g + 3]);
			x[g + 3] = _mm256_unpackhi_epi64(t[g + 1], t[g + 3]);
		}
		for (int j = 0; j < 4; j++) {
			m[8 * h + j] = _mm256_permute2x128_si256(x[j], x[4 + j], 0x20);
			m[8 * h + 4 + j] = _mm256_permute2x128_si256(x[j], x[4 + j], 0x31);
		}
	}
}

#include "nf_md5_mb.h"
