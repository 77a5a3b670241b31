/* SPDX-License-Identifier: BSD-3-Clause
 * A CUDA context's insides, shared by the stream code (hpk_stream.cu), the
 * emulation (hpk_emul.cu) and the kernel registry (hpk_registry.cu); the
 * kernel files see only hpk_kernel.h.
 */
#ifndef HPK_PRIV_H
#define HPK_PRIV_H

#include "hpk_kernel.h"

struct hpk_stream {
	cudaStream_t st;
	struct hpk_batch h;      /* pinned host (plain host memory: emulation) */
	struct hpk_batch d;      /* device mirrors */
	uint8_t *ctl_h, *ctl_d;  /* the per-packet arrays' buffers (hpk_pack) */
	uint8_t *ctl_hd;         /* ctl_h as the device addresses it (mapped) */
	struct hpk_scratch scr;  /* a kernel's extra device memory */
};

/* Registered host memory: [lo, hi), read by the GPU at lo + delta. */
struct hpk_mem {
	const uint8_t *lo, *hi;
	int64_t delta;
	int owned;               /* registered here: unregistered at close */
};

struct hpk_ctx {
	int dev;
	unsigned int n;          /* streams */
	unsigned int engines;
	uint32_t cap_pkts, cap_bytes;
	struct hpk_stream *s;
	int emul;                /* host emulation, no GPU */
	unsigned int n_slots;
	struct hpk_kslot *slots; /* one per registered kernel */
	struct hpk_calls calls;
	struct hpk_mem *mem;
	unsigned int n_mem, last_mem;
};

/* Points b's per-packet arrays into base for n packets, packed in upload
 * order (off, len, blk, src, match, ctr, key_idx, rk; each 16-byte
 * aligned); returns the bytes they take (base NULL: only that). */
size_t hpk_pack(struct hpk_batch *b, uint8_t *base, uint32_t n);
/* The bytes of b's buffer from base that a launch of kernel flags must
 * upload: up to blk, src (gathered packets), match (zeroed), or the
 * batch's keys. */
size_t hpk_upload_bytes(const struct hpk_batch *b, const uint8_t *base, unsigned int flags);

/* The batch arrays of b for packets [p0, p0 + np). */
struct kargs hpk_args(struct hpk_batch *b, uint32_t p0, uint32_t np);
/* A slot for every registered kernel, each opened (its open hook). */
int hpk_slots_open(struct hpk_ctx *c, char *err, size_t errlen);
/* Closes them (close hooks); frees the device copies of the tables. */
void hpk_slots_close(struct hpk_ctx *c);
struct hpk_kslot *hpk_slot(const struct hpk_ctx *c, const struct hpk_kernel *k);
/* Records [lo, hi) as registered. 0 or -ENOMEM. */
int hpk_mem_add(struct hpk_ctx *c, const uint8_t *lo, const uint8_t *hi, int64_t delta,
		int owned);
/* The gather of stream s's batch in an emulation context: the GPU
 * kernel's lanes over the same src, len and off (hpk_move.cuh), each
 * region checked against registered memory first (-EFAULT outside). */
int hpk_emul_gather(struct hpk_ctx *c, unsigned int s, char *err, size_t errlen);
/* The scatter of stream s's batch in an emulation context: the GPU
 * kernel's lanes over the same dst, mark and output arrays
 * (hpk_move.cuh), each region checked against registered memory before
 * it is written (-EFAULT outside: packets before it stay written). */
int hpk_emul_scatter(struct hpk_ctx *c, unsigned int s, const struct hpk_kernel *k,
		     char *err, size_t errlen);
/* The array of b that holds kernel output of ob bytes a packet
 * (hpk_kernel_out_bytes): data, digest or match. */
const uint8_t *hpk_out_base(const struct hpk_batch *b, uint32_t ob);
/* hpk_launch's kernel in an emulation context: its threads on the CPU. */
int hpk_emul_launch(struct hpk_ctx *c, unsigned int s, const struct hpk_kernel *k,
		    char *err, size_t errlen);
/* hpk_close of an emulation context. */
void hpk_emul_close(struct hpk_ctx *c);

#endif /* HPK_PRIV_H */
