/* SPDX-License-Identifier: BSD-3-Clause
 * nf-bench: the network-function kernels side by side with their peers,
 * single thread, in one run over the same payloads: ipsec-mb multi-buffer
 * AES-128-CBC vs an OpenSSL EVP loop, own multi-buffer MD5 vs OpenSSL,
 * own Aho-Corasick DFA vs Hyperscan (per packet and on one large buffer).
 * Prints a markdown table; --out also writes it with date, machine and
 * command (bench/results/nf-<date>.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "hp_nf.h"

#define BURST 32

struct set {
	const char *name;
	uint32_t n;
	uint8_t **buf;   /* payload, room for +16 */
	uint32_t *len;   /* payload length */
	uint64_t bytes;  /* sum of len */
};

/* --cpu-time: slices are timed by the thread's CPU time, so time spent
 * descheduled on a loaded machine does not count (caches stay shared). */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int
make_set(struct set *st, const char *name, uint32_t n, uint32_t size,
	 const struct hp_nf_patset *ps, uint64_t seed)
{
	/* IMIX (size 0): 243/486/1458 B with shares 2:1:2. */
	static const uint32_t imix[5] = { 243, 243, 486, 1458, 1458 };
	uint64_t s = seed;

	st->name = name;
	st->n = n;
	st->bytes = 0;
	st->buf = calloc(n, sizeof(*st->buf));
	st->len = calloc(n, sizeof(*st->len));
	if (st->buf == NULL || st->len == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		st->len[i] = size ? size : imix[rnd(&s) % 5];
		st->buf[i] = aligned_alloc(64, (st->len[i] + 16 + 63) / 64 * 64);
		if (st->buf[i] == NULL)
			return -ENOMEM;
		hp_nf_traffic_fill(ps, &s, st->buf[i], st->len[i], 0.3);
		st->bytes += st->len[i];
	}
	return 0;
}

static void
free_set(struct set *st)
{
	for (uint32_t i = 0; i < st->n; i++)
		free(st->buf[i]);
	free(st->buf);
	free(st->len);
}

/* Runs fn over the set in 5 slices of min_s / 5 seconds and returns the
 * best slice in Gbit/s: the machine is shared, and the best slice is the
 * one least disturbed by other processes. */
typedef void (*pass_fn)(void *arg, struct set *st);

static double
measure(pass_fn fn, void *arg, struct set *st, uint64_t bytes, double min_s)
{
	double best = 0;

	fn(arg, st); /* warm caches and lazy initialisation */
	for (int r = 0; r < 5; r++) {
		double t0 = now(), t;
		uint64_t passes = 0;

		do {
			fn(arg, st);
			passes++;
			t = now() - t0;
		} while (t < min_s / 5);
		if ((double)bytes * passes * 8 / t / 1e9 > best)
			best = (double)bytes * passes * 8 / t / 1e9;
	}
	return best;
}

/* ---- AES-CBC ---- */
struct cbc_arg {
	struct hp_nf_cbc *mb;
	struct hp_nf_aes_key *keys; /* per packet (packets of many flows) */
	uint8_t (*raw)[16];
	uint8_t (*iv)[16];
	uint32_t *plen;             /* padded length */
	struct hp_nf_cbc_job *jobs;
	EVP_CIPHER_CTX **evp;       /* per packet: a per-flow context */
};

static void
cbc_mb_pass(void *a, struct set *st)
{
	struct cbc_arg *c = a;

	for (uint32_t i = 0; i < st->n; i += BURST)
		hp_nf_cbc_encrypt_burst(c->mb, c->jobs + i,
					st->n - i < BURST ? st->n - i : BURST);
}

static void
cbc_evp_pass(void *a, struct set *st)
{
	struct cbc_arg *c = a;
	int ol;

	/* openssl-speed style: the context keeps the key schedule, each
	 * packet only sets its IV. */
	for (uint32_t i = 0; i < st->n; i++) {
		EVP_EncryptInit_ex(c->evp[i % 64], NULL, NULL, NULL, c->iv[i]);
		EVP_EncryptUpdate(c->evp[i % 64], st->buf[i], &ol, st->buf[i],
				  (int)c->plen[i]);
	}
}

/* ---- MD5 ---- */
struct md5_arg {
	struct hp_nf_md5_job *jobs;
	uint8_t (*dg)[16];
	EVP_MD_CTX *ctx;
	unsigned int batch;
};

