/* SPDX-License-Identifier: BSD-3-Clause
 * heteroplane's CUDA code: AES-128-CTR (one thread per 16-byte block) and
 * MD5 (one thread per packet) kernels, the stream/staging machinery behind
 * the `cuda` device, and a host emulation that runs the same per-thread
 * functions on the CPU. Only hp_cuda_kern.h is visible to C code.
 *
 * AES: T-table rounds (FIPS-197 §5.1 as four table lookups per column).
 * Only T0 is stored; T1..T3 are byte rotations of it, and the last round's
 * S-box is a byte of T0. T0 is replicated 32 times in shared memory, entry
 * x of copy k at [x * 32 + k], so lane k of a warp always reads bank k and
 * the data-dependent lookups never conflict (the layout Tezcan, 2021, uses
 * for the published GPU AES high mark). 32 KiB shared memory per block.
 * Cost note: 40 table reads + 44 round-key reads per 16-byte block; the
 * round keys are read through the read-only cache (one key per flow).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "hp_cuda_kern.h"

#define HD __host__ __device__
#define MINU(a, b) ((a) < (b) ? (a) : (b))
#define TCOPIES 32
#define THREADS 256

/* The AES S-box, FIPS-197 Figure 7 (generated from its definition in
 * §5.1.1 and checked by the FIPS-197 Appendix C.1 vector in the tests). */
static const uint8_t aes_sbox[256] = {
	0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
	0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
	0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
	0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
	0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
	0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
	0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
	0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
	0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
	0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
	0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
	0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
	0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
	0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
	0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
	0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

/* T0 replicated TCOPIES times (host copy for the emulation). */
static uint32_t host_t0[256 * TCOPIES];
static int host_t0_ready;

static uint8_t
xtime(uint8_t x)
{
	return (uint8_t)((x << 1) ^ ((x & 0x80) ? 0x1b : 0));
}

static void
make_t0(uint32_t t0[256])
{
	for (int x = 0; x < 256; x++) {
		uint8_t s = aes_sbox[x], s2 = xtime(s), s3 = (uint8_t)(s2 ^ s);

		t0[x] = ((uint32_t)s2 << 24) | ((uint32_t)s << 16) | ((uint32_t)s << 8) | s3;
	}
}

static void
host_tables(void)
{
	uint32_t t0[256];

	if (host_t0_ready)
		return;
	make_t0(t0);
	for (int i = 0; i < 256 * TCOPIES; i++)
		host_t0[i] = t0[i / TCOPIES];
	host_t0_ready = 1;
}

extern "C" void
hpk_aes128_expand(const uint8_t key[16], uint32_t rk[44])
{
	static const uint8_t rcon[10] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36 };

	for (int i = 0; i < 4; i++)
		rk[i] = ((uint32_t)key[4 * i] << 24) | ((uint32_t)key[4 * i + 1] << 16) |
			((uint32_t)key[4 * i + 2] << 8) | key[4 * i + 3];
	for (int i = 4; i < 44; i++) {
		uint32_t t = rk[i - 1];

		if (i % 4 == 0) {
			t = (t << 8) | (t >> 24); /* RotWord */
			t = ((uint32_t)aes_sbox[t >> 24] << 24) |
			    ((uint32_t)aes_sbox[(t >> 16) & 0xff] << 16) |
			    ((uint32_t)aes_sbox[(t >> 8) & 0xff] << 8) | aes_sbox[t & 0xff];
			t ^= (uint32_t)rcon[i / 4 - 1] << 24;
		}
		rk[i] = rk[i - 4] ^ t;
	}
}

/* ---- per-thread code, shared by the kernels and the emulation ---- */

HD static inline uint32_t
ror(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

HD static inline uint32_t
bswap32(uint32_t x)
{
#ifdef __CUDA_ARCH__
	return __byte_perm(x, 0, 0x0123);
#else
	return __builtin_bswap32(x);
#endif
}

#define TL(x) T[(uint32_t)(x) * TCOPIES + lane]
#define SB(x) ((TL(x) >> 16) & 0xff)

HD static inline void
aes_encrypt(const uint32_t *T, unsigned int lane, const uint32_t *rk, uint32_t s[4])
{
	uint32_t s0 = s[0] ^ rk[0], s1 = s[1] ^ rk[1], s2 = s[2] ^ rk[2], s3 = s[3] ^ rk[3];
	uint32_t e0, e1, e2, e3;

	for (int r = 1; r < 10; r++) {
		e0 = TL(s0 >> 24) ^ ror(TL((s1 >> 16) & 0xff), 8) ^
		     ror(TL((s2 >> 8) & 0xff), 16) ^ ror(TL(s3 & 0xff), 24) ^ rk[4 * r];
		e1 = TL(s1 >> 24) ^ ror(TL((s2 >> 16) & 0xff), 8) ^
		     ror(TL((s3 >> 8) & 0xff), 16) ^ ror(TL(s0 & 0xff), 24) ^ rk[4 * r + 1];
		e2 = TL(s2 >> 24) ^ ror(TL((s3 >> 16) & 0xff), 8) ^
		     ror(TL((s0 >> 8) & 0xff), 16) ^ ror(TL(s1 & 0xff), 24) ^ rk[4 * r + 2];
		e3 = TL(s3 >> 24) ^ ror(TL((s0 >> 16) & 0xff), 8) ^
		     ror(TL((s1 >> 8) & 0xff), 16) ^ ror(TL(s2 & 0xff), 24) ^ rk[4 * r + 3];
		s0 = e0;
		s1 = e1;
		s2 = e2;
		s3 = e3;
	}
	s[0] = ((SB(s0 >> 24) << 24) | (SB((s1 >> 16) & 0xff) << 16) |
		(SB((s2 >> 8) & 0xff) << 8) | SB(s3 & 0xff)) ^ rk[40];
	s[1] = ((SB(s1 >> 24) << 24) | (SB((s2 >> 16) & 0xff) << 16) |
		(SB((s3 >> 8) & 0xff) << 8) | SB(s0 & 0xff)) ^ rk[41];
	s[2] = ((SB(s2 >> 24) << 24) | (SB((s3 >> 16) & 0xff) << 16) |
		(SB((s0 >> 8) & 0xff) << 8) | SB(s1 & 0xff)) ^ rk[42];
	s[3] = ((SB(s3 >> 24) << 24) | (SB((s0 >> 16) & 0xff) << 16) |
		(SB((s1 >> 8) & 0xff) << 8) | SB(s2 & 0xff)) ^ rk[43];
}

struct kargs {
	uint8_t *data;
	const uint32_t *off;
	const uint32_t *len;
	const uint32_t *blk;
	const uint32_t *ctr;
	const uint32_t *key_idx;
	const uint32_t *rk;
	uint8_t *digest;
	uint32_t *match;
	uint8_t *aux;
	const uint4 *dfa_st;
	const uint32_t *dfa_tab;
	const uint32_t *dfa_count;
	const uint32_t *dfa_first;
	uint32_t p0;       /* first packet of this launch */
	uint32_t np;       /* packets in this launch */
};

/* Thread g (counted from the launch's first block) encrypts one 16-byte
 * block: find its packet (binary search over the block prefix sums), form
 * the counter block, XOR the keystream into the payload in place. */
HD static inline void
aes_ctr_thread(const uint32_t *T, unsigned int lane, const struct kargs *a, uint32_t g)
{
	uint32_t lo = a->p0, hi = a->p0 + a->np - 1, p, b, s[4];
	uint32_t *d;

	g += a->blk[a->p0];
	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (a->blk[mid] <= g)
			lo = mid;
		else
			hi = mid - 1;
	}
	p = lo;
	b = g - a->blk[p];
	s[0] = a->ctr[4 * p];
	s[1] = a->ctr[4 * p + 1];
	s[2] = a->ctr[4 * p + 2];
	s[3] = a->ctr[4 * p + 3] + b; /* big-endian 32-bit counter, as the CPU path */
	aes_encrypt(T, lane, a->rk + 44 * a->key_idx[p], s);
	/* Offsets are 16-byte aligned and the staging has room for the
	 * whole last block, so full 16-byte accesses stay in the buffer;
	 * bytes past len are staging padding and are never copied back. */
	d = (uint32_t *)(a->data + a->off[p] + 16u * b);
	d[0] ^= bswap32(s[0]);
	d[1] ^= bswap32(s[1]);
	d[2] ^= bswap32(s[2]);
	d[3] ^= bswap32(s[3]);
}

