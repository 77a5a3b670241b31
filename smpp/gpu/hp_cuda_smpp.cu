/* SPDX-License-Identifier: BSD-3-Clause
 * SMPP batch decoding on the GPU (Weerasinghe 2017, 3.3.3, ch. 4): the
 * kernels (speculative boundary marking, its resolution, the frames, the
 * decoding) as __host__ __device__ per-thread code, the stream pipeline
 * behind the library's gpu and gpu-fused modes, and a host emulation that
 * runs the same per-thread code with the same block/thread numbering
 * (hp_cuda_smpp.h).
 *
 * The per-PDU decoder and the framing step function are the CPU's own
 * (smpp_decode.h), with C-strings measured and end markers found byte by
 * byte where the CPU uses its NUL window and memmem.
 *
 * Tables: the library's PDU and TLV tables and their indexes are copied at
 * init (smpp_priv.h) into 9.3 KiB of constant memory: most warps decode
 * the same PDU type (the thesis mix is all submit_sm), so their table
 * reads are broadcasts; the field lists (4 KiB) go to global memory, read
 * through the descs' pointers (cached as well).
 *
 * Records: each thread writes a whole struct smpp_pdu. Its two pointer
 * fields carry integers on the device (pdu: the PDU's input offset, desc:
 * 1 + the PDU's table index) and are made pointers on the host when the
 * records come back, in the same pass that copies them into the batch.
 *
 * Cost note: the emulation runs either mode end to end at ~3 M thesis-mix
 * PDUs/s (100k-PDU element batch, best of 3, bench_smpp_gpu --emul on the
 * shared 2-vCPU VM): a correctness harness, not a speed. GPU figures:
 * bench/results/smpp_gpu-*.md.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

__constant__ struct hpks_tab c_tab;
__device__ struct smpp_field_desc d_fld[HPKS_NFLD];
static struct hpks_tab h_tab;        /* the emulation's copies */
static struct smpp_field_desc h_fld[HPKS_NFLD];
static int h_tab_rc = 1;             /* 1: not built yet, else build_tab's */

#ifdef __CUDA_ARCH__
#define TAB c_tab
#else
#define TAB h_tab
#endif

/* The decoder's view of TAB. */
HD static inline struct smpp_dec_tab
k_tab(void)
{
	struct smpp_dec_tab t = { TAB.pdu_idx, TAB.pdu, TAB.tlv_idx, TAB.tlv };

	return t;
}

/* A copy of the library's tables into t and fld, the descs' field
 * pointers made for fld_at, where fld will be read (the GPU's d_fld, or
 * fld itself). */
static int
build_tab(struct hpks_tab *t, struct smpp_field_desc *fld,
	  const struct smpp_field_desc *fld_at)
{
	unsigned nf = 0, nt = smpp_tlv_desc_count();

	memset(t, 0, sizeof(*t));
	memset(fld, 0, HPKS_NFLD * sizeof(*fld));
	if (smpp_pdu_count > HPKS_NPDU || nt > HPKS_NTLV)
		return -E2BIG;
	memcpy(t->pdu_idx, smpp_pdu_idx, sizeof(t->pdu_idx));
	memcpy(t->tlv_idx, smpp_tlv_idx, sizeof(t->tlv_idx));
	for (unsigned i = 0; i < smpp_pdu_count; i++) {
		const struct smpp_pdu_desc *d = &smpp_pdu_tab[i];

		if (nf + d->nfields > HPKS_NFLD)
			return -E2BIG;
		t->pdu[i] = *d;
		t->pdu[i].name = NULL;
		t->pdu[i].fields = &fld_at[nf];
		for (unsigned k = 0; k < d->nfields; k++) {
			fld[nf + k] = d->fields[k];
			fld[nf + k].name = NULL;
		}
		nf += d->nfields;
	}
	for (unsigned i = 0; i < nt; i++) {
		t->tlv[i] = smpp_tlv_tab[i];
		t->tlv[i].name = NULL;
	}
	return 0;
}

/* The tables are the library's constants: built once (under g_lock). */
static int
tab_ready(void)
{
	if (h_tab_rc == 1)
		h_tab_rc = build_tab(&h_tab, h_fld, h_fld);
	return h_tab_rc;
}

/* ---- per-thread code: boundary marking ---------------------------------- */

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

/* The CPU's step function (smpp_decode.h), its end markers found byte by
 * byte where the CPU uses memmem. */
HD static inline void
k_frame_at(const struct hpks_fcfg *c, const uint8_t *in, uint64_t pos, struct smpp_frame *f)
{
	smpp_frame_at(&c->cfg, in, c->len, pos, f, NULL);
}

HD static inline int
k_plausible(const struct hpks_fcfg *c, const uint8_t *in, uint64_t pos)
{
	struct smpp_dec_tab t = k_tab();

	return smpp_plausible(&c->cfg, &t, in, c->len, pos, NULL);
}

HD static inline uint64_t
k_chunk_end(const struct hpks_fcfg *c, uint32_t t, uint64_t csz)
{
	uint64_t e = (uint64_t)t * csz + csz;

	return e < c->len ? e : c->len;
}

/* Counts the elements of the walk from pos while it stays before end;
 * returns where it leaves. */
HD static uint64_t
k_walk_count(const struct hpks_fcfg *c, const uint8_t *in, uint64_t pos, uint64_t end,
	     uint32_t *n)
{
	struct smpp_frame f;

	*n = 0;
	while (pos < end) {
		k_frame_at(c, in, pos, &f);
		(*n)++;
		pos = f.next;
	}
	return pos;
}

/* Marking kernel, thread t: speculative walk of chunk t from its first
 * plausible element start (chunk 0: from 0). sig: that start or SMPP_NOPOS,
 * ex: where the walk leaves the chunk, cnt: elements on the way. */
