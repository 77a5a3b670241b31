/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the LDPC code tables and the encoder: base-matrix shapes,
 * edge totals and degree structure from IEEE 802.11-2012 Annex F and
 * 3GPP TS 38.212 5.3.2, and H * c = 0 for an encoded word of every code
 * and every NR lifting size (checked with H expanded here, not with the
 * library's own syndrome routine).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hp_ldpc.h"

static const unsigned int nr_z[51] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
	14, 15, 16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60,
	64, 72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176, 192, 208, 224,
	240, 256, 288, 320, 352, 384};

static struct hp_ldpc_code *
mk(const char *spec)
{
	struct hp_ldpc_code *c = NULL;

	assert_int_equal(hp_ldpc_code_create(spec, &c), 0);
	assert_non_null(c);
	return c;
}

/* Base-matrix dense view: shift or -1. */
static int *
dense(const struct hp_ldpc_code *c)
{
	unsigned int mb = hp_ldpc_code_rows(c), nb = hp_ldpc_code_cols(c), i;
	int *m = malloc(sizeof(int) * mb * nb);

	assert_non_null(m);
	for (i = 0; i < mb * nb; i++)
		m[i] = -1;
	for (i = 0; i < hp_ldpc_code_nnz(c); i++) {
		unsigned int r, col, s;

		assert_int_equal(hp_ldpc_code_entry(c, i, &r, &col, &s), 0);
		assert_true(r < mb && col < nb && s < hp_ldpc_code_z(c));
		assert_int_equal(m[r * nb + col], -1);  /* no duplicates */
		m[r * nb + col] = (int)s;
	}
	assert_int_equal(hp_ldpc_code_entry(c, hp_ldpc_code_nnz(c), NULL, NULL, NULL), -EINVAL);
	return m;
}

static void
test_nr_base_graphs(void **state)
{
	struct hp_ldpc_code *c1 = mk("nr:1:384"), *c2 = mk("nr:2:384");
	int *m1 = dense(c1), *m2 = dense(c2);
	unsigned int r, j, deg, maxdeg;

	(void)state;
	/* TS 38.212 Tables 5.3.2-2/-3: 316 nonzeros in 46x68, 197 in 42x52. */
	assert_int_equal(hp_ldpc_code_rows(c1), 46);
	assert_int_equal(hp_ldpc_code_cols(c1), 68);
	assert_int_equal(hp_ldpc_code_nnz(c1), 316);
	assert_int_equal(hp_ldpc_code_rows(c2), 42);
	assert_int_equal(hp_ldpc_code_cols(c2), 52);
	assert_int_equal(hp_ldpc_code_nnz(c2), 197);
	/* K = 22Z / 10Z, 2Z punctured: BG1 rate 1/3, BG2 rate 1/5. */
	assert_int_equal(hp_ldpc_code_k(c1), 22 * 384);
	assert_int_equal(hp_ldpc_code_n(c1), 66 * 384);
	assert_int_equal(hp_ldpc_code_k(c2), 10 * 384);
	assert_int_equal(hp_ldpc_code_n(c2), 50 * 384);
	/* Largest row degree: 19 (BG1 rows 0-3), 10 (BG2). */
	for (maxdeg = 0, r = 0; r < 46; r++) {
		for (deg = 0, j = 0; j < 68; j++)
			deg += m1[r * 68 + j] >= 0;
		maxdeg = deg > maxdeg ? deg : maxdeg;
	}
	assert_int_equal(maxdeg, 19);
	for (maxdeg = 0, r = 0; r < 42; r++) {
		for (deg = 0, j = 0; j < 52; j++)
			deg += m2[r * 52 + j] >= 0;
		maxdeg = deg > maxdeg ? deg : maxdeg;
	}
	assert_int_equal(maxdeg, 10);
	/* Extension part: row r >= 4 has an identity (V = 0) on column
	 * kb + r and nothing to its right; those columns have degree 1. */
	for (r = 4; r < 46; r++) {
		assert_int_equal(m1[r * 68 + 22 + r], 0);
		for (j = 22 + r + 1; j < 68; j++)
			assert_int_equal(m1[r * 68 + j], -1);
		for (deg = 0, j = 0; j < 46; j++)
			deg += m1[j * 68 + 22 + r] >= 0;
		assert_int_equal(deg, 1);
	}
	for (r = 4; r < 42; r++) {
		assert_int_equal(m2[r * 52 + 10 + r], 0);
		for (deg = 0, j = 0; j < 42; j++)
			deg += m2[j * 52 + 10 + r] >= 0;
		assert_int_equal(deg, 1);
	}
	/* 5.3.2 row 0 column 0, iLS = 1 (Z = 384): V = 307. */
	assert_int_equal(m1[0], 307 % 384);
	free(m1);
	free(m2);
	hp_ldpc_code_free(c1);
	hp_ldpc_code_free(c2);
}