/* Thread i encrypts packet p0 + i with AES-128-CBC (serial inside a
 * packet, so one thread per packet; the IV is in ctr[], the length a
 * multiple of 16, padding done by the host as the CPU task does). */
HD static inline void
aes_cbc_thread(const uint32_t *T, unsigned int lane, const struct kargs *a, uint32_t i)
{
	uint32_t p = a->p0 + i, nb = a->len[p] / 16;
	const uint32_t *rk = a->rk + 44 * a->key_idx[p];
	uint32_t v[4] = { a->ctr[4 * p], a->ctr[4 * p + 1], a->ctr[4 * p + 2], a->ctr[4 * p + 3] };
	uint32_t *d = (uint32_t *)(a->data + a->off[p]);

	for (uint32_t b = 0; b < nb; b++, d += 4) {
		v[0] ^= bswap32(d[0]);
		v[1] ^= bswap32(d[1]);
		v[2] ^= bswap32(d[2]);
		v[3] ^= bswap32(d[3]);
		aes_encrypt(T, lane, rk, v);
		d[0] = bswap32(v[0]);
		d[1] = bswap32(v[1]);
		d[2] = bswap32(v[2]);
		d[3] = bswap32(v[3]);
	}
}

#define DFA_MATCH 0x80000000u  /* HP_NF_AC_MATCH */
#define DFA_OWNROW 0x80000000u /* HP_NF_AC_OWNROW */
#define DFA_NO_MATCH 0xffffffffu

/* Index (0..3) of the first byte of w equal to b, or -1. */
HD static inline int
first_byte(uint32_t w, uint32_t b)
{
#ifdef __CUDA_ARCH__
	uint32_t m = __vcmpeq4(w, b * 0x01010101u);

	return m ? (__ffs(m) - 1) >> 3 : -1;
#else
	for (int j = 0; j < 4; j++)
		if (((w >> (8 * j)) & 0xff) == b)
			return j;
	return -1;
#endif
}

/* One step of lib/nf's compact DFA on byte b after byte a (hp_nf.h):
 * the state's 12 difference keys, else its own dense row, else row a. */
HD static inline uint32_t
dfa_step(const struct kargs *k, uint32_t s, uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
	uint4 st = __ldg(&k->dfa_st[s]);
#else
	uint4 st = k->dfa_st[s];
#endif
	uint32_t own = st.w & DFA_OWNROW, idx;
	int i = -1;

	if (!own) {
		int j;

		if ((j = first_byte(st.x, b)) >= 0)
			i = j;
		else if ((j = first_byte(st.y, b)) >= 0)
			i = 4 + j;
		else if ((j = first_byte(st.z, b)) >= 0)
			i = 8 + j;
	}
	idx = i >= 0 ? st.w + (uint32_t)i : (own ? st.w & ~DFA_OWNROW : a << 8) + b;
#ifdef __CUDA_ARCH__
	return __ldg(&k->dfa_tab[idx]);
#else
	return k->dfa_tab[idx];
#endif
}

/* Thread i walks packet p0 + i: match count and first id, as
 * hp_nf_ac_scan does. The payload is only read (no copy back). */
HD static inline void
dfa_thread(const struct kargs *k, uint32_t i)
{
	uint32_t p = k->p0 + i, len = k->len[p], s = 0, a = 256, count = 0;
	uint32_t first = DFA_NO_MATCH;
	const uint8_t *d = k->data + k->off[p];

	for (uint32_t j = 0; j < len; j++) {
		uint32_t b = d[j], e = dfa_step(k, s, a, b);

		a = b;
		s = e & ~DFA_MATCH;
		if (e & DFA_MATCH) {
			if (count == 0)
				first = k->dfa_first[s];
			count += k->dfa_count[s];
		}
	}
	k->match[2 * p] = count;
	k->match[2 * p + 1] = first;
}

#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
#define STEP(f, a, b, c, d, m, k, s) \
	do { (a) += f((b), (c), (d)) + (m) + (k); (a) = (b) + (((a) << (s)) | ((a) >> (32 - (s)))); } while (0)