HD static void
k_mark_thread(const struct hpks_fcfg *c, const uint8_t *in, uint32_t t, uint32_t nchunks,
	      uint64_t csz, uint64_t *sig, uint64_t *ex, uint32_t *cnt)
{
	uint64_t p = (uint64_t)t * csz, e;

	if (t >= nchunks)
		return;
	e = k_chunk_end(c, t, csz);
	if (t != 0)
		while (p < e && !k_plausible(c, in, p))
			p++;
	if (p >= e) {
		sig[t] = SMPP_NOPOS;
		ex[t] = SMPP_NOPOS;
		cnt[t] = 0;
		return;
	}
	sig[t] = p;
	ex[t] = k_walk_count(c, in, p, e, &cnt[t]);
}

/*
 * Resolution (one block): is every speculative walk on the true chain?
 * With Q_t = max of ex[] over the earlier chunks that have a start (0 for
 * chunk 0), all walks are right iff every chunk with a start has
 * sig == Q_t and every chunk without one has Q_t >= its end (an element
 * spans it); then chunk t's elements are numbered from the exclusive sum of
 * cnt[]. By induction on t: Q_t is then the chain's first position at or
 * after chunk t's start. Both scans are Hillis-Steele steps over the block.
 * If a check fails, one thread follows the chain sequentially (k_resolve_seq).
 */
#define RES_B 1024

HD static inline void
k_res_load(uint32_t t, uint32_t nchunks, const uint64_t *sig, const uint64_t *ex,
	   const uint32_t *cnt, uint64_t *m, uint64_t *s)
{
	*m = t < nchunks && sig[t] != SMPP_NOPOS ? ex[t] : 0;
	*s = t < nchunks ? cnt[t] : 0;
}

HD static inline void
k_res_step(const uint64_t *im, const uint64_t *is, uint64_t *om, uint64_t *os, uint32_t tid,
	   uint32_t d)
{
	uint64_t m = im[tid], s = is[tid];

	if (tid >= d) {
		m = m > im[tid - d] ? m : im[tid - d];
		s += is[tid - d];
	}
	om[tid] = m;
	os[tid] = s;
}

/* Returns 0 when chunk t breaks the speculation. */
HD static inline int
k_res_check(const struct hpks_fcfg *c, uint32_t t, uint32_t nchunks, uint64_t csz,
	    const uint64_t *sig, uint64_t carry_m, uint64_t carry_s, const uint64_t *m,
	    const uint64_t *s, uint32_t tid, uint64_t *start, uint64_t *base)
{
	uint64_t q = carry_m, b = carry_s;

	if (t >= nchunks)
		return 1;
	if (tid > 0) {
		q = q > m[tid - 1] ? q : m[tid - 1];
		b += s[tid - 1];
	}
	start[t] = sig[t];
	base[t] = b;
	return sig[t] != SMPP_NOPOS ? q == sig[t] : q >= k_chunk_end(c, t, csz);
}

/* The chain followed chunk by chunk; a chunk whose speculative start is not
 * where the chain enters it is walked again from there. Returns the count. */
HD static uint64_t
k_resolve_seq(const struct hpks_fcfg *c, const uint8_t *in, uint32_t nchunks, uint64_t csz,
	      const uint64_t *sig, const uint64_t *ex, const uint32_t *cnt, uint64_t *start,
	      uint64_t *base)
{
	uint64_t p = 0, total = 0;

	for (uint32_t t = 0; t < nchunks; t++) {
		uint64_t e = k_chunk_end(c, t, csz);
		uint32_t n;

		base[t] = total;
		if (p >= e) {
			start[t] = SMPP_NOPOS;
			continue;
		}
		start[t] = p;
		if (p == sig[t]) {
			total += cnt[t];
			p = ex[t];
			continue;
		}
		p = k_walk_count(c, in, p, e, &n);
		total += n;
	}
	return total;
}

/* Emit kernel, thread t: writes chunk t's elements from its resolved start
 * as frames, numbered from base[t]. */
HD static void
k_emit_thread(const struct hpks_fcfg *c, const uint8_t *in, uint32_t t, uint32_t nchunks,
	      uint64_t csz, const uint64_t *start, const uint64_t *base, struct hpks_frame *fr)
{
	uint64_t p, e, i;
	struct smpp_frame f;

	if (t >= nchunks || start[t] == SMPP_NOPOS)
		return;
	p = start[t];
	e = k_chunk_end(c, t, csz);
	i = base[t];
	while (p < e) {
		k_frame_at(c, in, p, &f);
		fr[i].off = f.off;
		fr[i].pdu_at = f.off + f.pdu_off;
		fr[i].len = f.len;
		fr[i].err = f.err;
		/* as smpp_batch.c's emit(): no correlation id when nothing
		 * of the element was framed */
		fr[i].corr_len = (uint16_t)(f.err && f.len == 0 ? 0 : f.pdu_off);
		i++;
		p = f.next;
	}
}

/* ---- per-thread code: decode kernel (a block decodes a tile of PDUs) ---- */

#define STAGE_PER_THREAD 160u        /* staged input octets per thread */
#define STAGE_MAX (96u * 1024u)      /* dynamic shared memory cap */

struct hpks_dargs {
	const uint8_t *in;               /* the input, at its own offsets */
	const struct hpks_frame *fr;
	struct smpp_pdu *rec;
	uint32_t p0, np;                 /* PDUs of this launch */
	uint32_t stage_cap;              /* octets of staging per block */
	uint32_t flags;
};

/* Tile `tile` of the launch: PDUs [i0, i1). Returns 1 when their octets
 * (4-byte words w0.. w0 + nw) fit the block's staging area; the block then
 * reads them coalesced into shared memory before decoding, else each thread
 * decodes from global memory. */
