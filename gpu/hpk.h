/* SPDX-License-Identifier: BSD-3-Clause
 * C interface of heteroplane's CUDA code, free of DPDK so nvcc never sees
 * DPDK headers: device discovery and the preflight line, per-stream
 * pinned staging buffers allocated once, asynchronous batch launch (one
 * packed upload of the per-batch arrays, the payload, the kernel, D2H of
 * only what the kernel changes) with completion by polling the stream,
 * and a host emulation that runs the kernels' per-thread code on the CPU
 * (tests and `cuda:emul` on machines without a GPU).
 *
 * Kernels are found by name (hpk_kernel_find("md5")): each kernel file,
 * lib/task/<name>/<name>.cu, registers itself (hpk_kernel.h). The code
 * here: hpk_stream.cu (contexts, streams, copies, launch, timing),
 * hpk_emul.cu (host buffers and the emulation), hpk_registry.cu.
 */
#ifndef HPK_H
#define HPK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Words of one expanded key in a batch's key table (AES-128: 44). */
#define HPK_KEY_WORDS 44

/* A batch as laid out in (pinned) host memory and mirrored on the GPU.
 * The per-packet arrays (off, len, blk, src, dst, mark, match, ctr,
 * key_idx, then rk) lie in this order in one buffer, so they go up in one copy
 * (hpk_begin packs them for the batch's packet count). Packet i's data
 * starts at data + off[i] (16-byte aligned) and has len[i] bytes; blk[i]
 * is the prefix sum of the work items (threads or thread blocks) the
 * kernel spreads over: 16-byte blocks unless the kernel says otherwise
 * (blk[n] = total). A packet gets there in one of two ways: staged (the
 * host wrote it into data, which goes up in one copy; n_staged such
 * packets) or gathered (src[i] != 0: the device-visible address of its
 * len[i] bytes in registered host memory, an mbuf's data region, which a
 * gather kernel reads over PCIe into the device's data + off[i]; n_src
 * such). A kernel reads and writes the arrays it needs: a keyed kernel
 * ctr (its IV, 4 big-endian words per packet), key_idx and rk
 * (HPK_KEY_WORDS words per key); results go in place into data, or into
 * digest (16 bytes per packet), match (2 words per packet) or aux (same
 * offsets as data). A result goes back in one of two ways: by copy into
 * the staging (D2H), or in place (dst[i] != 0, n_dst such packets: the
 * device-visible address in registered host memory where the kernel's
 * output for packet i belongs, an mbuf's payload or metadata field),
 * which a scatter kernel writes over PCIe after the kernel, followed by
 * the byte mark_val at mark[i] (the packet's step: the host's sign that
 * the whole result landed); a kernel that changes the data also leaves
 * the sum of the bytes it wrote in sum[i], so the host fixes the L4
 * checksum without reading the payload. */
struct hpk_batch {
	uint32_t n;
	uint32_t n_keys;
	uint32_t data_bytes;
	uint32_t n_staged;   /* packets written into data by the host */
	uint32_t n_src;      /* packets the gather reads in place (src) */
	uint32_t n_dst;      /* packets the scatter writes in place (dst) */
	uint32_t mark_val;   /* the byte the scatter writes at mark[i] */
	uint8_t *data;       /* cap_bytes */
	uint32_t *off;       /* cap_pkts */
	uint32_t *len;       /* cap_pkts */
	uint32_t *blk;       /* cap_pkts + 1 */
	uint64_t *src;       /* cap_pkts; 0: staged */
	uint64_t *dst;       /* cap_pkts; 0: the result comes back by copy */
	uint64_t *mark;      /* cap_pkts; with dst: one byte, written last */
	uint32_t *ctr;       /* 4 words (big endian values) per packet */
	uint32_t *key_idx;   /* cap_pkts */
	uint32_t *rk;        /* HPK_KEY_WORDS words per key, cap_pkts keys */
	uint32_t *sum;       /* with dst, a data kernel's: the ones' complement
			      * sum of the bytes written (16-bit words in the
			      * data's byte order from the region's first
			      * byte, folded; RFC 1071), for the L4 checksum;
			      * written by the device, never uploaded */
	uint8_t *digest;     /* 16 bytes per packet */
	uint32_t *match;     /* 2 words per packet */
	uint8_t *aux;        /* same offsets as data */
};

