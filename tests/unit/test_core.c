/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the core blocks: packet-type table, classification (IPv4,
 * IPv6, VLAN/QinQ), headers after a task (lengths, checksums, offload
 * flags), small generated frames, reorder window (skips, timeouts, its
 * window pool), the scheduler's flow table, IMIX mix, histogram
 * percentiles, staging/retry and AES-CTR (NIST
 * SP 800-38A F.5.1 vectors through the task's process and verify paths).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "hp_aes_ctr.h"
#include "hp_common.h"
#include "hp_flowtab.h"
#include "hp_gen.h"
#include "hp_hist.h"
#include "hp_pkt.h"
#include "hp_reorder.h"
#include "hp_staging.h"
#include "hp_task.h"
#include "hp_test.h"

static struct rte_mempool *pool;

/* ---- type table ---- */
static void
test_type_table_default(void **state)
{
	struct hp_type_table tt;

	(void)state;
	hp_type_table_default(&tt, 500);
	assert_int_equal(tt.n, 5);
	assert_int_equal(hp_type_lookup(&tt, 243, true, true), 1);
	assert_int_equal(hp_type_lookup(&tt, 243, false, false), 2);
	assert_int_equal(hp_type_lookup(&tt, 486, false, false), 3);
	assert_int_equal(hp_type_lookup(&tt, 486, true, false), 4);
	assert_int_equal(hp_type_lookup(&tt, 1458, false, false), 5);
	/* boundaries of Table 4.1 */
	assert_int_equal(hp_type_lookup(&tt, 255, false, false), 2);
	assert_int_equal(hp_type_lookup(&tt, 256, false, false), 3);
	assert_int_equal(hp_type_lookup(&tt, 1024, true, false), 4);
	assert_int_equal(hp_type_lookup(&tt, 1025, false, false), 5);
	/* no exact row: first row of the right size */
	assert_int_equal(hp_type_lookup(&tt, 1458, true, true), 5);
	assert_true(tt.t[0].deadline_us == 500);
	assert_true(tt.t[1].deadline_us == 0);
}

/* The per-length index answers exactly as the row scan, for the default
 * table and for one with overlapping, jumbo and gapped rows, below and
 * above HP_TYPE_INDEX_LEN. */
static void
test_type_index(void **state)
{
	static struct hp_type_index ix;
	struct hp_type_table tt[2];
	unsigned int k, c, len;

	(void)state;
	hp_type_table_default(&tt[0], 500);
	memset(&tt[1], 0, sizeof(tt[1]));
	tt[1].n = 4;
	tt[1].t[0] = (struct hp_type){ .min_len = 60, .max_len = 99, .reorder = true };
	tt[1].t[1] = (struct hp_type){ .min_len = 80, .max_len = 3000, .latency = true };
	tt[1].t[2] = (struct hp_type){ .min_len = 2040, .max_len = 9000 };
	tt[1].t[3] = (struct hp_type){ .min_len = 9500, .max_len = 9600, .reorder = true };
	for (k = 0; k < 2; k++) {
		hp_type_index_build(&ix, &tt[k]);
		for (c = 0; c < 4; c++)
			for (len = 0; len < HP_TYPE_INDEX_LEN + 8000; len++)
				assert_int_equal(hp_type_index_lookup(&ix, len, c & 2, c & 1),
						 hp_type_lookup(&tt[k], len, c & 2, c & 1));
	}
	/* a few answers spelled out, so the test also fails if both agree
	 * on something wrong */
	assert_int_equal(hp_type_index_lookup(&ix, 90, true, false), 1);
	assert_int_equal(hp_type_index_lookup(&ix, 90, false, true), 2);
	assert_int_equal(hp_type_index_lookup(&ix, 2047, false, false), 3);
	assert_int_equal(hp_type_index_lookup(&ix, 2047, false, true), 2);
	assert_int_equal(hp_type_index_lookup(&ix, 5000, false, false), 3);
	assert_int_equal(hp_type_index_lookup(&ix, 9550, false, false), 4);
	assert_int_equal(hp_type_index_lookup(&ix, 9400, false, false), 0);
}

static void
test_type_table_load(void **state)
{
	char path[] = "/tmp/hp_types_XXXXXX", err[256];
	struct hp_type_table tt;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	hp_test_write_file(path, "# min,max,reorder,latency,deadline_us\n0,99,yes,yes,100\n100,65535,no,no,0\n");
	assert_int_equal(hp_type_table_load(&tt, path, err, sizeof(err)), 0);
	assert_int_equal(tt.n, 2);
	assert_int_equal(hp_type_lookup(&tt, 50, true, true), 1);
	assert_int_equal(hp_type_lookup(&tt, 5000, false, false), 2);
	hp_test_write_file(path, "0,99,maybe,yes,100\n");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, ":1:"));
	hp_test_write_file(path, "0,99,yes,yes,0\n");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	hp_test_write_file(path, "5,4,no,no,0\n");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	hp_test_write_file(path, "");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	unlink(path);
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
}

/* ---- classification of generated and malformed frames ---- */
static void
test_parse(void **state)
{
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	struct hp_flow_key k = { 0 };
	uint8_t buf[HP_GEN_MAX_FRAME];
	uint16_t off = 0, len = 0;
	char err[128];
	unsigned int i, flow;
	uint32_t size;

	(void)state;
	hp_type_table_default(&tt, 1000);
	assert_int_equal(hp_imix_parse(&mx, "243,486,1458", "2,1,2", err, sizeof(err)), 0);
	assert_int_equal(hp_gen_init(&g, &mx, &tt, 4, 7, err, sizeof(err)), 0);
	for (i = 0; i < 200; i++) {
		const struct hp_app_hdr *h;

		hp_gen_pick(&g, &size, &flow);
		hp_gen_frame(&g, flow, size, buf);
		assert_int_equal(hp_parse(buf, size, &k, &off, &len), HP_DROP_NONE);
		assert_int_equal(off + len, size);
		/* the type survives the trip through real headers */
		assert_int_equal(hp_type_lookup(&tt, size, k.proto == IPPROTO_TCP,
						 k.dscp == HP_DSCP_EF), g.flows[flow].type);
		h = (const void *)(buf + off);
		assert_int_equal(rte_be_to_cpu_32(h->magic), HP_HDR_MAGIC);
		assert_int_equal(rte_be_to_cpu_32(h->tag),
				 hp_crc32c(buf + off + 16, len - 16));
		/* IPv4 header and UDP/TCP checksums the generator wrote */
		assert_true(hp_pkt_cksum_ok(buf, size));
		/* truncations are caught with a reason */
		assert_int_equal(hp_parse(buf, 10, &k, &off, &len), HP_DROP_TRUNC_ETH);
		assert_int_equal(hp_parse(buf, 30, &k, &off, &len), HP_DROP_TRUNC_IPV4);
		assert_int_equal(hp_parse(buf, size - 1, &k, &off, &len), HP_DROP_TRUNC_IPV4);
	}
	/* IHL below 5 */
	buf[14] = 0x44;
	assert_int_equal(hp_parse(buf, size, &k, &off, &len), HP_DROP_BAD_IPV4);
	buf[14] = 0x45;
	/* an IPv4 packet under the IPv6 ethertype: version 4 */
	buf[12] = 0x86;
	buf[13] = 0xdd;
	assert_int_equal(hp_parse(buf, size, &k, &off, &len), HP_DROP_BAD_IPV6);
	buf[12] = 0x08; /* ARP */
	buf[13] = 0x06;
	assert_int_equal(hp_parse(buf, size, &k, &off, &len), HP_DROP_NOT_IP);
	hp_gen_free(&g);
	/* CRC32C check value (RFC 3720 B.4: 32 bytes of zeros) */
	memset(buf, 0, 32);
	assert_int_equal(hp_crc32c(buf, 32), 0x8a9136aa);
}

/* ---- IPv6, VLAN and QinQ; headers after a task ---- */

/* Made by scapy (independent of our checksum code): IPv6 (traffic class
 * EF) / hop-by-hop / destination options / UDP 1234 > 5678 / 37 bytes,
 * and 802.1ad 100 / 802.1Q 200 / IPv4 with a 4-byte option / TCP / 41
 * bytes. */
static const uint8_t v6_ext_udp[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd,
	0x6b, 0x80, 0x00, 0x00, 0x00, 0x3d, 0x00, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x3c, 0x00,
	0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00,
	0x04, 0xd2, 0x16, 0x2e, 0x00, 0x2d, 0x31, 0xd9, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
	0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13,
	0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21,
	0x22, 0x23, 0x24,
};

static const uint8_t qinq_v4opt_tcp[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xa8,
	0x00, 0x64, 0x81, 0x00, 0x00, 0xc8, 0x08, 0x00, 0x46, 0x00, 0x00, 0x55, 0x00, 0x01,
	0x00, 0x00, 0x40, 0x06, 0x63, 0x9f, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
	0x01, 0x01, 0x01, 0x00, 0x9c, 0x40, 0x01, 0xbb, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x50, 0x18, 0x20, 0x00, 0x1a, 0x28, 0x00, 0x00, 0x32, 0x33, 0x34, 0x35,
	0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43,
	0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50, 0x51,
	0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a,
};

