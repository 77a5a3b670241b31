/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the LDPC decoder: API errors (bad length, zero
 * iterations, unsupported ISA), noiseless and noisy decoding, batching
 * across more codewords than lanes, and bit-exact agreement of the
 * scalar, AVX2 and AVX-512 kernels on the same noisy LLRs, in the batch
 * and the single-codeword (Z-parallel) mode, also on random LLRs.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hp_ldpc.h"

struct frames {
	struct hp_ldpc_code *c;
	unsigned int n, k, ncw;
	uint8_t *info;
	int8_t *llr;
};

static uint64_t rng = 88172645463325252ULL;

static double
uni(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) * 0x1.0p-53;
}

static double
gauss(void)
{
	return sqrt(-2 * log(uni())) * cos(6.283185307179586 * uni());
}

/* ncw random codewords through BPSK + AWGN at ebn0 dB (inf: noiseless),
 * LLRs quantised with 4 steps per unit (the tool default), clipped at +-63. */
static void
make_frames(struct frames *f, const char *spec, unsigned int ncw, double ebn0)
{
	unsigned int nf, p, i, j;
	uint8_t *cw;
	double sigma2;

	memset(f, 0, sizeof(*f));
	assert_int_equal(hp_ldpc_code_create(spec, &f->c), 0);
	f->n = hp_ldpc_code_n(f->c);
	f->k = hp_ldpc_code_k(f->c);
	f->ncw = ncw;
	nf = hp_ldpc_code_n_full(f->c);
	p = hp_ldpc_code_punct(f->c);
	f->info = malloc((size_t)ncw * f->k);
	f->llr = malloc((size_t)ncw * f->n);
	cw = malloc(nf);
	assert_true(f->info && f->llr && cw);
	sigma2 = 1.0 / (2.0 * f->k / f->n * pow(10, ebn0 / 10));
	for (i = 0; i < ncw; i++) {
		uint8_t *u = f->info + (size_t)i * f->k;

		for (j = 0; j < f->k; j++)
			u[j] = uni() < 0.5;
		assert_int_equal(hp_ldpc_encode(f->c, u, cw), 0);
		for (j = 0; j < f->n; j++) {
			double y = (cw[p + j] ? -1.0 : 1.0);
			double q;

			if (isfinite(ebn0))
				y += sqrt(sigma2) * gauss();
			q = nearbyint(isfinite(ebn0) ? 8 * y / sigma2 : 40 * y);
			f->llr[(size_t)i * f->n + j] = q > 63 ? 63 : q < -63 ? -63 : q;
		}
	}
	free(cw);
}

static void
free_frames(struct frames *f)
{
	free(f->info);
	free(f->llr);
	hp_ldpc_code_free(f->c);
}

static struct hp_ldpc_dec *
mkdec(const struct hp_ldpc_code *c, enum hp_ldpc_isa isa, unsigned int iters)
{
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_dec *d = NULL;

	hp_ldpc_dec_cfg_default(&cfg);
	cfg.isa = isa;
	cfg.max_iter = iters;
	assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), 0);
	return d;
}

static void
test_bad_input(void **state)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_dec *d = NULL;
	int8_t llr[1944] = {0};
	uint8_t info[972];

	(void)state;
	assert_int_equal(hp_ldpc_code_create("wifi:1944:1/2", &c), 0);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.max_iter = 0;
	assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), -EINVAL);
	assert_null(d);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.nms_shift = 0;
	assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), -EINVAL);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.alg = 7;
	assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), -EINVAL);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.isa = 99;
	assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), -EINVAL);
	cfg.isa = HP_LDPC_ISA_AUTO;
	cfg.mode = (enum hp_ldpc_mode)7;
	assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), -EINVAL);
	cfg.mode = HP_LDPC_MODE_BATCH;
	if (!hp_ldpc_isa_supported(HP_LDPC_ISA_AVX512)) {
		cfg.isa = HP_LDPC_ISA_AVX512;
		assert_int_equal(hp_ldpc_dec_create(c, &cfg, &d), -ENOTSUP);
	}
	d = mkdec(c, HP_LDPC_ISA_AUTO, 5);
	assert_int_equal(hp_ldpc_dec_set_mode(d, (enum hp_ldpc_mode)2), -EINVAL);
	assert_int_equal(hp_ldpc_dec_mode(d), HP_LDPC_MODE_BATCH);
	assert_int_equal(hp_ldpc_decode(d, llr, 1943, 1, info, NULL), -EINVAL);
	assert_int_equal(hp_ldpc_decode(d, llr, 1945, 1, info, NULL), -EINVAL);
	assert_int_equal(hp_ldpc_decode(d, NULL, 1944, 1, info, NULL), -EINVAL);
	assert_int_equal(hp_ldpc_decode(d, llr, 1944, 1, NULL, NULL), -EINVAL);
	/* All-zero LLRs: nothing known, but the all-zero word satisfies H. */
	assert_int_equal(hp_ldpc_decode(d, llr, 1944, 1, info, NULL), 1);
	assert_int_equal(hp_ldpc_decode(d, llr, 1944, 0, info, NULL), 0);
	hp_ldpc_dec_free(d);
	hp_ldpc_code_free(c);
}

