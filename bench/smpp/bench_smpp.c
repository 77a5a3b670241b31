/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_smpp: throughput of the SMPP batch decoder on the thesis's SUBMIT_SM
 * mix (Weerasinghe 4.1: distinct addresses, 20-character messages, 5 TLVs),
 * for batch sizes and thread counts side by side, both input forms, plus the
 * bare per-PDU decoder on one core, and each batch as struct smpp_pdu
 * records (plain, element) and as 64-octet compact ones (rec, rec-el).
 * Prints one table row per configuration:
 * PDUs/s and MB/s of the median call (a shared machine's preemptions drag
 * the mean, printed beside it, down), the median and the fastest call, and
 * PDUs per CPU-second of the process (median call; per core, without the
 * time other processes held the cores).
 *
 *   bench_smpp [-b 1000,10000,100000,1000000] [-t MAX_THREADS] [-s SECONDS]
 *   bench_smpp -w FILE -n N      write N PDUs (plain form) for peer benches
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "smpp.h"

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double
now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* CPU seconds of this process (all its threads): what a call costs the
 * cores it ran on, without the time other processes of a shared machine
 * held them. */
static double
cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static uint8_t *
make_stream(const struct smpp_config *fr, uint32_t n, size_t *len)
{
	struct smpp_sim_config sc;
	size_t cap = (size_t)n * 160 + 4096;
	uint8_t *buf = malloc(cap);
	size_t l = 0;
	int r;

	if (buf == NULL)
		return NULL;
	smpp_sim_config_default(&sc);
	/* in chunks: smpp_sim_stream returns an int length */
	for (uint32_t i = 0; i < n; i += 100000) {
		uint32_t k = n - i < 100000 ? n - i : 100000;
		r = smpp_sim_stream(&sc, fr, i, k, buf + l, cap - l);
		if (r < 0) {
			free(buf);
			return NULL;
		}
		l += (size_t)r;
	}
	*len = l;
	return buf;
}

static int
write_file(const char *path, uint32_t n)
{
	struct smpp_config fr;
	size_t len;
	uint8_t *s;
	FILE *f;
	int rc = 0;

	smpp_config_default(&fr);
	s = make_stream(&fr, n, &len);
	if (s == NULL)
		return -ENOMEM;
	f = fopen(path, "wb");
	if (f == NULL || fwrite(s, 1, len, f) != len)
		rc = -EIO;
	if (f != NULL)
		fclose(f);
	free(s);
	return rc;
}

/* Per-call times: the median resists the preemptions of a shared machine
 * that drag the mean down. */
struct times {
	double *v;
	size_t n, cap;
};

static void
times_add(struct times *t, double x)
{
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024;
		double *nv = realloc(t->v, nc * sizeof(*nv));

		if (nv == NULL)
			return;
		t->v = nv;
		t->cap = nc;
	}
	t->v[t->n++] = x;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of the recorded times (sorts them). */
static double
times_median(struct times *t)
{
	if (t->n == 0)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_d);
	return t->v[t->n / 2];
}

/* One batch call: struct smpp_pdu records, or compact ones (rec). */
static int
decode_call(struct smpp_ctx *ctx, const uint8_t *s, size_t len, int rec,
	    struct smpp_batch *b, struct smpp_rbatch *rb, size_t *n, size_t *nerr)
{
	int rc;

	if (rec) {
		rc = smpp_decode_batch_rec(ctx, s, len, SMPP_MODE_CPU, rb);
		*n = rb->n;
		*nerr = rb->nerr;
	} else {
		rc = smpp_decode_batch(ctx, s, len, SMPP_MODE_CPU, b);
		*n = b->n;
		*nerr = b->nerr;
	}
	return rc;
}

