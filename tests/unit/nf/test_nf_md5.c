/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for MD5 in hp_nf: the RFC 1321 test suite (A.5) on the
 * OpenSSL path and on the own multi-buffer path, and the two paths against
 * each other on random lengths around the block and padding boundaries,
 * each with the gather loads and with the gather-free transpose.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hp_nf.h"

static const struct {
	const char *msg;
	const char *md5;
} rfc1321[] = {
	{ "", "d41d8cd98f00b204e9800998ecf8427e" },
	{ "a", "0cc175b9c0f1b6a831c399e269772661" },
	{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
	{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
	{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
	{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
	  "d174ab98d277d9f5a5611c2c9f419d9f" },
	{ "1234567890123456789012345678901234567890"
	  "1234567890123456789012345678901234567890",
	  "57edf4a22be3c955ac49da2e2107b67a" },
};
#define NV (sizeof(rfc1321) / sizeof(rfc1321[0]))

static void
hex(const uint8_t d[16], char out[33])
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void
test_rfc1321_ref(void **state)
{
	for (size_t i = 0; i < NV; i++) {
		uint8_t d[16];
		char h[33];

		assert_int_equal(hp_nf_md5_ref((const uint8_t *)rfc1321[i].msg,
					       strlen(rfc1321[i].msg), d), 0);
		hex(d, h);
		assert_string_equal(h, rfc1321[i].md5);
	}
}

/* The prestate picks the loads; the name says which kernel ran. */
static void
set_loads(void **state)
{
	enum hp_nf_md5_loads want = *(const enum hp_nf_md5_loads *)*state;
	const char *name;

	assert_int_equal(hp_nf_md5_mb_loads(want), want);
	name = hp_nf_md5_mb_name();
	if (hp_nf_md5_mb_lanes() == 0)
		assert_string_equal(name, "openssl");
	else
		assert_non_null(strstr(name, want == HP_NF_MD5_LOADS_GATHER ?
					      "-gather" : "-nogather"));
}

static void
test_rfc1321_mb(void **state)
{
	struct hp_nf_md5_job jobs[NV];
	uint8_t d[NV][16];
	char h[33];

	set_loads(state);
	/* Alone (other lanes idle) and all together in one batch. */
	for (size_t i = 0; i < NV; i++) {
		jobs[i] = (struct hp_nf_md5_job){
			.data = (const uint8_t *)rfc1321[i].msg,
			.len = (uint32_t)strlen(rfc1321[i].msg), .digest = d[i] };
		hp_nf_md5_mb(&jobs[i], 1);
		hex(d[i], h);
		assert_string_equal(h, rfc1321[i].md5);
		memset(d[i], 0, 16);
	}
	hp_nf_md5_mb(jobs, NV);
	for (size_t i = 0; i < NV; i++) {
		hex(d[i], h);
		assert_string_equal(h, rfc1321[i].md5);
	}
}

static void
test_mb_vs_ref(void **state)
{
	enum { N = 300 };
	static const uint32_t edge[] = { 0, 1, 55, 56, 57, 63, 64, 65, 119, 120,
					 127, 128, 243, 486, 1458, 4096 };
	static const unsigned int batch[] = { 1, 2, 15, 16, 17, 32, 100 };
	struct hp_nf_md5_job jobs[N];
	uint8_t *data[N], d[N][16], r[16];
	uint64_t s = 99;

	set_loads(state);
	for (int i = 0; i < N; i++) {
		uint32_t len;

		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		len = i < 16 ? edge[i] : (uint32_t)(s % 2000);
		data[i] = malloc(len + 1);
		assert_non_null(data[i]);
		for (uint32_t j = 0; j < len; j++)
			data[i][j] = (uint8_t)(s >> (j % 56)) ^ (uint8_t)j;
		jobs[i] = (struct hp_nf_md5_job){ .data = data[i], .len = len,
						  .digest = d[i] };
	}
	for (size_t b = 0, i = 0; i < N; b++) {
		unsigned int k = batch[b % (sizeof(batch) / sizeof(batch[0]))];

		if (k > N - i)
			k = (unsigned int)(N - i);
		hp_nf_md5_mb(jobs + i, k);
		i += k;
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(hp_nf_md5_ref(data[i], jobs[i].len, r), 0);
		assert_memory_equal(r, d[i], 16);
		free(data[i]);
	}
	assert_true(hp_nf_md5_mb_lanes() == 0 || hp_nf_md5_mb_lanes() == 8 ||
		    hp_nf_md5_mb_lanes() == 16);
}

int
main(void)
{
	static enum hp_nf_md5_loads g = HP_NF_MD5_LOADS_GATHER,
				    t = HP_NF_MD5_LOADS_TRANSPOSE;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc1321_ref),
		cmocka_unit_test_prestate(test_rfc1321_mb, &g),
		cmocka_unit_test_prestate(test_rfc1321_mb, &t),
		cmocka_unit_test_prestate(test_mb_vs_ref, &g),
		cmocka_unit_test_prestate(test_mb_vs_ref, &t),
	};
	int rc;

	/* The default follows the table: transpose exactly where gathers
	 * are slow (AMD), whatever ran before. */
	print_message("md5 default: %s\n", hp_nf_md5_mb_name());
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (hp_nf_md5_mb_loads(HP_NF_MD5_LOADS_AUTO) !=
	    (__builtin_cpu_is("amd") ? HP_NF_MD5_LOADS_TRANSPOSE :
				       HP_NF_MD5_LOADS_GATHER)) {
		fprintf(stderr, "md5: AUTO loads do not follow the table\n");
		rc = 1;
	}
	return rc;
}
