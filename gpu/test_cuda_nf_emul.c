/* SPDX-License-Identifier: BSD-3-Clause
 * The heavy-function kernels' per-thread code on the CPU (no GPU needed),
 * with their tables as the tasks' blobs, against references not written
 * for the kernels:
 *   AES-128-CBC  NIST SP 800-38A F.2.1 (lib/task/aes_cbc's vector) and
 *                OpenSSL on random packets
 *   DFA (AC)     lib/nf's own DFA walk on the same compact DFA, for 10k
 *                generated Snort-like patterns planted in random traffic
 *                (lib/nf's tests check that walk against pyahocorasick)
 *   LDPC         lib/ldpc's scalar decoder, bit for bit (hard decisions,
 *                ok flag, iteration count) on noisy codewords of 802.11n
 *                and 5G NR codes, OMS and NMS, early stop on and off
 * Exit 0 on success, 1 on a mismatch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aes_cbc_vectors.h"
#include "dpi_blob.h"
#include "hp_ldpc.h"
#include "hp_nf.h"
#include "hpk_test_util.h"
#include "ldpc_blob.h"

#define NPKT 400
#define CAP_BYTES (NPKT * 1600)

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static struct hpk_batch b;
static const struct hpk_kernel *k_cbc, *k_dpi, *k_ldpc;
static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t
rnd(void)
{
	return hpk_rnd(&rng);
}

static void
alloc_batch(void)
{
	hpk_test_batch(&b, NPKT, CAP_BYTES);
	k_cbc = hpk_test_kernel("aes_cbc");
	k_dpi = hpk_test_kernel("dpi");
	k_ldpc = hpk_test_kernel("ldpc");
}

static void
test_cbc_f21(void)
{
	CHECK(hpk_test_vector64(&b, k_cbc, SP800_38A_F21_KEY, SP800_38A_F21_IV,
				SP800_38A_F21_PT, SP800_38A_F21_CT, NPKT, CAP_BYTES),
	      "SP 800-38A F.2.1 CBC-AES128.Encrypt");
}

static void
test_cbc_random(void)
{
	static uint32_t lens[NPKT];
	static uint8_t keys[16][16], expect[CAP_BYTES];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	uint32_t mism = 0;
	int outl;

	/* Padded IMIX payloads (PKCS#7 makes 185 -> 192, ...) and random
	 * multiples of 16, including empty packets. */
	for (uint32_t i = 0; i < NPKT; i++)
		lens[i] = i % 4 == 0 ? 192 : i % 4 == 1 ? 432 : i % 4 == 2 ? 1408 : 16 * (rnd() % 95);
	hpk_layout(&b, lens, NPKT, NPKT, CAP_BYTES);
	for (uint32_t i = 0; i < b.data_bytes; i++)
		b.data[i] = (uint8_t)rnd();
	b.n_keys = 16;
	for (int k = 0; k < 16; k++) {
		for (int j = 0; j < 16; j++)
			keys[k][j] = (uint8_t)rnd();
		hpk_key_expand(k_cbc, keys[k], b.rk + HPK_KEY_WORDS * k);
	}
	memcpy(expect, b.data, b.data_bytes);
	for (uint32_t i = 0; i < NPKT; i++) {
		uint8_t iv[16];

		for (int j = 0; j < 16; j++)
			iv[j] = (uint8_t)rnd();
		b.key_idx[i] = rnd() % 16;
		hpk_test_set_iv(&b, i, iv);
		EVP_EncryptInit_ex(c, EVP_aes_128_cbc(), NULL, keys[b.key_idx[i]], iv);
		EVP_CIPHER_CTX_set_padding(c, 0);
		EVP_EncryptUpdate(c, expect + b.off[i], &outl, expect + b.off[i], (int)lens[i]);
	}
	hpk_emulate(k_cbc, &b, NULL, 0);
	for (uint32_t i = 0; i < NPKT; i++)
		mism += memcmp(b.data + b.off[i], expect + b.off[i], lens[i]) != 0;
	CHECK(mism == 0, "AES-CBC: %u of %u random packets differ from OpenSSL", mism, NPKT);
	EVP_CIPHER_CTX_free(c);
}

