/* SPDX-License-Identifier: BSD-3-Clause
 * Helpers shared by the CUDA tests and benches (not by the plugin): a
 * deterministic PRNG, host batch buffers, and lib/ldpc codes in the form
 * the LDPC kernel reads.
 */
#ifndef HPK_TEST_UTIL_H
#define HPK_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_cuda_kern.h"

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
 * cipher as hex) through kernel op; 1 when the output matches. */
static inline int
hpk_test_vector64(struct hpk_batch *b, enum hpk_op op, const char *key_hex,
		  const char *iv_hex, const char *pt_hex, const char *ct_hex,
		  uint32_t cap_pkts, uint32_t cap_bytes)
{
	uint8_t key[16], iv[16], ct[64];
	uint32_t len = 64;

	hpk_hex(key_hex, key, 16);
	hpk_hex(iv_hex, iv, 16);
	hpk_hex(ct_hex, ct, 64);
	hpk_layout(b, &len, 1, cap_pkts, cap_bytes);
	hpk_aes128_expand(key, b->rk);
	b->n_keys = 1;
	b->key_idx[0] = 0;
	hpk_test_set_iv(b, 0, iv);
	hpk_hex(pt_hex, b->data, 64);
	hpk_emulate(op, b, NULL);
	return memcmp(b->data, ct, 64) == 0;
}

#ifdef HP_LDPC_H
/* A lib/ldpc code as the kernel reads it (arrays malloc'd; free with
 * hpk_test_code_free). */
static inline void
hpk_test_code(const struct hp_ldpc_code *c, struct hpk_ldpc_code *kc)
{
	uint32_t nnz = hp_ldpc_code_nnz(c), mb = hp_ldpc_code_rows(c);
	uint32_t *rs = calloc(mb + 1, 4), *col = calloc(nnz, 4), *sh = calloc(nnz, 4);

	if (!rs || !col || !sh) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (uint32_t i = 0; i < nnz; i++) {
		unsigned int r, cc, s;

		hp_ldpc_code_entry(c, i, &r, &cc, &s);
		rs[r + 1]++;
		col[i] = cc;
		sh[i] = s;
	}
	for (uint32_t r = 0; r < mb; r++)
		rs[r + 1] += rs[r];
	*kc = (struct hpk_ldpc_code){ .z = hp_ldpc_code_z(c), .mb = mb,
				      .nb = hp_ldpc_code_cols(c), .punct = hp_ldpc_code_punct(c),
				      .nnz = nnz, .row_start = rs, .ent_col = col, .ent_shift = sh };
}

static inline void
hpk_test_code_free(struct hpk_ldpc_code *kc)
{
	free((void *)kc->row_start);
	free((void *)kc->ent_col);
	free((void *)kc->ent_shift);
}
#endif

#endif /* HPK_TEST_UTIL_H */
