/* SPDX-License-Identifier: BSD-3-Clause
 * The multi-buffer MD5 kernel, written once and compiled per ISA: included
 * by nf_md5_avx2.c and nf_md5_avx512.c, which define LANES, the vector
 * type vec, the V* operations, VTRANSPOSE (the gather-free load), KT (the
 * target attribute), KN and KN_NG (the two functions' names, tagged with
 * their ISA for tests/isa/check_isa.py; every other function here is
 * always inlined into them).
 * KN loads the message words with gathers, KN_NG with row loads and a
 * transpose (unpack/permute): gathers are slow on AMD Zen (issue 28).
 * nf_md5.c picks a variant at run time.
 */
#ifndef NF_MD5_MB_H
#define NF_MD5_MB_H

#include <stdint.h>
#include <string.h>

#include "hp_nf.h"

static const uint32_t md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
	0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
	0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
	0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

#define STEP(fn, a, b, c, d, i, g, s) do { \
	a = VADD(a, VADD(fn(b, c, d), VADD(VSET1(md5_k[i]), m[g]))); \
	a = VADD(VROL(a, s), b); \
} while (0)

/* Per lane: where the current message stands. */
#define MB_CHUNK 64 /* messages sorted per call */

struct lane {
	const uint8_t *p;      /* next full block in the message */
	uint32_t full;         /* full 64-byte blocks left */
	uint32_t tail;         /* padded tail blocks left (1 or 2) */
	uint32_t tail_i;       /* next tail block */
	int job;               /* job index, -1 when idle */
	uint8_t slack[64];     /* room for the copy that ends in tailbuf */
	uint8_t tailbuf[128];  /* last partial block + padding + length */
};

/* Vector stores fill the tail buffer instead of memset and a memcpy of
 * the variable remainder: GCC expands those by -mtune (an 8-byte loop
 * with the portable build's generic tuning), which cost ~5 % of MD5 at
 * 64 B and IMIX against the old -march=native build on Zen 3. With the
 * stores: +6..10 % at 64 and 243 B, within 2 % at 1458 B and IMIX
 * (bench/isa/ab_native.sh, bench/results/portable-2026-11-26.md). A
 * message of 64 bytes and more has its last 64 bytes copied so that they
 * end at tailbuf + rem: the bytes before the tail land in slack. */
static inline __attribute__((always_inline)) KT void
lane_start(struct lane *l, const struct hp_nf_md5_job *j, int idx)
{
	uint32_t rem = j->len % 64;
	uint64_t bits = (uint64_t)j->len * 8;
	uint32_t tb = rem < 56 ? 1 : 2;

	l->p = j->data;
	l->full = j->len / 64;
	l->tail = tb;
	l->tail_i = 0;
	l->job = idx;
	for (unsigned int i = 0; i < sizeof(l->tailbuf); i += sizeof(vec))
		VSTOREU(l->tailbuf + i, VZERO());
	if (rem && l->full)
		for (unsigned int i = 0; i < 64; i += sizeof(vec))
			VSTOREU(l->tailbuf + rem - 64 + i,
				VLOADU(j->data + j->len - 64 + i));
	else if (rem)
		memcpy(l->tailbuf, j->data, rem);
	l->tailbuf[rem] = 0x80;
	for (int i = 0; i < 8; i++)
		l->tailbuf[tb * 64 - 8 + i] = (uint8_t)(bits >> (8 * i));
}

static inline const uint8_t *
lane_block(struct lane *l, const uint8_t *idle)
{
	if (l->job < 0)
		return idle;
	if (l->full > 0)
		return l->p;
	return l->tailbuf + 64 * l->tail_i;
}

/* Returns 1 when the lane's message is complete after this block. */
static inline int
lane_advance(struct lane *l)
{
	if (l->full > 0) {
		l->full--;
		l->p += 64;
		return 0;
	}
	l->tail_i++;
	return l->tail_i == l->tail;
}

