/* SPDX-License-Identifier: BSD-3-Clause
 * The heavy-function kernels' per-thread code on the CPU (no GPU needed),
 * with their tables as the tasks' blobs, against references not written
 * for the kernels:
 *   AES-128-CBC  NIST SP 800-38A F.2.1 (lib/task/aes_cbc's vector) and
 *                OpenSSL on random packets
 *   DFA (AC)     lib/nf's own DFA walk on the same compact DFA, for 10k
 *                generated Snort-like patterns planted in random traffic
 *                (lib/nf's tests check that walk against pyahocorasick),
 *                and the kernel's chunking (gpu/hpk_chunk.h): its
 *                arithmetic, and patterns planted across every chunk
 *                boundary, self-overlapping ones among them
 *   LDPC         lib/ldpc's scalar decoder, bit for bit (hard decisions,
 *                ok flag, iteration count) on noisy codewords of 802.11n
 *                and 5G NR codes, OMS and NMS, early stop on and off
 * Exit 0 on success, 1 on a mismatch.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "aes_cbc_vectors.h"
#include "dpi_blob.h"
#include "hp_ldpc.h"
#include "hp_nf.h"
#include "hpk_chunk.h"
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
	CHECK(hpk_set_items(NULL, k_dpi, &b, blob, blen) == 0, "DFA: no items layout");
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

/* The chunk split alone: for packet lengths 0..700 and several overlaps,
 * every byte position is owned by exactly one chunk, each chunk starts
 * its walk min(from, ovl) bytes before what it owns (several chunks
 * back when the overlap is longer than a chunk) and owns at most a
 * chunk's size, and chunks start on 16-byte boundaries. */
static void
test_chunk_split(void)
{
	static const uint32_t ovls[] = { 0, 1, 15, 31, 47, 48, 99, 254 };
	uint32_t bad = 0;

	for (uint32_t o = 0; o < sizeof(ovls) / sizeof(ovls[0]); o++) {
		const uint32_t ovl = ovls[o], cs = hpk_chunk_size(ovl);

		bad += cs % 16 != 0 || cs < HPK_CHUNK_MIN || 3 * cs < ovl + 1;
		for (uint32_t len = 0; len <= 700; len++) {
			const uint32_t nc = hpk_chunks(len, cs);
			uint32_t next = 0;

			bad += nc == 0;
			for (uint32_t c = 0; c < nc; c++) {
				const struct hpk_chunk k = hpk_chunk_at(len, cs, ovl, c);
				const uint32_t back = k.from < ovl ? k.from : ovl;

				bad += k.from != next || k.from % 16 != 0 || k.end - k.from > cs ||
				       k.walk != k.from - back || (len > 0 && k.end <= k.from);
				next = k.end;
			}
			bad += next != len;
		}
	}
	CHECK(bad == 0, "chunk split: %u inconsistencies", bad);
}

/* One pattern set through the kernel's chunking: each chosen pattern
 * planted so that it ends at every position from just before to just
 * after the first and second chunk boundaries (so it straddles them, and
 * with patterns longer than a chunk, several),
 * plus a periodic text that matches a self-overlapping pattern at every
 * period across the boundaries; each packet's (count, first) must equal
 * hp_nf_ac_scan's, and each packet must have hpk_chunks(len, C) work
 * items with C from the set's longest pattern (the kernel finds it from
 * the DFA alone). Returns the packets checked. */
