/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the `ran` packet units: bodies of 1, 2 and 6 received
 * 243-byte units decode in one call to the sent info bits, the reference
 * path rebuilds the received bytes exactly, undecodable or short bodies
 * are left untouched, and malformed decoded units are rejected; other
 * 802.11n and NR codes as units; every kernel ISA gives the same bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hp_ldpc.h"

#define U HP_LDPC_UNIT_LEN

static struct hp_ldpc_code *code;
static struct hp_ldpc_dec *dec;

static int
setup(void **state)
{
	struct hp_ldpc_dec_cfg cfg;

	(void)state;
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.max_iter = 20;
	if (hp_ldpc_code_create(HP_LDPC_UNIT_CODE, &code) < 0)
		return -1;
	return hp_ldpc_dec_create(code, &cfg, &dec);
}

static int
teardown(void **state)
{
	(void)state;
	hp_ldpc_dec_free(dec);
	hp_ldpc_code_free(code);
	return 0;
}

static void
test_decode_restore(void **state)
{
	static const unsigned int nunits[3] = {1, 2, 6};
	uint8_t *bodies[4], *orig[4], *clean[4], ok[4];
	uint32_t lens[4];
	unsigned int i, u;
	void *scratch;

	(void)state;
	for (i = 0; i < 4; i++) {
		unsigned int nu = i < 3 ? nunits[i] : 1;

		lens[i] = nu * U + (i == 1 ? 7 : 0);  /* trailing bytes kept */
		bodies[i] = malloc(lens[i]);
		orig[i] = malloc(lens[i]);
		clean[i] = malloc(lens[i]);
		assert_true(bodies[i] && orig[i] && clean[i]);
		memset(bodies[i], 0xa5, lens[i]);
		for (u = 0; u < nu; u++) {
			uint64_t seed = i * 10 + u;

			/* body 3: far too many flips to decode */
			assert_int_equal(hp_ldpc_unit_gen(code, bodies[i] + u * U, seed,
							  i == 3 ? 400 : 25), 0);
			assert_int_equal(hp_ldpc_unit_gen(code, clean[i] + u * U, seed, 0), 0);
		}
		memcpy(orig[i], bodies[i], lens[i]);
	}
	scratch = malloc(hp_ldpc_units_scratch(dec, 10));
	assert_non_null(scratch);
	assert_int_equal(hp_ldpc_units_decode(dec, bodies, lens, 4, ok, scratch), 3);
	assert_int_equal(ok[0] + ok[1] + ok[2], 3);
	assert_int_equal(ok[3], 0);
	assert_memory_equal(bodies[3], orig[3], lens[3]);
	for (i = 0; i < 3; i++) {
		for (u = 0; u < nunits[i]; u++) {
			const uint8_t *d = bodies[i] + u * U, *c = clean[i] + u * U;

			/* info bits = the systematic part of the clean word */
			assert_memory_equal(d, c, 121);
			assert_int_equal(d[121], c[121] & 0xf0);
			assert_int_equal(d[122], 25);
		}
		if (i == 1)
			assert_memory_equal(bodies[i] + 2 * U, orig[i] + 2 * U, 7);
		assert_int_equal(hp_ldpc_units_restore(code, bodies[i], lens[i]), 0);
		assert_memory_equal(bodies[i], orig[i], lens[i]);
	}
	for (i = 0; i < 4; i++) {
		free(bodies[i]);
		free(orig[i]);
		free(clean[i]);
	}
	free(scratch);
}

