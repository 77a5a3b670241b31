/* SPDX-License-Identifier: BSD-3-Clause
 * bench/gpu, heavy functions: kernel-only GPU throughput of LDPC decoding
 * (802.11n n=1944 R=1/2 and 5G NR BG1 Z=384, 10 iterations, info bits),
 * Aho-Corasick DFA with 10k patterns and AES-128-CBC, batch sizes swept,
 * with one CPU core running the CPU implementation on the same inputs in
 * the same run (lib/ldpc AVX-512/AVX2, lib/nf DFA batch walk, intel-
 * ipsec-mb CBC). CSV lines "task,config,batch,gpu_Gbps,cpu_Gbps".
 * Exits 77 without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpi_blob.h"
#include "hp_ldpc.h"
#include "hp_nf.h"
#include "hpk_test_util.h"
#include "ldpc_blob.h"

#define MAXP 65536u
#define CAP_BYTES (MAXP * 1472u)

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
ldpc(struct hpk_ctx *k, const char *spec, const uint32_t *sizes, unsigned int ns)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *dec;
	struct hp_ldpc_dec_cfg cfg, kcfg;
	uint32_t kk, n, nf, maxcw = sizes[ns - 1];
	uint8_t *info, *cw, *out, *ok, *it;
	int8_t *llr;
	char err[256];
	double t, cpu;
	void *blob;
	size_t blen;

	hp_ldpc_code_create(spec, &c);
	kk = hp_ldpc_code_k(c);
	n = hp_ldpc_code_n(c);
	nf = hp_ldpc_code_n_full(c);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.no_early_stop = 1; /* 10 full iterations, as the goal states */
	kcfg = cfg;
	kcfg.max_iter = 10;
	kcfg.alg = HP_LDPC_OMS;
	if (hp_ldpc_blob_build(c, &kcfg, 0, 0, 0, &blob, &blen) != 0)
		exit(1);
	info = calloc(kk, 1);
	cw = malloc(nf);
	llr = malloc((size_t)maxcw * n);
	out = malloc((size_t)maxcw * kk);
	ok = malloc(maxcw);
	it = malloc(maxcw);
	hp_ldpc_encode(c, info, cw);
	for (uint32_t w = 0; w < maxcw; w++)
		for (uint32_t j = 0; j < n; j++)
			llr[(size_t)w * n + j] = (int8_t)((cw[hp_ldpc_code_punct(c) + j] ? -6 : 6) +
							  (int)((w * 131 + j * 7) % 9) - 4);
	hp_ldpc_dec_create(c, &cfg, &dec);
	t = now_s();
	hp_ldpc_decode(dec, llr, n, 256, out, NULL);
	cpu = 256.0 * kk / (now_s() - t) / 1e9;
	for (unsigned int i = 0; i < ns; i++) {
		double secs = 0;

		if (hpk_ldpc_gpu(k, blob, blen, llr, sizes[i], out, kk, ok, it, &secs, err,
				 sizeof(err)) < 0) {
			fprintf(stderr, "ldpc: %s\n", err);
			exit(1);
		}
		printf("ldpc,%s 10 it (%s),%u,%.2f,%.3f\n", spec, hp_ldpc_dec_isa(dec), sizes[i],
		       (double)sizes[i] * kk / secs / 1e9, cpu);
	}
	hp_ldpc_dec_free(dec);
	hp_ldpc_code_free(c);
	free(blob); free(info); free(cw); free(llr);
	free(out); free(ok); free(it);
}

static void
imix_batch(struct hpk_batch *b, uint32_t n, uint32_t *lens, int pad16)
{
	static const uint32_t imix[] = { 185, 428, 1400, 185, 1400 };

	for (uint32_t i = 0; i < n; i++)
		lens[i] = pad16 ? (imix[i % 5] / 16 + 1) * 16 : imix[i % 5];
	hpk_layout(b, lens, n, MAXP, CAP_BYTES);
}