static enum hp_drop_reason
parse_hdrs(const uint8_t *f, uint32_t len, struct hp_flow_key *k, struct hp_pkt_hdrs *h)
{
	return hp_parse_hdrs(f, len, k, h);
}

/* An IPv6/UDP frame with n extension headers of type t (8 bytes each)
 * before the UDP header; returns its length. */
static uint32_t
v6_chain(uint8_t *f, unsigned int n, uint8_t t)
{
	uint32_t off = 54, plen = n * 8 + 8 + 4;
	unsigned int i;

	memcpy(f, v6_ext_udp, 54);
	f[18] = (uint8_t)(plen >> 8);
	f[19] = (uint8_t)plen;
	f[20] = n ? t : IPPROTO_UDP;
	for (i = 0; i < n; i++, off += 8) {
		memset(f + off, 0, 8);
		f[off] = i + 1 < n ? t : IPPROTO_UDP;
	}
	memset(f + off, 0, 12);
	f[off + 5] = 12; /* UDP length */
	return off + 12;
}

static void
test_parse_foreign(void **state)
{
	struct hp_flow_key k, k2;
	struct hp_pkt_hdrs h = { 0 };
	uint8_t f[256], msg[HP_FLOW_MSG_MAX];
	uint32_t n;

	(void)state;
	/* IPv6 with two extension headers walked */
	assert_int_equal(parse_hdrs(v6_ext_udp, sizeof(v6_ext_udp), &k, &h), HP_DROP_NONE);
	assert_int_equal(k.ipv6, 1);
	assert_int_equal(h.ipv6, 1);
	assert_int_equal(k.proto, IPPROTO_UDP);
	assert_int_equal(k.dscp, HP_DSCP_EF);
	assert_int_equal(rte_be_to_cpu_16(k.src_port), 1234);
	assert_int_equal(rte_be_to_cpu_16(k.dst_port), 5678);
	assert_memory_equal(k.src6, v6_ext_udp + 22, 16);
	assert_memory_equal(k.dst6, v6_ext_udp + 38, 16);
	assert_int_equal(h.l3, 14);
	assert_int_equal(h.l4, 14 + 40 + 16);
	assert_int_equal(h.pay, h.l4 + 8);
	assert_int_equal(h.pay_len, 37);
	assert_true(hp_pkt_cksum_ok(v6_ext_udp, sizeof(v6_ext_udp)));
	/* the 5-tuple names the flow: a high address byte changes its hash */
	k2 = k;
	k2.dst6[0] ^= 0x80;
	assert_true(hp_flow_hash(&k) != hp_flow_hash(&k2));
	assert_int_equal(hp_flow_msg(&k, 0x02, msg), 48);
	assert_memory_equal(msg, k.src6, 16);
	assert_memory_equal(msg + 16, k.dst6, 16);
	assert_int_equal(msg[36], IPPROTO_UDP);
	assert_int_equal(msg[47], 0x02);
	/* 802.1ad + 802.1Q, IPv4 options: the offsets move, the tags stay */
	assert_int_equal(parse_hdrs(qinq_v4opt_tcp, sizeof(qinq_v4opt_tcp), &k, &h),
			 HP_DROP_NONE);
	assert_int_equal(k.ipv6, 0);
	assert_int_equal(k.proto, IPPROTO_TCP);
	assert_int_equal(h.l3, 22);
	assert_int_equal(h.l4, 22 + 24);
	assert_int_equal(h.pay, 22 + 24 + 20);
	assert_int_equal(h.pay_len, 41);
	assert_true(hp_pkt_cksum_ok(qinq_v4opt_tcp, sizeof(qinq_v4opt_tcp)));
	assert_int_equal(hp_flow_msg(&k, 0x01, msg), 16);
	/* a third tag, a cut tag, ARP inside the tags */
	memcpy(f, qinq_v4opt_tcp, 16);
	f[16] = 0x81; f[17] = 0x00; f[18] = 0; f[19] = 7;
	f[20] = 0x81; f[21] = 0x00;
	memcpy(f + 22, qinq_v4opt_tcp + 18, sizeof(qinq_v4opt_tcp) - 18);
	assert_int_equal(parse_hdrs(f, sizeof(qinq_v4opt_tcp) + 4, &k, &h), HP_DROP_VLAN_DEPTH);
	assert_int_equal(parse_hdrs(qinq_v4opt_tcp, 16, &k, &h), HP_DROP_TRUNC_ETH);
	memcpy(f, qinq_v4opt_tcp, sizeof(qinq_v4opt_tcp));
	f[20] = 0x08; f[21] = 0x06;
	assert_int_equal(parse_hdrs(f, sizeof(qinq_v4opt_tcp), &k, &h), HP_DROP_NOT_IP);
	/* IPv6: what is refused, and why */
	memcpy(f, v6_ext_udp, sizeof(v6_ext_udp));
	n = sizeof(v6_ext_udp);
	f[20] = IPPROTO_ROUTING;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_IPV6_EXT);
	f[20] = IPPROTO_AH;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_IPV6_EXT);
	f[20] = IPPROTO_FRAGMENT;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_IP_FRAGMENT);
	f[20] = IPPROTO_ESP;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_NOT_UDP_TCP);
	f[20] = IPPROTO_ICMPV6;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_NOT_UDP_TCP);
	f[20] = 0;
	f[55] = 9; /* hop-by-hop header beyond the packet */
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_TRUNC_IPV6);
	f[55] = 0;
	f[19] = 0xff; /* payload length beyond the frame */
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_TRUNC_IPV6);
	f[19] = 0;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_BAD_IPV6); /* jumbogram */
	f[19] = 0x3d;
	assert_int_equal(parse_hdrs(f, 50, &k, &h), HP_DROP_TRUNC_IPV6);
	f[14] = 0x4b;
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_BAD_IPV6);
	/* up to HP_IPV6_EXT_MAX extension headers are walked */
	n = v6_chain(f, HP_IPV6_EXT_MAX, IPPROTO_DSTOPTS);
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_NONE);
	assert_int_equal(h.l4, 54 + 8 * HP_IPV6_EXT_MAX);
	assert_int_equal(h.pay_len, 4);
	n = v6_chain(f, HP_IPV6_EXT_MAX + 1, IPPROTO_HOPOPTS);
	assert_int_equal(parse_hdrs(f, n, &k, &h), HP_DROP_IPV6_EXT);
	/* every reason has a name */
	for (n = 0; n < HP_DROP_REASONS; n++)
		assert_non_null(hp_drop_reason_names[n]);
}

/* What a NIC with checksum offload does with the flags hp_pkt_l4_fixup
 * set: the IPv4 header checksum, and the L4 one from the pseudo-header
 * sum in its field. */
static void
nic_tx_cksum(struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (void *)(f + m->l2_len);
	uint8_t *l4 = f + m->l2_len + m->l3_len;
	uint32_t l4len = rte_pktmbuf_data_len(m) - m->l2_len - m->l3_len;
	uint16_t ck;

	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	if (!(m->ol_flags & RTE_MBUF_F_TX_L4_MASK))
		return;
	if (m->ol_flags & RTE_MBUF_F_TX_IPV4)
		l4len = rte_be_to_cpu_16(ip->total_length) - m->l3_len;
	else
		l4len = rte_be_to_cpu_16(((struct rte_ipv6_hdr *)ip)->payload_len);
	ck = (uint16_t)~rte_raw_cksum(l4, l4len);
	if ((m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM) {
		if (ck == 0)
			ck = 0xffff;
		memcpy(l4 + 6, &ck, 2);
	} else {
		memcpy(l4 + 16, &ck, 2);
	}
}

/* Adds d to the big-endian 16-bit field at p. */
static void
add_be16_test(uint8_t *p, int d)
{
	uint16_t v;

	memcpy(&v, p, 2);
	v = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(v) + d));
	memcpy(p, &v, 2);
}

static struct rte_mbuf *
mbuf_of(const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	return m;
}