static void
md5_mb_pass(void *a, struct set *st)
{
	struct md5_arg *m = a;

	for (uint32_t i = 0; i < st->n; i += m->batch)
		hp_nf_md5_mb(m->jobs + i, st->n - i < m->batch ? st->n - i : m->batch);
}

static void
md5_ossl_pass(void *a, struct set *st)
{
	struct md5_arg *m = a;
	unsigned int dl;

	for (uint32_t i = 0; i < st->n; i++) {
		EVP_DigestInit_ex(m->ctx, EVP_md5(), NULL);
		EVP_DigestUpdate(m->ctx, st->buf[i], st->len[i]);
		EVP_DigestFinal_ex(m->ctx, m->dg[i], &dl);
	}
}

/* ---- DPI ---- */
struct dpi_arg {
	struct hp_nf_ac *ac;
	struct hp_nf_hs *hs;
	struct hp_nf_hs_scratch *scr;
	struct hp_nf_dpi_res *res;
	const uint8_t *big;
	uint32_t big_len;
	uint64_t matched;
};

static void
ac_batch_pass(void *a, struct set *st)
{
	struct dpi_arg *d = a;

	for (uint32_t i = 0; i < st->n; i += BURST)
		hp_nf_ac_scan_batch(d->ac, (const uint8_t *const *)st->buf + i,
				    st->len + i, st->n - i < BURST ? st->n - i : BURST,
				    d->res + i);
}

static void
ac_single_pass(void *a, struct set *st)
{
	struct dpi_arg *d = a;

	for (uint32_t i = 0; i < st->n; i++)
		hp_nf_ac_scan(d->ac, st->buf[i], st->len[i], &d->res[i]);
}

static void
hs_pass(void *a, struct set *st)
{
	struct dpi_arg *d = a;

	for (uint32_t i = 0; i < st->n; i++)
		hp_nf_hs_scan(d->hs, d->scr, st->buf[i], st->len[i], &d->res[i]);
}

static void
hs_big_pass(void *a, struct set *st)
{
	struct dpi_arg *d = a;
	struct hp_nf_dpi_res r;

	hp_nf_hs_scan(d->hs, d->scr, d->big, d->big_len, &r);
}

static void
ac_big_pass(void *a, struct set *st)
{
	struct dpi_arg *d = a;
	struct hp_nf_dpi_res r;

	hp_nf_ac_scan(d->ac, d->big, d->big_len, &r);
}

static void
row(FILE *f, const char *fn, const char *size, const char *ours, double a,
    const char *peer, double b)
{
	fprintf(f, "| %s | %s | %s | %.2f | %s | %.2f | %.2fx |\n", fn, size,
		ours, a, peer, b, b > 0 ? a / b : 0.0);
}

static void
cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(out, n, "unknown CPU");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');

			if (c) {
				c[strcspn(c, "\n")] = '\0';
				snprintf(out, n, "%s", c + 2);
			}
			break;
		}
	fclose(f);
}

