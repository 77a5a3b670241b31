/* SPDX-License-Identifier: BSD-3-Clause
 * hp-ldpc: the LDPC channel and measurement tool.
 *   sim    random info bits -> encode -> BPSK -> AWGN at Eb/N0 -> quantised
 *          int8 LLRs -> decode; prints FER/BER, iterations, info Mbit/s per
 *          core and latency per batch/codeword for each Eb/N0 point
 *   bench  decode the same noisy frames repeatedly and print throughput for
 *          one or all kernels (scalar / avx2 / avx512) side by side, in
 *          the batch mode, the single-codeword mode or both
 *   encode random info bits -> full codewords in a file (for tests)
 *   decode int8 LLR file -> info bits file (for tests)
 *   units  the `ran` app's packet units: make, decode (256 per call, as
 *          the ldpc task does), rebuild; checks every decoded unit against
 *          the sent info bits and prints the cost of each step
 *   list   the codes
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hp_ldpc.h"

#define MAXPTS 64

struct opts {
	const char *code, *in, *out, *isa, *mode;
	double ebn0[MAXPTS];
	unsigned int nebn0;
	unsigned long frames, max_err, reps;
	long flips;                /* units: errors per unit, -1 = default */
	double qscale, qmax, seconds;
	uint64_t seed;
	struct hp_ldpc_dec_cfg cfg;
};

static int
fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "hp-ldpc: error: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 2;
}

/* xoshiro256** seeded by splitmix64: fast, reproducible across runs. */
static uint64_t rs[4];

static uint64_t
rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t
rnd(void)
{
	uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;

	rs[2] ^= rs[0];
	rs[3] ^= rs[1];
	rs[1] ^= rs[2];
	rs[0] ^= rs[3];
	rs[2] ^= t;
	rs[3] = rotl(rs[3], 45);
	return r;
}

static void
seed_rng(uint64_t s)
{
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t z = (s += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		rs[i] = z ^ (z >> 31);
	}
}