static void
test_l4_fixup(void **state)
{
	static const struct {
		const uint8_t *f;
		uint32_t len;
	} v[] = { { v6_ext_udp, sizeof(v6_ext_udp) }, { qinq_v4opt_tcp, sizeof(qinq_v4opt_tcp) } };
	struct hp_flow_key k;
	struct hp_pkt_hdrs h, h2;
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	char err[128];
	unsigned int i, j, r, udp_short = 0;

	(void)state;
	for (i = 0; i < RTE_DIM(v); i++) {
		for (r = 0; r < 3; r++) { /* software, offload, grown */
			struct rte_mbuf *m = mbuf_of(v[i].f, v[i].len);
			uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
			uint16_t grow = r == 2 ? 16 : 0;

			assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
			for (j = h.pay; j < h.pay + h.pay_len; j++)
				f[j] ^= 0x5a; /* "encrypted" */
			assert_false(hp_pkt_cksum_ok(f, m->data_len));
			if (grow)
				memset(rte_pktmbuf_append(m, grow), 0x10, grow);
			f = rte_pktmbuf_mtod(m, uint8_t *);
			hp_pkt_l4_fixup(m, &h, grow, r == 1 ? HP_PKT_TX_CKSUM_OFFLOADS : 0);
			if (r == 1 && h.ipv6) /* extension headers: done here */
				assert_int_equal(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0);
			if (r == 1 && !h.ipv6) {
				assert_int_equal(m->ol_flags & RTE_MBUF_F_TX_L4_MASK,
						 RTE_MBUF_F_TX_TCP_CKSUM);
				assert_int_equal(m->l2_len, 22);
				assert_int_equal(m->l3_len, 24);
				nic_tx_cksum(m);
			}
			assert_true(hp_pkt_cksum_ok(f, m->data_len));
			assert_int_equal(hp_pkt_hdrs(m, &k, &h2), 0);
			assert_int_equal(h2.pay_len, h.pay_len + grow);
			if (r == 0) { /* undone: scapy's checksum again */
				for (j = h.pay; j < h.pay + h.pay_len; j++)
					f[j] ^= 0x5a;
				hp_pkt_l4_fixup(m, &h, 0, 0);
				assert_memory_equal(f, v[i].f, v[i].len);
			}
			rte_pktmbuf_free(m);
		}
	}
	/* generated frames (IPv4/UDP|TCP, 60..1518 bytes): a UDP checksum of
	 * 0 ("none") stays 0, offloads are set for the NIC */
	hp_type_table_default(&tt, 1000);
	assert_int_equal(hp_imix_parse(&mx, "60,64,200,1518", "1,1,1,1", err, sizeof(err)), 0);
	assert_int_equal(hp_gen_init(&g, &mx, &tt, 2, 9, err, sizeof(err)), 0);
	for (i = 0; i < 40; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint8_t *f, zero[2] = { 0, 0 };

		assert_non_null(m);
		assert_int_equal(hp_gen_build(&g, m), 0);
		f = rte_pktmbuf_mtod(m, uint8_t *);
		assert_true(hp_pkt_cksum_ok(f, m->data_len));
		assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
		f[h.pay_len ? h.pay : 0] ^= 1;
		if (h.proto == IPPROTO_UDP && i % 2)
			memset(f + h.l4 + 6, 0, 2);
		hp_pkt_l4_fixup(m, &h, 0, i % 4 == 3 ? HP_PKT_TX_CKSUM_OFFLOADS : 0);
		if (h.proto == IPPROTO_UDP && i % 2) {
			assert_memory_equal(f + h.l4 + 6, zero, 2);
			assert_int_equal(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0);
		}
		if (i % 4 == 3 && (m->ol_flags & RTE_MBUF_F_TX_L4_MASK)) {
			/* the pseudo-header sum is DPDK's */
			uint16_t ck, want = rte_ipv4_phdr_cksum((void *)(f + h.l3), m->ol_flags);

			memcpy(&ck, f + h.l4 + (h.proto == IPPROTO_UDP ? 6 : 16), 2);
			assert_int_equal(ck, want);
		}
		if (i % 4 == 3)
			nic_tx_cksum(m);
		assert_true(hp_pkt_cksum_ok(f, m->data_len));
		/* a UDP length 4 short of the IPv4 payload: the checksum is the
		 * datagram's (RFC 768), done here, not by a NIC that would take
		 * the IP length (found by fuzz_core) */
		if (h.proto == IPPROTO_UDP && h.pay_len >= 4) {
			add_be16_test(f + h.l4 + 4, -4);
			assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
			m->ol_flags = 0;
			hp_pkt_l4_fixup(m, &h, 0, HP_PKT_TX_CKSUM_OFFLOADS);
			assert_int_equal(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0);
			assert_true(hp_pkt_cksum_ok(f, m->data_len));
			udp_short++;
		}
		rte_pktmbuf_free(m);
	}
	assert_true(udp_short > 0);
	hp_gen_free(&g);
}

/* hp_pkt_l4_fixup_sum (the checksum after an in-place GPU commit, from
 * the sum of the changed bytes): the same bytes as hp_pkt_l4_fixup for
 * changed ranges at even and odd offsets from the L4 header, of even
 * and odd lengths, with and without bytes after them; a range outside
 * the L4 segment is summed whole. */
static void
test_l4_fixup_sum(void **state)
{
	static const struct {
		const uint8_t *f;
		uint32_t len;
	} v[] = { { v6_ext_udp, sizeof(v6_ext_udp) }, { qinq_v4opt_tcp, sizeof(qinq_v4opt_tcp) } };
	struct hp_flow_key k;
	struct hp_pkt_hdrs h;
	unsigned int i, c;

	(void)state;
	for (i = 0; i < RTE_DIM(v); i++) {
		for (c = 0; c < 6; c++) {
			struct rte_mbuf *a = mbuf_of(v[i].f, v[i].len), *b = mbuf_of(v[i].f, v[i].len);
			uint8_t *fa = rte_pktmbuf_mtod(a, uint8_t *), *fb = rte_pktmbuf_mtod(b, uint8_t *);
			uint32_t off, len, j;
			uint64_t s = 0;

			assert_int_equal(hp_pkt_hdrs(a, &k, &h), 0);
			/* whole payload, odd start, odd length, a hole after,
			 * the L4 header's tail too, outside the segment */
			off = c == 1 || c == 2 ? h.pay + 1u : c == 4 ? h.l4 + 9u : c == 5 ? 2u : h.pay;
			len = c == 0 || c == 4 ? h.pay + h.pay_len - off : c == 2 ? h.pay_len - 2u :
			      c == 5 ? 10u : h.pay_len - 5u;
			for (j = off; j < off + len; j++) {
				fa[j] ^= (uint8_t)(0x5a + j);
				fb[j] = fa[j];
				s += (uint64_t)fa[j] << (8 * ((j - off) & 1));
			}
			while (s >> 16)
				s = (s & 0xffff) + (s >> 16);
			hp_pkt_l4_fixup_sum(a, &h, (uint16_t)off, (uint16_t)len, (uint16_t)s, 0);
			hp_pkt_l4_fixup(b, &h, 0, 0);
			assert_memory_equal(fa, fb, v[i].len);
			assert_true(c == 5 || hp_pkt_cksum_ok(fa, a->data_len));
			rte_pktmbuf_free(a);
			rte_pktmbuf_free(b);
		}
	}
}

/* Checksums whose right value is 0 (found by fuzz_core: an IPv6/TCP frame
 * refused): the checksum's value moved into the first payload word (ones'
 * complement: the sum stays), so that 0 in the field is right. A TCP
 * checksum of 0 is a value like any other. A UDP one is sent as 0xffff
 * (the same in ones' complement): 0 is refused over IPv6 (mandatory
 * there, RFC 8200 8.1) and reads as "none" over IPv4, which
 * hp_pkt_l4_fixup leaves alone. The IPv6/TCP frame is v6_ext_udp with a
 * TCP header for the UDP one, the IPv4/UDP frame qinq_v4opt_tcp with a
 * UDP one. */
static void
test_cksum_zero(void **state)
{
	uint8_t v6tcp[sizeof(v6_ext_udp)], v4udp[sizeof(qinq_v4opt_tcp)];
	const struct {
		const uint8_t *f;
		uint32_t len;
	} v[] = { { v6tcp, sizeof(v6tcp) }, { v4udp, sizeof(v4udp) },
		  { v6_ext_udp, sizeof(v6_ext_udp) }, { qinq_v4opt_tcp, sizeof(qinq_v4opt_tcp) } };
	const uint16_t ones = 0xffff;
	struct hp_flow_key k;
	struct hp_pkt_hdrs h;
	unsigned int i;

	(void)state;
	memcpy(v6tcp, v6_ext_udp, sizeof(v6tcp));
	v6tcp[62] = IPPROTO_TCP; /* the destination options' next header */
	memset(v6tcp + 74, 0, 16);
	v6tcp[70 + 12] = 0x50;   /* data offset: 5 words */
	memcpy(v4udp, qinq_v4opt_tcp, sizeof(v4udp));
	v4udp[22 + 9] = IPPROTO_UDP;
	v4udp[22 + 10] = v4udp[22 + 11] = 0;
	((struct rte_ipv4_hdr *)(v4udp + 22))->hdr_checksum =
		rte_ipv4_cksum((const struct rte_ipv4_hdr *)(v4udp + 22));
	v4udp[46 + 4] = 0;
	v4udp[46 + 5] = sizeof(v4udp) - 46; /* UDP length: to the frame's end */
	v4udp[46 + 6] = 0x12;                /* a checksum, not "none" */
	for (i = 0; i < RTE_DIM(v); i++) {
		struct rte_mbuf *m = mbuf_of(v[i].f, v[i].len);
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), *ck;
		uint16_t c, w;
		uint32_t sum;
		bool udp;

		assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
		udp = h.proto == IPPROTO_UDP;
		hp_pkt_l4_fixup(m, &h, 0, 0);
		assert_true(hp_pkt_cksum_ok(f, v[i].len));
		ck = f + h.l4 + (udp ? 6 : 16);
		memcpy(&c, ck, 2);
		assert_true(c != 0);
		memcpy(&w, f + h.pay, 2);
		sum = (uint32_t)c + w;
		w = (uint16_t)((sum & 0xffff) + (sum >> 16));
		memcpy(f + h.pay, &w, 2);
		memset(ck, 0, 2);
		assert_int_equal(hp_pkt_cksum_ok(f, v[i].len), !(h.ipv6 && udp));
		hp_pkt_l4_fixup(m, &h, 0, 0);
		memcpy(&c, ck, 2);
		assert_int_equal(c, h.ipv6 && udp ? ones : 0);
		assert_true(hp_pkt_cksum_ok(f, v[i].len));
		if (udp) { /* 0xffff, as sent, stays */
			memcpy(ck, &ones, 2);
			assert_true(hp_pkt_cksum_ok(f, v[i].len));
			hp_pkt_l4_fixup(m, &h, 0, 0);
			memcpy(&c, ck, 2);
			assert_int_equal(c, ones);
		}
		rte_pktmbuf_free(m);
	}
}

