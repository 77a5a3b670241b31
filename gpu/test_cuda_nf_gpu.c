/* SPDX-License-Identifier: BSD-3-Clause
 * On a GPU: the AES-CBC, DFA and LDPC kernels' output identical to the CPU
 * references (OpenSSL CBC, lib/nf's DFA walk, lib/ldpc's decoder) on
 * random inputs of every IMIX size, batches 1..4096 / codewords 1..256;
 * the DFA's chunks (a thread per 48 bytes, merged by the packet's last
 * chunk) also with patterns planted across every chunk boundary, and
 * LDPC says where its messages lived (shared memory where the GPU's
 * opt-in limit holds them: NR BG1 Z=384 on an H100/H200).
 * Exits 77 (skipped) where no GPU or driver is present.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "dpi_blob.h"
#include "hp_ldpc.h"
#include "hp_nf.h"
#include "hpk_chunk.h"
#include "hpk_test_util.h"
#include "ldpc_blob.h"

#define CAP_PKTS 4096
#define CAP_BYTES (CAP_PKTS * 1600u)

static uint64_t rng = 0x6a09e667f3bcc908ull;
static int fails;

static uint32_t
rnd(void)
{
	return hpk_rnd(&rng);
}

static int
run_batch(struct hpk_ctx *k, const char *kernel)
{
	char err[256];
	int r;

	if (hpk_launch(k, 0, hpk_test_kernel(kernel), err, sizeof(err)) < 0) {
		fprintf(stderr, "FAIL: launch: %s\n", err);
		return -1;
	}
	while ((r = hpk_query(k, 0, err, sizeof(err))) == 0)
		;
	if (r < 0)
		fprintf(stderr, "FAIL: %s\n", err);
	return r < 0 ? -1 : 0;
}

static void
cbc(struct hpk_ctx *k)
{
	static const uint32_t batches[] = { 1, 31, 1024, 4096 };
	static uint32_t lens[CAP_PKTS];
	static uint8_t keys[8][16];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();

	for (unsigned int bi = 0; bi < 4; bi++) {
		struct hpk_batch *b = hpk_host(k, 0);
		uint32_t n = batches[bi], bad = 0;
		uint8_t *expect;
		int outl;

		for (uint32_t i = 0; i < n; i++)
			lens[i] = i % 3 == 0 ? 192 : i % 3 == 1 ? 432 : 1408;
		hpk_layout(b, lens, n, CAP_PKTS, CAP_BYTES);
		for (uint32_t i = 0; i < b->data_bytes; i++)
			b->data[i] = (uint8_t)rnd();
		b->n_keys = 8;
		for (int j = 0; j < 8; j++) {
			for (int x = 0; x < 16; x++)
				keys[j][x] = (uint8_t)rnd();
			hpk_key_expand(hpk_test_kernel("aes_cbc"), keys[j], b->rk + HPK_KEY_WORDS * j);
		}
		expect = malloc(b->data_bytes);
		memcpy(expect, b->data, b->data_bytes);
		for (uint32_t i = 0; i < n; i++) {
			uint8_t iv[16];

			for (int x = 0; x < 16; x++)
				iv[x] = (uint8_t)rnd();
			hpk_test_set_iv(b, i, iv);
			b->key_idx[i] = rnd() % 8;
			EVP_EncryptInit_ex(c, EVP_aes_128_cbc(), NULL, keys[b->key_idx[i]], iv);
			EVP_CIPHER_CTX_set_padding(c, 0);
			EVP_EncryptUpdate(c, expect + b->off[i], &outl, expect + b->off[i], (int)lens[i]);
		}
		if (run_batch(k, "aes_cbc") < 0) {
			fails++;
			free(expect);
			continue;
		}
		for (uint32_t i = 0; i < n; i++)
			bad += memcmp(b->data + b->off[i], expect + b->off[i], lens[i]) != 0;
		printf("aes_cbc batch %u: %u of %u differ from OpenSSL\n", n, bad, n);
		fails += bad != 0;
		free(expect);
	}
	EVP_CIPHER_CTX_free(c);
}

/* The DFA's chunk boundaries on the GPU: the set's longest pattern and
 * 15 others, each planted to end at every position from 2 before the
 * first chunk boundary to 2 past the pattern's length after the second
 * (packets of 3 chunks + the pattern + 7 bytes, so the pattern spans
 * several chunks and the packets' chunks spread over thread blocks);
 * (count, first) against lib/nf and the chunk counts against
 * hpk_chunks(). */
