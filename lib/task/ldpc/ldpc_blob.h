/* SPDX-License-Identifier: BSD-3-Clause
 * The ldpc kernel's table and its codeword entry points. The table is one
 * blob an accelerator uploads as it is: this header (the code's shape,
 * the decoder settings of struct hp_ldpc_dec_cfg and the unit geometry of
 * hp_ldpc.h), then at byte offsets from the blob's start the base rows'
 * first entries (mb + 1 words) and each nonzero block's column and shift
 * (nnz words each, hp_ldpc_code_entry order). Built by the task (and the
 * tests), read by ldpc.cu. No DPDK.
 */
#ifndef HP_LDPC_BLOB_H
#define HP_LDPC_BLOB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hp_ldpc_blob {
	uint32_t z, mb, nb, punct, nnz; /* lifting, base rows, columns, ... */
	uint32_t max_iter;
	uint32_t oms;        /* 1: offset min-sum, 0: normalised */
	uint32_t nms_shift;
	uint32_t oms_offset;
	uint32_t early;      /* stop a codeword once every check holds */
	uint32_t ulen;       /* unit bytes (0: codewords only) */
	uint32_t maxflip;    /* most flips a decoded unit lists */
	int32_t llr;         /* LLR magnitude of a hard decision */
	uint32_t off_row_start, off_col, off_shift; /* byte offsets */
};

struct hp_ldpc_code;
struct hp_ldpc_dec_cfg;
struct hpk_ctx;

/* The blob of code c decoded with cfg, for units of ulen bytes listing
 * up to maxflip flips, hard decisions worth llr (ulen 0: codewords
 * only). *blob: free() it; *len bytes. 0 or -ENOMEM. */
int hp_ldpc_blob_build(const struct hp_ldpc_code *c, const struct hp_ldpc_dec_cfg *cfg,
		       unsigned int ulen, unsigned int maxflip, int llr, void **blob,
		       size_t *len);

/* ---- ldpc.cu: whole codewords, for the tests and bench/gpu ---- */

/* CPU run of the kernel's per-thread code: n_cw codewords of n =
 * nb*z - punct int8 LLRs; out gets the first out_bits hard decisions of
 * each; ok/iters (may be NULL) per codeword. Returns codewords ok. */
int hpk_ldpc_emulate(const void *blob, size_t len, const int8_t *llr, uint32_t n_cw,
		     uint8_t *out, uint32_t out_bits, uint8_t *ok, uint8_t *iters);
/* The same on the GPU, synchronous (copies in, decodes, copies out);
 * *secs gets the kernel time. Returns codewords ok or -errno. */
int hpk_ldpc_gpu(struct hpk_ctx *ctx, const void *blob, size_t len, const int8_t *llr,
		 uint32_t n_cw, uint8_t *out, uint32_t out_bits, uint8_t *ok, uint8_t *iters,
		 double *secs, char *err, size_t errlen);

/* Whether the code's check messages fit in shared memory beside its LLRs
 * on the current GPU (the kernels keep them there then): 1 yes, 0 no
 * (global memory), -errno for a malformed blob. */
int hpk_ldpc_msgs_shared(const void *blob, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HP_LDPC_BLOB_H */
