/* SPDX-License-Identifier: BSD-3-Clause
 * Checks the aes_ctr and md5 kernels' per-thread code without a GPU:
 * hpk_emulate runs the very functions the kernels run (same thread
 * numbering, same shared-table layout) on the CPU. References not written
 * here: FIPS-197 Appendix C.1, NIST SP 800-38A F.5.1, RFC 1321 §A.5 (the
 * tasks' vectors, lib/task/aes_ctr and md5), and OpenSSL's AES-128-CTR
 * and MD5 on random packets of every IMIX size and of random sizes. Exit
 * 0 on success, 1 on a mismatch. Also the descriptor path of an
 * emulation context: the gather (test_gather) and the in-place commit
 * (test_scatter).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aes_ctr_vectors.h"
#include "hpk_test_util.h"
#include "md5_vectors.h"

#define NPKT 600
#define CAP_BYTES (NPKT * 1600)

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct hpk_batch b;
static const struct hpk_kernel *k_ctr, *k_md5;

static void
alloc_batch(void)
{
	hpk_test_batch(&b, NPKT, CAP_BYTES);
	k_ctr = hpk_test_kernel("aes_ctr");
	k_md5 = hpk_test_kernel("md5");
}

static void
test_fips197_c1(void)
{
	uint8_t key[16], pt[16], ct[16];
	uint32_t len = 16;

	hpk_hex(FIPS197_C1_KEY, key, 16);
	hpk_hex(FIPS197_C1_PT, pt, 16);
	hpk_hex(FIPS197_C1_CT, ct, 16);
	hpk_layout(&b, &len, 1, NPKT, CAP_BYTES);
	hpk_set_items(NULL, k_ctr, &b, NULL, 0);
	hpk_key_expand(k_ctr, key, b.rk);
	b.n_keys = 1;
	b.key_idx[0] = 0;
	hpk_test_set_iv(&b, 0, pt);          /* counter block = plaintext, data = 0 */
	memset(b.data, 0, 16);   /* so the "ciphertext" is E(K, pt) */
	hpk_emulate(k_ctr, &b, NULL, 0);
	CHECK(memcmp(b.data, ct, 16) == 0, "FIPS-197 C.1 block");
}

static void
test_sp800_38a_f51(void)
{
	CHECK(hpk_test_vector64(&b, k_ctr, SP800_38A_KEY, SP800_38A_F51_CTR, SP800_38A_PT,
				SP800_38A_F51_CT, NPKT, CAP_BYTES),
	      "SP 800-38A F.5.1 CTR-AES128.Encrypt");
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static void lay_out(const uint32_t *lens, uint32_t n);

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
	lay_out(lens, n);
}

/* b laid out for lens, blk counted as aes_ctr counts (64-byte items),
 * random bytes. */
static void
lay_out(const uint32_t *lens, uint32_t n)
{
	if (hpk_layout(&b, lens, n, NPKT, CAP_BYTES) != 0 ||
	    hpk_set_items(NULL, k_ctr, &b, NULL, 0) != 0) {
		fprintf(stderr, "layout failed\n");
		exit(1);
	}
	for (uint32_t i = 0; i < b.data_bytes; i++)
		b.data[i] = (uint8_t)rnd();
}

/* Keys, IVs and OpenSSL's AES-128-CTR over b's n packets of lens (laid
 * out), then the kernel; the packets that differ. */
static uint32_t
ctr_vs_openssl(const uint32_t *lens, uint32_t n)
{
	static uint8_t keys[32][16], ivs[NPKT][16], expect[CAP_BYTES];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint32_t mism = 0;
	int outl;

	b.n_keys = 32;
	for (int k = 0; k < 32; k++) {
		for (int j = 0; j < 16; j++)
			keys[k][j] = (uint8_t)rnd();
		hpk_key_expand(k_ctr, keys[k], b.rk + HPK_KEY_WORDS * k);
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
	hpk_emulate(k_ctr, &b, NULL, 0);
	/* whole 16-byte slots: a thread's blocks past its packet's last
	 * (it computes 4) must not touch the next packet */
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(b.data + b.off[i], expect + b.off[i], lens[i]) != 0)
			mism++;
	EVP_CIPHER_CTX_free(c);
	return mism;
}

static void
test_ctr_random(void)
{
	static uint32_t lens[NPKT];
	uint32_t mism;

	random_batch(lens, NPKT);
	mism = ctr_vs_openssl(lens, NPKT);
	CHECK(mism == 0, "AES-CTR: %u of %u random packets differ from OpenSSL", mism, NPKT);
}