static void
dfa_boundaries(struct hpk_ctx *k, struct hp_nf_patset *ps, struct hp_nf_ac *ac)
{
	static uint32_t lens[CAP_PKTS], which[CAP_PKTS], endpos[CAP_PKTS];
	struct hpk_batch *b = hpk_host(k, 0);
	uint32_t maxlen = 0, longest = 0, cs, n = 0, bad = 0, items_bad = 0;
	uint64_t seed = 5;

	for (uint32_t i = 0; i < ps->n; i++)
		if (ps->len[i] > maxlen) {
			maxlen = ps->len[i];
			longest = i;
		}
	cs = hpk_chunk_size(maxlen - 1);
	for (uint32_t pi = 0; pi < 16; pi++) {
		const uint32_t w = pi == 0 ? longest : rnd() % ps->n, pl = ps->len[w];

		for (uint32_t e = cs - 2 > pl - 1 ? cs - 2 : pl - 1; e <= 2 * cs + pl + 1; e++) {
			if (n == CAP_PKTS)
				break;
			lens[n] = 3 * cs + pl + 7;
			which[n] = w;
			endpos[n++] = e;
		}
	}
	hpk_layout(b, lens, n, CAP_PKTS, CAP_BYTES);
	hpk_set_items(k, hpk_test_kernel("dpi"), b, NULL, 0);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *d = b->data + b->off[i];
		const uint32_t l = ps->len[which[i]];

		hp_nf_traffic_fill(ps, &seed, d, lens[i], 0.0);
		memcpy(d + endpos[i] + 1 - l, ps->pat[which[i]], l);
		items_bad += b->blk[i + 1] - b->blk[i] != hpk_chunks(lens[i], cs);
	}
	if (run_batch(k, "dpi") < 0) {
		fails++;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct hp_nf_dpi_res r;

		hp_nf_ac_scan(ac, b->data + b->off[i], lens[i], &r);
		bad += r.count != b->match[2 * i] || r.first != b->match[2 * i + 1];
	}
	printf("dfa chunk boundaries (chunk %u bytes, longest pattern %u), %u packets, %u "
	       "threads: %u differ from lib/nf, %u with the wrong chunk count\n",
	       cs, maxlen, n, b->blk[n], bad, items_bad);
	fails += bad != 0 || items_bad != 0;
}

static void
dfa(struct hpk_ctx *k)
{
	struct hp_nf_patset *ps;
	struct hp_nf_ac *ac;
	struct hpk_batch *b = hpk_host(k, 0);
	static uint32_t lens[CAP_PKTS];
	static void *blob; /* hpk_table keeps it until hpk_close */
	size_t blen;
	uint64_t seed = 3;
	uint32_t bad = 0;
	char err[256];

	if (hp_nf_patset_generate(42, 10000, &ps) != 0 || hp_nf_ac_build(ps, &ac) != 0 ||
	    hp_dpi_blob_build(hp_nf_ac_dfa(ac), &blob, &blen) != 0) {
		fails++;
		return;
	}
	if (hpk_table(k, hpk_test_kernel("dpi"), blob, blen, err, sizeof(err)) < 0) {
		fprintf(stderr, "FAIL: %s\n", err);
		fails++;
		return;
	}
	for (uint32_t i = 0; i < CAP_PKTS; i++)
		lens[i] = i % 5 == 0 || i % 5 == 3 ? 185 : i % 5 == 1 ? 428 : 1400;
	hpk_layout(b, lens, CAP_PKTS, CAP_PKTS, CAP_BYTES);
	hpk_set_items(k, hpk_test_kernel("dpi"), b, NULL, 0); /* a thread per chunk */
	for (uint32_t i = 0; i < CAP_PKTS; i++)
		hp_nf_traffic_fill(ps, &seed, b->data + b->off[i], lens[i], 0.3);
	if (run_batch(k, "dpi") < 0) {
		fails++;
		return;
	}
	for (uint32_t i = 0; i < CAP_PKTS; i++) {
		struct hp_nf_dpi_res r;

		hp_nf_ac_scan(ac, b->data + b->off[i], lens[i], &r);
		bad += r.count != b->match[2 * i] || r.first != b->match[2 * i + 1];
	}
	printf("dfa 10k patterns, %u packets: %u differ from lib/nf\n", CAP_PKTS, bad);
	fails += bad != 0;
	dfa_boundaries(k, ps, ac);
	hp_nf_ac_free(ac);
	hp_nf_patset_free(ps);
}