HD static inline int
k_tile(const struct hpks_dargs *a, uint32_t tile, uint32_t nb, uint32_t *i0, uint32_t *i1,
       uint64_t *w0, uint32_t *nw)
{
	uint64_t lo, hi, words;

	*i0 = a->p0 + tile * nb;
	*i1 = a->np - tile * nb < nb ? a->p0 + a->np : *i0 + nb;
	lo = a->fr[*i0].pdu_at;
	hi = a->fr[*i1 - 1].pdu_at + a->fr[*i1 - 1].len;
	*w0 = lo / 4;
	words = (hi + 3) / 4 - *w0;
	*nw = 0;
	if (words * 4 > a->stage_cap)
		return 0;
	*nw = (uint32_t)words;
	return 1;
}

HD static inline void
k_stage_thread(const struct hpks_dargs *a, uint32_t *stage, uint64_t w0, uint32_t nw,
	       uint32_t tid, uint32_t nb)
{
	const uint32_t *src = (const uint32_t *)a->in + w0;

	for (uint32_t w = tid; w < nw; w += nb)
		stage[w] = src[w];
}

HD static inline void
k_decode_thread(const struct hpks_dargs *a, const uint32_t *stage, int staged, uint64_t w0,
		uint32_t i)
{
	struct hpks_frame f = a->fr[i];
	struct smpp_pdu *o = &a->rec[i];
	const uint8_t *b = staged ? (const uint8_t *)stage + (f.pdu_at - 4 * w0) : a->in + f.pdu_at;
	struct smpp_dec_tab t = k_tab();

	/* the CPU's decoder, its C-strings measured byte by byte */
	smpp_dec_pdu(b, f.len, a->flags, f.pdu_at, o, &t, NULL, NULL);
	o->desc = (const struct smpp_pdu_desc *)(uintptr_t)(o->desc ? o->desc - t.pdu + 1 : 0);
	o->pdu = (const uint8_t *)(uintptr_t)f.pdu_at;
	o->off = f.off;
	o->corr_off = f.off;
	o->corr_len = f.corr_len;
	if (f.err != ESME_ROK) {
		/* framing error: header fields as far as present */
		o->error = f.err;
		o->error_off = f.pdu_at;
	}
}

/* ---- kernels -------------------------------------------------------------- */

/* __launch_bounds__(1024): any block size the tuner may ask for launches
 * (at most 64 registers a thread, spilled if need be). */
__global__ void __launch_bounds__(1024)
k_decode_kernel(struct hpks_dargs a)
{
	extern __shared__ uint32_t stage[];
	uint32_t nb = blockDim.x, ntiles = (a.np + nb - 1) / nb;

	for (uint32_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
		uint32_t i0, i1, nw;
		uint64_t w0;
		int staged = k_tile(&a, tile, nb, &i0, &i1, &w0, &nw);

		if (staged)
			k_stage_thread(&a, stage, w0, nw, threadIdx.x, nb);
		__syncthreads();
		if (i0 + threadIdx.x < i1)
			k_decode_thread(&a, stage, staged, w0, i0 + threadIdx.x);
		__syncthreads();
	}
}

__global__ void __launch_bounds__(1024)
k_mark_kernel(struct hpks_fcfg c, const uint8_t *in, uint32_t nchunks, uint64_t csz,
	      uint64_t *sig, uint64_t *ex, uint32_t *cnt)
{
	k_mark_thread(&c, in, blockIdx.x * blockDim.x + threadIdx.x, nchunks, csz, sig, ex, cnt);
}

__global__ void __launch_bounds__(RES_B)
k_resolve_kernel(struct hpks_fcfg c, const uint8_t *in, uint32_t nchunks, uint64_t csz,
		 const uint64_t *sig, const uint64_t *ex, const uint32_t *cnt, uint64_t *start,
		 uint64_t *base, uint64_t *total)
{
	__shared__ uint64_t m[2][RES_B], s[2][RES_B];
	__shared__ uint64_t carry_m, carry_s;
	__shared__ int bad;
	uint32_t tid = threadIdx.x;

	if (tid == 0) {
		carry_m = 0;
		carry_s = 0;
		bad = 0;
	}
	__syncthreads();
	for (uint32_t t0 = 0; t0 < nchunks; t0 += RES_B) {
		int cur = 0;

		k_res_load(t0 + tid, nchunks, sig, ex, cnt, &m[0][tid], &s[0][tid]);
		__syncthreads();
		for (uint32_t d = 1; d < RES_B; d <<= 1) {
			k_res_step(m[cur], s[cur], m[cur ^ 1], s[cur ^ 1], tid, d);
			cur ^= 1;
			__syncthreads();
		}
		if (!k_res_check(&c, t0 + tid, nchunks, csz, sig, carry_m, carry_s, m[cur], s[cur],
				 tid, start, base))
			bad = 1;
		__syncthreads();
		if (tid == 0) {
			carry_m = carry_m > m[cur][RES_B - 1] ? carry_m : m[cur][RES_B - 1];
			carry_s += s[cur][RES_B - 1];
		}
		__syncthreads();
	}
	if (tid == 0)
		*total = bad ? k_resolve_seq(&c, in, nchunks, csz, sig, ex, cnt, start, base)
			     : carry_s;
}

__global__ void __launch_bounds__(1024)
k_emit_kernel(struct hpks_fcfg c, const uint8_t *in, uint32_t nchunks, uint64_t csz,
	      const uint64_t *start, const uint64_t *base, struct hpks_frame *fr)
{
	k_emit_thread(&c, in, blockIdx.x * blockDim.x + threadIdx.x, nchunks, csz, start, base, fr);
}

/* ---- the host emulation: the same per-thread code, block by block ------- */

static void
emu_decode(const struct hpks_dargs *a, uint32_t grid, uint32_t nb, uint32_t *stage)
{
	uint32_t ntiles = (a->np + nb - 1) / nb;

	for (uint32_t blk = 0; blk < grid; blk++) {
		for (uint32_t tile = blk; tile < ntiles; tile += grid) {
			uint32_t i0, i1, nw;
			uint64_t w0;
			int staged = k_tile(a, tile, nb, &i0, &i1, &w0, &nw);

			for (uint32_t tid = 0; staged && tid < nb; tid++)
				k_stage_thread(a, stage, w0, nw, tid, nb);
			for (uint32_t tid = 0; tid < nb && i0 + tid < i1; tid++)
				k_decode_thread(a, stage, staged, w0, i0 + tid);
		}
	}
}