/* One 64-byte MD5 block (RFC 1321 §3.4; constants are its table T). */
HD static inline void
md5_block(uint32_t h[4], const uint32_t *M)
{
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];

	STEP(F, a, b, c, d, M[0], 0xd76aa478u, 7);
	STEP(F, d, a, b, c, M[1], 0xe8c7b756u, 12);
	STEP(F, c, d, a, b, M[2], 0x242070dbu, 17);
	STEP(F, b, c, d, a, M[3], 0xc1bdceeeu, 22);
	STEP(F, a, b, c, d, M[4], 0xf57c0fafu, 7);
	STEP(F, d, a, b, c, M[5], 0x4787c62au, 12);
	STEP(F, c, d, a, b, M[6], 0xa8304613u, 17);
	STEP(F, b, c, d, a, M[7], 0xfd469501u, 22);
	STEP(F, a, b, c, d, M[8], 0x698098d8u, 7);
	STEP(F, d, a, b, c, M[9], 0x8b44f7afu, 12);
	STEP(F, c, d, a, b, M[10], 0xffff5bb1u, 17);
	STEP(F, b, c, d, a, M[11], 0x895cd7beu, 22);
	STEP(F, a, b, c, d, M[12], 0x6b901122u, 7);
	STEP(F, d, a, b, c, M[13], 0xfd987193u, 12);
	STEP(F, c, d, a, b, M[14], 0xa679438eu, 17);
	STEP(F, b, c, d, a, M[15], 0x49b40821u, 22);
	STEP(G, a, b, c, d, M[1], 0xf61e2562u, 5);
	STEP(G, d, a, b, c, M[6], 0xc040b340u, 9);
	STEP(G, c, d, a, b, M[11], 0x265e5a51u, 14);
	STEP(G, b, c, d, a, M[0], 0xe9b6c7aau, 20);
	STEP(G, a, b, c, d, M[5], 0xd62f105du, 5);
	STEP(G, d, a, b, c, M[10], 0x02441453u, 9);
	STEP(G, c, d, a, b, M[15], 0xd8a1e681u, 14);
	STEP(G, b, c, d, a, M[4], 0xe7d3fbc8u, 20);
	STEP(G, a, b, c, d, M[9], 0x21e1cde6u, 5);
	STEP(G, d, a, b, c, M[14], 0xc33707d6u, 9);
	STEP(G, c, d, a, b, M[3], 0xf4d50d87u, 14);
	STEP(G, b, c, d, a, M[8], 0x455a14edu, 20);
	STEP(G, a, b, c, d, M[13], 0xa9e3e905u, 5);
	STEP(G, d, a, b, c, M[2], 0xfcefa3f8u, 9);
	STEP(G, c, d, a, b, M[7], 0x676f02d9u, 14);
	STEP(G, b, c, d, a, M[12], 0x8d2a4c8au, 20);
	STEP(H, a, b, c, d, M[5], 0xfffa3942u, 4);
	STEP(H, d, a, b, c, M[8], 0x8771f681u, 11);
	STEP(H, c, d, a, b, M[11], 0x6d9d6122u, 16);
	STEP(H, b, c, d, a, M[14], 0xfde5380cu, 23);
	STEP(H, a, b, c, d, M[1], 0xa4beea44u, 4);
	STEP(H, d, a, b, c, M[4], 0x4bdecfa9u, 11);
	STEP(H, c, d, a, b, M[7], 0xf6bb4b60u, 16);
	STEP(H, b, c, d, a, M[10], 0xbebfbc70u, 23);
	STEP(H, a, b, c, d, M[13], 0x289b7ec6u, 4);
	STEP(H, d, a, b, c, M[0], 0xeaa127fau, 11);
	STEP(H, c, d, a, b, M[3], 0xd4ef3085u, 16);
	STEP(H, b, c, d, a, M[6], 0x04881d05u, 23);
	STEP(H, a, b, c, d, M[9], 0xd9d4d039u, 4);
	STEP(H, d, a, b, c, M[12], 0xe6db99e5u, 11);
	STEP(H, c, d, a, b, M[15], 0x1fa27cf8u, 16);
	STEP(H, b, c, d, a, M[2], 0xc4ac5665u, 23);
	STEP(I, a, b, c, d, M[0], 0xf4292244u, 6);
	STEP(I, d, a, b, c, M[7], 0x432aff97u, 10);
	STEP(I, c, d, a, b, M[14], 0xab9423a7u, 15);
	STEP(I, b, c, d, a, M[5], 0xfc93a039u, 21);
	STEP(I, a, b, c, d, M[12], 0x655b59c3u, 6);
	STEP(I, d, a, b, c, M[3], 0x8f0ccc92u, 10);
	STEP(I, c, d, a, b, M[10], 0xffeff47du, 15);
	STEP(I, b, c, d, a, M[1], 0x85845dd1u, 21);
	STEP(I, a, b, c, d, M[8], 0x6fa87e4fu, 6);
	STEP(I, d, a, b, c, M[15], 0xfe2ce6e0u, 10);
	STEP(I, c, d, a, b, M[6], 0xa3014314u, 15);
	STEP(I, b, c, d, a, M[13], 0x4e0811a1u, 21);
	STEP(I, a, b, c, d, M[4], 0xf7537e82u, 6);
	STEP(I, d, a, b, c, M[11], 0xbd3af235u, 10);
	STEP(I, c, d, a, b, M[2], 0x2ad7d2bbu, 15);
	STEP(I, b, c, d, a, M[9], 0xeb86d391u, 21);

	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
}

/* Thread i hashes packet p0 + i: whole blocks straight from the staging
 * buffer (4-byte aligned, little endian as MD5 wants), then the padded
 * tail (RFC 1321 §3.1-3.2) built in registers. */
HD static inline void
md5_thread(const struct kargs *a, uint32_t i)
{
	uint32_t p = a->p0 + i, L = a->len[p], full = L / 64, rem = L % 64, j;
	const uint8_t *src = a->data + a->off[p];
	uint32_t h[4] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u };
	uint32_t M[16];
	uint8_t *out = a->digest + 16u * p;

	for (j = 0; j < full; j++)
		md5_block(h, (const uint32_t *)(src + 64u * j));
	for (j = 0; j < 16; j++)
		M[j] = 0;
	src += 64u * full;
	for (j = 0; j < rem; j++)
		M[j >> 2] |= (uint32_t)src[j] << (8 * (j & 3));
	M[rem >> 2] |= 0x80u << (8 * (rem & 3));
	if (rem >= 56) {
		md5_block(h, M);
		for (j = 0; j < 16; j++)
			M[j] = 0;
	}
	M[14] = L << 3;
	M[15] = L >> 29;
	md5_block(h, M);
	for (j = 0; j < 4; j++) {
		out[4 * j] = (uint8_t)h[j];
		out[4 * j + 1] = (uint8_t)(h[j] >> 8);
		out[4 * j + 2] = (uint8_t)(h[j] >> 16);
		out[4 * j + 3] = (uint8_t)(h[j] >> 24);
	}
}

/* ---- LDPC ---- */

#define LDPC_MAXDEG 32 /* HP_LDPC_MAXDEG */
#define LDPC_RMAX 63   /* HP_LDPC_RMAX */

struct lcode {
	const uint32_t *row_start, *ent_col, *ent_shift;
	uint32_t z, mb, nb, punct, nnz;
};

HD static inline int
sat8(int x)
{
	return x > 127 ? 127 : x < -128 ? -128 : x;
}

HD static inline int
scale(int m, const struct hpk_ldpc_cfg *g)
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

/* Check node i of base row r: the scalar instance of lib/ldpc's layered
 * min-sum (hp_ldpc_kern.h) written out for one codeword, so a GPU thread
 * computes exactly what a CPU lane computes. Rows of one layer touch
 * disjoint bits (one block per column per base row), so the z threads of
 * a layer run in parallel and give the sequential result. */