/* The multi-block indexing: aes_ctr's work item is 4 blocks of one packet
 * and each 256-thread block maps its items to packets once
 * (hpk_map.cuh). Small packets (0 to 2 items, runs of empty ones that
 * own no item) put hundreds of packets into one thread block, packet
 * starts at every item of it and empty packets at its edges; long ones
 * span thread blocks. The blk array must count 64-byte items, and every
 * byte must equal OpenSSL's. */
static void
test_ctr_items(void)
{
	static uint32_t lens[NPKT];
	uint32_t mism, items = 0, expect = 0;

	for (uint32_t i = 0; i < NPKT; i++)
		lens[i] = (i / 5) % 4 == 0 ? 0 : i % 97 == 3 ? 1458 + i % 64 : rnd() % 130;
	lay_out(lens, NPKT);
	for (uint32_t i = 0; i < NPKT; i++) {
		expect += (lens[i] + 63) / 64;
		items += b.blk[i + 1] - b.blk[i] == (lens[i] + 63) / 64;
	}
	CHECK(items == NPKT && b.blk[NPKT] == expect && expect > 2 * 256,
	      "AES-CTR items: %u of %u packets counted as 64-byte items, %u of %u in all",
	      items, NPKT, b.blk[NPKT], expect);
	mism = ctr_vs_openssl(lens, NPKT);
	CHECK(mism == 0, "AES-CTR items: %u of %u small/empty/long packets differ from OpenSSL",
	      mism, NPKT);
}