static void
emu_mark(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
	 uint32_t nchunks, uint64_t csz, uint64_t *sig, uint64_t *ex, uint32_t *cnt)
{
	for (uint32_t blk = 0; blk < grid; blk++)
		for (uint32_t tid = 0; tid < nb; tid++)
			k_mark_thread(c, in, blk * nb + tid, nchunks, csz, sig, ex, cnt);
}

static int
emu_resolve(const struct hpks_fcfg *c, const uint8_t *in, uint32_t nchunks, uint64_t csz,
	    const uint64_t *sig, const uint64_t *ex, const uint32_t *cnt, uint64_t *start,
	    uint64_t *base, uint64_t *total)
{
	uint64_t *m[2], *s[2], carry_m = 0, carry_s = 0;
	int bad = 0;

	m[0] = (uint64_t *)malloc(4 * RES_B * sizeof(uint64_t));
	if (m[0] == NULL)
		return -ENOMEM;
	m[1] = m[0] + RES_B;
	s[0] = m[1] + RES_B;
	s[1] = s[0] + RES_B;
	for (uint32_t t0 = 0; t0 < nchunks; t0 += RES_B) {
		int cur = 0;

		for (uint32_t tid = 0; tid < RES_B; tid++)
			k_res_load(t0 + tid, nchunks, sig, ex, cnt, &m[0][tid], &s[0][tid]);
		for (uint32_t d = 1; d < RES_B; d <<= 1) {
			for (uint32_t tid = 0; tid < RES_B; tid++)
				k_res_step(m[cur], s[cur], m[cur ^ 1], s[cur ^ 1], tid, d);
			cur ^= 1;
		}
		for (uint32_t tid = 0; tid < RES_B; tid++)
			if (!k_res_check(c, t0 + tid, nchunks, csz, sig, carry_m, carry_s, m[cur],
					 s[cur], tid, start, base))
				bad = 1;
		carry_m = carry_m > m[cur][RES_B - 1] ? carry_m : m[cur][RES_B - 1];
		carry_s += s[cur][RES_B - 1];
	}
	*total = bad ? k_resolve_seq(c, in, nchunks, csz, sig, ex, cnt, start, base) : carry_s;
	free(m[0]);
	return 0;
}

static void
emu_emit(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
	 uint32_t nchunks, uint64_t csz, const uint64_t *start, const uint64_t *base,
	 struct hpks_frame *fr)
{
	for (uint32_t blk = 0; blk < grid; blk++)
		for (uint32_t tid = 0; tid < nb; tid++)
			k_emit_thread(c, in, blk * nb + tid, nchunks, csz, start, base, fr);
}

/* ---- the backend's state: buffers grown on demand, streams -------------- */

struct gbuf {
	void *p;
	size_t cap;
};

struct hpks {
	int emul;
	int dev;
	unsigned engines;
	struct smpp_gpu_launch lc;
	cudaStream_t st[SMPP_GPU_MAX_STREAMS];
	cudaEvent_t ev[SMPP_GPU_MAX_STREAMS];
	/* "device" buffers (host memory in the emulation) */
	struct gbuf d_in, d_fr, d_rec, d_chunk, d_total;
	/* pinned host staging */
	struct gbuf h_in, h_fr, h_rec, h_total;
	uint32_t *emu_stage;            /* the emulation's shared memory */
	char err[256];
};

static struct hpks *g_gpu;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_last_err[256];
static struct smpp_gpu_launch g_launch = { 0, 128, 4 };

#define CK(g, call) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { \
		snprintf((g)->err, sizeof((g)->err), "%s: %s", #call, cudaGetErrorString(e_)); \
		return -EIO; \
	} } while (0)

static void
buf_free(struct hpks *g, struct gbuf *b, int pinned)
{
	if (b->p == NULL)
		return;
	if (g->emul)
		free(b->p);
	else if (pinned)
		cudaFreeHost(b->p);
	else
		cudaFree(b->p);
	b->p = NULL;
	b->cap = 0;
}

/* At least bytes in b (contents not kept), zeroed: a batch that reads
 * past its last PDU (the decode kernel's word staging) reads zeros. */
static int
buf_grow(struct hpks *g, struct gbuf *b, size_t bytes, int pinned)
{
	size_t cap = bytes + bytes / 4 + 256;

	if (b->cap >= bytes)
		return 0;
	buf_free(g, b, pinned);
	if (g->emul) {
		b->p = calloc(1, cap);
		if (b->p == NULL)
			goto nomem;
	} else if (pinned) {
		if (cudaHostAlloc(&b->p, cap, cudaHostAllocDefault) != cudaSuccess)
			goto nomem;
		memset(b->p, 0, cap);
	} else {
		/* the memset runs on the legacy stream, which our non-blocking
		 * streams do not wait for: finish it here */
		if (cudaMalloc(&b->p, cap) != cudaSuccess || cudaMemset(b->p, 0, cap) != cudaSuccess ||
		    cudaDeviceSynchronize() != cudaSuccess)
			goto nomem;
	}
	b->cap = cap;
	return 0;
nomem:
	if (!g->emul) {
		cudaGetLastError(); /* an allocation failure is not sticky: clear it */
		cudaFree(b->p);
	}
	b->p = NULL;
	snprintf(g->err, sizeof(g->err), "cannot allocate %zu bytes of %s memory", cap,
		 g->emul ? "host" : pinned ? "pinned host" : "GPU");
	return -ENOMEM;
}

