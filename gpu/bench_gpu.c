/* SPDX-License-Identifier: BSD-3-Clause
 * bench/gpu: AES-128-CTR and MD5 on the GPU, kernel only (data resident)
 * and end to end (pinned H2D + kernel + D2H overlapped over 4 streams in
 * the copy-engine order), batches of 1k to 64k IMIX packets, with the
 * pinned PCIe bandwidth measured in the same run and the CPU (the host
 * emulation of the same code is not a fair CPU peer, so the CPU numbers
 * come from bench/pipeline's OpenSSL loop, run by bench/gpu/run.py).
 * Exits 77 without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpk.h"

#define MAXP 65536u
#define CAP_BYTES (MAXP * 1472u)

int
main(int argc, char **argv)
{
	static const uint32_t imix[] = { 185, 428, 1400, 185, 1400 }; /* 2:1:2 */
	static const uint32_t batches[] = { 1024, 4096, 16384, 65536 };
	static const char *const kernels[] = { "aes_ctr", "md5" };
	static uint32_t lens[MAXP];
	struct hpk_ctx *k;
	char info[256], err[256];
	double h2d = 0, d2h = 0;
	unsigned int iters = argc > 1 ? (unsigned int)atoi(argv[1]) : 20;

	if (hpk_open(&k, 0, 4, MAXP, CAP_BYTES, info, sizeof(info), err, sizeof(err)) < 0) {
		printf("SKIP: no usable GPU: %s\n", err);
		return 77;
	}
	printf("# %s\n", info);
	if (hpk_pcie_bw(k, 256u << 20, &h2d, &d2h) == 0)
		printf("pcie_h2d_GBps %.2f\npcie_d2h_GBps %.2f\n", h2d / 1e9, d2h / 1e9);
	printf("op,batch,bytes,kernel_s,kernel_Gbps,e2e_s,e2e_Gbps,e2e_over_pcie\n");
	for (int ki = 0; ki < 2; ki++) {
		const struct hpk_kernel *kn = hpk_kernel_find(kernels[ki]);

		if (kn == NULL) {
			fprintf(stderr, "no kernel %s\n", kernels[ki]);
			return 1;
		}
		for (unsigned int bi = 0; bi < 4; bi++) {
			struct hpk_batch *b = hpk_host(k, 0);
			uint32_t n = batches[bi], payload = 0;
			uint8_t key[16] = { 0 };
			double tk, te, pcie;

			for (uint32_t i = 0; i < n; i++) {
				lens[i] = imix[i % 5];
				payload += lens[i];
			}
			hpk_layout(b, lens, n, MAXP, CAP_BYTES);
			hpk_set_items(k, kn, b, NULL, 0);
			memset(b->data, 0x5a, b->data_bytes);
			b->n_keys = 1;
			hpk_key_expand(kn, key, b->rk);
			memset(b->key_idx, 0, 4ull * n);
			memset(b->ctr, 0, 16ull * n);
			if (hpk_launch(k, 0, kn, err, sizeof(err)) < 0) {
				fprintf(stderr, "launch: %s\n", err);
				return 1;
			}
			while (hpk_query(k, 0, err, sizeof(err)) == 0)
				;
			tk = hpk_time_kernel(k, 0, kn, iters);
			te = hpk_time_e2e(k, kn, iters);
			/* The bound of end to end: AES moves the payload both
			 * ways at once (separate copy engines), so the slower
			 * direction; MD5 only host to device. */
			pcie = ki == 0 ? (h2d < d2h ? h2d : d2h) : h2d;
			printf("%s,%u,%u,%.6e,%.1f,%.6e,%.1f,%.3f\n",
			       kernels[ki], n, payload, tk,
			       payload * 8.0 / tk / 1e9, te, payload * 8.0 / te / 1e9,
			       payload / te / pcie);
		}
	}
	hpk_close(k);
	return 0;
}
