/* SPDX-License-Identifier: BSD-3-Clause
 * The SMPP GPU backend's per-thread code (hpks_priv.h): boundary marking,
 * its resolution, the frames and the decoding, __host__ __device__, so
 * that the kernels (hpks_kernels.cu) and the host emulation
 * (hpks_emul.cu) run the very same code. Included by those two files
 * only: TAB is the GPU's constant-memory copy of the tables in device
 * code (c_tab, defined by hpks_kernels.cu before it includes this) and
 * the host copy in the emulation.
 *
 * The per-PDU decoder and the framing step function are the CPU's own
 * (smpp_decode.h), with C-strings measured and end markers found byte by
 * byte where the CPU uses its NUL window and memmem.
 */
#ifndef HPKS_THREAD_CUH
#define HPKS_THREAD_CUH

#include "hpks_priv.h"

#ifdef __CUDA_ARCH__
#define TAB c_tab
#else
#define TAB hpks_h_tab
#endif

/* The decoder's view of TAB. */
HD static inline struct smpp_dec_tab
k_tab(void)
{
	struct smpp_dec_tab t = { TAB.pdu_idx, TAB.pdu, TAB.tlv_idx, TAB.tlv };

	return t;
}

/* ---- per-thread code: boundary marking ---------------------------------- */

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
HD static inline uint64_t
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
HD static inline void
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
HD static inline uint64_t
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
HD static inline void
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

/* A decode block's shared memory: nb / 32 warps' record slots, then the
 * input staging (16-byte aligned: nb is a multiple of 32). */
HD static inline uint32_t *
k_stage_of(uint8_t *smem, uint32_t nb)
{
	return (uint32_t *)(smem + (size_t)(nb / 32) * HPKS_REC_WARP);
}

/* Decodes PDU i into o, the thread's record slot in shared memory (the
 * emulation's stand-in for it), the pointer fields as integers. */
HD static inline void
k_decode_thread(const struct hpks_dargs *a, const uint32_t *stage, int staged, uint64_t w0,
		uint32_t i, struct smpp_pdu *o)
{
	struct hpks_frame f = a->fr[i];
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

/* 16 octets from an 8-byte-aligned slot to a 16-byte-aligned record: one
 * 16-byte store on the GPU; memcpy in the emulation, where the records are
 * read back as structs (no type punning for the host compiler). */
HD static inline void
k_cp16(uint8_t *dst, const uint8_t *src)
{
#ifdef __CUDA_ARCH__
	const uint2 *s = (const uint2 *)src;
	uint2 lo = s[0], hi = s[1];

	*(uint4 *)dst = make_uint4(lo.x, lo.y, hi.x, hi.y);
#else
	memcpy(dst, src, 16);
#endif
}

/* Lane `lane`'s share of writing a warp's nrec records (slots, built by
 * k_decode_thread) to dst: the records of consecutive PDUs are one
 * contiguous run of nrec x 14 16-byte words, lane l writes words l, l + 32,
 * ..., so each warp store fills 512 contiguous octets (4 full lines) where
 * the field-by-field stores of the decoder touched 32 records' lines each.
 * Cost: 14 rounds of two 8-byte shared loads and one 16-byte global
 * store per lane for 32 records. */
HD static inline void
k_rec_store_lane(const uint8_t *slots, struct smpp_pdu *dst, uint32_t nrec, uint32_t lane)
{
	uint32_t nq = nrec * HPKS_REC_WORDS;

	for (uint32_t q = lane; q < nq; q += 32) {
		uint32_t j = q / HPKS_REC_WORDS, c = q - j * HPKS_REC_WORDS;

		k_cp16((uint8_t *)dst + (size_t)q * 16, slots + j * HPKS_REC_SLOT + c * 16);
	}
}

#endif /* HPKS_THREAD_CUH */
