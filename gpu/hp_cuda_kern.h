/* SPDX-License-Identifier: BSD-3-Clause
 * C interface of heteroplane's CUDA code (hp_cuda_kern.cu), free of DPDK so
 * nvcc never sees DPDK headers: device discovery and the preflight line,
 * per-stream pinned staging buffers allocated once, asynchronous batch
 * launch (H2D, kernel, D2H only where the task changes the payload) with
 * completion by event polling, and a host emulation of the kernels that
 * runs the very same per-thread code on the CPU (tests on machines
 * without a GPU).
 */
#ifndef HP_CUDA_KERN_H
#define HP_CUDA_KERN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hpk_op {
	HPK_AES_CTR = 1, /* in place, payload copied back */
	HPK_MD5 = 2,     /* digest out, payload not copied back */
};

/* A batch as laid out in (pinned) host memory and mirrored on the GPU.
 * Packet i's data starts at data + off[i] (16-byte aligned) and has len[i]
 * bytes; blk[i] is the prefix sum of 16-byte blocks (blk[n] = total). */
struct hpk_batch {
	uint32_t n;
	uint32_t n_keys;
	uint32_t data_bytes;
	uint8_t *data;       /* cap_bytes */
	uint32_t *off;       /* cap_pkts */
	uint32_t *len;       /* cap_pkts */
	uint32_t *blk;       /* cap_pkts + 1 */
	uint32_t *ctr;       /* 4 words (big endian values) per packet */
	uint32_t *key_idx;   /* cap_pkts */
	uint32_t *rk;        /* 44 round-key words per key, cap_pkts keys */
	uint8_t *digest;     /* 16 bytes per packet */
};

struct hpk_ctx;

/* Opens GPU dev with nstreams streams, each with pinned buffers for
 * cap_pkts packets and cap_bytes payload bytes. info gets the preflight
 * line. 0 or -errno with err set (no GPU, no driver, ...). */
int hpk_open(struct hpk_ctx **ctx, int dev, unsigned int nstreams,
	     uint32_t cap_pkts, uint32_t cap_bytes, char *info, size_t infolen,
	     char *err, size_t errlen);
void hpk_close(struct hpk_ctx *ctx);
unsigned int hpk_copy_engines(const struct hpk_ctx *ctx);
/* The pinned host side of stream s's batch buffers. */
struct hpk_batch *hpk_host(struct hpk_ctx *ctx, unsigned int s);
/* Issues H2D, kernel and (for AES) D2H of stream s's batch; returns at
 * once. 0 or -errno (a CUDA error: the caller falls back). */
int hpk_launch(struct hpk_ctx *ctx, unsigned int s, enum hpk_op op,
	       char *err, size_t errlen);
/* 1 when stream s's batch is done, 0 when not yet, -errno on error. */
int hpk_query(struct hpk_ctx *ctx, unsigned int s, char *err, size_t errlen);

/* ---- for the bench ---- */
/* Kernel only, data already resident on the GPU (stream s's device
 * buffers after one hpk_launch): runs the kernel iters times and returns
 * the mean seconds per launch, or < 0 on error. */
double hpk_time_kernel(struct hpk_ctx *ctx, unsigned int s, enum hpk_op op,
		       unsigned int iters);
/* End to end over all streams at once: the batch of stream 0 is split
 * into nstreams chunks issued in the copy-engine order (Weerasinghe
 * §2.4.4: breadth-first when there is one copy engine, depth-first per
 * stream with two or more); mean seconds per whole batch. */
double hpk_time_e2e(struct hpk_ctx *ctx, enum hpk_op op, unsigned int iters);
/* Pinned H2D and D2H bandwidth (bytes/s) over bytes-sized copies. */
int hpk_pcie_bw(struct hpk_ctx *ctx, size_t bytes, double *h2d, double *d2h);

/* ---- host side helpers, no GPU needed ---- */
/* FIPS-197 key expansion: 44 round-key words (big-endian values). */
void hpk_aes128_expand(const uint8_t key[16], uint32_t rk[44]);
/* Runs the kernels' per-thread code on the CPU over a host batch. */
void hpk_emulate(enum hpk_op op, struct hpk_batch *b);
/* Lays out packet lengths into b->off/blk (16-byte aligned) and sets
 * data_bytes; returns -ENOSPC when it does not fit the capacities. */
int hpk_layout(struct hpk_batch *b, const uint32_t *lens, uint32_t n,
	       uint32_t cap_pkts, uint32_t cap_bytes);

#ifdef __cplusplus
}
#endif

#endif /* HP_CUDA_KERN_H */
