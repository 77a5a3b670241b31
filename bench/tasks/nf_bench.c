/* SPDX-License-Identifier: BSD-3-Clause
 * nf-bench: the network-function kernels side by side with their peers,
 * single thread, in one run over the same payloads: ipsec-mb multi-buffer
 * AES-128-CBC vs an OpenSSL EVP loop, own multi-buffer MD5 (gather and
 * gather-free loads) vs ipsec-mb's HMAC-MD5 burst and OpenSSL, the
 * default DPI path (Hyperscan through hp_nf_hs_scan) vs a direct hs_scan
 * loop, own Aho-Corasick DFA vs Hyperscan (per packet and on one large
 * buffer). Every column names the library that does the work.
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

#include <intel-ipsec-mb.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#ifdef NF_BENCH_HS
#include <hs/hs.h>
#endif

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

/* One slice of fn for t seconds, in Gbit/s. */
static double
slice(pass_fn fn, void *arg, struct set *st, uint64_t bytes, double t_s)
{
	double t0 = now(), t;
	uint64_t passes = 0;

	do {
		fn(arg, st);
		passes++;
		t = now() - t0;
	} while (t < t_s);
	return (double)bytes * passes * 8 / t / 1e9;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define PAIR_ROUNDS 9

/* A and B interleaved over PAIR_ROUNDS rounds (A B, B A, ...: neither
 * always goes first): the median of the per-round ratios A/B, which a
 * load spike spoils for one round only. *ga and *gb get the medians. */
static double
paired(pass_fn fa, void *aa, pass_fn fb, void *ab, struct set *st,
       uint64_t bytes, double min_s, double *ga, double *gb)
{
	double ra[PAIR_ROUNDS], rb[PAIR_ROUNDS], q[PAIR_ROUNDS];
	double t = min_s / PAIR_ROUNDS;

	fa(aa, st);
	fb(ab, st);
	for (int r = 0; r < PAIR_ROUNDS; r++) {
		if (r & 1) {
			rb[r] = slice(fb, ab, st, bytes, t);
			ra[r] = slice(fa, aa, st, bytes, t);
		} else {
			ra[r] = slice(fa, aa, st, bytes, t);
			rb[r] = slice(fb, ab, st, bytes, t);
		}
		q[r] = ra[r] / rb[r];
	}
	qsort(ra, PAIR_ROUNDS, sizeof(double), cmp_dbl);
	qsort(rb, PAIR_ROUNDS, sizeof(double), cmp_dbl);
	qsort(q, PAIR_ROUNDS, sizeof(double), cmp_dbl);
	*ga = ra[PAIR_ROUNDS / 2];
	*gb = rb[PAIR_ROUNDS / 2];
	return q[PAIR_ROUNDS / 2];
}

/* row() for a paired measurement: the ratio is the median ratio. */
static void
prow(FILE *f, const char *fn, const char *size, const char *ours, double a,
     const char *peer, double b, double ratio)
{
	fprintf(f, "| %s | %s | %s | %.2f | %s | %.2f | %.2fx (paired) |\n", fn,
		size, ours, a, peer, b, ratio);
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
	IMB_MGR *imb;              /* ipsec-mb HMAC-MD5, the strongest peer */
	uint8_t ipad[16], opad[16]; /* hashed key ^ ipad / opad blocks */
	uint64_t imb_err;
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

/* ipsec-mb has multi-buffer MD5 only inside HMAC-MD5: bursts of BURST
 * jobs through its job manager (lanes stay filled across bursts), one
 * flush per pass. Its inner hash starts from the precomputed ipad state,
 * the outer hash is one extra compression per message. */
static void
md5_imb_pass(void *a, struct set *st)
{
	struct md5_arg *m = a;
	IMB_JOB *jobs[IMB_MAX_JOBS];

	for (uint32_t i = 0; i < st->n; i += BURST) {
		uint32_t k = st->n - i < BURST ? st->n - i : BURST;

		if (IMB_GET_NEXT_BURST(m->imb, k, jobs) < k) {
			IMB_FLUSH_BURST(m->imb, IMB_MAX_JOBS, jobs);
			if (IMB_GET_NEXT_BURST(m->imb, k, jobs) < k) {
				m->imb_err++;
				return;
			}
		}
		for (uint32_t j = 0; j < k; j++) {
			IMB_JOB *jb = jobs[j];

			jb->cipher_mode = IMB_CIPHER_NULL;
			jb->cipher_direction = IMB_DIR_ENCRYPT;
			jb->chain_order = IMB_ORDER_HASH_CIPHER;
			jb->hash_alg = IMB_AUTH_MD5;
			jb->src = st->buf[i + j];
			jb->dst = st->buf[i + j];
			jb->msg_len_to_cipher_in_bytes = 0;
			jb->cipher_start_src_offset_in_bytes = 0;
			jb->hash_start_src_offset_in_bytes = 0;
			jb->msg_len_to_hash_in_bytes = st->len[i + j];
			jb->auth_tag_output = m->dg[i + j];
			jb->auth_tag_output_len_in_bytes = 16;
			jb->u.HMAC._hashed_auth_key_xor_ipad = m->ipad;
			jb->u.HMAC._hashed_auth_key_xor_opad = m->opad;
		}
		if (IMB_SUBMIT_BURST(m->imb, k, jobs) == 0 &&
		    imb_get_errno(m->imb) != 0)
			m->imb_err++;
	}
	IMB_FLUSH_BURST(m->imb, IMB_MAX_JOBS, jobs);
}

/* MD5 compressions per message: plain MD5 and HMAC-MD5 (+1, the outer
 * hash; the ipad block is precomputed). */
static uint64_t
md5_blocks(uint32_t len)
{
	return (len + 8) / 64 + 1;
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
#ifdef NF_BENCH_HS
	hs_database_t *db;         /* the same patterns, compiled here */
	hs_scratch_t *hscr;
	uint64_t direct_count;
#endif
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

#ifdef NF_BENCH_HS
/* A direct hs_scan loop, the floor for the default path: the callback
 * only counts matches. */
static int
direct_cb(unsigned int id, unsigned long long from, unsigned long long to,
	  unsigned int flags, void *ctx)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

static void
hs_direct_pass(void *a, struct set *st)
{
	struct dpi_arg *d = a;

	d->direct_count = 0;
	for (uint32_t i = 0; i < st->n; i++)
		hs_scan(d->db, (const char *)st->buf[i], st->len[i], 0,
			d->hscr, direct_cb, &d->direct_count);
}

static int
hs_direct_build(struct dpi_arg *d, const struct hp_nf_patset *ps)
{
	unsigned int *flags = calloc(ps->n, sizeof(*flags));
	unsigned int *ids = malloc(ps->n * sizeof(*ids));
	size_t *lens = malloc(ps->n * sizeof(*lens));
	hs_compile_error_t *cerr = NULL;
	int rc = -1;

	if (flags == NULL || ids == NULL || lens == NULL)
		goto out;
	for (uint32_t i = 0; i < ps->n; i++) {
		ids[i] = i;
		lens[i] = ps->len[i];
	}
	/* The same call and flags as lib/nf/nf_hs.c. */
	if (hs_compile_lit_multi((const char *const *)ps->pat, flags, ids, lens,
				 ps->n, HS_MODE_BLOCK, NULL, &d->db,
				 &cerr) != HS_SUCCESS) {
		hs_free_compile_error(cerr);
		goto out;
	}
	rc = hs_alloc_scratch(d->db, &d->hscr) == HS_SUCCESS ? 0 : -1;
out:
	free(flags);
	free(ids);
	free(lens);
	return rc;
}
#endif

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

/* An ipsec-mb manager for HMAC-MD5 with a fixed 16-byte key, checked once
 * against OpenSSL's HMAC on the first message (so the peer's rate is for
 * real digests). */
static int
md5_imb_setup(struct md5_arg *m, struct set *st)
{
	uint8_t key[16], blk[64], ref[16];
	unsigned int rl = 0;

	m->imb = alloc_mb_mgr(0);
	if (m->imb == NULL)
		return -1;
	init_mb_mgr_auto(m->imb, NULL);
	if (imb_get_errno(m->imb) != 0) {
		fprintf(stderr, "nf-bench: ipsec-mb: %s\n",
			imb_get_strerror(imb_get_errno(m->imb)));
		return -1;
	}
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)(0xa5 ^ i);
	memset(blk, 0x36, 64);
	for (int i = 0; i < 16; i++)
		blk[i] ^= key[i];
	IMB_MD5_ONE_BLOCK(m->imb, blk, m->ipad);
	memset(blk, 0x5c, 64);
	for (int i = 0; i < 16; i++)
		blk[i] ^= key[i];
	IMB_MD5_ONE_BLOCK(m->imb, blk, m->opad);
	md5_imb_pass(m, st);
	if (HMAC(EVP_md5(), key, 16, st->buf[0], st->len[0], ref, &rl) == NULL ||
	    m->imb_err || memcmp(ref, m->dg[0], 16) != 0) {
		fprintf(stderr, "nf-bench: ipsec-mb HMAC-MD5 differs from OpenSSL HMAC\n");
		return -1;
	}
	return 0;
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
		{ "64", 64 }, { "243", 243 }, { "486", 486 }, { "594", 594 },
		{ "1458", 1458 },
		{ "IMIX", 0 },
	};
	static const struct option lo[] = {
		{ "packets", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "patterns", required_argument, NULL, 'p' },
		{ "out", required_argument, NULL, 'o' },
		{ "cpu-time", no_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t npk = 2048;
	double secs = 0.25;
	const char *out = NULL, *pfile = NULL, *only = NULL;
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
		case 'O':
			only = optarg;
			if (strcmp(only, "cbc") && strcmp(only, "md5") &&
			    strcmp(only, "dpi")) {
				fprintf(stderr, "nf-bench: --only takes cbc, md5 or dpi\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: nf-bench [--packets N] [--seconds S] [--patterns FILE] [--cpu-time] [--only cbc|md5|dpi] [--out FILE.md]\n");
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
#ifdef NF_BENCH_HS
	if (d.hs && hs_direct_build(&d, ps) != 0) {
		fprintf(stderr, "nf-bench: hyperscan: direct compile failed\n");
		return 1;
	}
#endif
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
		if (only == NULL || strcmp(only, "cbc") == 0) {
			a = measure(cbc_mb_pass, &ca, &st, padded, secs);
			b = measure(cbc_evp_pass, &ca, &st, padded, secs);
			row(t, "AES-128-CBC enc", st.name, "ipsec-mb cbc burst 32",
			    a, "openssl evp loop", b);
		}

		/* MD5: restore the payload bytes' role: hash the (now
		 * ciphertext) payloads, unchanged by hashing. */
		ma.jobs = calloc(npk, sizeof(*ma.jobs));
		ma.dg = calloc(npk, 16);
		ma.ctx = EVP_MD_CTX_new();
		if (md5_imb_setup(&ma, &st) != 0)
			return 1;
		for (uint32_t i = 0; i < npk; i++)
			ma.jobs[i] = (struct hp_nf_md5_job){ .data = st.buf[i],
				.len = st.len[i], .digest = ma.dg[i] };
		ma.batch = BURST;
		/* The loads both ways, interleaved with the peers; the row
		 * names give the kernel each ran. */
		if (only == NULL || strcmp(only, "md5") == 0) {
			enum hp_nf_md5_loads def = hp_nf_md5_mb_loads(HP_NF_MD5_LOADS_AUTO);
			enum hp_nf_md5_loads alt = def == HP_NF_MD5_LOADS_GATHER ?
				HP_NF_MD5_LOADS_TRANSPOSE : HP_NF_MD5_LOADS_GATHER;
			char dn[64], an[64], nm[96];
			uint64_t cm = 0, ch;
			double ai, ao, ab4, ab1;

			snprintf(dn, sizeof(dn), "md5 %s (default)", hp_nf_md5_mb_name());
			hp_nf_md5_mb_loads(alt);
			snprintf(an, sizeof(an), "md5 %s", hp_nf_md5_mb_name());
			hp_nf_md5_mb_loads(def);
			for (uint32_t i = 0; i < npk; i++)
				cm += md5_blocks(st.len[i]);
			ch = cm + npk;
			double qi, qo;

			qi = paired(md5_mb_pass, &ma, md5_imb_pass, &ma, &st,
				    st.bytes, 2 * secs, &a, &ai);
			b = measure(md5_ossl_pass, &ma, &st, st.bytes, secs);
			ma.batch = 4;
			ab4 = measure(md5_mb_pass, &ma, &st, st.bytes, secs);
			ma.batch = 1;
			ab1 = measure(md5_mb_pass, &ma, &st, st.bytes, secs);
			ma.batch = BURST;
			/* Default vs the other loads: one slice each, switched
			 * between slices. */
			{
				double ra[PAIR_ROUNDS], rq[PAIR_ROUNDS], x;

				for (int r = 0; r < PAIR_ROUNDS; r++) {
					hp_nf_md5_mb_loads(alt);
					ra[r] = slice(md5_mb_pass, &ma, &st, st.bytes,
						      2 * secs / PAIR_ROUNDS);
					hp_nf_md5_mb_loads(def);
					x = slice(md5_mb_pass, &ma, &st, st.bytes,
						  2 * secs / PAIR_ROUNDS);
					rq[r] = x / ra[r];
				}
				qsort(ra, PAIR_ROUNDS, sizeof(double), cmp_dbl);
				qsort(rq, PAIR_ROUNDS, sizeof(double), cmp_dbl);
				ao = ra[PAIR_ROUNDS / 2];
				qo = rq[PAIR_ROUNDS / 2];
			}
			if (ma.imb_err) {
				fprintf(stderr, "nf-bench: ipsec-mb HMAC-MD5: %s\n",
					imb_get_strerror(imb_get_errno(ma.imb)));
				return 1;
			}
			prow(t, "MD5", st.name, dn, a, "ipsec-mb hmac-md5 burst 32",
			     ai, qi);
			/* ipsec-mb's rate in compressions, as plain-MD5 bytes:
			 * what its kernel would give without the outer hash. */
			prow(t, "MD5 per compression", st.name, dn, a,
			     "ipsec-mb hmac-md5 x (hmac/md5 blocks)",
			     ai * (double)ch / (double)cm, qi * (double)cm / (double)ch);
			prow(t, "MD5", st.name, dn, a, an, ao, qo);
			row(t, "MD5", st.name, dn, a, "openssl evp md5 loop", b);
			snprintf(nm, sizeof(nm), "%s, batch 4", dn);
			row(t, "MD5", st.name, nm, ab4, "openssl evp md5 loop", b);
			snprintf(nm, sizeof(nm), "%s, batch 1", dn);
			row(t, "MD5", st.name, nm, ab1, "openssl evp md5 loop", b);
		}

		/* DPI over fresh traffic (the buffers were encrypted above). */
		free_set(&st);
		if (make_set(&st, sizes[si].name, npk, sizes[si].size, ps,
			     2000 + si) != 0)
			return 1;
		double qa, qh, bd;

		if (only != NULL && strcmp(only, "dpi") != 0)
			goto next;
		qa = paired(ac_batch_pass, &d, ac_single_pass, &d, &st, st.bytes,
			    2 * secs, &a, &a1);
		d.matched = 0;
		for (uint32_t i = 0; i < npk; i++)
			d.matched += d.res[i].count > 0;
		prow(t, "DPI 10k", st.name, "own-ac-dfa 8-interleaved", a,
		     "own-ac-dfa single", a1, qa);
		if (d.hs) {
#ifdef NF_BENCH_HS
			/* The ids app's default engine through hp_nf against
			 * the bare library loop, same patterns, same bytes;
			 * the match counts must agree. */
			uint64_t nm = 0;

			qh = paired(hs_pass, &d, hs_direct_pass, &d, &st, st.bytes,
				    2 * secs, &b, &bd);
			for (uint32_t i = 0; i < npk; i++)
				nm += d.res[i].count;
			if (nm != d.direct_count) {
				fprintf(stderr, "nf-bench: hp_nf_hs_scan counted %llu matches, hs_scan %llu\n",
					(unsigned long long)nm,
					(unsigned long long)d.direct_count);
				return 1;
			}
			prow(t, "DPI 10k", st.name, "hyperscan via hp_nf_hs_scan (default)", b,
			     "hyperscan direct hs_scan loop", bd, qh);
#else
			(void)qh;
			(void)bd;
			b = measure(hs_pass, &d, &st, st.bytes, secs);
#endif
			row(t, "DPI 10k", st.name, "own-ac-dfa 8-interleaved", a,
			    "hyperscan via hp_nf_hs_scan", b);
			row(t, "DPI 10k", st.name, "own-ac-dfa single", a1,
			    "hyperscan via hp_nf_hs_scan", b);
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

			row(t, "DPI 10k", "1458", "hyperscan via hp_nf_hs_scan", b,
			    "hyperscan one large buffer", hb);
			row(t, "DPI 10k", "1458", "own-ac-dfa 8-interleaved", a,
			    "own-ac-dfa one large buffer", ab);
			free(big);
		}
		fprintf(stderr, "nf-bench: %s B done (%.1f %% of packets match)\n",
			st.name, 100.0 * (double)d.matched / npk);
next:

		for (int j = 0; j < 64; j++)
			EVP_CIPHER_CTX_free(ca.evp[j]);
		EVP_MD_CTX_free(ma.ctx);
		free_mb_mgr(ma.imb);
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
		 "%u packets per size, best of 5 slices of %.2f s%s per cell, one thread. Kernels: %s, MD5 lanes: %u (%s). "
		 "Patterns: %u (%s), DFA %u states (%u with own dense rows, %u table entries) = %.1f MiB. Hyperscan: %s.",
		 npk, secs / 5, bench_clock == CLOCK_MONOTONIC ? "" : " of thread CPU time",
		 hp_nf_isa_name(hp_nf_isa()), hp_nf_md5_mb_lanes(), hp_nf_md5_mb_name(), ps->n, pfile ? pfile : "generated, seed 1",
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
#ifdef NF_BENCH_HS
	hs_free_scratch(d.hscr);
	hs_free_database(d.db);
#endif
	hp_nf_hs_scratch_free(d.scr);
	hp_nf_hs_free(d.hs);
	hp_nf_ac_free(d.ac);
	hp_nf_patset_free(ps);
	return 0;
}