static int
copy(struct hpks *g, void *dst, const void *src, size_t n, int h2d, unsigned s)
{
	if (n == 0)
		return 0;
	if (g->emul) {
		memcpy(dst, src, n);
		return 0;
	}
	CK(g, cudaMemcpyAsync(dst, src, n, h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
			      g->st[s]));
	return 0;
}

static int
ev_record(struct hpks *g, unsigned s)
{
	if (!g->emul)
		CK(g, cudaEventRecord(g->ev[s], g->st[s]));
	return 0;
}

static int
ev_wait(struct hpks *g, unsigned waiter, unsigned s)
{
	if (!g->emul && waiter != s)
		CK(g, cudaStreamWaitEvent(g->st[waiter], g->ev[s], 0));
	return 0;
}

static int
ev_sync(struct hpks *g, unsigned s)
{
	if (!g->emul)
		CK(g, cudaEventSynchronize(g->ev[s]));
	return 0;
}

static int
launch_decode(struct hpks *g, const struct hpks_dargs *a, unsigned s)
{
	uint32_t nb = g->lc.block, ntiles = (a->np + nb - 1) / nb;
	uint32_t grid = g->lc.grid && g->lc.grid < ntiles ? g->lc.grid : ntiles;
	size_t smem = a->stage_cap;

	if (a->np == 0)
		return 0;
	if (g->emul) {
		emu_decode(a, grid, nb, g->emu_stage);
		return 0;
	}
	k_decode_kernel<<<grid, nb, smem, g->st[s]>>>(*a);
	CK(g, cudaGetLastError());
	return 0;
}

static struct hpks_dargs
dargs(struct hpks *g, const struct smpp_config *cfg, uint32_t p0, uint32_t np)
{
	struct hpks_dargs a;
	uint32_t cap = g->lc.block * STAGE_PER_THREAD;

	a.in = (const uint8_t *)g->d_in.p;
	a.fr = (const struct hpks_frame *)g->d_fr.p;
	a.rec = (struct smpp_pdu *)g->d_rec.p;
	a.p0 = p0;
	a.np = np;
	a.stage_cap = cap < STAGE_MAX ? cap : STAGE_MAX;
	a.flags = cfg->flags;
	return a;
}

/* Records [p0, p0 + n) back into the batch, their pointer fields made
 * pointers. Returns the PDUs with errors. */
static size_t
copy_out(struct hpks *g, const uint8_t *in, struct smpp_batch *out, size_t p0, size_t n)
{
	const struct smpp_pdu *rec = (const struct smpp_pdu *)g->h_rec.p + p0;
	struct smpp_pdu *dst = out->pdus + p0;
	size_t nerr = 0;

	for (size_t i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)rec[i].pdu, di = (uintptr_t)rec[i].desc;

		dst[i] = rec[i];
		dst[i].pdu = in + at;
		dst[i].desc = di ? &smpp_pdu_tab[di - 1] : NULL;
		nerr += dst[i].error != ESME_ROK;
	}
	return nerr;
}

/* Waits for chunk k's records (n PDUs in chunks of per on ns streams) and
 * copies them out while the later chunks still run. */
static int
collect(struct hpks *g, const uint8_t *in, struct smpp_batch *out, size_t n, size_t per,
	unsigned ns)
{
	int rc;

	for (unsigned k = 0; k < ns && k * per < n; k++) {
		size_t p0 = k * per, p1 = p0 + per < n ? p0 + per : n;

		if ((rc = ev_sync(g, k)) < 0)
			return rc;
		out->nerr += copy_out(g, in, out, p0, p1 - p0);
	}
	return 0;
}

static int
batch_room(struct hpks *g, struct smpp_batch *b, size_t n)
{
	struct smpp_pdu *np;

	if (n <= b->cap)
		return 0;
	np = (struct smpp_pdu *)realloc(b->pdus, n * sizeof(*np));
	if (np == NULL) {
		snprintf(g->err, sizeof(g->err), "cannot grow the batch to %zu PDUs", n);
		return -ENOMEM;
	}
	b->pdus = np;
	b->cap = n;
	return 0;
}

static int
room(struct hpks *g, size_t len, size_t n)
{
	int rc;

	/* input padded by 16: the word staging reads up to 3 octets past it */
	if ((rc = buf_grow(g, &g->d_in, len + 16, 0)) < 0 ||
	    (rc = buf_grow(g, &g->h_in, len + 16, 1)) < 0 ||
	    (rc = buf_grow(g, &g->d_fr, n * sizeof(struct hpks_frame), 0)) < 0 ||
	    (rc = buf_grow(g, &g->d_rec, n * sizeof(struct smpp_pdu), 0)) < 0 ||
	    (rc = buf_grow(g, &g->h_rec, n * sizeof(struct smpp_pdu), 1)) < 0)
		return rc;
	return 0;
}

/* Streams actually used for n items. */
static unsigned
nstreams(const struct hpks *g, size_t n)
{
	return n < g->lc.streams ? (unsigned)(n ? n : 1) : g->lc.streams;
}

/* ---- mode gpu: the CPU framed the batch, the GPU decodes it -------------- */

static int
run_framed(struct hpks *g, const struct smpp_config *cfg, const uint8_t *in, size_t len,
	   struct smpp_batch *out)
{
	size_t n = out->n, per;
	unsigned ns = nstreams(g, n);
	/* one copy engine: all H2D first, then kernels, then D2H, so the
	 * copies of chunk k+1 do not queue behind the D2H of chunk k
	 * (Weerasinghe 2.4.4.1 pattern B); two or more: depth first (C).
	 * The emulation plays one engine for odd stream counts and two for
	 * even ones, so the tests run both orders. */
	unsigned engines = g->emul ? 2 - g->lc.streams % 2 : g->engines;
	int breadth = engines <= 1;
	struct hpks_frame *hf;
	int rc;

