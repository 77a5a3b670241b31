/* SPDX-License-Identifier: BSD-3-Clause
 * ctr-task-bench: the aes_ctr task against a bare intel-ipsec-mb burst
 * loop (issue 28: CTR >= 0.95x the bare burst), single thread, in one
 * run over the same generated IMIX packets (mbufs classified as the
 * scheduler does). Variants, interleaved ABBA over --rounds:
 *   bare-mb       hp_nf_ctr_encrypt_burst over the packets' data regions,
 *                 keys expanded once per flow, 32 packets a call
 *   task-mb-offl  the task (impl=mb) with the port's checksum offloads:
 *                 the L4 sum is the NIC's, the task writes the
 *                 pseudo-header sum (what a port with offloads costs)
 *   task-mb       the task (impl=mb), the UDP/TCP checksum in software
 *                 (every port hplane has today: net_ring, af_packet,
 *                 pcap have no checksum offload)
 *   task-evp      the task (impl=evp), checksum in software
 *   bare-evp      an OpenSSL EVP loop (IV re-init + update a packet)
 * Every variant gets a burst's lines asked for first, as a worker's
 * hp_device_run_chain does before the task. Cost per packet from the
 * thread's CPU time x the TSC rate, so the time other tenants of a loaded
 * machine take does not count.
 * Usage: ctr-task-bench [--seconds S] [--rounds R] [--only VARIANT]
 * (--only: that variant alone, for perf record; no ratio then.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <openssl/evp.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "hp_common.h"
#include "hp_gen.h"
#include "hp_nf.h"
#include "hp_pkt.h"
#include "hp_task.h"

#define NPKT 2048
#define NVAR 5
#define MAXR 31

static const char *const vname[NVAR] = { "bare-mb", "task-mb-offl", "task-mb", "task-evp",
					  "bare-evp" };

struct bench {
	struct rte_mbuf *m[NPKT];
	uint32_t flow[NPKT];
	struct hp_nf_cbc *eng;
	struct hp_nf_aes_key *rk;
	EVP_CIPHER_CTX **evp;
	struct hp_task_ctx tmb, tmbo, tevp;
	struct hp_nf_cbc_job jobs[HP_BURST];
	uint8_t ivs[HP_BURST][16];
};

static double
clk(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What hp_device_run_chain asks for before a task sees a burst (the
 * mbuf's first line and the metadata's line 1), for every variant: the
 * packets' lines are where a worker finds them. */
static inline void
dev_prefetch(struct rte_mbuf **m)
{
	unsigned int j;

	for (j = 0; j < HP_BURST; j++) {
		rte_prefetch0(m[j]);
		hp_prefetch_meta_dev(m[j]);
	}
}

/* One pass of variant v over the packets. */
static int
pass(struct bench *b, int v)
{
	unsigned int i, j;

	if (v == 1 || v == 2 || v == 3) {
		struct hp_task_ctx *x = v == 1 ? &b->tmbo : v == 2 ? &b->tmb : &b->tevp;

		for (i = 0; i < NPKT; i += HP_BURST) {
			dev_prefetch(b->m + i);
			x->ops->process(x, b->m + i, HP_BURST);
		}
		return 0;
	}
	for (i = 0; i < NPKT; i += HP_BURST) {
		dev_prefetch(b->m + i);
		for (j = 0; j < HP_BURST; j++) {
			struct rte_mbuf *m = b->m[i + j];
			const struct hp_meta *md = hp_meta(m);
			uint32_t s = rte_cpu_to_be_32(md->hdr_seq);
			uint8_t *d = rte_pktmbuf_mtod_offset(m, uint8_t *, md->data_off);

			memset(b->ivs[j], 0, 16);
			b->ivs[j][0] = (uint8_t)b->flow[i + j];
			memcpy(b->ivs[j] + 8, &s, 4);
			if (v == 4) {
				EVP_CIPHER_CTX *c = b->evp[b->flow[i + j]];
				int outl;

				if (EVP_EncryptInit_ex(c, NULL, NULL, NULL, b->ivs[j]) != 1 ||
				    EVP_EncryptUpdate(c, d, &outl, d, md->data_len) != 1)
					return -EIO;
				continue;
			}
			b->jobs[j] = (struct hp_nf_cbc_job){ .buf = d, .len = md->data_len,
				.key = &b->rk[b->flow[i + j]], .iv = b->ivs[j] };
		}
		if (v == 0 && hp_nf_ctr_encrypt_burst(b->eng, b->jobs, HP_BURST) != 0)
			return -EIO;
	}
	return 0;
}