struct hpk_ctx;
struct hpk_kernel;

/* ---- kernels, by name ---- */
const struct hpk_kernel *hpk_kernel_find(const char *name);
/* Iterates the registered kernels: i = 0.. until NULL. */
const struct hpk_kernel *hpk_kernel_at(unsigned int i);
const char *hpk_kernel_name(const struct hpk_kernel *k);
/* Whether k reads a per-packet key (key_idx, rk) and IV (ctr). */
int hpk_kernel_keyed(const struct hpk_kernel *k);
/* Bytes of k's output per packet that a scatter can write in place: its
 * data (len, returned as UINT32_MAX), a digest (16) or a match record
 * (8); 0 when k writes more than one array or aux (results by copy). */
uint32_t hpk_kernel_out_bytes(const struct hpk_kernel *k);
/* Whether k needs a table (hpk_table) before it can run. */
int hpk_kernel_has_table(const struct hpk_kernel *k);
/* Expands a 16-byte key into k's key-table entry (keyed kernels). */
void hpk_key_expand(const struct hpk_kernel *k, const uint8_t key[16],
		    uint32_t rk[HPK_KEY_WORDS]);

/* ---- contexts ---- */

/* Opens GPU dev with nstreams streams, each with pinned buffers for
 * cap_pkts packets and cap_bytes payload bytes. info gets the preflight
 * line. 0 or -errno with err set (no GPU, no driver, ...). */
int hpk_open(struct hpk_ctx **ctx, int dev, unsigned int nstreams,
	     uint32_t cap_pkts, uint32_t cap_bytes, char *info, size_t infolen,
	     char *err, size_t errlen);
/* The same interface with no GPU: host buffers, and a launch runs the
 * kernel's per-thread code on the calling CPU. For testing everything
 * around the kernels (gather, scatter, the device loop) on machines
 * without a GPU; never reported as a GPU. */
int hpk_open_emul(struct hpk_ctx **ctx, unsigned int nstreams, uint32_t cap_pkts,
		  uint32_t cap_bytes, char *info, size_t infolen);
void hpk_close(struct hpk_ctx *ctx);
unsigned int hpk_copy_engines(const struct hpk_ctx *ctx);
/* The pinned host side of stream s's batch buffers (laid out for the
 * capacity until hpk_begin). */
struct hpk_batch *hpk_host(struct hpk_ctx *ctx, unsigned int s);
/* Lays stream s's per-packet arrays out packed for n packets (the upload
 * then covers only them) and returns the batch to fill, with n set; NULL
 * when n exceeds the capacity. The arrays' contents are undefined. */
struct hpk_batch *hpk_begin(struct hpk_ctx *ctx, unsigned int s, uint32_t n);
/* Registers host memory that batches' src point into (an mbuf pool's
 * memory chunk), once: pinned and mapped for the GPU (cudaHostRegister,
 * whole pages; memory registered elsewhere in the process is used when
 * it covers the range). The emulation
 * records the range, so that a gather outside registered memory fails
 * there as it would fault on a GPU. 0 or -errno with err set. */
int hpk_mem_register(struct hpk_ctx *ctx, void *addr, size_t len, char *err, size_t errlen);
/* Whether [p, p + len) lies in registered memory: 1 with *dev_addr the
 * address the GPU reads it at (src), else 0. */
int hpk_mem_find(struct hpk_ctx *ctx, const void *p, size_t len, uint64_t *dev_addr);
/* Uploads kernel k's table once: a flat blob whose format k and its task
 * share (lib/task/<name>/). The caller keeps blob alive until hpk_close
 * (the emulation reads it in place). 0 or -errno with err set. */
int hpk_table(struct hpk_ctx *ctx, const struct hpk_kernel *k, const void *blob,
	      size_t len, char *err, size_t errlen);
/* Where a packet of len bytes goes in a batch for kernel k: the work
 * items it adds to blk and the staging bytes it takes (16-byte aligned). */
