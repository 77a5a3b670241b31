/* SPDX-License-Identifier: BSD-3-Clause
 * The ldpc kernel (task ldpc, first of app ran): layered min-sum, one
 * thread block per codeword and one thread per check node of a layer
 * (the z rows of a base row touch disjoint bits, so they run in parallel
 * and give the sequential result), LLRs and the code's tables in shared
 * memory, and where the GPU's opt-in shared memory holds them (NR BG1
 * Z=384: 147 KiB of 227 KiB on an H100) the check-to-bit messages too,
 * the dynamic limit raised for it at table time (cudaFuncSetAttribute);
 * otherwise the messages in global memory, coalesced across the layer.
 * No per-thread arrays: a row's update reads its entries twice instead.
 * Both need each column once per base row, checked at table time (a code
 * that repeats one is refused; CPU workers decode it). Early stop when
 * every check holds (__syncthreads_or). The per-thread code is lib/ldpc's
 * scalar kernel written out for one codeword, so the output is
 * bit-identical. The task's packets carry lib/ldpc's units; the code and
 * the decoder settings arrive as the task's blob (ldpc_blob.h). Also the
 * whole-codeword entry points the tests and bench/gpu use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpk_kernel.h"
#include "ldpc_blob.h"

#define LDPC_RMAX 63   /* HP_LDPC_RMAX */

struct lcode {
	const uint32_t *row_start, *ent_col, *ent_shift;
	uint32_t z, mb, nb, punct, nnz;
};

/* The decoder settings (struct hp_ldpc_dec_cfg, as the blob has them). */
struct lcfg {
	uint32_t max_iter;
	uint32_t oms;        /* 1: offset min-sum, 0: normalised */
	uint32_t nms_shift;
	uint32_t oms_offset;
	uint32_t early;      /* stop a codeword once every check holds */
};

HD static inline int
sat8(int x)
{
	return x > 127 ? 127 : x < -128 ? -128 : x;
}

HD static inline int
scale(int m, const struct lcfg *g)
{
	int r;

	if (g->oms) {
		int mm = m < 127 ? m : 127;

		r = mm > (int)g->oms_offset ? mm - (int)g->oms_offset : 0;
	} else {
		r = m - ((m + (1 << (g->nms_shift - 1))) >> g->nms_shift);
	}
	return r < LDPC_RMAX ? r : LDPC_RMAX;
}

/* Where entry e (0-based in base row r, absolute index e0 + e) puts
 * check node i: its bit in L. */
HD static inline uint32_t
ldpc_pos(const struct lcode *c, uint32_t e, uint32_t i)
{
	const uint32_t sh = c->ent_shift[e] + i;

	return c->ent_col[e] * c->z + (sh >= c->z ? sh - c->z : sh);
}

/* The bit-to-check message of entry e: L less the entry's last message
 * (none in the first iteration), saturated, as lib/ldpc computes it. */
HD static inline int
ldpc_in(const int8_t *L, const int8_t *R, uint32_t pos, size_t ri, int first)
{
	const int l = L[pos];

	return first ? l : ((l < 0 ? -l : l) >= 127 ? l : sat8(l - R[ri]));
}

/* Check node i of base row r: the scalar instance of lib/ldpc's layered
 * min-sum (hp_ldpc_kern.h) written out for one codeword, so a GPU thread
 * computes exactly what a CPU lane computes. Rows of one layer touch
 * disjoint bits (one block per column per base row), so the z threads of
 * a layer run in parallel and give the sequential result. Two passes
 * over the row's entries, no arrays: the first finds the two smallest
 * magnitudes and the sign, the second recomputes each entry's input
 * (its L and R are unchanged until it writes them: each column once per
 * base row, ldpc_cols_once) and writes both. Cost: 2 x d reads of L
 * and R instead of d, against no local memory (was 384 B a thread). */