static void
test_wifi_matrices(void **state)
{
	static const char *const rates[] = {"1/2", "2/3", "3/4", "5/6"};
	static const unsigned int mbs[] = {12, 8, 6, 4};
	/* Nonzero blocks per matrix as transcribed from Annex F Tables F-1..
	 * F-3 (n = 648, 1296, 1944 x rates); guards the data file. */
	static const unsigned int nnz[3][4] = {{88, 88, 88, 88},
		{86, 88, 88, 85}, {86, 88, 85, 79}};
	/* Row degrees: rate 1/2: 7-8, 2/3: 10-11, 3/4: 14-15, 5/6: 19-22. */
	static const unsigned int dlo[] = {7, 10, 14, 19}, dhi[] = {8, 11, 15, 22};
	static const unsigned int ns[] = {648, 1296, 1944}, zs[] = {27, 54, 81};
	char spec[32];
	unsigned int i, q, r, j;

	(void)state;
	for (i = 0; i < 3; i++)
		for (q = 0; q < 4; q++) {
			struct hp_ldpc_code *c;
			unsigned int kb = 24 - mbs[q];
			int *m;

			snprintf(spec, sizeof(spec), "wifi:%u:%s", ns[i], rates[q]);
			c = mk(spec);
			m = dense(c);
			assert_string_equal(hp_ldpc_code_name(c), spec);
			assert_int_equal(hp_ldpc_code_z(c), zs[i]);
			assert_int_equal(hp_ldpc_code_n(c), ns[i]);
			assert_int_equal(hp_ldpc_code_rows(c), mbs[q]);
			assert_int_equal(hp_ldpc_code_k(c), kb * zs[i]);
			assert_int_equal(hp_ldpc_code_punct(c), 0);
			assert_int_equal(hp_ldpc_code_nnz(c), nnz[i][q]);
			for (r = 0; r < mbs[q]; r++) {
				unsigned int deg = 0;

				for (j = 0; j < 24; j++)
					deg += m[r * 24 + j] >= 0;
				assert_in_range(deg, dlo[q], dhi[q]);
			}
			/* Parity part: column kb has shift 1 at top and bottom
			 * and one 0 in between; then the 0-shift staircase. */
			assert_int_equal(m[kb], 1);
			assert_int_equal(m[(mbs[q] - 1) * 24 + kb], 1);
			for (r = 1, j = 0; r + 1 < mbs[q]; r++)
				if (m[r * 24 + kb] >= 0) {
					assert_int_equal(m[r * 24 + kb], 0);
					j++;
				}
			assert_int_equal(j, 1);
			for (r = 0; r < mbs[q]; r++)
				for (j = kb + 1; j < 24; j++) {
					int want = (j == kb + r || j == kb + r + 1) ? 0 : -1;

					assert_int_equal(m[r * 24 + j], want);
				}
			free(m);
			hp_ldpc_code_free(c);
		}
}