static uint32_t
dfa_chunks_set(const char *name, struct hp_nf_patset *ps, const uint32_t *pats, uint32_t npats,
	       const uint8_t *period, uint32_t plen)
{
	static uint32_t lens[NPKT], which[NPKT], endpos[NPKT];
	struct hp_nf_ac *ac = NULL;
	void *blob = NULL;
	size_t blen;
	uint32_t maxlen = 0, ovl, cs, n = 0, total = 0, mism = 0, items_bad = 0, matched = 0;
	uint64_t seed = 11;

	if (hp_nf_ac_build(ps, &ac) != 0 || hp_dpi_blob_build(hp_nf_ac_dfa(ac), &blob, &blen) != 0) {
		CHECK(0, "DFA chunks %s: cannot build the DFA", name);
		return 0;
	}
	for (uint32_t i = 0; i < ps->n; i++)
		maxlen = ps->len[i] > maxlen ? ps->len[i] : maxlen;
	ovl = maxlen - 1;
	cs = hpk_chunk_size(ovl);
	for (uint32_t pi = 0; pi <= npats; pi++) {
		const uint32_t pl = pi < npats ? ps->len[pats[pi]] : 0;

		for (uint32_t bnd = 1; bnd <= 2; bnd++) {
			const uint32_t e0 = bnd * cs - 2 > pl - 1 || pi == npats ? bnd * cs - 2 : pl - 1;

			for (uint32_t e = e0; e <= bnd * cs + pl + 1 || pi == npats; e++) {
				const int flush = pi == npats && bnd == 2;

				if (!flush && pi < npats) {
					lens[n] = 3 * cs + pl + 7;
					which[n] = pats[pi];
					endpos[n] = e;
					n++;
				} else if (pi == npats && bnd == 1) {
					lens[n] = 5 * cs + 3; /* the periodic text */
					which[n] = UINT32_MAX;
					n++;
					break;
				}
				if (n < NPKT && !flush)
					continue;
				hpk_layout(&b, lens, n, NPKT, CAP_BYTES);
				CHECK(hpk_set_items(NULL, k_dpi, &b, blob, blen) == 0,
				      "DFA chunks %s: no items layout", name);
				for (uint32_t i = 0; i < n; i++) {
					uint8_t *d = b.data + b.off[i];

					hp_nf_traffic_fill(ps, &seed, d, lens[i], 0.0);
					if (which[i] == UINT32_MAX) {
						for (uint32_t j = 0; j < lens[i]; j++)
							d[j] = period[j % plen];
					} else {
						const uint32_t l = ps->len[which[i]];

						memcpy(d + endpos[i] + 1 - l, ps->pat[which[i]], l);
					}
					items_bad += b.blk[i + 1] - b.blk[i] != hpk_chunks(lens[i], cs);
				}
				CHECK(hpk_emulate(k_dpi, &b, blob, blen) == 0,
				      "DFA chunks %s: emulation refused the blob", name);
				for (uint32_t i = 0; i < n; i++) {
					struct hp_nf_dpi_res r;

					hp_nf_ac_scan(ac, b.data + b.off[i], lens[i], &r);
					mism += r.count != b.match[2 * i] || r.first != b.match[2 * i + 1];
					matched += r.count > 0;
				}
				total += n;
				n = 0;
				if (flush)
					break;
			}
			if (pi == npats && bnd == 2)
				break;
		}
	}
	CHECK(mism == 0, "DFA chunks %s: %u of %u packets differ from hp_nf_ac_scan", name, mism,
	      total);
	CHECK(items_bad == 0, "DFA chunks %s: %u packets without ceil(len / %u) chunks (longest "
	      "pattern %u)", name, items_bad, cs, maxlen);
	CHECK(matched == total, "DFA chunks %s: only %u of %u packets matched (planting broken?)",
	      name, matched, total);
	printf("dfa chunks %s: longest pattern %u, chunk %u bytes, %u packets across boundaries, "
	       "all equal to lib/nf\n", name, maxlen, cs, total);
	free(blob);
	hp_nf_ac_free(ac);
	return total;
}

