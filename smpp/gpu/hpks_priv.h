/* SPDX-License-Identifier: BSD-3-Clause
 * Private to the SMPP GPU backend (hp_cuda_smpp.h): what its three files
 * share. hpks_kernels.cu holds the tables and the kernels,
 * hpks_emul.cu the host emulation, hp_cuda_smpp.cu the stream pipeline,
 * its buffers and copies and the public API; the per-thread code that the
 * kernels and the emulation both run is in hpks_thread.cuh.
 */
#ifndef HPKS_PRIV_H
#define HPKS_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "hp_cuda_smpp.h"
#include "smpp_priv.h"   /* the library's tables; smpp_decode.h, the decoder */

#define HD __host__ __device__

/* ---- the tables, as the kernels read them -------------------------------- */

#define HPKS_NPDU 32
#define HPKS_NFLD 256
#define HPKS_NTLV 64

/* The library's tables (smpp_priv.h) in one struct, names left out. The
 * field lists of all PDUs sit apart in fld (global memory on the GPU),
 * each desc's fields pointing there: the decoder reads them through that
 * pointer, so they need not be in constant memory, where a pointer from
 * cudaGetSymbolAddress would be read outside the constant cache. */
struct hpks_tab {
	uint8_t pdu_idx[SMPP_PDU_KEYS];
	uint8_t tlv_idx[SMPP_TLV_IDX_SIZE];
	struct smpp_pdu_desc pdu[HPKS_NPDU];
	struct smpp_tlv_desc tlv[HPKS_NTLV];
};

/* The emulation's copy (hpks_kernels.cu), valid once hpks_tab_ready()
 * returned 0. */
extern struct hpks_tab hpks_h_tab;

/* ---- what the kernels read ----------------------------------------------- */

/* The framing of a batch, passed by value to the kernels. */
struct hpks_fcfg {
	struct smpp_config cfg;
	uint64_t len;
};

/* One framed element as the decode kernel reads it (24 bytes). */
struct hpks_frame {
	uint64_t off;         /* element start */
	uint64_t pdu_at;      /* PDU start */
	uint32_t len;         /* octets framed as the PDU */
	uint16_t err;         /* framing error */
	uint16_t corr_len;
};

#define RES_B 1024                   /* resolution block */
#define STAGE_PER_THREAD 160u        /* staged input octets per thread */
#define STAGE_MAX (96u * 1024u)      /* input staging cap (dynamic shared) */

/* The decode kernel builds each record in a shared-memory slot and its
 * warp writes the 32 records out with 16-byte stores (k_rec_store_lane).
 * Slots are 232 octets apart: 8-byte aligned for the record's 64-bit
 * fields, and 58 words, so the 32 lanes' stores of one field hit every
 * bank at most twice (224, 56 words, would be 8-way conflicts). */
#define HPKS_REC_WORDS (sizeof(struct smpp_pdu) / 16)
#define HPKS_REC_SLOT 232u
#define HPKS_REC_WARP (32u * HPKS_REC_SLOT)
/* Decode blocks are at most 512 threads: 512 slots and 512 x 160 octets
 * of input staging are 196 KiB of the 227 KiB an sm_90 block may have
 * (on GPUs with less, fewer: hp_cuda_smpp.cu's decode_block). */
#define HPKS_DECODE_MAX_BLOCK 512u
#define HPKS_DECODE_SMEM_MAX (HPKS_DECODE_MAX_BLOCK * (HPKS_REC_SLOT + STAGE_PER_THREAD))
/* Input staging of a decode block of nb threads (octets). */
static inline uint32_t
hpks_stage_cap(uint32_t nb)
{
	return nb * STAGE_PER_THREAD < STAGE_MAX ? nb * STAGE_PER_THREAD : STAGE_MAX;
}

/* Dynamic shared memory of a decode block of nb threads: its record
 * slots, then its input staging. */
static inline size_t
hpks_decode_smem(uint32_t nb)
{
	return (size_t)nb * HPKS_REC_SLOT + hpks_stage_cap(nb);
}

static_assert(sizeof(struct smpp_pdu) % 16 == 0 && sizeof(struct smpp_pdu) <= HPKS_REC_SLOT,
	      "records go out as 16-byte words from their slots");

struct hpks_dargs {
	const uint8_t *in;               /* the input, at its own offsets */
	const struct hpks_frame *fr;
	struct smpp_pdu *rec;
	uint32_t p0, np;                 /* PDUs of this launch */
	uint32_t stage_cap;              /* octets of staging per block */
	uint32_t flags;
};

/* ---- hpks_kernels.cu ----------------------------------------------------- */

/* Builds the host copy of the tables once (thread-safe); 0 or -E2BIG. */
int hpks_tab_ready(void);
/* The tables into the current GPU's constant memory. 0 or -EIO with err
 * set. */
int hpks_gpu_setup(char *err, size_t errlen);
/* The decode kernel's dynamic shared-memory limit raised to bytes. */
cudaError_t hpks_k_decode_smem_limit(size_t bytes);
cudaError_t hpks_k_decode(const struct hpks_dargs *a, uint32_t grid, uint32_t nb, cudaStream_t s);
cudaError_t hpks_k_mark_resolve(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid,
				uint32_t nb, uint32_t nchunks, uint64_t csz, uint64_t *chunk,
				uint64_t *total, cudaStream_t s);
cudaError_t hpks_k_emit(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
			uint32_t nchunks, uint64_t csz, const uint64_t *chunk,
			struct hpks_frame *fr, cudaStream_t s);

/* ---- hpks_emul.cu: the same, run on the calling CPU ----------------------- */

/* smem: HPKS_DECODE_SMEM_MAX octets, the block's shared memory. */
void hpks_emu_decode(const struct hpks_dargs *a, uint32_t grid, uint32_t nb, uint8_t *smem);
int hpks_emu_mark_resolve(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid,
			  uint32_t nb, uint32_t nchunks, uint64_t csz, uint64_t *chunk,
			  uint64_t *total);
void hpks_emu_emit(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
		   uint32_t nchunks, uint64_t csz, const uint64_t *chunk, struct hpks_frame *fr);

/* The chunk arrays' layout in one allocation of nchunks * 36 octets:
 * sig, ex, start, base (uint64_t each), then cnt (uint32_t). */
#define HPKS_CHUNK_BYTES 36u
struct hpks_chunks {
	uint64_t *sig, *ex, *start, *base;
	uint32_t *cnt;
};

HD static inline struct hpks_chunks
hpks_chunks_of(uint64_t *p, uint32_t nchunks)
{
	struct hpks_chunks k;

	k.sig = p;
	k.ex = p + nchunks;
	k.start = p + 2 * (size_t)nchunks;
	k.base = p + 3 * (size_t)nchunks;
	k.cnt = (uint32_t *)(p + 4 * (size_t)nchunks);
	return k;
}

#endif /* HPKS_PRIV_H */
