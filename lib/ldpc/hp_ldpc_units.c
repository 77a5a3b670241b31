/* SPDX-License-Identifier: BSD-3-Clause
 * The `ran` app's packet units (see hp_ldpc.h): making received units
 * for traffic generators and tests, decoding the units of many packets
 * in one decoder call (so the SIMD lanes fill up even with one codeword
 * per packet), and the reference path that rebuilds received units from
 * decoded ones. Any code whose decoded unit has room for a flip list
 * works; the thesis unit is wifi:1944:1/2 (243 bytes). Pure functions
 * over byte buffers; the DPDK glue is in lib/task/ldpc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_ldpc_priv.h"

/* Unit geometry of a code, or -EINVAL when it cannot carry units. */
struct geom {
	unsigned int n, k, p, nf;  /* transmitted, info, punctured, full bits */
	unsigned int len, ib, maxflip;
};

static int
geom_of(const struct hp_ldpc_code *c, struct geom *g)
{
	if (c == NULL)
		return -EINVAL;
	g->nf = c->nb * c->z;
	g->p = c->punct;
	g->n = g->nf - g->p;
	g->k = c->kb * c->z;
	g->len = (g->n + 7) / 8;
	g->ib = (g->k + 7) / 8;
	if (g->nf > HP_LDPC_UNIT_MAXBITS || g->len < g->ib + 3)
		return -EINVAL;
	g->maxflip = (g->len - g->ib - 1) / 2;
	if (g->maxflip > 255)
		g->maxflip = 255;
	return 0;
}

int
hp_ldpc_unit_geom(const struct hp_ldpc_code *c, unsigned int *len,
		  unsigned int *max_flip)
{
	struct geom g;
	int rc = geom_of(c, &g);

	if (rc < 0)
		return rc;
	if (len != NULL)
		*len = g.len;
	if (max_flip != NULL)
		*max_flip = g.maxflip;
	return 0;
}

