/* SPDX-License-Identifier: BSD-3-Clause
 * Packet metadata registration, the packet-type table (Johansson & Pap,
 * Table 4.1), the flows' key-derivation messages, and the headers after a
 * task changed a packet (lengths, IPv4/UDP/TCP checksums).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "hp_common.h"
#include "hp_pkt.h"

const char *const hp_drop_reason_names[HP_DROP_REASONS] = {
	[HP_DROP_NONE] = "none",
	[HP_DROP_NOT_IP] = "not_ip",
	[HP_DROP_TRUNC_ETH] = "truncated_ethernet",
	[HP_DROP_TRUNC_IPV4] = "truncated_ipv4",
	[HP_DROP_BAD_IPV4] = "bad_ipv4_header",
	[HP_DROP_TRUNC_L4] = "truncated_l4",
	[HP_DROP_NOT_UDP_TCP] = "not_udp_tcp",
	[HP_DROP_IP_FRAGMENT] = "ip_fragment",
	[HP_DROP_SEGMENTED] = "segmented_mbuf",
	[HP_DROP_VLAN_DEPTH] = "vlan_depth",
	[HP_DROP_TRUNC_IPV6] = "truncated_ipv6",
	[HP_DROP_BAD_IPV6] = "bad_ipv6_header",
	[HP_DROP_IPV6_EXT] = "ipv6_ext_header",
};

struct rte_mempool *
hp_pktmbuf_pool(const char *name, unsigned int n, int socket)
{
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create(name, n, RTE_MIN(256u, n / 8), HP_META_PRIV_SIZE,
				     RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (mp == NULL)
		HP_LOG(ERR, "cannot create pool %s of %u mbufs: %s", name, n,
		       rte_strerror(rte_errno));
	return mp;
}

void
hp_type_table_default(struct hp_type_table *tt, double deadline_us)
{
	/* Johansson & Pap, Table 4.1: size ranges x reorder x latency. */
	static const struct hp_type def[] = {
		{ 0, 255, true, true, 0 },
		{ 0, 255, false, false, 0 },
		{ 256, 1024, false, false, 0 },
		{ 256, 1024, true, false, 0 },
		{ 1025, 65535, false, false, 0 },
	};
	unsigned int i;

	memset(tt, 0, sizeof(*tt));
	tt->n = RTE_DIM(def);
	for (i = 0; i < tt->n; i++) {
		tt->t[i] = def[i];
		if (tt->t[i].latency)
			tt->t[i].deadline_us = deadline_us;
	}
}

static int
parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false")) {
		*out = false;
		return 0;
	}
	return -EINVAL;
}

/* Splits a type-table line into its 5 comma-separated fields, blanks
 * around each removed; the number of fields found. */
static unsigned int
type_fields(char *p, char *fld[5])
{
	unsigned int n = 0;
	char *e;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (n == 5)
			return 6;
		fld[n++] = p;
		e = p + strcspn(p, ",");
		p = *e == ',' ? e + 1 : NULL;
		*e = '\0';
		while (e > fld[n - 1] && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (p == NULL)
			return n;
	}
}

