/* SPDX-License-Identifier: BSD-3-Clause
 * The peer of the pipeline benchmark: a bare AES-128-CTR loop over the
 * same IMIX payloads the generator makes, with per-flow keys, on one core
 * and with no framework around it, through the kernel the aes_ctr task
 * runs: `evp` (OpenSSL, an IV re-init and update a packet: issue 20's
 * measure) or `mb` (intel-ipsec-mb's cipher burst API, 32 packets a call,
 * keys expanded once per flow: issue 28's). Prints packets per second;
 * bench/pipeline/run.py runs it beside `hplane run` and takes the ratio.
 * Usage: bare_ctr [SECONDS [evp|mb]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <x86intrin.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "hp_common.h"
#include "hp_gen.h"
#ifdef HP_BARE_MB
#include "hp_nf.h"
#endif

#define NPKT 4096

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	const char *impl = argc > 2 ? argv[2] : "evp";
	int mb = strcmp(impl, "mb") == 0;
#ifdef HP_BARE_MB
	struct hp_nf_cbc *eng = NULL;
	struct hp_nf_aes_key *rk = NULL;
	static struct hp_nf_cbc_job jobs[HP_BURST];
	static uint8_t ivs[HP_BURST][16];
#endif
	static uint8_t frames[NPKT][HP_GEN_MAX_FRAME];
	static uint32_t off[NPKT], len[NPKT], seq[NPKT], flow[NPKT];
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	EVP_CIPHER_CTX **ctx;
	uint8_t key[16] = { 0 }, iv[16] = { 0 };
	uint64_t pkts = 0, bytes = 0, c0, c1;
	double t0, t, cpu0, cpu, hz;
	char err[128];
	unsigned int i;

	if (secs <= 0 || secs > 600) {
		fprintf(stderr, "bare_ctr: seconds must be in (0, 600]\n");
		return 2;
	}
	if (!mb && strcmp(impl, "evp") != 0) {
		fprintf(stderr, "bare_ctr: the kernel is evp or mb\n");
		return 2;
	}
#ifndef HP_BARE_MB
	if (mb) {
		fprintf(stderr, "bare_ctr: built without lib/nf: no mb kernel\n");
		return 2;
	}
#endif
	hp_type_table_default(&tt, 1000);
	if (hp_imix_parse(&mx, "243,486,1458", "2,1,2", err, sizeof(err)) < 0 ||
	    hp_gen_init(&g, &mx, &tt, 16, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "bare_ctr: %s\n", err);
		return 1;
	}
	ctx = calloc(g.n_flows, sizeof(*ctx));
	for (i = 0; i < g.n_flows; i++) {
		key[0] = (uint8_t)i;
		ctx[i] = EVP_CIPHER_CTX_new();
		EVP_EncryptInit_ex(ctx[i], EVP_aes_128_ctr(), NULL, key, iv);
	}
#ifdef HP_BARE_MB
	if (mb) {
		rk = aligned_alloc(64, sizeof(*rk) * g.n_flows);
		if (rk == NULL || hp_nf_cbc_create(&eng) != 0 ||
		    strcmp(hp_nf_cbc_arch(eng), "scalar") == 0) {
			fprintf(stderr, "bare_ctr: no intel-ipsec-mb engine here\n");
			return 1;
		}
		for (i = 0; i < g.n_flows; i++) {
			key[0] = (uint8_t)i;
			hp_nf_cbc_expand(eng, key, &rk[i]);
		}
	}
#endif
	for (i = 0; i < NPKT; i++) {
		struct hp_flow_key k = { 0 };
		uint16_t o = 0, l = 0;
		uint32_t size;
		unsigned int f;

		hp_gen_pick(&g, &size, &f);
		hp_gen_frame(&g, f, size, frames[i]);
		hp_parse(frames[i], size, &k, &o, &l);
		off[i] = o + 16u;
		len[i] = l - 16u;
		seq[i] = i;
		flow[i] = f;
	}
	t0 = now_s();
	c0 = __rdtsc();
	cpu0 = cpu_s();
	do {
#ifdef HP_BARE_MB
		/* the task's loop without the task: the burst's jobs (IV = a
		 * per-flow nonce | seq | 0), one ipsec-mb call */
		if (mb) {
			for (i = 0; i < NPKT; i += HP_BURST) {
				unsigned int j;

				for (j = 0; j < HP_BURST; j++) {
					memset(ivs[j], 0, 16);
					ivs[j][0] = (uint8_t)flow[i + j];
					memcpy(ivs[j] + 8, &seq[i + j], 4);
					jobs[j] = (struct hp_nf_cbc_job){
						.buf = frames[i + j] + off[i + j], .len = len[i + j],
						.key = &rk[flow[i + j]], .iv = ivs[j] };
					bytes += len[i + j];
				}
				if (hp_nf_ctr_encrypt_burst(eng, jobs, HP_BURST) != 0) {
					fprintf(stderr, "bare_ctr: ipsec-mb failed\n");
					return 1;
				}
			}
			pkts += NPKT;
			t = now_s();
			continue;
		}
#endif
		for (i = 0; i < NPKT; i++) {
			int outl;

			memcpy(iv + 8, &seq[i], 4);
			EVP_EncryptInit_ex(ctx[flow[i]], NULL, NULL, NULL, iv);
			EVP_EncryptUpdate(ctx[flow[i]], frames[i] + off[i], &outl,
					  frames[i] + off[i], (int)len[i]);
			bytes += len[i];
		}
		pkts += NPKT;
		t = now_s();
	} while (t - t0 < secs);
	/* TSC cycles per packet: the unit the pipeline's load counters use
	 * (cyc_per_item in trace.csv), so the two compare directly; and the
	 * same from the thread's CPU time, which leaves out the time other
	 * tenants of a shared machine took (hz: TSC ticks per wall second). */
	c1 = __rdtsc();
	cpu = cpu_s() - cpu0;
	hz = (double)(c1 - c0) / (t - t0);
	printf("{\"kernel\": \"%s\", \"pps\": %.1f, \"payload_gbps\": %.4f, \"seconds\": %.3f, "
	       "\"tsc_cycles_per_pkt\": %.1f, \"cpu_cycles_per_pkt\": %.1f, \"cpu_share\": %.3f}\n",
	       mb ? "ipsec-mb" : "openssl", (double)pkts / (t - t0), (double)bytes * 8 / (t - t0) / 1e9, t - t0,
	       (double)(c1 - c0) / (double)pkts, cpu * hz / (double)pkts, cpu / (t - t0));
	for (i = 0; i < g.n_flows; i++)
		EVP_CIPHER_CTX_free(ctx[i]);
	free(ctx);
#ifdef HP_BARE_MB
	hp_nf_cbc_free(eng);
	free(rk);
#endif
	hp_gen_free(&g);
	return 0;
}