static void
decode_clean(const char *spec, enum hp_ldpc_isa isa)
{
	struct frames f;
	struct hp_ldpc_dec *d;
	struct hp_ldpc_result *res;
	uint8_t *out;
	unsigned int i;

	make_frames(&f, spec, 3, INFINITY);
	d = mkdec(f.c, isa, 8);
	out = malloc((size_t)f.ncw * f.k);
	res = calloc(f.ncw, sizeof(*res));
	assert_true(out && res);
	assert_int_equal(hp_ldpc_decode(d, f.llr, f.n, f.ncw, out, res), (int)f.ncw);
	assert_memory_equal(out, f.info, (size_t)f.ncw * f.k);
	for (i = 0; i < f.ncw; i++) {
		assert_int_equal(res[i].ok, 1);
		/* NR: the punctured 2Z bits need one pass to be filled in. */
		assert_in_range(res[i].iters, 1, 2);
	}
	free(out);
	free(res);
	hp_ldpc_dec_free(d);
	free_frames(&f);
}

static void
test_clean_all_isas(void **state)
{
	static const char *const specs[] = {"wifi:648:1/2", "wifi:1296:2/3",
		"wifi:1944:3/4", "wifi:1944:5/6", "nr:1:16", "nr:2:52", "nr:1:384"};
	enum hp_ldpc_isa isa;
	unsigned int i;

	(void)state;
	for (isa = HP_LDPC_ISA_SCALAR; isa <= HP_LDPC_ISA_AVX512; isa++) {
		if (!hp_ldpc_isa_supported(isa))
			continue;
		for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
			decode_clean(specs[i], isa);
	}
}

/* Noisy frames at a point where min-sum corrects many errors but not
 * all: the three kernels must agree on every bit and every result. */
static void
check_isas_agree(const char *spec, unsigned int ncw, double ebn0,
		 unsigned int iters, unsigned int min_ok)
{
	struct frames f;
	enum hp_ldpc_isa isa;
	uint8_t *ref = NULL, *out;
	struct hp_ldpc_result *rref = NULL, *res;
	int nref = -1;
	unsigned long raw = 0;
	unsigned int i, j;

	make_frames(&f, spec, ncw, ebn0);
	/* The channel really flipped bits (else this tests nothing): count
	 * hard-decision errors on the transmitted info bits. */
	for (i = 0; i < ncw; i++)
		for (j = hp_ldpc_code_punct(f.c); j < f.k; j++)
			raw += (f.llr[(size_t)i * f.n + j - hp_ldpc_code_punct(f.c)] < 0) !=
			       f.info[(size_t)i * f.k + j];
	assert_true(raw > 0);
	for (isa = HP_LDPC_ISA_SCALAR; isa <= HP_LDPC_ISA_AVX512; isa++) {
		struct hp_ldpc_dec *d;
		int nok;

		if (!hp_ldpc_isa_supported(isa))
			continue;
		d = mkdec(f.c, isa, iters);
		out = malloc((size_t)ncw * f.k);
		res = calloc(ncw, sizeof(*res));
		assert_true(out && res);
		nok = hp_ldpc_decode(d, f.llr, f.n, ncw, out, res);
		assert_true(nok >= (int)min_ok);
		for (i = 0; i < ncw; i++) {
			assert_in_range(res[i].iters, 1, iters);
			/* A word that passed the checks here is the sent one. */
			if (res[i].ok)
				assert_memory_equal(out + (size_t)i * f.k,
						    f.info + (size_t)i * f.k, f.k);
		}
		if (ref == NULL) {
			ref = out;
			rref = res;
			nref = nok;
		} else {
			assert_int_equal(nok, nref);
			assert_memory_equal(out, ref, (size_t)ncw * f.k);
			assert_memory_equal(res, rref, ncw * sizeof(*res));
			free(out);
			free(res);
		}
		hp_ldpc_dec_free(d);
	}
	free(ref);
	free(rref);
	free_frames(&f);
}

