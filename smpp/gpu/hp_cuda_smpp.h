/* SPDX-License-Identifier: BSD-3-Clause
 * SMPP batch decoding on the GPU (Weerasinghe 2017, 3.3.3 and ch. 4),
 * behind the SMPP library's own smpp_decode_batch(): smpp_gpu_init()
 * opens the GPU (or, for tests, the host emulation of the kernels) and
 * registers the backends of SMPP_MODE_GPU and SMPP_MODE_GPU_FUSED with
 * smpp_backend_register().
 *
 *   gpu        the library frames the batch on the CPU; the GPU decodes it,
 *              the batch split into `streams` chunks whose H2D, kernel and
 *              D2H overlap (one thread per PDU, records written out by
 *              warps in 16-byte stores, copied into the batch by
 *              `copy_threads` host threads);
 *   gpu-fused  the input goes to the GPU as it is: boundary marking
 *              (speculative per-chunk walks, a scan that checks they form
 *              the true chain, a sequential repair where they do not) and
 *              decoding both run there; only the decoded records come back.
 *
 * The output is exactly smpp_decode_pdu's for every PDU (checked by the
 * unit test against SMPP_MODE_CPU on corpora, fuzz seeds and generated
 * batches). Kernels' per-thread code is __host__ __device__; with
 * SMPP_GPU_EMUL (or HP_SMPP_GPU_EMUL=1 in the environment) that same code
 * runs on the calling CPU with the same block/thread numbering, so the
 * whole path runs on machines without a GPU. Emulated runs are never GPU
 * measurements.
 */
#ifndef HP_CUDA_SMPP_H
#define HP_CUDA_SMPP_H

#include <stddef.h>
#include <stdint.h>

#include "smpp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMPP_GPU_EMUL        0x1u  /* host emulation of the kernels, no GPU */
#define SMPP_GPU_MAX_STREAMS 16
#define SMPP_GPU_MAX_COPY_THREADS 16

/* Launch shape, swept by hp-smpptune (thesis 4.3.2-4.3.4). */
struct smpp_gpu_launch {
	unsigned grid;     /* gpu: decode blocks (grid-stride over PDUs);
	                    * gpu-fused: marking blocks, grid x block chunks
	                    * of the input; 0: automatic */
	unsigned block;    /* threads per block, a multiple of 32, 32..1024;
	                    * 0: 128 */
	unsigned streams;  /* 1..SMPP_GPU_MAX_STREAMS; 0: 4 */
	unsigned copy_threads; /* host threads copying the records into the
	                        * batch, 1..SMPP_GPU_MAX_COPY_THREADS; 0:
	                        * automatic (1 under 16k PDUs, else up to 4) */
};

/* What the last batch did (for tests and the bench). */
struct smpp_gpu_stats {
	uint64_t staged;        /* input octets copied into the pinned staging
	                         * (0 when the input was caller-pinned) */
	unsigned copy_threads;  /* host threads of the copy-out */
};

/*
 * Opens GPU 0 (or the emulation: flags SMPP_GPU_EMUL or HP_SMPP_GPU_EMUL=1)
 * and registers the gpu and gpu-fused backends. msg gets the preflight line
 * or, on failure, the reason. Returns 0, -ENODEV (no usable GPU: nothing
 * registered, so those modes keep answering -ENOTSUP and SMPP_MODE_AUTO
 * stays on the CPU) or -ENOMEM. Calling it again is a no-op.
 */
int smpp_gpu_init(unsigned flags, char *msg, size_t msglen);
/* Unregisters the backends and releases the GPU. */
void smpp_gpu_fini(void);
/* 1 when the registered backend is the host emulation. */
int smpp_gpu_emulated(void);
/* 0 or -EINVAL (block not a multiple of 32 in 32..1024, streams or
 * copy_threads > max). The decode kernel's blocks are at most 512 threads
 * whatever the block (their records are built in shared memory). */
int smpp_gpu_set_launch(const struct smpp_gpu_launch *l);
void smpp_gpu_get_launch(struct smpp_gpu_launch *l);
/* The message of the last backend failure ("" when none). */
const char *smpp_gpu_last_error(void);
void smpp_gpu_last_stats(struct smpp_gpu_stats *st);

/*
 * Caller-pinned input: a batch whose input lies in memory from
 * smpp_gpu_host_alloc() or smpp_gpu_host_register() goes to the GPU
 * straight from there, without the copy into the backend's pinned staging
 * (its octets must not change during the call). At most 16 ranges, made
 * after smpp_gpu_init(). In the emulation the memory is plain host memory
 * with the same bookkeeping.
 */
void *smpp_gpu_host_alloc(size_t len);           /* NULL on failure */
void smpp_gpu_host_free(void *p);
/* 0, -EINVAL, -ENODEV (no smpp_gpu_init), -ENOSPC (16 ranges) or -EIO
 * (cudaHostRegister failed). */
int smpp_gpu_host_register(void *p, size_t len);
int smpp_gpu_host_unregister(void *p);           /* 0 or -ENOENT */

/* For tests: the kernels' per-PDU decoder run on the host, with the
 * pointer fields filled as the backend fills them. Same contract as
 * smpp_decode_pdu(). */
int smpp_gpu_emul_decode_pdu(const uint8_t *pdu, uint32_t len, unsigned flags,
			     uint64_t base, struct smpp_pdu *out);

#ifdef __cplusplus
}
#endif

#endif /* HP_CUDA_SMPP_H */
