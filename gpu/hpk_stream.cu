/* SPDX-License-Identifier: BSD-3-Clause
 * The device side of heteroplane's CUDA code: a context per GPU with its
 * preflight line, streams each with pinned host staging and device
 * buffers allocated once, the copies of a batch (one H2D of the packed
 * per-packet arrays, one of the payload, D2H of only what the kernel
 * changes, as its descriptor says), the launch through the kernel's
 * descriptor, completion by polling the stream, tables and kernel scratch
 * allocated once when uploaded (nothing allocated or freed per batch),
 * the calling thread bound to the context's GPU, and the timing the bench
 * uses. Kernel-specific code lives
 * in the kernels' files (lib/task/<name>/<name>.cu).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include <unistd.h>

#include "hpk_move.cuh"
#include "hpk_priv.h"

#define MINU(a, b) ((a) < (b) ? (a) : (b))

#define CK(call) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { \
		snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_)); \
		return -EIO; \
	} } while (0)

/* The context's GPU on the calling thread: cudaSetDevice once per thread
 * (the device lcore is not the thread that opened the context, and the
 * runtime's current device is per thread, so cuda:N with N > 0 needs it). */
static __thread int cur_dev = -1;

static cudaError_t
bind(struct hpk_ctx *c, uint64_t *count)
{
	cudaError_t e;

	if (cur_dev == c->dev)
		return cudaSuccess;
	if (count != NULL)
		(*count)++;
	e = cudaSetDevice(c->dev);
	if (e == cudaSuccess)
		cur_dev = c->dev;
	return e;
}

static int
alloc_batch(struct hpk_stream *s, uint32_t np, uint32_t nb, char *err, size_t errlen)
{
	struct hpk_batch *h = &s->h, *d = &s->d;
	size_t ctl = hpk_pack(h, NULL, np);

	/* +16: the last block of a packet may be read whole. */
	/* mapped: the scatter writes the checksum sums into it */
	CK(cudaHostAlloc((void **)&s->ctl_h, ctl, cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&s->ctl_hd, s->ctl_h, 0));
	CK(cudaMalloc((void **)&s->ctl_d, ctl));
	hpk_pack(h, s->ctl_h, np);
	hpk_pack(d, s->ctl_d, np);
	CK(cudaHostAlloc((void **)&h->data, nb + 16, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->digest, 16ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->aux, nb + 16, cudaHostAllocDefault));
	CK(cudaMalloc((void **)&d->data, nb + 16));
	CK(cudaMalloc((void **)&d->digest, 16ull * np));
	CK(cudaMalloc((void **)&d->aux, nb + 16));
	return 0;
}

static void
free_batch(struct hpk_stream *s)
{
	cudaFreeHost(s->ctl_h);
	cudaFreeHost(s->h.data);
	cudaFreeHost(s->h.digest);
	cudaFreeHost(s->h.aux);
	cudaFree(s->ctl_d);
	cudaFree(s->d.data);
	cudaFree(s->d.digest);
	cudaFree(s->d.aux);
}

extern "C" void
hpk_close(struct hpk_ctx *c)
{
	if (c == NULL)
		return;
	if (c->emul) {
		hpk_emul_close(c);
		return;
	}
	bind(c, NULL);
	for (unsigned int i = 0; c->s != NULL && i < c->n; i++) {
		if (c->s[i].st != NULL)
			cudaStreamSynchronize(c->s[i].st);
		free_batch(&c->s[i]);
		cudaFree(c->s[i].scr.p);
		if (c->s[i].st != NULL)
			cudaStreamDestroy(c->s[i].st);
	}
	hpk_slots_close(c);
	for (unsigned int i = 0; i < c->n_mem; i++)
		if (c->mem[i].owned)
			cudaHostUnregister((void *)c->mem[i].lo);
	free(c->mem);
	free(c->s);
	free(c);
}