/* CPU cycles a packet of variant v over secs of its thread's CPU time. */
static double
measure(struct bench *b, int v, double secs)
{
	double w0 = clk(CLOCK_MONOTONIC), c0 = clk(CLOCK_THREAD_CPUTIME_ID), w, c;
	uint64_t t0 = __rdtsc(), pk = 0;

	do {
		if (pass(b, v) != 0)
			return -1;
		pk += NPKT;
		c = clk(CLOCK_THREAD_CPUTIME_ID) - c0;
	} while (c < secs);
	w = clk(CLOCK_MONOTONIC) - w0;
	return c * ((double)(__rdtsc() - t0) / w) / (double)pk;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	char *eal[] = { "ctr-task-bench", "--no-huge", "--no-pci", "--no-shconf", "-m", "256",
			"--log-level=lib.eal:error", "-l", "0", NULL };
	static const struct hp_task_cfg cmb = { .key = { 7 }, .param = "impl=mb" };
	static const struct hp_task_cfg cmbo = { .key = { 7 }, .param = "impl=mb",
						 .tx_offload = HP_PKT_TX_CKSUM_OFFLOADS };
	static const struct hp_task_cfg cevp = { .key = { 7 }, .param = "impl=evp" };
	static struct bench b;
	double secs = 0.5, res[NVAR][MAXR], med[NVAR];
	const struct hp_task_ops *ops = hp_task_find("aes_ctr");
	struct rte_mempool *mp;
	struct hp_type_table tt;
	struct hp_imix mx;
	struct hp_gen g;
	uint8_t key[16] = { 0 }, iv[16] = { 0 };
	unsigned int rounds = 5, i, r;
	char err[128];
	int k, only = -1;

	for (k = 1; k + 1 < argc; k += 2) {
		if (strcmp(argv[k], "--seconds") == 0)
			secs = atof(argv[k + 1]);
		else if (strcmp(argv[k], "--rounds") == 0)
			rounds = (unsigned int)atoi(argv[k + 1]);
		else if (strcmp(argv[k], "--only") == 0) {
			for (only = 0; only < NVAR && strcmp(argv[k + 1], vname[only]) != 0; only++)
				;
			if (only == NVAR)
				break;
		} else
			break;
	}
	if (k != argc || !(secs > 0 && secs <= 60) || rounds < 1 || rounds > MAXR) {
		fprintf(stderr, "ctr-task-bench: usage: [--seconds (0,60]] [--rounds 1..%d] "
			"[--only bare-mb|task-mb-offl|task-mb|task-evp|bare-evp]\n", MAXR);
		return 2;
	}
	if (rte_eal_init(9, eal) < 0 || ops == NULL) {
		fprintf(stderr, "ctr-task-bench: EAL init failed\n");
		return 1;
	}
	mp = hp_pktmbuf_pool("ctrb", NPKT * 2 - 1, 0);
	hp_type_table_default(&tt, 1000);
	if (mp == NULL || hp_imix_parse(&mx, "243,486,1458", "2,1,2", err, sizeof(err)) < 0 ||
	    hp_gen_init(&g, &mx, &tt, 16, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "ctr-task-bench: set-up failed\n");
		return 1;
	}
	b.rk = aligned_alloc(64, sizeof(*b.rk) * g.n_flows);
	b.evp = calloc(g.n_flows, sizeof(*b.evp));
	if (b.rk == NULL || b.evp == NULL || hp_nf_cbc_create(&b.eng) != 0 ||
	    strcmp(hp_nf_cbc_arch(b.eng), "scalar") == 0) {
		fprintf(stderr, "ctr-task-bench: no intel-ipsec-mb engine here\n");
		return 1;
	}
	for (i = 0; i < g.n_flows; i++) {
		key[0] = (uint8_t)i;
		hp_nf_cbc_expand(b.eng, key, &b.rk[i]);
		b.evp[i] = EVP_CIPHER_CTX_new();
		EVP_EncryptInit_ex(b.evp[i], EVP_aes_128_ctr(), NULL, key, iv);
	}
	for (i = 0; i < NPKT; i++) {
		struct hp_flow_key fk;
		struct hp_pkt_hdrs h;
		struct hp_meta *md;

		b.m[i] = rte_pktmbuf_alloc(mp);
		if (b.m[i] == NULL || hp_gen_build(&g, b.m[i]) != 0 ||
		    hp_parse_hdrs(rte_pktmbuf_mtod(b.m[i], uint8_t *), b.m[i]->data_len, &fk,
				  &h) != HP_DROP_NONE) {
			fprintf(stderr, "ctr-task-bench: packet %u\n", i);
			return 1;
		}
		md = hp_meta(b.m[i]);
		memset(md, 0, sizeof(*md));
		md->flow_id = hp_flow_hash(&fk);
		hp_meta_classified(md, rte_pktmbuf_mtod(b.m[i], uint8_t *), &h);
		hp_meta_seq_note(md);
		b.flow[i] = (uint32_t)(md->flow_id % g.n_flows);
	}
	b.tmb = (struct hp_task_ctx){ .ops = ops, .cfg = &cmb };
	b.tmbo = (struct hp_task_ctx){ .ops = ops, .cfg = &cmbo };
	b.tevp = (struct hp_task_ctx){ .ops = ops, .cfg = &cevp };
	if (ops->ctx_init(&b.tmb) != 0 || ops->ctx_init(&b.tmbo) != 0 ||
	    ops->ctx_init(&b.tevp) != 0)
		return 1;
	for (k = 0; k < NVAR; k++) /* warm: flow keys, caches */
		if ((only < 0 || k == only) && measure(&b, k, 0.05) < 0)
			return 1;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < NVAR; i++) {
			k = r % 2 ? NVAR - 1 - (int)i : (int)i;
			res[k][r] = only < 0 || k == only ? measure(&b, k, secs) : 0;
		}
	printf("| variant | CPU cycles/packet, min / median / max over %u rounds | "
	       "bare-mb / variant (median) |\n|---|---|---|\n", rounds);
	for (k = 0; k < NVAR; k++) {
		double s[MAXR];

		memcpy(s, res[k], sizeof(double) * rounds);
		qsort(s, rounds, sizeof(double), cmp);
		med[k] = s[rounds / 2];
		if (only >= 0 && k != only)
			continue;
		printf("| %s | %.0f / %.0f / %.0f | ", vname[k], s[0], med[k], s[rounds - 1]);
		if (only < 0)
			printf("%.3f |\n", med[0] / med[k]);
		else
			printf("- |\n");
	}
	printf("\nIMIX 243/486/1458 B 2:1:2, %d packets, %u flows, ipsec-mb arch %s, "
	       "%.2f s of CPU time a variant a round, rounds ABBA.\n", NPKT, g.n_flows,
	       hp_nf_cbc_arch(b.eng), secs);
	ops->ctx_free(&b.tmb);
	ops->ctx_free(&b.tmbo);
	ops->ctx_free(&b.tevp);
	for (i = 0; i < g.n_flows; i++)
		EVP_CIPHER_CTX_free(b.evp[i]);
	for (i = 0; i < NPKT; i++)
		rte_pktmbuf_free(b.m[i]);
	hp_nf_cbc_free(b.eng);
	free(b.rk);
	free(b.evp);
	hp_gen_free(&g);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return 0;
}