static void
test_short_and_bad(void **state)
{
	uint8_t body[U], copy[U], ok = 7;
	uint8_t *bp = body;
	uint32_t len = U - 1;
	void *scratch = malloc(hp_ldpc_units_scratch(dec, 1));
	struct hp_ldpc_code *other;
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_dec *d2;

	(void)state;
	assert_non_null(scratch);
	assert_int_equal(hp_ldpc_unit_gen(code, body, 5, 3), 0);
	memcpy(copy, body, U);
	assert_int_equal(hp_ldpc_units_decode(dec, &bp, &len, 1, &ok, scratch), 0);
	assert_int_equal(ok, 0);
	assert_memory_equal(body, copy, U);
	/* Decoded unit, then corrupted three ways. */
	len = U;
	assert_int_equal(hp_ldpc_units_decode(dec, &bp, &len, 1, &ok, scratch), 1);
	memcpy(copy, body, U);
	body[122] = HP_LDPC_UNIT_MAXFLIP + 1;
	assert_int_equal(hp_ldpc_units_restore(code, body, U), -EBADMSG);
	memcpy(body, copy, U);
	body[U - 1] = 1;
	assert_int_equal(hp_ldpc_units_restore(code, body, U), -EBADMSG);
	memcpy(body, copy, U);
	body[123] = body[125];
	body[124] = body[126];  /* positions no longer ascending */
	assert_int_equal(hp_ldpc_units_restore(code, body, U), -EBADMSG);
	/* Units of a code the decoder was not made for are rejected. */
	assert_int_equal(hp_ldpc_unit_gen(NULL, body, 1, 0), -EINVAL);
	assert_int_equal(hp_ldpc_units_restore(NULL, body, U), -EINVAL);
	assert_int_equal(hp_ldpc_code_create("wifi:1944:5/6", &other), 0);
	hp_ldpc_dec_cfg_default(&cfg);
	assert_int_equal(hp_ldpc_dec_create(other, &cfg, &d2), 0);
	/* Same unit length (243), but these are not its codewords. */
	assert_int_equal(hp_ldpc_unit_gen(code, body, 9, 0), 0);
	memcpy(copy, body, U);
	assert_int_equal(hp_ldpc_units_decode(d2, &bp, &len, 1, &ok, scratch), 0);
	assert_memory_equal(body, copy, U);
	hp_ldpc_dec_free(d2);
	hp_ldpc_code_free(other);
	free(scratch);
}

/* Other codes as units: geometry, round trip, info bits, and the full
 * hard decisions of hp_ldpc_decode_hard being the encoder's codeword. */
static void
test_other_codes(void **state)
{
	static const struct { const char *spec; unsigned int len, maxflip, flips; } cs[] = {
		{ "wifi:1944:1/2", 243, 60, 40 },
		{ "wifi:1944:5/6", 243, 19, 8 },
		{ "wifi:648:1/2", 81, 19, 6 },
		{ "wifi:1296:2/3", 162, 26, 10 },
		{ "nr:2:13", 82, 32, 8 },  /* 650 bits: 2 pad bits */
		{ "nr:1:32", 264, 87, 20 },
	};
	unsigned int i, u, len, mf;

	(void)state;
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		struct hp_ldpc_code *c;
		struct hp_ldpc_dec *d;
		struct hp_ldpc_dec_cfg cfg;
		unsigned int k, nf, ib;
		uint8_t *body, *orig, *info, *bits, *cw, *full, okv;
		int8_t *llr;
		uint32_t blen;
		void *scratch;

		assert_int_equal(hp_ldpc_code_create(cs[i].spec, &c), 0);
		assert_int_equal(hp_ldpc_unit_geom(c, &len, &mf), 0);
		assert_int_equal(len, cs[i].len);
		assert_int_equal(mf, cs[i].maxflip);
		hp_ldpc_dec_cfg_default(&cfg);
		cfg.max_iter = 30;
		assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), 0);
		k = hp_ldpc_code_k(c);
		nf = hp_ldpc_code_n_full(c);
		ib = (k + 7) / 8;
		blen = 3 * len;
		body = malloc(blen);
		orig = malloc(blen);
		info = malloc(ib);
		bits = malloc(nf);
		cw = malloc(nf);
		full = malloc(nf);
		llr = malloc(hp_ldpc_code_n(c));
		scratch = malloc(hp_ldpc_units_scratch(d, 3));
		assert_true(body && orig && info && bits && cw && full && llr && scratch);
		for (u = 0; u < 3; u++)
			assert_int_equal(hp_ldpc_unit_gen(c, body + u * len, 100 + u,
							  cs[i].flips), 0);
		memcpy(orig, body, blen);
		assert_int_equal(hp_ldpc_units_decode(d, &body, &blen, 1, &okv, scratch), 1);
		for (u = 0; u < 3; u++) {
			assert_int_equal(hp_ldpc_unit_info(c, 100 + u, info), 0);
			assert_memory_equal(body + u * len, info, ib);
			assert_int_equal(body[u * len + ib], cs[i].flips);
		}
		assert_int_equal(hp_ldpc_units_restore(c, body, blen), 0);
		assert_memory_equal(body, orig, blen);
		/* decode_hard: the whole word, punctured bits included. */
		hp_ldpc_unpack(orig, hp_ldpc_code_n(c), bits);
		for (u = 0; u < hp_ldpc_code_n(c); u++)
			llr[u] = bits[u] ? -16 : 16;
		assert_int_equal(hp_ldpc_decode_hard(d, llr, hp_ldpc_code_n(c), 1, full, NULL), 1);
		hp_ldpc_unit_info(c, 100, info);
		hp_ldpc_unpack(info, k, bits);
		assert_int_equal(hp_ldpc_encode(c, bits, cw), 0);
		assert_memory_equal(full, cw, nf);
		free(body);
		free(orig);
		free(info);
		free(bits);
		free(cw);
		free(full);
		free(llr);
		free(scratch);
		hp_ldpc_dec_free(d);
		hp_ldpc_code_free(c);
	}
	/* pack/unpack round trip at odd lengths (the 8-bit fast path and
	 * the tail) against the bit-by-bit definition. */
	for (len = 1; len < 150; len += 7) {
		uint8_t b[160], p[20], q[160];

		for (u = 0; u < len; u++)
			b[u] = (uint8_t)((u * 7 + len) % 3 == 0);
		memset(p, 0xff, sizeof(p));
		hp_ldpc_pack(b, len, p);
		for (u = 0; u < len; u++)
			assert_int_equal((p[u / 8] >> (7 - u % 8)) & 1, b[u]);
		if (len % 8)
			assert_int_equal(p[len / 8] & (0xff >> (len % 8)), 0);
		hp_ldpc_unpack(p, len, q);
		assert_memory_equal(q, b, len);
	}
}