/* 60- and 64-byte frames: generated, classified, checksums right; a TCP
 * frame below 70 bytes has no room for the hp header and carries none. */
static void
test_gen_small_frames(void **state)
{
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	struct hp_flow_key k;
	uint8_t buf[HP_GEN_MAX_FRAME];
	uint16_t off, len;
	unsigned int i, flow, tcp = 0, udp = 0;
	uint32_t size, n;
	char err[128];

	(void)state;
	hp_type_table_default(&tt, 1000);
	assert_true(hp_imix_parse(&mx, "59", "1", err, sizeof(err)) < 0);
	assert_int_equal(hp_imix_parse(&mx, "60,64", "1,1", err, sizeof(err)), 0);
	assert_int_equal(hp_gen_init(&g, &mx, &tt, 3, 11, err, sizeof(err)), 0);
	for (i = 0; i < 100; i++) {
		const struct hp_app_hdr *h;

		hp_gen_pick(&g, &size, &flow);
		n = hp_gen_frame(&g, flow, size, buf);
		assert_int_equal(n, size);
		assert_true(n == 60 || n == 64);
		assert_int_equal(hp_parse(buf, n, &k, &off, &len), HP_DROP_NONE);
		assert_int_equal(off + len, n);
		assert_true(hp_pkt_cksum_ok(buf, n));
		h = (const void *)(buf + off);
		if (k.proto == IPPROTO_TCP) {
			tcp++;
			assert_int_equal(len, n - 54);
			assert_true(len < sizeof(*h));
		} else {
			udp++;
			assert_int_equal(rte_be_to_cpu_32(h->magic), HP_HDR_MAGIC);
			assert_int_equal(rte_be_to_cpu_32(h->tag),
					 hp_crc32c(buf + off + 16, len - 16));
		}
	}
	assert_true(tcp > 0 && udp > 0);
	hp_gen_free(&g);
}

/* ---- reorder window ---- */
#define W 8
static struct rte_mbuf *
tag(uintptr_t seq)
{
	return (struct rte_mbuf *)(seq + 1); /* the window never dereferences */
}

static uintptr_t
seq_of(struct rte_mbuf *m)
{
	return (uintptr_t)m - 1;
}

static void
test_reorder_in_order(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];
	uint32_t s;

	(void)state;
	assert_int_equal(hp_reorder_init(&r, 4, W), 0);
	for (s = 0; s < 100; s++) {
		assert_int_equal(hp_reorder_push(&r, 1, s, tag(s), out), 1);
		assert_int_equal(seq_of(out[0]), s);
	}
	assert_int_equal(r.st.in_order, 100);
	assert_int_equal(r.held, 0);
	hp_reorder_free(&r);
	assert_true(hp_reorder_init(&r, 4, 6) < 0);
}

static void
test_reorder_hold_and_release(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];

	(void)state;
	assert_int_equal(hp_reorder_init(&r, 2, W), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 0, tag(0), out), 1);
	assert_int_equal(hp_reorder_push(&r, 0, 2, tag(2), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 3, tag(3), out), 0);
	assert_int_equal(r.held, 2);
	assert_int_equal(hp_reorder_push(&r, 0, 1, tag(1), out), 3);
	assert_int_equal(seq_of(out[0]), 1);
	assert_int_equal(seq_of(out[1]), 2);
	assert_int_equal(seq_of(out[2]), 3);
	assert_int_equal(r.st.in_order, 4);
	assert_int_equal(r.st.late, 0);
	assert_int_equal(r.st.arrived_ooo, 1); /* 1, overtaken by 2 and 3 */
	assert_int_equal(r.st.drained, 0);
	/* flows are independent */
	assert_int_equal(hp_reorder_push(&r, 1, 1, tag(1), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 4, tag(4), out), 1);
	hp_reorder_free(&r);
}

static void
test_reorder_early_and_late(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];
	unsigned int n;

	(void)state;
	assert_int_equal(hp_reorder_init(&r, 1, W), 0);
	/* thesis Fig. 4.5: waiting for 0, holding 1..3, then 16 arrives */
	assert_int_equal(hp_reorder_push(&r, 0, 1, tag(1), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 2, tag(2), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 3, tag(3), out), 0);
	n = hp_reorder_push(&r, 0, 16, tag(16), out);
	assert_int_equal(n, 3); /* the window drains in order */
	assert_int_equal(seq_of(out[0]), 1);
	assert_int_equal(seq_of(out[2]), 3);
	assert_int_equal(r.st.early_drains, 1);
	/* 16 now sits at the window's midpoint: base = 16 - W/2 = 12 */
	assert_int_equal(r.flows[0].base, 12);
	/* thesis Fig. 4.6: 0 arrives late and goes at once, out of order */
	assert_int_equal(hp_reorder_push(&r, 0, 0, tag(0), out), 1);
	assert_int_equal(seq_of(out[0]), 0);
	assert_int_equal(r.st.late, 1);
	/* 12..15 close the gap and release 16 */
	assert_int_equal(hp_reorder_push(&r, 0, 12, tag(12), out), 1);
	assert_int_equal(hp_reorder_push(&r, 0, 13, tag(13), out), 1);
	assert_int_equal(hp_reorder_push(&r, 0, 14, tag(14), out), 1);
	n = hp_reorder_push(&r, 0, 15, tag(15), out);
	assert_int_equal(n, 2);
	assert_int_equal(seq_of(out[1]), 16);
	/* 1,2,3,12..16 in order; 0 was not */
	assert_int_equal(r.st.in_order, 8);
	assert_int_equal(r.st.packets, 9);
	/* before the window: 1,2,3,16 arrived in order (NextExp 17 after
	 * 16), 0 and 12..15 below NextExp; after it: 0 late and 1..3 drained
	 * ahead of the gap at 0, so 12..16 are the restored ones */
	assert_int_equal(r.st.arrived_ooo, 5);
	assert_int_equal(r.st.drained, 3);
	assert_float_equal(hp_reorder_arrived_pct(&r.st), 400.0 / 9, 1e-9);
	assert_float_equal(hp_reorder_restored_pct(&r.st), 500.0 / 9, 1e-9);
	hp_reorder_free(&r);
}

/* The order metrics on a constructed arrival sequence with a known answer:
 * 0 1 3 4 5 2 (2 overtaken by three), then 7 8 held behind the gap at 6,
 * the end-of-run flush, and 6 arriving after it. */
static void
test_reorder_arrival_order(void **state)
{
	static const uint32_t arr[] = { 0, 1, 3, 4, 5, 2 };
	struct hp_reorder_stats none = { 0 };
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];
	unsigned int i, n = 0;

	(void)state;
	assert_float_equal(hp_reorder_arrived_pct(&none), 100.0, 0);
	assert_float_equal(hp_reorder_restored_pct(&none), 100.0, 0);
	assert_int_equal(hp_reorder_init(&r, 1, W), 0);
	for (i = 0; i < RTE_DIM(arr); i++)
		n += hp_reorder_push(&r, 0, arr[i], tag(arr[i]), out);
	assert_int_equal(n, 6);
	assert_int_equal(r.st.arrived_ooo, 1);   /* only 2 */
	assert_int_equal(r.st.drained + r.st.late, 0);
	assert_float_equal(hp_reorder_restored_pct(&r.st), 100.0, 0);
	assert_int_equal(hp_reorder_push(&r, 0, 7, tag(7), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 8, tag(8), out), 0);
	assert_int_equal(hp_reorder_flush(&r, 0, out), 2);
	assert_int_equal(r.st.drained, 2);       /* 7, 8 ahead of the gap */
	assert_int_equal(hp_reorder_push(&r, 0, 6, tag(6), out), 1);
	assert_int_equal(r.st.late, 1);
	assert_int_equal(r.st.packets, 9);
	assert_int_equal(r.st.arrived_ooo, 2);   /* 2 and 6 */
	assert_float_equal(hp_reorder_arrived_pct(&r.st), 700.0 / 9, 1e-9);
	assert_float_equal(hp_reorder_restored_pct(&r.st), 600.0 / 9, 1e-9);
	hp_reorder_free(&r);
}

