/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the optional task hooks: generator bodies written by a
 * hook (frame and header lengths, CRC tag, clamping to the room), the
 * app-level glue (which context writes bodies, --param checks), the ldpc
 * and dpi bodies through their tasks' process and verify paths, and the
 * refusal of packets without a unique sequence by aes_ctr and aes_cbc, and
 * their offload path against process() on foreign IPv4/IPv6/VLAN/QinQ
 * packets (the same bytes and right checksums on every device kind).
 * Tasks of optional blocks (ldpc, nf) are skipped when not built in.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "hp_gen.h"
#include "hp_pkt.h"
#include "hp_task.h"

static struct rte_mempool *pool;

static int
gen_setup(struct hp_gen *g, const char *sizes)
{
	struct hp_type_table tt;
	struct hp_imix mx;
	char err[128];

	hp_type_table_default(&tt, 1000);
	if (hp_imix_parse(&mx, sizes, "1,1,1", err, sizeof(err)) < 0)
		return -1;
	return hp_gen_init(g, &mx, &tt, 2, 7, err, sizeof(err));
}

/* A hook that writes gen_id's low byte size/2 times, or asks for more
 * than the room on every fifth packet. */
static uint32_t
test_hook(void *arg, uint64_t gen_id, uint32_t size, uint32_t hdr_len,
	  uint8_t *body, uint32_t room)
{
	uint32_t n = size / 2;

	(*(unsigned int *)arg)++;
	assert_true(hdr_len == 58 || hdr_len == 70);
	assert_true(room >= size - hdr_len);
	if (gen_id % 5 == 4)
		n = room;
	memset(body, (int)(gen_id & 0xff), n);
	return gen_id % 5 == 4 ? room + 100 : n;
}

static void
test_gen_body_hook(void **state)
{
	unsigned int calls = 0, i;
	struct hp_gen g;
	uint8_t buf[HP_GEN_MAX_FRAME];

	(void)state;
	assert_int_equal(gen_setup(&g, "243,486,1458"), 0);
	hp_gen_set_body(&g, test_hook, &calls);
	for (i = 0; i < 40; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		const uint8_t *f;
		struct hp_flow_key k = { 0 };
		const struct hp_app_hdr *h;
		uint16_t off = 0, len = 0;
		uint32_t flen, blen, j;

		assert_non_null(m);
		assert_int_equal(hp_gen_build(&g, m), 0);
		f = rte_pktmbuf_mtod(m, const uint8_t *);
		flen = rte_pktmbuf_data_len(m);
		/* Headers agree with the length the hook chose. */
		assert_int_equal(hp_parse(f, flen, &k, &off, &len), HP_DROP_NONE);
		assert_int_equal(off + len, flen);
		h = (const void *)(f + off);
		blen = len - sizeof(*h);
		assert_int_equal(rte_be_to_cpu_32(h->gen_id), i);
		assert_int_equal(rte_be_to_cpu_32(h->tag), hp_crc32c(h + 1, blen));
		for (j = 0; j < blen; j++)
			assert_int_equal(((const uint8_t *)(h + 1))[j], i & 0xff);
		if (i % 5 == 4)  /* clamped to the room: a full frame */
			assert_int_equal(flen, HP_GEN_MAX_FRAME);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(calls, 40);
	/* hp_gen_frame (pcap writer path) takes the hook too. */
	assert_true(hp_gen_frame(&g, 0, 486, buf) < 486);
	hp_gen_set_body(&g, NULL, &calls);
	assert_int_equal(hp_gen_frame(&g, 0, 486, buf), 486);
	assert_int_equal(calls, 41);
	hp_gen_free(&g);
}

static void
test_param_check(void **state)
{
	static const struct { const char *app, *param; int ok; } cs[] = {
		{ "crypto", "", 1 },
		{ "crypto", "a=1", 0 },
		{ "null", "x=", 0 },
		{ "ran", "iters=5,flips=0,seed=9,code=wifi:648:3/4", 1 },
		{ "ran", "iters=256", 0 },
		{ "ran", "iters=5,,seed=1", 0 },
		{ "ran", "=5", 0 },
		{ "ran", "code=nr:2:36", 1 },  /* 1800 bits: 225-byte units */
		{ "ran", "code=nr:1:384", 0 },
		{ "ids", "engine=ac,gen=500,seed=2,plant=0", 1 },
		{ "ids", "plant=-0.1", 0 },
		{ "ids", "seed=-1", 0 },
		{ "ids_ac", "gen=1000001", 0 },
		{ "vpn", "impl=evp", 1 },
		{ "dedup", "impl=ref", 1 },
		{ "dedup", "engine=ac", 0 },
	};
	char err[512];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		const struct hp_app *a = hp_app_find(cs[i].app);
		int rc;

		if (a == NULL)
			continue;  /* block not built in */
		err[0] = '\0';
		rc = hp_app_param_check(a, cs[i].param, err, sizeof(err));
		if (cs[i].ok)
			assert_int_equal(rc, 0);
		else
			assert_true(rc == -EINVAL && err[0] != '\0' && strchr(err, '\n') == NULL);
	}
	assert_int_equal(hp_app_param_check(NULL, "a=1", err, sizeof(err)), 0);
}