int
hp_type_table_load(struct hp_type_table *tt, const char *path, char *err,
		   size_t errlen)
{
	char line[256];
	unsigned int lineno = 0;
	FILE *f;
	int ret = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "cannot open type table %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	memset(tt, 0, sizeof(*tt));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line, *fld[5];
		unsigned int lo, hi;
		struct hp_type *t;
		double dl;

		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line too long", path, lineno);
			ret = -EINVAL;
			goto out;
		}
		line[strcspn(line, "\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\0' || *p == '\r')
			continue;
		if (type_fields(p, fld) != 5) {
			snprintf(err, errlen, "%s:%u: expected 'min,max,reorder,latency,deadline_us'",
				 path, lineno);
			ret = -EINVAL;
			goto out;
		}
		if (tt->n == HP_MAX_TYPES) {
			snprintf(err, errlen, "%s:%u: more than %d types", path,
				 lineno, HP_MAX_TYPES);
			ret = -E2BIG;
			goto out;
		}
		t = &tt->t[tt->n];
		/* every number whole and bounded: %u took 4294967551 as 255,
		 * %lf took nan and 1e400 */
		if (hp_parse_uint(fld[0], 0, 65535, &lo) < 0 ||
		    hp_parse_uint(fld[1], lo, 65535, &hi) < 0 ||
		    hp_parse_double(fld[4], 0, HP_DEADLINE_US_MAX, &dl) < 0 ||
		    parse_bool(fld[2], &t->reorder) < 0 ||
		    parse_bool(fld[3], &t->latency) < 0) {
			snprintf(err, errlen, "%s:%u: bad value (min<=max<=65535, yes/no flags, deadline 0..%.0f us)",
				 path, lineno, HP_DEADLINE_US_MAX);
			ret = -EINVAL;
			goto out;
		}
		t->min_len = lo;
		t->max_len = hi;
		t->deadline_us = dl;
		if (t->latency && dl <= 0) {
			snprintf(err, errlen, "%s:%u: latency-sensitive type needs a deadline > 0",
				 path, lineno);
			ret = -EINVAL;
			goto out;
		}
		tt->n++;
	}
	if (tt->n == 0) {
		snprintf(err, errlen, "%s: no types", path);
		ret = -EINVAL;
	}
out:
	fclose(f);
	return ret;
}

int
hp_type_lookup(const struct hp_type_table *tt, uint32_t len, bool reorder,
	       bool latency)
{
	unsigned int i;
	int size_match = 0;

	/* Exact row first; otherwise the first row of the right size, so a
	 * combination the table lacks still gets a size-consistent type. */
	for (i = 0; i < tt->n; i++) {
		const struct hp_type *t = &tt->t[i];

		if (len < t->min_len || len > t->max_len)
			continue;
		if (t->reorder == reorder && t->latency == latency)
			return i + 1;
		if (size_match == 0)
			size_match = i + 1;
	}
	return size_match;
}

void
hp_type_index_build(struct hp_type_index *ix, const struct hp_type_table *tt)
{
	unsigned int c, len;

	RTE_BUILD_BUG_ON(HP_MAX_TYPES > UINT8_MAX);
	ix->tt = tt;
	for (c = 0; c < 4; c++)
		for (len = 0; len < HP_TYPE_INDEX_LEN; len++)
			ix->t[c][len] = (uint8_t)hp_type_lookup(tt, len, c & 2, c & 1);
}


void
hp_flow_block(const struct hp_flow_key *k, uint8_t domain, uint8_t out[16])
{
	/* src ip | dst ip | src port | dst port | proto | 0 0 | domain, all in
	 * network order: docs/packet-format.md, reproducible by a receiver. */
	memcpy(out, &k->src_ip, 4);
	memcpy(out + 4, &k->dst_ip, 4);
	memcpy(out + 8, &k->src_port, 2);
	memcpy(out + 10, &k->dst_port, 2);
	out[12] = k->proto;
	out[13] = 0;
	out[14] = 0;
	out[15] = domain;
}


unsigned int
hp_flow_msg(const struct hp_flow_key *k, uint8_t domain, uint8_t out[HP_FLOW_MSG_MAX])
{
	if (!k->ipv6) {
		hp_flow_block(k, domain, out);
		return 16;
	}
	memcpy(out, k->src6, 16);
	memcpy(out + 16, k->dst6, 16);
	memcpy(out + 32, &k->src_port, 2);
	memcpy(out + 34, &k->dst_port, 2);
	out[36] = k->proto;
	memset(out + 37, 0, 10);
	out[47] = domain;
	return HP_FLOW_MSG_MAX;
}

/* Ones' complement sum of sums (each of an even-length part, or the last
 * part), folded to 16 bits. */
