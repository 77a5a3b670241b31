/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the optional task hooks: generator bodies written by a
 * hook (frame and header lengths, CRC tag, clamping to the room), the
 * app-level glue (which context writes bodies, --param checks), the ldpc
 * and dpi bodies through their tasks' process and verify paths, and the
 * refusal of packets without a unique sequence by aes_ctr and aes_cbc.
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
	uint16_t off = 0, len = 0;

	assert_non_null(m);
	assert_int_equal(hp_gen_build(g, m), 0);
	assert_int_equal(hp_parse(rte_pktmbuf_mtod(m, uint8_t *), m->data_len, &k,
				  &off, &len), HP_DROP_NONE);
	md = hp_meta(m);
	memset(md, 0, sizeof(*md));
	md->flow_id = hp_flow_hash(&k);
	md->flags = HP_MF_HPHDR;
	hp_meta_seq_note(md);
	md->data_off = off + sizeof(struct hp_app_hdr);
	md->data_len = len - sizeof(struct hp_app_hdr);
	md->hdr_seq = rte_be_to_cpu_32(rte_pktmbuf_mtod_offset(m, struct hp_app_hdr *,
							       off)->seq);
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