HD static inline void
ldpc_row(const struct lcode *c, int8_t *L, int8_t *R, uint32_t r, uint32_t i, int first,
	 const struct lcfg *g)
{
	const uint32_t e0 = c->row_start[r], d = c->row_start[r + 1] - e0, z = c->z;
	int mn1 = 128, mn2 = 128, sg = 0, s1, s2;

	for (uint32_t e = 0; e < d; e++) {
		const int x = ldpc_in(L, R, ldpc_pos(c, e0 + e, i), (size_t)(e0 + e) * z + i, first);
		const int a = x < 0 ? -x : x;

		mn2 = mn2 < (mn1 > a ? mn1 : a) ? mn2 : (mn1 > a ? mn1 : a);
		mn1 = mn1 < a ? mn1 : a;
		sg ^= x;
	}
	s1 = scale(mn1, g);
	s2 = scale(mn2, g);
	for (uint32_t e = 0; e < d; e++) {
		const uint32_t pos = ldpc_pos(c, e0 + e, i);
		const size_t ri = (size_t)(e0 + e) * z + i;
		const int x = ldpc_in(L, R, pos, ri, first), a = x < 0 ? -x : x;
		const int mag = a == mn1 ? s2 : s1;
		const int rn = (sg ^ x) < 0 ? -mag : mag;

		R[ri] = (int8_t)rn;
		L[pos] = (int8_t)(a >= 127 ? x : sat8(x + rn));
	}
}

/* 0 when every base row names each column once (what ldpc_row and the
 * parallel layer update need), else -EINVAL with the first offending
 * row and column. */
static int
ldpc_cols_once(const struct lcode *c, uint32_t *row, uint32_t *col)
{
	for (uint32_t r = 0; r < c->mb; r++)
		for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			for (uint32_t f = c->row_start[r]; f < e; f++)
				if (c->ent_col[f] == c->ent_col[e]) {
					*row = r;
					*col = c->ent_col[e];
					return -EINVAL;
				}
	return 0;
}

/* 1 when check node i of base row r is unsatisfied. */
HD static inline int
ldpc_check(const struct lcode *c, const int8_t *L, uint32_t r, uint32_t i)
{
	int par = 0;

	for (uint32_t e = c->row_start[r]; e < c->row_start[r + 1]; e++)
		par ^= L[ldpc_pos(c, e, i)] < 0;
	return par;
}

/* lib/ldpc's `ran` units (hp_ldpc.h): a received unit is the packed hard
 * decisions of the n transmitted bits; a decoded unit is the k info bits
 * packed, F, then F big-endian positions of the received bits the decoder
 * flipped. The phases below are separated by barriers in the kernel; the
 * emulation runs each phase for every thread in turn. */
struct lunit {
	uint32_t ulen, maxflip, k, ib, n, p, nf;
	int llr;
};

HD static inline uint32_t
rx_bit(const uint8_t *rx, uint32_t j)
{
	return (rx[j >> 3] >> (7 - (j & 7))) & 1;
}

/* Hard decision b -> LLR -+llr (bit 0 positive); punctured bits 0. */
HD static inline void
lu_load(const struct lunit *u, const uint8_t *rx, int8_t *L, uint32_t tid, uint32_t T)
{
	for (uint32_t j = tid; j < u->nf; j += T)
		L[j] = (int8_t)(j < u->p ? 0 : rx_bit(rx, j - u->p) ? -u->llr : u->llr);
}

/* Received bits the decoder flipped in thread tid's chunk of [0, n). */
HD static inline uint32_t
lu_count(const struct lunit *u, const uint8_t *rx, const int8_t *L, uint32_t tid, uint32_t T)
{
	uint32_t chunk = (u->n + T - 1) / T, lo = tid * chunk, hi = lo + chunk, c = 0;

	for (uint32_t j = lo; j < hi && j < u->n; j++)
		c += (uint32_t)(L[u->p + j] < 0) != rx_bit(rx, j);
	return c;
}

/* Info bits packed, F, zeros for the flip list (filled next phase). */
HD static inline void
lu_write_head(const struct lunit *u, const int8_t *L, uint32_t F, uint8_t *dst, uint32_t tid,
	      uint32_t T)
{
	for (uint32_t b = tid; b < u->ulen; b += T) {
		uint32_t v = 0;

		if (b < u->ib) {
			for (uint32_t x = 0; x < 8; x++)
				if (8 * b + x < u->k && L[8 * b + x] < 0)
					v |= 0x80u >> x;
		} else if (b == u->ib) {
			v = F;
		}
		dst[b] = (uint8_t)v;
	}
}