HD static inline void
ldpc_row(const struct lcode *c, int8_t *L, int8_t *R, uint32_t r, uint32_t i, int first,
	 const struct hpk_ldpc_cfg *g)
{
	const uint32_t e0 = c->row_start[r], d = c->row_start[r + 1] - e0, z = c->z;
	int t[LDPC_MAXDEG], at[LDPC_MAXDEG];
	uint32_t pos[LDPC_MAXDEG];
	int mn1 = 128, mn2 = 128, sg = 0, s1, s2;

	for (uint32_t e = 0; e < d; e++) {
		uint32_t sh = c->ent_shift[e0 + e] + i;
		int l, x, a;

		pos[e] = c->ent_col[e0 + e] * z + (sh >= z ? sh - z : sh);
		l = L[pos[e]];
		x = first ? l : ((l < 0 ? -l : l) >= 127 ? l : sat8(l - R[(size_t)(e0 + e) * z + i]));
		a = x < 0 ? -x : x;
		t[e] = x;
		at[e] = a;
		mn2 = mn2 < (mn1 > a ? mn1 : a) ? mn2 : (mn1 > a ? mn1 : a);
		mn1 = mn1 < a ? mn1 : a;
		sg ^= x;
	}
	s1 = scale(mn1, g);
	s2 = scale(mn2, g);
	for (uint32_t e = 0; e < d; e++) {
		int mag = at[e] == mn1 ? s2 : s1;
		int rn = (sg ^ t[e]) < 0 ? -mag : mag;

		R[(size_t)(e0 + e) * z + i] = (int8_t)rn;
		L[pos[e]] = (int8_t)(at[e] >= 127 ? t[e] : sat8(t[e] + rn));
	}
}

/* 1 when check node i of base row r is unsatisfied. */
HD static inline int
ldpc_check(const struct lcode *c, const int8_t *L, uint32_t r, uint32_t i)
{
	const uint32_t e0 = c->row_start[r], d = c->row_start[r + 1] - e0, z = c->z;
	int par = 0;

	for (uint32_t e = 0; e < d; e++) {
		uint32_t sh = c->ent_shift[e0 + e] + i;

		par ^= L[c->ent_col[e0 + e] * z + (sh >= z ? sh - z : sh)] < 0;
	}
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

/* ---- kernels ---- */

__global__ void
k_aes_ctr(const uint32_t *__restrict__ t0, struct kargs a, uint32_t nblocks)
{
	__shared__ uint32_t T[256 * TCOPIES];
	uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;

	for (uint32_t i = threadIdx.x; i < 256 * TCOPIES; i += blockDim.x)
		T[i] = __ldg(&t0[i / TCOPIES]);
	__syncthreads();
	if (g < nblocks)
		aes_ctr_thread(T, threadIdx.x % TCOPIES, &a, g);
}

__global__ void
k_aes_cbc(const uint32_t *__restrict__ t0, struct kargs a)
{
	__shared__ uint32_t T[256 * TCOPIES];
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	for (uint32_t j = threadIdx.x; j < 256 * TCOPIES; j += blockDim.x)
		T[j] = __ldg(&t0[j / TCOPIES]);
	__syncthreads();
	if (i < a.np)
		aes_cbc_thread(T, threadIdx.x % TCOPIES, &a, i);
}

__global__ void
k_dfa(struct kargs a)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < a.np)
		dfa_thread(&a, i);
}

__global__ void
k_md5(struct kargs a)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < a.np)
		md5_thread(&a, i);
}

/* The layered iterations of one codeword whose LLRs are in L (shared)
 * by a thread block, one thread per check node of a layer. Returns the
 * iteration at which every check held (0: never within max_iter). */
__device__ static uint32_t
ldpc_decode_block(const struct lcode *c, const struct hpk_ldpc_cfg *g, int8_t *L, int8_t *R)
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

/* One thread block per codeword, one thread per check node of a layer;
 * the codeword's LLRs live in shared memory (<= 26 KiB for NR BG1 Z=384),
 * check-to-bit messages in global memory, coalesced across the layer. */
__global__ void
k_ldpc(struct lcode c, struct hpk_ldpc_cfg g, const int8_t *llr, int8_t *Rall, uint8_t *out,
       uint32_t out_bits, uint8_t *ok, uint8_t *iters)
{
	extern __shared__ int8_t L[];
	const uint32_t cw = blockIdx.x, nf = c.nb * c.z, n = nf - c.punct, tid = threadIdx.x;
	uint32_t done_it;

	for (uint32_t j = tid; j < nf; j += blockDim.x)
		L[j] = j < c.punct ? 0 : llr[(size_t)cw * n + j - c.punct];
	__syncthreads();
	done_it = ldpc_decode_block(&c, &g, L, Rall + (size_t)cw * c.nnz * c.z);
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
__global__ void
k_ldpc_units(struct lcode c, struct hpk_ldpc_cfg g, struct lunit u, struct kargs a,
	     int8_t *Rall)
{
	extern __shared__ int8_t L[];
	__shared__ uint32_t cnt[1024];
	__shared__ uint32_t tot;
	const uint32_t T = blockDim.x, tid = threadIdx.x, ug = blockIdx.x + a.blk[a.p0];
	uint32_t lo = a.p0, hi = a.p0 + a.np - 1, p;
	const uint8_t *rx;
	uint8_t *dst;

	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (a.blk[mid] <= ug)
			lo = mid;
		else
			hi = mid - 1;
	}
	p = lo;
	rx = a.data + a.off[p] + (ug - a.blk[p]) * u.ulen;
	dst = a.aux + a.off[p] + (ug - a.blk[p]) * u.ulen;
	lu_load(&u, rx, L, tid, T);
	__syncthreads();
	if (ldpc_decode_block(&c, &g, L, Rall + (size_t)blockIdx.x * c.nnz * c.z) == 0)
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

/* ---- host emulation ---- */

static struct kargs
host_args(struct hpk_batch *b)
{
	struct kargs a;

	a.data = b->data;
	a.off = b->off;
	a.len = b->len;
	a.blk = b->blk;
	a.ctr = b->ctr;
	a.key_idx = b->key_idx;
	a.rk = b->rk;
	a.digest = b->digest;
	a.match = b->match;
	a.aux = b->aux;
	a.dfa_st = NULL;
	a.dfa_tab = a.dfa_count = a.dfa_first = NULL;
	a.p0 = 0;
	a.np = b->n;
	return a;
}

extern "C" void
hpk_emulate(enum hpk_op op, struct hpk_batch *b, const struct hpk_dfa *dfa)
{
	struct kargs a = host_args(b);

	if (b->n == 0)
		return;
	host_tables();
	/* Same thread numbering as the kernels: lane = thread % 32. */
	switch (op) {
	case HPK_AES_CTR:
		for (uint32_t g = 0; g < b->blk[b->n]; g++)
			aes_ctr_thread(host_t0, (g % THREADS) % TCOPIES, &a, g);
		break;
	case HPK_AES_CBC:
		for (uint32_t i = 0; i < b->n; i++)
			aes_cbc_thread(host_t0, (i % THREADS) % TCOPIES, &a, i);
		break;
	case HPK_DFA:
		a.dfa_st = (const uint4 *)dfa->st;
		a.dfa_tab = dfa->tab;
		a.dfa_count = dfa->out_count;
		a.dfa_first = dfa->out_first;
		for (uint32_t i = 0; i < b->n; i++)
			dfa_thread(&a, i);
		break;
	case HPK_MD5:
		for (uint32_t i = 0; i < b->n; i++)
			md5_thread(&a, i);
		break;
	case HPK_LDPC_UNITS:
		break; /* needs the code: hpk_ldpc_units_emulate */
	}
}

extern "C" int
hpk_layout(struct hpk_batch *b, const uint32_t *lens, uint32_t n, uint32_t cap_pkts,
	   uint32_t cap_bytes)
{
	uint32_t o = 0, blocks = 0;

	if (n > cap_pkts)
		return -ENOSPC;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nb = (lens[i] + 15) / 16;

		if ((uint64_t)o + 16ull * nb > cap_bytes)
			return -ENOSPC;
		b->off[i] = o;
		b->len[i] = lens[i];
		b->blk[i] = blocks;
		blocks += nb;
		o += 16 * nb;
	}
	b->blk[n] = blocks;
	b->n = n;
	b->data_bytes = o;
	return 0;
}