static double
gauss(void)
{
	static int have;
	static double spare;
	double u, v, s;

	if (have) {
		have = 0;
		return spare;
	}
	do {
		u = (rnd() >> 11) * 0x1.0p-53 * 2 - 1;
		v = (rnd() >> 11) * 0x1.0p-53 * 2 - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	s = sqrt(-2 * log(s) / s);
	spare = v * s;
	have = 1;
	return u * s;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: unlike the wall clock it stops while another
 * job has the CPU, so on a shared machine its best is closer to what the
 * code does alone (cache and memory bandwidth are still shared). */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
parse_ul(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return (errno || end == s || *end || s[0] == '-') ? -1 : 0;
}

static int
parse_d(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (errno || end == s || *end || !isfinite(*v)) ? -1 : 0;
}

/* "1.5" or "1,1.5,2" or "0:3:0.5" (start:stop:step, stop included). */
static int
parse_ebn0(const char *s, struct opts *o)
{
	char buf[256], *tok, *save = NULL;
	double a, b, st;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	o->nebn0 = 0;
	if (strchr(buf, ':')) {
		if (sscanf(buf, "%lf:%lf:%lf", &a, &b, &st) != 3 || st <= 0 || b < a)
			return -1;
		for (; a <= b + 1e-9 && o->nebn0 < MAXPTS; a += st)
			o->ebn0[o->nebn0++] = a;
		return 0;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nebn0 == MAXPTS || parse_d(tok, &o->ebn0[o->nebn0]) < 0)
			return -1;
		o->nebn0++;
	}
	return o->nebn0 ? 0 : -1;
}

static const char usage[] =
"usage: hp-ldpc <sim|bench|encode|decode|units|list> [options]\n"
"  --code SPEC        wifi:<648|1296|1944>:<1/2|2/3|3/4|5/6> or nr:<1|2>:<Z>\n"
"  --ebn0 LIST        Eb/N0 in dB: 2 | 1,1.5,2 | 0:3:0.5 (sim, bench)\n"
"  --frames N         codewords per point (sim: at most; default 1000)\n"
"  --max-errors N     sim: stop a point after N frame errors (default 100)\n"
"  --iters N          maximum decoder iterations (default 10)\n"
"  --alg nms|oms      normalised or offset (default) min-sum\n"
"  --nms-shift K      NMS factor 1-2^-K (default 2: 0.75)\n"
"  --offset N         OMS offset in LLR steps (default 2)\n"
"  --isa NAME         auto|scalar|avx2|avx512 (bench also: all)\n"
"  --mode NAME        batch (codewords across the lanes, default) or single\n"
"                     (one codeword, lanes across Z; bench also: both)\n"
"  --no-early-stop    always run all iterations\n"
"  --qscale S         LLR quantisation steps per unit LLR (default 4)\n"
"  --qmax M           LLR clip in steps (default 63)\n"
"  --seed N           random seed (default 1)\n"
"  --seconds S        bench: time per kernel (default 2)\n"
"  --flips N          units: up to N bit errors per unit (default max/4)\n"
"  --in FILE --out FILE  decode: int8 LLRs in, info bits out; encode: out\n";

static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"code", 1, 0, 'c'}, {"ebn0", 1, 0, 'e'}, {"frames", 1, 0, 'f'},
		{"max-errors", 1, 0, 'm'}, {"iters", 1, 0, 'i'}, {"alg", 1, 0, 'a'},
		{"nms-shift", 1, 0, 'k'}, {"offset", 1, 0, 'o'}, {"isa", 1, 0, 'I'},
		{"no-early-stop", 0, 0, 'N'}, {"qscale", 1, 0, 'q'},
		{"qmax", 1, 0, 'Q'}, {"seed", 1, 0, 's'}, {"seconds", 1, 0, 'S'},
		{"in", 1, 0, 'r'}, {"out", 1, 0, 'w'}, {"help", 0, 0, 'h'},
		{"flips", 1, 0, 'F'}, {"mode", 1, 0, 'M'},
		{0, 0, 0, 0}
	};
	unsigned long v;
	int ch;

	memset(o, 0, sizeof(*o));
	hp_ldpc_dec_cfg_default(&o->cfg);
	o->code = "wifi:1944:1/2";
	o->ebn0[0] = 2.0;
	o->nebn0 = 1;
	o->frames = 1000;
	o->max_err = 100;
	o->qscale = 4.0;
	o->qmax = 63;
	o->seed = 1;
	o->seconds = 2.0;
	o->isa = "auto";
	o->mode = "batch";
	o->flips = -1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (ch) {
		case 'c': o->code = optarg; break;
		case 'e':
			if (parse_ebn0(optarg, o) < 0)
				return fail("bad --ebn0 '%s' (want 2, 1,2,3 or 0:3:0.5)", optarg);
			break;
		case 'f':
			if (parse_ul(optarg, &o->frames) < 0 || o->frames == 0)
				return fail("bad --frames '%s' (want a positive integer)", optarg);
			break;
		case 'm':
			if (parse_ul(optarg, &o->max_err) < 0 || o->max_err == 0)
				return fail("bad --max-errors '%s' (want a positive integer)", optarg);
			break;
		case 'i':
			if (parse_ul(optarg, &v) < 0 || v == 0 || v > 255)
				return fail("bad --iters '%s' (want 1..255)", optarg);
			o->cfg.max_iter = v;
			break;
		case 'a':
			if (!strcmp(optarg, "nms"))
				o->cfg.alg = HP_LDPC_NMS;
			else if (!strcmp(optarg, "oms"))
				o->cfg.alg = HP_LDPC_OMS;
			else
				return fail("bad --alg '%s' (want nms or oms)", optarg);
			break;
		case 'k':
			if (parse_ul(optarg, &v) < 0 || v < 1 || v > 7)
				return fail("bad --nms-shift '%s' (want 1..7)", optarg);
			o->cfg.nms_shift = v;
			break;
		case 'o':
			if (parse_ul(optarg, &v) < 0 || v > 15)
				return fail("bad --offset '%s' (want 0..15)", optarg);
			o->cfg.oms_offset = v;
			break;
		case 'I': o->isa = optarg; break;
		case 'M':
			if (strcmp(optarg, "batch") && strcmp(optarg, "single") &&
			    strcmp(optarg, "both"))
				return fail("bad --mode '%s' (want batch, single or both)", optarg);
			o->mode = optarg;
			o->cfg.mode = !strcmp(optarg, "single") ? HP_LDPC_MODE_SINGLE :
				      HP_LDPC_MODE_BATCH;
			break;
		case 'N': o->cfg.no_early_stop = 1; break;
		case 'q':
			if (parse_d(optarg, &o->qscale) < 0 || o->qscale <= 0)
				return fail("bad --qscale '%s' (want a positive number)", optarg);
			break;
		case 'Q':
			if (parse_d(optarg, &o->qmax) < 0 || o->qmax < 1 || o->qmax > 127)
				return fail("bad --qmax '%s' (want 1..127)", optarg);
			break;
		case 's':
			if (parse_ul(optarg, &v) < 0)
				return fail("bad --seed '%s' (want an integer)", optarg);
			o->seed = v;
			break;
		case 'S':
			if (parse_d(optarg, &o->seconds) < 0 || o->seconds <= 0)
				return fail("bad --seconds '%s' (want a positive number)", optarg);
			break;
		case 'F':
			if (parse_ul(optarg, &v) < 0 || v > 255)
				return fail("bad --flips '%s' (want 0..255)", optarg);
			o->flips = (long)v;
			break;
		case 'r': o->in = optarg; break;
		case 'w': o->out = optarg; break;
		case 'h': fputs(usage, stdout); exit(0);
		default:
			return fail("unknown or incomplete option '%s' (see --help)",
				    argv[optind - 1]);
		}
	}
	if (optind != argc)
		return fail("unexpected argument '%s'", argv[optind]);
	return 0;
}

