/* SPDX-License-Identifier: BSD-3-Clause
 * Packet metadata (an mbuf dynamic field), the packet-type table and
 * header classification. This is what every stage knows about a packet.
 */
#ifndef HP_PKT_H
#define HP_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#define HP_MAX_TYPES 16
#define HP_MAX_TASKS 4

/* heteroplane's 16-byte application header at the start of the L4 payload
 * of generated traffic (all fields big endian). Tasks leave it in the clear,
 * like an ESP header, so a receiver can find the per-flow sequence number
 * (AES-CTR counter) and the integrity tag. */
#define HP_HDR_MAGIC 0x48504c31u /* "HPL1" */
struct hp_app_hdr {
	uint32_t magic;
	uint32_t seq;    /* per-flow sequence set by the sender */
	uint32_t gen_id; /* low 32 bits of the generator's packet index */
	uint32_t tag;    /* CRC32C of the body as it was before any task ran */
} __attribute__((packed));

/* Why a packet was dropped at classification (never inside the pipeline). */
enum hp_drop_reason {
	HP_DROP_NONE = 0,
	HP_DROP_NOT_IP,         /* neither IPv4 nor IPv6 (ARP, LLDP, MPLS, ...) */
	HP_DROP_TRUNC_ETH,      /* shorter than its Ethernet header and tags */
	HP_DROP_TRUNC_IPV4,     /* IPv4 header or total length beyond the frame */
	HP_DROP_BAD_IPV4,       /* IHL < 5, version != 4 */
	HP_DROP_TRUNC_L4,       /* UDP/TCP header or length beyond the IP packet */
	HP_DROP_NOT_UDP_TCP,    /* other IP protocol (ICMP, ESP, ...) */
	HP_DROP_IP_FRAGMENT,    /* fragments carry no L4 header to classify */
	HP_DROP_SEGMENTED,      /* frame spread over several mbufs */
	HP_DROP_VLAN_DEPTH,     /* more than two VLAN tags */
	HP_DROP_TRUNC_IPV6,     /* IPv6 header, payload length or an extension
				 * header beyond the frame */
	HP_DROP_BAD_IPV6,       /* version != 6, payload length 0 (jumbogram) */
	HP_DROP_IPV6_EXT,       /* an IPv6 extension header not walked (see
				 * hp_parse_hdrs), or more than HP_IPV6_EXT_MAX */
	HP_DROP_REASONS
};
extern const char *const hp_drop_reason_names[HP_DROP_REASONS];

/* Per-packet status after the tasks. */
enum hp_status {
	HP_ST_OK = 0,
	HP_ST_TASK_ERR = 1, /* a task refused the packet: the scheduler drops it
			     * (reason task_error), it never leaves unprocessed */
};

/* The metadata every stage reads and writes (mbuf private area, so
 * nothing is copied between stages). Two cache lines, split by which core
 * writes them. Line 0 belongs to the scheduler and the generator (arrival,
 * deadline, order, type): no device reads or writes it, so it never
 * leaves their core. Line 1 is the device's: what its tasks read (flow,
 * data region, whether the sequence is unique) and everything a device
 * writes (step, status, times, results). A packet's metadata then crosses
 * between cores as one line each way instead of two (on the 2-vCPU VM
 * the difference was below its noise, bench/results/pipeline-2026-11-22d.md;
 * the count matters more where cores are farther apart). The one
 * exception: a batching device reads t_deadline (line 0) to decide when
 * to flush. */