static inline uint64_t
xs(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The info bits of the unit made from seed; leaves the generator state
 * in *x for the bit errors. */
static void
gen_info(const struct geom *g, uint64_t seed, uint8_t *info, uint64_t *x)
{
	unsigned int j;
	uint64_t w = 0;

	*x = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (j = 0; j < g->k; j++) {
		if (j % 64 == 0)
			w = xs(x);
		info[j] = (uint8_t)(w >> (j % 64) & 1);
	}
}

int
hp_ldpc_unit_info(const struct hp_ldpc_code *c, uint64_t seed, uint8_t *info)
{
	uint8_t bits[HP_LDPC_UNIT_MAXBITS];
	struct geom g;
	uint64_t x;

	if (info == NULL || geom_of(c, &g) < 0)
		return -EINVAL;
	gen_info(&g, seed, bits, &x);
	hp_ldpc_pack(bits, g.k, info);
	return 0;
}

int
hp_ldpc_unit_gen(const struct hp_ldpc_code *c, uint8_t *unit, uint64_t seed,
		 unsigned int nflips)
{
	uint8_t info[HP_LDPC_UNIT_MAXBITS], cw[HP_LDPC_UNIT_MAXBITS];
	unsigned int j, f;
	struct geom g;
	uint64_t x;
	int rc;

	if (unit == NULL || geom_of(c, &g) < 0 || nflips > g.n)
		return -EINVAL;
	gen_info(&g, seed, info, &x);
	rc = hp_ldpc_encode(c, info, cw);
	if (rc < 0)
		return rc;
	/* Flip nflips distinct transmitted bits (bit 1 marks "flipped"). */
	for (f = 0; f < nflips;) {
		j = g.p + (unsigned int)(xs(&x) % g.n);
		if (cw[j] & 2)
			continue;
		cw[j] ^= 3;
		f++;
	}
	for (j = g.p; j < g.nf; j++)
		cw[j] &= 1;
	hp_ldpc_pack(cw + g.p, g.n, unit);
	return 0;
}

size_t
hp_ldpc_units_scratch(const struct hp_ldpc_dec *d, unsigned int units)
{
	struct geom g;

	if (d == NULL || geom_of(hp_ldpc_dec_code(d), &g) < 0)
		return 0;
	/* LLRs + decoded hard decisions + results */
	return (size_t)units * (g.n + g.nf + sizeof(struct hp_ldpc_result));
}

/* Writes the decoded form of one unit (hard decisions cw, n_full bits,
 * a codeword) into out, or returns -1 when more than maxflip received
 * bits differ from it (then out is untouched). */
static int
unit_write(const struct geom *g, const uint8_t *rx_bits, const uint8_t *cw,
	   uint8_t *out)
{
	uint8_t tmp[HP_LDPC_UNIT_MAXBITS / 8];
	unsigned int j, f = 0;

	memset(tmp, 0, g->len);
	hp_ldpc_pack(cw, g->k, tmp);
	for (j = 0; j < g->n; j++)
		if (cw[g->p + j] != rx_bits[j]) {
			if (f == g->maxflip)
				return -1;
			tmp[g->ib + 1 + 2 * f] = (uint8_t)(j >> 8);
			tmp[g->ib + 2 + 2 * f] = (uint8_t)j;
			f++;
		}
	tmp[g->ib] = (uint8_t)f;
	memcpy(out, tmp, g->len);
	return 0;
}

/* The byte loops around the decoder (bits to LLRs, the flip count, LLRs
 * back to bits: ~6 KB per wifi:1944 unit) are vectorised by the compiler,
 * so this body is compiled twice, for the baseline (SSE, 16 bytes a step)
 * and for AVX2 (32), and the decoder's ISA picks one. At the unit bench's
 * 0..15 flips the decoder stops after a few iterations and these loops
 * weigh: the baseline instance alone decoded ~8 % fewer units per CPU
 * second than the old -march=native build on a Zen 3 core in a paired
 * run, the AVX2 one is within the runs' spread of it
 * (bench/results/portable-2026-11-26.md). */
static inline __attribute__((always_inline)) int
units_decode(struct hp_ldpc_dec *d, uint8_t *const *bodies,
	     const uint32_t *lens, unsigned int n, uint8_t *ok, void *scratch)
{
	uint8_t bits[HP_LDPC_UNIT_MAXBITS];
	unsigned int i, u, j, total = 0, at;
	struct hp_ldpc_result *res;
	const struct hp_ldpc_code *c;
	uint8_t *hard;
	struct geom g;
	int8_t *llr;
	int rc, nok = 0;

	if (d == NULL || (n && (bodies == NULL || lens == NULL || ok == NULL ||
				scratch == NULL)))
		return -EINVAL;
	c = hp_ldpc_dec_code(d);
	if (geom_of(c, &g) < 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		total += lens[i] / g.len;
	llr = scratch;
	hard = (uint8_t *)scratch + (size_t)total * g.n;
	res = (struct hp_ldpc_result *)(hard + (size_t)total * g.nf);
	/* Hard decision b -> LLR +-HP_LDPC_UNIT_LLR (bit 0 positive). */
	for (i = 0, at = 0; i < n; i++)
		for (u = 0; u < lens[i] / g.len; u++, at++) {
			int8_t *l = llr + (size_t)at * g.n;

			hp_ldpc_unpack(bodies[i] + u * g.len, g.n, bits);
			for (j = 0; j < g.n; j++)
				l[j] = bits[j] ? -HP_LDPC_UNIT_LLR : HP_LDPC_UNIT_LLR;
		}
	rc = hp_ldpc_decode_hard(d, llr, g.n, total, hard, res);
	if (rc < 0)
		return rc;
	for (i = 0, at = 0; i < n; i++) {
		unsigned int nu = lens[i] / g.len;

		ok[i] = nu > 0;
		for (u = 0; u < nu; u++)
			ok[i] &= res[at + u].ok;
		/* Two passes: nothing in a body changes unless all fit. The
		 * received bits are re-read from the LLRs (sign), as the
		 * second pass overwrites the body. */
		for (u = 0; ok[i] && u < nu; u++) {
			const int8_t *l = llr + (size_t)(at + u) * g.n;
			const uint8_t *cw = hard + (size_t)(at + u) * g.nf;
			unsigned int f = 0;

			for (j = 0; j < g.n; j++)
				f += cw[g.p + j] != (l[j] < 0);
			if (f > g.maxflip)
				ok[i] = 0;
		}
		for (u = 0; ok[i] && u < nu; u++) {
			const int8_t *l = llr + (size_t)(at + u) * g.n;

			for (j = 0; j < g.n; j++)
				bits[j] = l[j] < 0;
			unit_write(&g, bits, hard + (size_t)(at + u) * g.nf,
				   bodies[i] + u * g.len);
		}
		nok += ok[i];
		at += nu;
	}
	return nok;
}

static int
units_decode_base(struct hp_ldpc_dec *d, uint8_t *const *bodies,
		  const uint32_t *lens, unsigned int n, uint8_t *ok,
		  void *scratch)
{
	return units_decode(d, bodies, lens, n, ok, scratch);
}

static __attribute__((target("avx2"))) int
units_decode_avx2(struct hp_ldpc_dec *d, uint8_t *const *bodies,
		  const uint32_t *lens, unsigned int n, uint8_t *ok,
		  void *scratch)
{
	return units_decode(d, bodies, lens, n, ok, scratch);
}

int
hp_ldpc_units_decode(struct hp_ldpc_dec *d, uint8_t *const *bodies,
		     const uint32_t *lens, unsigned int n, uint8_t *ok,
		     void *scratch)
{
	/* An AVX2 or AVX-512 kernel means the CPU has AVX2. */
	if (d != NULL && hp_ldpc_dec_isa_kind(d) >= HP_LDPC_ISA_AVX2)
		return units_decode_avx2(d, bodies, lens, n, ok, scratch);
	return units_decode_base(d, bodies, lens, n, ok, scratch);
}

int
hp_ldpc_units_restore(const struct hp_ldpc_code *c, uint8_t *body,
		      uint32_t len)
{
	uint8_t info[HP_LDPC_UNIT_MAXBITS], cw[HP_LDPC_UNIT_MAXBITS];
	unsigned int u, f, j, prev;
	struct geom g;

	if (body == NULL || geom_of(c, &g) < 0)
		return -EINVAL;
	for (u = 0; u < len / g.len; u++) {
		uint8_t *unit = body + u * g.len;

		f = unit[g.ib];
		if (f > g.maxflip ||
		    (g.k % 8 && (unit[g.ib - 1] & (0xffu >> (g.k % 8)))))
			return -EBADMSG;
		for (j = g.ib + 1 + 2 * f; j < g.len; j++)
			if (unit[j])
				return -EBADMSG;
		hp_ldpc_unpack(unit, g.k, info);
		if (hp_ldpc_encode(c, info, cw) < 0)
			return -EBADMSG;
		for (j = 0, prev = 0; j < f; j++) {
			unsigned int pos = (unit[g.ib + 1 + 2 * j] << 8) |
					   unit[g.ib + 2 + 2 * j];

			if (pos >= g.n || (j && pos <= prev))
				return -EBADMSG;
			cw[g.p + pos] ^= 1;
			prev = pos;
		}
		hp_ldpc_pack(cw + g.p, g.n, unit);
	}
	return 0;
}