	out->nerr = 0;
	if (n == 0)
		return 0;
	if (n > UINT32_MAX) {
		snprintf(g->err, sizeof(g->err), "%zu PDUs in one batch (max %u)", n, UINT32_MAX);
		return -E2BIG;
	}
	if ((rc = room(g, len, n)) < 0 ||
	    (rc = buf_grow(g, &g->h_fr, n * sizeof(struct hpks_frame), 1)) < 0)
		return rc;
	hf = (struct hpks_frame *)g->h_fr.p;
	per = (n + ns - 1) / ns;
	for (int phase = 0; phase < (breadth ? 3 : 1); phase++) {
		for (unsigned k = 0; k < ns && k * per < n; k++) {
			size_t p0 = k * per, p1 = p0 + per < n ? p0 + per : n;
			size_t lo = out->pdus[p0].off, hi = p1 < n ? out->pdus[p1].off : len;
			struct hpks_dargs a = dargs(g, cfg, (uint32_t)p0, (uint32_t)(p1 - p0));

			if (!breadth || phase == 0) {
				/* the CPU's frames and the chunk's octets into
				 * pinned staging, then to the GPU */
				for (size_t i = p0; i < p1; i++) {
					const struct smpp_pdu *p = &out->pdus[i];

					hf[i].off = p->off;
					hf[i].pdu_at = (uint64_t)(p->pdu - in);
					hf[i].len = p->len;
					hf[i].err = p->error;
					hf[i].corr_len = p->corr_len;
				}
				memcpy((uint8_t *)g->h_in.p + lo, in + lo, hi - lo);
				if ((rc = copy(g, (uint8_t *)g->d_in.p + lo, (uint8_t *)g->h_in.p + lo,
					       hi - lo, 1, k)) < 0 ||
				    (rc = copy(g, (struct hpks_frame *)g->d_fr.p + p0, hf + p0,
					       (p1 - p0) * sizeof(*hf), 1, k)) < 0)
					return rc;
			}
			if ((!breadth || phase == 1) && (rc = launch_decode(g, &a, k)) < 0)
				return rc;
			if (!breadth || phase == 2) {
				if ((rc = copy(g, (struct smpp_pdu *)g->h_rec.p + p0,
					       (struct smpp_pdu *)g->d_rec.p + p0,
					       (p1 - p0) * sizeof(struct smpp_pdu), 0, k)) < 0 ||
				    (rc = ev_record(g, k)) < 0)
					return rc;
			}
		}
	}
	return collect(g, in, out, n, per, ns);
}

/* ---- mode gpu-fused: marking and decoding on the GPU --------------------- */

static void
fcfg_of(const struct smpp_config *cfg, size_t len, struct hpks_fcfg *c)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	c->len = len;
}

static int
run_fused(struct hpks *g, const struct smpp_config *cfg, const uint8_t *in, size_t len,
	  struct smpp_batch *out)
{
	uint32_t nb = g->lc.block, nchunks, mgrid;
	uint64_t csz, want, n, *sig, *ex, *start, *base;
	uint32_t *cnt;
	unsigned ns = g->lc.streams;
	size_t piece, per;
	struct hpks_fcfg c;
	int rc;

	out->n = 0;
	out->nerr = 0;
	if (len == 0)
		return 0;
	fcfg_of(cfg, len, &c);
	/* chunks: grid x block marking threads, or one per 4 KiB (the thesis
	 * found ~20k marking threads best for 1M PDUs, 4.3.2) */
	want = g->lc.grid ? (uint64_t)g->lc.grid * nb : len / 4096;
	want = want < 1 ? 1 : want > (1u << 22) ? (1u << 22) : want;
	csz = (len + want - 1) / want;
	nchunks = (uint32_t)((len + csz - 1) / csz);
	mgrid = (nchunks + nb - 1) / nb;
	if ((rc = buf_grow(g, &g->d_in, len + 16, 0)) < 0 ||
	    (rc = buf_grow(g, &g->h_in, len + 16, 1)) < 0 ||
	    (rc = buf_grow(g, &g->d_chunk, (size_t)nchunks * 36, 0)) < 0 ||
	    (rc = buf_grow(g, &g->d_total, 8, 0)) < 0 || (rc = buf_grow(g, &g->h_total, 8, 1)) < 0)
		return rc;
	sig = (uint64_t *)g->d_chunk.p;
	ex = sig + nchunks;
	start = ex + nchunks;
	base = start + nchunks;
	cnt = (uint32_t *)(base + nchunks);

