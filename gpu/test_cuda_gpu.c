/* SPDX-License-Identifier: BSD-3-Clause
 * On a GPU: the kernels' results byte-identical to the CPU (the host
 * emulation, itself checked against OpenSSL by test_cuda_emul) for random
 * packets of every IMIX size, of random sizes and of 0-130 bytes with runs
 * of empty ones (aes_ctr's item map), batches of 1 to 4096,
 * through the same staging/launch/poll path the cuda device uses.
 * Exits 77 (skipped) where no GPU or driver is present.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpk_test_util.h"

#define CAP_PKTS 4096
#define CAP_BYTES (CAP_PKTS * 1600u)

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t
rnd(void)
{
	return hpk_rnd(&rng);
}

/* Copies the host batch into a plain-memory twin for the emulation. */
static struct hpk_batch *
twin(const struct hpk_batch *b)
{
	struct hpk_batch *t = calloc(1, sizeof(*t));

	*t = *b;
	t->data = malloc(b->data_bytes + 16);
	t->digest = calloc(b->n + 1, 16);
	memcpy(t->data, b->data, b->data_bytes);
	return t;
}

int
main(void)
{
	/* 0: random sizes; 1: aes_ctr's item map under stress (0-130 bytes
	 * with runs of empty packets: hundreds of packets a thread block) */
	static const uint32_t sizes[] = { 185, 428, 1400, 0, 1 };
	static const uint32_t batches[] = { 1, 31, 1024, 4096 };
	static const char *const kernels[] = { "aes_ctr", "md5" };
	static uint32_t lens[CAP_PKTS];
	struct hpk_ctx *k;
	char info[256], err[256];
	int fails = 0;

	if (hpk_open(&k, 0, 1, CAP_PKTS, CAP_BYTES, info, sizeof(info), err, sizeof(err)) < 0) {
		printf("SKIP: no usable GPU: %s\n", err);
		return 77;
	}
	printf("%s\n", info);
	for (int ki = 0; ki < 2; ki++) {
		const struct hpk_kernel *kn = hpk_test_kernel(kernels[ki]);
		int ctr = ki == 0;

		for (unsigned int si = 0; si < 5; si++) {
			for (unsigned int bi = 0; bi < 4; bi++) {
				struct hpk_batch *b = hpk_host(k, 0), *t;
				uint32_t n = batches[bi], bad = 0;
				uint8_t key[16];
				int r;

				for (uint32_t i = 0; i < n; i++)
					lens[i] = sizes[si] > 1 ? sizes[si] :
						  sizes[si] == 0 ? rnd() % 1500 :
						  (i / 5) % 4 == 0 ? 0 : rnd() % 130;
				if (hpk_layout(b, lens, n, CAP_PKTS, CAP_BYTES) != 0 ||
				    hpk_set_items(k, kn, b, NULL, 0) != 0)
					return 1;
				for (uint32_t i = 0; i < b->data_bytes; i++)
					b->data[i] = (uint8_t)rnd();
				b->n_keys = 8;
				for (uint32_t j = 0; j < 8; j++) {
					for (int x = 0; x < 16; x++)
						key[x] = (uint8_t)rnd();
					hpk_key_expand(kn, key, b->rk + HPK_KEY_WORDS * j);
				}
				for (uint32_t i = 0; i < n; i++) {
					b->key_idx[i] = rnd() % 8;
					b->ctr[4 * i] = rnd();
					b->ctr[4 * i + 1] = rnd();
					b->ctr[4 * i + 2] = rnd();
					b->ctr[4 * i + 3] = 0;
				}
				t = twin(b);
				hpk_emulate(kn, t, NULL, 0);
				if (hpk_launch(k, 0, kn, err, sizeof(err)) < 0) {
					fprintf(stderr, "FAIL: launch: %s\n", err);
					return 1;
				}
				while ((r = hpk_query(k, 0, err, sizeof(err))) == 0)
					;
				if (r < 0) {
					fprintf(stderr, "FAIL: %s\n", err);
					return 1;
				}
				for (uint32_t i = 0; i < n; i++) {
					if (ctr)
						bad += memcmp(b->data + b->off[i], t->data + t->off[i], lens[i]) != 0;
					else
						bad += memcmp(b->digest + 16 * i, t->digest + 16 * i, 16) != 0;
				}
				printf("%s size %s batch %u: %u of %u differ\n",
				       kernels[ki],
				       sizes[si] > 1 ? "imix" : sizes[si] ? "small" : "random", n, bad,
				       n);
				fails += bad != 0;
				free(t->data);
				free(t->digest);
				free(t);
			}
		}
	}
	hpk_close(k);
	return fails ? 1 : 0;
}