struct hp_meta {
	/* line 0: scheduler and generator */
	uint64_t t_rx;        /* TSC at scheduler rx */
	uint64_t t_deadline;  /* TSC by which it must leave; 0 = none */
	uint64_t t_sched;     /* TSC when handed to a device queue */
	uint64_t sched_tag;   /* the scheduling policy's note on this packet
			       * (qlearn: its state-action per decision) */
	uint32_t flow_seq;    /* per-flow sequence assigned at rx */
	uint32_t flow_slot;   /* index of the flow in the scheduler's table,
			       * HP_FLOW_UNTRACKED when the table was full */
	uint16_t res16;
	uint8_t type;         /* packet type (1-based index into the type table) */
	uint8_t flags;        /* HP_MF_* */
	uint8_t res8[2];      /* spare */
	uint16_t gen_len;     /* frame length as the generator built it (a
			       * recycled frame must still have it; the
			       * scheduler's clear of line 0 stops before it) */
	/* line 1: the device's (classify writes the part up to res32) */
	uint64_t flow_id __rte_cache_aligned; /* hash of the 5-tuple */
	uint64_t t_work;      /* TSC when the device started the chain */
	uint64_t t_done;      /* TSC when the last task so far ended */
	uint32_t hdr_seq;     /* sequence from hp_app_hdr (or flow_seq) */
	uint16_t data_off;    /* offset of the task data region */
	uint16_t data_len;    /* length of the task data region */
	uint8_t task_err;     /* task-specific error code (an errno value) */
	/* Where the headers are, noted once by classification so that no
	 * task parses them again (hp_meta_hdrs): the IP header's offset with
	 * HP_HDR_IPV6 and HP_HDR_TCP, and how far before data_off the
	 * UDP/TCP header starts (its length, plus the hp header's). */
	uint8_t hdr_l3;
	uint8_t hdr_l4back;
	uint8_t step;         /* next task in the chain */
	uint8_t device;       /* device (worker) index that ran the chain */
	uint8_t status;       /* enum hp_status */
	/* flags in one byte, so that the app fits in line 1: written
	 * one after the other on the packet's way (seq_ok at classify,
	 * sec_err by a device's task), never at once */
	uint8_t seq_ok : 1;   /* hdr_seq is unique in the flow (hp_meta_seq_note) */
	uint8_t sec_err : 1;  /* the task that refused it is a security task
			       * (hp_task_fail_secure): the run's exit status
			       * says so */
	uint8_t owner : 3;    /* the scheduler lcore that owns the packet's
			       * flow (--sched-lcores, at most 8): written at
			       * classify, read by the device, which returns
			       * the packet to that lcore's completion ring */
	uint8_t app;          /* the packet's app with --apps (an index into the
			       * run's apps; 0 with one app): devices run its
			       * chain, so it is in their line */
	uint32_t res32 __rte_aligned(4); /* task result: e.g. DPI match count */
	uint32_t res32b;      /* task result: e.g. DPI first match id */
	uint8_t digest[16];   /* task result: e.g. MD5 */
};

/* What the scheduler clears at rx: line 0 up to gen_len. */
#define HP_META_SCHED_CLEAR offsetof(struct hp_meta, gen_len)
/* Line 1's part that classify() writes (the rest are task results). */
#define HP_META_DEV_CLEAR (offsetof(struct hp_meta, res32) - offsetof(struct hp_meta, flow_id))

/* hdr_l3: the IP header's offset (at most Ethernet and two tags: 22) in
 * the low bits, the family and the L4 protocol in the high ones. */
#define HP_HDR_L3_MASK 0x3f
#define HP_HDR_IPV6    0x40
#define HP_HDR_TCP     0x80

/* flow_slot of a packet whose flow found no room in the scheduler's flow
 * table: it has no per-flow state, so flow_seq is 0 for every packet of
 * that flow. Without an hp header (HP_MF_HPHDR) such a packet has no
 * unique sequence, and tasks that derive an IV or counter from it must
 * refuse it (task_err ENOTUNIQ) rather than reuse one. */
#define HP_FLOW_UNTRACKED UINT32_MAX

#define HP_MF_REORDER  0x01 /* flow needs order */
#define HP_MF_LATENCY  0x02 /* latency sensitive (has a deadline) */
#define HP_MF_HPHDR    0x04 /* carries an hp_app_hdr */
#define HP_MF_TCP      0x08
#define HP_MF_ADMITTED 0x40 /* passed the policy's admission (sched pythia) */
#define HP_MF_HELD     0x80 /* held by a configuration switch (sched pythia) */