int
main(int argc, char **argv)
{
	static const uint32_t cws[] = { 256, 1024, 4096, 16384 };
	static const uint32_t cws_nr[] = { 64, 256, 1024 };
	static const uint32_t batches[] = { 1024, 4096, 16384, 65536 };
	static uint32_t lens[MAXP];
	unsigned int iters = argc > 1 ? (unsigned int)atoi(argv[1]) : 20;
	struct hpk_ctx *k;
	struct hp_nf_patset *ps;
	struct hp_nf_ac *ac;
	const struct hpk_kernel *k_dpi, *k_cbc;
	void *blob;
	size_t blen;
	char info[256], err[256];
	uint64_t seed = 1;

	if (hpk_open(&k, 0, 1, MAXP, CAP_BYTES, info, sizeof(info), err, sizeof(err)) < 0) {
		printf("SKIP: no usable GPU: %s\n", err);
		return 77;
	}
	printf("# %s\n", info);
	printf("task,config,batch,gpu_Gbps,cpu_1core_Gbps\n");
	ldpc(k, "wifi:1944:1/2", cws, 4);
	ldpc(k, "nr:1:384", cws_nr, 3);
	/* DFA, 10k patterns, 30 % of packets with a planted pattern */
	k_dpi = hpk_test_kernel("dpi");
	k_cbc = hpk_test_kernel("aes_cbc");
	if (hp_nf_patset_generate(42, 10000, &ps) != 0 || hp_nf_ac_build(ps, &ac) != 0 ||
	    hp_dpi_blob_build(hp_nf_ac_dfa(ac), &blob, &blen) != 0)
		return 1;
	if (hpk_table(k, k_dpi, blob, blen, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (unsigned int i = 0; i < 4; i++) {
		struct hpk_batch *b = hpk_host(k, 0);
		const uint8_t **dp = malloc(sizeof(*dp) * batches[i]);
		struct hp_nf_dpi_res *res = malloc(sizeof(*res) * batches[i]);
		uint64_t bytes = 0;
		double t, tk, cpu;

		imix_batch(b, batches[i], lens, 0);
		hpk_set_items(k, k_dpi, b, NULL, 0); /* a thread per chunk */
		for (uint32_t j = 0; j < batches[i]; j++) {
			hp_nf_traffic_fill(ps, &seed, b->data + b->off[j], lens[j], 0.3);
			dp[j] = b->data + b->off[j];
			bytes += lens[j];
		}
		hpk_launch(k, 0, k_dpi, err, sizeof(err));
		while (hpk_query(k, 0, err, sizeof(err)) == 0)
			;
		tk = hpk_time_kernel(k, 0, k_dpi, iters);
		t = now_s();
		hp_nf_ac_scan_batch(ac, dp, lens, batches[i], res);
		cpu = bytes * 8.0 / (now_s() - t) / 1e9;
		printf("dfa,10k patterns,%u,%.1f,%.2f\n", batches[i], bytes * 8.0 / tk / 1e9, cpu);
		free(dp);
		free(res);
	}
	/* AES-128-CBC, padded IMIX payloads, one key per 64 packets */
	{
		struct hp_nf_cbc *mb;
		struct hp_nf_aes_key *keys = aligned_alloc(64, sizeof(*keys) * 1024);
		struct hp_nf_cbc_job *jobs = malloc(sizeof(*jobs) * MAXP);
		uint8_t iv[16] = { 0 }, raw[16] = { 1 };

		if (hp_nf_cbc_create(&mb) != 0)
			return 1;
		hp_nf_cbc_expand(mb, raw, &keys[0]);
		for (unsigned int i = 0; i < 4; i++) {
			struct hpk_batch *b = hpk_host(k, 0);
			uint64_t bytes = 0;
			double t, tk, cpu;

			imix_batch(b, batches[i], lens, 1);
			memset(b->data, 0x3c, b->data_bytes);
			b->n_keys = 1;
			hpk_key_expand(k_cbc, raw, b->rk);
			memset(b->key_idx, 0, 4ull * batches[i]);
			memset(b->ctr, 0, 16ull * batches[i]);
			for (uint32_t j = 0; j < batches[i]; j++) {
				jobs[j] = (struct hp_nf_cbc_job){ .buf = b->data + b->off[j], .len = lens[j],
								  .key = &keys[0], .iv = iv };
				bytes += lens[j];
			}
			hpk_launch(k, 0, k_cbc, err, sizeof(err));
			while (hpk_query(k, 0, err, sizeof(err)) == 0)
				;
			tk = hpk_time_kernel(k, 0, k_cbc, iters);
			t = now_s();
			for (uint32_t j = 0; j < batches[i]; j += 32)
				hp_nf_cbc_encrypt_burst(mb, jobs + j,
							batches[i] - j < 32 ? batches[i] - j : 32);
			cpu = bytes * 8.0 / (now_s() - t) / 1e9;
			printf("aes_cbc,IMIX padded (%s),%u,%.1f,%.2f\n", hp_nf_cbc_arch(mb), batches[i],
			       bytes * 8.0 / tk / 1e9, cpu);
		}
		hp_nf_cbc_free(mb);
		free(keys);
		free(jobs);
	}
	hpk_close(k);
	free(blob);
	return 0;
}