static void
test_dfa_chunks(void)
{
	struct hp_nf_patset *ps = NULL, *own = hp_nf_patset_new();
	uint32_t pats[6], longest = 0;
	uint8_t p[200];

	/* the generated set: its longest pattern and five others */
	if (hp_nf_patset_generate(42, 10000, &ps) != 0 || own == NULL) {
		CHECK(0, "DFA chunks: cannot build the pattern sets");
		return;
	}
	for (uint32_t i = 0; i < ps->n; i++)
		longest = ps->len[i] > ps->len[longest] ? i : longest;
	pats[0] = longest;
	for (uint32_t i = 1; i < 6; i++)
		pats[i] = (uint32_t)(rnd() % ps->n);
	dfa_chunks_set("10k", ps, pats, 6, ps->pat[longest], ps->len[longest]);
	/* long and self-overlapping patterns: "ab" x 60, "abab", 150 bytes
	 * (three chunks' worth), and one "ab...ab" with a tail */
	for (uint32_t i = 0; i < 120; i++)
		p[i] = "ab"[i % 2];
	hp_nf_patset_add(own, p, 120);
	hp_nf_patset_add(own, p, 4);
	for (uint32_t i = 0; i < 150; i++)
		p[i] = (uint8_t)(i * 7 + 3);
	hp_nf_patset_add(own, p, 150);
	for (uint32_t i = 0; i < 40; i++)
		p[i] = "ab"[i % 2];
	p[40] = 'c';
	hp_nf_patset_add(own, p, 41);
	pats[0] = 0;
	pats[1] = 2;
	pats[2] = 3;
	dfa_chunks_set("long", own, pats, 3, (const uint8_t *)"ab", 2);
	hp_nf_patset_free(ps);
	hp_nf_patset_free(own);
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

/* The kernel's setup check: a code that names one column twice in a base
 * row (which the parallel layer update, and the two-pass row update that
 * rereads L, would get wrong) is refused with a clear error by the
 * units kernel's table and by the codeword entry point, and the same
 * code unchanged is taken. */
static void
test_ldpc_cols_once(void)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_blob h;
	struct hpk_ctx *ctx = NULL;
	unsigned int ulen, maxflip;
	char info[256], err[256] = "";
	uint32_t *row_start, *col;
	uint8_t out[8];
	int8_t llr[1944] = { 0 };
	void *blob;
	size_t blen;
	int ret;

	hp_ldpc_dec_cfg_default(&cfg);
	if (hp_ldpc_code_create("wifi:648:1/2", &c) != 0 || hp_ldpc_unit_geom(c, &ulen, &maxflip) ||
	    hp_ldpc_blob_build(c, &cfg, ulen, maxflip, HP_LDPC_UNIT_LLR, &blob, &blen) != 0 ||
	    hpk_open_emul(&ctx, 1, NPKT, CAP_BYTES, info, sizeof(info)) < 0) {
		CHECK(0, "LDPC columns: setup failed");
		return;
	}
	CHECK(hpk_ldpc_emulate(blob, blen, llr, 1, out, 8, NULL, NULL) >= 0,
	      "LDPC columns: the unchanged code was refused");
	memcpy(&h, blob, sizeof(h));
	row_start = (uint32_t *)((uint8_t *)blob + h.off_row_start);
	col = (uint32_t *)((uint8_t *)blob + h.off_col);
	col[row_start[2] + 1] = col[row_start[2]]; /* row 2 names a column twice */
	ret = hpk_table(ctx, k_ldpc, blob, blen, err, sizeof(err));
	CHECK(ret == -EINVAL && strstr(err, "base row 2 names column") != NULL,
	      "LDPC columns: the units table took a repeated column (%d: %s)", ret, err);
	CHECK(hpk_ldpc_emulate(blob, blen, llr, 1, out, 8, NULL, NULL) == -EINVAL,
	      "LDPC columns: the codeword entry point took a repeated column");
	hpk_close(ctx);
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
	test_chunk_split();
	test_dfa_chunks();
	/* SNRs around each code's waterfall, so some words fail. */
	test_ldpc_code("wifi:1944:1/2", 24, 1.0, 1, 1);
	test_ldpc_code("wifi:1944:1/2", 8, 1.0, 0, 0);
	test_ldpc_code("wifi:648:5/6", 24, 3.5, 1, 1);
	test_ldpc_code("nr:2:52", 12, 1.0, 1, 1);
	test_ldpc_code("nr:1:384", 3, 1.0, 1, 1);
	test_ldpc_units("wifi:1944:1/2");
	test_ldpc_units("wifi:1296:2/3");
	test_ldpc_cols_once();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("cuda heavy kernels (host emulation): CBC, DFA, LDPC: ok\n");
	return 0;
}