static int
isa_of(const char *s, enum hp_ldpc_isa *isa)
{
	if (!strcmp(s, "auto")) *isa = HP_LDPC_ISA_AUTO;
	else if (!strcmp(s, "scalar")) *isa = HP_LDPC_ISA_SCALAR;
	else if (!strcmp(s, "avx2")) *isa = HP_LDPC_ISA_AVX2;
	else if (!strcmp(s, "avx512")) *isa = HP_LDPC_ISA_AVX512;
	else return -1;
	return 0;
}

/* Random info bits and their full codeword. */
static void
gen_frame(const struct hp_ldpc_code *c, uint8_t *info, uint8_t *cw)
{
	unsigned int k = hp_ldpc_code_k(c), j;

	for (j = 0; j < k; j++)
		info[j] = rnd() & 1;
	hp_ldpc_encode(c, info, cw);
}

/* BPSK (0 -> +1) over AWGN; LLR 2y/sigma^2 quantised to int8 steps. */
static void
channel(const struct hp_ldpc_code *c, const uint8_t *cw, double ebn0,
	const struct opts *o, int8_t *llr)
{
	unsigned int n = hp_ldpc_code_n(c), p = hp_ldpc_code_punct(c), j;
	double rate = (double)hp_ldpc_code_k(c) / n;
	double sigma2 = 1.0 / (2 * rate * pow(10, ebn0 / 10));
	double sigma = sqrt(sigma2);

	for (j = 0; j < n; j++) {
		double y = (cw[p + j] ? -1.0 : 1.0) + sigma * gauss();
		double q = nearbyint(2 * y / sigma2 * o->qscale);

		llr[j] = (int8_t)(q > o->qmax ? o->qmax : q < -o->qmax ? -o->qmax : q);
	}
}

static int
make(const struct opts *o, enum hp_ldpc_isa isa, struct hp_ldpc_code **c,
     struct hp_ldpc_dec **d)
{
	struct hp_ldpc_dec_cfg cfg = o->cfg;
	int rc;

	rc = hp_ldpc_code_create(o->code, c);
	if (rc < 0)
		return fail("unknown code '%s' (want wifi:<648|1296|1944>:<1/2|2/3|3/4|5/6> or nr:<1|2>:<Z of 38.212 Table 5.3.2-1>)",
			    o->code);
	if (d == NULL)
		return 0;
	if (!strcmp(o->mode, "both")) {
		hp_ldpc_code_free(*c);
		return fail("%s", "--mode both is for bench only (want batch or single)");
	}
	cfg.isa = isa;
	rc = hp_ldpc_dec_create(*c, &cfg, d);
	if (rc < 0) {
		hp_ldpc_code_free(*c);
		return fail("decoder: %s", rc == -ENOTSUP ?
			    "that ISA is not supported by this CPU" : strerror(-rc));
	}
	return 0;
}