/* Notes in line 1 whether hdr_seq is unique within the packet's flow (see
 * above), from flags and flow_slot in line 0: set once flow_slot and the
 * hp header are known, so that tasks read only line 1. */
static inline void
hp_meta_seq_note(struct hp_meta *md)
{
	md->seq_ok = (md->flags & HP_MF_HPHDR) || md->flow_slot != HP_FLOW_UNTRACKED;
}

/* Whether hdr_seq is unique within the packet's flow. */
static inline int
hp_meta_seq_unique(const struct hp_meta *md)
{
	return md->seq_ok;
}

/* The metadata lives in the mbuf private area, not in a dynamic field:
 * DPDK's dynamic-field space is 36 bytes shared with drivers and
 * libraries, too small for the stage timestamps. Every pool whose mbufs
 * enter the pipeline is created with HP_META_PRIV_SIZE (hp_pktmbuf_pool),
 * so the record sits right after struct rte_mbuf, in the same cache lines
 * the PMD already touched. */
#define HP_META_PRIV_SIZE RTE_ALIGN(sizeof(struct hp_meta), RTE_MBUF_PRIV_ALIGN)

static inline struct hp_meta *
hp_meta(struct rte_mbuf *m)
{
	return (struct hp_meta *)rte_mbuf_to_priv(m);
}

/* Prefetches a packet's metadata (two cache lines after the mbuf) for
 * writing (prefetchw), where the scheduler's classify() rewrites both:
 * line 1 was last written on a device's core, and a read prefetch would
 * bring it shared, so that the first store costs a second cross-core
 * transaction. DPDK 22.11's rte_prefetch0_write is still experimental
 * API, hence the builtin. */
static inline void
hp_prefetch_meta(struct rte_mbuf *m)
{
	const uint8_t *md = (const uint8_t *)hp_meta(m);

	__builtin_prefetch(md, 1, 3);
	__builtin_prefetch(md + RTE_CACHE_LINE_SIZE, 1, 3);
}

/* The same for a device: only line 1, the one it reads and writes. */
static inline void
hp_prefetch_meta_dev(struct rte_mbuf *m)
{
	__builtin_prefetch((const uint8_t *)hp_meta(m) + RTE_CACHE_LINE_SIZE, 1, 3);
}

/* Creates a packet pool whose mbufs carry an hp_meta. */
struct rte_mempool *hp_pktmbuf_pool(const char *name, unsigned int n,
				    int socket);

/* ---- packet-type table (thesis Table 4.1 by default) ---- */
struct hp_type {
	uint32_t min_len;    /* frame length range, inclusive */
	uint32_t max_len;
	bool reorder;
	bool latency;
	double deadline_us;  /* budget for latency-sensitive types */
};

struct hp_type_table {
	unsigned int n;
	struct hp_type t[HP_MAX_TYPES];
};

/* The largest deadline a type may have: an hour, the longest run. */
#define HP_DEADLINE_US_MAX 3.6e9

void hp_type_table_default(struct hp_type_table *tt, double deadline_us);
/* Loads "min,max,reorder,latency,deadline_us" lines; returns 0 or -errno
 * and writes a one-line reason into err. */
int hp_type_table_load(struct hp_type_table *tt, const char *path,
		       char *err, size_t errlen);
/* Returns the 1-based type for a frame, or 0 when no row matches. */
int hp_type_lookup(const struct hp_type_table *tt, uint32_t len,
		   bool reorder, bool latency);

/* hp_type_lookup's answers precomputed for frames shorter than
 * HP_TYPE_INDEX_LEN, per (reorder, latency) pair: the scheduler asks for
 * every packet, and scanning the rows cost ~40 instructions a packet
 * (callgrind, null app); the index is one load. Longer frames (jumbo) scan
 * the table. The index points at tt, which must outlive it unchanged. */
#define HP_TYPE_INDEX_LEN 2048
struct hp_type_index {
	const struct hp_type_table *tt;
	uint8_t t[4][HP_TYPE_INDEX_LEN];
};

