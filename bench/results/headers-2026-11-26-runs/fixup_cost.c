/* SPDX-License-Identifier: BSD-3-Clause
 * What hp_pkt_l4_fixup (software path, IPv4/UDP) adds after a task wrote
 * the payload (a memcpy of fresh bytes stands for the cipher), against
 * the write alone: best of 3000 runs of 20, cycles (TSC). Built by
 * cksum_build.sh; build it with an older lib/pkt/hp_pkt.c to compare.
 */
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include "hp_pkt.h"
/* The cipher's write of the payload (memcpy of fresh bytes), then the
 * fixup, against the write alone: what the fixup adds after a task. */
int main(void){
	static uint8_t buf[2048] __attribute__((aligned(64))), src[2048];
	unsigned sizes[] = {64, 243, 486, 778, 1458};
	for (unsigned i = 0; i < sizeof(src); i++) src[i] = i * 13 + 1;
	for (unsigned s = 0; s < 5; s++) {
		uint32_t n = sizes[s];
		struct rte_ipv4_hdr *ip = (void *)(buf + 14);
		memset(buf, 0x5a, sizeof(buf));
		buf[12] = 8; buf[13] = 0;
		ip->version_ihl = 0x45; ip->total_length = rte_cpu_to_be_16(n - 14);
		ip->next_proto_id = 17; ip->fragment_offset = 0;
		struct rte_udp_hdr *u = (void *)(ip + 1);
		u->dgram_len = rte_cpu_to_be_16(n - 34); u->dgram_cksum = 1;
		struct rte_mbuf m; memset(&m, 0, sizeof(m)); m.buf_addr = buf; m.data_len = n; m.pkt_len = n; m.nb_segs = 1;
		struct hp_flow_key k; struct hp_pkt_hdrs h;
		if (hp_parse_hdrs(buf, n, &k, &h)) { printf("parse fail\n"); return 1; }
		uint64_t b1 = ~0ull, b2 = ~0ull;
		for (int r = 0; r < 3000; r++) {
			uint64_t t = __rdtsc();
			for (int i = 0; i < 20; i++) { memcpy(buf + h.pay, src + (i & 7), h.pay_len); __asm__ volatile("" ::: "memory"); }
			t = __rdtsc() - t; if (t < b1) b1 = t;
			t = __rdtsc();
			for (int i = 0; i < 20; i++) { memcpy(buf + h.pay, src + (i & 7), h.pay_len); __asm__ volatile("" ::: "memory"); hp_pkt_l4_fixup(&m, &h, 0, 0); }
			t = __rdtsc() - t; if (t < b2) b2 = t;
		}
		printf("%u B: fixup adds %.1f cycles to the payload's write (%.1f)\n", n, (b2 - b1) / 20.0, b1 / 20.0);
	}
	return 0;
}