static int
cmd_sim(const struct opts *o)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *d;
	enum hp_ldpc_isa isa;
	unsigned int n, k, nf, W, pt;
	uint8_t *info, *cw, *dec;
	int8_t *llr;
	struct hp_ldpc_result *res;
	int rc;

	if (isa_of(o->isa, &isa) < 0)
		return fail("bad --isa '%s' (want auto, scalar, avx2 or avx512)", o->isa);
	rc = make(o, isa, &c, &d);
	if (rc)
		return rc;
	n = hp_ldpc_code_n(c);
	k = hp_ldpc_code_k(c);
	nf = hp_ldpc_code_n_full(c);
	W = o->cfg.mode == HP_LDPC_MODE_SINGLE ? 1 : hp_ldpc_dec_lanes(d);
	info = malloc((size_t)W * k);
	dec = malloc((size_t)W * k);
	cw = malloc(nf);
	llr = malloc((size_t)W * n);
	res = calloc(W, sizeof(*res));
	if (!info || !dec || !cw || !llr || !res) {
		rc = fail("%s", "out of memory");
		goto out;
	}
	seed_rng(o->seed);
	printf("# code %s n=%u k=%u isa=%s lanes=%u iters=%u alg=%s%s qscale=%g qmax=%g\n",
	       hp_ldpc_code_name(c), n, k, hp_ldpc_dec_isa(d), W,
	       o->cfg.max_iter, o->cfg.alg == HP_LDPC_OMS ? "oms" : "nms",
	       o->cfg.no_early_stop ? " no-early-stop" : "", o->qscale, o->qmax);
	printf("%8s %8s %8s %10s %10s %8s %12s %12s %12s\n", "ebn0_db", "frames",
	       "frame_err", "fer", "ber", "avg_it", "info_mbps", "batch_us", "cw_us");
	for (pt = 0; pt < o->nebn0; pt++) {
		unsigned long frames = 0, ferr = 0, berr = 0, its = 0, batches = 0;
		double t = 0;

		while (frames < o->frames && ferr < o->max_err) {
			unsigned int m = o->frames - frames < W ? o->frames - frames : W, f, j;
			double t0;

			for (f = 0; f < m; f++) {
				gen_frame(c, info + (size_t)f * k, cw);
				channel(c, cw, o->ebn0[pt], o, llr + (size_t)f * n);
			}
			t0 = now();
			rc = hp_ldpc_decode(d, llr, n, m, dec, res);
			t += now() - t0;
			if (rc < 0) {
				rc = fail("decode: %s", strerror(-rc));
				goto out;
			}
			batches++;
			for (f = 0; f < m; f++) {
				unsigned long e = 0;

				for (j = 0; j < k; j++)
					e += info[(size_t)f * k + j] != dec[(size_t)f * k + j];
				berr += e;
				ferr += e != 0;
				its += res[f].iters;
			}
			frames += m;
		}
		printf("%8.2f %8lu %8lu %10.3e %10.3e %8.2f %12.1f %12.1f %12.2f\n",
		       o->ebn0[pt], frames, ferr, (double)ferr / frames,
		       (double)berr / ((double)frames * k), (double)its / frames,
		       frames * (double)k / t / 1e6, t / batches * 1e6,
		       t / frames * 1e6);
	}
	rc = 0;
out:
	free(info);
	free(dec);
	free(cw);
	free(llr);
	free(res);
	hp_ldpc_dec_free(d);
	hp_ldpc_code_free(c);
	return rc;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Single mode: the latency of one call with one codeword, each of the nfr
 * frames decoded alone three times; percentiles over those calls (the
 * max carries whatever else the machine did meanwhile). */
static void
print_call_latency(struct hp_ldpc_dec *d, const int8_t *llr, unsigned int n,
		   unsigned int nfr, uint8_t *dec, unsigned int k)
{
	const unsigned int nc = 3 * nfr;
	double *lat = malloc(nc * sizeof(*lat));
	unsigned int i;

	if (lat == NULL)
		return;
	for (i = 0; i < nc; i++) {
		double t = now();

		hp_ldpc_decode(d, llr + (size_t)(i % nfr) * n, n, 1, dec + (size_t)(i % nfr) * k,
			       NULL);
		lat[i] = (now() - t) * 1e6;
	}
	qsort(lat, nc, sizeof(*lat), cmp_dbl);
	printf("%8s   one codeword per call, %u calls: p50 %.1f us, p99 %.1f us, max %.1f us\n",
	       "", nc, lat[nc / 2], lat[nc * 99 / 100], lat[nc - 1]);
	free(lat);
}