void hp_type_index_build(struct hp_type_index *ix, const struct hp_type_table *tt);

static inline int
hp_type_index_lookup(const struct hp_type_index *ix, uint32_t len, bool reorder,
		     bool latency)
{
	if (likely(len < HP_TYPE_INDEX_LEN))
		return ix->t[(reorder ? 2 : 0) + (latency ? 1 : 0)][len];
	return hp_type_lookup(ix->tt, len, reorder, latency);
}

/* ---- classification ---- */

/* A flow's 5-tuple. IPv4 addresses are in src_ip/dst_ip; IPv6 ones in
 * src6/dst6 (ipv6 = 1; src_ip/dst_ip are 0 then), which an IPv4 key
 * leaves unwritten: compare and hash keys with hp_flow_hash, not memcmp. */
struct hp_flow_key {
	uint32_t src_ip;   /* network order */
	uint32_t dst_ip;
	uint16_t src_port; /* network order */
	uint16_t dst_port;
	uint8_t proto;
	uint8_t dscp;      /* IPv4 DSCP, or IPv6 traffic class >> 2 */
	uint8_t ipv6;
	uint8_t src6[16];
	uint8_t dst6[16];
};

/* Where a classified frame's headers are (offsets from the frame's start). */
struct hp_pkt_hdrs {
	uint16_t l3;       /* IP header: after Ethernet and 0..2 VLAN tags */
	uint16_t l4;       /* UDP/TCP header: after IPv4 options or the IPv6
			    * extension headers walked */
	uint16_t pay;      /* L4 payload */
	uint16_t pay_len;  /* its length: to the UDP length or the IP packet's
			    * end (Ethernet padding after it is not payload) */
	uint8_t ipv6;
	uint8_t proto;     /* IPPROTO_UDP or IPPROTO_TCP */
};

/* IPv6 extension headers walked before the L4 header, at most: hop-by-hop
 * options (0) and destination options (60), which say nothing about the
 * payload. The others are refused: fragment (44) as ip_fragment; routing
 * (43), whose last address would replace the destination in the L4
 * checksum's pseudo-header; AH (51), which authenticates the payload a task
 * changes; mobility, HIP, shim6 and the experimental values (135, 139, 140,
 * 253, 254) as ipv6_ext_header. ESP (50) and "no next header" (59) are not
 * UDP/TCP. */
#define HP_IPV6_EXT_MAX 4

/* 802.1Q (0x8100) and 802.1ad (0x88a8, and the pre-standard 0x9100) tags. */
static inline bool
hp_ether_is_vlan(uint16_t et_be)
{
	return et_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN) ||
	       et_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ) ||
	       et_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_QINQ1);
}

/* The IPv6 part of hp_parse_hdrs: the fixed header at off, the extension
 * headers walked (HP_IPV6_EXT_MAX), key and h->l4; *l4len gets the bytes
 * from the L4 header to the packet's end. */
static inline enum hp_drop_reason
hp_parse_ipv6(const uint8_t *frame, uint32_t len, uint32_t off, struct hp_flow_key *key,
	      struct hp_pkt_hdrs *h, uint32_t *l4len)
{
	const struct rte_ipv6_hdr *ip6 = (const void *)(frame + off);
	uint32_t end, l4 = off + sizeof(*ip6), n, vtc;
	uint8_t nh;

