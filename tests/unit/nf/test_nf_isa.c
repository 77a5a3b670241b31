/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for the run-time ISA choice in hp_nf: every variant this CPU
 * can run (AVX-512F, AVX2 and no multi-buffer MD5; AES-NI and the
 * table-driven AES; ipsec-mb and the own CBC without AES-NI; the AVX2
 * and baseline DFA walks) against OpenSSL, ipsec-mb and the trie walk,
 * chosen with hp_nf_isa_limit(). A limit only takes features away, so a
 * variant this CPU cannot run is not run here (the test prints what ran);
 * tests/isa/check_isa.py checks how every variant is built.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "hp_nf.h"

static const unsigned int limits[] = {
	HP_NF_ISA_ALL,
	HP_NF_ISA_AVX2 | HP_NF_ISA_AESNI,
	HP_NF_ISA_AESNI,
	0,
};
#define NL (sizeof(limits) / sizeof(limits[0]))

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
fill(uint64_t *s, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rnd(s);
}

static int
ecb_block(const uint8_t key[16], const uint8_t in[16], uint8_t out[16])
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int ol = 0, ok;

	ok = x != NULL &&
	     EVP_EncryptInit_ex(x, EVP_aes_128_ecb(), NULL, key, NULL) == 1 &&
	     EVP_CIPHER_CTX_set_padding(x, 0) == 1 &&
	     EVP_EncryptUpdate(x, out, &ol, in, 16) == 1 && ol == 16;
	EVP_CIPHER_CTX_free(x);
	return ok ? 0 : -1;
}

static void
test_limit(void **state)
{
	unsigned int cpu = hp_nf_isa_cpu();

	assert_int_equal(hp_nf_isa(), cpu);
	assert_int_equal(hp_nf_isa_limit(0), 0);
	assert_int_equal(hp_nf_md5_mb_lanes(), 0);
	assert_int_equal(hp_nf_isa_limit(HP_NF_ISA_AVX2), cpu & HP_NF_ISA_AVX2);
	assert_int_equal(hp_nf_md5_mb_lanes(), cpu & HP_NF_ISA_AVX2 ? 8 : 0);
	assert_int_equal(hp_nf_isa_limit(HP_NF_ISA_ALL), cpu);
	assert_int_equal(hp_nf_md5_mb_lanes(),
			 cpu & HP_NF_ISA_AVX512 ? 16 : cpu & HP_NF_ISA_AVX2 ? 8 : 0);
	assert_string_equal(hp_nf_isa_name(0), "x86-64-v2");
	assert_string_equal(hp_nf_isa_name(HP_NF_ISA_AVX2 | HP_NF_ISA_AESNI),
			    "avx2+aesni");
	print_message("cpu: %s\n", hp_nf_isa_name(cpu));
}

/* Multi-buffer MD5 against OpenSSL, lengths around the block and padding
 * boundaries, in batches that leave lanes idle and that refill them. */
static void
test_md5(void **state)
{
	enum { N = 97, MAXLEN = 1500 };
	static uint8_t buf[N][MAXLEN];
	uint8_t d[N][16], ref[16];
	struct hp_nf_md5_job jobs[N];
	uint64_t s = 11;

	for (size_t li = 0; li < NL; li++) {
		unsigned int on = hp_nf_isa_limit(limits[li]);

		for (int g = 0; g < 2; g++) {
			hp_nf_md5_mb_loads(g ? HP_NF_MD5_LOADS_TRANSPOSE :
					       HP_NF_MD5_LOADS_GATHER);
			print_message("md5 limit %s: %u lanes, %s\n", hp_nf_isa_name(on),
				      hp_nf_md5_mb_lanes(), hp_nf_md5_mb_name());
			for (unsigned int i = 0; i < N; i++) {
				uint32_t len = i < 70 ? i * 2 : (uint32_t)(rnd(&s) % MAXLEN);

				fill(&s, buf[i], len);
				jobs[i] = (struct hp_nf_md5_job){ .data = buf[i],
					.len = len, .digest = d[i] };
			}
			for (unsigned int b = 1; b <= N; b = b * 3 + 1) {
				for (unsigned int i = 0; i < N; i += b)
					hp_nf_md5_mb(jobs + i, N - i < b ? N - i : b);
				for (unsigned int i = 0; i < N; i++) {
					assert_int_equal(hp_nf_md5_ref(jobs[i].data,
								       jobs[i].len, ref), 0);
					assert_memory_equal(d[i], ref, 16);
				}
			}
		}
	}
	hp_nf_md5_mb_loads(HP_NF_MD5_LOADS_AUTO);
	hp_nf_isa_limit(HP_NF_ISA_ALL);
}

/* hp_nf_aes_block (key/IV derivation) and the ipsec-mb burst against
 * OpenSSL, with keys expanded by an engine created under each limit. */
