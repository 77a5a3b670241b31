/* SPDX-License-Identifier: BSD-3-Clause
 * The byte pass of the checksum: rte_raw_cksum as the tree builds it
 * (x86-64-v2), the same built for AVX2 (what hp_pkt.c dispatches to), and
 * an own loop that adds 32-bit words into four 64-bit accumulators, and
 * the AVX2 kernel of hp_pkt.c (raw_sum_avx2);
 * best of 2000 runs of 50 calls, data in L1. See cksum_build.sh.
 */
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>
#include <immintrin.h>
#include <rte_ip.h>
static uint16_t __attribute__((noinline)) v2(const void *p, size_t n) { return rte_raw_cksum(p, n); }
static uint16_t __attribute__((noinline, target("avx2"))) v3(const void *p, size_t n) { return rte_raw_cksum(p, n); }
static uint16_t __attribute__((noinline, target("avx2"))) k2(const void *buf, size_t n)
{
	const uint8_t *p = buf;
	const __m256i lo = _mm256_set1_epi32(0xffff);
	__m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
	uint64_t s = 0;
	while (n >= 64) {
		__m256i x = _mm256_loadu_si256((const void *)p), y = _mm256_loadu_si256((const void *)(p + 32));
		a = _mm256_add_epi32(a, _mm256_and_si256(x, lo));
		b = _mm256_add_epi32(b, _mm256_srli_epi32(x, 16));
		a = _mm256_add_epi32(a, _mm256_and_si256(y, lo));
		b = _mm256_add_epi32(b, _mm256_srli_epi32(y, 16));
		p += 64; n -= 64;
	}
	while (n >= 32) {
		__m256i x = _mm256_loadu_si256((const void *)p);
		a = _mm256_add_epi32(a, _mm256_and_si256(x, lo));
		b = _mm256_add_epi32(b, _mm256_srli_epi32(x, 16));
		p += 32; n -= 32;
	}
	a = _mm256_add_epi32(a, b);
	{
		uint32_t t[8];
		_mm256_storeu_si256((void *)t, a);
		for (int i = 0; i < 8; i++) s += t[i];
	}
	while (n >= 4) { uint32_t w; memcpy(&w, p, 4); s += w; p += 4; n -= 4; }
	if (n >= 2) { uint16_t x; memcpy(&x, p, 2); s += x; p += 2; n -= 2; }
	if (n) s += *p;
	while (s >> 16) s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}
static uint16_t __attribute__((noinline)) own(const void *buf, size_t n)
{
	const uint8_t *p = buf;
	uint64_t a = 0, b = 0, c = 0, d = 0;
	uint32_t w[4];
	while (n >= 16) { memcpy(w, p, 16); a += w[0]; b += w[1]; c += w[2]; d += w[3]; p += 16; n -= 16; }
	a += b + c + d;
	while (n >= 4) { memcpy(w, p, 4); a += w[0]; p += 4; n -= 4; }
	if (n >= 2) { uint16_t x; memcpy(&x, p, 2); a += x; p += 2; n -= 2; }
	if (n) a += *p;
	a = (a & 0xffffffff) + (a >> 32); a = (a & 0xffffffff) + (a >> 32);
	a = (a & 0xffff) + (a >> 16); a = (a & 0xffff) + (a >> 16);
	return (uint16_t)a;
}
int main(void){
	static uint8_t buf[2048] __attribute__((aligned(64)));
	for (unsigned i = 0; i < sizeof(buf); i++) buf[i] = i * 7 + 3;
	unsigned sizes[] = {8, 64, 243, 486, 778, 1458, 1459};
	for (unsigned s = 0; s < 7; s++) {
		uint32_t n = sizes[s];
		uint64_t b1 = ~0ull, b2 = ~0ull, b3 = ~0ull, b4 = ~0ull;
		if (v2(buf + 2, n) != v3(buf + 2, n) || v2(buf + 2, n) != own(buf + 2, n) || v2(buf + 2, n) != k2(buf + 2, n)) printf("MISMATCH %u\n", n);
		for (int r = 0; r < 2000; r++) {
			uint64_t t = __rdtsc();
			for (int i = 0; i < 50; i++) { volatile uint16_t x = v2(buf + 2, n); (void)x; }
			t = __rdtsc() - t; if (t < b1) b1 = t;
			t = __rdtsc();
			for (int i = 0; i < 50; i++) { volatile uint16_t x = v3(buf + 2, n); (void)x; }
			t = __rdtsc() - t; if (t < b2) b2 = t;
			t = __rdtsc();
			for (int i = 0; i < 50; i++) { volatile uint16_t x = own(buf + 2, n); (void)x; }
			t = __rdtsc() - t; if (t < b3) b3 = t;
			t = __rdtsc();
			for (int i = 0; i < 50; i++) { volatile uint16_t x = k2(buf + 2, n); (void)x; }
			t = __rdtsc() - t; if (t < b4) b4 = t;
		}
		printf("%u B: rte_raw_cksum x86-64-v2 %.1f, the same for avx2 %.1f, own 32-bit loop %.1f, AVX2 kernel (hp_pkt.c) %.1f cycles\n", n, b1/50.0, b2/50.0, b3/50.0, b4/50.0);
	}
}
