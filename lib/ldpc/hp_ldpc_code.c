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
	/* Keep B^-1 by columns: the encoder XORs the columns picked by the
	 * set bits of lambda, w words each (a row-by-row product needed
	 * an AND and a parity per word of every row: 4x the work). */
	memset(a, 0, (size_t)gz * w * sizeof(uint64_t));
	for (r = 0; r < gz; r++)
		for (col = 0; col < gz; col++)
			if (inv[(size_t)r * w + col / 64] >> (col % 64) & 1)
				a[(size_t)col * w + r / 64] |= 1ULL << (r % 64);
	c->binv = a;
	c->inv_words = w;
	a = NULL;
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
	char tail, canon[64];
	int rc;

	if (spec == NULL || out == NULL)
		return -EINVAL;
	*out = NULL;
	/* the numbers whole: the spec must read back as parsed (%u skips
	 * blanks, takes '+' and wraps 4294967944 to 648) */
	if (sscanf(spec, "wifi:%u:%u/%u%c", &a, &b, &d, &tail) == 3 &&
	    snprintf(canon, sizeof(canon), "wifi:%u:%u/%u", a, b, d) > 0 &&
	    strcmp(canon, spec) == 0)
		rc = build_wifi(a, b, d, out);
	else if (sscanf(spec, "nr:%u:%u%c", &a, &b, &tail) == 2 &&
		 snprintf(canon, sizeof(canon), "nr:%u:%u", a, b) > 0 && strcmp(canon, spec) == 0)
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
static inline __attribute__((always_inline)) void
add_rot(uint8_t *restrict acc, const uint8_t *restrict x, unsigned int s,
	unsigned int z)
{
	/* Two straight runs with size_t indices, so the compiler vectorises
	 * them (i + s on unsigned int could wrap, which kept it scalar and
	 * made this ~80 % of the encoder's time). */
	const size_t n1 = z - s, n2 = s;
	const uint8_t *restrict xs = x + s;
	uint8_t *restrict acc2 = acc + n1;
	size_t i;

	for (i = 0; i < n1; i++)
		acc[i] ^= xs[i];
	for (i = 0; i < n2; i++)
		acc2[i] ^= x[i];
}

/* Encoder scratch bounds: mb * z <= 46 * 384 (BG1), g * z <= 12 * 81
 * (802.11n R=1/2) or 4 * 384 (NR). */
#define ENC_MAXLAM (46 * 384)
#define ENC_MAXW ((4 * 384 + 63) / 64)

/* Cost note (this 2-vCPU VM, wifi:1944:1/2, best of 5 runs of 20000 with
 * other jobs running): ~7 us per codeword, against ~14 us for the
 * earlier version (row-wise B^-1 product, scalar rotations) in the same
 * run. It runs on the generator and, twice, in the sink's verification
 * for every unit of the ran app. Its XOR runs are vectorised by the
 * compiler, so it is compiled for the baseline and for AVX2 (below): at
 * SSE width alone the units' rebuild took ~8 % longer than with the old
 * -march=native build on Zen 3, with AVX2 1..3 % in paired runs
 * (bench/results/portable-2026-11-26.md). */
static inline __attribute__((always_inline)) int
encode(const struct hp_ldpc_code *c, const uint8_t *info, uint8_t *cw)
{
	uint8_t lam[ENC_MAXLAM];
	uint16_t set[ENC_MAXW * 64];
	uint64_t p[ENC_MAXW];
	unsigned int z, kz, gz, r, e, i, k, w, ns;

	if (c == NULL || info == NULL || cw == NULL ||
	    (size_t)c->mb * c->z > ENC_MAXLAM || c->inv_words > ENC_MAXW)
		return -EINVAL;
	z = c->z;
	kz = c->kb * z;
	gz = c->g * z;
	w = c->inv_words;
	memset(lam, 0, (size_t)c->mb * z);
	memset(p, 0, sizeof(p));
	for (i = 0; i < kz; i++)
		cw[i] = info[i] & 1;
	memset(cw + kz, 0, (size_t)(c->nb - c->kb) * z);
	/* lambda = H_info * u for the core rows. */
	for (r = 0; r < c->g; r++)
		for (e = c->row_start[r]; e < c->row_start[r + 1]; e++)
			if (c->ent_col[e] < c->kb)
				add_rot(lam + r * z, cw + c->ent_col[e] * z,
					c->ent_shift[e], z);
	/* p_core = B^-1 lambda: the XOR of the columns lambda selects,
	 * listed first without branches (half of them are set, at random:
	 * a test per column mispredicted every other time). */
	for (i = 0, ns = 0; i < gz; i++) {
		set[ns] = (uint16_t)i;
		ns += lam[i] & 1;
	}
	for (i = 0; i < ns; i++) {
		const uint64_t *col = c->binv + (size_t)set[i] * w;

		for (k = 0; k < w; k++)
			p[k] ^= col[k];
	}
	for (i = 0; i < gz; i++)
		cw[kz + i] = (uint8_t)(p[i / 64] >> (i % 64) & 1);
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
	return 0;
}

static int
encode_base(const struct hp_ldpc_code *c, const uint8_t *info, uint8_t *cw)
{
	return encode(c, info, cw);
}

static __attribute__((target("avx2"))) int
encode_avx2(const struct hp_ldpc_code *c, const uint8_t *info, uint8_t *cw)
{
	return encode(c, info, cw);
}

int
hp_ldpc_encode(const struct hp_ldpc_code *c, const uint8_t *info,
	       uint8_t *cw)
{
	/* libgcc reads the CPU before main(); this is a load and a test. */
	if (__builtin_cpu_supports("avx2"))
		return encode_avx2(c, info, cw);
	return encode_base(c, info, cw);
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

/* Eight bits (bytes 0/1) at a time: the multiply gathers the low bit
 * of byte j into bit 63 - j without carries (the partial products land
 * on distinct bit positions), so bits[0] ends up as the MSB. */
void
hp_ldpc_pack(const uint8_t *bits, unsigned int nbits, uint8_t *bytes)
{
	unsigned int i, j;

	for (i = 0; i + 8 <= nbits; i += 8) {
		uint64_t x;

		memcpy(&x, bits + i, 8);
		x &= 0x0101010101010101ULL;
		bytes[i / 8] = (uint8_t)((x * 0x8040201008040201ULL) >> 56);
	}
	if (i < nbits) {
		bytes[i / 8] = 0;
		for (j = i; j < nbits; j++)
			bytes[j / 8] |= (uint8_t)((bits[j] & 1) << (7 - j % 8));
	}
}

/* Eight bits at a time: replicate the byte, keep bit 7 - j in byte j,
 * and turn each nonzero byte into 1. */
void
hp_ldpc_unpack(const uint8_t *bytes, unsigned int nbits, uint8_t *bits)
{
	unsigned int i;

	for (i = 0; i + 8 <= nbits; i += 8) {
		uint64_t t = bytes[i / 8] * 0x0101010101010101ULL;

		t &= 0x0102040810204080ULL;
		t = ((t | (t + 0x7f7f7f7f7f7f7f7fULL)) >> 7) & 0x0101010101010101ULL;
		memcpy(bits + i, &t, 8);
	}
	for (; i < nbits; i++)
		bits[i] = (bytes[i / 8] >> (7 - i % 8)) & 1;
}