static void
test_md5_rfc1321(void)
{
	uint32_t lens[RFC1321_N];
	uint8_t want[16];

	for (int i = 0; i < RFC1321_N; i++)
		lens[i] = (uint32_t)strlen(rfc1321_msg[i]);
	hpk_layout(&b, lens, RFC1321_N, NPKT, CAP_BYTES);
	for (int i = 0; i < RFC1321_N; i++)
		memcpy(b.data + b.off[i], rfc1321_msg[i], lens[i]);
	hpk_emulate(k_md5, &b, NULL, 0);
	for (int i = 0; i < RFC1321_N; i++) {
		hpk_hex(rfc1321_md5[i], want, 16);
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
	hpk_emulate(k_md5, &b, NULL, 0);
	for (uint32_t i = 0; i < NPKT; i++) {
		EVP_Digest(b.data + b.off[i], lens[i], d, &dl, EVP_md5(), NULL);
		if (memcmp(d, b.digest + 16 * i, 16) != 0)
			mism++;
	}
	CHECK(mism == 0, "MD5: %u of %u random packets differ from OpenSSL", mism, NPKT);
}

/* Lays packet i out in the context batch cb: gathered from src (its
 * bytes in registered memory) or, when src is NULL, staged from orig. */
static void
gather_put(struct hpk_batch *cb, uint32_t i, uint32_t len, const uint8_t *src,
	   const uint8_t *orig, uint32_t *off, uint32_t *blk)
{
	cb->off[i] = *off;
	cb->len[i] = len;
	cb->blk[i] = *blk;
	cb->src[i] = (uint64_t)(uintptr_t)src;
	cb->dst[i] = 0; /* results by copy unless a test says where */
	if (src != NULL) {
		cb->n_src++;
	} else {
		memcpy(cb->data + *off, orig, len);
		cb->n_staged++;
	}
	*off += 16 * ((len + 15) / 16);
	*blk += (len + 15) / 16;
	cb->blk[i + 1] = *blk;
}

/* Random keys and IVs for packets of both batches, the context's cb and
 * the flat reference b (same keys, same IVs). */
static void
ctr_keys(struct hpk_batch *cb, uint32_t n)
{
	b.n_keys = cb->n_keys = 4;
	for (uint32_t k = 0; k < 4; k++) {
		uint8_t key[16];

		for (int j = 0; j < 16; j++)
			key[j] = (uint8_t)rnd();
		hpk_key_expand(k_ctr, key, b.rk + HPK_KEY_WORDS * k);
		hpk_key_expand(k_ctr, key, cb->rk + HPK_KEY_WORDS * k);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t iv[16];

		for (int j = 0; j < 16; j++)
			iv[j] = (uint8_t)rnd();
		iv[12] = 0;
		b.key_idx[i] = cb->key_idx[i] = i % 4;
		hpk_test_set_iv(&b, i, iv);
		hpk_test_set_iv(cb, i, iv);
	}
}

/* The descriptor path of `cuda:emul` (hpk_move.cuh's gather walked over
 * the batch's src, as the GPU's lanes walk it): packets at every
 * alignment and random lengths in registered memory, gathered by the
 * device (odd ones staged in the same batch), through MD5 (OpenSSL's
 * digests) and AES-CTR (byte identity with the staged flat batch); the
 * regions stay as they were, the bytes past each packet in its last
 * chunk are zero, the driver calls are 4 a batch with every packet
 * gathered and 5 with some staged, and a region outside registered
 * memory fails the batch (-EFAULT: a GPU would fault). */
static void
test_gather(void)
{
	enum { SLOT = 1600 + 64 };
	static uint8_t orig[NPKT][SLOT], stray[64];
	static uint32_t lens[NPKT], at[NPKT];
	/* C11: the size a multiple of the alignment (ASan checks it) */
	uint8_t *pool = aligned_alloc(4096, ((size_t)NPKT * SLOT + 4095) & ~(size_t)4095);
	struct hpk_ctx *c = NULL;
	struct hpk_batch *cb;
	struct hpk_calls c0, c1;
	char info[256], err[256] = "";
	uint32_t off, blk, mism = 0, dirty = 0, zero_bad = 0;
	uint8_t d[16];
	unsigned int dl;
	int ret;

	if (pool == NULL || hpk_open_emul(&c, 1, NPKT, CAP_BYTES, info, sizeof(info)) < 0 ||
	    hpk_mem_register(c, pool, (size_t)NPKT * SLOT, err, sizeof(err)) < 0) {
		CHECK(0, "gather: setup failed");
		free(pool);
		hpk_close(c);
		return;
	}
	for (uint32_t i = 0; i < NPKT; i++) {
		lens[i] = i < 64 ? i : (i % 7 == 0 ? 1458 : rnd() % 1501);
		at[i] = i * SLOT + (i < 64 ? (i * 5) % 32 : rnd() % 48); /* every alignment */
		for (uint32_t j = 0; j < lens[i]; j++)
			orig[i][j] = (uint8_t)rnd();
		memset(pool + (size_t)i * SLOT, 0xa5, SLOT);
		memcpy(pool + at[i], orig[i], lens[i]);
	}
	for (int pass = 0; pass < 2; pass++) {
		cb = hpk_begin(c, 0, NPKT);
		off = blk = 0;
		for (uint32_t i = 0; i < NPKT; i++)
			gather_put(cb, i, lens[i], pass == 1 && (i & 1) ? NULL : pool + at[i],
				   orig[i], &off, &blk);
		hpk_calls(c, &c0);
		ret = hpk_launch(c, 0, k_md5, err, sizeof(err));
		hpk_calls(c, &c1);
		CHECK(ret == 0 && hpk_query(c, 0, err, sizeof(err)) == 1, "gather: md5 launch: %s",
		      err);
		CHECK(c1.launch - c0.launch == (pass ? 5u : 4u),
		      "gather: %llu driver calls for a batch, expected %u",
		      (unsigned long long)(c1.launch - c0.launch), pass ? 5u : 4u);
		for (uint32_t i = 0; i < NPKT; i++) {
			const uint8_t *g = cb->data + cb->off[i];

			EVP_Digest(orig[i], lens[i], d, &dl, EVP_md5(), NULL);
			mism += memcmp(d, cb->digest + 16 * i, 16) != 0 || memcmp(g, orig[i], lens[i]);
			for (uint32_t j = lens[i]; j < 16 * ((lens[i] + 15) / 16); j++)
				zero_bad += (pass == 0 || !(i & 1)) && g[j] != 0;
		}
	}
	CHECK(mism == 0, "gather: %u of %u packets gathered or digested wrong", mism, NPKT);
	CHECK(zero_bad == 0, "gather: %u bytes past the packets' ends not zero", zero_bad);

	/* AES-CTR from the pool against the staged flat batch */
	cb = hpk_begin(c, 0, NPKT);
	off = blk = 0;
	for (uint32_t i = 0; i < NPKT; i++)
		gather_put(cb, i, lens[i], pool + at[i], orig[i], &off, &blk);
	hpk_set_items(c, k_ctr, cb, NULL, 0);
	hpk_layout(&b, lens, NPKT, NPKT, CAP_BYTES);
	hpk_set_items(NULL, k_ctr, &b, NULL, 0);
	ctr_keys(cb, NPKT);
	for (uint32_t i = 0; i < NPKT; i++)
		memcpy(b.data + b.off[i], orig[i], lens[i]);
	hpk_emulate(k_ctr, &b, NULL, 0);
	ret = hpk_launch(c, 0, k_ctr, err, sizeof(err));
	CHECK(ret == 0, "gather: aes_ctr launch: %s", err);
	mism = 0;
	for (uint32_t i = 0; i < NPKT; i++) {
		mism += memcmp(cb->data + cb->off[i], b.data + b.off[i], lens[i]) != 0;
		dirty += memcmp(pool + at[i], orig[i], lens[i]) != 0;
	}
	CHECK(mism == 0, "gather: AES-CTR: %u of %u packets differ from the staged batch", mism,
	      NPKT);
	CHECK(dirty == 0, "gather: %u source regions changed", dirty);

	/* one region outside registered memory */
	cb = hpk_begin(c, 0, 2);
	off = blk = 0;
	gather_put(cb, 0, 100, pool + 3, NULL, &off, &blk);
	gather_put(cb, 1, 40, stray + 1, NULL, &off, &blk);
	ret = hpk_launch(c, 0, k_md5, err, sizeof(err));
	CHECK(ret == -EFAULT && strstr(err, "outside registered memory") != NULL,
	      "gather: a region outside registered memory gave %d (%s)", ret, err);
	hpk_close(c);
	free(pool);
}

/* RFC 1071's sum of n bytes, 16-bit words in the data's byte order
 * (little endian here) from the first byte, folded. */
static uint32_t
rfc1071(const uint8_t *p, uint32_t n)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += (uint64_t)p[i] << (8 * (i & 1));
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

/* The in-place commit (hpk_move.cuh's scatter walked over dst and mark as
 * the GPU's lanes walk them). AES-CTR: gathered from the pool at every
 * alignment, encrypted and written back where it was read, byte-identical
 * to the staged flat batch, with 4 driver calls (no copy back) and the
 * RFC 1071 sum of every region's new bytes (for the L4 checksum). MD5: the
 * digests written to addresses at every alignment. In both, every byte
 * around the regions keeps its fill and each packet's mark is set. A dst
 * outside registered memory fails the batch (-EFAULT) with the packets
 * before it committed (marked) and the ones after it untouched. */
static void
test_scatter(void)
{
	enum { SLOT = 1600 + 64, DIG = 1600, MARK = 1656 };
	static uint8_t orig[NPKT][SLOT], stray[64];
	static uint32_t lens[NPKT], at[NPKT];
	const size_t plen = ((size_t)NPKT * SLOT + 4095) & ~(size_t)4095;
	uint8_t *pool = aligned_alloc(4096, plen);
	struct hpk_ctx *c = NULL;
	struct hpk_batch *cb;
	struct hpk_calls c0, c1;
	char info[256], err[256] = "";
	uint32_t off, blk, mism = 0, stray_w = 0, unmarked = 0;
	uint8_t d[16];
	unsigned int dl;
	int ret;

	if (pool == NULL || hpk_open_emul(&c, 1, NPKT, CAP_BYTES, info, sizeof(info)) < 0 ||
	    hpk_mem_register(c, pool, plen, err, sizeof(err)) < 0) {
		CHECK(0, "scatter: setup failed");
		free(pool);
		hpk_close(c);
		return;
	}
	for (uint32_t i = 0; i < NPKT; i++) {
		lens[i] = i < 64 ? i : (i % 7 == 0 ? 1458 : rnd() % 1501);
		at[i] = i < 64 ? (i * 5) % 32 : rnd() % 48;
		for (uint32_t j = 0; j < lens[i]; j++)
			orig[i][j] = (uint8_t)rnd();
	}
	for (int kind = 0; kind < 2; kind++) {
		const struct hpk_kernel *kn = kind == 0 ? k_ctr : k_md5;

		memset(pool, 0x5a, plen);
		cb = hpk_begin(c, 0, NPKT);
		off = blk = 0;
		for (uint32_t i = 0; i < NPKT; i++) {
			uint8_t *slot = pool + (size_t)i * SLOT;

			memcpy(slot + at[i], orig[i], lens[i]);
			gather_put(cb, i, lens[i], slot + at[i], NULL, &off, &blk);
			/* CTR: back where it was read; MD5: the digest's home */
			cb->dst[i] = (uint64_t)(uintptr_t)(kind == 0 ? slot + at[i] :
							  slot + DIG + i % 16);
			cb->mark[i] = (uint64_t)(uintptr_t)(slot + MARK);
		}
		cb->n_dst = NPKT;
		cb->mark_val = 3 + (uint32_t)kind;
		if (kind == 0) {
			hpk_set_items(c, k_ctr, cb, NULL, 0);
			hpk_layout(&b, lens, NPKT, NPKT, CAP_BYTES);
			hpk_set_items(NULL, k_ctr, &b, NULL, 0);
			ctr_keys(cb, NPKT);
			for (uint32_t i = 0; i < NPKT; i++)
				memcpy(b.data + b.off[i], orig[i], lens[i]);
			hpk_emulate(k_ctr, &b, NULL, 0);
		}
		hpk_calls(c, &c0);
		ret = hpk_launch(c, 0, kn, err, sizeof(err));
		hpk_calls(c, &c1);
		CHECK(ret == 0, "scatter: %s launch: %s", hpk_kernel_name(kn), err);
		CHECK(c1.launch - c0.launch == 4 && c1.scattered - c0.scattered == NPKT,
		      "scatter: %llu driver calls, %llu scattered, expected 4 and %u",
		      (unsigned long long)(c1.launch - c0.launch),
		      (unsigned long long)(c1.scattered - c0.scattered), NPKT);
		for (uint32_t i = 0; i < NPKT; i++) {
			const uint8_t *slot = pool + (size_t)i * SLOT;
			uint32_t lo = kind == 0 ? at[i] : DIG + i % 16;
			uint32_t hi = lo + (kind == 0 ? lens[i] : 16);

			if (kind == 0) {
				mism += memcmp(slot + at[i], b.data + b.off[i], lens[i]) != 0 ||
					cb->sum[i] != rfc1071(slot + at[i], lens[i]);
			} else {
				EVP_Digest(orig[i], lens[i], d, &dl, EVP_md5(), NULL);
				mism += memcmp(slot + lo, d, 16) != 0 ||
					memcmp(slot + at[i], orig[i], lens[i]) != 0;
			}
			unmarked += slot[MARK] != 3 + kind;
			for (uint32_t j = 0; j < SLOT; j++) {
				bool region = j >= lo && j < hi;

				if (kind == 1 && j >= at[i] && j < at[i] + lens[i])
					continue; /* md5 leaves the payload as it was */
				stray_w += !region && j != MARK && slot[j] != 0x5a;
			}
		}
		CHECK(mism == 0, "scatter: %s: %u of %u packets wrong in place",
		      hpk_kernel_name(kn), mism, NPKT);
		CHECK(stray_w == 0, "scatter: %s: %u bytes written outside the regions",
		      hpk_kernel_name(kn), stray_w);
		CHECK(unmarked == 0, "scatter: %s: %u packets without their mark",
		      hpk_kernel_name(kn), unmarked);
	}

	/* the second of three results has no registered home */
	memset(pool, 0, 3 * SLOT);
	cb = hpk_begin(c, 0, 3);
	off = blk = 0;
	for (uint32_t i = 0; i < 3; i++) {
		gather_put(cb, i, 40, pool + (size_t)i * SLOT + 1, NULL, &off, &blk);
		cb->dst[i] = (uint64_t)(uintptr_t)(i == 1 ? stray + 3 : pool + (size_t)i * SLOT + DIG);
		cb->mark[i] = (uint64_t)(uintptr_t)(pool + (size_t)i * SLOT + MARK);
	}
	cb->n_dst = 3;
	cb->mark_val = 9;
	ret = hpk_launch(c, 0, k_md5, err, sizeof(err));
	CHECK(ret == -EFAULT && strstr(err, "outside registered memory") != NULL,
	      "scatter: a region outside registered memory gave %d (%s)", ret, err);
	CHECK(pool[MARK] == 9 && pool[2 * SLOT + MARK] == 0 && pool[2 * SLOT + DIG] == 0,
	      "scatter: the fault did not stop the batch at the bad packet");
	hpk_close(c);
	free(pool);
}

int
main(void)
{
	alloc_batch();
	test_fips197_c1();
	test_sp800_38a_f51();
	test_ctr_random();
	test_ctr_items();
	test_md5_rfc1321();
	test_md5_random();
	test_gather();
	test_scatter();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("cuda kernels (host emulation): FIPS-197 C.1, SP 800-38A F.5.1, RFC 1321 A.5, %d random packets vs OpenSSL, the gather from and the in-place scatter into registered memory: ok\n",
	       NPKT);
	return 0;
}