/* Thread tid's flip positions, from list index pre on (ascending). */
HD static inline void
lu_write_flips(const struct lunit *u, const uint8_t *rx, const int8_t *L, uint8_t *dst,
	       uint32_t pre, uint32_t tid, uint32_t T)
{
	uint32_t chunk = (u->n + T - 1) / T, lo = tid * chunk, hi = lo + chunk, f = pre;

	for (uint32_t j = lo; j < hi && j < u->n; j++)
		if ((uint32_t)(L[u->p + j] < 0) != rx_bit(rx, j)) {
			dst[u->ib + 1 + 2 * f] = (uint8_t)(j >> 8);
			dst[u->ib + 2 + 2 * f] = (uint8_t)j;
			f++;
		}
}

/* Threads of a units block: a multiple of 32 covering z. */
static inline unsigned int
ldpc_threads(uint32_t z)
{
	return z <= 32 ? 32 : (z + 31) / 32 * 32;
}

/* The layered iterations of one codeword whose LLRs are in L (shared)
 * by a thread block, one thread per check node of a layer. Returns the
 * iteration at which every check held (0: never within max_iter). */
__device__ static uint32_t
ldpc_decode_block(const struct lcode *c, const struct lcfg *g, int8_t *L, int8_t *R)
{
	const uint32_t tid = threadIdx.x;

	for (uint32_t it = 1; it <= g->max_iter; it++) {
		for (uint32_t r = 0; r < c->mb; r++) {
			if (tid < c->z)
				ldpc_row(c, L, R, r, tid, it == 1, g);
			__syncthreads();
		}
		if (g->early || it == g->max_iter) {
			int bad = 0;

			if (tid < c->z)
				for (uint32_t r = 0; r < c->mb; r++)
					bad |= ldpc_check(c, L, r, tid);
			if (!__syncthreads_or(bad))
				return it;
		}
	}
	return 0;
}

/* Shared memory of a block: the codeword's LLRs (nf bytes), the code's
 * tables (row starts, columns, shifts: 4 * (mb + 1 + 2 nnz) bytes), each
 * rounded to 16, then with rs its check messages (nnz * z bytes). */
HD static inline size_t
ldpc_smem(const struct lcode *c, int rs)
{
	return ((size_t)c->nb * c->z + 15) / 16 * 16 +
	       (4ull * (c->mb + 1 + 2ull * c->nnz) + 15) / 16 * 16 +
	       (rs ? (size_t)c->nnz * c->z : 0);
}

/* The block's check messages: in its shared memory after the LLRs and
 * the tables (RS), or its slice of the global scratch Rg. */
template <bool RS>
__device__ static inline int8_t *
ldpc_msgs(const struct lcode *c, int8_t *L, int8_t *Rg)
{
	if (RS)
		return L + ldpc_smem(c, 0);
	return Rg + (size_t)blockIdx.x * c->nnz * c->z;
}

/* The code's tables copied into the block's shared memory after the
 * LLRs (all threads take part; a barrier must follow before use): the
 * rows read them 2 x d times a check node per layer. Returns the code
 * pointing at the copies. */
__device__ static inline struct lcode
ldpc_code_smem(const struct lcode *c, int8_t *L)
{
	uint32_t *t = (uint32_t *)(L + ((size_t)c->nb * c->z + 15) / 16 * 16);
	const uint32_t nr = c->mb + 1;
	struct lcode s = *c;

	for (uint32_t i = threadIdx.x; i < nr + 2 * c->nnz; i += blockDim.x)
		t[i] = i < nr ? c->row_start[i] :
		       i < nr + c->nnz ? c->ent_col[i - nr] : c->ent_shift[i - nr - c->nnz];
	s.row_start = t;
	s.ent_col = t + nr;
	s.ent_shift = t + nr + c->nnz;
	return s;
}