static void
test_dfa(void)
{
	static uint32_t lens[NPKT];
	struct hp_nf_patset *ps = NULL;
	struct hp_nf_ac *ac = NULL;
	const struct hp_nf_ac_dfa *d;
	void *blob = NULL;
	size_t blen;
	uint64_t seed = 7;
	uint32_t mism = 0, matched = 0;

	if (hp_nf_patset_generate(42, 10000, &ps) != 0 || hp_nf_ac_build(ps, &ac) != 0 ||
	    hp_dpi_blob_build(hp_nf_ac_dfa(ac), &blob, &blen) != 0) {
		fprintf(stderr, "FAIL: cannot build the pattern set / DFA\n");
		failures++;
		return;
	}
	d = hp_nf_ac_dfa(ac);
	for (uint32_t i = 0; i < NPKT; i++)
		lens[i] = i % 3 == 0 ? 185 : i % 3 == 1 ? 1400 : rnd() % 1500;
	hpk_layout(&b, lens, NPKT, NPKT, CAP_BYTES);
	for (uint32_t i = 0; i < NPKT; i++)
		hp_nf_traffic_fill(ps, &seed, b.data + b.off[i], lens[i], 0.5);
	CHECK(hpk_emulate(k_dpi, &b, blob, blen) == 0, "DFA: emulation refused the blob");
	for (uint32_t i = 0; i < NPKT; i++) {
		struct hp_nf_dpi_res r;

		hp_nf_ac_scan(ac, b.data + b.off[i], lens[i], &r);
		mism += r.count != b.match[2 * i] || r.first != b.match[2 * i + 1];
		matched += r.count > 0;
	}
	CHECK(mism == 0, "DFA: %u of %u packets differ from hp_nf_ac_scan", mism, NPKT);
	CHECK(matched > NPKT / 4, "DFA: only %u of %u packets matched (planting broken?)",
	      matched, NPKT);
	printf("dfa: %u states, %u of %u packets with matches, all equal to lib/nf\n",
	       d->n_states, matched, NPKT);
	free(blob);
	hp_nf_ac_free(ac);
	hp_nf_patset_free(ps);
}

/* BPSK over AWGN at Eb/N0 db, LLRs quantised at 4 steps per unit (the
 * hp-ldpc tool's scale) into int8. */
static void
channel(const uint8_t *cw, uint32_t n, uint32_t punct, double rate, double db, int8_t *llr)
{
	double sigma = sqrt(1.0 / (2.0 * rate * pow(10.0, db / 10.0)));

	for (uint32_t j = 0; j < n; j++) {
		double u1 = (rnd() + 1.0) / 4294967297.0, u2 = (rnd() + 1.0) / 4294967297.0;
		double y = (cw[punct + j] ? -1.0 : 1.0) + sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
		double l = 4.0 * 2.0 * y / (sigma * sigma);

		llr[j] = (int8_t)(l > 127 ? 127 : l < -128 ? -128 : lrint(l));
	}
}

static void
test_ldpc_code(const char *spec, uint32_t n_cw, double db, int oms, int early)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *dec;
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_result *res;
	void *blob;
	size_t blen;
	uint32_t k, n, nf, punct, mism = 0, cpu_ok = 0;
	uint8_t *info, *cw, *out_cpu, *out_k, *ok, *it;
	int8_t *llr;
	int nok;

	if (hp_ldpc_code_create(spec, &c) != 0) {
		fprintf(stderr, "FAIL: code %s\n", spec);
		failures++;
		return;
	}
	k = hp_ldpc_code_k(c);
	n = hp_ldpc_code_n(c);
	nf = hp_ldpc_code_n_full(c);
	punct = hp_ldpc_code_punct(c);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.isa = HP_LDPC_ISA_SCALAR;
	cfg.alg = oms ? HP_LDPC_OMS : HP_LDPC_NMS;
	cfg.no_early_stop = !early;
	if (hp_ldpc_blob_build(c, &cfg, 0, 0, 0, &blob, &blen) != 0) {
		fprintf(stderr, "FAIL: blob of %s\n", spec);
		failures++;
		hp_ldpc_code_free(c);
		return;
	}
	info = malloc(k);
	cw = malloc(nf);
	llr = malloc((size_t)n_cw * n);
	out_cpu = malloc((size_t)n_cw * nf);
	out_k = malloc((size_t)n_cw * nf);
	ok = malloc(n_cw);
	it = malloc(n_cw);
	res = calloc(n_cw, sizeof(*res));
	for (uint32_t w = 0; w < n_cw; w++) {
		for (uint32_t j = 0; j < k; j++)
			info[j] = rnd() & 1;
		hp_ldpc_encode(c, info, cw);
		channel(cw, n, punct, (double)k / n, db + 0.25 * (w % 4), llr + (size_t)w * n);
	}
	hp_ldpc_dec_create(c, &cfg, &dec);
	hp_ldpc_decode_hard(dec, llr, n, n_cw, out_cpu, res);
	nok = hpk_ldpc_emulate(blob, blen, llr, n_cw, out_k, nf, ok, it);
	for (uint32_t w = 0; w < n_cw; w++) {
		mism += memcmp(out_cpu + (size_t)w * nf, out_k + (size_t)w * nf, nf) != 0 ||
			res[w].ok != ok[w] || res[w].iters != it[w];
		cpu_ok += res[w].ok;
	}
	CHECK(mism == 0 && (uint32_t)nok == cpu_ok,
	      "LDPC %s %s early=%d: %u of %u codewords differ from lib/ldpc", spec,
	      oms ? "OMS" : "NMS", early, mism, n_cw);
	printf("ldpc %s %s early=%d: %u codewords, %u decoded, identical to lib/ldpc scalar\n",
	       spec, oms ? "OMS" : "NMS", early, n_cw, cpu_ok);
	hp_ldpc_dec_free(dec);
	hp_ldpc_code_free(c);
	free(blob);
	free(info);
	free(cw);
	free(llr);
	free(out_cpu);
	free(out_k);
	free(ok);
	free(it);
	free(res);
}

