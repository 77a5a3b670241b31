/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the core blocks: packet-type table, classification, reorder
 * window (skips, timeouts, its window pool), the scheduler's flow table,
 * IMIX mix, histogram percentiles, staging/retry and AES-CTR (NIST
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
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
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
	write_file(path, "# min,max,reorder,latency,deadline_us\n0,99,yes,yes,100\n100,65535,no,no,0\n");
	assert_int_equal(hp_type_table_load(&tt, path, err, sizeof(err)), 0);
	assert_int_equal(tt.n, 2);
	assert_int_equal(hp_type_lookup(&tt, 50, true, true), 1);
	assert_int_equal(hp_type_lookup(&tt, 5000, false, false), 2);
	write_file(path, "0,99,maybe,yes,100\n");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, ":1:"));
	write_file(path, "0,99,yes,yes,0\n");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	write_file(path, "5,4,no,no,0\n");
	assert_true(hp_type_table_load(&tt, path, err, sizeof(err)) < 0);
	write_file(path, "");
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
		/* truncations are caught with a reason */
		assert_int_equal(hp_parse(buf, 10, &k, &off, &len), HP_DROP_TRUNC_ETH);
		assert_int_equal(hp_parse(buf, 30, &k, &off, &len), HP_DROP_TRUNC_IPV4);
		assert_int_equal(hp_parse(buf, size - 1, &k, &off, &len), HP_DROP_TRUNC_IPV4);
	}
	/* IHL below 5 */
	buf[14] = 0x44;
	assert_int_equal(hp_parse(buf, size, &k, &off, &len), HP_DROP_BAD_IPV4);
	buf[14] = 0x45;
	buf[12] = 0x86;
	buf[13] = 0xdd;
	assert_int_equal(hp_parse(buf, size, &k, &off, &len), HP_DROP_NOT_IPV4);
	hp_gen_free(&g);
	/* CRC32C check value (RFC 3720 B.4: 32 bytes of zeros) */
	memset(buf, 0, 32);
	assert_int_equal(hp_crc32c(buf, 32), 0x8a9136aa);
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
	write_file(path, "# t rate\n0 10k\n1.5 0.5x\n3 2M\n");
	assert_int_equal(hp_profile_load(&p, path, 1000, err, sizeof(err)), 0);
	assert_true(hp_profile_rate(&p, 1) == 10000);
	assert_true(hp_profile_rate(&p, 2) == 500);
	assert_true(hp_profile_rate(&p, 9) == 2e6);
	write_file(path, "0 10k\n2 oops\n");
	assert_true(hp_profile_load(&p, path, 1000, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, ":2:"));
	write_file(path, "5 1\n1 1\n");
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
		md = hp_meta(m);
		memset(md, 0, sizeof(*md));
		md->flow_id = hp_flow_hash(&k);
		md->data_off = off + 16;
		md->data_len = len - 16;
		md->hdr_seq = rte_be_to_cpu_32(rte_pktmbuf_mtod_offset(m, struct hp_app_hdr *, off)->seq);
		hp_meta_seq_note(md); /* flow_slot 0: a tracked flow */
		memcpy(plain, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), md->data_len);
		assert_int_equal(ops->process(&ctx, &m, 1), 1);
		assert_int_equal(md->status, HP_ST_OK);
		assert_memory_not_equal(plain, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off),
					md->data_len);
		vlen = md->data_len;
		memcpy(buf, rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off), vlen);
		assert_int_equal(ops->verify(&ctx, m, buf, &vlen), 0);
		assert_memory_equal(buf, plain, vlen);
		rte_pktmbuf_free(m);
	}
	hp_gen_free(&g);
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