	/* the input in `ns` pieces: staging of piece k+1 overlaps the copy
	 * of piece k; marking starts when all are there (a bad element's
	 * resync may read to the end) */
	piece = (len + ns - 1) / ns;
	for (unsigned k = 0; k < ns && k * piece < len; k++) {
		size_t lo = k * piece, m = len - lo < piece ? len - lo : piece;

		memcpy((uint8_t *)g->h_in.p + lo, in + lo, m);
		if ((rc = copy(g, (uint8_t *)g->d_in.p + lo, (uint8_t *)g->h_in.p + lo, m, 1, k)) < 0 ||
		    (rc = ev_record(g, k)) < 0 || (rc = ev_wait(g, 0, k)) < 0)
			return rc;
	}
	if (g->emul) {
		const uint8_t *din = (const uint8_t *)g->d_in.p;

		emu_mark(&c, din, mgrid, nb, nchunks, csz, sig, ex, cnt);
		if ((rc = emu_resolve(&c, din, nchunks, csz, sig, ex, cnt, start, base,
				      (uint64_t *)g->d_total.p)) < 0) {
			snprintf(g->err, sizeof(g->err), "out of memory");
			return rc;
		}
	} else {
		k_mark_kernel<<<mgrid, nb, 0, g->st[0]>>>(c, (const uint8_t *)g->d_in.p, nchunks, csz,
							   sig, ex, cnt);
		CK(g, cudaGetLastError());
		k_resolve_kernel<<<1, RES_B, 0, g->st[0]>>>(c, (const uint8_t *)g->d_in.p, nchunks,
							     csz, sig, ex, cnt, start, base,
							     (uint64_t *)g->d_total.p);
		CK(g, cudaGetLastError());
	}
	/* the one round trip: the PDU count sizes the rest */
	if ((rc = copy(g, g->h_total.p, g->d_total.p, 8, 0, 0)) < 0)
		return rc;
	if (!g->emul)
		CK(g, cudaStreamSynchronize(g->st[0]));
	n = *(uint64_t *)g->h_total.p;
	if (n > UINT32_MAX) {
		snprintf(g->err, sizeof(g->err), "%llu PDUs in one batch (max %u)",
			 (unsigned long long)n, UINT32_MAX);
		return -E2BIG;
	}
	if ((rc = room(g, len, n)) < 0 || (rc = batch_room(g, out, n)) < 0)
		return rc;
	if (g->emul) {
		emu_emit(&c, (const uint8_t *)g->d_in.p, mgrid, nb, nchunks, csz, start, base,
			 (struct hpks_frame *)g->d_fr.p);
	} else {
		k_emit_kernel<<<mgrid, nb, 0, g->st[0]>>>(c, (const uint8_t *)g->d_in.p, nchunks, csz,
							   start, base, (struct hpks_frame *)g->d_fr.p);
		CK(g, cudaGetLastError());
	}
	if ((rc = ev_record(g, 0)) < 0)
		return rc;
	/* decode in `ns` chunks: D2H and the host copy-out of chunk k overlap
	 * the decoding of the later ones */
	ns = nstreams(g, n);
	per = (n + ns - 1) / ns;
	for (unsigned k = 0; k < ns && k * per < n; k++) {
		size_t p0 = k * per, p1 = p0 + per < n ? p0 + per : n;
		struct hpks_dargs a = dargs(g, cfg, (uint32_t)p0, (uint32_t)(p1 - p0));

		if ((rc = ev_wait(g, k, 0)) < 0 || (rc = launch_decode(g, &a, k)) < 0 ||
		    (rc = copy(g, (struct smpp_pdu *)g->h_rec.p + p0, (struct smpp_pdu *)g->d_rec.p + p0,
			       (p1 - p0) * sizeof(struct smpp_pdu), 0, k)) < 0)
			return rc;
	}
	/* the events are recorded after all waits on event 0 are queued */
	for (unsigned k = 0; k < ns && k * per < n; k++)
		if ((rc = ev_record(g, k)) < 0)
			return rc;
	if ((rc = collect(g, in, out, n, per, ns)) < 0)
		return rc;
	out->n = n;
	return 0;
}

/* ---- open / close --------------------------------------------------------- */

static void
hpks_close(struct hpks *g)
{
	if (g == NULL)
		return;
	if (!g->emul)
		cudaSetDevice(g->dev);
	for (unsigned i = 0; !g->emul && i < SMPP_GPU_MAX_STREAMS; i++) {
		if (g->st[i] != NULL)
			cudaStreamSynchronize(g->st[i]);
		if (g->ev[i] != NULL)
			cudaEventDestroy(g->ev[i]);
		if (g->st[i] != NULL)
			cudaStreamDestroy(g->st[i]);
	}
	buf_free(g, &g->d_in, 0);
	buf_free(g, &g->d_fr, 0);
	buf_free(g, &g->d_rec, 0);
	buf_free(g, &g->d_chunk, 0);
	buf_free(g, &g->d_total, 0);
	buf_free(g, &g->h_in, 1);
	buf_free(g, &g->h_fr, 1);
	buf_free(g, &g->h_rec, 1);
	buf_free(g, &g->h_total, 1);
	free(g->emu_stage);
	free(g);
}

/* The tables into constant memory, the field lists into d_fld. */
static int
upload_tab(struct hpks *g)
{
	struct hpks_tab *img;
	struct smpp_field_desc *fld;
	void *at = NULL;
	cudaError_t e;

	CK(g, cudaGetSymbolAddress(&at, d_fld));
	img = (struct hpks_tab *)malloc(sizeof(*img) + HPKS_NFLD * sizeof(*fld));
	if (img == NULL) {
		snprintf(g->err, sizeof(g->err), "out of memory");
		return -ENOMEM;
	}
	fld = (struct smpp_field_desc *)(img + 1);
	/* fits: tab_ready() said so */
	build_tab(img, fld, (const struct smpp_field_desc *)at);
	e = cudaMemcpyToSymbol(c_tab, img, sizeof(*img));
	if (e == cudaSuccess)
		e = cudaMemcpyToSymbol(d_fld, fld, HPKS_NFLD * sizeof(*fld));
	free(img);
	if (e != cudaSuccess) {
		snprintf(g->err, sizeof(g->err), "cannot load the SMPP tables: %s",
			 cudaGetErrorString(e));
		return -EIO;
	}
	return 0;
}