static void
ldpc(struct hpk_ctx *k, const char *spec, uint32_t n_cw)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *dec;
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_result *res;
	uint32_t kk, n, nf, bad = 0;
	uint8_t *info, *cw, *o1, *o2, *ok, *it;
	int8_t *llr;
	char err[256];
	double secs;
	void *blob;
	size_t blen;

	hp_ldpc_code_create(spec, &c);
	kk = hp_ldpc_code_k(c);
	n = hp_ldpc_code_n(c);
	nf = hp_ldpc_code_n_full(c);
	hp_ldpc_dec_cfg_default(&cfg);
	if (hp_ldpc_blob_build(c, &cfg, 0, 0, 0, &blob, &blen) != 0) {
		fails++;
		hp_ldpc_code_free(c);
		return;
	}
	info = malloc(kk);
	cw = malloc(nf);
	llr = malloc((size_t)n_cw * n);
	o1 = malloc((size_t)n_cw * nf);
	o2 = malloc((size_t)n_cw * nf);
	ok = malloc(n_cw);
	it = malloc(n_cw);
	res = calloc(n_cw, sizeof(*res));
	for (uint32_t w = 0; w < n_cw; w++) {
		for (uint32_t j = 0; j < kk; j++)
			info[j] = rnd() & 1;
		hp_ldpc_encode(c, info, cw);
		for (uint32_t j = 0; j < n; j++) {
			int v = (cw[hp_ldpc_code_punct(c) + j] ? -10 : 10) + (int)(rnd() % 25) - 12;

			llr[(size_t)w * n + j] = (int8_t)v;
		}
	}
	hp_ldpc_dec_create(c, &cfg, &dec);
	hp_ldpc_decode_hard(dec, llr, n, n_cw, o1, res);
	if (hpk_ldpc_gpu(k, blob, blen, llr, n_cw, o2, nf, ok, it, &secs, err, sizeof(err)) < 0) {
		fprintf(stderr, "FAIL: %s\n", err);
		fails++;
	} else {
		for (uint32_t w = 0; w < n_cw; w++)
			bad += memcmp(o1 + (size_t)w * nf, o2 + (size_t)w * nf, nf) != 0 ||
			       res[w].ok != ok[w] || res[w].iters != it[w];
		printf("ldpc %s, %u codewords (messages in %s memory): %u differ from lib/ldpc\n",
		       spec, n_cw, hpk_ldpc_msgs_shared(blob, blen) == 1 ? "shared" : "global", bad);
		fails += bad != 0;
	}
	hp_ldpc_dec_free(dec);
	hp_ldpc_code_free(c);
	free(blob); free(info); free(cw); free(llr);
	free(o1); free(o2); free(ok); free(it); free(res);
}

int
main(void)
{
	struct hpk_ctx *k;
	char info[256], err[256];

	if (hpk_open(&k, 0, 1, CAP_PKTS, CAP_BYTES, info, sizeof(info), err, sizeof(err)) < 0) {
		printf("SKIP: no usable GPU: %s\n", err);
		return 77;
	}
	printf("%s\n", info);
	cbc(k);
	dfa(k);
	ldpc(k, "wifi:1944:1/2", 1);
	ldpc(k, "wifi:1944:1/2", 256);
	ldpc(k, "wifi:648:2/3", 64);
	ldpc(k, "nr:1:384", 32);
	ldpc(k, "nr:2:104", 64);
	hpk_close(k);
	return fails ? 1 : 0;
}
