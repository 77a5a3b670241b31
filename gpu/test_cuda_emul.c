/* SPDX-License-Identifier: BSD-3-Clause
 * Checks the CUDA kernels' per-thread code without a GPU: hpk_emulate runs
 * the very functions the kernels run (same thread numbering, same shared-
 * table layout) on the CPU. References not written here: FIPS-197
 * Appendix C.1, NIST SP 800-38A F.5.1, RFC 1321 §A.5, and OpenSSL's
 * AES-128-CTR and MD5 on random packets of every IMIX size and of random
 * sizes. Exit 0 on success, 1 on a mismatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "hp_cuda_kern.h"
#include "hpk_test_util.h"

#define NPKT 600
#define CAP_BYTES (NPKT * 1600)

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct hpk_batch b;

static void
alloc_batch(void)
{
	hpk_test_batch(&b, NPKT, CAP_BYTES);
}

static void
test_fips197_c1(void)
{
	uint8_t key[16], pt[16], ct[16];
	uint32_t len = 16;

	hpk_hex("000102030405060708090a0b0c0d0e0f", key, 16);
	hpk_hex("00112233445566778899aabbccddeeff", pt, 16);
	hpk_hex("69c4e0d86a7b0430d8cdb78070b4c55a", ct, 16);
	hpk_layout(&b, &len, 1, NPKT, CAP_BYTES);
	hpk_aes128_expand(key, b.rk);
	b.n_keys = 1;
	b.key_idx[0] = 0;
	hpk_test_set_iv(&b, 0, pt);          /* counter block = plaintext, data = 0 */
	memset(b.data, 0, 16);   /* so the "ciphertext" is E(K, pt) */
	hpk_emulate(HPK_AES_CTR, &b, NULL);
	CHECK(memcmp(b.data, ct, 16) == 0, "FIPS-197 C.1 block");
}

static void
test_sp800_38a_f51(void)
{
	CHECK(hpk_test_vector64(&b, HPK_AES_CTR, "2b7e151628aed2a6abf7158809cf4f3c",
				"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
				"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
				"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
				"874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
				"5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
				NPKT, CAP_BYTES),
	      "SP 800-38A F.5.1 CTR-AES128.Encrypt");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(void)
{
	return hpk_rnd(&rng);
}

/* Random packets: the IMIX payload sizes (frames 243/486/1458 minus 58
 * bytes of headers), empty ones and random lengths, several flows. */
static void
random_batch(uint32_t *lens, uint32_t n)
{
	static const uint32_t imix[] = { 185, 428, 1400, 243, 486, 1458 };

	for (uint32_t i = 0; i < n; i++)
		lens[i] = i % 3 == 0 ? imix[i % 6] : (i % 50 == 1 ? 0 : rnd() % 1500);
	if (hpk_layout(&b, lens, n, NPKT, CAP_BYTES) != 0) {
		fprintf(stderr, "layout failed\n");
		exit(1);
	}
	for (uint32_t i = 0; i < b.data_bytes; i++)
		b.data[i] = (uint8_t)rnd();
}

static void
test_ctr_random(void)
{
	static uint32_t lens[NPKT];
	static uint8_t keys[32][16], ivs[NPKT][16], expect[CAP_BYTES];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint32_t n = NPKT, mism = 0;
	int outl;

	random_batch(lens, n);
	b.n_keys = 32;
	for (int k = 0; k < 32; k++) {
		for (int j = 0; j < 16; j++)
			keys[k][j] = (uint8_t)rnd();
		hpk_aes128_expand(keys[k], b.rk + 44 * k);
	}
	memcpy(expect, b.data, b.data_bytes);
	for (uint32_t i = 0; i < n; i++) {
		for (int j = 0; j < 16; j++)
			ivs[i][j] = (uint8_t)rnd();
		ivs[i][12] = 0; /* the low 32-bit counter never wraps in a packet */
		b.key_idx[i] = rnd() % 32;
		hpk_test_set_iv(&b, i, ivs[i]);
		EVP_EncryptInit_ex(c, EVP_aes_128_ctr(), NULL, keys[b.key_idx[i]], ivs[i]);
		EVP_EncryptUpdate(c, expect + b.off[i], &outl, expect + b.off[i], (int)lens[i]);
	}
	hpk_emulate(HPK_AES_CTR, &b, NULL);
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(b.data + b.off[i], expect + b.off[i], lens[i]) != 0)
			mism++;
	CHECK(mism == 0, "AES-CTR: %u of %u random packets differ from OpenSSL", mism, n);
	EVP_CIPHER_CTX_free(c);
}

static void
test_md5_rfc1321(void)
{
	static const char *msg[] = {
		"", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
		"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
	};
	static const char *md[] = {
		"d41d8cd98f00b204e9800998ecf8427e", "0cc175b9c0f1b6a831c399e269772661",
		"900150983cd24fb0d6963f7d28e17f72", "f96b697d7cb7938d525a2f31aaf161d0",
		"c3fcd3d76192e4007dfb496cca67e13b", "d174ab98d277d9f5a5611c2c9f419d9f",
		"57edf4a22be3c955ac49da2e2107b67a",
	};
	uint32_t lens[7];
	uint8_t want[16];

	for (int i = 0; i < 7; i++)
		lens[i] = (uint32_t)strlen(msg[i]);
	hpk_layout(&b, lens, 7, NPKT, CAP_BYTES);
	for (int i = 0; i < 7; i++)
		memcpy(b.data + b.off[i], msg[i], lens[i]);
	hpk_emulate(HPK_MD5, &b, NULL);
	for (int i = 0; i < 7; i++) {
		hpk_hex(md[i], want, 16);
		CHECK(memcmp(b.digest + 16 * i, want, 16) == 0, "MD5 RFC 1321 A.5 #%d", i);
	}
}

static void
test_md5_random(void)
{
	static uint32_t lens[NPKT];
	uint32_t mism = 0;
	uint8_t d[16];
	unsigned int dl;

	random_batch(lens, NPKT);
	/* every tail length 0..63, across the 55/56 padding boundary */
	for (uint32_t i = 0; i < 128; i++)
		lens[i] = i;
	hpk_layout(&b, lens, NPKT, NPKT, CAP_BYTES);
	hpk_emulate(HPK_MD5, &b, NULL);
	for (uint32_t i = 0; i < NPKT; i++) {
		EVP_Digest(b.data + b.off[i], lens[i], d, &dl, EVP_md5(), NULL);
		if (memcmp(d, b.digest + 16 * i, 16) != 0)
			mism++;
	}
	CHECK(mism == 0, "MD5: %u of %u random packets differ from OpenSSL", mism, NPKT);
}

int
main(void)
{
	alloc_batch();
	test_fips197_c1();
	test_sp800_38a_f51();
	test_ctr_random();
	test_md5_rfc1321();
	test_md5_random();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("cuda kernels (host emulation): FIPS-197 C.1, SP 800-38A F.5.1, RFC 1321 A.5, %d random packets vs OpenSSL: ok\n",
	       NPKT);
	return 0;
}