	if (len < l4)
		return HP_DROP_TRUNC_IPV6;
	vtc = rte_be_to_cpu_32(ip6->vtc_flow);
	if ((vtc >> 28) != 6 || ip6->payload_len == 0)
		return HP_DROP_BAD_IPV6;
	end = l4 + rte_be_to_cpu_16(ip6->payload_len);
	if (end > len)
		return HP_DROP_TRUNC_IPV6;
	nh = ip6->proto;
	for (n = 0; nh != IPPROTO_UDP && nh != IPPROTO_TCP; n++) {
		switch (nh) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_DSTOPTS:
			if (n == HP_IPV6_EXT_MAX)
				return HP_DROP_IPV6_EXT;
			if (l4 + 8 > end || l4 + (frame[l4 + 1] + 1u) * 8 > end)
				return HP_DROP_TRUNC_IPV6;
			nh = frame[l4];
			l4 += (frame[l4 + 1] + 1u) * 8;
			break;
		case IPPROTO_FRAGMENT:
			return HP_DROP_IP_FRAGMENT;
		case IPPROTO_ROUTING:
		case IPPROTO_AH:
		case 135: /* mobility */
		case 139: /* HIP */
		case 140: /* shim6 */
		case 253: /* experiments (RFC 3692) */
		case 254:
			return HP_DROP_IPV6_EXT;
		default:
			return HP_DROP_NOT_UDP_TCP;
		}
	}
	key->src_ip = 0;
	key->dst_ip = 0;
	memcpy(key->src6, ip6->src_addr, 16);
	memcpy(key->dst6, ip6->dst_addr, 16);
	key->ipv6 = 1;
	key->proto = nh;
	key->dscp = (uint8_t)((vtc >> 22) & 0x3f);
	h->ipv6 = 1;
	h->l4 = (uint16_t)l4;
	*l4len = end - l4;
	return HP_DROP_NONE;
}

/* Parses Ethernet (0..2 VLAN tags) / IPv4 or IPv6 / UDP|TCP: the 5-tuple
 * into key, where the headers are into h. Returns HP_DROP_NONE or the
 * reason the frame cannot be classified. Tags are only read: a packet
 * leaves with the tags it came with.
 * Inline: the scheduler classifies every packet with it (a call and the
 * key written through memory cost ~30 instructions per packet). */
static inline enum hp_drop_reason
hp_parse_hdrs(const uint8_t *frame, uint32_t len, struct hp_flow_key *key,
	      struct hp_pkt_hdrs *h)
{
	const struct rte_ether_hdr *eth = (const void *)frame;
	const struct rte_ipv4_hdr *ip;
	uint32_t off = sizeof(*eth), ihl, tot, l4len, hl;
	enum hp_drop_reason why;
	uint16_t et;

	if (len < sizeof(*eth))
		return HP_DROP_TRUNC_ETH;
	et = eth->ether_type;
	while (unlikely(hp_ether_is_vlan(et))) {
		if (off == sizeof(*eth) + 2 * sizeof(struct rte_vlan_hdr))
			return HP_DROP_VLAN_DEPTH;
		if (len < off + sizeof(struct rte_vlan_hdr))
			return HP_DROP_TRUNC_ETH;
		et = ((const struct rte_vlan_hdr *)(frame + off))->eth_proto;
		off += sizeof(struct rte_vlan_hdr);
	}
	h->l3 = (uint16_t)off;
	if (unlikely(et == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))) {
		why = hp_parse_ipv6(frame, len, off, key, h, &l4len);
		if (why != HP_DROP_NONE)
			return why;
		off = h->l4;
		goto l4;
	}
	if (et != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return HP_DROP_NOT_IP;
	if (len < off + sizeof(*ip))
		return HP_DROP_TRUNC_IPV4;
	ip = (const void *)(frame + off);
	if ((ip->version_ihl >> 4) != 4)
		return HP_DROP_BAD_IPV4;
	ihl = (ip->version_ihl & 0xf) * 4u;
	if (ihl < 20)
		return HP_DROP_BAD_IPV4;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot < ihl)
		return HP_DROP_BAD_IPV4;
	if (off + tot > len || off + ihl > len)
		return HP_DROP_TRUNC_IPV4;
	if (rte_be_to_cpu_16(ip->fragment_offset) &
	    (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))
		return HP_DROP_IP_FRAGMENT;
	key->src_ip = ip->src_addr;
	key->dst_ip = ip->dst_addr;
	key->proto = ip->next_proto_id;
	key->dscp = ip->type_of_service >> 2;
	key->ipv6 = 0;
	h->ipv6 = 0;
	off += ihl;
	h->l4 = (uint16_t)off;
	l4len = tot - ihl;