static inline __attribute__((always_inline)) KT void
mb_chunk(struct hp_nf_md5_job *jobs, unsigned int n, const int nogather)
{
	static const uint8_t idle[64] __attribute__((aligned(64)));
	static const uint32_t iv[4] = { 0x67452301, 0xefcdab89, 0x98badcfe,
					0x10325476 };
	uint32_t st[4][LANES] __attribute__((aligned(64)));
	uint8_t stage[LANES][64] __attribute__((aligned(64)));
	int32_t off[LANES] __attribute__((aligned(64)));
	struct lane ln[LANES];
	unsigned int next = 0, active = 0;
	uint8_t ord[MB_CHUNK];

	/* Longest first, so the lanes drain together at the end instead of
	 * one long message hashing alone (bench/tasks, IMIX: 27 -> 39 Gbit/s). */
	for (unsigned int j = 0; j < n; j++) {
		unsigned int q = j;

		while (q > 0 && jobs[ord[q - 1]].len < jobs[j].len) {
			ord[q] = ord[q - 1];
			q--;
		}
		ord[q] = (uint8_t)j;
	}
	for (int l = 0; l < LANES; l++) {
		ln[l].job = -1;
		if (next < n) {
			lane_start(&ln[l], &jobs[ord[next]], ord[next]);
			next++;
			active++;
		}
		for (int w = 0; w < 4; w++)
			st[w][l] = iv[w];
		off[l] = l * 64;
	}

	while (active > 0) {
		vec m[16], a, b, c, d, a0, b0, c0, d0, idx;

		if (nogather) {
			/* Each lane's block loaded as rows straight from the
			 * message, then transposed in registers: 64 shuffles
			 * (AVX-512) or 48 (AVX2) per round instead of 16
			 * gathers and the 1 KiB staging copy: on Zen 4
			 * 1.33-1.50x the gathers with AVX-512, 1.20-1.39x
			 * with AVX2 (bench/results/nf-peer-2026-11-29.md). */
			const uint8_t *row[LANES];

			for (int l = 0; l < LANES; l++)
				row[l] = lane_block(&ln[l], idle);
			VTRANSPOSE(m, row);
		} else {
			/* The 16 words of every lane's block are gathered
			 * from a staging copy: messages, tail buffers (stack)
			 * and the idle block lie too far apart for 32-bit
			 * gather offsets. The copy is 1 KiB per round. */
			for (int l = 0; l < LANES; l++)
				memcpy(stage[l], lane_block(&ln[l], idle), 64);
			idx = VLOADU(off);
			for (int w = 0; w < 16; w++)
				m[w] = VGATHER(VADD(idx, VSET1(4 * w)), stage);
		}

		a = a0 = VLOAD(st[0]);
		b = b0 = VLOAD(st[1]);
		c = c0 = VLOAD(st[2]);
		d = d0 = VLOAD(st[3]);
		/* 64 steps of ~6 instructions (AVX-512) for 16 blocks at
		 * once; bench/tasks measures ~44 Gbit/s per core at 1458 B in
		 * batches of 32, 10x OpenSSL's scalar MD5. */
		STEP(VF, a, b, c, d, 0, 0, 7);   STEP(VF, d, a, b, c, 1, 1, 12);
		STEP(VF, c, d, a, b, 2, 2, 17);  STEP(VF, b, c, d, a, 3, 3, 22);
		STEP(VF, a, b, c, d, 4, 4, 7);   STEP(VF, d, a, b, c, 5, 5, 12);
		STEP(VF, c, d, a, b, 6, 6, 17);  STEP(VF, b, c, d, a, 7, 7, 22);
		STEP(VF, a, b, c, d, 8, 8, 7);   STEP(VF, d, a, b, c, 9, 9, 12);
		STEP(VF, c, d, a, b, 10, 10, 17); STEP(VF, b, c, d, a, 11, 11, 22);
		STEP(VF, a, b, c, d, 12, 12, 7); STEP(VF, d, a, b, c, 13, 13, 12);
		STEP(VF, c, d, a, b, 14, 14, 17); STEP(VF, b, c, d, a, 15, 15, 22);

		STEP(VG, a, b, c, d, 16, 1, 5);  STEP(VG, d, a, b, c, 17, 6, 9);
		STEP(VG, c, d, a, b, 18, 11, 14); STEP(VG, b, c, d, a, 19, 0, 20);
		STEP(VG, a, b, c, d, 20, 5, 5);  STEP(VG, d, a, b, c, 21, 10, 9);
		STEP(VG, c, d, a, b, 22, 15, 14); STEP(VG, b, c, d, a, 23, 4, 20);
		STEP(VG, a, b, c, d, 24, 9, 5);  STEP(VG, d, a, b, c, 25, 14, 9);
		STEP(VG, c, d, a, b, 26, 3, 14); STEP(VG, b, c, d, a, 27, 8, 20);
		STEP(VG, a, b, c, d, 28, 13, 5); STEP(VG, d, a, b, c, 29, 2, 9);
		STEP(VG, c, d, a, b, 30, 7, 14); STEP(VG, b, c, d, a, 31, 12, 20);

		STEP(VH, a, b, c, d, 32, 5, 4);  STEP(VH, d, a, b, c, 33, 8, 11);
		STEP(VH, c, d, a, b, 34, 11, 16); STEP(VH, b, c, d, a, 35, 14, 23);
		STEP(VH, a, b, c, d, 36, 1, 4);  STEP(VH, d, a, b, c, 37, 4, 11);
		STEP(VH, c, d, a, b, 38, 7, 16); STEP(VH, b, c, d, a, 39, 10, 23);
		STEP(VH, a, b, c, d, 40, 13, 4); STEP(VH, d, a, b, c, 41, 0, 11);
		STEP(VH, c, d, a, b, 42, 3, 16); STEP(VH, b, c, d, a, 43, 6, 23);
		STEP(VH, a, b, c, d, 44, 9, 4);  STEP(VH, d, a, b, c, 45, 12, 11);
		STEP(VH, c, d, a, b, 46, 15, 16); STEP(VH, b, c, d, a, 47, 2, 23);

		STEP(VI, a, b, c, d, 48, 0, 6);  STEP(VI, d, a, b, c, 49, 7, 10);
		STEP(VI, c, d, a, b, 50, 14, 15); STEP(VI, b, c, d, a, 51, 5, 21);
		STEP(VI, a, b, c, d, 52, 12, 6); STEP(VI, d, a, b, c, 53, 3, 10);
		STEP(VI, c, d, a, b, 54, 10, 15); STEP(VI, b, c, d, a, 55, 1, 21);
		STEP(VI, a, b, c, d, 56, 8, 6);  STEP(VI, d, a, b, c, 57, 15, 10);
		STEP(VI, c, d, a, b, 58, 6, 15); STEP(VI, b, c, d, a, 59, 13, 21);
		STEP(VI, a, b, c, d, 60, 4, 6);  STEP(VI, d, a, b, c, 61, 11, 10);
		STEP(VI, c, d, a, b, 62, 2, 15); STEP(VI, b, c, d, a, 63, 9, 21);

		VSTORE(st[0], VADD(a, a0));
		VSTORE(st[1], VADD(b, b0));
		VSTORE(st[2], VADD(c, c0));
		VSTORE(st[3], VADD(d, d0));

		for (int l = 0; l < LANES; l++) {
			if (ln[l].job < 0 || !lane_advance(&ln[l]))
				continue;
			for (int w = 0; w < 4; w++) {
				uint32_t x = st[w][l];
				uint8_t *o = jobs[ln[l].job].digest + 4 * w;

				o[0] = (uint8_t)x;
				o[1] = (uint8_t)(x >> 8);
				o[2] = (uint8_t)(x >> 16);
				o[3] = (uint8_t)(x >> 24);
				st[w][l] = iv[w];
			}
			ln[l].job = -1;
			active--;
			if (next < n) {
				lane_start(&ln[l], &jobs[ord[next]], ord[next]);
				next++;
				active++;
			}
		}
	}
}

KT void
KN(struct hp_nf_md5_job *jobs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i += MB_CHUNK)
		mb_chunk(jobs + i, n - i < MB_CHUNK ? n - i : MB_CHUNK, 0);
}

KT void
KN_NG(struct hp_nf_md5_job *jobs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i += MB_CHUNK)
		mb_chunk(jobs + i, n - i < MB_CHUNK ? n - i : MB_CHUNK, 1);
}

#endif /* NF_MD5_MB_H */
