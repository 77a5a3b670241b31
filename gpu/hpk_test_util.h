/* SPDX-License-Identifier: BSD-3-Clause
 * Helpers shared by the CUDA tests and benches (not by the plugin): a
 * deterministic PRNG, host batch buffers, kernels by name, hex vectors.
 */
#ifndef HPK_TEST_UTIL_H
#define HPK_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpk.h"

/* xorshift64; *s must not be 0. */
static inline uint32_t
hpk_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

/* Host batch buffers; exits on allocation failure (tests only). */
static inline void
hpk_test_batch(struct hpk_batch *b, uint32_t cap_pkts, uint32_t cap_bytes)
{
	if (hpk_host_alloc(b, cap_pkts, cap_bytes) != 0) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
}

/* The kernel registered as name; exits when there is none (tests only). */
static inline const struct hpk_kernel *
hpk_test_kernel(const char *name)
{
	const struct hpk_kernel *k = hpk_kernel_find(name);

	if (k == NULL) {
		fprintf(stderr, "FAIL: no kernel %s registered\n", name);
		exit(1);
	}
	return k;
}

/* Parses 2n hex digits into out. */
static inline void
hpk_hex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sscanf(s + 2 * i, "%2hhx", &out[i]);
}

/* Packet p's IV / initial counter block as the kernels take it. */
static inline void
hpk_test_set_iv(struct hpk_batch *b, uint32_t p, const uint8_t iv[16])
{
	for (int w = 0; w < 4; w++)
		b->ctr[4 * p + w] = ((uint32_t)iv[4 * w] << 24) | ((uint32_t)iv[4 * w + 1] << 16) |
				    ((uint32_t)iv[4 * w + 2] << 8) | iv[4 * w + 3];
}

/* One 64-byte NIST SP 800-38A vector (key, IV / initial counter, plain,
 * cipher as hex) through keyed kernel k; 1 when the output matches. */
static inline int
hpk_test_vector64(struct hpk_batch *b, const struct hpk_kernel *k, const char *key_hex,
		  const char *iv_hex, const char *pt_hex, const char *ct_hex,
		  uint32_t cap_pkts, uint32_t cap_bytes)
{
	uint8_t key[16], iv[16], ct[64];
	uint32_t len = 64;

	hpk_hex(key_hex, key, 16);
	hpk_hex(iv_hex, iv, 16);
	hpk_hex(ct_hex, ct, 64);
	hpk_layout(b, &len, 1, cap_pkts, cap_bytes);
	hpk_set_items(NULL, k, b, NULL, 0);
	hpk_key_expand(k, key, b->rk);
	b->n_keys = 1;
	b->key_idx[0] = 0;
	hpk_test_set_iv(b, 0, iv);
	hpk_hex(pt_hex, b->data, 64);
	hpk_emulate(k, b, NULL, 0);
	return memcmp(b->data, ct, 64) == 0;
}

#endif /* HPK_TEST_UTIL_H */