static inline uint16_t
fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The byte pass of the checksum: the 16-bit words of buf summed in the
 * byte order of the data, folded, as rte_raw_cksum returns it. With AVX2
 * (chosen at run time, as lib/nf's kernels are) 32 bytes a step into 32-bit
 * lanes, the low and high word of each apart, which cannot overflow below
 * 2^16 steps: ~45 instead of ~72 cycles at 778 B, ~75 instead of ~122 at
 * 1458 B (bench/results/headers-2026-11-26.md; rte_raw_cksum's loop built
 * for AVX2 by GCC is no faster). */
#if defined(RTE_ARCH_X86)
#include <immintrin.h>

static __attribute__((target("avx2"))) uint16_t
raw_sum_avx2(const void *buf, uint32_t len)
{
	const uint8_t *p = buf;
	const __m256i lo = _mm256_set1_epi32(0xffff);
	__m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
	uint32_t t[8], w;
	uint64_t sum = 0;
	uint16_t h;
	unsigned int i;

	for (; len >= 32; p += 32, len -= 32) {
		__m256i x = _mm256_loadu_si256((const void *)p);

		a = _mm256_add_epi32(a, _mm256_and_si256(x, lo));
		b = _mm256_add_epi32(b, _mm256_srli_epi32(x, 16));
	}
	_mm256_storeu_si256((void *)t, _mm256_add_epi32(a, b));
	for (i = 0; i < 8; i++)
		sum += t[i];
	for (; len >= 4; p += 4, len -= 4) {
		memcpy(&w, p, 4);
		sum += w;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		sum += h;
		p += 2;
		len -= 2;
	}
	if (len)
		sum += *p; /* the last byte, padded with a zero one (RFC 1071) */
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}
#endif

static inline uint16_t
raw_sum(const void *buf, uint32_t len)
{
#if defined(RTE_ARCH_X86)
	if (__builtin_cpu_supports("avx2"))
		return raw_sum_avx2(buf, len);
#endif
	return rte_raw_cksum(buf, len);
}

/* The folded sum of the pseudo-header (the addresses at addr, alen 8 for
 * IPv4 or 32 for IPv6, proto and the L4 length l4len) and the L4 segment,
 * in the byte order of the data, as rte_raw_cksum sums. One function for
 * both families and for the lengths the DPDK helpers (which take the L4
 * length from the IP header) get wrong: IPv6 extension headers walked, a
 * UDP length shorter than the IP payload. The pseudo-header is summed in
 * a few adds (rte_ipv4_udptcp_cksum's costs ~15 cycles more). */
/* Bytes [off, off + len) of an L4 segment whose sum is known already
 * (RFC 1071 in the data's byte order from byte off, folded): the
 * accelerator that wrote them summed them. */
struct known_sum {
	uint32_t off, len;
	uint16_t sum;
};

static inline uint32_t
swap16_if(int odd, uint16_t s)
{
	return odd ? (uint16_t)((s << 8) | (s >> 8)) : s;
}

/* The segment's raw sum, the known part taken as given: a part that
 * starts at an odd byte of the segment pairs its bytes the other way,
 * so its sum is byte-swapped (RFC 1071, byte order independence). */
static inline uint64_t
seg_sum(const uint8_t *l4, uint32_t l4len, const struct known_sum *k)
{
	const uint32_t e = k != NULL ? k->off + k->len : 0;

	if (k == NULL)
		return raw_sum(l4, l4len);
	return (uint64_t)raw_sum(l4, k->off) + swap16_if(k->off & 1, k->sum) +
	       swap16_if(e & 1, raw_sum(l4 + e, l4len - e));
}

static uint16_t
l4_sum(const void *addr, uint32_t alen, const void *l4, uint32_t l4len, uint8_t proto,
       const struct known_sum *k)
{
	const uint8_t *a = addr;
	uint64_t sum = (uint64_t)rte_cpu_to_be_16((uint16_t)proto) +
		       rte_cpu_to_be_16((uint16_t)l4len) + seg_sum(l4, l4len, k);
	uint32_t i, w;

	for (i = 0; i < alen; i += 4) {
		memcpy(&w, a + i, 4);
		sum += w;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Where the checksum is in a UDP or TCP header. */
static inline size_t
l4_cksum_off(uint8_t proto)
{
	return proto == IPPROTO_UDP ? offsetof(struct rte_udp_hdr, dgram_cksum) :
				      offsetof(struct rte_tcp_hdr, cksum);
}

/* Header fields through memcpy: the headers are packed structs at any
 * offset (after VLAN tags, IPv4 options). */
static inline void
put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static inline void
add_be16(uint8_t *p, uint16_t n)
{
	uint16_t v;

	memcpy(&v, p, 2);
	put16(p, rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(v) + n)));
}

static inline uint64_t
l4_offload(uint8_t proto)
{
	return proto == IPPROTO_UDP ? RTE_ETH_TX_OFFLOAD_UDP_CKSUM : RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
}

static inline uint64_t
l4_ol_flag(uint8_t proto)
{
	return proto == IPPROTO_UDP ? RTE_MBUF_F_TX_UDP_CKSUM : RTE_MBUF_F_TX_TCP_CKSUM;
}

/* Writes the checksum field ck of a UDP or TCP segment whose sum,
 * pseudo-header included, is sum with the field's old value in it: the old
 * value is taken out again (ones' complement: add its complement) instead
 * of zeroing the field first, whose 2-byte store the wide loads of the
 * sum right after would wait for (store forwarding fails: ~10 cycles).
 * The result is ~sum, where a UDP checksum of 0 is sent as 0xffff (0 says
 * "none"). */
static inline void
put_cksum(uint8_t *ck, uint16_t sum, uint8_t proto)
{
	uint16_t old;
	uint32_t s;

	memcpy(&old, ck, 2);
	s = (uint32_t)sum + (uint16_t)~old;
	sum = (uint16_t)~(uint16_t)((s & 0xffff) + (s >> 16));
	put16(ck, sum == 0 && proto == IPPROTO_UDP ? 0xffff : sum);
}

static void
fixup_ipv6(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint16_t grow, uint64_t offl,
	   const struct known_sum *k)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *l4 = f + h->l4;
	uint8_t *ck = l4 + l4_cksum_off(h->proto);
	struct rte_ipv6_hdr *ip6 = (void *)(f + h->l3);
	uint32_t l4len = (uint32_t)h->pay + h->pay_len + grow - h->l4;

	if (grow) {
		add_be16(f + h->l3 + offsetof(struct rte_ipv6_hdr, payload_len), grow);
		if (h->proto == IPPROTO_UDP)
			add_be16(l4 + offsetof(struct rte_udp_hdr, dgram_len), grow);
	}
	/* a NIC takes the L4 length from payload_len */
	if (l4len == rte_be_to_cpu_16(ip6->payload_len) && (offl & l4_offload(h->proto))) {
		m->ol_flags |= RTE_MBUF_F_TX_IPV6 | l4_ol_flag(h->proto);
		m->l2_len = h->l3;
		m->l3_len = (uint16_t)(h->l4 - h->l3);
		put16(ck, rte_ipv6_phdr_cksum(ip6, m->ol_flags));
		return;
	}
	put_cksum(ck, l4_sum(ip6->src_addr, 32, l4, l4len, h->proto, k), h->proto);
}

