/* SPDX-License-Identifier: BSD-3-Clause
 * The `ran` app's packet units (see hp_ldpc.h): making received units
 * for traffic generators and tests, decoding the units of many packets
 * in one decoder call (so the SIMD lanes fill up even with one codeword
 * per packet), and the reference path that rebuilds received units from
 * decoded ones. Pure functions over byte buffers; the DPDK glue is in
 * hp_ldpc_task.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hp_ldpc_priv.h"

#define UNIT_N 1944
#define UNIT_K 972
#define INFO_BYTES 122

static int
is_unit_code(const struct hp_ldpc_code *c)
{
	return c->family == HP_LDPC_WIFI && c->nb * c->z == UNIT_N &&
	       c->kb * c->z == UNIT_K && c->punct == 0;
}

int
hp_ldpc_unit_gen(const struct hp_ldpc_code *c, uint8_t *unit, uint64_t seed,
		 unsigned int nflips)
{
	uint8_t info[UNIT_K], cw[UNIT_N];
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	unsigned int j, f;
	int rc;

	if (c == NULL || unit == NULL || !is_unit_code(c) || nflips > UNIT_N)
		return -EINVAL;
	for (j = 0; j < UNIT_K; j++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		info[j] = x >> 63;
	}
	rc = hp_ldpc_encode(c, info, cw);
	if (rc < 0)
		return rc;
	for (f = 0; f < nflips;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (unsigned int)(x % UNIT_N);
		if (cw[j] & 2)
			continue;  /* already flipped */
		cw[j] ^= 3;        /* flip, and mark */
		f++;
	}
	for (j = 0; j < UNIT_N; j++)
		cw[j] &= 1;
	hp_ldpc_pack(cw, UNIT_N, unit);
	return 0;
}

size_t
hp_ldpc_units_scratch(const struct hp_ldpc_dec *d, unsigned int units)
{
	(void)d;
	/* LLRs + decoded info + results + a codeword */
	return (size_t)units * (UNIT_N + UNIT_K + sizeof(struct hp_ldpc_result)) +
	       UNIT_N;
}

/* Writes the decoded form of one unit into out; -1 if too many flips. */
static int
unit_write(const struct hp_ldpc_code *c, const uint8_t *rx_bits,
	   const uint8_t *info, uint8_t *cw, uint8_t *out)
{
	unsigned int j, f = 0;
	uint8_t tmp[HP_LDPC_UNIT_LEN];

	hp_ldpc_encode(c, info, cw);
	memset(tmp, 0, sizeof(tmp));
	hp_ldpc_pack(info, UNIT_K, tmp);
	for (j = 0; j < UNIT_N; j++)
		if (cw[j] != rx_bits[j]) {
			if (f == HP_LDPC_UNIT_MAXFLIP)
				return -1;
			tmp[123 + 2 * f] = j >> 8;
			tmp[124 + 2 * f] = j & 0xff;
			f++;
		}
	tmp[122] = f;
	memcpy(out, tmp, HP_LDPC_UNIT_LEN);
	return 0;
}

int
hp_ldpc_units_decode(struct hp_ldpc_dec *d, uint8_t *const *bodies,
		     const uint32_t *lens, unsigned int n, uint8_t *ok,
		     void *scratch)
{
	const struct hp_ldpc_code *c;
	unsigned int i, u, j, total = 0, at;
	int8_t *llr;
	uint8_t *info, *cw, bits[UNIT_N];
	struct hp_ldpc_result *res;
	int rc, nok = 0;

	if (d == NULL || (n && (bodies == NULL || lens == NULL || ok == NULL ||
				scratch == NULL)))
		return -EINVAL;
	c = hp_ldpc_dec_code(d);
	if (!is_unit_code(c))
		return -EINVAL;
	for (i = 0; i < n; i++)
		total += lens[i] / HP_LDPC_UNIT_LEN;
	llr = scratch;
	info = (uint8_t *)scratch + (size_t)total * UNIT_N;
	res = (struct hp_ldpc_result *)(info + (size_t)total * UNIT_K);
	cw = (uint8_t *)(res + total);
	/* Hard decision b -> LLR +-HP_LDPC_UNIT_LLR (bit 0 positive). */
	for (i = 0, at = 0; i < n; i++)
		for (u = 0; u < lens[i] / HP_LDPC_UNIT_LEN; u++, at++) {
			hp_ldpc_unpack(bodies[i] + u * HP_LDPC_UNIT_LEN, UNIT_N, bits);
			for (j = 0; j < UNIT_N; j++)
				llr[(size_t)at * UNIT_N + j] =
					bits[j] ? -HP_LDPC_UNIT_LLR : HP_LDPC_UNIT_LLR;
		}
	rc = hp_ldpc_decode(d, llr, UNIT_N, total, info, res);
	if (rc < 0)
		return rc;
	for (i = 0, at = 0; i < n; i++) {
		unsigned int nu = lens[i] / HP_LDPC_UNIT_LEN;

		ok[i] = nu > 0;
		for (u = 0; u < nu; u++)
			ok[i] &= res[at + u].ok;
		/* Two passes: nothing in a body changes unless all fit. */
		for (u = 0; ok[i] && u < nu; u++) {
			uint8_t probe[HP_LDPC_UNIT_LEN];

			hp_ldpc_unpack(bodies[i] + u * HP_LDPC_UNIT_LEN, UNIT_N, bits);
			if (unit_write(c, bits, info + (size_t)(at + u) * UNIT_K, cw, probe) < 0)
				ok[i] = 0;
		}
		for (u = 0; ok[i] && u < nu; u++) {
			uint8_t *unit = bodies[i] + u * HP_LDPC_UNIT_LEN;

			hp_ldpc_unpack(unit, UNIT_N, bits);
			unit_write(c, bits, info + (size_t)(at + u) * UNIT_K, cw, unit);
		}
		nok += ok[i];
		at += nu;
	}
	return nok;
}

int
hp_ldpc_units_restore(const struct hp_ldpc_code *c, uint8_t *body,
		      uint32_t len)
{
	uint8_t info[UNIT_K], cw[UNIT_N];
	unsigned int u, f, j, prev;

	if (c == NULL || body == NULL || !is_unit_code(c))
		return -EINVAL;
	for (u = 0; u < len / HP_LDPC_UNIT_LEN; u++) {
		uint8_t *unit = body + u * HP_LDPC_UNIT_LEN;

		f = unit[122];
		if (f > HP_LDPC_UNIT_MAXFLIP || (unit[121] & 0x0f))
			return -EBADMSG;
		for (j = 123 + 2 * f; j < HP_LDPC_UNIT_LEN; j++)
			if (unit[j])
				return -EBADMSG;
		hp_ldpc_unpack(unit, UNIT_K, info);
		if (hp_ldpc_encode(c, info, cw) < 0)
			return -EBADMSG;
		for (j = 0, prev = 0; j < f; j++) {
			unsigned int pos = (unit[123 + 2 * j] << 8) | unit[124 + 2 * j];

			if (pos >= UNIT_N || (j && pos <= prev))
				return -EBADMSG;
			cw[pos] ^= 1;
			prev = pos;
		}
		hp_ldpc_pack(cw, UNIT_N, unit);
	}
	return 0;
}