void hpk_span(const struct hpk_ctx *ctx, const struct hpk_kernel *k, uint32_t len,
	      uint32_t *items, uint32_t *bytes);
/* Issues stream s's batch through kernel k: one H2D of the per-packet
 * arrays (and the keys), one of the staged payload (when some packet is
 * staged), the gather (when some packet has src), the kernel, the
 * scatter (when some packet has dst), D2H of what it changed for the
 * others (none when every packet has dst); returns at once. Binds the calling thread to the
 * context's GPU first (cudaSetDevice, once per thread). No allocation on
 * this path. 0 or -errno (a CUDA error: the caller falls back). */
int hpk_launch(struct hpk_ctx *ctx, unsigned int s, const struct hpk_kernel *k,
	       char *err, size_t errlen);
/* 1 when stream s's batch is done, 0 when not yet, -errno on error
 * (cudaStreamQuery: a stream holds one batch at a time, so no event). */
int hpk_query(struct hpk_ctx *ctx, unsigned int s, char *err, size_t errlen);

/* Driver calls of the batch path (a debug counter the plugin reports):
 * launch counts every call hpk_launch issues (copies, kernels,
 * cudaSetDevice when a thread first uses the context), poll every
 * completion query. The emulation counts the calls a GPU would get. */
struct hpk_calls {
	uint64_t batches;
	uint64_t launch;
	uint64_t poll;
	uint64_t gathered;   /* packets the GPU read in place (src) */
	uint64_t scattered;  /* packets the GPU wrote back in place (dst) */
};
void hpk_calls(const struct hpk_ctx *ctx, struct hpk_calls *c);
/* After completion: where kernel k's output for packet i of stream s's
 * batch is (what the task's offload_done reads). */
const uint8_t *hpk_result(struct hpk_ctx *ctx, unsigned int s, const struct hpk_kernel *k,
			  uint32_t i);

/* ---- for the bench ---- */
/* Kernel only, data already resident on the GPU (stream s's device
 * buffers after one hpk_launch): runs the kernel iters times and returns
 * the mean seconds per launch, or < 0 on error. */
double hpk_time_kernel(struct hpk_ctx *ctx, unsigned int s, const struct hpk_kernel *k,
		       unsigned int iters);
/* End to end over all streams at once: the batch of stream 0 is split
 * into nstreams chunks issued in the copy-engine order (Weerasinghe
 * §2.4.4: breadth-first when there is one copy engine, depth-first per
 * stream with two or more); mean seconds per whole batch. */
double hpk_time_e2e(struct hpk_ctx *ctx, const struct hpk_kernel *k, unsigned int iters);
/* Pinned H2D and D2H bandwidth (bytes/s) over bytes-sized copies. */
int hpk_pcie_bw(struct hpk_ctx *ctx, size_t bytes, double *h2d, double *d2h);

/* ---- host side, no GPU needed ---- */
/* Plain host batch buffers (emulation, tests): 0 or -ENOMEM. */
int hpk_host_alloc(struct hpk_batch *b, uint32_t cap_pkts, uint32_t cap_bytes);
void hpk_host_free(struct hpk_batch *b);
/* Lays out packet lengths into b->off/blk (16-byte blocks, aligned) and
 * sets data_bytes; returns -ENOSPC when it does not fit the capacities. */
int hpk_layout(struct hpk_batch *b, const uint32_t *lens, uint32_t n,
	       uint32_t cap_pkts, uint32_t cap_bytes);
/* Sets b->blk from b->len (n packets) for kernel k: each packet's work
 * items as hpk_span counts them in ctx, or with ctx NULL as a context
 * holding blob as k's table would (the 16-byte blocks of hpk_layout are
 * only the default; aes_ctr and dpi count otherwise). 0 or -errno. */
int hpk_set_items(const struct hpk_ctx *ctx, const struct hpk_kernel *k, struct hpk_batch *b,
		  const void *blob, size_t len);
/* Runs kernel k's per-thread code on the CPU over a host batch, with its
 * table blob when it needs one. 0 or -errno. */
int hpk_emulate(const struct hpk_kernel *k, struct hpk_batch *b, const void *blob,
		size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HPK_H */
