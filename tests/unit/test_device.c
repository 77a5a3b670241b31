/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the device layer's pure parts: the batcher's flush rules
 * (size, bytes, deadline, timeout, minimum batch, stale, drain-free rate
 * adaptation) on a synthetic clock, and profile loading (the jetson-thesis
 * transcription against the thesis's own table values, malformed files).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hp_batch.h"
#include "hp_model.h"
#include "hp_test.h"

/* Synthetic clock: 1 cycle = 1 ns keeps the numbers readable. */
#define US 1000ull

static struct hp_batch_cfg
cfg_default(void)
{
	return (struct hp_batch_cfg){
		.max_pkts = 128,
		.max_bytes = 0,
		.min_pkts = 4,
		.timeout = 200 * US,
		.margin = 20 * US,
		.adapt = false,
	};
}

static void
test_flush_full_pkts(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;
	unsigned int i;

	(void)state;
	hp_batcher_init(&b, &c);
	for (i = 0; i < 127; i++) {
		hp_batcher_add(&b, 100, 0, 1000 + i);
		assert_int_equal(hp_batcher_check(&b, 1000 + i, 0), HP_FLUSH_NONE);
	}
	assert_true(hp_batcher_fits(&b, 100));
	hp_batcher_add(&b, 100, 0, 2000);
	assert_false(hp_batcher_fits(&b, 100));
	assert_int_equal(hp_batcher_check(&b, 2000, 0), HP_FLUSH_FULL);
	hp_batcher_reset(&b);
	assert_int_equal(hp_batcher_check(&b, 2000, 0), HP_FLUSH_NONE);
}

static void
test_flush_full_bytes(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;

	(void)state;
	c.max_bytes = 3000;
	hp_batcher_init(&b, &c);
	/* An empty batch takes any packet, even one above the limit. */
	assert_true(hp_batcher_fits(&b, 5000));
	hp_batcher_add(&b, 1458, 0, 10);
	assert_true(hp_batcher_fits(&b, 1458));
	hp_batcher_add(&b, 1458, 0, 20);
	assert_false(hp_batcher_fits(&b, 243));
	assert_int_equal(hp_batcher_check(&b, 30, 0), HP_FLUSH_NONE);
	hp_batcher_add(&b, 243, 0, 30); /* caller ignored fits(): still full */
	assert_int_equal(hp_batcher_check(&b, 30, 0), HP_FLUSH_FULL);
}

static void
test_flush_deadline(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;
	uint64_t t0 = 1000000, dl = t0 + 1000 * US, svc = 300 * US;

	(void)state;
	hp_batcher_init(&b, &c);
	/* One packet (below the minimum of 4) with a deadline 1 ms away and
	 * a predicted service time of 300 us: it leaves once the slack is
	 * down to service + margin, not before, despite the minimum. */
	hp_batcher_add(&b, 243, dl, t0);
	assert_int_equal(hp_batcher_check(&b, t0, svc), HP_FLUSH_NONE);
	assert_int_equal(hp_batcher_check(&b, dl - svc - c.margin - 1, svc), HP_FLUSH_NONE);
	assert_int_equal(hp_batcher_check(&b, dl - svc - c.margin, svc), HP_FLUSH_DEADLINE);
	assert_int_equal(hp_batcher_check(&b, dl - svc, svc), HP_FLUSH_DEADLINE);
	/* The most urgent deadline rules: a later packet with an earlier
	 * deadline moves the flush point. */
	hp_batcher_reset(&b);
	hp_batcher_add(&b, 243, dl, t0);
	hp_batcher_add(&b, 243, dl - 500 * US, t0 + 1);
	assert_int_equal(hp_batcher_check(&b, dl - 500 * US - svc - c.margin, svc),
			 HP_FLUSH_DEADLINE);
}

static void
test_deadline_already_lost(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;
	uint64_t t0 = 1000000, dl = t0 + 100 * US;

	(void)state;
	hp_batcher_init(&b, &c);
	/* The device is backed up: even leaving now (service 500 us) misses
	 * the deadline, so the batch is not cut short for it. */
	hp_batcher_add(&b, 243, dl, t0);
	assert_int_equal(hp_batcher_check(&b, t0, 500 * US), HP_FLUSH_NONE);
}

static void
test_flush_timeout_and_min(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;
	uint64_t t0 = 5000;

	(void)state;
	hp_batcher_init(&b, &c);
	hp_batcher_add(&b, 243, 0, t0);
	hp_batcher_add(&b, 243, 0, t0 + 1);
	hp_batcher_add(&b, 243, 0, t0 + 2);
	/* 3 < min 4: the timeout does not fire ... */
	assert_int_equal(hp_batcher_check(&b, t0 + c.timeout, 0), HP_FLUSH_NONE);
	assert_int_equal(hp_batcher_check(&b, t0 + 7 * c.timeout, 0), HP_FLUSH_NONE);
	/* ... until the stale rule (8x timeout) keeps it live. */
	assert_int_equal(hp_batcher_check(&b, t0 + 8 * c.timeout, 0), HP_FLUSH_STALE);
	hp_batcher_add(&b, 243, 0, t0 + 3);
	assert_int_equal(hp_batcher_check(&b, t0 + c.timeout - 1, 0), HP_FLUSH_NONE);
	assert_int_equal(hp_batcher_check(&b, t0 + c.timeout, 0), HP_FLUSH_TIMEOUT);
}

static void
test_min_clamped(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;

	(void)state;
	c.min_pkts = 500; /* above max: clamped */
	hp_batcher_init(&b, &c);
	assert_int_equal(b.cfg.min_pkts, 128);
	c.min_pkts = 0;
	hp_batcher_init(&b, &c);
	assert_int_equal(b.cfg.min_pkts, 1);
}

/* Feeds n arrivals with a fixed gap; returns the adapted target. */
static uint32_t
target_at_gap(uint64_t gap)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;
	uint64_t t = 1;
	unsigned int i;

	c.adapt = true;
	c.svc_fixed = 700 * US;   /* jetson-thesis AES-CTR: ~715 us a batch */
	c.svc_per_pkt = 2 * US;
	hp_batcher_init(&b, &c);
	for (i = 0; i < 2000; i++) {
		hp_batcher_add(&b, 243, 0, t);
		if (b.n == b.cfg.max_pkts)
			hp_batcher_reset(&b);
		t += gap;
	}
	return hp_batcher_target(&b);
}