static void
test_noisy_wifi_isas_agree(void **state)
{
	(void)state;
	/* 70 codewords: a full 64-lane batch plus a partial one. */
	check_isas_agree("wifi:1944:1/2", 70, 1.6, 10, 20);
	check_isas_agree("wifi:648:5/6", 40, 3.5, 6, 10);
}

static void
test_noisy_nr_isas_agree(void **state)
{
	(void)state;
	check_isas_agree("nr:1:32", 36, 2.0, 8, 10);
	check_isas_agree("nr:2:24", 20, 2.0, 8, 5);
}

/* Decodes f's LLRs with every ISA in both modes (whole words, so the
 * parity bits are compared too) and requires every word and result to
 * equal the scalar batch kernel's. */
static void
check_modes_agree(const struct frames *f, const struct hp_ldpc_dec_cfg *base)
{
	const unsigned int nf = hp_ldpc_code_n_full(f->c), ncw = f->ncw;
	uint8_t *ref = malloc((size_t)ncw * nf), *out = malloc((size_t)ncw * nf);
	struct hp_ldpc_result *rref = calloc(ncw, sizeof(*rref));
	struct hp_ldpc_result *res = calloc(ncw, sizeof(*res));
	enum hp_ldpc_isa isa;
	int nref = -1, mode, runs = 0;

	assert_true(ref && out && rref && res);
	for (isa = HP_LDPC_ISA_SCALAR; isa <= HP_LDPC_ISA_AVX512; isa++)
		for (mode = HP_LDPC_MODE_BATCH; mode <= HP_LDPC_MODE_SINGLE; mode++) {
			struct hp_ldpc_dec_cfg cfg = *base;
			struct hp_ldpc_dec *d = NULL;
			int nok;

			if (!hp_ldpc_isa_supported(isa))
				continue;
			cfg.isa = isa;
			cfg.mode = HP_LDPC_MODE_BATCH;
			assert_int_equal(hp_ldpc_dec_create(f->c, &cfg, &d), 0);
			/* The mode switched on a live decoder, as the task does. */
			assert_int_equal(hp_ldpc_dec_set_mode(d, (enum hp_ldpc_mode)mode), 0);
			assert_int_equal(hp_ldpc_dec_mode(d), mode);
			nok = hp_ldpc_decode_hard(d, f->llr, f->n, ncw, nref < 0 ? ref : out,
						  nref < 0 ? rref : res);
			assert_true(nok >= 0);
			if (nref < 0) {
				nref = nok;
			} else {
				assert_int_equal(nok, nref);
				assert_memory_equal(out, ref, (size_t)ncw * nf);
				assert_memory_equal(res, rref, ncw * sizeof(*res));
			}
			runs++;
			hp_ldpc_dec_free(d);
		}
	assert_true(runs >= 2);
	free(ref);
	free(out);
	free(rref);
	free(res);
}

/* Single mode = batch mode bit for bit, per ISA: noisy frames at the
 * waterfall (words that stop early at different iterations and words
 * that fail) and uniformly random LLRs over the whole int8 range
 * (-128 and saturated values included, none decodes), OMS and NMS, for
 * z a multiple of the lanes (384), smaller than them (24, 27) and not a
 * multiple (52, 81, 224). */
static void
test_single_mode_matches_batch(void **state)
{
	static const struct {
		const char *spec;
		unsigned int ncw, iters;
		double ebn0;
	} t[] = {
		{"wifi:1944:1/2", 70, 10, 1.6}, {"wifi:648:5/6", 20, 6, 3.5},
		{"wifi:1296:2/3", 12, 8, 2.4}, {"nr:1:384", 6, 5, 1.0},
		{"nr:1:224", 8, 6, 1.2}, {"nr:2:52", 12, 8, 1.5}, {"nr:2:24", 12, 8, 1.5},
	};
	unsigned int i, j, alg;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (alg = 0; alg < 2; alg++) {
			struct hp_ldpc_dec_cfg cfg;
			struct frames f;

			hp_ldpc_dec_cfg_default(&cfg);
			cfg.max_iter = t[i].iters;
			cfg.alg = alg ? HP_LDPC_NMS : HP_LDPC_OMS;
			make_frames(&f, t[i].spec, t[i].ncw, t[i].ebn0);
			check_modes_agree(&f, &cfg);
			for (j = 0; j < f.ncw * f.n; j++)
				f.llr[j] = (int8_t)(uni() * 256 - 128);
			check_modes_agree(&f, &cfg);
			free_frames(&f);
		}
}

