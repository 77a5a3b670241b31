/* SPDX-License-Identifier: BSD-3-Clause
 * The gather and the scatter. The gather: the per-lane code of the kernel that reads a batch's
 * gathered packets (hpk_batch.src: an mbuf's data region in registered
 * host memory) over PCIe into the device's data buffer, shared by the GPU
 * kernel (hpk_stream.cu, a warp per packet) and the emulation
 * (hpk_emul.cu, the lanes one after another), so `cuda:emul` walks the
 * very addresses and arithmetic the GPU does.
 *
 * Host memory is read in aligned 16-byte words only (whole read requests
 * over PCIe). An mbuf's data region rarely starts 16-byte aligned, so
 * output chunk j of a packet (its bytes [16 j, 16 j + 16)) is composed
 * from host words j and j + 1 (hpk_shift16); bytes past the packet's
 * length in its last chunk are zero. Only words that hold region bytes
 * are read, so nothing outside the region's pages is touched.
 *
 * The scatter is its mirror (the in-place commit): the kernel's output
 * for a packet (its data, a digest or a match record, on the device) is
 * written to the packet's dst in registered host memory, host word j of
 * the region from device bytes [16 j - (dst & 15), ...). A word wholly
 * inside the region is one 16-byte store; a word at its edges is written
 * byte by byte, so no byte outside [dst, dst + len) is written (the
 * fields next to it in the mbuf stay the host's). After its words the
 * packet's mark byte is written, behind a system-wide fence on a GPU, so
 * the host that sees the mark sees the whole result. The scatter also
 * sums what it writes (RFC 1071), so a task can fix the L4 checksum of a
 * payload it never reads again.
 */
#ifndef HPK_MOVE_CUH
#define HPK_MOVE_CUH

#include "hpk_kernel.h"

HD static inline uint32_t
hpk_fsr(uint32_t lo, uint32_t hi, uint32_t r)
{
#ifdef __CUDA_ARCH__
	return __funnelshift_r(lo, hi, r);
#else
	return r ? (lo >> r) | (hi << (32 - r)) : lo;
#endif
}

/* Bytes [s, s + 16) of the 32 bytes lo|hi (s < 16; little endian). The
 * words are picked with constant indices, so nothing goes to local
 * memory. */
HD static inline uint4
hpk_shift16(uint4 lo, uint4 hi, uint32_t s)
{
	const uint32_t q = s >> 2, r = (s & 3) * 8;
	uint32_t a0, a1, a2, a3, a4;
	uint4 o;

	a0 = q == 0 ? lo.x : q == 1 ? lo.y : q == 2 ? lo.z : lo.w;
	a1 = q == 0 ? lo.y : q == 1 ? lo.z : q == 2 ? lo.w : hi.x;
	a2 = q == 0 ? lo.z : q == 1 ? lo.w : q == 2 ? hi.x : hi.y;
	a3 = q == 0 ? lo.w : q == 1 ? hi.x : q == 2 ? hi.y : hi.z;
	a4 = q == 0 ? hi.x : q == 1 ? hi.y : q == 2 ? hi.z : hi.w;
	o.x = hpk_fsr(a0, a1, r);
	o.y = hpk_fsr(a1, a2, r);
	o.z = hpk_fsr(a2, a3, r);
	o.w = hpk_fsr(a3, a4, r);
	return o;
}

/* w with its bytes from valid on zeroed (valid may be <= 0 or >= 4). */
HD static inline uint32_t
hpk_keep_bytes(uint32_t w, int32_t valid)
{
	if (valid >= 4)
		return w;
	if (valid <= 0)
		return 0;
	return w & ((1u << (8 * valid)) - 1);
}

HD static inline uint4
hpk_zero16(void)
{
	uint4 z;

	z.x = z.y = z.z = z.w = 0;
	return z;
}

/* Aligned host words the region [src, src + len) touches. */
HD static inline uint32_t
hpk_gather_words(uint64_t src, uint32_t len)
{
	return ((uint32_t)(src & 15) + len + 15) / 16;
}

/* 16-byte chunks the packet takes on the device. */
HD static inline uint32_t
hpk_gather_chunks(uint32_t len)
{
	return (len + 15) / 16;
}

/* Aligned host word j of the region (nw words), zeros past them. */
HD static inline uint4
hpk_gather_load(uint64_t src, uint32_t nw, uint32_t j)
{
	const uint4 *w = (const uint4 *)(uintptr_t)(src & ~(uint64_t)15);

	return j < nw ? w[j] : hpk_zero16();
}