/* One thread block per codeword, one thread per check node of a layer;
 * the codeword's LLRs live in shared memory, the check-to-bit messages
 * too with RS, else in global memory, coalesced across the layer. */
template <bool RS>
__global__ void
k_ldpc(struct lcode c, struct lcfg g, const int8_t *llr, int8_t *Rall, uint8_t *out,
       uint32_t out_bits, uint8_t *ok, uint8_t *iters)
{
	extern __shared__ __align__(16) int8_t L[];
	const uint32_t cw = blockIdx.x, nf = c.nb * c.z, n = nf - c.punct, tid = threadIdx.x;
	const struct lcode cs = ldpc_code_smem(&c, L);
	uint32_t done_it;

	for (uint32_t j = tid; j < nf; j += blockDim.x)
		L[j] = j < c.punct ? 0 : llr[(size_t)cw * n + j - c.punct];
	__syncthreads();
	done_it = ldpc_decode_block(&cs, &g, L, ldpc_msgs<RS>(&c, L, Rall));
	for (uint32_t j = tid; j < out_bits; j += blockDim.x)
		out[(size_t)cw * out_bits + j] = L[j] < 0;
	if (tid == 0) {
		ok[cw] = done_it != 0;
		iters[cw] = (uint8_t)(done_it ? done_it : g.max_iter);
	}
}

/* One thread block per unit of the batch: find its packet, decode, and
 * write the decoded unit into aux when it decoded within maxflip flips;
 * match[2p] counts the packet's good units (the host takes a packet's
 * units only when all are good, as lib/ldpc does). */
template <bool RS>
__global__ void
k_ldpc_units(struct lcode c, struct lcfg g, struct lunit u, struct kargs a,
	     int8_t *Rall)
{
	extern __shared__ __align__(16) int8_t L[];
	__shared__ uint32_t cnt[1024];
	__shared__ uint32_t tot;
	const uint32_t T = blockDim.x, tid = threadIdx.x, ug = blockIdx.x + a.blk[a.p0];
	const uint32_t p = hpk_item_packet(&a, ug);
	const uint8_t *rx = a.data + a.off[p] + (ug - a.blk[p]) * u.ulen;
	uint8_t *dst = a.aux + a.off[p] + (ug - a.blk[p]) * u.ulen;
	const struct lcode cs = ldpc_code_smem(&c, L);

	lu_load(&u, rx, L, tid, T);
	__syncthreads();
	if (ldpc_decode_block(&cs, &g, L, ldpc_msgs<RS>(&c, L, Rall)) == 0)
		return; /* the same answer in every thread: no barrier is left waiting */
	cnt[tid] = lu_count(&u, rx, L, tid, T);
	__syncthreads();
	if (tid == 0) {
		uint32_t sum = 0;

		for (uint32_t t = 0; t < T; t++) {
			uint32_t v = cnt[t];

			cnt[t] = sum;
			sum += v;
		}
		tot = sum;
	}
	__syncthreads();
	if (tot > u.maxflip)
		return;
	lu_write_head(&u, L, tot, dst, tid, T);
	__syncthreads();
	lu_write_flips(&u, rx, L, dst, cnt[tid], tid, T);
	if (tid == 0)
		atomicAdd(&a.match[2 * p], 1u);
}

/* Whether this GPU's opt-in shared memory per block holds the messages
 * beside the LLRs (plus static bytes of the kernel), and if so raises
 * kernel f's dynamic limit to smem; with nothing raised the messages stay
 * global. HPK_LDPC_MSGS=global in the environment keeps them global, so
 * that a GPU session can time one against the other (at NR BG1 Z=384
 * shared memory allows one codeword per SM, global four). 1: in shared
 * memory, 0: global, -EIO: the global path's own limit could not be
 * raised. */