static void
test_aes(void **state)
{
	enum { N = 40, LEN = 1456 };
	static uint8_t buf[N][LEN], ref[N][LEN];
	uint8_t raw[N][16], iv[N][16];
	static struct hp_nf_aes_key key[N];
	struct hp_nf_cbc_job jobs[N];
	uint64_t s = 5;

	for (size_t li = 0; li < NL; li++) {
		unsigned int on = hp_nf_isa_limit(limits[li]);
		struct hp_nf_cbc *c;

		assert_int_equal(hp_nf_cbc_create(&c), 0);
		print_message("aes limit %s: block %s, ipsec-mb %s\n",
			      hp_nf_isa_name(on),
			      on & HP_NF_ISA_AESNI ? "aes-ni" : "table",
			      hp_nf_cbc_arch(c));
		if (!(on & HP_NF_ISA_AESNI))
			assert_true(strcmp(hp_nf_cbc_arch(c), "noaesni") == 0 ||
				    strcmp(hp_nf_cbc_arch(c), "scalar") == 0);
		for (unsigned int i = 0; i < N; i++) {
			uint8_t in[16], out[16], want[16];
			uint32_t len = 16 * (1 + (uint32_t)(rnd(&s) % (LEN / 16)));

			fill(&s, raw[i], 16);
			fill(&s, iv[i], 16);
			fill(&s, in, 16);
			hp_nf_cbc_expand(c, raw[i], &key[i]);
			hp_nf_aes_block(&key[i], in, out);
			assert_int_equal(ecb_block(raw[i], in, want), 0);
			assert_memory_equal(out, want, 16);

			fill(&s, buf[i], len);
			memcpy(ref[i], buf[i], len);
			assert_int_equal(hp_nf_cbc_evp(raw[i], iv[i], ref[i], len, 1), 0);
			jobs[i] = (struct hp_nf_cbc_job){ .buf = buf[i], .len = len,
				.key = &key[i], .iv = iv[i] };
		}
		assert_int_equal(hp_nf_cbc_encrypt_burst(c, jobs, N), 0);
		for (unsigned int i = 0; i < N; i++)
			assert_memory_equal(buf[i], ref[i], jobs[i].len);
		hp_nf_cbc_free(c);
	}
	hp_nf_isa_limit(HP_NF_ISA_ALL);
}

/* The own key expansion (engine without AES-NI) gives ipsec-mb's round
 * keys, decryption keys included. */
static void
test_expand(void **state)
{
	static struct hp_nf_aes_key a, b;
	struct hp_nf_cbc *ca, *cb;
	uint8_t raw[16];
	uint64_t s = 3;

	if (!(hp_nf_isa_cpu() & HP_NF_ISA_AESNI)) {
		print_message("no AES-NI: no ipsec-mb to compare with\n");
		return;
	}
	assert_int_equal(hp_nf_cbc_create(&ca), 0);
	hp_nf_isa_limit(0);
	assert_int_equal(hp_nf_cbc_create(&cb), 0);
	hp_nf_isa_limit(HP_NF_ISA_ALL);
	for (int i = 0; i < 100; i++) {
		fill(&s, raw, 16);
		hp_nf_cbc_expand(ca, raw, &a);
		hp_nf_cbc_expand(cb, raw, &b);
		assert_memory_equal(a.enc, b.enc, sizeof(a.enc));
		assert_memory_equal(a.dec, b.dec, sizeof(a.dec));
	}
	hp_nf_cbc_free(ca);
	hp_nf_cbc_free(cb);
}

/* Both DFA walks, single and interleaved, against the trie walk. */
static void
test_dfa(void **state)
{
	enum { N = 150 };
	static uint8_t buf[N][1500];
	const uint8_t *data[N];
	uint32_t len[N];
	struct hp_nf_dpi_res rb[N], r1, rn;
	struct hp_nf_patset *ps;
	struct hp_nf_ac *ac;
	uint64_t s = 9;

	assert_int_equal(hp_nf_patset_generate(1, 2000, &ps), 0);
	assert_int_equal(hp_nf_ac_build(ps, &ac), 0);
	for (unsigned int i = 0; i < N; i++) {
		len[i] = (uint32_t)(rnd(&s) % 1500);
		hp_nf_traffic_fill(ps, &s, buf[i], len[i], 0.5);
		data[i] = buf[i];
	}
	for (size_t li = 0; li < NL; li++) {
		unsigned int on = hp_nf_isa_limit(limits[li]);

		print_message("dfa limit %s: %s walk\n", hp_nf_isa_name(on),
			      on & HP_NF_ISA_AVX2 ? "avx2" : "baseline");
		hp_nf_ac_scan_batch(ac, data, len, N, rb);
		for (unsigned int i = 0; i < N; i++) {
			hp_nf_ac_scan(ac, data[i], len[i], &r1);
			hp_nf_ac_scan_nfa(ac, data[i], len[i], &rn);
			assert_int_equal(r1.count, rn.count);
			assert_int_equal(r1.first, rn.first);
			assert_int_equal(rb[i].count, rn.count);
			assert_int_equal(rb[i].first, rn.first);
		}
	}
	hp_nf_isa_limit(HP_NF_ISA_ALL);
	hp_nf_ac_free(ac);
	hp_nf_patset_free(ps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_md5),
		cmocka_unit_test(test_aes),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_dfa),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