static int
cmd_bench(const struct opts *o)
{
	static const char *const names[] = {"scalar", "avx2", "avx512"};
	static const enum hp_ldpc_isa isas[] = {HP_LDPC_ISA_SCALAR,
		HP_LDPC_ISA_AVX2, HP_LDPC_ISA_AVX512};
	struct hp_ldpc_code *c;
	unsigned int n, k, nf, i, f, nfr = 256;
	uint8_t *info = NULL, *cw = NULL, *dec = NULL;
	int8_t *llr = NULL;
	struct hp_ldpc_result *res = NULL;
	enum hp_ldpc_isa one;
	int all = !strcmp(o->isa, "all"), rc;

	if (!all && isa_of(o->isa, &one) < 0)
		return fail("bad --isa '%s' (want auto, scalar, avx2, avx512 or all)", o->isa);
	if (all || one == HP_LDPC_ISA_AUTO)
		one = hp_ldpc_isa_supported(HP_LDPC_ISA_AVX512) ? HP_LDPC_ISA_AVX512 :
		      hp_ldpc_isa_supported(HP_LDPC_ISA_AVX2) ? HP_LDPC_ISA_AVX2 :
		      HP_LDPC_ISA_SCALAR;
	rc = make(o, HP_LDPC_ISA_AUTO, &c, NULL);
	if (rc)
		return rc;
	n = hp_ldpc_code_n(c);
	k = hp_ldpc_code_k(c);
	nf = hp_ldpc_code_n_full(c);
	info = malloc((size_t)nfr * k);
	dec = malloc((size_t)nfr * k);
	cw = malloc(nf);
	llr = malloc((size_t)nfr * n);
	res = calloc(nfr, sizeof(*res));
	if (!info || !dec || !cw || !llr || !res) {
		rc = fail("%s", "out of memory");
		goto out;
	}
	seed_rng(o->seed);
	for (f = 0; f < nfr; f++) {
		gen_frame(c, info + (size_t)f * k, cw);
		channel(c, cw, o->ebn0[0], o, llr + (size_t)f * n);
	}
	printf("# bench code %s n=%u k=%u ebn0=%.2f iters=%u alg=%s%s frames=%u (one core)\n",
	       hp_ldpc_code_name(c), n, k, o->ebn0[0], o->cfg.max_iter,
	       o->cfg.alg == HP_LDPC_OMS ? "oms" : "nms",
	       o->cfg.no_early_stop ? " no-early-stop" : "", nfr);
	if (!strcmp(o->mode, "both")) {
		struct hp_ldpc_dec_cfg pc = o->cfg;
		struct hp_ldpc_costs k;

		/* The ldpc task's per-call rule (hp_ldpc_mode_pick) on this
		 * CPU: where single stops being the faster for a call. */
		pc.isa = one;
		if (hp_ldpc_costs_probe(c, &pc, &k) == 0) {
			unsigned int m = 1;

			while (m < 100000 && hp_ldpc_mode_pick(&k, m + 1, o->cfg.max_iter) ==
					     HP_LDPC_MODE_SINGLE)
				m++;
			printf("# mode rule (isa %s): one iteration %.2f us single, %.1f us per "
			       "batch of %u; single is the faster up to %u%s codewords per call\n",
			       names[one - HP_LDPC_ISA_SCALAR], k.single_ns / 1e3, k.batch_ns / 1e3,
			       k.lanes, m, m >= 100000 ? "+" : "");
		}
	}
	/* lanes: codewords per kernel call (1 in the single mode, so
	 * batch_us is then one codeword's latency). */
	printf("%8s %6s %6s %10s %10s %12s %12s %12s %12s %12s\n", "isa", "mode", "lanes",
	       "fer", "avg_it", "best_mbps", "mean_mbps", "batch_us", "cw_us", "cpu_mbps");
	for (i = 0; i < 6; i++) {
		struct hp_ldpc_dec_cfg cfg = o->cfg;
		const int single = i & 1;
		unsigned int lanes;
		struct hp_ldpc_dec *d;
		unsigned long reps = 0, ferr = 0, its = 0;
		double t0, t, t1, c1, best = 1e30, cbest = 1e30;

		if ((!all && one != isas[i / 2]) ||
		    (strcmp(o->mode, "both") && single != (cfg.mode == HP_LDPC_MODE_SINGLE)))
			continue;
		cfg.isa = isas[i / 2];
		cfg.mode = single ? HP_LDPC_MODE_SINGLE : HP_LDPC_MODE_BATCH;
		if (!hp_ldpc_isa_supported(isas[i / 2])) {
			printf("%8s   (not supported by this CPU)\n", names[i / 2]);
			i |= 1;
			continue;
		}
		rc = hp_ldpc_dec_create(c, &cfg, &d);
		if (rc < 0) {
			rc = fail("decoder: %s", strerror(-rc));
			goto out;
		}
		/* The best of repeated runs is what the code can do; the mean
		 * also carries whatever else the (shared) machine was doing. */
		t0 = now();
		do {
			t1 = now();
			c1 = cpu_now();
			rc = hp_ldpc_decode(d, llr, n, nfr, dec, res);
			t = now();
			c1 = cpu_now() - c1;
			best = t - t1 < best ? t - t1 : best;
			cbest = c1 < cbest ? c1 : cbest;
			reps++;
			t -= t0;
		} while (rc >= 0 && t < o->seconds);
		if (rc < 0) {
			hp_ldpc_dec_free(d);
			rc = fail("decode: %s", strerror(-rc));
			goto out;
		}
		for (f = 0; f < nfr; f++) {
			ferr += memcmp(info + (size_t)f * k, dec + (size_t)f * k, k) != 0;
			its += res[f].iters;
		}
		/* Latencies from the best run: a batch of `lanes` codewords
		 * finishes together, so batch_us is each one's latency. */
		lanes = single ? 1 : hp_ldpc_dec_lanes(d);
		printf("%8s %6s %6u %10.3e %10.2f %12.1f %12.1f %12.1f %12.2f %12.1f\n",
		       names[i / 2], single ? "single" : "batch",
		       lanes, (double)ferr / nfr, (double)its / nfr,
		       (double)nfr * k / best / 1e6,
		       reps * (double)nfr * k / t / 1e6,
		       best / ((nfr + lanes - 1) / lanes) * 1e6,
		       best / nfr * 1e6, (double)nfr * k / cbest / 1e6);
		if (single)
			print_call_latency(d, llr, n, nfr, dec, k);
		fflush(stdout);
		hp_ldpc_dec_free(d);
	}
	rc = 0;
out:
	free(info);
	free(dec);
	free(cw);
	free(llr);
	free(res);
	hp_ldpc_code_free(c);
	return rc;
}