/* Batch decode of one configuration, repeated for at least secs. */
static int
run_batch(enum smpp_framing form, int rec, uint32_t batch, unsigned threads,
	  double secs)
{
	static const char *const names[2][2] = { { "plain", "element" },
						 { "rec", "rec-el" } };
	struct smpp_config cfg;
	struct smpp_ctx *ctx = NULL;
	struct smpp_batch b;
	struct smpp_rbatch rb;
	size_t len, n, nerr;
	uint8_t *s;
	double t0, t, best = 1e30, med, cmed;
	struct times tm = { 0 }, tc = { 0 };
	unsigned reps = 0;
	int rc;

	smpp_config_default(&cfg);
	cfg.framing = form;
	cfg.threads = threads;
	cfg.min_parallel = 0;  /* measure what was asked, even for small batches */
	s = make_stream(&cfg, batch, &len);
	if (s == NULL)
		return -ENOMEM;
	rc = smpp_ctx_create(&cfg, &ctx);
	if (rc < 0)
		goto out;
	smpp_batch_init(&b);
	smpp_rbatch_init(&rb);
	rc = decode_call(ctx, s, len, rec, &b, &rb, &n, &nerr);  /* warm-up */
	if (rc < 0 || n != batch || nerr != 0) {
		fprintf(stderr, "bench_smpp: decode check failed (%d, %zu/%u, %zu errors)\n",
			rc, n, batch, nerr);
		rc = rc < 0 ? rc : -EIO;
		goto out_b;
	}
	t0 = now();
	do {
		double a = now(), c = cpu_now();

		decode_call(ctx, s, len, rec, &b, &rb, &n, &nerr);
		times_add(&tc, cpu_now() - c);
		t = now() - a;
		if (t < best)
			best = t;
		times_add(&tm, t);
		reps++;
	} while (now() - t0 < secs || reps < 3);
	t = (now() - t0) / reps;
	med = times_median(&tm);
	cmed = times_median(&tc);
	free(tm.v);
	free(tc.v);
	printf("| %-7s | %8u | %7u | %12.0f | %8.1f | %12.0f | %10.3f | %10.3f | %12.0f |\n",
	       names[rec][form == SMPP_FRAME_ELEMENT], batch, threads,
	       batch / med, len / med / 1e6, batch / t, med * 1e3, best * 1e3,
	       cmed > 0 ? batch / cmed : 0.0);
	fflush(stdout);
out_b:
	smpp_batch_free(&b);
	smpp_rbatch_free(&rb);
out:
	smpp_ctx_free(ctx);
	free(s);
	return rc;
}

/* The bare decoder on one core: smpp_decode_pdu over pre-framed PDUs. */
static int
run_bare(uint32_t n, double secs)
{
	struct smpp_config cfg;
	struct smpp_pdu p;
	size_t len, off;
	uint8_t *s;
	double t0, t, a, med, best = 1e30;
	struct times tm = { 0 };
	uint64_t done = 0, bad = 0;

	smpp_config_default(&cfg);
	s = make_stream(&cfg, n, &len);
	if (s == NULL)
		return -ENOMEM;
	t0 = now();
	do {
		a = now();
		for (off = 0; off < len; ) {
			uint32_t cl = (uint32_t)s[off] << 24 | (uint32_t)s[off + 1] << 16 |
				      (uint32_t)s[off + 2] << 8 | s[off + 3];
			bad += smpp_decode_pdu(s + off, cl, 0, off, &p) != 0;
			off += cl;
		}
		t = now() - a;
		if (t < best)
			best = t;
		times_add(&tm, t);
		done += n;
	} while (now() - t0 < secs);
	t = now() - t0;
	med = times_median(&tm);
	free(tm.v);
	if (bad)
		fprintf(stderr, "bench_smpp: %llu decode errors\n", (unsigned long long)bad);
	printf("| bare    | %8u | %7u | %12.0f | %8.1f | %12.0f | %10.3f | %10.3f | %12s |\n", n, 1,
	       n / med, len / med / 1e6, done / t, med * 1e3, best * 1e3, "-");
	free(s);
	return bad ? -EIO : 0;
}

int
main(int argc, char **argv)
{
	uint32_t sizes[16] = { 1000, 10000, 100000, 1000000 };
	unsigned nsizes = 4, maxt = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	const char *wfile = NULL;
	uint32_t wn = 100000;
	double secs = 1.0;
	int opt;

	while ((opt = getopt(argc, argv, "b:t:s:w:n:")) != -1) {
		switch (opt) {
		case 'b': {
			char *tok, *save = NULL;
			nsizes = 0;
			for (tok = strtok_r(optarg, ",", &save); tok && nsizes < 16;
			     tok = strtok_r(NULL, ",", &save))
				sizes[nsizes++] = (uint32_t)strtoul(tok, NULL, 10);
			break;
		}
		case 't': maxt = (unsigned)atoi(optarg); break;
		case 's': secs = atof(optarg); break;
		case 'w': wfile = optarg; break;
		case 'n': wn = (uint32_t)strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: bench_smpp [-b SIZES] [-t MAX_THREADS] [-s SECS] "
				"| -w FILE -n N\n");
			return 2;
		}
	}
	if (wfile != NULL)
		return write_file(wfile, wn) < 0;
	if (maxt < 1)
		maxt = 1;
	printf("| form    |    batch | threads | PDUs/s (med) | MB/s (med) | PDUs/s (mean) | batch ms (med) | best ms | PDUs per CPU-s (med) |\n");
	printf("|---------|---------:|--------:|-------------:|-----------:|--------------:|---------------:|--------:|---------------------:|\n");
	if (run_bare(100000, secs) < 0)
		return 1;
	/* struct smpp_pdu records (plain, element), then compact ones */
	for (unsigned f = 0; f < 4; f++)
		for (unsigned i = 0; i < nsizes; i++)
			for (unsigned t = 1; t <= maxt; t++)
				if (run_batch(f & 1 ? SMPP_FRAME_ELEMENT : SMPP_FRAME_PLAIN,
					      f >> 1, sizes[i], t, secs) < 0)
					return 1;
	return 0;
}