/* Builds one generated packet with the context's body hook and fills the
 * metadata as the classifier does. */
static struct rte_mbuf *
gen_packet(struct hp_gen *g)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct hp_flow_key k = { 0 };
	struct hp_meta *md;
	struct hp_pkt_hdrs h = { 0 };

	assert_non_null(m);
	assert_int_equal(hp_gen_build(g, m), 0);
	assert_int_equal(hp_parse_hdrs(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &k, &h),
			 HP_DROP_NONE);
	md = hp_meta(m);
	memset(md, 0, sizeof(*md));
	md->flow_id = hp_flow_hash(&k);
	hp_meta_classified(md, rte_pktmbuf_mtod(m, uint8_t *), &h);
	assert_true(md->flags & HP_MF_HPHDR);
	hp_meta_seq_note(md);
	return m;
}

/* ran: 1, 2 and 6 units for 243, 486, 1458; decoded to the sent bits;
 * verify rebuilds the received body (its CRC is the header's tag). */
static void
test_ldpc_bodies(void **state)
{
	const struct hp_app *ran = hp_app_find("ran");
	struct hp_task_cfg cfg = { .key = { 1 }, .param = "flips=40,seed=5" };
	struct hp_task_ctx ctx[HP_MAX_TASKS] = { { 0 } };
	uint8_t buf[HP_VERIFY_BUF];
	unsigned int i, seen[7] = { 0 };
	struct hp_gen g;

	(void)state;
	if (ran == NULL)
		skip();
	ctx[0].ops = hp_task_find("ldpc");
	ctx[0].cfg = &cfg;
	assert_int_equal(ctx[0].ops->ctx_init(&ctx[0]), 0);
	assert_ptr_equal(hp_app_body_ctx(ran, ctx), &ctx[0]);
	assert_int_equal(gen_setup(&g, "243,486,1458"), 0);
	hp_gen_set_body(&g, hp_task_gen_body, &ctx[0]);
	for (i = 0; i < 30; i++) {
		struct rte_mbuf *m = gen_packet(&g);
		struct hp_meta *md = hp_meta(m);
		const struct hp_app_hdr *h = rte_pktmbuf_mtod_offset(m, const struct hp_app_hdr *,
								     md->data_off - sizeof(*h));
		uint32_t len = md->data_len;

		assert_int_equal(len % 243, 0);
		assert_true(len / 243 == 1 || len / 243 == 2 || len / 243 == 6);
		seen[len / 243]++;
		assert_int_equal(ctx[0].ops->process(&ctx[0], &m, 1), 1);
		assert_int_equal(md->status, HP_ST_OK);
		assert_int_equal(md->res32, len / 243);
		memcpy(buf, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), len);
		assert_int_equal(ctx[0].ops->verify(&ctx[0], m, buf, &len), 0);
		assert_int_equal(hp_crc32c(buf, len), rte_be_to_cpu_32(h->tag));
		/* A wrong info bit: the rebuilt body no longer matches. */
		memcpy(buf, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), len);
		buf[3] ^= 0x10;
		if (ctx[0].ops->verify(&ctx[0], m, buf, &len) == 0)
			assert_int_not_equal(hp_crc32c(buf, len), rte_be_to_cpu_32(h->tag));
		rte_pktmbuf_free(m);
	}
	assert_true(seen[1] && seen[2] && seen[6]);
	hp_gen_free(&g);
	ctx[0].ops->ctx_free(&ctx[0]);
}

