/* SPDX-License-Identifier: BSD-3-Clause
 * ab-native: the kernels of this build against those of another build
 * (BASE: e.g. -Dnative=true, or an older commit), in one process, in
 * alternating slices of thread CPU time. On a shared machine the load
 * drifts between two separate runs; here both sides see the same drift,
 * so the ratio of each pair is a much sharper figure than two runs of
 * nf-bench. ab_native.sh links BASE's hp_nf and hp_ldpc objects with
 * every global renamed base_*; each side builds its own engine state.
 * Prints, per measurement, the median and quartiles of new/base over the
 * pairs and each side's best.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hp_ldpc.h"
#include "hp_nf.h"

#define B(r, f, a) r base_##f a;
B(void, hp_nf_md5_mb, (struct hp_nf_md5_job *jobs, unsigned int n))
B(int, hp_nf_cbc_create, (struct hp_nf_cbc **out))
B(void, hp_nf_cbc_expand, (struct hp_nf_cbc *c, const uint8_t key[16], struct hp_nf_aes_key *out))
B(int, hp_nf_cbc_encrypt_burst, (struct hp_nf_cbc *c, struct hp_nf_cbc_job *jobs, unsigned int n))
B(void, hp_nf_aes_block, (const struct hp_nf_aes_key *k, const uint8_t in[16], uint8_t out[16]))
B(int, hp_nf_ac_build, (const struct hp_nf_patset *ps, struct hp_nf_ac **out))
B(void, hp_nf_ac_scan, (const struct hp_nf_ac *ac, const uint8_t *data, uint32_t len, struct hp_nf_dpi_res *res))
B(void, hp_nf_ac_scan_batch, (const struct hp_nf_ac *ac, const uint8_t *const *data, const uint32_t *len, unsigned int n, struct hp_nf_dpi_res *res))
B(int, hp_ldpc_code_create, (const char *spec, struct hp_ldpc_code **out))
B(int, hp_ldpc_dec_create, (const struct hp_ldpc_code *c, const struct hp_ldpc_dec_cfg *cfg, struct hp_ldpc_dec **out))
B(int, hp_ldpc_decode, (struct hp_ldpc_dec *d, const int8_t *llr, size_t llr_len, unsigned int n_cw, uint8_t *info, struct hp_ldpc_result *res))
B(int, hp_ldpc_units_decode, (struct hp_ldpc_dec *d, uint8_t *const *bodies, const uint32_t *lens, unsigned int n, uint8_t *ok, void *scratch))
B(int, hp_ldpc_units_restore, (const struct hp_ldpc_code *c, uint8_t *body, uint32_t len))

#define NP 2048   /* packets per pass (nf) */
#define NU 256    /* units per call, as the ldpc task */

static int rounds = 40;

/* One side's state: [0] this build, [1] BASE. */
static struct hp_nf_cbc *cbc[2];
static struct hp_nf_aes_key key[2];
static struct hp_nf_ac *ac[2];
static struct hp_ldpc_code *code[2];
static struct hp_ldpc_dec *dec[2];
static uint8_t *pk[NP];
static uint32_t ln[NP];
static uint64_t bytes;
static struct hp_nf_md5_job mj[NP];
static uint8_t dg[NP][16];
static struct hp_nf_cbc_job cj[2][NP];
static uint8_t iv[16];
static struct hp_nf_dpi_res res[NP];
static int8_t *llr;
static uint8_t *info, *units, *decoded, *work, *bodies[NU], ok[NU];
static uint32_t ulens[NU];
static struct hp_ldpc_result lres[NU];
static void *scr[2];
static unsigned int n_llr, n_cw;

