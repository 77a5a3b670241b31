/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for AES-128-CBC in hp_nf: NIST SP 800-38A F.2.1/F.2.2
 * vectors on both paths, multi-buffer vs OpenSSL byte identity on IMIX
 * sizes, PKCS#7 padding and the key/IV derivation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hp_nf.h"

static const uint8_t nist_key[16] = {
	0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
	0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
static const uint8_t nist_iv[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f };
static const uint8_t nist_pt[64] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
	0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
	0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11, 0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
	0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17, 0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10 };
static const uint8_t nist_ct[64] = {
	0x76, 0x49, 0xab, 0xac, 0x81, 0x19, 0xb2, 0x46, 0xce, 0xe9, 0x8e, 0x9b, 0x12, 0xe9, 0x19, 0x7d,
	0x50, 0x86, 0xcb, 0x9b, 0x50, 0x72, 0x19, 0xee, 0x95, 0xdb, 0x11, 0x3a, 0x91, 0x76, 0x78, 0xb2,
	0x73, 0xbe, 0xd6, 0xb8, 0xe3, 0xc1, 0x74, 0x3b, 0x71, 0x16, 0xe6, 0x9e, 0x22, 0x22, 0x95, 0x16,
	0x3f, 0xf1, 0xca, 0xa1, 0x68, 0x1f, 0xac, 0x09, 0x12, 0x0e, 0xca, 0x30, 0x75, 0x86, 0xe1, 0xa7 };

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
setup(void **state)
{
	struct hp_nf_cbc *c;

	if (hp_nf_cbc_create(&c) != 0)
		return -1;
	*state = c;
	return 0;
}

static int
teardown(void **state)
{
	hp_nf_cbc_free(*state);
	return 0;
}

static void
test_nist_mb(void **state)
{
	struct hp_nf_cbc *c = *state;
	struct hp_nf_aes_key k;
	uint8_t buf[64];

	/* Every prefix of the vector (1..4 blocks) is itself a CBC vector. */
	hp_nf_cbc_expand(c, nist_key, &k);
	for (uint32_t nb = 1; nb <= 4; nb++) {
		struct hp_nf_cbc_job j = { .buf = buf, .len = 16 * nb, .key = &k,
					   .iv = nist_iv };

		memcpy(buf, nist_pt, sizeof(buf));
		assert_int_equal(hp_nf_cbc_encrypt_burst(c, &j, 1), 0);
		assert_memory_equal(buf, nist_ct, 16 * nb);
	}
}

static void
test_nist_evp(void **state)
{
	uint8_t buf[64];

	memcpy(buf, nist_pt, 64);
	assert_int_equal(hp_nf_cbc_evp(nist_key, nist_iv, buf, 64, 1), 0);
	assert_memory_equal(buf, nist_ct, 64);
	/* F.2.2: decryption. */
	assert_int_equal(hp_nf_cbc_evp(nist_key, nist_iv, buf, 64, 0), 0);
	assert_memory_equal(buf, nist_pt, 64);
	assert_int_equal(hp_nf_cbc_evp(nist_key, nist_iv, buf, 15, 1), -EINVAL);
}

static void
test_bad_len(void **state)
{
	struct hp_nf_cbc *c = *state;
	struct hp_nf_aes_key k;
	uint8_t buf[32] = { 0 };
	struct hp_nf_cbc_job j = { .buf = buf, .len = 17, .key = &k, .iv = nist_iv };

	hp_nf_cbc_expand(c, nist_key, &k);
	assert_int_equal(hp_nf_cbc_encrypt_burst(c, &j, 1), -EINVAL);
}

static void
test_pad(void **state)
{
	uint8_t buf[80];
	uint32_t out;

	for (uint32_t len = 0; len <= 48; len++) {
		uint32_t pl;

		memset(buf, 0xee, sizeof(buf));
		pl = hp_nf_cbc_pad(buf, len);
		assert_int_equal(pl % 16, 0);
		assert_true(pl > len && pl - len <= 16);
		for (uint32_t i = len; i < pl; i++)
			assert_int_equal(buf[i], pl - len);
		assert_int_equal(hp_nf_cbc_unpad(buf, pl, &out), 0);
		assert_int_equal(out, len);
	}
	memset(buf, 0, 32);
	assert_int_equal(hp_nf_cbc_unpad(buf, 32, &out), -EBADMSG); /* pad 0 */
	buf[31] = 17;
	assert_int_equal(hp_nf_cbc_unpad(buf, 32, &out), -EBADMSG); /* > 16 */
	buf[31] = 2;
	buf[30] = 3;
	assert_int_equal(hp_nf_cbc_unpad(buf, 32, &out), -EBADMSG); /* mixed */
	assert_int_equal(hp_nf_cbc_unpad(buf, 31, &out), -EBADMSG); /* length */
	assert_int_equal(hp_nf_cbc_unpad(buf, 0, &out), -EBADMSG);
}

