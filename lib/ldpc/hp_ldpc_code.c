/* SPDX-License-Identifier: BSD-3-Clause
 * LDPC code construction from the standard tables (spec string -> lifted
 * base matrix), the systematic encoder and the syndrome check.
 *
 * The encoder is generic over both families: the parity part of H is a
 * "core" of g block rows/columns (802.11n: all rows, dual-diagonal; NR:
 * the 4x4 double-diagonal block) followed by extension rows that each own
 * one parity column. The core is inverted once (dense GF(2) elimination at
 * code creation: ~60 ms for NR Z=384, g*z = 1536) so no family-specific
 * encoding rule has to be trusted; a structure violation is an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_ldpc_priv.h"
#include "hp_ldpc_tables.h"

const char *
hp_ldpc_code_name(const struct hp_ldpc_code *c) { return c->name; }
enum hp_ldpc_family
hp_ldpc_code_family(const struct hp_ldpc_code *c) { return c->family; }
unsigned int
hp_ldpc_code_k(const struct hp_ldpc_code *c) { return c->kb * c->z; }
unsigned int
hp_ldpc_code_n_full(const struct hp_ldpc_code *c) { return c->nb * c->z; }
unsigned int
hp_ldpc_code_n(const struct hp_ldpc_code *c)
{
	return c->nb * c->z - c->punct;
}
unsigned int
hp_ldpc_code_punct(const struct hp_ldpc_code *c) { return c->punct; }
unsigned int
hp_ldpc_code_z(const struct hp_ldpc_code *c) { return c->z; }
unsigned int
hp_ldpc_code_rows(const struct hp_ldpc_code *c) { return c->mb; }
unsigned int
hp_ldpc_code_cols(const struct hp_ldpc_code *c) { return c->nb; }
unsigned int
hp_ldpc_code_nnz(const struct hp_ldpc_code *c) { return c->nnz; }

int
hp_ldpc_code_entry(const struct hp_ldpc_code *c, unsigned int i,
		   unsigned int *row, unsigned int *col, unsigned int *shift)
{
	unsigned int r;

	if (c == NULL || i >= c->nnz)
		return -EINVAL;
	for (r = 0; r < c->mb; r++)
		if (i < c->row_start[r + 1])
			break;
	if (row)
		*row = r;
	if (col)
		*col = c->ent_col[i];
	if (shift)
		*shift = c->ent_shift[i];
	return 0;
}

void
hp_ldpc_code_free(struct hp_ldpc_code *c)
{
	if (c == NULL)
		return;
	free(c->row_start);
	free(c->ent_col);
	free(c->ent_shift);
	free(c->binv);
	free(c);
}

static struct hp_ldpc_code *
code_alloc(unsigned int mb, unsigned int nnz)
{
	struct hp_ldpc_code *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->row_start = calloc(mb + 1, sizeof(uint16_t));
	c->ent_col = calloc(nnz ? nnz : 1, sizeof(uint16_t));
	c->ent_shift = calloc(nnz ? nnz : 1, sizeof(uint16_t));
	if (!c->row_start || !c->ent_col || !c->ent_shift) {
		hp_ldpc_code_free(c);
		return NULL;
	}
	return c;
}

static int
build_wifi(unsigned int n, unsigned int num, unsigned int den,
	   struct hp_ldpc_code **out)
{
	const struct hp_ldpc_wifi_table *t = NULL;
	struct hp_ldpc_code *c;
	unsigned int i, r, j, nnz = 0;

	for (i = 0; i < hp_ldpc_wifi_ntables; i++)
		if (hp_ldpc_wifi_tables[i].n == n &&
		    hp_ldpc_wifi_tables[i].rate_num == num &&
		    hp_ldpc_wifi_tables[i].rate_den == den)
			t = &hp_ldpc_wifi_tables[i];
	if (t == NULL)
		return -EINVAL;
	for (i = 0; i < (unsigned int)t->mb * t->nb; i++)
		nnz += t->shift[i] >= 0;
	c = code_alloc(t->mb, nnz);
	if (c == NULL)
		return -ENOMEM;
	c->family = HP_LDPC_WIFI;
	c->z = t->z;
	c->mb = t->mb;
	c->nb = t->nb;
	c->kb = t->nb - t->mb;
	c->punct = 0;
	c->g = t->mb;
	nnz = 0;
	for (r = 0; r < t->mb; r++) {
		c->row_start[r] = nnz;
		for (j = 0; j < t->nb; j++) {
			int s = t->shift[r * t->nb + j];

			if (s < 0)
				continue;
			c->ent_col[nnz] = j;
			c->ent_shift[nnz] = (unsigned int)s % t->z;
			nnz++;
		}
	}
	c->row_start[t->mb] = nnz;
	c->nnz = nnz;
	snprintf(c->name, sizeof(c->name), "wifi:%u:%u/%u", n, num, den);
	*out = c;
	return 0;
}

static int
build_nr(unsigned int bg, unsigned int z, struct hp_ldpc_code **out)
{
	const struct hp_ldpc_nr_table *t = bg == 1 ? &hp_ldpc_nr_bg1 :
					   bg == 2 ? &hp_ldpc_nr_bg2 : NULL;
	struct hp_ldpc_code *c;
	unsigned int i, r, ils = 8;

	if (t == NULL)
		return -EINVAL;
	for (i = 0; i < hp_ldpc_nr_nlifts; i++)
		if (hp_ldpc_nr_lifts[i].z == z)
			ils = hp_ldpc_nr_lifts[i].ils;
	if (ils > 7)
		return -EINVAL;
	c = code_alloc(t->rows, t->nents);
	if (c == NULL)
		return -ENOMEM;
	c->family = HP_LDPC_NR;
	c->z = z;
	c->mb = t->rows;
	c->nb = t->cols;
	c->kb = t->cols - t->rows;
	c->punct = 2 * z;
	c->g = 4;  /* 38.212: double-diagonal 4x4 core in both graphs */
	/* The table is sorted by row then column; keep that order. */
	for (i = 0, r = 0; i < t->nents; i++) {
		if (t->ents[i].row >= t->rows || t->ents[i].col >= t->cols ||
		    (i && t->ents[i].row < t->ents[i - 1].row)) {
			hp_ldpc_code_free(c);
			return -EINVAL;
		}
		while (r <= t->ents[i].row)
			c->row_start[r++] = i;
		c->ent_col[i] = t->ents[i].col;
		c->ent_shift[i] = t->ents[i].v[ils] % z;
	}
	while (r <= t->rows)
		c->row_start[r++] = t->nents;
	c->nnz = t->nents;
	snprintf(c->name, sizeof(c->name), "nr:%u:%u", bg, z);
	*out = c;
	return 0;
}