static int
open_inner(struct hpk_ctx *c, char *info, size_t infolen, char *err, size_t errlen)
{
	struct cudaDeviceProp pr;
	int ndev = 0, drv = 0, rt = 0;

	CK(cudaGetDeviceCount(&ndev));
	if (c->dev >= ndev) {
		snprintf(err, errlen, "GPU %d requested, %d present", c->dev, ndev);
		return -ENODEV;
	}
	CK(bind(c, NULL));
	CK(cudaGetDeviceProperties(&pr, c->dev));
	CK(cudaDriverGetVersion(&drv));
	CK(cudaRuntimeGetVersion(&rt));
	c->engines = (unsigned int)pr.asyncEngineCount;
	snprintf(info, infolen,
		 "GPU %d: %s (sm_%d%d, %d SMs, %.1f GiB, %d copy engine(s)), driver CUDA %d.%d, runtime %d.%d, PCI %04x:%02x:%02x",
		 c->dev, pr.name, pr.major, pr.minor, pr.multiProcessorCount,
		 (double)pr.totalGlobalMem / (1u << 30), pr.asyncEngineCount, drv / 1000,
		 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, pr.pciDomainID, pr.pciBusID,
		 pr.pciDeviceID);
	c->s = (struct hpk_stream *)calloc(c->n, sizeof(*c->s));
	if (c->s == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->n; i++) {
		int ret;

		CK(cudaStreamCreateWithFlags(&c->s[i].st, cudaStreamNonBlocking));
		ret = alloc_batch(&c->s[i], c->cap_pkts, c->cap_bytes, err, errlen);
		if (ret < 0)
			return ret;
	}
	return hpk_slots_open(c, err, errlen);
}

extern "C" int
hpk_open(struct hpk_ctx **ctx, int dev, unsigned int nstreams, uint32_t cap_pkts,
	 uint32_t cap_bytes, char *info, size_t infolen, char *err, size_t errlen)
{
	struct hpk_ctx *c = (struct hpk_ctx *)calloc(1, sizeof(*c));
	int ret;

	if (c == NULL)
		return -ENOMEM;
	c->dev = dev;
	c->n = nstreams ? nstreams : 1;
	c->cap_pkts = cap_pkts;
	c->cap_bytes = cap_bytes;
	ret = open_inner(c, info, infolen, err, errlen);
	if (ret < 0) {
		hpk_close(c);
		return ret;
	}
	*ctx = c;
	return 0;
}

extern "C" int
hpk_ctx_gpu(const struct hpk_ctx *c)
{
	return c->dev;
}

extern "C" unsigned int
hpk_copy_engines(const struct hpk_ctx *c)
{
	return c->emul ? 0 : c->engines;
}

extern "C" struct hpk_batch *
hpk_host(struct hpk_ctx *c, unsigned int s)
{
	return &c->s[s].h;
}

/* Grows every stream's scratch to need bytes: when a table is uploaded,
 * never on the launch path. */
static int
scratch_grow(struct hpk_ctx *c, size_t need, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < c->n; i++) {
		struct hpk_scratch *s = &c->s[i].scr;

		if (need <= s->cap)
			continue;
		CK(cudaFree(s->p));
		s->p = NULL;
		s->cap = 0;
		CK(cudaMalloc(&s->p, need));
		s->cap = need;
	}
	return 0;
}