static void
test_derive(void **state)
{
	struct hp_nf_cbc *c = *state;
	uint64_t s = 42;

	for (int i = 0; i < 200; i++) {
		struct hp_nf_aes_key mk, fk;
		uint8_t master[16], fb[16], k1[16], iv1[16], k2[16], iv2[16], sb[16];
		uint8_t ip[8], pt[4];
		uint32_t seq = (uint32_t)rnd(&s);

		for (int j = 0; j < 16; j++)
			master[j] = (uint8_t)rnd(&s);
		for (int j = 0; j < 8; j++)
			ip[j] = (uint8_t)rnd(&s);
		for (int j = 0; j < 4; j++)
			pt[j] = (uint8_t)rnd(&s);
		hp_nf_cbc_flow_block(ip, ip + 4, pt, pt + 2, 17, fb);
		assert_memory_equal(fb, "CB1", 3);
		assert_int_equal(fb[15], 17);
		assert_int_equal(hp_nf_cbc_derive_ref(master, fb, seq, k1, iv1), 0);
		hp_nf_cbc_expand(c, master, &mk);
		hp_nf_aes_block(&mk, fb, k2);
		hp_nf_cbc_expand(c, k2, &fk);
		hp_nf_cbc_seq_block(seq, sb);
		hp_nf_aes_block(&fk, sb, iv2);
		assert_memory_equal(k1, k2, 16);
		assert_memory_equal(iv1, iv2, 16);
	}
}

static void
test_mb_vs_evp_imix(void **state)
{
	enum { N = 150 };
	static const uint32_t sizes[] = { 0, 1, 15, 16, 17, 64, 243, 486, 1458 };
	struct hp_nf_cbc *c = *state;
	struct hp_nf_aes_key *keys = aligned_alloc(16, N * sizeof(*keys));
	struct hp_nf_cbc_job jobs[N];
	uint8_t *a[N], *b[N], rawk[N][16], iv[N][16];
	uint32_t len[N];
	uint64_t s = 7;

	assert_non_null(keys);
	for (int i = 0; i < N; i++) {
		len[i] = sizes[rnd(&s) % (sizeof(sizes) / sizeof(sizes[0]))];
		a[i] = malloc(len[i] + 16);
		b[i] = malloc(len[i] + 16);
		assert_non_null(a[i]);
		assert_non_null(b[i]);
		for (uint32_t j = 0; j < len[i]; j++)
			a[i][j] = (uint8_t)rnd(&s);
		for (int j = 0; j < 16; j++) {
			rawk[i][j] = (uint8_t)rnd(&s);
			iv[i][j] = (uint8_t)rnd(&s);
		}
		len[i] = hp_nf_cbc_pad(a[i], len[i]);
		memcpy(b[i], a[i], len[i]);
		hp_nf_cbc_expand(c, rawk[i], &keys[i]);
		jobs[i] = (struct hp_nf_cbc_job){ .buf = a[i], .len = len[i],
						  .key = &keys[i], .iv = iv[i] };
	}
	/* One call with more jobs than a burst (64) and one of 1. */
	assert_int_equal(hp_nf_cbc_encrypt_burst(*state, jobs, N - 1), 0);
	assert_int_equal(hp_nf_cbc_encrypt_burst(*state, jobs + N - 1, 1), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(hp_nf_cbc_evp(rawk[i], iv[i], b[i], len[i], 1), 0);
		assert_memory_equal(a[i], b[i], len[i]);
		/* and it decrypts back to the padded plaintext */
		assert_int_equal(hp_nf_cbc_evp(rawk[i], iv[i], b[i], len[i], 0), 0);
		free(a[i]);
		free(b[i]);
	}
	free(keys);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nist_mb),
		cmocka_unit_test(test_nist_evp),
		cmocka_unit_test(test_bad_len),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_mb_vs_evp_imix),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