static int
cmd_encode(const struct opts *o)
{
	struct hp_ldpc_code *c;
	unsigned int nf;
	uint8_t *info = NULL, *cw = NULL;
	unsigned long f;
	FILE *fp;
	int rc;

	if (o->out == NULL)
		return fail("%s", "encode needs --out FILE");
	rc = make(o, HP_LDPC_ISA_AUTO, &c, NULL);
	if (rc)
		return rc;
	nf = hp_ldpc_code_n_full(c);
	info = malloc(hp_ldpc_code_k(c));
	cw = malloc(nf);
	fp = fopen(o->out, "wb");
	if (fp == NULL || !info || !cw) {
		rc = fail("cannot write '%s'", o->out);
		goto out;
	}
	seed_rng(o->seed);
	rc = 0;
	for (f = 0; f < o->frames; f++) {
		gen_frame(c, info, cw);
		if (fwrite(cw, 1, nf, fp) != nf) {
			rc = fail("cannot write '%s'", o->out);
			break;
		}
	}
	if (fclose(fp) != 0 && rc == 0)
		rc = fail("cannot write '%s'", o->out);
out:
	free(info);
	free(cw);
	hp_ldpc_code_free(c);
	return rc;
}

static int
cmd_decode(const struct opts *o)
{
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *d;
	enum hp_ldpc_isa isa;
	int8_t *llr = NULL;
	uint8_t *dec = NULL;
	long sz;
	unsigned int n, k, ncw;
	FILE *fp = NULL;
	int rc;

	if (o->in == NULL || o->out == NULL)
		return fail("%s", "decode needs --in FILE and --out FILE");
	if (isa_of(o->isa, &isa) < 0)
		return fail("bad --isa '%s' (want auto, scalar, avx2 or avx512)", o->isa);
	rc = make(o, isa, &c, &d);
	if (rc)
		return rc;
	n = hp_ldpc_code_n(c);
	k = hp_ldpc_code_k(c);
	fp = fopen(o->in, "rb");
	if (fp == NULL || fseek(fp, 0, SEEK_END) < 0 || (sz = ftell(fp)) < 0) {
		rc = fail("cannot read '%s'", o->in);
		goto out;
	}
	if (sz == 0 || sz % n) {
		rc = fail("'%s' is not a whole number of LLR blocks of this code's length", o->in);
		goto out;
	}
	ncw = sz / n;
	llr = malloc(sz);
	dec = malloc((size_t)ncw * k);
	rewind(fp);
	if (!llr || !dec || fread(llr, 1, sz, fp) != (size_t)sz) {
		rc = fail("cannot read '%s'", o->in);
		goto out;
	}
	fclose(fp);
	fp = NULL;
	rc = hp_ldpc_decode(d, llr, n, ncw, dec, NULL);
	if (rc < 0) {
		rc = fail("decode: %s", strerror(-rc));
		goto out;
	}
	printf("decoded %u codewords, %d valid\n", ncw, rc);
	fp = fopen(o->out, "wb");
	if (fp == NULL || fwrite(dec, 1, (size_t)ncw * k, fp) != (size_t)ncw * k) {
		rc = fail("cannot write '%s'", o->out);
		goto out;
	}
	rc = fclose(fp) ? fail("cannot write '%s'", o->out) : 0;
	fp = NULL;
out:
	if (fp)
		fclose(fp);
	free(llr);
	free(dec);
	hp_ldpc_dec_free(d);
	hp_ldpc_code_free(c);
	return rc;
}