static int
ldpc_smem_setup(const void *f_rs, const void *f_glob, const struct lcode *c,
		size_t static_bytes)
{
	const char *force = getenv("HPK_LDPC_MSGS");
	const size_t rs = ldpc_smem(c, 1), gl = ldpc_smem(c, 0);
	int dev = 0, optin = 0;

	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
		    cudaSuccess)
		optin = 48 * 1024;
	if ((force == NULL || strcmp(force, "global") != 0) && rs + static_bytes <= (size_t)optin &&
	    cudaFuncSetAttribute(f_rs, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)rs) ==
		    cudaSuccess)
		return 1;
	cudaGetLastError(); /* a refused attribute is not the next launch's error */
	if (gl > 48 * 1024 &&
	    (gl + static_bytes > (size_t)optin ||
	     cudaFuncSetAttribute(f_glob, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)gl) !=
		     cudaSuccess))
		return -EIO;
	return 0;
}

/* ---- the blob, in a context ---- */

/* The code, settings and unit geometry of a blob whose arrays are read
 * at base (the blob itself, or its device copy). -EINVAL when the arrays
 * do not lie inside it. */
static int
parse(const void *blob, size_t len, const void *base, struct lcode *c, struct lcfg *g,
      struct lunit *u)
{
	const uint8_t *b = (const uint8_t *)base;
	struct hp_ldpc_blob h;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, blob, sizeof(h));
	if (h.off_row_start + 4ull * (h.mb + 1) > len || h.off_col + 4ull * h.nnz > len ||
	    h.off_shift + 4ull * h.nnz > len || h.z == 0 || h.nb < h.mb)
		return -EINVAL;
	c->row_start = (const uint32_t *)(b + h.off_row_start);
	c->ent_col = (const uint32_t *)(b + h.off_col);
	c->ent_shift = (const uint32_t *)(b + h.off_shift);
	c->z = h.z;
	c->mb = h.mb;
	c->nb = h.nb;
	c->punct = h.punct;
	c->nnz = h.nnz;
	g->max_iter = h.max_iter;
	g->oms = h.oms;
	g->nms_shift = h.nms_shift;
	g->oms_offset = h.oms_offset;
	g->early = h.early;
	u->ulen = h.ulen;
	u->maxflip = h.maxflip;
	u->llr = h.llr;
	u->nf = c->nb * c->z;
	u->p = c->punct;
	u->n = u->nf - u->p;
	u->k = (c->nb - c->mb) * c->z;
	u->ib = (u->k + 7) / 8;
	return 0;
}

/* A context's table: the arrays on the GPU (dc) and on the host (hc). */
struct ltab {
	struct lcode dc, hc;
	struct lcfg g;
	struct lunit u;
	int rs;              /* messages in shared memory (GPU contexts) */
};

/* Refuses a code the parallel layer update would get wrong: one column
 * twice in a base row (lib/ldpc's codes never do; CPU workers decode
 * such a code). 0 or -EINVAL with err set. */
static int
ldpc_code_ok(const struct lcode *c, char *err, size_t errlen)
{
	uint32_t r, col;

	if (ldpc_cols_once(c, &r, &col) == 0)
		return 0;
	snprintf(err, errlen,
		 "kernel ldpc: base row %u names column %u twice; the GPU decoder updates a "
		 "row's columns in parallel and needs each once (decode it on CPU workers)",
		 r, col);
	return -EINVAL;
}