/* The units kernel (the `ran` app's LDPC offload) against lib/ldpc's
 * hp_ldpc_units_decode: packets of 1, 2 and 6 units with 0..maxflip+8
 * bit errors, so some units fail; a packet is taken only when all its
 * units decode, and then its bytes must be lib/ldpc's. */
static void
test_ldpc_units(const char *spec)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *dec;
	struct hp_ldpc_dec_cfg cfg;
	unsigned int ulen, maxflip, np = 60, nu_tot = 0;
	uint32_t lens[60], bad = 0, taken = 0;
	uint8_t *cpu, *bodies_ok;
	uint8_t *bodies[60];
	void *scratch, *blob;
	size_t blen;

	hp_ldpc_dec_cfg_default(&cfg);
	if (hp_ldpc_code_create(spec, &c) != 0 || hp_ldpc_unit_geom(c, &ulen, &maxflip) != 0 ||
	    hp_ldpc_blob_build(c, &cfg, ulen, maxflip, HP_LDPC_UNIT_LLR, &blob, &blen) != 0) {
		fprintf(stderr, "FAIL: units code %s\n", spec);
		failures++;
		return;
	}
	for (unsigned int i = 0; i < np; i++) {
		lens[i] = ulen * (i % 3 == 0 ? 1 : i % 3 == 1 ? 2 : 6);
		nu_tot += lens[i] / ulen;
	}
	hpk_layout(&b, lens, np, NPKT, CAP_BYTES);
	for (unsigned int i = 0, at = 0; i < np; i++) {
		b.blk[i] = at;
		for (unsigned int u = 0; u < lens[i] / ulen; u++, at++)
			hp_ldpc_unit_gen(c, b.data + b.off[i] + u * ulen, rnd(), rnd() % (maxflip + 9));
	}
	b.blk[np] = nu_tot;
	cpu = malloc(b.data_bytes);
	bodies_ok = calloc(np, 1);
	memcpy(cpu, b.data, b.data_bytes);
	for (unsigned int i = 0; i < np; i++)
		bodies[i] = cpu + b.off[i];
	hp_ldpc_dec_create(c, &cfg, &dec);
	scratch = malloc(hp_ldpc_units_scratch(dec, nu_tot));
	hp_ldpc_units_decode(dec, bodies, lens, np, bodies_ok, scratch);
	CHECK(hpk_emulate(k_ldpc, &b, blob, blen) == 0, "LDPC units %s: emulation failed", spec);
	for (unsigned int i = 0; i < np; i++) {
		int all = b.match[2 * i] == lens[i] / ulen;

		taken += all;
		bad += all != bodies_ok[i] ||
		       (all && memcmp(b.aux + b.off[i], cpu + b.off[i], lens[i]) != 0);
	}
	CHECK(bad == 0, "LDPC units %s: %u of %u packets differ from lib/ldpc", spec, bad, np);
	CHECK(taken > 0 && taken < np, "LDPC units %s: %u of %u decoded (want some of each)",
	      spec, taken, np);
	printf("ldpc units %s: %u packets (%u units), %u taken, identical to lib/ldpc\n", spec, np,
	       nu_tot, taken);
	free(scratch);
	free(cpu);
	free(bodies_ok);
	hp_ldpc_dec_free(dec);
	free(blob);
	hp_ldpc_code_free(c);
}

int
main(void)
{
	alloc_batch();
	test_cbc_f21();
	test_cbc_random();
	test_dfa();
	/* SNRs around each code's waterfall, so some words fail. */
	test_ldpc_code("wifi:1944:1/2", 24, 1.0, 1, 1);
	test_ldpc_code("wifi:1944:1/2", 8, 1.0, 0, 0);
	test_ldpc_code("wifi:648:5/6", 24, 3.5, 1, 1);
	test_ldpc_code("nr:2:52", 12, 1.0, 1, 1);
	test_ldpc_code("nr:1:384", 3, 1.0, 1, 1);
	test_ldpc_units("wifi:1944:1/2");
	test_ldpc_units("wifi:1296:2/3");
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("cuda heavy kernels (host emulation): CBC, DFA, LDPC: ok\n");
	return 0;
}