/* ids: a share of the bodies carries a planted pattern, found by the
 * task; verify accepts the task's result and rejects a missed pattern. */
static void
test_dpi_bodies(void **state)
{
	struct hp_task_cfg cfg = { .param = "gen=2000,seed=4,plant=0.5" };
	struct hp_task_ctx ctx = { .ops = hp_task_find("dpi"), .cfg = &cfg };
	uint8_t buf[HP_VERIFY_BUF];
	unsigned int i, hits = 0;
	struct hp_gen g;

	(void)state;
	if (ctx.ops == NULL)
		skip();
	assert_int_equal(ctx.ops->ctx_init(&ctx), 0);
	assert_int_equal(gen_setup(&g, "243,486,1458"), 0);
	hp_gen_set_body(&g, hp_task_gen_body, &ctx);
	for (i = 0; i < 200; i++) {
		struct rte_mbuf *m = gen_packet(&g);
		struct hp_meta *md = hp_meta(m);
		uint32_t len = md->data_len;

		assert_int_equal(rte_pktmbuf_data_len(m), md->data_off + len);
		assert_int_equal(ctx.ops->process(&ctx, &m, 1), 1);
		memcpy(buf, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), len);
		assert_int_equal(ctx.ops->verify(&ctx, m, buf, &len), 0);
		hits += md->res32 > 0;
		if (md->res32 > 0) {
			/* pretend the engine missed it */
			md->res32 = 0;
			md->res32b = UINT32_MAX;
			assert_int_equal(ctx.ops->verify(&ctx, m, buf, &len), -EBADMSG);
		}
		rte_pktmbuf_free(m);
	}
	assert_true(hits > 80 && hits < 120);
	hp_gen_free(&g);
	ctx.ops->ctx_free(&ctx);
}

/* aes_ctr and aes_cbc: no hp header and no flow slot -> ENOTUNIQ, the
 * payload untouched; the same packet with a slot is encrypted. */
static void
test_no_unique_seq(void **state)
{
	static const char *const names[] = { "aes_ctr", "aes_cbc" };
	struct hp_task_cfg cfg = { .key = { 9 } };
	unsigned int t, i;
	struct hp_gen g;

	(void)state;
	assert_int_equal(gen_setup(&g, "243,486,1458"), 0);
	for (t = 0; t < 2; t++) {
		struct hp_task_ctx ctx = { .ops = hp_task_find(names[t]), .cfg = &cfg };

		if (ctx.ops == NULL)
			continue;
		assert_int_equal(ctx.ops->ctx_init(&ctx), 0);
		for (i = 0; i < 2; i++) {
			struct rte_mbuf *m = gen_packet(&g);
			struct hp_meta *md = hp_meta(m);
			uint8_t before[HP_GEN_MAX_FRAME];
			uint32_t l = md->data_len;

			md->flags = 0;       /* treated as foreign traffic */
			md->data_off -= sizeof(struct hp_app_hdr);
			md->data_len += sizeof(struct hp_app_hdr);
			md->flow_slot = i == 0 ? HP_FLOW_UNTRACKED : 3;
			hp_meta_seq_note(md);
			l = md->data_len;
			memcpy(before, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), l);
			assert_int_equal(ctx.ops->process(&ctx, &m, 1), 1);
			if (i == 0) {
				assert_int_equal(md->status, HP_ST_TASK_ERR);
				assert_int_equal(md->task_err, ENOTUNIQ);
				assert_memory_equal(before, rte_pktmbuf_mtod_offset(m, uint8_t *,
										    md->data_off), l);
			} else {
				assert_int_equal(md->status, HP_ST_OK);
				assert_memory_not_equal(before, rte_pktmbuf_mtod_offset(m, uint8_t *,
											md->data_off), l);
			}
			rte_pktmbuf_free(m);
		}
		ctx.ops->ctx_free(&ctx);
	}
	hp_gen_free(&g);
}