static void
test_reorder_wrap(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];
	uint32_t start = UINT32_MAX - 3, s;
	unsigned int total = 0;

	(void)state;
	assert_int_equal(hp_reorder_init(&r, 1, W), 0);
	r.flows[0].base = start;
	r.flows[0].next_out = start;
	r.flows[0].next_exp = start;
	/* pairs swapped across the wrap: start+1, start, start+3, start+2 ... */
	for (s = 0; s < 8; s += 2) {
		total += hp_reorder_push(&r, 0, start + s + 1, tag((start + s + 1) & 0xffff), out);
		total += hp_reorder_push(&r, 0, start + s, tag((start + s) & 0xffff), out);
	}
	assert_int_equal(total, 8);
	assert_int_equal(r.st.in_order, 8);
	assert_int_equal(r.st.late, 0);
	assert_int_equal(r.st.arrived_ooo, 4); /* the second of each pair */
	assert_int_equal(r.flows[0].base, start + 8);
	/* flush of a held gap */
	assert_int_equal(hp_reorder_push(&r, 0, start + 10, tag(1), out), 0);
	assert_int_equal(hp_reorder_flush(&r, 0, out), 1);
	assert_int_equal(r.held, 0);
	hp_reorder_free(&r);
}

/* A dropped packet's sequence is skipped: the window does not wait for
 * it, wherever it falls (the front, inside, beyond the window). */
static void
test_reorder_skip(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];
	unsigned int n, free0;

	(void)state;
	assert_int_equal(hp_reorder_init(&r, 2, W), 0);
	/* 0 out, 2 and 3 held behind 1, then 1 is dropped */
	assert_int_equal(hp_reorder_push(&r, 0, 0, tag(0), out), 1);
	assert_int_equal(hp_reorder_push(&r, 0, 2, tag(2), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 3, tag(3), out), 0);
	n = hp_reorder_skip(&r, 0, 1, out);
	assert_int_equal(n, 2);
	assert_int_equal(seq_of(out[0]), 2);
	assert_int_equal(seq_of(out[1]), 3);
	assert_int_equal(r.held, 0);
	assert_int_equal(r.flows[0].held, 0);
	assert_int_equal(r.n_free, r.n_win); /* the window went back */
	/* a skip ahead of a gap: 5 dropped while 4 is on its way; 6 waits
	 * for 4 only, and 4 releases 6 over the skipped 5 */
	assert_int_equal(hp_reorder_skip(&r, 0, 5, out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 6, tag(6), out), 0);
	assert_int_equal(r.held, 1);
	n = hp_reorder_push(&r, 0, 4, tag(4), out);
	assert_int_equal(n, 2);
	assert_int_equal(seq_of(out[0]), 4);
	assert_int_equal(seq_of(out[1]), 6);
	/* the front, with nothing held: the window just moves */
	assert_int_equal(hp_reorder_skip(&r, 0, 7, out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 8, tag(8), out), 1);
	/* behind the window: nothing to do */
	assert_int_equal(hp_reorder_skip(&r, 0, 2, out), 0);
	/* beyond the window: it drains, like an early packet */
	assert_int_equal(hp_reorder_push(&r, 0, 10, tag(10), out), 0);
	n = hp_reorder_skip(&r, 0, 9 + 2 * W, out);
	assert_int_equal(n, 1);
	assert_int_equal(seq_of(out[0]), 10);
	assert_int_equal(r.st.skipped, 5);
	assert_int_equal(r.st.early_drains, 1);
	assert_int_equal(r.st.late, 0);
	assert_int_equal(r.st.in_order, 7); /* 0 2 3 4 6 8 10 */
	/* flow 1 waits behind a gap with only a skipped sequence held (the
	 * packet of the gap went around the window: the pool was empty);
	 * its slot is then taken by a new flow: the skip is forgotten and
	 * the window goes back to the pool */
	free0 = r.n_free; /* flow 0 still waits behind its skip */
	hp_reorder_flow_start(&r, 1, 100);
	assert_int_equal(hp_reorder_skip(&r, 1, 101, out), 0);
	assert_int_equal(r.flows[1].held, 1);
	assert_int_equal(r.n_free, free0 - 1);
	hp_reorder_flow_start(&r, 1, 500);
	assert_int_equal(r.flows[1].held, 0);
	assert_int_equal(r.n_free, free0);
	assert_int_equal(hp_reorder_push(&r, 1, 501, tag(501), out), 0);
	assert_int_equal(hp_reorder_push(&r, 1, 500, tag(500), out), 2);
	assert_int_equal(r.n_free, free0);
	hp_reorder_free(&r);
}

/* A gap is waited for at most the hold: then the window drains (a
 * timeout drain); a gap that closes in time costs nothing; the wait
 * starts again when the front moves. Clock in plain units. */
static void
test_reorder_timeout(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[4 * W];
	unsigned int n;

	(void)state;
	assert_int_equal(hp_reorder_init(&r, 2, W), 0);
	r.hold = 100;
	r.now = 1000;
	assert_int_equal(hp_reorder_push(&r, 0, 1, tag(1), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 2, tag(2), out), 0);
	assert_false(hp_reorder_due(&r));
	r.now = 1099;
	assert_int_equal(hp_reorder_expire(&r, out, RTE_DIM(out)), 0);
	r.now = 1100;
	assert_true(hp_reorder_due(&r));
	/* no room for a window's worth: nothing yet */
	assert_int_equal(hp_reorder_expire(&r, out, W - 1), 0);
	n = hp_reorder_expire(&r, out, RTE_DIM(out));
	assert_int_equal(n, 2);
	assert_int_equal(seq_of(out[0]), 1);
	assert_int_equal(seq_of(out[1]), 2);
	assert_int_equal(r.st.timeout_drains, 1);
	assert_int_equal(r.st.drained, 2);
	assert_int_equal(r.flows[0].base, 3);
	assert_int_equal(r.held, 0);
	/* 0 comes after all: late, sent at once */
	assert_int_equal(hp_reorder_push(&r, 0, 0, tag(0), out), 1);
	assert_int_equal(r.st.late, 1);
	/* a gap closed in time: no drain */
	r.now = 2000;
	assert_int_equal(hp_reorder_push(&r, 0, 4, tag(4), out), 0);
	r.now = 2050;
	assert_int_equal(hp_reorder_push(&r, 0, 3, tag(3), out), 2);
	r.now = 2200;
	assert_int_equal(hp_reorder_expire(&r, out, RTE_DIM(out)), 0);
	assert_int_equal(r.q_n, 0);
	/* 6 and 8 wait for 5 from 2500; 5 comes at 2550 and releases 6:
	 * 8 waits for 7 from then, not from 2500 */
	r.now = 2500;
	assert_int_equal(hp_reorder_push(&r, 0, 6, tag(6), out), 0);
	assert_int_equal(hp_reorder_push(&r, 0, 8, tag(8), out), 0);
	r.now = 2550;
	assert_int_equal(hp_reorder_push(&r, 0, 5, tag(5), out), 2); /* 5, 6 */
	r.now = 2600;
	assert_int_equal(hp_reorder_expire(&r, out, RTE_DIM(out)), 0);
	assert_int_equal(r.st.timeout_drains, 1);
	r.now = 2650;
	assert_int_equal(hp_reorder_expire(&r, out, RTE_DIM(out)), 1);
	assert_int_equal(seq_of(out[0]), 8);
	assert_int_equal(r.st.timeout_drains, 2);
	/* without a hold nothing ever drains on time */
	r.hold = 0;
	r.q_last = 0;
	assert_int_equal(hp_reorder_push(&r, 1, 1, tag(1), out), 0);
	r.now = UINT64_MAX / 2;
	assert_int_equal(hp_reorder_expire(&r, out, RTE_DIM(out)), 0);
	/* the end of the run finds every flow that holds something */
	assert_int_equal(hp_reorder_flush_next(&r, out), 1);
	assert_int_equal(hp_reorder_flush_next(&r, out), 0);
	assert_int_equal(r.held, 0);
	hp_reorder_free(&r);
}

/* Windows come from a pool, taken only while a flow holds something. */
static void
test_reorder_pool(void **state)
{
	struct hp_reorder r;
	struct rte_mbuf *out[W + 1];

	(void)state;
	assert_int_equal(hp_reorder_init_pool(&r, 1000, W, 1), 0);
	assert_int_equal(r.n_win, 1);
	/* in-order flows need none */
	assert_int_equal(hp_reorder_push(&r, 500, 0, tag(0), out), 1);
	assert_int_equal(hp_reorder_push(&r, 999, 0, tag(0), out), 1);
	assert_int_equal(r.n_free, 1);
	/* flow 3 holds the only window: flow 4's early packet goes at once */
	assert_int_equal(hp_reorder_push(&r, 3, 1, tag(1), out), 0);
	assert_int_equal(r.n_free, 0);
	assert_int_equal(hp_reorder_push(&r, 4, 1, tag(1), out), 1);
	assert_int_equal(r.st.no_window, 1);
	assert_int_equal(hp_reorder_push(&r, 3, 0, tag(0), out), 2);
	assert_int_equal(r.n_free, 1);
	assert_int_equal(hp_reorder_push(&r, 4, 3, tag(3), out), 0);
	assert_int_equal(r.n_free, 0);
	/* a flow that starts again (a new flow in its slot) at any sequence */
	hp_reorder_flow_start(&r, 7, 123456);
	assert_int_equal(hp_reorder_push(&r, 7, 123456, tag(5), out), 1);
	assert_int_equal(r.st.late, 0);
	hp_reorder_free(&r);
	assert_true(hp_reorder_init_pool(&r, 4, W, 0) < 0);
}