l4:
	if (key->proto == IPPROTO_UDP) {
		const struct rte_udp_hdr *u = (const void *)(frame + off);

		if (l4len < sizeof(*u))
			return HP_DROP_TRUNC_L4;
		if (rte_be_to_cpu_16(u->dgram_len) < sizeof(*u) ||
		    rte_be_to_cpu_16(u->dgram_len) > l4len)
			return HP_DROP_TRUNC_L4;
		key->src_port = u->src_port;
		key->dst_port = u->dst_port;
		hl = sizeof(*u);
		l4len = rte_be_to_cpu_16(u->dgram_len);
	} else if (key->proto == IPPROTO_TCP) {
		const struct rte_tcp_hdr *t = (const void *)(frame + off);

		if (l4len < sizeof(*t))
			return HP_DROP_TRUNC_L4;
		hl = (t->data_off >> 4) * 4u;
		if (hl < sizeof(*t) || hl > l4len)
			return HP_DROP_TRUNC_L4;
		key->src_port = t->src_port;
		key->dst_port = t->dst_port;
	} else {
		return HP_DROP_NOT_UDP_TCP;
	}
	h->proto = key->proto;
	h->pay = (uint16_t)(off + hl);
	h->pay_len = (uint16_t)(l4len - hl);
	return HP_DROP_NONE;
}

/* hp_parse_hdrs for those who need the 5-tuple and the L4 payload only:
 * fills key, the payload's offset and length. */
static inline enum hp_drop_reason
hp_parse(const uint8_t *frame, uint32_t len, struct hp_flow_key *key,
	 uint16_t *l4_payload_off, uint16_t *l4_payload_len)
{
	struct hp_pkt_hdrs h;
	enum hp_drop_reason why = hp_parse_hdrs(frame, len, key, &h);

	if (why == HP_DROP_NONE) {
		*l4_payload_off = h.pay;
		*l4_payload_len = h.pay_len;
	}
	return why;
}

/* The headers of a packet that classified: 0, or -EINVAL when they do
 * not parse (a multi-segment mbuf, or headers a task broke). */
static inline int
hp_pkt_hdrs(struct rte_mbuf *m, struct hp_flow_key *key, struct hp_pkt_hdrs *h)
{
	if (m->nb_segs != 1 ||
	    hp_parse_hdrs(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
			  key, h) != HP_DROP_NONE)
		return -EINVAL;
	return 0;
}

static inline uint64_t
hp_flow_hash(const struct hp_flow_key *k)
{
	uint32_t a, b;

	if (unlikely(k->ipv6)) {
		uint32_t w[8];
		unsigned int i;

		memcpy(w, k->src6, 16);
		memcpy(w + 4, k->dst6, 16);
		a = 0x9e3779b9;
		for (i = 0; i < 8; i++)
			a = rte_hash_crc_4byte(w[i], a);
	} else {
		a = rte_hash_crc_4byte(k->src_ip, 0x9e3779b9);
		a = rte_hash_crc_4byte(k->dst_ip, a);
	}
	b = rte_hash_crc_4byte(((uint32_t)k->src_port << 16) | k->dst_port, a);
	b = rte_hash_crc_4byte(k->proto, b);
	return ((uint64_t)a << 32) | b;
}

/* Where the task data of a classified frame is: its L4 payload at off
 * (len bytes), after the hp header when there is one (which then also
 * gives hdr_seq and HP_MF_HPHDR). */
static inline void
hp_meta_payload(struct hp_meta *md, const uint8_t *frame, uint16_t off, uint16_t len)
{
	md->data_off = off;
	md->data_len = len;
	if (len >= sizeof(struct hp_app_hdr)) {
		const struct hp_app_hdr *h = (const void *)(frame + off);

		if (h->magic == rte_cpu_to_be_32(HP_HDR_MAGIC)) {
			md->flags |= HP_MF_HPHDR;
			md->hdr_seq = rte_be_to_cpu_32(h->seq);
			md->data_off = off + sizeof(*h);
			md->data_len = len - sizeof(*h);
		}
	}
}