/* A frame with vlans tags (0..2: 802.1ad outer), IPv4 or IPv6 (with a
 * destination options header when ext), UDP or TCP, and plen bytes of
 * payload, its checksums right; returns its length. */
static uint32_t
foreign_frame(uint8_t *f, unsigned int vlans, bool v6, bool ext, bool tcp, uint32_t plen)
{
	static const uint16_t tpid[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	uint32_t off = 12, l4, hl = tcp ? 20 : 8, i;
	struct rte_mbuf *m;
	struct hp_flow_key k = { 0 };
	struct hp_pkt_hdrs h = { 0 };
	uint16_t v;

	memset(f, 0, 256);
	f[0] = 0x02;
	f[6] = 0x02;
	for (i = 0; i < vlans; i++, off += 4) {
		v = rte_cpu_to_be_16(tpid[2 - vlans + i]);
		memcpy(f + off, &v, 2);
		f[off + 3] = (uint8_t)(10 + i); /* VLAN id */
	}
	v = rte_cpu_to_be_16(v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	memcpy(f + off, &v, 2);
	off += 2;
	if (v6) {
		l4 = off + 40 + (ext ? 8 : 0);
		f[off] = 0x60;
		v = rte_cpu_to_be_16((uint16_t)(l4 - off - 40 + hl + plen));
		memcpy(f + off + 4, &v, 2);
		f[off + 6] = ext ? IPPROTO_DSTOPTS : (tcp ? IPPROTO_TCP : IPPROTO_UDP);
		f[off + 7] = 64;
		f[off + 8] = 0x20; /* 2001:db8::1 > 2001:db8::2 */
		f[off + 9] = 0x01;
		f[off + 10] = 0x0d;
		f[off + 11] = 0xb8;
		memcpy(f + off + 24, f + off + 8, 16);
		f[off + 23] = 1;
		f[off + 39] = 2;
		if (ext)
			f[off + 40] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	} else {
		l4 = off + 20;
		f[off] = 0x45;
		v = rte_cpu_to_be_16((uint16_t)(20 + hl + plen));
		memcpy(f + off + 2, &v, 2);
		f[off + 8] = 64;
		f[off + 9] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
		f[off + 12] = 10;
		f[off + 15] = 1;
		f[off + 16] = 10;
		f[off + 19] = 2;
		((struct rte_ipv4_hdr *)(f + off))->hdr_checksum =
			rte_ipv4_cksum((struct rte_ipv4_hdr *)(f + off));
	}
	f[l4] = 0x9c; /* ports 40000 > 443 */
	f[l4 + 1] = 0x40;
	f[l4 + 2] = 0x01;
	f[l4 + 3] = 0xbb;
	if (tcp) {
		f[l4 + 12] = 0x50;
	} else {
		v = rte_cpu_to_be_16((uint16_t)(8 + plen));
		memcpy(f + l4 + 4, &v, 2);
	}
	for (i = 0; i < plen; i++)
		f[l4 + hl + i] = (uint8_t)(i * 13 + 1);
	/* the checksums through an mbuf, as a task leaves them */
	m = rte_pktmbuf_alloc(pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)(l4 + hl + plen)), f, l4 + hl + plen);
	assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
	hp_pkt_l4_fixup(m, &h, 0, 0);
	memcpy(f, rte_pktmbuf_mtod(m, uint8_t *), l4 + hl + plen);
	rte_pktmbuf_free(m);
	assert_true(hp_pkt_cksum_ok(f, l4 + hl + plen));
	return l4 + hl + plen;
}

/* The mbuf of a foreign frame as the scheduler hands it to a device. */
static struct rte_mbuf *
foreign_packet(const uint8_t *f, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct hp_meta *md = hp_meta(m);
	struct hp_flow_key k = { 0 };
	struct hp_pkt_hdrs h = { 0 };

	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	assert_int_equal(hp_pkt_hdrs(m, &k, &h), 0);
	memset(md, 0, sizeof(*md));
	md->flow_id = hp_flow_hash(&k);
	md->flow_slot = 3;
	md->hdr_seq = 41;
	hp_meta_classified(md, rte_pktmbuf_mtod(m, uint8_t *), &h);
	hp_meta_seq_note(md);
	return m;
}

/* An accelerator's kernel for aes_ctr and aes_cbc, on the CPU: the
 * keystream XOR, or CBC encryption of the padded staging. */