static void
test_rate_adaptation(void **state)
{
	uint32_t slow, mid, fast, flood;

	(void)state;
	slow = target_at_gap(1000 * US);  /* 1 kpps */
	mid = target_at_gap(20 * US);     /* 50 kpps */
	fast = target_at_gap(8 * US);     /* 125 kpps */
	flood = target_at_gap(1 * US);    /* faster than per-packet cost */
	/* Low rate: the minimum; rising rate: larger batches; beyond the
	 * device's per-packet rate: the maximum. The target is the smallest
	 * B with 1.25 * fixed <= B * (gap - per_pkt). */
	assert_int_equal(slow, 4);
	assert_int_equal(mid, 49);   /* ceil(1.25*700/18) */
	assert_int_equal(fast, 128); /* ceil(1.25*700/6) = 146 > max */
	assert_int_equal(flood, 128);
	assert_true(slow < mid && mid < fast);
}

static void
test_flush_target(void **state)
{
	struct hp_batch_cfg c = cfg_default();
	struct hp_batcher b;
	enum hp_flush_reason why = HP_FLUSH_NONE;
	uint64_t t = 1;
	unsigned int i;

	(void)state;
	c.adapt = true;
	c.timeout = 10000 * US; /* out of the way */
	c.svc_fixed = 700 * US;
	c.svc_per_pkt = 2 * US;
	hp_batcher_init(&b, &c);
	/* 50 kpps: the target settles at 49 and the batch leaves there. */
	for (i = 0; i < 1000 && why == HP_FLUSH_NONE; i++) {
		hp_batcher_add(&b, 243, 0, t);
		why = hp_batcher_check(&b, t, 0);
		if (why != HP_FLUSH_NONE && i < 500) {
			hp_batcher_reset(&b); /* warm-up batches */
			why = HP_FLUSH_NONE;
		}
		t += 20 * US;
	}
	assert_int_equal(why, HP_FLUSH_TARGET);
	assert_int_equal(b.n, 49);
}

/* ---- profiles ---- */

