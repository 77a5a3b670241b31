/* SPDX-License-Identifier: BSD-3-Clause
 * Software RSS, as a NIC does it: the Toeplitz hash (DPDK's rte_softrss)
 * of a frame's 5-tuple with a symmetric key, so that both directions of
 * a flow hash alike, and a redirection table (RETA) from the hash to a
 * queue. The sources that have no NIC to do it (the generator, a pcap
 * replay) spread their frames over the scheduler lcores' rx rings with it
 * (--sched-lcores, docs/scale-out.md).
 */
#ifndef HP_RSS_H
#define HP_RSS_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_thash.h>

#include "hp_pkt.h"

#define HP_RSS_RETA 128     /* entries, as most NICs' tables */
#define HP_RSS_KEY_LEN 40
#define HP_RSS_MAX_Q 8

/* 0x6d5a repeated (Woo and Park, "Scalable TCP Session Monitoring with
 * Symmetric Receive-side Scaling"): the key repeats every 16 bits, so
 * swapping the addresses (32 bits) and the ports (16 bits) leaves the
 * Toeplitz hash as it was. */
static const uint8_t hp_rss_sym_key[HP_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

struct hp_rss {
	unsigned int n_q;
	uint8_t reta[HP_RSS_RETA];   /* hash % HP_RSS_RETA -> queue */
};

/* Entries round robin over n_q queues (1..HP_RSS_MAX_Q), as ethdev's
 * default RETA. */
static inline void
hp_rss_init(struct hp_rss *r, unsigned int n_q)
{
	unsigned int i;

	r->n_q = n_q;
	for (i = 0; i < HP_RSS_RETA; i++)
		r->reta[i] = (uint8_t)(i % n_q);
}

/* The symmetric Toeplitz hash of a parsed 5-tuple (ports 0 for a
 * protocol without them, as the parser leaves them). */
static inline uint32_t
hp_rss_hash_key(const struct hp_flow_key *k)
{
	union rte_thash_tuple t;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	if (!k->ipv6) {
		t.v4.src_addr = rte_be_to_cpu_32(k->src_ip);
		t.v4.dst_addr = rte_be_to_cpu_32(k->dst_ip);
		t.v4.sport = rte_be_to_cpu_16(k->src_port);
		t.v4.dport = rte_be_to_cpu_16(k->dst_port);
		return rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, hp_rss_sym_key);
	}
	for (i = 0; i < 4; i++) {
		uint32_t s, d;

		memcpy(&s, k->src6 + 4 * i, 4);
		memcpy(&d, k->dst6 + 4 * i, 4);
		s = rte_be_to_cpu_32(s);
		d = rte_be_to_cpu_32(d);
		memcpy(t.v6.src_addr + 4 * i, &s, 4);
		memcpy(t.v6.dst_addr + 4 * i, &d, 4);
	}
	t.v6.sport = rte_be_to_cpu_16(k->src_port);
	t.v6.dport = rte_be_to_cpu_16(k->dst_port);
	return rte_softrss((uint32_t *)&t, RTE_THASH_V6_L4_LEN, hp_rss_sym_key);
}

/* A frame's hash; 0 for one the parser refuses (it goes to the RETA's
 * first entry, where the scheduler counts it as invalid). */
static inline uint32_t
hp_rss_hash_frame(const uint8_t *frame, uint32_t len)
{
	struct hp_flow_key k;
	struct hp_pkt_hdrs h;

	if (hp_parse_hdrs(frame, len, &k, &h) != HP_DROP_NONE)
		return 0;
	return hp_rss_hash_key(&k);
}

static inline unsigned int
hp_rss_queue(const struct hp_rss *r, uint32_t hash)
{
	return r->reta[hash % HP_RSS_RETA];
}

#endif /* HP_RSS_H */