static void
kernel_on_cpu(const char *task, const struct hp_offload *o, uint8_t *stage)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int outl;

	assert_non_null(c);
	assert_int_equal(EVP_EncryptInit_ex(c, strcmp(task, "aes_ctr") == 0 ? EVP_aes_128_ctr() :
					    EVP_aes_128_cbc(), NULL, o->key, o->iv), 1);
	EVP_CIPHER_CTX_set_padding(c, 0);
	assert_int_equal(EVP_EncryptUpdate(c, stage, &outl, stage, (int)o->in_len), 1);
	EVP_CIPHER_CTX_free(c);
}

/* aes_ctr and aes_cbc on foreign IPv4/IPv6, untagged/802.1Q/QinQ,
 * UDP/TCP packets: process() and the accelerator's path (offload_prep, a
 * kernel, offload_done) leave the same bytes, lengths and right
 * checksums, so every device kind sends the same frame. */
static void
test_offload_matches_process(void **state)
{
	static const char *const names[] = { "aes_ctr", "aes_cbc" };
	static const uint32_t plens[] = { 6, 31, 700 };
	struct hp_task_cfg cfg = { .key = { 4, 5, 6 } };
	uint8_t f[1024], stage[2048];
	unsigned int t, c, p;

	(void)state;
	for (t = 0; t < RTE_DIM(names); t++) {
		struct hp_task_ctx ctx = { .ops = hp_task_find(names[t]), .cfg = &cfg };

		if (ctx.ops == NULL)
			continue;
		assert_int_equal(ctx.ops->ctx_init(&ctx), 0);
		for (c = 0; c < 3 * 2 * 2 * 2; c++) {
			for (p = 0; p < RTE_DIM(plens); p++) {
				uint32_t len = foreign_frame(f, c % 3, c / 3 % 2, c / 6 % 2,
							     c / 12 % 2, plens[p]);
				struct rte_mbuf *a = foreign_packet(f, len);
				struct rte_mbuf *b = foreign_packet(f, len);
				struct hp_offload o;

				assert_int_equal(ctx.ops->process(&ctx, &a, 1), 1);
				assert_int_equal(hp_meta(a)->status, HP_ST_OK);
				assert_int_equal(ctx.ops->offload_prep(&ctx, b, &o, stage,
								       sizeof(stage)), 0);
				kernel_on_cpu(names[t], &o, stage);
				ctx.ops->offload_done(&ctx, b, &o, stage);
				assert_int_equal(hp_meta(b)->status, HP_ST_OK);
				assert_int_equal(a->data_len, b->data_len);
				assert_int_equal(hp_meta(a)->data_len, hp_meta(b)->data_len);
				assert_memory_equal(rte_pktmbuf_mtod(a, uint8_t *),
						    rte_pktmbuf_mtod(b, uint8_t *), a->data_len);
				assert_memory_not_equal(rte_pktmbuf_mtod(a, uint8_t *) +
							hp_meta(a)->data_off, f +
							hp_meta(a)->data_off, plens[p]);
				/* the tags are kept */
				assert_memory_equal(rte_pktmbuf_mtod(a, uint8_t *), f,
						    14 + 4 * (c % 3));
				assert_true(hp_pkt_cksum_ok(rte_pktmbuf_mtod(a, uint8_t *),
							    a->data_len));
				rte_pktmbuf_free(a);
				rte_pktmbuf_free(b);
			}
		}
		ctx.ops->ctx_free(&ctx);
	}
}

int
main(void)
{
	char *eal[] = { "test_task_hooks", "--no-huge", "--no-pci", "--no-shconf", "-m", "256",
			"--log-level=lib.eal:error", "--log-level=heteroplane:error", "-l", "0",
			NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gen_body_hook),
		cmocka_unit_test(test_param_check),
		cmocka_unit_test(test_ldpc_bodies),
		cmocka_unit_test(test_dpi_bodies),
		cmocka_unit_test(test_no_unique_seq),
		cmocka_unit_test(test_offload_matches_process),
	};
	int ret;

	if (rte_eal_init(10, eal) < 0) {
		fprintf(stderr, "test_task_hooks: EAL init failed\n");
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