/* Every kernel the CPU has decodes the same units to the same bytes: the
 * byte loops around the decoder are compiled per ISA too (baseline with
 * the scalar kernel, AVX2 with the AVX2 and AVX-512 ones). */
static void
test_isas_agree(void **state)
{
	enum { N = 40 };
	static uint8_t rx[N * U], out[HP_LDPC_ISA_AVX512 + 1][N * U];
	uint8_t *bodies[N], ok[N], ok0[N];
	uint32_t lens[N];
	unsigned int i;
	int rc0 = -1;

	(void)state;
	for (i = 0; i < N; i++) {
		assert_int_equal(hp_ldpc_unit_gen(code, rx + i * U, 100 + i,
						  i < N - 2 ? i % 26 : 400), 0);
		lens[i] = U;
	}
	for (int isa = HP_LDPC_ISA_SCALAR; isa <= HP_LDPC_ISA_AVX512; isa++) {
		struct hp_ldpc_dec_cfg cfg;
		struct hp_ldpc_dec *d;
		void *scratch;
		int rc;

		if (!hp_ldpc_isa_supported(isa))
			continue;
		hp_ldpc_dec_cfg_default(&cfg);
		cfg.max_iter = 20;
		cfg.isa = isa;
		assert_int_equal(hp_ldpc_dec_create(code, &cfg, &d), 0);
		scratch = malloc(hp_ldpc_units_scratch(d, N));
		assert_non_null(scratch);
		memcpy(out[isa], rx, sizeof(rx));
		for (i = 0; i < N; i++)
			bodies[i] = out[isa] + i * U;
		rc = hp_ldpc_units_decode(d, bodies, lens, N,
					  isa == HP_LDPC_ISA_SCALAR ? ok0 : ok, scratch);
		assert_true(rc >= N - 2 - 2 && rc <= N - 2);
		if (isa == HP_LDPC_ISA_SCALAR) {
			rc0 = rc;
		} else {
			assert_int_equal(rc, rc0);
			assert_memory_equal(ok, ok0, N);
			assert_memory_equal(out[isa], out[HP_LDPC_ISA_SCALAR], sizeof(rx));
		}
		free(scratch);
		hp_ldpc_dec_free(d);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_restore),
		cmocka_unit_test(test_short_and_bad),
		cmocka_unit_test(test_other_codes),
		cmocka_unit_test(test_isas_agree),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
