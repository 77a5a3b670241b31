/* SPDX-License-Identifier: BSD-3-Clause
 * rte_raw_cksum against an own loop that adds 32-bit words into four
 * 64-bit accumulators, same flags as the tree (x86-64-v2): the own loop
 * is no faster, so the tasks keep DPDK's helpers.
 */
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>
#include <rte_ip.h>
static uint16_t __attribute__((noinline)) dpdk(const void *p, size_t n) { return rte_raw_cksum(p, n); }
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
	unsigned sizes[] = {8, 30, 64, 243, 486, 778, 1458, 1459};
	for (unsigned s = 0; s < 8; s++) {
		uint32_t n = sizes[s];
		uint64_t b1 = ~0ull, b2 = ~0ull;
		if (dpdk(buf + 2, n) != own(buf + 2, n)) printf("MISMATCH %u\n", n);
		for (int r = 0; r < 300; r++) {
			uint64_t t = __rdtsc();
			for (int i = 0; i < 100; i++) { volatile uint16_t x = dpdk(buf + 2, n); (void)x; }
			t = __rdtsc() - t; if (t < b1) b1 = t;
			t = __rdtsc();
			for (int i = 0; i < 100; i++) { volatile uint16_t x = own(buf + 2, n); (void)x; }
			t = __rdtsc() - t; if (t < b2) b2 = t;
		}
		printf("%u B: rte_raw_cksum %.1f, own %.1f cycles\n", n, b1/100.0, b2/100.0);
	}
}
