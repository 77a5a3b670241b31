/* SPDX-License-Identifier: BSD-3-Clause
 * Internal structures of the LDPC block shared by the code builder, the
 * encoder and the decoder kernels (scalar / AVX2 / AVX-512BW).
 */
#ifndef HP_LDPC_PRIV_H
#define HP_LDPC_PRIV_H

#include <stdint.h>

#include "hp_ldpc.h"

/* Largest row degree of any supported base matrix (802.11n R=5/6: 22). */
#define HP_LDPC_MAXDEG 32
/* Largest check-to-bit message magnitude: half the int8 range, so that
 * t = L - R keeps its sign and most of its size when L saturates. */
#define HP_LDPC_RMAX 63
/* Most lanes a kernel uses (AVX-512BW: 64 int8). */
#define HP_LDPC_MAXLANES 64

struct hp_ldpc_code {
	char name[32];
	enum hp_ldpc_family family;
	unsigned int z, mb, nb, kb;   /* base rows, cols, info cols */
	unsigned int punct;           /* punctured leading bits */
	unsigned int nnz;
	uint16_t *row_start;          /* mb + 1 offsets into the entries */
	uint16_t *ent_col;            /* nnz, row-major */
	uint16_t *ent_shift;          /* nnz, lifted (mod z) */
	/* Encoder: the first g block rows and the parity block columns
	 * kb..kb+g-1 form the "core" B; p_core = B^-1 * lambda. Rows g..mb-1
	 * are extension rows, each solved for its own parity column. */
	unsigned int g;
	unsigned int inv_words;       /* uint64 words per column of binv */
	uint64_t *binv;               /* B^-1 by columns: g*z x inv_words */
};

/* One batch of up to W codewords, interleaved lane by lane. */
struct hp_ldpc_batch {
	const struct hp_ldpc_code *c;
	int8_t *L;                    /* n_full * W a-posteriori LLRs */
	int8_t *R;                    /* nnz * z * W check-to-bit messages */
	unsigned int max_iter;
	unsigned int alg, nms_shift, oms_offset;
	int early;
	unsigned int nlanes;          /* lanes that carry a codeword */
	unsigned int out_bits;        /* bits extracted per lane: k or n_full */
	uint8_t *info[HP_LDPC_MAXLANES];
	struct hp_ldpc_result *res[HP_LDPC_MAXLANES];
};

/* One codeword for the low-latency (Z-parallel) kernels: each base column
 * c at L + c * S holds its z LLRs twice (j and j + z), then padding, so a
 * circulant shift is an unaligned load (hp_ldpc_zkern.h). */
struct hp_ldpc_zjob {
	const struct hp_ldpc_code *c;
	int8_t *L;                    /* nb * S */
	int8_t *R;                    /* nnz * zp check-to-bit messages */
	unsigned int S;               /* column stride: >= z + zp, 64-aligned */
	unsigned int zp;              /* z rounded up to the lanes */
	unsigned int max_iter;
	unsigned int alg, nms_shift, oms_offset;
	int early;
	unsigned int out_bits;
	uint8_t *out;                 /* out_bits hard decisions */
	struct hp_ldpc_result *res;   /* may be NULL */
};

/* Copies the hard decisions on the first out_bits bits of every lane in
 * mask out and records the outcome (shared by all kernels, which differ
 * only in W). Reads each interleaved row once for all those lanes. */
void hp_ldpc_extract(struct hp_ldpc_batch *b, unsigned int W, uint64_t mask,
		     unsigned int iters, int ok);

/* The kernel a decoder runs (never AUTO): the byte loops around it in
 * hp_ldpc_units.c are compiled for the same ISA. */
enum hp_ldpc_isa hp_ldpc_dec_isa_kind(const struct hp_ldpc_dec *d);

int hp_ldpc_kern_scalar(struct hp_ldpc_batch *b);
int hp_ldpc_kern_avx2(struct hp_ldpc_batch *b);
int hp_ldpc_kern_avx512(struct hp_ldpc_batch *b);
/* Low-latency kernels: one codeword; 1 when it decoded, else 0. */
int hp_ldpc_zkern_scalar(struct hp_ldpc_zjob *j);
int hp_ldpc_zkern_avx2(struct hp_ldpc_zjob *j);
int hp_ldpc_zkern_avx512(struct hp_ldpc_zjob *j);

#endif /* HP_LDPC_PRIV_H */
