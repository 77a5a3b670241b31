/* SPDX-License-Identifier: BSD-3-Clause
 * The SMPP GPU backend's tables and kernels (hpks_priv.h): the kernels
 * run the per-thread code of hpks_thread.cuh, one thread per chunk of the
 * input (marking, emitting frames) or per PDU (decoding).
 *
 * Tables: the library's PDU and TLV tables and their indexes are copied at
 * init (smpp_priv.h) into 9.3 KiB of constant memory: most warps decode
 * the same PDU type (the thesis mix is all submit_sm), so their table
 * reads are broadcasts; the field lists (4 KiB) go to global memory, read
 * through the descs' pointers (cached as well).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpks_priv.h"

__constant__ struct hpks_tab c_tab;
__device__ struct smpp_field_desc d_fld[HPKS_NFLD];
struct hpks_tab hpks_h_tab;                    /* the emulation's copies */
static struct smpp_field_desc h_fld[HPKS_NFLD];
static int h_tab_rc;
static pthread_once_t h_tab_once = PTHREAD_ONCE_INIT;

#include "hpks_thread.cuh"

/* ---- the tables ----------------------------------------------------------- */

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

static void
tab_build_host(void)
{
	h_tab_rc = build_tab(&hpks_h_tab, h_fld, h_fld);
}

/* The tables are the library's constants: built once. */
int
hpks_tab_ready(void)
{
	pthread_once(&h_tab_once, tab_build_host);
	return h_tab_rc;
}

/* ---- kernels -------------------------------------------------------------- */

/* A block decodes tiles of nb PDUs: the tile's input staged into shared
 * memory (when it fits), each thread's record built in its slot, then
 * written out by its warp (k_rec_store_lane). */
__global__ void __launch_bounds__(HPKS_DECODE_MAX_BLOCK)
k_decode_kernel(struct hpks_dargs a)
{
	extern __shared__ uint4 smem[];
	uint32_t nb = blockDim.x, ntiles = (a.np + nb - 1) / nb;
	uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
	uint8_t *slots = (uint8_t *)smem + warp * HPKS_REC_WARP;
	uint32_t *stage = k_stage_of((uint8_t *)smem, nb);

	for (uint32_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
		uint32_t i0, i1, nw, wi0;
		uint64_t w0;
		int staged = k_tile(&a, tile, nb, &i0, &i1, &w0, &nw);

		if (staged)
			k_stage_thread(&a, stage, w0, nw, threadIdx.x, nb);
		__syncthreads();
		if (i0 + threadIdx.x < i1)
			k_decode_thread(&a, stage, staged, w0, i0 + threadIdx.x,
					(struct smpp_pdu *)(slots + lane * HPKS_REC_SLOT));
		__syncwarp();
		wi0 = i0 + warp * 32;
		if (wi0 < i1)
			k_rec_store_lane(slots, a.rec + wi0, i1 - wi0 < 32 ? i1 - wi0 : 32, lane);
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

/* ---- launches ------------------------------------------------------------- */

cudaError_t
hpks_k_decode(const struct hpks_dargs *a, uint32_t grid, uint32_t nb, cudaStream_t s)
{
	k_decode_kernel<<<grid, nb, hpks_decode_smem(nb), s>>>(*a);
	return cudaGetLastError();
}

cudaError_t
hpks_k_mark_resolve(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
		    uint32_t nchunks, uint64_t csz, uint64_t *chunk, uint64_t *total,
		    cudaStream_t s)
{
	struct hpks_chunks k = hpks_chunks_of(chunk, nchunks);
	cudaError_t e;

	k_mark_kernel<<<grid, nb, 0, s>>>(*c, in, nchunks, csz, k.sig, k.ex, k.cnt);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	k_resolve_kernel<<<1, RES_B, 0, s>>>(*c, in, nchunks, csz, k.sig, k.ex, k.cnt, k.start,
					     k.base, total);
	return cudaGetLastError();
}

cudaError_t
hpks_k_emit(const struct hpks_fcfg *c, const uint8_t *in, uint32_t grid, uint32_t nb,
	    uint32_t nchunks, uint64_t csz, const uint64_t *chunk, struct hpks_frame *fr,
	    cudaStream_t s)
{
	struct hpks_chunks k = hpks_chunks_of((uint64_t *)chunk, nchunks);

	k_emit_kernel<<<grid, nb, 0, s>>>(*c, in, nchunks, csz, k.start, k.base, fr);
	return cudaGetLastError();
}

cudaError_t
hpks_k_decode_smem_limit(size_t bytes)
{
	return cudaFuncSetAttribute(k_decode_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
				    (int)bytes);
}

/* The tables into constant memory, the field lists into d_fld. */
int
hpks_gpu_setup(char *err, size_t errlen)
{
	struct hpks_tab *img;
	struct smpp_field_desc *fld;
	void *at = NULL;
	cudaError_t e;

	if ((e = cudaGetSymbolAddress(&at, d_fld)) != cudaSuccess)
		goto fail;
	img = (struct hpks_tab *)malloc(sizeof(*img) + HPKS_NFLD * sizeof(*fld));
	if (img == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fld = (struct smpp_field_desc *)(img + 1);
	/* fits: hpks_tab_ready() said so */
	build_tab(img, fld, (const struct smpp_field_desc *)at);
	e = cudaMemcpyToSymbol(c_tab, img, sizeof(*img));
	if (e == cudaSuccess)
		e = cudaMemcpyToSymbol(d_fld, fld, HPKS_NFLD * sizeof(*fld));
	free(img);
	if (e == cudaSuccess)
		return 0;
fail:
	snprintf(err, errlen, "cannot load the SMPP tables: %s", cudaGetErrorString(e));
	return -EIO;
}