static int
ldpc_table(struct hpk_kslot *ks, char *err, size_t errlen)
{
	struct ltab *t = (struct ltab *)calloc(1, sizeof(*t));

	if (t == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (parse(ks->tab, ks->tab_len, ks->tab, &t->hc, &t->g, &t->u) < 0 || t->u.ulen == 0) {
		snprintf(err, errlen, "kernel ldpc: malformed blob (%zu bytes)", ks->tab_len);
		free(t);
		return -EINVAL;
	}
	if (ldpc_threads(t->hc.z) > 1024 || t->hc.row_start[t->hc.mb] != t->hc.nnz) {
		snprintf(err, errlen, "LDPC code with z=%u does not fit the units kernel", t->hc.z);
		free(t);
		return -EINVAL;
	}
	if (ldpc_code_ok(&t->hc, err, errlen) < 0) {
		free(t);
		return -EINVAL;
	}
	t->dc = t->hc;
	if (ks->d_tab != NULL) {
		parse(ks->tab, ks->tab_len, ks->d_tab, &t->dc, &t->g, &t->u);
		t->rs = ldpc_smem_setup((const void *)k_ldpc_units<true>,
					(const void *)k_ldpc_units<false>, &t->hc,
					4 * 1024 + 16);
		if (t->rs < 0) {
			snprintf(err, errlen, "LDPC code with z=%u: %zu bytes of LLRs exceed the "
				 "GPU's shared memory", t->hc.z, ldpc_smem(&t->hc, 0));
			free(t);
			return -EINVAL;
		}
	}
	ks->priv = t;
	return 0;
}

static void
ldpc_close(struct hpk_kslot *ks)
{
	free(ks->priv);
	ks->priv = NULL;
}

/* A packet's work items are its units (a thread block each); 4 bytes
 * after it keep its count of good units for offload_done. */
static uint32_t
ldpc_items(const struct hpk_kslot *ks, uint32_t len)
{
	const struct ltab *t = (const struct ltab *)ks->priv;

	return t != NULL ? len / t->u.ulen : 0;
}

/* The check messages of every unit a full staging holds (a unit takes at
 * least ulen bytes of it), allocated once per stream with the table;
 * none when they live in shared memory. */
static size_t
ldpc_scratch(const struct hpk_kslot *ks, uint32_t cap_bytes)
{
	const struct ltab *t = (const struct ltab *)ks->priv;

	return t->rs ? 0 : (size_t)(cap_bytes / t->u.ulen) * t->dc.nnz * t->dc.z;
}

static cudaError_t
ldpc_launch(const struct hpk_run *r)
{
	const struct ltab *t = (const struct ltab *)r->ks->priv;
	uint32_t nu = r->h->blk[r->a.p0 + r->a.np] - r->h->blk[r->a.p0];

	if (nu == 0)
		return cudaSuccess;
	if (t->rs) {
		k_ldpc_units<true><<<nu, ldpc_threads(t->dc.z), ldpc_smem(&t->dc, 1), r->st>>>(
			t->dc, t->g, t->u, r->a, NULL);
		return cudaGetLastError();
	}
	if ((size_t)nu * t->dc.nnz * t->dc.z > r->scr->cap)
		return cudaErrorMemoryAllocation; /* cannot happen: sized for the staging */
	k_ldpc_units<false><<<nu, ldpc_threads(t->dc.z), ldpc_smem(&t->dc, 0), r->st>>>(
		t->dc, t->g, t->u, r->a, (int8_t *)r->scr->p);
	return cudaGetLastError();
}

/* ldpc_decode_block on the CPU: each layer's rows one after another. */
static uint32_t
emul_decode(const struct lcode *c, const struct lcfg *g, int8_t *L, int8_t *R)
{
	for (uint32_t it = 1; it <= g->max_iter; it++) {
		for (uint32_t r = 0; r < c->mb; r++)
			for (uint32_t i = 0; i < c->z; i++)
				ldpc_row(c, L, R, r, i, it == 1, g);
		if (g->early || it == g->max_iter) {
			int bad = 0;

			for (uint32_t r = 0; r < c->mb && !bad; r++)
				for (uint32_t i = 0; i < c->z && !bad; i++)
					bad |= ldpc_check(c, L, r, i);
			if (!bad)
				return it;
		}
	}
	return 0;
}

/* k_ldpc_units on the CPU: per unit, the kernel's phases for every
 * thread in turn (the barriers' order). */
static int
ldpc_emulate(const struct hpk_run *r)
{
	const struct ltab *t = (const struct ltab *)r->ks->priv;
	const struct lcode c = t->hc;
	const struct lunit u = t->u;
	const struct lcfg *g = &t->g;
	const struct kargs *b = &r->a;
	const uint32_t T = ldpc_threads(c.z);
	int8_t *L = (int8_t *)malloc(u.nf), *R = (int8_t *)malloc((size_t)c.nnz * c.z);
	uint32_t *cnt = (uint32_t *)malloc(4ull * T);

	if (L == NULL || R == NULL || cnt == NULL) {
		free(L);
		free(R);
		free(cnt);
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < b->np; p++) {
		b->match[2 * p] = 0;
		for (uint32_t ug = b->blk[p]; ug < b->blk[p + 1]; ug++) {
			const uint8_t *rx = b->data + b->off[p] + (ug - b->blk[p]) * u.ulen;
			uint8_t *dst = b->aux + b->off[p] + (ug - b->blk[p]) * u.ulen;
			uint32_t sum = 0;

			for (uint32_t t = 0; t < T; t++)
				lu_load(&u, rx, L, t, T);
			if (emul_decode(&c, g, L, R) == 0)
				continue;
			for (uint32_t t = 0; t < T; t++) {
				uint32_t v = lu_count(&u, rx, L, t, T);

				cnt[t] = sum;
				sum += v;
			}
			if (sum > u.maxflip)
				continue;
			for (uint32_t t = 0; t < T; t++)
				lu_write_head(&u, L, sum, dst, t, T);
			for (uint32_t t = 0; t < T; t++)
				lu_write_flips(&u, rx, L, dst, cnt[t], t, T);
			b->match[2 * p]++;
		}
	}
	free(L);
	free(R);
	free(cnt);
	return 0;
}

static const uint8_t *
ldpc_result(struct hpk_batch *b, uint32_t i)
{
	/* offload_done reads the count of good units after the units */
	memcpy(b->aux + b->off[i] + b->len[i], &b->match[2 * i], 4);
	return b->aux + b->off[i];
}

static const struct hpk_kernel kern_ldpc = {
	.name = "ldpc",
	.flags = HPK_TABLE | HPK_ZERO_MATCH | HPK_OUT_AUX | HPK_OUT_MATCH,
	.tail = 4,
	.items = ldpc_items,
	.close = ldpc_close,
	.table = ldpc_table,
	.scratch = ldpc_scratch,
	.launch = ldpc_launch,
	.emulate = ldpc_emulate,
	.result = ldpc_result,
};
HPK_KERNEL_REGISTER(kern_ldpc)

/* ---- whole codewords (tests, bench/gpu) ---- */

extern "C" int
hpk_ldpc_emulate(const void *blob, size_t len, const int8_t *llr, uint32_t n_cw,
		 uint8_t *out, uint32_t out_bits, uint8_t *ok, uint8_t *iters)
{
	struct lcode c;
	struct lcfg cfg, *g = &cfg;
	struct lunit u;
	uint32_t nf, n, bad_r, bad_c;
	int8_t *L, *R;
	int nok = 0;

	if (parse(blob, len, blob, &c, g, &u) < 0 || ldpc_cols_once(&c, &bad_r, &bad_c) < 0)
		return -EINVAL;
	nf = c.nb * c.z;
	n = nf - c.punct;
	L = (int8_t *)malloc(nf);
	R = (int8_t *)malloc((size_t)c.nnz * c.z);
	if (L == NULL || R == NULL) {
		free(L);
		free(R);
		return -ENOMEM;
	}
	for (uint32_t cw = 0; cw < n_cw; cw++) {
		uint32_t done_it;

		for (uint32_t j = 0; j < nf; j++)
			L[j] = j < c.punct ? 0 : llr[(size_t)cw * n + j - c.punct];
		done_it = emul_decode(&c, g, L, R);
		for (uint32_t j = 0; j < out_bits; j++)
			out[(size_t)cw * out_bits + j] = L[j] < 0;
		if (ok)
			ok[cw] = done_it != 0;
		if (iters)
			iters[cw] = (uint8_t)(done_it ? done_it : g->max_iter);
		nok += done_it != 0;
	}
	free(L);
	free(R);
	return nok;
}

extern "C" int
hpk_ldpc_msgs_shared(const void *blob, size_t len)
{
	struct lcode c;
	struct lcfg g;
	struct lunit u;

	if (parse(blob, len, blob, &c, &g, &u) < 0)
		return -EINVAL;
	return ldpc_smem_setup((const void *)k_ldpc<true>, (const void *)k_ldpc<false>, &c, 0) ==
	       1;
}

extern "C" int
hpk_ldpc_gpu(struct hpk_ctx *ctx, const void *blob, size_t len, const int8_t *llr,
	     uint32_t n_cw, uint8_t *out, uint32_t out_bits, uint8_t *ok, uint8_t *iters,
	     double *secs, char *err, size_t errlen)
{
	struct lcode c;
	struct lcfg g;
	struct lunit u;
	uint32_t nf, n;
	int rs;
	void *d_blob = NULL;
	int8_t *d_llr = NULL, *d_R = NULL;
	uint8_t *d_out = NULL, *d_ok = NULL, *d_it = NULL;
	cudaEvent_t a = NULL, b = NULL;
	unsigned int threads;
	float ms = 0;
	int ret = -EIO, nok = 0;
	cudaError_t e;

	if (parse(blob, len, blob, &c, &g, &u) < 0) {
		snprintf(err, errlen, "kernel ldpc: malformed blob (%zu bytes)", len);
		return -EINVAL;
	}
	if (ldpc_code_ok(&c, err, errlen) < 0)
		return -EINVAL;
	nf = c.nb * c.z;
	n = nf - c.punct;
	threads = (c.z + 31) / 32 * 32;

#define GO(call) do { e = (call); if (e != cudaSuccess) { \
	snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e)); goto out; } } while (0)
	GO(cudaSetDevice(hpk_ctx_gpu(ctx)));
	rs = ldpc_smem_setup((const void *)k_ldpc<true>, (const void *)k_ldpc<false>, &c, 0);
	if (rs < 0) {
		snprintf(err, errlen, "LDPC code with z=%u: LLRs exceed the GPU's shared memory",
			 c.z);
		return -EINVAL;
	}
	GO(cudaMalloc(&d_blob, len));
	GO(cudaMalloc((void **)&d_llr, (size_t)n_cw * n));
	if (!rs)
		GO(cudaMalloc((void **)&d_R, (size_t)n_cw * c.nnz * c.z));
	GO(cudaMalloc((void **)&d_out, (size_t)n_cw * out_bits));
	GO(cudaMalloc((void **)&d_ok, n_cw));
	GO(cudaMalloc((void **)&d_it, n_cw));
	GO(cudaMemcpy(d_blob, blob, len, cudaMemcpyHostToDevice));
	GO(cudaMemcpy(d_llr, llr, (size_t)n_cw * n, cudaMemcpyHostToDevice));
	parse(blob, len, d_blob, &c, &g, &u);
	GO(cudaEventCreate(&a));
	GO(cudaEventCreate(&b));
	GO(cudaEventRecord(a, 0));
	if (rs)
		k_ldpc<true><<<n_cw, threads, ldpc_smem(&c, 1)>>>(c, g, d_llr, NULL, d_out, out_bits,
								  d_ok, d_it);
	else
		k_ldpc<false><<<n_cw, threads, ldpc_smem(&c, 0)>>>(c, g, d_llr, d_R, d_out, out_bits,
								   d_ok, d_it);
	GO(cudaGetLastError());
	GO(cudaEventRecord(b, 0));
	GO(cudaEventSynchronize(b));
	GO(cudaEventElapsedTime(&ms, a, b));
	GO(cudaMemcpy(out, d_out, (size_t)n_cw * out_bits, cudaMemcpyDeviceToHost));
	if (ok != NULL)
		GO(cudaMemcpy(ok, d_ok, n_cw, cudaMemcpyDeviceToHost));
	if (iters != NULL)
		GO(cudaMemcpy(iters, d_it, n_cw, cudaMemcpyDeviceToHost));
	if (ok != NULL)
		for (uint32_t i = 0; i < n_cw; i++)
			nok += ok[i];
	if (secs != NULL)
		*secs = ms / 1e3;
	ret = nok;
#undef GO
out:
	if (a)
		cudaEventDestroy(a);
	if (b)
		cudaEventDestroy(b);
	cudaFree(d_blob);
	cudaFree(d_llr);
	cudaFree(d_R);
	cudaFree(d_out);
	cudaFree(d_ok);
	cudaFree(d_it);
	return ret;
}