/* ---- the device side ---- */

struct hpk_stream {
	cudaStream_t st;
	cudaEvent_t ev;
	struct hpk_batch h;   /* pinned host */
	struct hpk_batch d;   /* device mirrors */
	enum hpk_op op;
	int8_t *R;            /* LDPC check-to-bit messages */
	size_t rcap;
};

struct hpk_ctx {
	int dev;
	unsigned int n;
	unsigned int engines;
	uint32_t cap_pkts, cap_bytes;
	uint32_t *d_t0;
	struct hpk_stream *s;
	int emul;             /* host emulation, no GPU */
	struct hpk_dfa hdfa;  /* emulation: the host DFA */
	/* LDPC units: the code (device copies; host ones for emulation) */
	struct lcode lc;
	struct hpk_ldpc_cfg lg;
	struct lunit lu;
	struct hpk_ldpc_code hcode;
	struct hpk_ldpc_units hunits;
	uint32_t *d_code;     /* row_start | ent_col | ent_shift */
	/* DFA, uploaded once */
	uint4 *d_dfa_st;
	uint32_t *d_dfa_tab, *d_dfa_count, *d_dfa_first;
};

#define CK(call) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { \
		snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_)); \
		return -EIO; \
	} } while (0)

static int
alloc_batch(struct hpk_batch *h, struct hpk_batch *d, uint32_t np, uint32_t nb,
	    char *err, size_t errlen)
{
	/* +16: the last block of a packet may be read whole. */
	CK(cudaHostAlloc((void **)&h->data, nb + 16, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->off, 4ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->len, 4ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->blk, 4ull * (np + 1), cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->ctr, 16ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->key_idx, 4ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->rk, 176ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->digest, 16ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->match, 8ull * np, cudaHostAllocDefault));
	CK(cudaHostAlloc((void **)&h->aux, nb + 16, cudaHostAllocDefault));
	CK(cudaMalloc((void **)&d->data, nb + 16));
	CK(cudaMalloc((void **)&d->off, 4ull * np));
	CK(cudaMalloc((void **)&d->len, 4ull * np));
	CK(cudaMalloc((void **)&d->blk, 4ull * (np + 1)));
	CK(cudaMalloc((void **)&d->ctr, 16ull * np));
	CK(cudaMalloc((void **)&d->key_idx, 4ull * np));
	CK(cudaMalloc((void **)&d->rk, 176ull * np));
	CK(cudaMalloc((void **)&d->digest, 16ull * np));
	CK(cudaMalloc((void **)&d->match, 8ull * np));
	CK(cudaMalloc((void **)&d->aux, nb + 16));
	return 0;
}

static void
free_batch(struct hpk_batch *h, struct hpk_batch *d)
{
	cudaFreeHost(h->data);
	cudaFreeHost(h->off);
	cudaFreeHost(h->len);
	cudaFreeHost(h->blk);
	cudaFreeHost(h->ctr);
	cudaFreeHost(h->key_idx);
	cudaFreeHost(h->rk);
	cudaFreeHost(h->digest);
	cudaFreeHost(h->match);
	cudaFreeHost(h->aux);
	cudaFree(d->data);
	cudaFree(d->off);
	cudaFree(d->len);
	cudaFree(d->blk);
	cudaFree(d->ctr);
	cudaFree(d->key_idx);
	cudaFree(d->rk);
	cudaFree(d->digest);
	cudaFree(d->match);
	cudaFree(d->aux);
}

extern "C" int
hpk_host_alloc(struct hpk_batch *h, uint32_t np, uint32_t nb)
{
	h->data = (uint8_t *)aligned_alloc(64, (nb + 16 + 63) / 64 * 64);
	h->off = (uint32_t *)calloc(np, 4);
	h->len = (uint32_t *)calloc(np, 4);
	h->blk = (uint32_t *)calloc(np + 1, 4);
	h->ctr = (uint32_t *)calloc(np, 16);
	h->key_idx = (uint32_t *)calloc(np, 4);
	h->rk = (uint32_t *)calloc(np, 176);
	h->digest = (uint8_t *)calloc(np, 16);
	h->match = (uint32_t *)calloc(np, 8);
	h->aux = (uint8_t *)aligned_alloc(64, (nb + 16 + 63) / 64 * 64);
	return h->data && h->off && h->len && h->blk && h->ctr && h->key_idx && h->rk &&
	       h->digest && h->match && h->aux ? 0 : -ENOMEM;
}

extern "C" void
hpk_host_free(struct hpk_batch *h)
{
	free(h->data);
	free(h->off);
	free(h->len);
	free(h->blk);
	free(h->ctr);
	free(h->key_idx);
	free(h->rk);
	free(h->digest);
	free(h->match);
	free(h->aux);
}

extern "C" int
hpk_open_emul(struct hpk_ctx **ctx, unsigned int nstreams, uint32_t cap_pkts,
	      uint32_t cap_bytes, char *info, size_t infolen)
{
	struct hpk_ctx *c = (struct hpk_ctx *)calloc(1, sizeof(*c));

	if (c == NULL)
		return -ENOMEM;
	c->emul = 1;
	c->n = nstreams ? nstreams : 1;
	c->cap_pkts = cap_pkts;
	c->cap_bytes = cap_bytes;
	c->s = (struct hpk_stream *)calloc(c->n, sizeof(*c->s));
	if (c->s == NULL) {
		free(c);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < c->n; i++)
		if (hpk_host_alloc(&c->s[i].h, cap_pkts, cap_bytes) < 0) {
			hpk_close(c);
			return -ENOMEM;
		}
	snprintf(info, infolen, "host emulation of the CUDA kernels (no GPU; for tests)");
	*ctx = c;
	return 0;
}

