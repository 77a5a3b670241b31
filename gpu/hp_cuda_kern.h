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
	HPK_AES_CBC = 3, /* in place (lengths multiple of 16), copied back */
	HPK_DFA = 4,     /* Aho-Corasick DFA walk: match count and first id out */
	HPK_LDPC_UNITS = 5, /* lib/ldpc units: decoded units into aux, count
			     * of units decoded into match[2p] */
};

/* The compact DFA of lib/nf (hp_nf.h, struct hp_nf_ac_dfa) in the form
 * the kernel walks: 16-byte states (12 keys + offset), the entry table,
 * and per state its match count and smallest pattern id. */
struct hpk_dfa {
	uint32_t n_states;
	uint32_t tab_len;
	const void *st;            /* n_states x 16 bytes */
	const uint32_t *tab;
	const uint32_t *out_count;
	const uint32_t *out_first;
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
	uint32_t *match;     /* DFA: count, first id per packet */
	uint8_t *aux;        /* LDPC: decoded units, same offsets as data */
};

struct hpk_ctx;

/* Opens GPU dev with nstreams streams, each with pinned buffers for
 * cap_pkts packets and cap_bytes payload bytes. info gets the preflight
 * line. 0 or -errno with err set (no GPU, no driver, ...). */
int hpk_open(struct hpk_ctx **ctx, int dev, unsigned int nstreams,
	     uint32_t cap_pkts, uint32_t cap_bytes, char *info, size_t infolen,
	     char *err, size_t errlen);
/* The same interface with no GPU: host buffers, and a launch runs the
 * kernels' per-thread code on the calling CPU (hpk_emulate). For testing
 * everything around the kernels (gather, scatter, the device loop) on
 * machines without a GPU; never reported as a GPU. */
int hpk_open_emul(struct hpk_ctx **ctx, unsigned int nstreams, uint32_t cap_pkts,
		  uint32_t cap_bytes, char *info, size_t infolen);
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
/* Plain host batch buffers (emulation, tests): 0 or -ENOMEM. */
int hpk_host_alloc(struct hpk_batch *b, uint32_t cap_pkts, uint32_t cap_bytes);
void hpk_host_free(struct hpk_batch *b);
/* FIPS-197 key expansion: 44 round-key words (big-endian values). */
void hpk_aes128_expand(const uint8_t key[16], uint32_t rk[44]);
/* Uploads the DFA once (HPK_DFA launches use it). 0 or -errno. */
int hpk_dfa_upload(struct hpk_ctx *ctx, const struct hpk_dfa *dfa, char *err,
		   size_t errlen);

/* Runs the kernels' per-thread code on the CPU over a host batch (dfa
 * only for HPK_DFA). HPK_LDPC_UNITS needs hpk_ldpc_units_emulate. */
void hpk_emulate(enum hpk_op op, struct hpk_batch *b, const struct hpk_dfa *dfa);

/* ---- LDPC: layered min-sum, one thread block per codeword ---- */

/* A QC-LDPC code as the kernel reads it: base rows in order, per row its
 * nonzero blocks' columns and shifts (hp_ldpc_code_entry order). */
struct hpk_ldpc_code {
	uint32_t z, mb, nb, punct, nnz;
	const uint32_t *row_start;  /* mb + 1 */
	const uint32_t *ent_col;    /* nnz */
	const uint32_t *ent_shift;  /* nnz */
};

/* Same fields and meaning as struct hp_ldpc_dec_cfg (lib/ldpc). */
struct hpk_ldpc_cfg {
	uint32_t max_iter;
	uint32_t oms;        /* 1: offset min-sum, 0: normalised */
	uint32_t nms_shift;
	uint32_t oms_offset;
	uint32_t early;      /* stop a codeword once every check holds */
};

/* CPU run of the kernel's per-thread code: n_cw codewords of n =
 * nb*z - punct int8 LLRs; out gets the first out_bits hard decisions of
 * each; ok/iters (may be NULL) per codeword. Returns codewords ok. */
int hpk_ldpc_emulate(const struct hpk_ldpc_code *c, const struct hpk_ldpc_cfg *cfg,
		     const int8_t *llr, uint32_t n_cw, uint8_t *out, uint32_t out_bits,
		     uint8_t *ok, uint8_t *iters);
/* Units (lib/ldpc's `ran` format) of a batch: blk[] counts units, not
 * 16-byte blocks; each packet's len is a whole number of ulen-byte
 * units. Decoded units go to aux at the same offsets and match[2p] gets
 * the number of the packet's units that decoded within maxflip flips. */
struct hpk_ldpc_units {
	uint32_t ulen, maxflip;
	int llr;
};
/* Uploads the code and settings once (HPK_LDPC_UNITS launches use them).
 * 0 or -errno. */
int hpk_ldpc_setup(struct hpk_ctx *ctx, const struct hpk_ldpc_code *c,
		   const struct hpk_ldpc_cfg *cfg, const struct hpk_ldpc_units *u,
		   char *err, size_t errlen);
/* CPU run of the units kernel's per-thread code over a host batch. */
int hpk_ldpc_units_emulate(const struct hpk_ldpc_code *c, const struct hpk_ldpc_cfg *cfg,
			   const struct hpk_ldpc_units *u, struct hpk_batch *b);

/* The same on the GPU, synchronous (copies in, decodes, copies out);
 * *secs gets the kernel time. Returns codewords ok or -errno. */
int hpk_ldpc_gpu(struct hpk_ctx *ctx, const struct hpk_ldpc_code *c,
		 const struct hpk_ldpc_cfg *cfg, const int8_t *llr, uint32_t n_cw,
		 uint8_t *out, uint32_t out_bits, uint8_t *ok, uint8_t *iters,
		 double *secs, char *err, size_t errlen);
/* Lays out packet lengths into b->off/blk (16-byte aligned) and sets
 * data_bytes; returns -ENOSPC when it does not fit the capacities. */
int hpk_layout(struct hpk_batch *b, const uint32_t *lens, uint32_t n,
	       uint32_t cap_pkts, uint32_t cap_bytes);

#ifdef __cplusplus
}
#endif

#endif /* HP_CUDA_KERN_H */
