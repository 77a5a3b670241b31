/* SPDX-License-Identifier: BSD-3-Clause
 * What a kernel file (lib/task/<name>/<name>.cu) gives the CUDA code: a
 * descriptor, registered under the name its task declares in
 * hp_task_ops.offload, with the kernel's launch, its host emulation (the
 * very per-thread code, with the kernel's thread numbering), its table
 * and which batch arrays it reads and writes. The stream code
 * (hpk_stream.cu) and the emulation (hpk_emul.cu) drive every kernel
 * through this descriptor alone; no list of kernels exists outside the
 * registry. CUDA C++ only (nvcc).
 */
#ifndef HPK_KERNEL_H
#define HPK_KERNEL_H

#include <cuda_runtime.h>

#include "hpk.h"

#define HD __host__ __device__

/* Unrolling for the device pass only (the host compiler has no such
 * pragma and the emulation does not need it); HPK_NO_UNROLL keeps a
 * loop whose body is large rolled (instruction cache). */
#ifdef __CUDA_ARCH__
#define HPK_UNROLL _Pragma("unroll")
#define HPK_NO_UNROLL _Pragma("unroll 1")
#else
#define HPK_UNROLL
#define HPK_NO_UNROLL
#endif

/* The batch as a kernel sees it: the arrays of struct hpk_batch (device
 * copies on a GPU, the host ones in emulation) and the packets
 * [p0, p0 + np) of this launch. */
struct kargs {
	uint8_t *data;
	const uint32_t *off;
	const uint32_t *len;
	const uint32_t *blk;
	const uint64_t *src;
	const uint32_t *ctr;
	const uint32_t *key_idx;
	const uint32_t *rk;
	uint8_t *digest;
	uint32_t *match;
	uint8_t *aux;
	uint32_t p0;       /* first packet of this launch */
	uint32_t np;       /* packets in this launch */
};

/* Kernel k in one context: its table and what its hooks keep. */
struct hpk_kslot {
	const struct hpk_kernel *k;
	int emul;            /* host emulation: no device memory */
	const void *tab;     /* the table blob as the task gave it (host) */
	size_t tab_len;
	void *d_tab;         /* its device copy (NULL in emulation) */
	void *priv;          /* the kernel's own: parsed table, constants */
};

/* Device memory a kernel may need beside the batch, one per stream,
 * allocated when its table is uploaded (hpk_kernel.scratch) and never on
 * the launch path (cudaMalloc and cudaFree synchronise the device). */
struct hpk_scratch {
	void *p;
	size_t cap;
};

/* One launch: kargs with device pointers on a GPU (st, scr set), host
 * pointers in emulation. */
struct hpk_run {
	struct kargs a;
	const struct hpk_batch *h;  /* the host batch (work item counts) */
	const struct hpk_kslot *ks;
	struct hpk_scratch *scr;
	cudaStream_t st;
};

/* What a kernel moves besides data, off, len and blk (always in). */
#define HPK_KEYED      0x01 /* in: ctr, key_idx and the batch's keys (rk) */
#define HPK_TABLE      0x02 /* cannot run before hpk_table() */
#define HPK_ZERO_MATCH 0x04 /* match zeroed on the GPU before the kernel */
#define HPK_OUT_DATA   0x10 /* out: data, changed in place */
#define HPK_OUT_AUX    0x20 /* out: aux */
#define HPK_OUT_DIGEST 0x40 /* out: digest */
#define HPK_OUT_MATCH  0x80 /* out: match */

struct hpk_kernel {
	const char *name;          /* what tasks name in .offload */
	unsigned int flags;        /* HPK_* */
	/* Bytes the staging keeps after each packet's data, and its work
	 * items (blk); NULL items: one per 16-byte block. */
	uint32_t tail;
	uint32_t (*items)(const struct hpk_kslot *ks, uint32_t len);
	/* Optional, when a context opens and closes: constants the kernel
	 * keeps on the GPU, and whatever table priv holds. */
	int (*open)(struct hpk_kslot *ks, char *err, size_t errlen);
	void (*close)(struct hpk_kslot *ks);
	/* Optional: reads the uploaded blob (ks->tab, on the GPU ks->d_tab)
	 * into ks->priv, checking it. 0 or -errno with err set. */
	int (*table)(struct hpk_kslot *ks, char *err, size_t errlen);
	/* Optional, after table: the device scratch bytes a stream needs for
	 * a batch of cap_bytes staging bytes (allocated then, once). */
	size_t (*scratch)(const struct hpk_kslot *ks, uint32_t cap_bytes);
	/* Issues the kernel on r->st (np > 0); returns cudaGetLastError(). */
	cudaError_t (*launch)(const struct hpk_run *r);
	/* The kernel's threads, one after another, on the CPU. 0 or -errno. */
	int (*emulate)(const struct hpk_run *r);
	/* Keyed kernels: a 16-byte key into its key-table entry. */
	void (*key_expand)(const uint8_t key[16], uint32_t rk[HPK_KEY_WORDS]);
	/* Where packet i's output is once the batch is back. */
	const uint8_t *(*result)(struct hpk_batch *b, uint32_t i);
};

#ifdef __cplusplus
extern "C" {
#endif
/* 0, or -EINVAL (no name, name taken, registry full). */
int hpk_kernel_register(const struct hpk_kernel *k);
/* The CUDA device a context runs on. */
int hpk_ctx_gpu(const struct hpk_ctx *c);
#ifdef __cplusplus
}
#endif

/* One line in the kernel's file makes it known by name. */
#define HPK_KERNEL_REGISTER(k)						\
	__attribute__((constructor)) static void hpk_reg_ ## k(void)	\
	{ hpk_kernel_register(&(k)); }

/* The packet that work item g (counted from the batch's first item)
 * falls in: binary search over the launch's prefix sums. */
HD static inline uint32_t
hpk_item_packet(const struct kargs *a, uint32_t g)
{
	uint32_t lo = a->p0, hi = a->p0 + a->np - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (a->blk[mid] <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* result() of kernels that change the data in place. */
static inline const uint8_t *
hpk_result_data(struct hpk_batch *b, uint32_t i)
{
	return b->data + b->off[i];
}

#endif /* HPK_KERNEL_H */