int
main(int argc, char **argv)
{
	static const struct { const char *name; uint32_t size; } sizes[] = {
		{ "64", 64 }, { "243", 243 }, { "486", 486 }, { "1458", 1458 },
		{ "IMIX", 0 },
	};
	static const struct option lo[] = {
		{ "packets", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "patterns", required_argument, NULL, 'p' },
		{ "out", required_argument, NULL, 'o' },
		{ "cpu-time", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t npk = 2048;
	double secs = 0.25;
	const char *out = NULL, *pfile = NULL;
	struct hp_nf_patset *ps = NULL;
	struct dpi_arg d = { 0 };
	char err[256], model[128], *tbuf = NULL, date[32];
	size_t tlen = 0;
	FILE *t;
	int c;
	time_t now_t = time(NULL);

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': npk = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': secs = strtod(optarg, NULL); break;
		case 'p': pfile = optarg; break;
		case 'o': out = optarg; break;
		case 'c': bench_clock = CLOCK_THREAD_CPUTIME_ID; break;
		default:
			fprintf(stderr, "usage: nf-bench [--packets N] [--seconds S] [--patterns FILE] [--cpu-time] [--out FILE.md]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (npk < BURST)
		npk = BURST;
	if (pfile ? hp_nf_patset_load(pfile, &ps, err, sizeof(err)) != 0 :
		    hp_nf_patset_generate(1, 10000, &ps) != 0) {
		fprintf(stderr, "nf-bench: %s\n", pfile ? err : "pattern generation failed");
		return 1;
	}
	if (hp_nf_ac_build(ps, &d.ac) != 0) {
		fprintf(stderr, "nf-bench: Aho-Corasick build failed\n");
		return 1;
	}
	if (hp_nf_hs_available() &&
	    (hp_nf_hs_build(ps, &d.hs, err, sizeof(err)) != 0 ||
	     hp_nf_hs_scratch_alloc(d.hs, &d.scr) != 0)) {
		fprintf(stderr, "nf-bench: %s\n", err);
		return 1;
	}
	d.res = calloc(npk, sizeof(*d.res));
	t = open_memstream(&tbuf, &tlen);
	if (d.res == NULL || t == NULL)
		return 1;

	fprintf(t, "| function | payload B | ours | Gbit/s | peer | Gbit/s | ours/peer |\n");
	fprintf(t, "|---|---|---|---|---|---|---|\n");
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		struct set st;
		struct cbc_arg ca = { 0 };
		struct md5_arg ma = { 0 };
		uint64_t padded = 0;
		double a, b, a1;

		if (make_set(&st, sizes[si].name, npk, sizes[si].size, ps,
			     1000 + si) != 0)
			return 1;
		/* AES-CBC: padded in place once, then encrypted repeatedly. */
		if (hp_nf_cbc_create(&ca.mb) != 0)
			return 1;
		ca.keys = aligned_alloc(16, npk * sizeof(*ca.keys));
		ca.raw = calloc(npk, 16);
		ca.iv = calloc(npk, 16);
		ca.plen = calloc(npk, sizeof(uint32_t));
		ca.jobs = calloc(npk, sizeof(*ca.jobs));
		ca.evp = calloc(64, sizeof(*ca.evp));
		uint64_t ks = 99;
		for (uint32_t i = 0; i < npk; i++) {
			for (int j = 0; j < 16; j++) {
				ca.raw[i][j] = (uint8_t)rnd(&ks);
				ca.iv[i][j] = (uint8_t)rnd(&ks);
			}
			/* 64 flows: packet i belongs to flow i % 64 */
			memcpy(ca.raw[i], ca.raw[i % 64], 16);
			hp_nf_cbc_expand(ca.mb, ca.raw[i], &ca.keys[i]);
			ca.plen[i] = hp_nf_cbc_pad(st.buf[i], st.len[i]);
			padded += ca.plen[i];
			ca.jobs[i] = (struct hp_nf_cbc_job){ .buf = st.buf[i],
				.len = ca.plen[i], .key = &ca.keys[i], .iv = ca.iv[i] };
		}
		for (int j = 0; j < 64; j++) {
			ca.evp[j] = EVP_CIPHER_CTX_new();
			EVP_EncryptInit_ex(ca.evp[j], EVP_aes_128_cbc(), NULL,
					   ca.raw[j], ca.iv[j]);
			EVP_CIPHER_CTX_set_padding(ca.evp[j], 0);
		}
		a = measure(cbc_mb_pass, &ca, &st, padded, secs);
		b = measure(cbc_evp_pass, &ca, &st, padded, secs);
		row(t, "AES-128-CBC enc", st.name, "ipsec-mb burst 32", a,
		    "OpenSSL EVP loop", b);

		/* MD5: restore the payload bytes' role: hash the (now
		 * ciphertext) payloads, unchanged by hashing. */
		ma.jobs = calloc(npk, sizeof(*ma.jobs));
		ma.dg = calloc(npk, 16);
		ma.ctx = EVP_MD_CTX_new();
		for (uint32_t i = 0; i < npk; i++)
			ma.jobs[i] = (struct hp_nf_md5_job){ .data = st.buf[i],
				.len = st.len[i], .digest = ma.dg[i] };
		ma.batch = BURST;
		a = measure(md5_mb_pass, &ma, &st, st.bytes, secs);
		ma.batch = 4;
		double a4 = measure(md5_mb_pass, &ma, &st, st.bytes, secs);
		ma.batch = 1;
		a1 = measure(md5_mb_pass, &ma, &st, st.bytes, secs);
		b = measure(md5_ossl_pass, &ma, &st, st.bytes, secs);
		row(t, "MD5", st.name, "own multi-buffer, batch 32", a,
		    "OpenSSL EVP loop", b);
		row(t, "MD5", st.name, "own multi-buffer, batch 4", a4,
		    "OpenSSL EVP loop", b);
		row(t, "MD5", st.name, "own multi-buffer, batch 1", a1,
		    "OpenSSL EVP loop", b);

		/* DPI over fresh traffic (the buffers were encrypted above). */
		free_set(&st);
		if (make_set(&st, sizes[si].name, npk, sizes[si].size, ps,
			     2000 + si) != 0)
			return 1;
		a = measure(ac_batch_pass, &d, &st, st.bytes, secs);
		a1 = measure(ac_single_pass, &d, &st, st.bytes, secs);
		d.matched = 0;
		for (uint32_t i = 0; i < npk; i++)
			d.matched += d.res[i].count > 0;
		if (d.hs) {
			b = measure(hs_pass, &d, &st, st.bytes, secs);
			row(t, "DPI 10k", st.name, "own AC DFA, 8 interleaved", a,
			    "Hyperscan per packet", b);
			row(t, "DPI 10k", st.name, "own AC DFA, single", a1,
			    "Hyperscan per packet", b);
		} else {
			row(t, "DPI 10k", st.name, "own AC DFA, 8 interleaved", a,
			    "own AC DFA, single", a1);
		}
		if (sizes[si].size == 1458 && d.hs) {
			/* Hyperscan's own ceiling: one 2.9 MB buffer of the
			 * same traffic. */
			uint8_t *big = malloc(st.bytes);
			uint64_t o = 0;

			for (uint32_t i = 0; i < npk; i++) {
				memcpy(big + o, st.buf[i], st.len[i]);
				o += st.len[i];
			}
			d.big = big;
			d.big_len = (uint32_t)o;
			double hb = measure(hs_big_pass, &d, &st, o, secs);
			double ab = measure(ac_big_pass, &d, &st, o, secs);

			row(t, "DPI 10k", "1458", "Hyperscan per packet", b,
			    "Hyperscan one large buffer", hb);
			row(t, "DPI 10k", "1458", "own AC DFA, 8 interleaved", a,
			    "own AC DFA one large buffer", ab);
			free(big);
		}
		fprintf(stderr, "nf-bench: %s B done (%.1f %% of packets match)\n",
			st.name, 100.0 * (double)d.matched / npk);

		for (int j = 0; j < 64; j++)
			EVP_CIPHER_CTX_free(ca.evp[j]);
		EVP_MD_CTX_free(ma.ctx);
		free(ma.jobs);
		free(ma.dg);
		free(ca.evp);
		free(ca.keys);
		free(ca.raw);
		free(ca.iv);
		free(ca.plen);
		free(ca.jobs);
		hp_nf_cbc_free(ca.mb);
		free_set(&st);
	}
	fclose(t);

	cpu_model(model, sizeof(model));
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now_t));
	const struct hp_nf_ac_dfa *dfa = hp_nf_ac_dfa(d.ac);
	char info[512];

	snprintf(info, sizeof(info),
		 "%u packets per size, best of 5 slices of %.2f s%s per cell, one thread. Kernels: %s, MD5 lanes: %u. "
		 "Patterns: %u (%s), DFA %u states (%u with own dense rows, %u table entries) = %.1f MiB. Hyperscan: %s.",
		 npk, secs / 5, bench_clock == CLOCK_MONOTONIC ? "" : " of thread CPU time",
		 hp_nf_isa_name(hp_nf_isa()), hp_nf_md5_mb_lanes(), ps->n, pfile ? pfile : "generated, seed 1",
		 dfa->n_states, dfa->n_dense, dfa->tab_len,
		 (double)hp_nf_ac_mem(d.ac) / 1048576.0,
		 d.hs ? "yes" : "not built in");
	printf("%s\n\n%s", info, tbuf);
	if (out) {
		FILE *f = fopen(out, "w");

		if (f == NULL) {
			fprintf(stderr, "nf-bench: %s: %s\n", out, strerror(errno));
			return 1;
		}
		fprintf(f, "# nf-bench results\n\n- date: %s\n- machine: %s, %ld online CPUs (shared with other jobs)\n- command: `",
			date, model, sysconf(_SC_NPROCESSORS_ONLN));
		for (int i = 0; i < argc; i++)
			fprintf(f, "%s%s", i ? " " : "", argv[i]);
		fprintf(f, "`\n- %s\n\n%s", info, tbuf);
		fclose(f);
	}
	free(tbuf);
	free(d.res);
	hp_nf_hs_scratch_free(d.scr);
	hp_nf_hs_free(d.hs);
	hp_nf_ac_free(d.ac);
	hp_nf_patset_free(ps);
	return 0;
}