/* ---- the scheduler's flow table ---- */
static void
test_flowtab(void **state)
{
	struct hp_flowtab t;
	uint64_t ids[20];
	int32_t pos[20];
	uint32_t s, slot[20];
	unsigned int i, n;

	(void)state;
	assert_int_equal(hp_flowtab_init(&t, 0, 100, 1, 0), -EINVAL);
	assert_int_equal(hp_flowtab_init(&t, HP_FLOWTAB_MAX + 1, 100, 1, 0), -EINVAL);
	assert_int_equal(hp_flowtab_init(&t, 16, 100, 1, 0), 0);
	for (i = 0; i < 20; i++)
		ids[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	/* 16 flows fit, each a position of its own; the 17th is refused */
	for (i = 0; i < 16; i++) {
		slot[i] = hp_flowtab_add(&t, ids[i], 10);
		assert_true(slot[i] < t.n_pos);
		assert_int_equal(hp_flowtab_in(&t, slot[i], 10), i);
		for (unsigned int j = 0; j < i; j++)
			assert_int_not_equal(slot[i], slot[j]);
	}
	assert_int_equal(t.live, 16);
	assert_int_equal(hp_flowtab_add(&t, ids[16], 10), HP_FLOW_UNTRACKED);
	assert_int_equal(t.st.refused, 1);
	/* ... but a flow already in is found, full or not */
	assert_int_equal(hp_flowtab_add(&t, ids[3], 10), slot[3]);
	hp_flowtab_find_bulk(&t, ids, 20, pos);
	for (i = 0; i < 20; i++)
		assert_true(i < 16 ? pos[i] == (int32_t)slot[i] : pos[i] < 0);
	/* a flow's sequences start at the packets counted in before it:
	 * flow 3 took 3, its next packet 4; output order: 4 goes out
	 * before 3, which then is behind it */
	s = hp_flowtab_in(&t, slot[3], 20);
	assert_int_equal(s, 4);
	assert_true(hp_flowtab_out(&t, slot[3], s, true));
	assert_false(hp_flowtab_out(&t, slot[3], 3, true));
	/* idle flows with nothing in flight go; the others stay */
	for (i = 0; i < 16; i++)
		if (i != 5 && i != 3)
			hp_flowtab_out(&t, slot[i], i, true);
	assert_int_equal(hp_flowtab_expire(&t, 109), 0);  /* not idle yet */
	assert_int_equal(hp_flowtab_expire(&t, 110), 14); /* 5 in flight, 3 recent */
	assert_int_equal(t.live, 2);
	assert_int_equal(t.st.expired, 14);
	/* the id cache forgot them: the lookup finds only 3 and 5 (twice:
	 * once through rte_hash, once through the cache it filled) */
	for (n = 0; n < 2; n++) {
		hp_flowtab_find_bulk(&t, ids, 16, pos);
		for (i = 0; i < 16; i++)
			assert_true(i == 3 || i == 5 ? pos[i] == (int32_t)slot[i] : pos[i] < 0);
	}
	/* room again; a flow that comes back starts above all it had */
	for (i = 0; i < 14; i++)
		assert_true(hp_flowtab_add(&t, ids[i == 5 ? 16 : i == 3 ? 17 : i], 200) <
			    t.n_pos);
	assert_int_equal(t.live, 16);
	s = hp_flowtab_add(&t, ids[0], 200);
	assert_true(hp_flowtab_in(&t, s, 200) >= 17);
	assert_true(hp_flowtab_seq_unique(&t));
	t.seq_next = 1ull << 32;
	assert_false(hp_flowtab_seq_unique(&t));
	hp_flowtab_free(&t);
	/* a table smaller than rte_hash's least still holds exactly max */
	assert_int_equal(hp_flowtab_init(&t, 1, 100, 1, 0), 0);
	assert_true(hp_flowtab_add(&t, 1, 0) < t.n_pos);
	assert_int_equal(hp_flowtab_add(&t, 2, 0), HP_FLOW_UNTRACKED);
	hp_flowtab_free(&t);
}

/* ---- IMIX mix ---- */
static void
test_imix_shares(void **state)
{
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	char err[128];
	unsigned int i, flow, cnt[3] = { 0 }, types[6] = { 0 };
	uint32_t size;
	const unsigned int n = 100000;

	(void)state;
	hp_type_table_default(&tt, 1000);
	assert_int_equal(hp_imix_parse(&mx, "243,486,1458", "2,1,2", err, sizeof(err)), 0);
	assert_int_equal(hp_gen_init(&g, &mx, &tt, 16, 42, err, sizeof(err)), 0);
	for (i = 0; i < n; i++) {
		hp_gen_pick(&g, &size, &flow);
		cnt[size == 243 ? 0 : size == 486 ? 1 : 2]++;
		types[g.flows[flow].type]++;
	}
	assert_true(fabs(cnt[0] / (double)n - 0.4) < 0.02);
	assert_true(fabs(cnt[1] / (double)n - 0.2) < 0.02);
	assert_true(fabs(cnt[2] / (double)n - 0.4) < 0.02);
	/* all five types occur: 243 -> 1,2; 486 -> 3,4; 1458 -> 5 */
	for (i = 1; i <= 5; i++)
		assert_true(types[i] > n / 20);
	hp_gen_free(&g);
	assert_true(hp_imix_parse(&mx, "243,abc", "1,1", err, sizeof(err)) < 0);
	assert_true(hp_imix_parse(&mx, "243,486", "1", err, sizeof(err)) < 0);
	assert_true(hp_imix_parse(&mx, "20", "1", err, sizeof(err)) < 0);
	assert_true(hp_imix_parse(&mx, "243", "0", err, sizeof(err)) < 0);
	/* a flag with a newline still gives one line (found by fuzz_core) */
	assert_true(hp_imix_parse(&mx, "64s\nGET /", "1", err, sizeof(err)) < 0);
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "'64s\\nGET /'"));
}

/* ---- hp_quote: outside text in a one-line error ---- */
static void
test_quote(void **state)
{
	char b[16], big[64];

	(void)state;
	assert_string_equal(hp_quote(big, sizeof(big), "a\nb\x01\x7f\x1b[2J", 40),
			    "a\\nb\\x01\\x7f\\x1b[2J");
	assert_string_equal(hp_quote(big, sizeof(big), "caf\xc3\xa9\r", 40), "caf\xc3\xa9\\x0d");
	assert_string_equal(hp_quote(big, sizeof(big), "abcdefgh", 4), "abcd...");
	assert_string_equal(hp_quote(big, sizeof(big), "abcd", 4), "abcd");
	/* the buffer bounds it too: 16 bytes hold 12 characters and "..." */
	assert_string_equal(hp_quote(b, sizeof(b), "0123456789abcdefghij", 100), "0123456789ab...");
	assert_string_equal(hp_quote(b, sizeof(b), "0123456789\n", 100), "0123456789\\n");
	assert_string_equal(hp_quote(b, sizeof(b), "0123456789\x01", 100), "0123456789...");
	assert_string_equal(hp_quote(b, 4, "abcdef", 100), "...");
	assert_string_equal(hp_quote(b, 2, "abcdef", 100), "");
	assert_string_equal(hp_quote(b, sizeof(b), "", 100), "");
}

/* ---- the default lcore map ---- */
static void
test_lcore_map(void **state)
{
	char b[256];

	(void)state;
	/* 16 CPUs, 2 workers + a GPU, scheduler, generator: one CPU each (the
	 * old map put the scheduler and the generator on CPU 0 with main,
	 * spinning, and capped a GPU machine at a tenth of its platform) */
	assert_int_equal(hp_lcore_map(16, 3, 5, b, sizeof(b)), 0);
	assert_string_equal(b, "--lcores=0@0,1@1,2@2,3@3,4@4,5@5");
	/* exactly enough */
	assert_int_equal(hp_lcore_map(6, 3, 5, b, sizeof(b)), 0);
	assert_string_equal(b, "--lcores=0@0,1@1,2@2,3@3,4@4,5@5");
	/* this machine's 2 CPUs: devices on CPU 1, the rest share CPU 0 */
	assert_int_equal(hp_lcore_map(2, 3, 5, b, sizeof(b)), 1);
	assert_string_equal(b, "--lcores=0@0,1@1,2@1,3@1,4@0,5@0");
	assert_int_equal(hp_lcore_map(4, 2, 4, b, sizeof(b)), 1);
	assert_string_equal(b, "--lcores=0@0,1@1,2@2,3@0,4@0");
	assert_int_equal(hp_lcore_map(1, 1, 3, b, sizeof(b)), 1);
	assert_string_equal(b, "--lcores=0@0,1@0,2@0,3@0");
	assert_int_equal(hp_lcore_map(16, 3, 5, b, 20), -ENOSPC);
}