static void
fixup_ipv4(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint16_t grow, uint64_t offl,
	   const struct known_sum *k)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *l4 = f + h->l4;
	uint8_t *ck = l4 + l4_cksum_off(h->proto);
	struct rte_ipv4_hdr *ip = (void *)(f + h->l3);
	uint32_t l4len = (uint32_t)h->pay + h->pay_len + grow - h->l4;
	/* UDP/IPv4 without a checksum (0) was the sender's choice */
	bool none = h->proto == IPPROTO_UDP && ck[0] == 0 && ck[1] == 0;

	if (grow) {
		add_be16(f + h->l3 + offsetof(struct rte_ipv4_hdr, total_length), grow);
		if (h->proto == IPPROTO_UDP)
			add_be16(l4 + offsetof(struct rte_udp_hdr, dgram_len), grow);
		ip->hdr_checksum = 0;
		if (offl & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
			m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		else
			ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (none) {
		/* left as it is */
	} else if (l4len == rte_be_to_cpu_16(ip->total_length) - (uint32_t)(h->l4 - h->l3) &&
		   (offl & l4_offload(h->proto))) {
		/* (a NIC takes the L4 length from the total length) */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | l4_ol_flag(h->proto);
		put16(ck, hp_pkt_phdr4_sum(ip, m->ol_flags));
	} else {
		put_cksum(ck, l4_sum(&ip->src_addr, 8, l4, l4len, h->proto, k), h->proto);
	}
	if (m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) {
		m->l2_len = h->l3;
		m->l3_len = (uint16_t)(h->l4 - h->l3);
	}
}

/* Cost note (bench/results/headers-2026-11-26.md, x86-64-v2 build on an
 * AVX2 CPU, after the payload was written): ~43 cycles at 64 B, ~85 at
 * 778 B (the IMIX mean), ~105 at 1458 B, against 62/115/179 through
 * rte_ipv4_udptcp_cksum with the field zeroed first; re-parsing the
 * headers before costs ~12. The tasks call this right after they wrote
 * the payload, on the device's core while the payload is in its cache,
 * not on the scheduler's tx path, which every worker's packets share.
 * With the port's offloads the pass is the NIC's. */
void
hp_pkt_l4_fixup(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint16_t grow,
		uint64_t tx_offload)
{
	if (h->ipv6)
		fixup_ipv6(m, h, grow, tx_offload, NULL);
	else
		fixup_ipv4(m, h, grow, tx_offload, NULL);
}

/* Cost note: the checksum pass reads only the L4 bytes around the known
 * ones (headers: ~40 B), so it no longer grows with the payload
 * (bench/gpu_host). */
void
hp_pkt_l4_fixup_sum(struct rte_mbuf *m, const struct hp_pkt_hdrs *h, uint16_t off,
		    uint16_t len, uint16_t sum, uint64_t tx_offload)
{
	const struct known_sum k = { (uint32_t)off - h->l4, len, sum };
	/* only bytes inside the L4 segment can be taken as summed */
	const bool in = off >= h->l4 && (uint32_t)off + len <= (uint32_t)h->pay + h->pay_len;

	if (h->ipv6)
		fixup_ipv6(m, h, 0, tx_offload, in ? &k : NULL);
	else
		fixup_ipv4(m, h, 0, tx_offload, in ? &k : NULL);
}

bool
hp_pkt_cksum_ok(const uint8_t *frame, uint32_t len)
{
	const struct rte_ipv4_hdr *ip;
	struct hp_flow_key k;
	struct hp_pkt_hdrs h;
	const uint8_t *l4;
	uint32_t l4len;
	uint16_t ck;

	if (hp_parse_hdrs(frame, len, &k, &h) != HP_DROP_NONE)
		return false;
	l4 = frame + h.l4;
	l4len = (uint32_t)h.pay + h.pay_len - h.l4;
	memcpy(&ck, l4 + l4_cksum_off(h.proto), 2);
	if (h.ipv6) /* the UDP checksum is mandatory over IPv6; TCP's may be 0 */
		return (ck != 0 || h.proto != IPPROTO_UDP) && l4_sum(frame + h.l3 + offsetof(struct rte_ipv6_hdr, src_addr),
					 32, l4, l4len, h.proto, NULL) == 0xffff;
	ip = (const void *)(frame + h.l3);
	if (rte_ipv4_cksum(ip) != 0) /* ~(sum over a right header) */
		return false;
	if (h.proto == IPPROTO_UDP && ck == 0)
		return true;
	return l4_sum(&ip->src_addr, 8, l4, l4len, h.proto, NULL) == 0xffff;
}