static int
open_gpu(struct hpks *g, char *info, size_t infolen)
{
	struct cudaDeviceProp pr;
	int ndev = 0, drv = 0, rt = 0, rc;

	CK(g, cudaGetDeviceCount(&ndev));
	if (ndev <= g->dev) {
		snprintf(g->err, sizeof(g->err), "GPU %d requested, %d present", g->dev, ndev);
		return -ENODEV;
	}
	CK(g, cudaSetDevice(g->dev));
	CK(g, cudaGetDeviceProperties(&pr, g->dev));
	CK(g, cudaDriverGetVersion(&drv));
	CK(g, cudaRuntimeGetVersion(&rt));
	g->engines = (unsigned)pr.asyncEngineCount;
	snprintf(info, infolen,
		 "GPU %d: %.64s (sm_%d%d, %d SMs, %.1f GiB, %d copy engine(s)), driver CUDA %d.%d, runtime %d.%d",
		 g->dev, pr.name, pr.major, pr.minor, pr.multiProcessorCount,
		 (double)pr.totalGlobalMem / (1u << 30), pr.asyncEngineCount, drv / 1000,
		 (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
	if ((rc = upload_tab(g)) < 0)
		return rc;
	CK(g, cudaFuncSetAttribute(k_decode_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				   STAGE_MAX));
	for (unsigned i = 0; i < SMPP_GPU_MAX_STREAMS; i++) {
		CK(g, cudaStreamCreateWithFlags(&g->st[i], cudaStreamNonBlocking));
		CK(g, cudaEventCreateWithFlags(&g->ev[i], cudaEventDisableTiming));
	}
	return 0;
}

static int
hpks_open(struct hpks **out, int emul, char *info, size_t infolen, char *err, size_t errlen)
{
	struct hpks *g = (struct hpks *)calloc(1, sizeof(*g));
	int rc;

	if (g == NULL)
		return -ENOMEM;
	g->emul = emul;
	rc = tab_ready();
	if (rc < 0) {
		snprintf(err, errlen, "the SMPP tables do not fit the kernels' layout");
		free(g);
		return rc;
	}
	if (emul) {
		g->emu_stage = (uint32_t *)malloc(STAGE_MAX);
		if (g->emu_stage == NULL) {
			free(g);
			return -ENOMEM;
		}
		snprintf(info, infolen, "host emulation of the SMPP GPU kernels (no GPU; for tests)");
	} else if ((rc = open_gpu(g, info, infolen)) < 0) {
		snprintf(err, errlen, "%s", g->err);
		cudaGetLastError();
		hpks_close(g);
		return -ENODEV;
	}
	*out = g;
	return 0;
}

/* ---- the library's backends and the public API ---------------------------- */

typedef int (*run_fn)(struct hpks *, const struct smpp_config *, const uint8_t *, size_t,
		      struct smpp_batch *);

static int
backend(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out, run_fn run)
{
	int rc;

	pthread_mutex_lock(&g_lock);
	if (g_gpu == NULL) {
		pthread_mutex_unlock(&g_lock);
		return -ENOTSUP;
	}
	g_gpu->lc = g_launch;
	g_gpu->err[0] = '\0';
	if (!g_gpu->emul && cudaSetDevice(g_gpu->dev) != cudaSuccess) {
		snprintf(g_gpu->err, sizeof(g_gpu->err), "cudaSetDevice(%d) failed", g_gpu->dev);
		rc = -EIO;
	} else {
		rc = run(g_gpu, smpp_ctx_config(ctx), in, len, out);
	}
	snprintf(g_last_err, sizeof(g_last_err), "%s", rc < 0 ? g_gpu->err : "");
	pthread_mutex_unlock(&g_lock);
	return rc;
}

static int
backend_gpu(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out)
{
	return backend(ctx, in, len, out, run_framed);
}

static int
backend_fused(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out)
{
	return backend(ctx, in, len, out, run_fused);
}

extern "C" int
smpp_gpu_init(unsigned flags, char *msg, size_t msglen)
{
	const char *env = getenv("HP_SMPP_GPU_EMUL");
	int emul = (flags & SMPP_GPU_EMUL) || (env != NULL && strcmp(env, "1") == 0);
	char info[320] = "", err[320] = "";
	struct hpks *g = NULL;
	int rc;

	pthread_mutex_lock(&g_lock);
	if (g_gpu != NULL) {
		pthread_mutex_unlock(&g_lock);
		return 0;
	}
	rc = hpks_open(&g, emul, info, sizeof(info), err, sizeof(err));
	if (rc < 0) {
		pthread_mutex_unlock(&g_lock);
		snprintf(msg, msglen, "no usable GPU: %s", err);
		return rc == -ENOMEM ? rc : -ENODEV;
	}
	g_gpu = g;
	pthread_mutex_unlock(&g_lock);
	smpp_backend_register(SMPP_MODE_GPU, backend_gpu);
	smpp_backend_register(SMPP_MODE_GPU_FUSED, backend_fused);
	snprintf(msg, msglen, "%s", info);
	return 0;
}

extern "C" void
smpp_gpu_fini(void)
{
	smpp_backend_register(SMPP_MODE_GPU, NULL);
	smpp_backend_register(SMPP_MODE_GPU_FUSED, NULL);
	pthread_mutex_lock(&g_lock);
	hpks_close(g_gpu);
	g_gpu = NULL;
	pthread_mutex_unlock(&g_lock);
}

extern "C" int
smpp_gpu_emulated(void)
{
	return g_gpu != NULL && g_gpu->emul;
}

extern "C" int
smpp_gpu_set_launch(const struct smpp_gpu_launch *l)
{
	struct smpp_gpu_launch v = *l;

	if (v.block == 0)
		v.block = 128;
	if (v.streams == 0)
		v.streams = 4;
	if (v.block % 32 || v.block > 1024 || v.streams > SMPP_GPU_MAX_STREAMS ||
	    v.grid > (1u << 22))
		return -EINVAL;
	pthread_mutex_lock(&g_lock);
	g_launch = v;
	pthread_mutex_unlock(&g_lock);
	return 0;
}

extern "C" void
smpp_gpu_get_launch(struct smpp_gpu_launch *l)
{
	pthread_mutex_lock(&g_lock);
	*l = g_launch;
	pthread_mutex_unlock(&g_lock);
}

extern "C" const char *
smpp_gpu_last_error(void)
{
	return g_last_err;
}

extern "C" int
smpp_gpu_emul_decode_pdu(const uint8_t *pdu, uint32_t len, unsigned flags, uint64_t base,
			 struct smpp_pdu *o)
{
	struct smpp_dec_tab t;
	int rc;

	pthread_mutex_lock(&g_lock);
	rc = tab_ready();
	pthread_mutex_unlock(&g_lock);
	if (rc < 0)
		return rc;
	t = k_tab();
	rc = smpp_dec_pdu(pdu, len, flags, base, o, &t, NULL, NULL);
	o->desc = o->desc ? &smpp_pdu_tab[o->desc - t.pdu] : NULL;
	return rc;
}