static double
cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One pass of measurement m on side s; returns its work (bits or items). */
static double
pass(int m, int s)
{
	uint8_t o[16];
	int i;

	switch (m) {
	case 0: /* MD5 multi-buffer, batches of 32 */
		for (i = 0; i < NP; i += 32)
			s ? base_hp_nf_md5_mb(mj + i, 32) : hp_nf_md5_mb(mj + i, 32);
		return bytes * 8.0;
	case 1: /* CBC bursts of 32 */
		for (i = 0; i < NP; i += 32)
			s ? base_hp_nf_cbc_encrypt_burst(cbc[1], cj[1] + i, 32) :
			    hp_nf_cbc_encrypt_burst(cbc[0], cj[0] + i, 32);
		return bytes * 8.0;
	case 2: /* AES block (key/IV derivation), dependent chain */
		for (i = 0; i < NP; i++) {
			s ? base_hp_nf_aes_block(&key[1], pk[i], o) :
			    hp_nf_aes_block(&key[0], pk[i], o);
			pk[i][0] ^= o[0];
		}
		return NP * 128.0;
	case 3: /* DFA, 8 interleaved, bursts of 32 */
		for (i = 0; i < NP; i += 32)
			s ? base_hp_nf_ac_scan_batch(ac[1], (const uint8_t *const *)pk + i, ln + i, 32, res + i) :
			    hp_nf_ac_scan_batch(ac[0], (const uint8_t *const *)pk + i, ln + i, 32, res + i);
		return bytes * 8.0;
	case 4: /* DFA, one packet at a time */
		for (i = 0; i < NP; i++)
			s ? base_hp_nf_ac_scan(ac[1], pk[i], ln[i], res + i) :
			    hp_nf_ac_scan(ac[0], pk[i], ln[i], res + i);
		return bytes * 8.0;
	case 5: /* LDPC decode, fixed iterations: info bits */
		s ? base_hp_ldpc_decode(dec[1], llr, n_llr, n_cw, info, lres) :
		    hp_ldpc_decode(dec[0], llr, n_llr, n_cw, info, lres);
		return (double)n_cw * hp_ldpc_code_k(code[0]);
	case 6: /* ran units: decode NU per call (the ldpc task's call) */
		memcpy(work, units, (size_t)NU * ulens[0]);
		s ? base_hp_ldpc_units_decode(dec[1], bodies, ulens, NU, ok, scr[1]) :
		    hp_ldpc_units_decode(dec[0], bodies, ulens, NU, ok, scr[0]);
		return NU;
	default: /* ran units: rebuild from decoded (the verification) */
		memcpy(work, decoded, (size_t)NU * ulens[0]);
		if ((s ? base_hp_ldpc_units_restore(code[1], work, NU * ulens[0]) :
		     hp_ldpc_units_restore(code[0], work, NU * ulens[0])) != 0)
			abort();
		return NU;
	}
}