static void
test_profile_jetson(void **state)
{
	struct hp_model m;
	char err[512] = "";
	/* Thesis Table 4.4 (GPU, 256 packets = 2 batches of 128) and Table
	 * 4.2: the fitted lines must reproduce the table within 8 %. */
	static const struct { const char *task; uint32_t size; double ms_256; } rows[] = {
		{ "aes_ctr", 243, 1.77 }, { "aes_ctr", 486, 1.99 }, { "aes_ctr", 1458, 3.26 },
		{ "ldpc", 243, 9.4 }, { "ldpc", 486, 12.5 }, { "ldpc", 1458, 17.8 },
	};
	unsigned int i;

	(void)state;
	setenv("HP_PROFILE_DIR", HP_TEST_PROFILE_DIR, 1);
	assert_int_equal(hp_model_load(&m, "jetson-thesis", err, sizeof(err)), 0);
	assert_string_equal(m.device, "gpu");
	assert_int_equal(m.max_batch, 128);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double us = 2 * hp_model_predict_us(&m, rows[i].task, 128, 128 * rows[i].size);

		assert_true(us > 0);
		assert_true(us / 1e3 > rows[i].ms_256 * 0.92 && us / 1e3 < rows[i].ms_256 * 1.08);
	}
	assert_true(hp_model_predict_us(&m, "md5", 1, 64) < 0);
	/* The modeled ARM CPU: Table 4.4 CPU, 1.73 ms per 256 x 243 B. */
	assert_int_equal(hp_model_load(&m, "jetson-thesis@cpu", err, sizeof(err)), 0);
	assert_true(fabs(256 * hp_model_predict_us(&m, "aes_ctr", 1, 243) / 1e3 - 1.73) < 0.15);
}

static void
test_profile_malformed(void **state)
{
	static const struct { const char *json; const char *msg; } cases[] = {
		{ "{ not json", "line" },
		{ "{\"devices\": {}}", "no device 'gpu'" },
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 0, \"tasks\": {}}}}", "max_batch" },
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"tasks\": {}}}}", "tasks" },
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"tasks\": {\"x\": [{\"batch\": 8, \"fixed_us\": -1, \"per_pkt_us\": 0, \"per_byte_ns\": 0}]}}}}", "fixed_us" },
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"tasks\": {\"x\": [{\"batch\": 8, \"fixed_us\": 1, \"per_pkt_us\": 0}]}}}}", "per_byte_ns" },
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"tasks\": {\"x\": [{\"batch\": 8, \"fixed_us\": 1, \"per_pkt_us\": 0, \"per_byte_ns\": 1}, {\"batch\": 4, \"fixed_us\": 1, \"per_pkt_us\": 0, \"per_byte_ns\": 1}]}}}}", "increasing" },
		{ "{\"format\": \"heteroplane-profile-9\", \"devices\": {}}", "\"format\" is not" },
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"copy_engines\": -1, \"tasks\": {}}}}", "copy_engines" },
		/* keys from the file are echoed on one line */
		{ "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"tasks\": {\"a\\nb\": 1}}}}", "tasks.a\\nb: expected" },
		{ "{\"devices\"\n: {\"gpu\"\n:\n\n x}}", "line 5" },
		{ "{\"devices\": \"a\\\nb\"}", "near '\"a\\\\n' (line 2)" },
	};
	char path[] = "/tmp/hp_prof_XXXXXX.json", err[512];
	struct hp_model m;
	unsigned int i;
	int fd;

	(void)state;
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hp_test_write_file(path, cases[i].json);
		err[0] = '\0';
		assert_int_equal(hp_model_load(&m, path, err, sizeof(err)), -EINVAL);
		if (strstr(err, cases[i].msg) == NULL || strchr(err, '\n') != NULL)
			fail_msg("case %u: '%s' lacks '%s'", i, err, cases[i].msg);
	}
	assert_int_equal(hp_model_load(&m, "/nonexistent/p.json", err, sizeof(err)), -EINVAL);
	assert_int_equal(hp_model_load(&m, "", err, sizeof(err)), -EINVAL);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_full_pkts),
		cmocka_unit_test(test_flush_full_bytes),
		cmocka_unit_test(test_flush_deadline),
		cmocka_unit_test(test_deadline_already_lost),
		cmocka_unit_test(test_flush_timeout_and_min),
		cmocka_unit_test(test_min_clamped),
		cmocka_unit_test(test_rate_adaptation),
		cmocka_unit_test(test_flush_target),
		cmocka_unit_test(test_profile_jetson),
		cmocka_unit_test(test_profile_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