/* H * cw computed from the entries: 0 when cw is a codeword. */
static unsigned int
syndrome_here(const struct hp_ldpc_code *c, const uint8_t *cw)
{
	unsigned int z = hp_ldpc_code_z(c), mb = hp_ldpc_code_rows(c);
	uint8_t *acc = calloc((size_t)mb * z, 1);
	unsigned int i, t, bad = 0;

	assert_non_null(acc);
	for (i = 0; i < hp_ldpc_code_nnz(c); i++) {
		unsigned int r, col, s;

		hp_ldpc_code_entry(c, i, &r, &col, &s);
		for (t = 0; t < z; t++)
			acc[r * z + t] ^= cw[col * z + (t + s) % z];
	}
	for (i = 0; i < mb * z; i++)
		bad += acc[i];
	free(acc);
	return bad;
}

static void
check_encode(const char *spec, unsigned int seed)
{
	struct hp_ldpc_code *c = mk(spec);
	unsigned int k = hp_ldpc_code_k(c), nf = hp_ldpc_code_n_full(c), i;
	uint8_t *info = malloc(k), *cw = malloc(nf);

	assert_non_null(info);
	assert_non_null(cw);
	srand(seed);
	for (i = 0; i < k; i++)
		info[i] = rand() & 1;
	assert_int_equal(hp_ldpc_encode(c, info, cw), 0);
	assert_memory_equal(cw, info, k);  /* systematic */
	assert_int_equal(syndrome_here(c, cw), 0);
	assert_int_equal(hp_ldpc_syndrome(c, cw), 0);
	/* One flipped parity bit must show up in both checks. */
	cw[nf - 1] ^= 1;
	assert_true(syndrome_here(c, cw) > 0);
	assert_true(hp_ldpc_syndrome(c, cw) > 0);
	free(info);
	free(cw);
	hp_ldpc_code_free(c);
}

static void
test_encode_wifi(void **state)
{
	static const char *const rates[] = {"1/2", "2/3", "3/4", "5/6"};
	static const unsigned int ns[] = {648, 1296, 1944};
	char spec[32];
	unsigned int i, q;

	(void)state;
	for (i = 0; i < 3; i++)
		for (q = 0; q < 4; q++) {
			snprintf(spec, sizeof(spec), "wifi:%u:%s", ns[i], rates[q]);
			check_encode(spec, i * 4 + q);
		}
}

static void
test_encode_nr_all_z(void **state)
{
	char spec[32];
	unsigned int bg, i;

	(void)state;
	for (bg = 1; bg <= 2; bg++)
		for (i = 0; i < 51; i++) {
			snprintf(spec, sizeof(spec), "nr:%u:%u", bg, nr_z[i]);
			check_encode(spec, bg * 100 + i);
		}
}

static void
test_bad_specs(void **state)
{
	static const char *const bad[] = {"", "wifi", "wifi:1944", "wifi:1944:1/3",
		"wifi:1000:1/2", "wifi:1944:1/2x", "nr:3:384", "nr:1:17", "nr:1:0",
		"nr:1:385", "nr:1", "lte:1:2", "nr:2:384 "};
	struct hp_ldpc_code *c = (struct hp_ldpc_code *)&c;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(hp_ldpc_code_create(bad[i], &c), -EINVAL);
		assert_null(c);
	}
	assert_int_equal(hp_ldpc_code_create(NULL, &c), -EINVAL);
}

static void
test_pack(void **state)
{
	uint8_t bits[19], back[19], bytes[3];
	unsigned int i;

	(void)state;
	for (i = 0; i < 19; i++)
		bits[i] = (i * 7 + 3) % 3 == 0;
	hp_ldpc_pack(bits, 19, bytes);
	assert_int_equal(bytes[0] >> 7, bits[0]);
	hp_ldpc_unpack(bytes, 19, back);
	assert_memory_equal(bits, back, 19);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nr_base_graphs),
		cmocka_unit_test(test_wifi_matrices),
		cmocka_unit_test(test_encode_wifi),
		cmocka_unit_test(test_encode_nr_all_z),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_pack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