extern "C" void
hpk_close(struct hpk_ctx *c)
{
	if (c == NULL)
		return;
	if (c->emul) {
		for (unsigned int i = 0; c->s != NULL && i < c->n; i++)
			hpk_host_free(&c->s[i].h);
		free(c->s);
		free(c);
		return;
	}
	cudaSetDevice(c->dev);
	for (unsigned int i = 0; c->s != NULL && i < c->n; i++) {
		if (c->s[i].st != NULL)
			cudaStreamSynchronize(c->s[i].st);
		free_batch(&c->s[i].h, &c->s[i].d);
		cudaFree(c->s[i].R);
		if (c->s[i].ev != NULL)
			cudaEventDestroy(c->s[i].ev);
		if (c->s[i].st != NULL)
			cudaStreamDestroy(c->s[i].st);
	}
	cudaFree(c->d_t0);
	cudaFree(c->d_dfa_st);
	cudaFree(c->d_dfa_tab);
	cudaFree(c->d_dfa_count);
	cudaFree(c->d_dfa_first);
	cudaFree(c->d_code);
	free(c->s);
	free(c);
}

static int
open_inner(struct hpk_ctx *c, char *info, size_t infolen, char *err, size_t errlen)
{
	struct cudaDeviceProp pr;
	int ndev = 0, drv = 0, rt = 0;
	uint32_t t0[256];

	CK(cudaGetDeviceCount(&ndev));
	if (c->dev >= ndev) {
		snprintf(err, errlen, "GPU %d requested, %d present", c->dev, ndev);
		return -ENODEV;
	}
	CK(cudaSetDevice(c->dev));
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
	make_t0(t0);
	CK(cudaMalloc((void **)&c->d_t0, sizeof(t0)));
	CK(cudaMemcpy(c->d_t0, t0, sizeof(t0), cudaMemcpyHostToDevice));
	c->s = (struct hpk_stream *)calloc(c->n, sizeof(*c->s));
	if (c->s == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->n; i++) {
		int ret;

		CK(cudaStreamCreateWithFlags(&c->s[i].st, cudaStreamNonBlocking));
		CK(cudaEventCreateWithFlags(&c->s[i].ev, cudaEventDisableTiming));
		ret = alloc_batch(&c->s[i].h, &c->s[i].d, c->cap_pkts, c->cap_bytes, err, errlen);
		if (ret < 0)
			return ret;
	}
	return 0;
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

static struct kargs
dev_args(struct hpk_ctx *c, struct hpk_stream *s, uint32_t p0, uint32_t np)
{
	struct kargs a = host_args(&s->d);

	a.dfa_st = c->d_dfa_st;
	a.dfa_tab = c->d_dfa_tab;
	a.dfa_count = c->d_dfa_count;
	a.dfa_first = c->d_dfa_first;
	a.p0 = p0;
	a.np = np;
	return a;
}

/* H2D of packets [p0, p0+np) of stream s's batch: their payload range and
 * parameters. */
/* Bytes [lo, hi) of the staging that packets [p0, p0+np) occupy. */
static void
span(const struct hpk_batch *h, uint32_t p0, uint32_t np, uint32_t *lo, uint32_t *hi)
{
	uint32_t last = p0 + np - 1;

	*lo = h->off[p0];
	*hi = h->off[last] + (h->len[last] + 15) / 16 * 16;
}

static cudaError_t
h2d(struct hpk_stream *s, enum hpk_op op, uint32_t p0, uint32_t np, bool with_keys,
    cudaStream_t st)
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
	if (e == cudaSuccess && (op == HPK_AES_CTR || op == HPK_AES_CBC)) {
		e = cudaMemcpyAsync(d->ctr + 4 * p0, h->ctr + 4 * p0, 16ull * np,
				    cudaMemcpyHostToDevice, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(d->key_idx + p0, h->key_idx + p0, 4ull * np,
					    cudaMemcpyHostToDevice, st);
		if (e == cudaSuccess && with_keys)
			e = cudaMemcpyAsync(d->rk, h->rk, 176ull * h->n_keys,
					    cudaMemcpyHostToDevice, st);
	}
	if (e == cudaSuccess && op == HPK_LDPC_UNITS)
		e = cudaMemsetAsync(d->match + 2 * p0, 0, 8ull * np, st);
	return e;
}

static cudaError_t
kernel(struct hpk_ctx *c, struct hpk_stream *s, enum hpk_op op, uint32_t p0, uint32_t np,
       cudaStream_t st)
{
	struct kargs a = dev_args(c, s, p0, np);

	if (np == 0)
		return cudaSuccess;
	if (op == HPK_AES_CTR) {
		uint32_t nb = s->h.blk[p0 + np] - s->h.blk[p0];

		if (nb == 0)
			return cudaSuccess;
		k_aes_ctr<<<(nb + THREADS - 1) / THREADS, THREADS, 0, st>>>(c->d_t0, a, nb);
	} else if (op == HPK_AES_CBC) {
		k_aes_cbc<<<(np + 127) / 128, 128, 0, st>>>(c->d_t0, a);
	} else if (op == HPK_DFA) {
		if (c->d_dfa_st == NULL)
			return cudaErrorInvalidValue; /* no DFA uploaded */
		k_dfa<<<(np + 127) / 128, 128, 0, st>>>(a);
	} else if (op == HPK_LDPC_UNITS) {
		uint32_t nu = s->h.blk[p0 + np] - s->h.blk[p0];
		size_t need = (size_t)nu * c->lc.nnz * c->lc.z;
		cudaError_t e;

		if (c->lc.row_start == NULL)
			return cudaErrorInvalidValue; /* no code set up */
		if (nu == 0)
			return cudaSuccess;
		if (need > s->rcap) {
			/* messages for the largest batch so far (grows rarely) */
			cudaFree(s->R);
			s->R = NULL;
			s->rcap = 0;
			e = cudaMalloc((void **)&s->R, need);
			if (e != cudaSuccess)
				return e;
			s->rcap = need;
		}
		k_ldpc_units<<<nu, ldpc_threads(c->lc.z), c->lc.nb * c->lc.z, st>>>(
			c->lc, c->lg, c->lu, a, s->R);
	} else {
		k_md5<<<(np + 127) / 128, 128, 0, st>>>(a);
	}
	return cudaGetLastError();
}

/* D2H only of what the task changed: AES the payload, MD5 the digests,
 * the DFA its (count, first) pairs. */
static cudaError_t
d2h(struct hpk_stream *s, enum hpk_op op, uint32_t p0, uint32_t np, cudaStream_t st)
{
	struct hpk_batch *h = &s->h, *d = &s->d;

	if (op == HPK_AES_CTR || op == HPK_AES_CBC) {
		uint32_t lo, hi;

		span(h, p0, np, &lo, &hi);
		return cudaMemcpyAsync(h->data + lo, d->data + lo, hi - lo, cudaMemcpyDeviceToHost, st);
	}
	if (op == HPK_DFA)
		return cudaMemcpyAsync(h->match + 2 * p0, d->match + 2 * p0, 8ull * np,
				       cudaMemcpyDeviceToHost, st);
	if (op == HPK_LDPC_UNITS) {
		uint32_t lo, hi;
		cudaError_t e;

		span(h, p0, np, &lo, &hi);
		e = cudaMemcpyAsync(h->aux + lo, d->aux + lo, hi - lo, cudaMemcpyDeviceToHost, st);
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(h->match + 2 * p0, d->match + 2 * p0, 8ull * np,
					    cudaMemcpyDeviceToHost, st);
		return e;
	}
	return cudaMemcpyAsync(h->digest + 16 * p0, d->digest + 16 * p0, 16ull * np,
			       cudaMemcpyDeviceToHost, st);
}

extern "C" int
hpk_launch(struct hpk_ctx *c, unsigned int si, enum hpk_op op, char *err, size_t errlen)
{
	struct hpk_stream *s = &c->s[si];

	if (s->h.n == 0)
		return 0;
	s->op = op;
	if (c->emul) {
		if (op == HPK_DFA && c->hdfa.st == NULL) {
			snprintf(err, errlen, "no DFA uploaded");
			return -EINVAL;
		}
		if (op == HPK_LDPC_UNITS) {
			if (c->hcode.row_start == NULL) {
				snprintf(err, errlen, "no LDPC code set up");
				return -EINVAL;
			}
			return hpk_ldpc_units_emulate(&c->hcode, &c->lg, &c->hunits, &s->h);
		}
		hpk_emulate(op, &s->h, &c->hdfa);
		return 0;
	}
	CK(h2d(s, op, 0, s->h.n, true, s->st));
	CK(kernel(c, s, op, 0, s->h.n, s->st));
	CK(d2h(s, op, 0, s->h.n, s->st));
	CK(cudaEventRecord(s->ev, s->st));
	return 0;
}

extern "C" int
hpk_query(struct hpk_ctx *c, unsigned int si, char *err, size_t errlen)
{
	cudaError_t e;

	if (c->emul)
		return 1;
	e = cudaEventQuery(c->s[si].ev);
	if (e == cudaSuccess)
		return 1;
	if (e == cudaErrorNotReady)
		return 0;
	snprintf(err, errlen, "cudaEventQuery: %s", cudaGetErrorString(e));
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
hpk_time_kernel(struct hpk_ctx *c, unsigned int si, enum hpk_op op, unsigned int iters)
{
	struct hpk_stream *s = &c->s[si];
	cudaEvent_t a, b;
	float ms = 0;

	if (cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess)
		return -1;
	if (kernel(c, s, op, 0, s->h.n, s->st) != cudaSuccess) /* warm-up */
		return -1;
	cudaEventRecord(a, s->st);
	for (unsigned int i = 0; i < iters; i++)
		kernel(c, s, op, 0, s->h.n, s->st);
	cudaEventRecord(b, s->st);
	if (cudaEventSynchronize(b) != cudaSuccess || cudaGetLastError() != cudaSuccess)
		return -1;
	cudaEventElapsedTime(&ms, a, b);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return (double)ms / 1e3 / iters;
}

extern "C" double
hpk_time_e2e(struct hpk_ctx *c, enum hpk_op op, unsigned int iters)
{
	struct hpk_stream *s0 = &c->s[0];
	uint32_t n = s0->h.n, per = (n + c->n - 1) / c->n;
	double t;

	if (n == 0 || cudaDeviceSynchronize() != cudaSuccess)
		return -1;
	/* Flow keys stay resident on the GPU (a deployment keeps its key
	 * table there); each chunk copies payload and per-packet fields. */
	if ((op == HPK_AES_CTR || op == HPK_AES_CBC) &&
	    cudaMemcpy(s0->d.rk, s0->h.rk, 176ull * s0->h.n_keys, cudaMemcpyHostToDevice) != cudaSuccess)
		return -1;
	t = now_s();
	for (unsigned int it = 0; it < iters; it++) {
		if (c->engines <= 1) {
			/* one copy engine: breadth first, so copies of chunk
			 * k+1 queue behind copies of chunk k while kernels
			 * run (Weerasinghe's pattern B) */
			for (unsigned int k = 0; k < c->n && k * per < n; k++)
				h2d(s0, op, k * per, MINU(per, n - k * per), false, c->s[k].st);
			for (unsigned int k = 0; k < c->n && k * per < n; k++)
				kernel(c, s0, op, k * per, MINU(per, n - k * per), c->s[k].st);
			for (unsigned int k = 0; k < c->n && k * per < n; k++)
				d2h(s0, op, k * per, MINU(per, n - k * per), c->s[k].st);
		} else {
			/* separate H2D and D2H engines: depth first per stream
			 * (pattern C) */
			for (unsigned int k = 0; k < c->n && k * per < n; k++) {
				uint32_t m = MINU(per, n - k * per);

				h2d(s0, op, k * per, m, false, c->s[k].st);
				kernel(c, s0, op, k * per, m, c->s[k].st);
				d2h(s0, op, k * per, m, c->s[k].st);
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

extern "C" int
hpk_dfa_upload(struct hpk_ctx *c, const struct hpk_dfa *dfa, char *err, size_t errlen)
{
	if (c->emul) {
		c->hdfa = *dfa;
		return 0;
	}
	CK(cudaSetDevice(c->dev));
	CK(cudaMalloc((void **)&c->d_dfa_st, 16ull * dfa->n_states));
	CK(cudaMalloc((void **)&c->d_dfa_tab, 4ull * dfa->tab_len));
	CK(cudaMalloc((void **)&c->d_dfa_count, 4ull * dfa->n_states));
	CK(cudaMalloc((void **)&c->d_dfa_first, 4ull * dfa->n_states));
	CK(cudaMemcpy(c->d_dfa_st, dfa->st, 16ull * dfa->n_states, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->d_dfa_tab, dfa->tab, 4ull * dfa->tab_len, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->d_dfa_count, dfa->out_count, 4ull * dfa->n_states, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->d_dfa_first, dfa->out_first, 4ull * dfa->n_states, cudaMemcpyHostToDevice));
	return 0;
}

static struct lcode
lcode_of(const struct hpk_ldpc_code *c)
{
	struct lcode l;

	l.row_start = c->row_start;
	l.ent_col = c->ent_col;
	l.ent_shift = c->ent_shift;
	l.z = c->z;
	l.mb = c->mb;
	l.nb = c->nb;
	l.punct = c->punct;
	l.nnz = c->nnz;
	return l;
}

/* ldpc_decode_block on the CPU: each layer's rows one after another. */
static uint32_t
emul_decode(const struct lcode *c, const struct hpk_ldpc_cfg *g, int8_t *L, int8_t *R)
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

static struct lunit
lunit_of(const struct lcode *c, const struct hpk_ldpc_units *uu)
{
	struct lunit u;

	u.ulen = uu->ulen;
	u.maxflip = uu->maxflip;
	u.llr = uu->llr;
	u.nf = c->nb * c->z;
	u.p = c->punct;
	u.n = u.nf - u.p;
	u.k = (c->nb - c->mb) * c->z;
	u.ib = (u.k + 7) / 8;
	return u;
}

static struct lcode lcode_of(const struct hpk_ldpc_code *c);

/* k_ldpc_units on the CPU: per unit, the kernel's phases for every
 * thread in turn (the barriers' order). */
extern "C" int
hpk_ldpc_units_emulate(const struct hpk_ldpc_code *hc, const struct hpk_ldpc_cfg *g,
		       const struct hpk_ldpc_units *uu, struct hpk_batch *b)
{
	struct lcode c = lcode_of(hc);
	struct lunit u = lunit_of(&c, uu);
	const uint32_t T = ldpc_threads(c.z);
	int8_t *L = (int8_t *)malloc(u.nf), *R = (int8_t *)malloc((size_t)c.nnz * c.z);
	uint32_t *cnt = (uint32_t *)malloc(4ull * T);

	if (L == NULL || R == NULL || cnt == NULL) {
		free(L);
		free(R);
		free(cnt);
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < b->n; p++) {
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

extern "C" int
hpk_ldpc_emulate(const struct hpk_ldpc_code *hc, const struct hpk_ldpc_cfg *g,
		 const int8_t *llr, uint32_t n_cw, uint8_t *out, uint32_t out_bits,
		 uint8_t *ok, uint8_t *iters)
{
	struct lcode c = lcode_of(hc);
	const uint32_t nf = c.nb * c.z, n = nf - c.punct;
	int8_t *L = (int8_t *)malloc(nf), *R = (int8_t *)malloc((size_t)c.nnz * c.z);
	int nok = 0;

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
hpk_ldpc_gpu(struct hpk_ctx *ctx, const struct hpk_ldpc_code *hc, const struct hpk_ldpc_cfg *g,
	     const int8_t *llr, uint32_t n_cw, uint8_t *out, uint32_t out_bits, uint8_t *ok,
	     uint8_t *iters, double *secs, char *err, size_t errlen)
{
	struct lcode c = lcode_of(hc);
	const uint32_t nf = c.nb * c.z, n = nf - c.punct;
	uint32_t *d_rs = NULL, *d_col = NULL, *d_sh = NULL;
	int8_t *d_llr = NULL, *d_R = NULL;
	uint8_t *d_out = NULL, *d_ok = NULL, *d_it = NULL;
	cudaEvent_t a = NULL, b = NULL;
	unsigned int threads = (c.z + 31) / 32 * 32;
	float ms = 0;
	int ret = -EIO, nok = 0;
	cudaError_t e;

#define GO(call) do { e = (call); if (e != cudaSuccess) { \
	snprintf(err, errlen, "%s: %s", #call, cudaGetErrorString(e)); goto out; } } while (0)
	GO(cudaSetDevice(ctx->dev));
	GO(cudaMalloc((void **)&d_rs, 4ull * (c.mb + 1)));
	GO(cudaMalloc((void **)&d_col, 4ull * c.nnz));
	GO(cudaMalloc((void **)&d_sh, 4ull * c.nnz));
	GO(cudaMalloc((void **)&d_llr, (size_t)n_cw * n));
	GO(cudaMalloc((void **)&d_R, (size_t)n_cw * c.nnz * c.z));
	GO(cudaMalloc((void **)&d_out, (size_t)n_cw * out_bits));
	GO(cudaMalloc((void **)&d_ok, n_cw));
	GO(cudaMalloc((void **)&d_it, n_cw));
	GO(cudaMemcpy(d_rs, hc->row_start, 4ull * (c.mb + 1), cudaMemcpyHostToDevice));
	GO(cudaMemcpy(d_col, hc->ent_col, 4ull * c.nnz, cudaMemcpyHostToDevice));
	GO(cudaMemcpy(d_sh, hc->ent_shift, 4ull * c.nnz, cudaMemcpyHostToDevice));
	GO(cudaMemcpy(d_llr, llr, (size_t)n_cw * n, cudaMemcpyHostToDevice));
	c.row_start = d_rs;
	c.ent_col = d_col;
	c.ent_shift = d_sh;
	GO(cudaEventCreate(&a));
	GO(cudaEventCreate(&b));
	GO(cudaEventRecord(a, 0));
	k_ldpc<<<n_cw, threads, nf>>>(c, *g, d_llr, d_R, d_out, out_bits, d_ok, d_it);
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
	cudaFree(d_rs);
	cudaFree(d_col);
	cudaFree(d_sh);
	cudaFree(d_llr);
	cudaFree(d_R);
	cudaFree(d_out);
	cudaFree(d_ok);
	cudaFree(d_it);
	return ret;
}

extern "C" int
hpk_ldpc_setup(struct hpk_ctx *c, const struct hpk_ldpc_code *hc, const struct hpk_ldpc_cfg *g,
	       const struct hpk_ldpc_units *u, char *err, size_t errlen)
{
	uint32_t words = hc->mb + 1 + 2 * hc->nnz;

	if (ldpc_threads(hc->z) > 1024 || hc->row_start[hc->mb] != hc->nnz) {
		snprintf(err, errlen, "LDPC code with z=%u does not fit the units kernel", hc->z);
		return -EINVAL;
	}
	c->hcode = *hc;  /* the caller keeps the arrays alive */
	c->lg = *g;
	c->hunits = *u;
	c->lc = lcode_of(hc);
	c->lu = lunit_of(&c->lc, u);
	if (c->emul)
		return 0;
	CK(cudaSetDevice(c->dev));
	CK(cudaMalloc((void **)&c->d_code, 4ull * words));
	CK(cudaMemcpy(c->d_code, hc->row_start, 4ull * (hc->mb + 1), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->d_code + hc->mb + 1, hc->ent_col, 4ull * hc->nnz, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(c->d_code + hc->mb + 1 + hc->nnz, hc->ent_shift, 4ull * hc->nnz,
		      cudaMemcpyHostToDevice));
	c->lc.row_start = c->d_code;
	c->lc.ent_col = c->d_code + hc->mb + 1;
	c->lc.ent_shift = c->d_code + hc->mb + 1 + hc->nnz;
	return 0;
}