/* ---- rate profiles ---- */
static void
test_profiles(void **state)
{
	static struct hp_profile p;
	char path[] = "/tmp/hp_trace_XXXXXX", err[256];
	int fd;

	(void)state;
	assert_int_equal(hp_profile_scenario(&p, "stress", 1000, 10, 1), 0);
	assert_true(hp_profile_rate(&p, 5) > 1000);
	assert_int_equal(hp_profile_scenario(&p, "low", 1000, 10, 1), 0);
	assert_true(hp_profile_rate(&p, 5) < 1000);
	assert_int_equal(hp_profile_scenario(&p, "standard", 1000, 8, 1), 0);
	assert_true(hp_profile_rate(&p, 0.5) < hp_profile_rate(&p, 4.5));
	assert_true(hp_profile_scenario(&p, "bogus", 1000, 8, 1) < 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	hp_test_write_file(path, "# t rate\n0 10k\n1.5 0.5x\n3 2M\n");
	assert_int_equal(hp_profile_load(&p, path, 1000, err, sizeof(err)), 0);
	assert_true(hp_profile_rate(&p, 1) == 10000);
	assert_true(hp_profile_rate(&p, 2) == 500);
	assert_true(hp_profile_rate(&p, 9) == 2e6);
	hp_test_write_file(path, "0 10k\n2 oops\n");
	assert_true(hp_profile_load(&p, path, 1000, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, ":2:"));
	hp_test_write_file(path, "5 1\n1 1\n");
	assert_true(hp_profile_load(&p, path, 1000, err, sizeof(err)) < 0);
	unlink(path);
}

/* ---- histogram ---- */
static void
test_hist(void **state)
{
	static struct hp_hist h, h2;
	uint64_t v, q;
	double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	unsigned int i;

	(void)state;
	hp_hist_reset(&h);
	assert_int_equal(hp_hist_quantile(&h, 0.5), 0);
	for (v = 1; v <= 100000; v++)
		hp_hist_add(&h, v);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 100000);
	assert_true(hp_hist_mean(&h) == 50000.5);
	for (i = 0; i < 4; i++) {
		double exact = qs[i] * 100000;

		q = hp_hist_quantile(&h, qs[i]);
		assert_true(fabs((double)q - exact) / exact <= 1.0 / 32);
	}
	/* small values are exact */
	hp_hist_reset(&h2);
	for (v = 0; v < 10; v++)
		hp_hist_add(&h2, v);
	assert_int_equal(hp_hist_quantile(&h2, 0.5), 4);
	assert_int_equal(hp_hist_quantile(&h2, 1.0), 9);
	/* every value lands in a bucket that holds it */
	for (v = 1; v < (1ull << 40); v = v * 3 + 1) {
		unsigned int b = hp_hist_index(v);

		assert_true(hp_hist_bucket_low(b) <= v);
		assert_true(v < hp_hist_bucket_low(b) + hp_hist_bucket_width(b));
	}
	hp_hist_merge(&h2, &h);
	assert_int_equal(h2.count, 100010);
	assert_int_equal(h2.min, 0);
}

/* ---- staging with retry into a small ring ---- */
static void
test_stage_retry(void **state)
{
	static struct hp_staging st;
	struct rte_ring *ring;
	void *got[64];
	unsigned int i, n, total = 0;

	(void)state;
	ring = rte_ring_create("t_stage", 16, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(ring);
	hp_staging_init(&st, 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(hp_staging_put(&st, tag(i)), 0);
	assert_int_equal(hp_staging_put(&st, tag(99)), -ENOSPC);
	/* the ring takes 15 (usable size of a 16-ring); the rest waits */
	n = hp_staging_flush_ring(&st, ring);
	assert_int_equal(n, 15);
	assert_int_equal(st.len, 25);
	assert_int_equal(seq_of(st.buf[0]), 15); /* order kept */
	assert_int_equal(hp_staging_flush_ring(&st, ring), 0);
	assert_int_equal(st.retries, 2);
	/* drain and retry until everything is through, in order */
	while (total < 40) {
		n = rte_ring_dequeue_burst(ring, got, 64, NULL);
		for (i = 0; i < n; i++)
			assert_int_equal(seq_of(got[i]), total + i);
		total += n;
		hp_staging_flush_ring(&st, ring);
	}
	assert_int_equal(st.len, 0);
	rte_ring_free(ring);
}

/* ---- AES-128-CTR against NIST SP 800-38A F.5.1 ---- */
static void
unhex(const char *h, uint8_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int b;

		assert_int_equal(sscanf(h + 2 * i, "%2x", &b), 1);
		out[i] = (uint8_t)b;
	}
}

static void
test_aes_ctr_nist(void **state)
{
	uint8_t key[16], iv[16], pt[64], ct[64], a[64], b[64];
	uint32_t len;

	(void)state;
	unhex("2b7e151628aed2a6abf7158809cf4f3c", key, 16);
	unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv, 16);
	unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
	      "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710", pt, 64);
	unhex("874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
	      "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee", ct, 64);
	/* both the task's EVP path and the verify path's ECB+counter path */
	for (len = 1; len <= 64; len += 7) {
		memcpy(a, pt, len);
		memcpy(b, pt, len);
		assert_int_equal(hp_aes_ctr_evp(key, iv, a, len), 0);
		assert_int_equal(hp_aes_ctr_ref(key, iv, b, len), 0);
		assert_memory_equal(a, ct, len);
		assert_memory_equal(b, ct, len);
	}
}

/* The task on a generated packet: process, then verify undoes it. */
static void
test_aes_ctr_task(void **state)
{
	const struct hp_task_ops *ops = hp_task_find("aes_ctr");
	struct hp_task_cfg cfg = { .key = { 1, 2, 3 } };
	struct hp_task_ctx ctx = { .ops = ops, .cfg = &cfg };
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	struct rte_mbuf *m;
	struct hp_flow_key k = { 0 };
	struct hp_pkt_hdrs h = { 0 };
	uint8_t plain[HP_GEN_MAX_FRAME], buf[HP_VERIFY_BUF];
	uint16_t off = 0, len = 0;
	uint32_t vlen;
	char err[128];
	int i;

	(void)state;
	assert_non_null(ops);
	assert_int_equal(ops->ctx_init(&ctx), 0);
	hp_type_table_default(&tt, 1000);
	assert_int_equal(hp_imix_parse(&mx, "243,486,1458", "2,1,2", err, sizeof(err)), 0);
	assert_int_equal(hp_gen_init(&g, &mx, &tt, 2, 3, err, sizeof(err)), 0);
	for (i = 0; i < 50; i++) {
		struct hp_meta *md;

		m = rte_pktmbuf_alloc(pool);
		assert_non_null(m);
		assert_int_equal(hp_gen_build(&g, m), 0);
		assert_int_equal(hp_parse(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &k,
					  &off, &len), HP_DROP_NONE);
		assert_int_equal(hp_parse_hdrs(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &k,
					       &h), HP_DROP_NONE);
		md = hp_meta(m);
		memset(md, 0, sizeof(*md));
		md->flow_id = hp_flow_hash(&k);
		hp_meta_classified(md, rte_pktmbuf_mtod(m, uint8_t *), &h);
		assert_int_equal(md->data_off, off + 16);
		hp_meta_seq_note(md); /* flow_slot 0: a tracked flow */
		memcpy(plain, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), md->data_len);
		assert_int_equal(ops->process(&ctx, &m, 1), 1);
		assert_int_equal(md->status, HP_ST_OK);
		assert_memory_not_equal(plain, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off),
					md->data_len);
		/* the UDP/TCP checksum is over the ciphertext */
		assert_true(hp_pkt_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *), m->data_len));
		vlen = md->data_len;
		memcpy(buf, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), vlen);
		assert_int_equal(ops->verify(&ctx, m, buf, &vlen), 0);
		assert_memory_equal(buf, plain, vlen);
		rte_pktmbuf_free(m);
	}
	hp_gen_free(&g);
	ops->ctx_free(&ctx);
}

/* impl=mb (intel-ipsec-mb bursts) and impl=evp (OpenSSL a packet) give
 * the same frames, checksums included, over bursts of IMIX packets from
 * many flows, with every flow's cache slot the same one (flow_id's low
 * bits forced), so that a burst ends early whenever a flow needs the slot
 * another flow of the burst holds. The same with the port's checksum
 * offloads (impl=mb sets them up before it encrypts, hp_pkt_l4_fixup_early;
 * impl=evp after, hp_pkt_l4_fixup): frames, offload flags and lengths
 * equal, the NIC's sum right, for UDP checksums of 0 ("none") and UDP
 * lengths shorter than the IP payload (summed in software) among them. */