extern "C" int
hpk_table(struct hpk_ctx *c, const struct hpk_kernel *k, const void *blob, size_t len,
	  char *err, size_t errlen)
{
	struct hpk_kslot *ks = hpk_slot(c, k);
	int ret;

	if (ks == NULL || blob == NULL || len == 0 || ks->tab != NULL) {
		snprintf(err, errlen, "kernel %s: %s", k->name,
			 ks != NULL && ks->tab != NULL ? "table already uploaded" : "no table");
		return -EINVAL;
	}
	if (!c->emul) {
		CK(bind(c, NULL));
		CK(cudaMalloc(&ks->d_tab, len));
		CK(cudaMemcpy(ks->d_tab, blob, len, cudaMemcpyHostToDevice));
	}
	ks->tab = blob;
	ks->tab_len = len;
	if (k->table != NULL && (ret = k->table(ks, err, errlen)) < 0) {
		/* a slot without a table refuses launches */
		if (ks->d_tab != NULL)
			cudaFree(ks->d_tab);
		ks->d_tab = NULL;
		ks->tab = NULL;
		return ret;
	}
	if (!c->emul && k->scratch != NULL &&
	    (ret = scratch_grow(c, k->scratch(ks, c->cap_bytes), err, errlen)) < 0)
		return ret;
	return 0;
}