/* The ran app's units: --frames units of --code with 0..--flips random
 * bit errors each (from --seed), made, decoded 256 per call like the
 * ldpc task, and rebuilt by the reference path; exit 1 unless every unit
 * decoded to its sent info bits and rebuilt to the received bytes. */
static int
cmd_units(const struct opts *o)
{
	enum { CALL = 256 };
	struct hp_ldpc_code *c;
	struct hp_ldpc_dec *d;
	enum hp_ldpc_isa isa;
	unsigned int len, maxflip, ib, flips, u, good = 0;
	unsigned long n = o->frames, i;
	uint8_t *rx, *body, *info, *ok, **bodies;
	uint32_t *lens;
	void *scratch;
	double t0, t_gen, t_dec = 0, t_res;
	int rc = 0;

	if (isa_of(o->isa, &isa) < 0)
		return fail("bad --isa '%s' (want auto, scalar, avx2 or avx512)", o->isa);
	rc = make(o, isa, &c, &d);
	if (rc)
		return rc;
	if (hp_ldpc_unit_geom(c, &len, &maxflip) < 0) {
		rc = fail("code %s leaves no room for a flip list", o->code);
		goto out_code;
	}
	flips = o->flips < 0 ? maxflip / 4 : (unsigned int)o->flips;
	ib = (hp_ldpc_code_k(c) + 7) / 8;
	rx = malloc(n * len);
	body = malloc(n * len);
	info = malloc(ib);
	ok = malloc(CALL);
	bodies = malloc(CALL * sizeof(*bodies));
	lens = malloc(CALL * sizeof(*lens));
	scratch = malloc(hp_ldpc_units_scratch(d, CALL));
	if (!rx || !body || !info || !ok || !bodies || !lens || !scratch) {
		rc = fail("%s", "out of memory");
		goto out;
	}
	t0 = now();
	for (i = 0; i < n; i++)
		hp_ldpc_unit_gen(c, rx + i * len, o->seed * 1000003 + i,
				 (unsigned int)((o->seed + i) * 2654435761u % (flips + 1)));
	t_gen = now() - t0;
	memcpy(body, rx, n * len);
	for (i = 0; i < n; i += CALL) {
		unsigned int m = n - i < CALL ? (unsigned int)(n - i) : CALL;

		for (u = 0; u < m; u++) {
			bodies[u] = body + (i + u) * len;
			lens[u] = len;
		}
		t0 = now();
		if (hp_ldpc_units_decode(d, bodies, lens, m, ok, scratch) < 0) {
			rc = fail("%s", "units decode failed");
			goto out;
		}
		t_dec += now() - t0;
		for (u = 0; u < m; u++) {
			hp_ldpc_unit_info(c, o->seed * 1000003 + i + u, info);
			good += ok[u] && memcmp(bodies[u], info, ib) == 0;
		}
	}
	t0 = now();
	rc = hp_ldpc_units_restore(c, body, (uint32_t)(n * len));
	t_res = now() - t0;
	if (rc == 0 && memcmp(body, rx, n * len) != 0)
		rc = -EBADMSG;
	printf("# units code %s unit=%u B max_flip=%u flips=0..%u iters=%u isa=%s (one core)\n",
	       hp_ldpc_code_name(c), len, maxflip, flips, o->cfg.max_iter,
	       hp_ldpc_dec_isa(d));
	printf("%8s %10s %10s %12s %12s %12s %14s\n", "units", "decoded", "rebuilt",
	       "make_us", "decode_us", "rebuild_us", "decode_mbps");
	printf("%8lu %10u %10s %12.2f %12.2f %12.2f %14.1f\n", n, good,
	       rc == 0 ? "all" : "NO", t_gen * 1e6 / n, t_dec * 1e6 / n,
	       t_res * 1e6 / n, (double)n * hp_ldpc_code_k(c) / t_dec / 1e6);
	rc = (rc == 0 && good == n) ? 0 : 1;
out:
	free(rx);
	free(body);
	free(info);
	free(ok);
	free(bodies);
	free(lens);
	free(scratch);
	hp_ldpc_dec_free(d);
out_code:
	hp_ldpc_code_free(c);
	return rc;
}