/* Output chunk j from host words j and j + 1. */
HD static inline uint4
hpk_gather_chunk(uint64_t src, uint32_t len, uint32_t j, uint4 wj, uint4 wj1)
{
	const uint32_t s = (uint32_t)(src & 15);
	const int32_t valid = (int32_t)len - 16 * (int32_t)j;
	uint4 o = s ? hpk_shift16(wj, wj1, s) : wj;

	if (valid < 16) {
		o.x = hpk_keep_bytes(o.x, valid);
		o.y = hpk_keep_bytes(o.y, valid - 4);
		o.z = hpk_keep_bytes(o.z, valid - 8);
		o.w = hpk_keep_bytes(o.w, valid - 12);
	}
	return o;
}

/* Where packet i's output lies in the device arrays and its bytes: ob
 * UINT32_MAX: base is the data, at off[i] for len[i] bytes; else ob
 * bytes at base + ob * i (digests, match records). */
HD static inline const uint8_t *
hpk_out_region(const uint8_t *base, const uint32_t *off, const uint32_t *len, uint32_t ob,
	       uint32_t i, uint32_t *n)
{
	if (ob == UINT32_MAX) {
		*n = len[i];
		return base + off[i];
	}
	*n = ob;
	return base + (size_t)ob * i;
}

/* Bytes [q, q + 16) of the region [r, r + n) (q may be negative), read
 * as aligned 16-byte words that hold region bytes only; bytes outside
 * the region are garbage or zero (the scatter does not store them). */
HD static inline uint4
hpk_region16(const uint8_t *r, uint32_t n, int32_t q)
{
	const uint64_t lo = (uint64_t)(uintptr_t)r, hi = lo + n;
	const uint64_t a = lo + (uint64_t)(int64_t)q, w = a & ~(uint64_t)15;
	const uint32_t s = (uint32_t)(a & 15);
	uint4 x = w < hi && w + 16 > lo ? *(const uint4 *)(uintptr_t)w : hpk_zero16();
	uint4 y;

	if (s == 0)
		return x;
	y = w + 16 < hi && w + 32 > lo ? *(const uint4 *)(uintptr_t)(w + 16) : hpk_zero16();
	return hpk_shift16(x, y, s);
}

/* x folded to 16 bits (ones' complement), byte-swapped when odd: a sum
 * whose 16-bit words start at an odd byte of the region. */
HD static inline uint32_t
hpk_fold16(uint32_t x, int odd)
{
	x = (x & 0xffff) + (x >> 16);
	x = (x & 0xffff) + (x >> 16);
	return odd ? ((x & 0xff) << 8) | (x >> 8) : x;
}

/* Host word j (of hpk_gather_words(dst, n)) of the scatter of the n
 * bytes at r to dst. Returns the ones' complement sum of the bytes it
 * wrote, as 16-bit words of the data's byte order counted from the
 * region's first byte (RFC 1071; add the lanes' and fold). */
HD static inline uint32_t
hpk_scatter_word(uint64_t dst, uint32_t n, const uint8_t *r, uint32_t j)
{
	const int32_t q = 16 * (int32_t)j - (int32_t)(dst & 15);
	const uint4 v = hpk_region16(r, n, q);
	uint8_t *w = (uint8_t *)(uintptr_t)((dst & ~(uint64_t)15) + 16ull * j);
	uint32_t s = 0;

	if (q >= 0 && q + 16 <= (int32_t)n) {
		*(uint4 *)w = v;
		/* the halves of the 4 words, re-paired when q is odd */
		s = (v.x & 0xffff) + (v.x >> 16) + (v.y & 0xffff) + (v.y >> 16) +
		    (v.z & 0xffff) + (v.z >> 16) + (v.w & 0xffff) + (v.w >> 16);
		return hpk_fold16(s, q & 1);
	}
	for (int32_t b = 0; b < 16; b++) {
		const uint32_t x = (b >> 2) == 0 ? v.x : (b >> 2) == 1 ? v.y :
				   (b >> 2) == 2 ? v.z : v.w;
		const uint8_t c = (uint8_t)(x >> (8 * (b & 3)));

		if (q + b >= 0 && q + b < (int32_t)n) {
			w[b] = c;
			s += (uint32_t)c << (8 * ((q + b) & 1));
		}
	}
	return s;
}

#endif /* HPK_MOVE_CUH */