/* Notes a classified frame's headers (h from hp_parse_hdrs) in md's line
 * 1: the task data region (hp_meta_payload) and where the IP and L4
 * headers are, for hp_meta_hdrs. */
static inline void
hp_meta_classified(struct hp_meta *md, const uint8_t *frame, const struct hp_pkt_hdrs *h)
{
	hp_meta_payload(md, frame, h->pay, h->pay_len);
	md->hdr_l3 = (uint8_t)(h->l3 | (h->ipv6 ? HP_HDR_IPV6 : 0) |
			       (h->proto == IPPROTO_TCP ? HP_HDR_TCP : 0));
	md->hdr_l4back = (uint8_t)(md->data_off - h->l4);
}

/* A classified packet's headers from its metadata (hp_meta_classified),
 * without parsing the frame again: what hp_pkt_l4_fixup needs. pay and
 * pay_len are the task data region, whose end is the L4 payload's end
 * (the hp header before it, if any, is not task data). Re-parsing the
 * headers in the crypto task cost the worker ~9 % of its time a packet
 * (bench/results/pipeline-2026-11-26-issue20.md); this is a few loads
 * from the line the task reads anyway. */
static inline void
hp_meta_hdrs(const struct hp_meta *md, struct hp_pkt_hdrs *h)
{
	h->l3 = md->hdr_l3 & HP_HDR_L3_MASK;
	h->l4 = (uint16_t)(md->data_off - md->hdr_l4back);
	h->pay = md->data_off;
	h->pay_len = md->data_len;
	h->ipv6 = (md->hdr_l3 & HP_HDR_IPV6) != 0;
	h->proto = (md->hdr_l3 & HP_HDR_TCP) ? IPPROTO_TCP : IPPROTO_UDP;
}

/* AES block that names an IPv4 flow (see docs/packet-format.md). */
void hp_flow_block(const struct hp_flow_key *key, uint8_t domain,
		   uint8_t out[16]);

/* The message a flow's per-flow AES keys are derived from by CBC-MAC (AES
 * in CBC mode with a zero IV, the last block) under the master key,
 * docs/packet-format.md: for IPv4 the block of hp_flow_block (one block:
 * the CBC-MAC is the ECB encryption, as before IPv6); for IPv6
 * src6 | dst6 | src_port | dst_port | proto | 0 x 10 | domain. Returns its
 * length, 16 or HP_FLOW_MSG_MAX. */
#define HP_FLOW_MSG_MAX 48
unsigned int hp_flow_msg(const struct hp_flow_key *key, uint8_t domain,
			 uint8_t out[HP_FLOW_MSG_MAX]);

/* ---- headers after a task changed the payload ---- */

/* The port offloads hp_pkt_l4_fixup uses (RTE_ETH_TX_OFFLOAD_*). */
#define HP_PKT_TX_CKSUM_OFFLOADS (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | \
				  RTE_ETH_TX_OFFLOAD_UDP_CKSUM | \
				  RTE_ETH_TX_OFFLOAD_TCP_CKSUM)

/* After a task changed a classified packet's L4 payload (h from
 * hp_pkt_hdrs, taken before the change) and made it grow bytes longer at
 * its end (the frame's data already holds them): adds grow to the IPv4
 * total length or the IPv6 payload length and to the UDP length, and puts
 * the checksums right: the IPv4 header's when grow changed it, the
 * UDP/TCP one always (a UDP/IPv4 checksum of 0, "none", stays 0). With
 * the checksum offloads in tx_offload (the tx port's enabled
 * RTE_ETH_TX_OFFLOAD_* bits) it sets the mbuf's offload flags, l2_len and
 * l3_len and the pseudo-header sum the NIC starts from instead; without,
 * rte_ipv4_udptcp_cksum/rte_ipv6_udptcp_cksum. */
void hp_pkt_l4_fixup(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint16_t grow,
		     uint64_t tx_offload);