static double
slice(int m, int s)
{
	double t0 = cpu_now(), t, w = 0;

	do {
		w += pass(m, s);
		t = cpu_now() - t0;
	} while (t < 0.03);
	return w / t;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
measure(int m, const char *name, const char *unit, double scale)
{
	double r[1000], a[1000], b[1000];

	for (int k = 0; k < rounds; k++) {
		double x, y;

		if (k & 1) {
			y = slice(m, 1);
			x = slice(m, 0);
		} else {
			x = slice(m, 0);
			y = slice(m, 1);
		}
		r[k] = x / y;
		a[k] = x;
		b[k] = y;
	}
	qsort(r, rounds, sizeof(*r), cmpd);
	qsort(a, rounds, sizeof(*a), cmpd);
	qsort(b, rounds, sizeof(*b), cmpd);
	printf("| %s | %.3f | %.3f-%.3f | %.2f | %.2f | %s |\n", name, r[rounds / 2],
	       r[rounds / 4], r[3 * rounds / 4], a[rounds - 1] * scale,
	       b[rounds - 1] * scale, unit);
	fflush(stdout);
}

static void
packets(uint32_t size, uint32_t align)
{
	static const uint32_t imix[5] = { 243, 243, 486, 1458, 1458 };
	static struct hp_nf_patset *ps;
	uint64_t x = 7;

	if (ps == NULL && hp_nf_patset_generate(1, 10000, &ps) != 0)
		abort();
	bytes = 0;
	for (int i = 0; i < NP; i++) {
		ln[i] = size ? size : imix[i % 5];
		ln[i] = (ln[i] + align - 1) / align * align;
		free(pk[i]);
		pk[i] = malloc(ln[i] + 16);
		hp_nf_traffic_fill(ps, &x, pk[i], ln[i], 0.3);
		bytes += ln[i];
		mj[i] = (struct hp_nf_md5_job){ pk[i], ln[i], dg[i] };
		for (int s = 0; s < 2; s++)
			cj[s][i] = (struct hp_nf_cbc_job){ pk[i], ln[i], &key[s], iv };
	}
	if (ac[0] == NULL && (hp_nf_ac_build(ps, &ac[0]) != 0 ||
			      base_hp_nf_ac_build(ps, &ac[1]) != 0))
		abort();
}

static void
ldpc(const char *spec, unsigned int iters, int fixed)
{
	struct hp_ldpc_dec_cfg cfg;
	uint64_t x = 1;

	hp_ldpc_code_create(spec, &code[0]);
	base_hp_ldpc_code_create(spec, &code[1]);
	hp_ldpc_dec_cfg_default(&cfg);
	cfg.max_iter = iters;
	cfg.no_early_stop = fixed;
	hp_ldpc_dec_create(code[0], &cfg, &dec[0]);
	base_hp_ldpc_dec_create(code[1], &cfg, &dec[1]);
	n_llr = hp_ldpc_code_n(code[0]);
	n_cw = 256;
	free(llr);
	free(info);
	llr = malloc((size_t)n_cw * n_llr);
	info = malloc((size_t)n_cw * hp_ldpc_code_k(code[0]));
	for (size_t i = 0; i < (size_t)n_cw * n_llr; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		llr[i] = (int8_t)(8 + (int)(x % 25) - 12); /* mostly 0 bits */
	}
}

int
main(int argc, char **argv)
{
	unsigned int ulen;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds < 4 || rounds > 1000)
		rounds = 40;
	for (int s = 0; s < 2; s++) {
		const uint8_t raw[16] = { 1, 2, 3 };

		if ((s ? base_hp_nf_cbc_create(&cbc[1]) : hp_nf_cbc_create(&cbc[0])) != 0)
			return 1;
		s ? base_hp_nf_cbc_expand(cbc[1], raw, &key[1]) :
		    hp_nf_cbc_expand(cbc[0], raw, &key[0]);
	}
	printf("this build: %s; %d pairs of 30 ms slices of thread CPU time\n\n",
	       hp_nf_isa_name(hp_nf_isa()), rounds);
	printf("| kernel | new/base median | quartiles | best new | best base | unit |\n");
	printf("|---|---|---|---|---|---|\n");
	static const struct { const char *name; uint32_t size; } sz[] = {
		{ "64 B", 64 }, { "243 B", 243 }, { "1458 B", 1458 }, { "IMIX", 0 } };
	char name[96];

	for (int i = 0; i < 4; i++) {
		packets(sz[i].size, 1);
		snprintf(name, sizeof(name), "MD5 multi-buffer, batch 32, %s", sz[i].name);
		measure(0, name, "Gbit/s", 1e-9);
		snprintf(name, sizeof(name), "DFA 10k, 8 interleaved, %s", sz[i].name);
		measure(3, name, "Gbit/s", 1e-9);
		snprintf(name, sizeof(name), "DFA 10k, single, %s", sz[i].name);
		measure(4, name, "Gbit/s", 1e-9);
		packets(sz[i].size, 16);
		snprintf(name, sizeof(name), "AES-CBC ipsec-mb burst 32, %s (padded)", sz[i].name);
		measure(1, name, "Gbit/s", 1e-9);
	}
	measure(2, "AES block (key/IV derivation), dependent", "Mblock/s", 1e-6 / 128);
	ldpc("wifi:1944:1/2", 10, 1);
	measure(5, "LDPC decode wifi:1944:1/2, 10 it", "Mbit/s", 1e-6);
	ldpc("nr:1:384", 5, 1);
	measure(5, "LDPC decode nr:1:384, 5 it", "Mbit/s", 1e-6);
	ldpc(HP_LDPC_UNIT_CODE, 20, 0);
	hp_ldpc_unit_geom(code[0], &ulen, NULL);
	units = malloc((size_t)NU * ulen);
	decoded = malloc((size_t)NU * ulen);
	work = malloc((size_t)NU * ulen);
	for (int i = 0; i < NU; i++) {
		hp_ldpc_unit_gen(code[0], units + i * ulen, 7000021 + i, i % 16);
		bodies[i] = work + i * ulen;
		ulens[i] = ulen;
	}
	scr[0] = malloc(hp_ldpc_units_scratch(dec[0], NU));
	scr[1] = malloc(hp_ldpc_units_scratch(dec[0], NU));
	memcpy(work, units, (size_t)NU * ulen);
	hp_ldpc_units_decode(dec[0], bodies, ulens, NU, ok, scr[0]);
	memcpy(decoded, work, (size_t)NU * ulen);
	measure(6, "ran units decode, 256 per call, 0..15 flips", "k units/s", 1e-3);
	measure(7, "ran units rebuild (verification)", "k units/s", 1e-3);
	return 0;
}