/* Dense GF(2) inverse of the core block; -EINVAL if singular or if the
 * parity part does not have the core + extension shape. */
static int
build_encoder(struct hp_ldpc_code *c)
{
	unsigned int gz = c->g * c->z, w = (gz + 63) / 64, r, e, i, col;
	uint64_t *a, *inv;
	int rc = -EINVAL;

	/* Shape: core rows touch no parity column past the core; extension
	 * row r touches parity columns up to kb + r, and kb + r itself. */
	for (r = 0; r < c->mb; r++) {
		unsigned int lim = r < c->g ? c->kb + c->g : c->kb + r + 1;
		int own = r < c->g;

		for (e = c->row_start[r]; e < c->row_start[r + 1]; e++) {
			if (c->ent_col[e] >= lim)
				return -EINVAL;
			if (r >= c->g && c->ent_col[e] == c->kb + r)
				own = 1;
		}
		if (!own)
			return -EINVAL;
	}
	a = calloc((size_t)gz * w, sizeof(uint64_t));
	inv = calloc((size_t)gz * w, sizeof(uint64_t));
	if (a == NULL || inv == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (r = 0; r < c->g; r++)
		for (e = c->row_start[r]; e < c->row_start[r + 1]; e++) {
			if (c->ent_col[e] < c->kb)
				continue;
			col = (c->ent_col[e] - c->kb) * c->z;
			for (i = 0; i < c->z; i++) {
				unsigned int row = r * c->z + i;
				unsigned int cc = col + (i + c->ent_shift[e]) % c->z;

				a[(size_t)row * w + cc / 64] ^= 1ULL << (cc % 64);
			}
		}
	for (i = 0; i < gz; i++)
		inv[(size_t)i * w + i / 64] |= 1ULL << (i % 64);
	for (col = 0; col < gz; col++) {
		uint64_t bit = 1ULL << (col % 64);
		unsigned int p = col, k;

		while (p < gz && !(a[(size_t)p * w + col / 64] & bit))
			p++;
		if (p == gz)
			goto out;  /* singular */
		if (p != col)
			for (k = 0; k < w; k++) {
				uint64_t t = a[(size_t)p * w + k];

				a[(size_t)p * w + k] = a[(size_t)col * w + k];
				a[(size_t)col * w + k] = t;
				t = inv[(size_t)p * w + k];
				inv[(size_t)p * w + k] = inv[(size_t)col * w + k];
				inv[(size_t)col * w + k] = t;
			}
		for (r = 0; r < gz; r++) {
			if (r == col || !(a[(size_t)r * w + col / 64] & bit))
				continue;
			/* Columns below col are already zero in both pivot
			 * and target rows, so start at col's word. */
			for (k = col / 64; k < w; k++)
				a[(size_t)r * w + k] ^= a[(size_t)col * w + k];
			for (k = 0; k < w; k++)
				inv[(size_t)r * w + k] ^= inv[(size_t)col * w + k];
		}
	}
	c->binv = inv;
	c->inv_words = w;
	inv = NULL;
	rc = 0;
out:
	free(a);
	free(inv);
	return rc;
}

int
hp_ldpc_code_create(const char *spec, struct hp_ldpc_code **out)
{
	unsigned int a, b, d;
	char tail;
	int rc;

	if (spec == NULL || out == NULL)
		return -EINVAL;
	*out = NULL;
	if (sscanf(spec, "wifi:%u:%u/%u%c", &a, &b, &d, &tail) == 3)
		rc = build_wifi(a, b, d, out);
	else if (sscanf(spec, "nr:%u:%u%c", &a, &b, &tail) == 2)
		rc = build_nr(a, b, out);
	else
		return -EINVAL;
	if (rc < 0)
		return rc;
	rc = build_encoder(*out);
	if (rc < 0) {
		hp_ldpc_code_free(*out);
		*out = NULL;
	}
	return rc;
}

/* Adds P^s * x (x a z-bit block, one bit per byte) into acc: row i of
 * the rotated identity picks x[(i + s) mod z]. */
static void
add_rot(uint8_t *acc, const uint8_t *x, unsigned int s, unsigned int z)
{
	unsigned int i;

	for (i = 0; i < z - s; i++)
		acc[i] ^= x[i + s];
	for (; i < z; i++)
		acc[i] ^= x[i + s - z];
}

int
hp_ldpc_encode(const struct hp_ldpc_code *c, const uint8_t *info,
	       uint8_t *cw)
{
	unsigned int z, kz, gz, r, e, i, k;
	uint8_t *lam;
	uint64_t *lp;

	if (c == NULL || info == NULL || cw == NULL)
		return -EINVAL;
	z = c->z;
	kz = c->kb * z;
	gz = c->g * z;
	lam = calloc((size_t)c->mb * z, 1);
	lp = calloc(c->inv_words, sizeof(uint64_t));
	if (lam == NULL || lp == NULL) {
		free(lam);
		free(lp);
		return -ENOMEM;
	}
	for (i = 0; i < kz; i++)
		cw[i] = info[i] & 1;
	memset(cw + kz, 0, (size_t)(c->nb - c->kb) * z);
	/* lambda = H_info * u for the core rows. */
	for (r = 0; r < c->g; r++)
		for (e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			if (c->ent_col[e] < c->kb)
				add_rot(lam + r * z, cw + c->ent_col[e] * z,
					c->ent_shift[e], z);
	for (i = 0; i < gz; i++)
		if (lam[i])
			lp[i / 64] |= 1ULL << (i % 64);
	for (i = 0; i < gz; i++) {
		const uint64_t *row = c->binv + (size_t)i * c->inv_words;
		uint64_t acc = 0;

		for (k = 0; k < c->inv_words; k++)
			acc ^= row[k] & lp[k];
		cw[kz + i] = __builtin_parityll(acc);
	}
	/* Extension rows: everything but the own column is known. */
	for (r = c->g; r < c->mb; r++) {
		uint8_t *acc = lam + r * z;
		unsigned int own = c->kb + r, s = 0;

		for (e = c->row_start[r]; e < c->row_start[r + 1]; e++) {
			if (c->ent_col[e] == own)
				s = c->ent_shift[e];
			else
				add_rot(acc, cw + c->ent_col[e] * z,
					c->ent_shift[e], z);
		}
		/* (P^s p)[i] = p[(i+s) mod z] = acc[i]. */
		for (i = 0; i < z; i++)
			cw[own * z + (i + s) % z] = acc[i];
	}
	free(lam);
	free(lp);
	return 0;
}

int
hp_ldpc_syndrome(const struct hp_ldpc_code *c, const uint8_t *cw)
{
	unsigned int z, r, e, i;
	uint8_t *acc;
	int bad = 0;

	if (c == NULL || cw == NULL)
		return -EINVAL;
	z = c->z;
	acc = malloc(z);
	if (acc == NULL)
		return -ENOMEM;
	for (r = 0; r < c->mb; r++) {
		memset(acc, 0, z);
		for (e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			add_rot(acc, cw + c->ent_col[e] * z, c->ent_shift[e], z);
		for (i = 0; i < z; i++)
			bad += acc[i] & 1;
	}
	free(acc);
	return bad;
}

void
hp_ldpc_pack(const uint8_t *bits, unsigned int nbits, uint8_t *bytes)
{
	unsigned int i;

	memset(bytes, 0, (nbits + 7) / 8);
	for (i = 0; i < nbits; i++)
		bytes[i / 8] |= (bits[i] & 1) << (7 - i % 8);
}

void
hp_ldpc_unpack(const uint8_t *bytes, unsigned int nbits, uint8_t *bits)
{
	unsigned int i;

	for (i = 0; i < nbits; i++)
		bits[i] = (bytes[i / 8] >> (7 - i % 8)) & 1;
}