/* rte_ipv4_phdr_cksum's value without its pseudo-header struct on the
 * stack: the two byte stores it makes there and the 16-bit load that sums
 * them do not forward, which stalled each offloaded packet ~15 cycles
 * (perf annotate on ctr-task-bench, 2026-11-29). The same six 16-bit
 * words in memory order, folded as rte_raw_cksum does. */
static inline uint16_t
hp_pkt_phdr4_sum(const struct rte_ipv4_hdr *ip, uint64_t ol_flags)
{
	uint32_t a, b, s;
	uint16_t len = 0;

	memcpy(&a, &ip->src_addr, 4);
	memcpy(&b, &ip->dst_addr, 4);
	if (!(ol_flags & RTE_MBUF_F_TX_TCP_SEG))
		len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->total_length) -
						  rte_ipv4_hdr_len(ip)));
	s = (a & 0xffff) + (a >> 16) + (b & 0xffff) + (b >> 16) +
	    rte_cpu_to_be_16((uint16_t)ip->next_proto_id) + len;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* hp_pkt_l4_fixup (grow 0) before the payload changes, where only the
 * headers are read: an IPv4 UDP/TCP segment whose checksum the tx port
 * computes (the offload flags, l2_len, l3_len and the pseudo-header sum
 * in the field, exactly as hp_pkt_l4_fixup sets them). true when done;
 * false where hp_pkt_l4_fixup must run after the change: IPv6, no
 * offload for the protocol, a UDP checksum of 0, an L4 length the NIC
 * would not take from the IP header. Inline for the tasks' gather loops:
 * ~40 instructions a packet against ~100 through hp_pkt_l4_fixup
 * (callgrind on ctr-task-bench). */
static inline bool
hp_pkt_l4_fixup_early(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint64_t tx_offload)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_ipv4_hdr *ip = (const void *)(f + h->l3);
	const bool udp = h->proto == IPPROTO_UDP;
	uint8_t *ck = f + h->l4 + (udp ? offsetof(struct rte_udp_hdr, dgram_cksum) :
					 offsetof(struct rte_tcp_hdr, cksum));
	const uint16_t l3len = (uint16_t)(h->l4 - h->l3);
	uint16_t v;

	if (h->ipv6 || !(tx_offload & (udp ? RTE_ETH_TX_OFFLOAD_UDP_CKSUM :
						RTE_ETH_TX_OFFLOAD_TCP_CKSUM)) ||
	    (uint32_t)h->pay + h->pay_len - h->l4 !=
		    (uint32_t)rte_be_to_cpu_16(ip->total_length) - l3len)
		return false;
	memcpy(&v, ck, 2);
	if (udp && v == 0) /* "none", the sender's choice */
		return false;
	m->ol_flags |= RTE_MBUF_F_TX_IPV4 | (udp ? RTE_MBUF_F_TX_UDP_CKSUM :
						   RTE_MBUF_F_TX_TCP_CKSUM);
	m->l2_len = h->l3;
	m->l3_len = l3len;
	v = hp_pkt_phdr4_sum(ip, m->ol_flags);
	memcpy(ck, &v, 2);
	return true;
}

/* The same with grow 0 after a change of the frame's bytes [off, off +
 * len) inside the L4 segment whose new sum is known (sum: RFC 1071, the
 * 16-bit words in the data's byte order from byte off, folded; what the
 * CUDA plugin's in-place scatter gives): only the bytes around them are
 * summed. A range outside the segment is summed as hp_pkt_l4_fixup
 * would. */
void hp_pkt_l4_fixup_sum(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint16_t off,
			 uint16_t len, uint16_t sum, uint64_t tx_offload);

/* Whether the IPv4 header checksum and the UDP/TCP checksum of a
 * classified frame are right (a UDP/IPv4 checksum of 0 counts as right):
 * for tests and the sink. */
bool hp_pkt_cksum_ok(const uint8_t *frame, uint32_t len);

#endif /* HP_PKT_H */