static int
cmd_list(void)
{
	static const char *const rates[] = {"1/2", "2/3", "3/4", "5/6"};
	static const unsigned int ns[] = {648, 1296, 1944};
	static const unsigned int zs[] = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
		13, 14, 15, 16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48,
		52, 56, 60, 64, 72, 80, 88, 96, 104, 112, 120, 128, 144, 160, 176,
		192, 208, 224, 240, 256, 288, 320, 352, 384};
	char spec[32];
	unsigned int i, j;

	printf("%-16s %6s %6s %4s %6s\n", "code", "n", "k", "z", "nnz");
	for (i = 0; i < 3; i++)
		for (j = 0; j < 4; j++) {
			struct hp_ldpc_code *c;

			snprintf(spec, sizeof(spec), "wifi:%u:%s", ns[i], rates[j]);
			if (hp_ldpc_code_create(spec, &c) < 0)
				return fail("cannot build %s", spec);
			printf("%-16s %6u %6u %4u %6u\n", spec, hp_ldpc_code_n(c),
			       hp_ldpc_code_k(c), hp_ldpc_code_z(c), hp_ldpc_code_nnz(c));
			hp_ldpc_code_free(c);
		}
	for (i = 1; i <= 2; i++)
		printf("nr:%u:<Z>          Z in {%u..%u, the 51 sizes of 38.212 Table 5.3.2-1}\n",
		       i, zs[0], zs[50]);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o;
	const char *cmd;
	int rc;

	if (argc < 2)
		return fail("%s", "missing command (sim, bench, encode, decode, units, list; see --help)");
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	rc = parse(argc - 1, argv + 1, &o);
	if (rc)
		return rc;
	if (!strcmp(cmd, "sim"))
		return cmd_sim(&o);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(&o);
	if (!strcmp(cmd, "encode"))
		return cmd_encode(&o);
	if (!strcmp(cmd, "decode"))
		return cmd_decode(&o);
	if (!strcmp(cmd, "units"))
		return cmd_units(&o);
	if (!strcmp(cmd, "list"))
		return cmd_list();
	return fail("unknown command '%s' (want sim, bench, encode, decode, units or list)", cmd);
}
