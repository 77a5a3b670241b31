/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the `ran` packet units: bodies of 1, 2 and 6 received
 * 243-byte units decode in one call to the sent info bits, the reference
 * path rebuilds the received bytes exactly, undecodable or short bodies
 * are left untouched, and malformed decoded units are rejected.
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
	/* Only the unit code is accepted. */
	assert_int_equal(hp_ldpc_code_create("wifi:648:1/2", &other), 0);
	assert_int_equal(hp_ldpc_unit_gen(other, body, 1, 0), -EINVAL);
	assert_int_equal(hp_ldpc_units_restore(other, body, U), -EINVAL);
	hp_ldpc_dec_cfg_default(&cfg);
	assert_int_equal(hp_ldpc_dec_create(other, &cfg, &d2), 0);
	assert_int_equal(hp_ldpc_units_decode(d2, &bp, &len, 1, &ok, scratch), -EINVAL);
	hp_ldpc_dec_free(d2);
	hp_ldpc_code_free(other);
	free(scratch);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_restore),
		cmocka_unit_test(test_short_and_bad),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