extern "C" int
hpk_mem_register(struct hpk_ctx *c, void *addr, size_t len, char *err, size_t errlen)
{
	const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uint8_t *lo, *hi;
	void *dp = NULL;
	cudaError_t e;
	int owned = 1;

	if (c->emul) {
		lo = (uint8_t *)addr;
		if (hpk_mem_add(c, lo, lo + len, 0, 0) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	/* whole pages: the GPU maps pages, and the gather reads aligned
	 * words that may reach past a chunk's ends within its pages */
	lo = (uint8_t *)((uintptr_t)addr & ~(pg - 1));
	hi = (uint8_t *)(((uintptr_t)addr + len + pg - 1) & ~(pg - 1));
	/* a page the previous chunk's range took already (chunks need not
	 * end on page boundaries): start after it */
	for (unsigned int i = 0; i < c->n_mem; i++)
		if (lo >= c->mem[i].lo && lo < c->mem[i].hi)
			lo = (uint8_t *)c->mem[i].hi;
	if (lo >= hi)
		return 0;
	CK(bind(c, NULL));
	e = cudaHostRegister(lo, (size_t)(hi - lo), cudaHostRegisterMapped | cudaHostRegisterPortable);
	if (e == cudaErrorHostMemoryAlreadyRegistered) {
		/* by someone else in this process: usable only if it covers
		 * the whole range, which the device pointers of both ends
		 * show */
		cudaGetLastError();
		owned = 0;
		if (cudaHostGetDevicePointer(&dp, hi - 1, 0) != cudaSuccess) {
			cudaGetLastError();
			snprintf(err, errlen, "memory partly registered elsewhere");
			return -EBUSY;
		}
	} else if (e != cudaSuccess) {
		cudaGetLastError();
		snprintf(err, errlen, "cudaHostRegister(%zu bytes): %s", (size_t)(hi - lo),
			 cudaGetErrorString(e));
		return -EIO;
	}
	e = cudaHostGetDevicePointer(&dp, lo, 0);
	if (e != cudaSuccess || hpk_mem_add(c, lo, hi, (int64_t)((uintptr_t)dp - (uintptr_t)lo),
					    owned) < 0) {
		snprintf(err, errlen, "cudaHostGetDevicePointer: %s", cudaGetErrorString(e));
		if (owned)
			cudaHostUnregister(lo);
		return -EIO;
	}
	return 0;
}

/* The gather: a warp per packet whose src is set, lane l of a pass
 * writing output chunk base + l (hpk_move.cuh). Each host word crosses
 * PCIe once: a lane takes word j + 1 from the next lane, the last lane
 * loads it itself. src == 0 (staged) and p >= n are warp-uniform, so the
 * shuffles see the whole warp. Cost not measured on a GPU yet. */
__global__ void
k_gather(const uint64_t *src, const uint32_t *off, const uint32_t *len, uint8_t *data,
	 uint32_t n)
{
	const uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const uint32_t lane = threadIdx.x & 31;
	uint64_t a;
	uint32_t l, nw, nc;
	uint4 *out;

	if (p >= n || src[p] == 0)
		return;
	a = src[p];
	l = len[p];
	nw = hpk_gather_words(a, l);
	nc = hpk_gather_chunks(l);
	out = (uint4 *)(data + off[p]);
	for (uint32_t base = 0; base < nc; base += 32) {
		const uint32_t j = base + lane;
		uint4 w = hpk_gather_load(a, nw, j), w1;

		w1.x = __shfl_down_sync(0xffffffffu, w.x, 1);
		w1.y = __shfl_down_sync(0xffffffffu, w.y, 1);
		w1.z = __shfl_down_sync(0xffffffffu, w.z, 1);
		w1.w = __shfl_down_sync(0xffffffffu, w.w, 1);
		if (lane == 31)
			w1 = hpk_gather_load(a, nw, j + 1);
		if (j < nc)
			out[j] = hpk_gather_chunk(a, l, j, w, w1);
	}
}

/* The scatter (the in-place commit): a warp per packet whose dst is set,
 * lane l writing host words l, l + 32, ... of the packet's region
 * (hpk_move.cuh), then every lane fences (system scope: the stores reach
 * host memory in order) and lane 0 writes the mark. Reads of the output
 * stay on the device; only the result crosses PCIe, as posted writes.
 * Cost not measured on a GPU yet. */
__global__ void
k_scatter(const uint64_t *dst, const uint64_t *mark, uint32_t mark_val, const uint32_t *off,
	  const uint32_t *len, const uint8_t *base, uint32_t ob, uint32_t *hsum, uint32_t n)
{
	const uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	const uint32_t lane = threadIdx.x & 31;
	const uint8_t *r;
	uint32_t l, sum = 0;
	uint64_t a;

	if (p >= n || dst[p] == 0)
		return;
	a = dst[p];
	r = hpk_out_region(base, off, len, ob, p, &l);
	for (uint32_t j = lane; j < hpk_gather_words(a, l); j += 32)
		sum += hpk_scatter_word(a, l, r, j);
	/* the lanes' sums (each < 2^21: no overflow over 32 lanes) */
	for (int d = 16; d > 0; d /= 2)
		sum += __shfl_down_sync(0xffffffffu, sum, d);
	__threadfence_system();
	__syncwarp();
	if (lane == 0) {
		if (ob == UINT32_MAX)
			hsum[p] = hpk_fold16(sum, 0);
		__threadfence_system();
		*(volatile uint8_t *)(uintptr_t)mark[p] = (uint8_t)mark_val;
	}
}

/* Bytes [lo, hi) of the staging that packets [p0, p0+np) occupy. */
static void
span(const struct hpk_batch *h, uint32_t p0, uint32_t np, uint32_t *lo, uint32_t *hi)
{
	uint32_t last = p0 + np - 1;

	*lo = h->off[p0];
	*hi = h->off[last] + (h->len[last] + 15) / 16 * 16;
}

/* H2D of packets [p0, p0+np) of stream s's batch: their payload range and
 * what the kernel reads. */
static cudaError_t
h2d(struct hpk_stream *s, const struct hpk_kernel *k, uint32_t p0, uint32_t np,
    bool with_keys, cudaStream_t st)
{
	struct hpk_batch *h = &s->h, *d = &s->d;
	uint32_t lo, hi;
	cudaError_t e;

	span(h, p0, np, &lo, &hi);
	e = cudaMemcpyAsync(d->data + lo, h->data + lo, hi - lo, cudaMemcpyHostToDevice, st);
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(d->off + p0, h->off + p0, 4ull * np, cudaMemcpyHostToDevice, st);
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(d->len + p0, h->len + p0, 4ull * np, cudaMemcpyHostToDevice, st);
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(d->blk + p0, h->blk + p0, 4ull * (np + 1), cudaMemcpyHostToDevice, st);
	if (e == cudaSuccess && (k->flags & HPK_KEYED)) {
		e = cudaMemcpyAsync(d->ctr + 4 * p0, h->ctr + 4 * p0, 16ull * np,
				    cudaMemcpyHostToDevice, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(d->key_idx + p0, h->key_idx + p0, 4ull * np,
					    cudaMemcpyHostToDevice, st);
		if (e == cudaSuccess && with_keys)
			e = cudaMemcpyAsync(d->rk, h->rk, 4ull * HPK_KEY_WORDS * h->n_keys,
					    cudaMemcpyHostToDevice, st);
	}
	if (e == cudaSuccess && (k->flags & HPK_ZERO_MATCH))
		e = cudaMemsetAsync(d->match + 2 * p0, 0, 8ull * np, st);
	return e;
}

static cudaError_t
kernel(struct hpk_ctx *c, struct hpk_stream *s, const struct hpk_kernel *k, uint32_t p0,
       uint32_t np, cudaStream_t st)
{
	struct hpk_run r;

	if (np == 0)
		return cudaSuccess;
	r.ks = hpk_slot(c, k);
	if (r.ks == NULL || ((k->flags & HPK_TABLE) && r.ks->d_tab == NULL))
		return cudaErrorInvalidValue; /* no table uploaded */
	r.a = hpk_args(&s->d, p0, np);
	r.h = &s->h;
	r.scr = &s->scr;
	r.st = st;
	return k->launch(&r);
}

/* D2H only of what the kernel changed. */
static cudaError_t
d2h(struct hpk_stream *s, const struct hpk_kernel *k, uint32_t p0, uint32_t np,
    cudaStream_t st)
{
	struct hpk_batch *h = &s->h, *d = &s->d;
	cudaError_t e = cudaSuccess;
	uint32_t lo, hi;

	span(h, p0, np, &lo, &hi);
	if (k->flags & HPK_OUT_DATA)
		e = cudaMemcpyAsync(h->data + lo, d->data + lo, hi - lo, cudaMemcpyDeviceToHost, st);
	if (e == cudaSuccess && (k->flags & HPK_OUT_AUX))
		e = cudaMemcpyAsync(h->aux + lo, d->aux + lo, hi - lo, cudaMemcpyDeviceToHost, st);
	if (e == cudaSuccess && (k->flags & HPK_OUT_DIGEST))
		e = cudaMemcpyAsync(h->digest + 16 * p0, d->digest + 16 * p0, 16ull * np,
				    cudaMemcpyDeviceToHost, st);
	if (e == cudaSuccess && (k->flags & HPK_OUT_MATCH))
		e = cudaMemcpyAsync(h->match + 2 * p0, d->match + 2 * p0, 8ull * np,
				    cudaMemcpyDeviceToHost, st);
	return e;
}

/* A call of the batch path: counted, and issued on a GPU (the emulation
 * counts what a GPU would get). */
#define OP(call) do { \
	c->calls.launch++; \
	if (!c->emul) \
		CK(call); \
	} while (0)

extern "C" int
hpk_launch(struct hpk_ctx *c, unsigned int si, const struct hpk_kernel *k, char *err,
	   size_t errlen)
{
	struct hpk_stream *s = &c->s[si];
	struct hpk_batch *h = &s->h, *d = &s->d;
	uint32_t lo, hi;

	if (h->n == 0)
		return 0;
	if (!c->emul)
		CK(bind(c, &c->calls.launch));
	c->calls.batches++;
	/* zeroed here, so the upload carries it: no memset call */
	if (k->flags & HPK_ZERO_MATCH)
		memset(h->match, 0, 8ull * h->n);
	/* one copy of the per-packet arrays and keys (hpk_pack's order) */
	OP(cudaMemcpyAsync(s->ctl_d, s->ctl_h, hpk_upload_bytes(h, s->ctl_h, k->flags),
			   cudaMemcpyHostToDevice, s->st));
	span(h, 0, h->n, &lo, &hi);
	if (h->n_staged)
		OP(cudaMemcpyAsync(d->data + lo, h->data + lo, hi - lo, cudaMemcpyHostToDevice,
				   s->st));
	/* after the staged copy: it also covers the gathered packets' slots */
	if (h->n_src) {
		c->calls.launch++;
		c->calls.gathered += h->n_src;
		if (c->emul) {
			int ret = hpk_emul_gather(c, si, err, errlen);

			if (ret < 0)
				return ret;
		} else {
			k_gather<<<(h->n + 3) / 4, 128, 0, s->st>>>(d->src, d->off, d->len, d->data,
								      h->n);
			CK(cudaGetLastError());
		}
	}
	c->calls.launch++;
	if (c->emul) {
		int ret = hpk_emul_launch(c, si, k, err, errlen);

		if (ret < 0)
			return ret;
	} else {
		CK(kernel(c, s, k, 0, h->n, s->st));
	}
	/* in place: the results straight into the mbufs */
	if (h->n_dst) {
		const uint32_t ob = hpk_kernel_out_bytes(k);

		c->calls.launch++;
		c->calls.scattered += h->n_dst;
		if (c->emul) {
			int ret = hpk_emul_scatter(c, si, k, err, errlen);

			if (ret < 0)
				return ret;
		} else {
			/* the sums go straight into the pinned control buffer,
			 * mapped for the device */
			uint32_t *hsum = (uint32_t *)(s->ctl_hd + ((uint8_t *)h->sum - s->ctl_h));

			k_scatter<<<(h->n + 3) / 4, 128, 0, s->st>>>(d->dst, d->mark, h->mark_val,
								       d->off, d->len,
								       hpk_out_base(d, ob), ob, hsum,
								       h->n);
			CK(cudaGetLastError());
		}
		/* every result went in place: nothing comes back by copy */
		if (h->n_dst == h->n_src + h->n_staged)
			return 0;
	}
	if (k->flags & HPK_OUT_DATA)
		OP(cudaMemcpyAsync(h->data + lo, d->data + lo, hi - lo, cudaMemcpyDeviceToHost,
				   s->st));
	if (k->flags & HPK_OUT_AUX)
		OP(cudaMemcpyAsync(h->aux + lo, d->aux + lo, hi - lo, cudaMemcpyDeviceToHost,
				   s->st));
	if (k->flags & HPK_OUT_DIGEST)
		OP(cudaMemcpyAsync(h->digest, d->digest, 16ull * h->n, cudaMemcpyDeviceToHost,
				   s->st));
	if (k->flags & HPK_OUT_MATCH)
		OP(cudaMemcpyAsync(h->match, d->match, 8ull * h->n, cudaMemcpyDeviceToHost,
				   s->st));
	return 0;
}

extern "C" int
hpk_query(struct hpk_ctx *c, unsigned int si, char *err, size_t errlen)
{
	cudaError_t e;

	c->calls.poll++;
	if (c->emul)
		return 1;
	e = bind(c, &c->calls.poll);
	if (e == cudaSuccess)
		e = cudaStreamQuery(c->s[si].st);
	if (e == cudaSuccess)
		return 1;
	if (e == cudaErrorNotReady)
		return 0;
	snprintf(err, errlen, "cudaStreamQuery: %s", cudaGetErrorString(e));
	return -EIO;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

extern "C" double
hpk_time_kernel(struct hpk_ctx *c, unsigned int si, const struct hpk_kernel *k,
		unsigned int iters)
{
	struct hpk_stream *s = &c->s[si];
	cudaEvent_t a, b;
	float ms = 0;

	if (cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess)
		return -1;
	if ((k->flags & HPK_ZERO_MATCH) &&
	    cudaMemsetAsync(s->d.match, 0, 8ull * s->h.n, s->st) != cudaSuccess)
		return -1;
	if (kernel(c, s, k, 0, s->h.n, s->st) != cudaSuccess) /* warm-up */
		return -1;
	cudaEventRecord(a, s->st);
	for (unsigned int i = 0; i < iters; i++) {
		/* the match words count (LDPC's good units, the DFA's chunk
		 * tickets): zeroed before every run, as the upload does */
		if (k->flags & HPK_ZERO_MATCH)
			cudaMemsetAsync(s->d.match, 0, 8ull * s->h.n, s->st);
		kernel(c, s, k, 0, s->h.n, s->st);
	}
	cudaEventRecord(b, s->st);
	if (cudaEventSynchronize(b) != cudaSuccess || cudaGetLastError() != cudaSuccess)
		return -1;
	cudaEventElapsedTime(&ms, a, b);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return (double)ms / 1e3 / iters;
}

extern "C" double
hpk_time_e2e(struct hpk_ctx *c, const struct hpk_kernel *k, unsigned int iters)
{
	struct hpk_stream *s0 = &c->s[0];
	uint32_t n = s0->h.n, per = (n + c->n - 1) / c->n;
	double t;

	if (n == 0 || cudaDeviceSynchronize() != cudaSuccess)
		return -1;
	/* Flow keys stay resident on the GPU (a deployment keeps its key
	 * table there); each chunk copies payload and per-packet fields. */
	if ((k->flags & HPK_KEYED) &&
	    cudaMemcpy(s0->d.rk, s0->h.rk, 4ull * HPK_KEY_WORDS * s0->h.n_keys,
		       cudaMemcpyHostToDevice) != cudaSuccess)
		return -1;
	t = now_s();
	for (unsigned int it = 0; it < iters; it++) {
		if (c->engines <= 1) {
			/* one copy engine: breadth first, so copies of chunk
			 * k+1 queue behind copies of chunk k while kernels
			 * run (Weerasinghe's pattern B) */
			for (unsigned int j = 0; j < c->n && j * per < n; j++)
				h2d(s0, k, j * per, MINU(per, n - j * per), false, c->s[j].st);
			for (unsigned int j = 0; j < c->n && j * per < n; j++)
				kernel(c, s0, k, j * per, MINU(per, n - j * per), c->s[j].st);
			for (unsigned int j = 0; j < c->n && j * per < n; j++)
				d2h(s0, k, j * per, MINU(per, n - j * per), c->s[j].st);
		} else {
			/* separate H2D and D2H engines: depth first per stream
			 * (pattern C) */
			for (unsigned int j = 0; j < c->n && j * per < n; j++) {
				uint32_t m = MINU(per, n - j * per);

				h2d(s0, k, j * per, m, false, c->s[j].st);
				kernel(c, s0, k, j * per, m, c->s[j].st);
				d2h(s0, k, j * per, m, c->s[j].st);
			}
		}
	}
	if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess)
		return -1;
	return (now_s() - t) / iters;
}

extern "C" int
hpk_pcie_bw(struct hpk_ctx *c, size_t bytes, double *h2d_bw, double *d2h_bw)
{
	void *h = NULL, *d = NULL;
	double t;
	int ret = -EIO;

	if (cudaHostAlloc(&h, bytes, cudaHostAllocDefault) != cudaSuccess ||
	    cudaMalloc(&d, bytes) != cudaSuccess)
		goto out;
	cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice); /* warm-up */
	t = now_s();
	for (int i = 0; i < 10; i++)
		cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, c->s[0].st);
	if (cudaStreamSynchronize(c->s[0].st) != cudaSuccess)
		goto out;
	*h2d_bw = 10.0 * bytes / (now_s() - t);
	t = now_s();
	for (int i = 0; i < 10; i++)
		cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, c->s[0].st);
	if (cudaStreamSynchronize(c->s[0].st) != cudaSuccess)
		goto out;
	*d2h_bw = 10.0 * bytes / (now_s() - t);
	ret = 0;
out:
	cudaFreeHost(h);
	cudaFree(d);
	return ret;
}