/* The per-call mode rule on fixed costs, and a probe on this CPU. */
static void
test_mode_pick(void **state)
{
	const struct hp_ldpc_costs k = {.single_ns = 10, .batch_ns = 100, .lanes = 64};
	const struct hp_ldpc_costs k2 = {.single_ns = 2, .batch_ns = 100, .lanes = 64};
	struct hp_ldpc_costs m;
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec_cfg cfg;

	(void)state;
	assert_int_equal(hp_ldpc_mode_pick(&k, 1, 5), HP_LDPC_MODE_SINGLE);
	assert_int_equal(hp_ldpc_mode_pick(&k, 10, 5), HP_LDPC_MODE_SINGLE);  /* tie */
	assert_int_equal(hp_ldpc_mode_pick(&k, 11, 5), HP_LDPC_MODE_BATCH);
	assert_int_equal(hp_ldpc_mode_pick(&k, 200, 5), HP_LDPC_MODE_BATCH);
	assert_true(hp_ldpc_mode_est(&k, HP_LDPC_MODE_BATCH, 65, 5) == 2 * 5 * 100);
	assert_true(hp_ldpc_mode_est(&k, HP_LDPC_MODE_SINGLE, 65, 5) == 65 * 5 * 10);
	/* The batch estimate grows by whole batches: a second, nearly idle
	 * batch makes single the faster again. */
	assert_int_equal(hp_ldpc_mode_pick(&k2, 50, 20), HP_LDPC_MODE_SINGLE);
	assert_int_equal(hp_ldpc_mode_pick(&k2, 64, 20), HP_LDPC_MODE_BATCH);
	assert_int_equal(hp_ldpc_mode_pick(&k2, 65, 20), HP_LDPC_MODE_SINGLE);
	assert_int_equal(hp_ldpc_mode_pick(&k2, 101, 20), HP_LDPC_MODE_BATCH);
	assert_int_equal(hp_ldpc_code_create("wifi:648:1/2", &c), 0);
	hp_ldpc_dec_cfg_default(&cfg);
	assert_int_equal(hp_ldpc_costs_probe(c, &cfg, &m), 0);
	assert_true(m.single_ns > 0 && m.batch_ns > 0 && m.lanes >= 1);
	cfg.max_iter = 0;
	assert_int_equal(hp_ldpc_costs_probe(c, &cfg, &m), 0); /* the probe sets its own */
	cfg.isa = 99;
	assert_int_equal(hp_ldpc_costs_probe(c, &cfg, &m), -EINVAL);
	hp_ldpc_code_free(c);
}

static void
test_high_snr_all_ok(void **state)
{
	struct frames f;
	struct hp_ldpc_dec *d;
	struct hp_ldpc_result res[40];
	uint8_t *out;
	unsigned int i;

	(void)state;
	make_frames(&f, "wifi:1944:1/2", 40, 3.0);
	d = mkdec(f.c, HP_LDPC_ISA_AUTO, 10);
	out = malloc((size_t)40 * f.k);
	assert_non_null(out);
	assert_int_equal(hp_ldpc_decode(d, f.llr, f.n, 40, out, res), 40);
	assert_memory_equal(out, f.info, (size_t)40 * f.k);
	for (i = 0; i < 40; i++)
		assert_true(res[i].iters < 10);
	free(out);
	hp_ldpc_dec_free(d);
	free_frames(&f);
}

static void
test_no_early_stop_and_oms(void **state)
{
	struct frames f;
	struct hp_ldpc_dec_cfg cfg;
	struct hp_ldpc_dec *d;
	struct hp_ldpc_result res[5];
	uint8_t *out;
	unsigned int i;

	(void)state;
	make_frames(&f, "wifi:1296:1/2", 5, 3.0);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.no_early_stop = 1;
	cfg.max_iter = 7;
	cfg.alg = HP_LDPC_OMS;
	cfg.oms_offset = 1;
	assert_int_equal(hp_ldpc_dec_create(f.c, &cfg, &d), 0);
	out = malloc((size_t)5 * f.k);
	assert_non_null(out);
	assert_int_equal(hp_ldpc_decode(d, f.llr, f.n, 5, out, res), 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(res[i].iters, 7);
	assert_memory_equal(out, f.info, (size_t)5 * f.k);
	free(out);
	hp_ldpc_dec_free(d);
	free_frames(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_clean_all_isas),
		cmocka_unit_test(test_noisy_wifi_isas_agree),
		cmocka_unit_test(test_noisy_nr_isas_agree),
		cmocka_unit_test(test_single_mode_matches_batch),
		cmocka_unit_test(test_mode_pick),
		cmocka_unit_test(test_high_snr_all_ok),
		cmocka_unit_test(test_no_early_stop_and_oms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