static void
test_aes_ctr_impls(void **state)
{
	const struct hp_task_ops *ops = hp_task_find("aes_ctr");
	struct hp_task_cfg cfg[4] = {
		{ .key = { 9, 8, 7 }, .param = "impl=mb" },
		{ .key = { 9, 8, 7 }, .param = "impl=evp" },
		{ .key = { 9, 8, 7 }, .param = "impl=mb", .tx_offload = HP_PKT_TX_CKSUM_OFFLOADS },
		{ .key = { 9, 8, 7 }, .param = "impl=evp", .tx_offload = HP_PKT_TX_CKSUM_OFFLOADS },
	};
	struct hp_task_ctx x[4];
	struct rte_mbuf *a[4][80];
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	unsigned int none = 0, shrt = 0, offl = 0;
	char err[128];
	int i, j, v;

	(void)state;
	for (v = 0; v < 4; v++) {
		x[v] = (struct hp_task_ctx){ .ops = ops, .cfg = &cfg[v] };
		assert_int_equal(ops->ctx_init(&x[v]), 0);
	}
	hp_type_table_default(&tt, 1000);
	assert_int_equal(hp_imix_parse(&mx, "64,243,486,1458", "1,2,1,2", err, sizeof(err)), 0);
	assert_int_equal(hp_gen_init(&g, &mx, &tt, 5, 3, err, sizeof(err)), 0);
	for (j = 0; j < 3; j++) {
		for (i = 0; i < 80; i++) {
			struct hp_flow_key k = { 0 };
			struct hp_pkt_hdrs h = { 0 };
			struct hp_meta *md;
			uint8_t *f;

			a[0][i] = rte_pktmbuf_alloc(pool);
			assert_non_null(a[0][i]);
			assert_int_equal(hp_gen_build(&g, a[0][i]), 0);
			f = rte_pktmbuf_mtod(a[0][i], uint8_t *);
			assert_int_equal(hp_parse_hdrs(f, a[0][i]->data_len, &k, &h), HP_DROP_NONE);
			if (h.proto == IPPROTO_UDP && i % 7 == 3) {
				memset(f + h.l4 + 6, 0, 2);
				none++;
			} else if (h.proto == IPPROTO_UDP && i % 7 == 5 && h.pay_len >= 40) {
				add_be16_test(f + h.l4 + 4, -4);
				hp_pkt_l4_fixup(a[0][i], &h, 0, 0);
				assert_int_equal(hp_parse_hdrs(f, a[0][i]->data_len, &k, &h),
						 HP_DROP_NONE);
				shrt++;
			}
			md = hp_meta(a[0][i]);
			memset(md, 0, sizeof(*md));
			md->flow_id = (hp_flow_hash(&k) & ~(uint64_t)0xffff) | 0x77;
			hp_meta_classified(md, f, &h);
			hp_meta_seq_note(md);
			for (v = 1; v < 4; v++) {
				a[v][i] = rte_pktmbuf_copy(a[0][i], pool, 0, UINT32_MAX);
				assert_non_null(a[v][i]);
				memcpy(hp_meta(a[v][i]), md, sizeof(*md));
			}
		}
		assert_int_equal(ops->process(&x[0], a[0], 80), 80);
		assert_int_equal(ops->process(&x[2], a[2], 80), 80);
		for (i = 0; i < 80; i++) {
			assert_int_equal(ops->process(&x[1], &a[1][i], 1), 1);
			assert_int_equal(ops->process(&x[3], &a[3][i], 1), 1);
		}
		for (i = 0; i < 80; i++) {
			for (v = 0; v < 4; v++)
				assert_int_equal(hp_meta(a[v][i])->status, HP_ST_OK);
			for (v = 0; v < 4; v += 2) {
				struct rte_mbuf *m = a[v][i], *r = a[v + 1][i];

				assert_int_equal(m->data_len, r->data_len);
				assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *),
						    rte_pktmbuf_mtod(r, uint8_t *), m->data_len);
				assert_int_equal(m->ol_flags, r->ol_flags);
				assert_int_equal(m->tx_offload, r->tx_offload);
				if (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) {
					offl++;
					nic_tx_cksum(m);
				}
				assert_true(hp_pkt_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *),
							    m->data_len));
			}
			/* what the NIC sent is what the software sum wrote */
			assert_memory_equal(rte_pktmbuf_mtod(a[0][i], uint8_t *),
					    rte_pktmbuf_mtod(a[2][i], uint8_t *), a[0][i]->data_len);
			for (v = 0; v < 4; v++)
				rte_pktmbuf_free(a[v][i]);
		}
	}
	assert_true(none > 0 && shrt > 0 && offl > 0);
	hp_gen_free(&g);
	for (v = 0; v < 4; v++)
		ops->ctx_free(&x[v]);
}

/* AES-128-CBC with a zero IV over msg, the last block: the CBC-MAC the
 * flow key and nonce are, computed here through EVP's CBC mode. */
static void
evp_cbc_mac(const uint8_t key[16], const uint8_t *msg, int len, uint8_t out[16])
{
	static const uint8_t zero[16];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint8_t ct[HP_FLOW_MSG_MAX];
	int outl;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, EVP_aes_128_cbc(), NULL, key, zero), 1);
	EVP_CIPHER_CTX_set_padding(c, 0);
	assert_int_equal(EVP_EncryptUpdate(c, ct, &outl, msg, len), 1);
	memcpy(out, ct + len - 16, 16);
	EVP_CIPHER_CTX_free(c);
}

/* An IPv6 packet with extension headers through aes_ctr: the key and
 * nonce are the CBC-MAC of the 48-byte flow message, the checksum right. */
static void
test_aes_ctr_ipv6(void **state)
{
	const struct hp_task_ops *ops = hp_task_find("aes_ctr");
	struct hp_task_cfg cfg = { .key = { 9, 8, 7 } };
	struct hp_task_ctx ctx = { .ops = ops, .cfg = &cfg };
	struct rte_mbuf *m = mbuf_of(v6_ext_udp, sizeof(v6_ext_udp));
	struct hp_meta *md = hp_meta(m);
	struct hp_flow_key k;
	struct hp_pkt_hdrs h = { 0 };
	uint8_t msg[HP_FLOW_MSG_MAX], fkey[16], nonce[16], iv[16], *d;
	unsigned int ml;

	(void)state;
	assert_int_equal(ops->ctx_init(&ctx), 0);
	assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
	memset(md, 0, sizeof(*md));
	md->flow_id = hp_flow_hash(&k);
	hp_meta_classified(md, rte_pktmbuf_mtod(m, uint8_t *), &h);
	md->hdr_seq = 77;
	hp_meta_seq_note(md);
	assert_int_equal(ops->process(&ctx, &m, 1), 1);
	assert_int_equal(md->status, HP_ST_OK);
	d = rte_pktmbuf_mtod_offset(m, uint8_t *, h.pay);
	assert_true(hp_pkt_cksum_ok(rte_pktmbuf_mtod(m, uint8_t *), m->data_len));
	ml = hp_flow_msg(&k, 0x01, msg);
	assert_int_equal(ml, 48);
	evp_cbc_mac(cfg.key, msg, (int)ml, fkey);
	hp_flow_msg(&k, 0x02, msg);
	evp_cbc_mac(cfg.key, msg, (int)ml, nonce);
	memcpy(iv, nonce, 8);
	memset(iv + 8, 0, 8);
	iv[11] = 77;
	assert_int_equal(hp_aes_ctr_evp(fkey, iv, d, h.pay_len), 0);
	assert_memory_equal(d, v6_ext_udp + h.pay, h.pay_len);
	rte_pktmbuf_free(m);
	ops->ctx_free(&ctx);
}

int
main(void)
{
	char *eal[] = { "test_core", "--no-huge", "--no-pci", "--no-shconf", "-m", "128",
			"--log-level=lib.eal:error", "-l", "0", NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_table_default),
		cmocka_unit_test(test_type_index),
		cmocka_unit_test(test_type_table_load),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_foreign),
		cmocka_unit_test(test_l4_fixup),
		cmocka_unit_test(test_l4_fixup_sum),
		cmocka_unit_test(test_cksum_zero),
		cmocka_unit_test(test_gen_small_frames),
		cmocka_unit_test(test_reorder_in_order),
		cmocka_unit_test(test_reorder_hold_and_release),
		cmocka_unit_test(test_reorder_early_and_late),
		cmocka_unit_test(test_reorder_wrap),
		cmocka_unit_test(test_reorder_arrival_order),
		cmocka_unit_test(test_reorder_skip),
		cmocka_unit_test(test_reorder_timeout),
		cmocka_unit_test(test_reorder_pool),
		cmocka_unit_test(test_flowtab),
		cmocka_unit_test(test_imix_shares),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_lcore_map),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_stage_retry),
		cmocka_unit_test(test_aes_ctr_nist),
		cmocka_unit_test(test_aes_ctr_task),
		cmocka_unit_test(test_aes_ctr_impls),
		cmocka_unit_test(test_aes_ctr_ipv6),
	};
	int ret;

	if (rte_eal_init(9, eal) < 0) {
		fprintf(stderr, "test_core: EAL init failed\n");
		return 1;
	}
	pool = hp_pktmbuf_pool("t_pool", 1023, 0);
	if (pool == NULL)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret;
}
