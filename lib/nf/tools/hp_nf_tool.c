/* SPDX-License-Identifier: BSD-3-Clause
 * hp-nf: runs the network-function batch kernels of hp_nf over records on
 * stdin, so that independent implementations (Python cryptography,
 * hashlib, pyahocorasick) can check them, and generates pattern sets and
 * DPI traffic. Record formats are in docs/nf.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_nf.h"

#define MAX_REC 65535

struct rec {
	uint8_t hdr[17]; /* cbc: sip dip sport dport proto seq */
	uint32_t len;
	uint8_t *data;   /* room for len + 16 */
};

struct opts {
	const char *in;
	const char *out;
	const char *impl;
	const char *engine;
	const char *patterns;
	const char *key_hex;
	const char *key_file;
	uint32_t gen;
	uint64_t seed;
	uint32_t count;
	uint32_t size;
	double p;
};

static int
fail(const char *fmt, ...)
{
	va_list ap;

	fputs("hp-nf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* A flag's number: the whole string, within [lo, hi] (strtoul would make
 * --count -1 four billion records). 0, or 2 after one line. */
static int
num(const char *flag, const char *arg, double lo, double hi, double *v)
{
	char *e;

	errno = 0;
	*v = strtod(arg, &e);
	if (errno == 0 && e != arg && *e == '\0' && *v >= lo && *v <= hi)
		return 0;
	fprintf(stderr, "hp-nf: --%s: expected a number %.15g..%.15g\n", flag, lo, hi);
	return 2;
}

static void
usage(FILE *f)
{
	fputs("usage: hp-nf COMMAND [options]  (records on stdin/stdout, see docs/nf.md)\n"
	      "  cbc   --key HEX32 | --key-file F  [--impl mb|evp]   encrypt cbc records\n"
	      "  md5   [--impl mb|ref]                                digest per record (hex)\n"
	      "  dpi   --patterns F | --gen N [--seed S] [--engine ac|batch|nfa|hs]\n"
	      "                                                       'count first' per record\n"
	      "  gen-patterns --gen N [--seed S]                      write a pattern file\n"
	      "  gen-traffic  --patterns F | --gen N [--seed S] --count C --size B [--p 0.3]\n"
	      "  check-patterns --patterns F                          parse and count\n"
	      "  plant-pcap --in IN.pcap --out OUT.pcap --patterns F | --gen N [--p 0.3] [--seed S]\n"
	      "        copy hplane-generated frames, planting a pattern into the body of a\n"
	      "        share p of them and renewing the hp header's CRC32C tag\n",
	      f);
}

static int
read_full(void *buf, size_t n)
{
	size_t r = fread(buf, 1, n, stdin);

	if (r == n)
		return 1;
	if (r == 0 && feof(stdin))
		return 0;
	return -1;
}

/* Reads all records; cbc records carry the 17-byte flow/seq header. */
static int
read_recs(int cbc, struct rec **out, uint32_t *n)
{
	struct rec *v = NULL;
	uint32_t cnt = 0, cap = 0;

	for (;;) {
		struct rec r = { 0 };
		uint8_t lb[4];
		int rc;

		if (cbc) {
			rc = read_full(r.hdr, sizeof(r.hdr));
			if (rc == 0)
				break;
			if (rc < 0 || read_full(lb, 4) != 1)
				goto trunc;
		} else {
			rc = read_full(lb, 4);
			if (rc == 0)
				break;
			if (rc < 0)
				goto trunc;
		}
		r.len = (uint32_t)lb[0] | (uint32_t)lb[1] << 8 |
			(uint32_t)lb[2] << 16 | (uint32_t)lb[3] << 24;
		if (r.len > MAX_REC) {
			fail("record %u: length %u above %u", cnt, r.len, MAX_REC);
			goto err;
		}
		r.data = malloc(r.len + 16);
		if (r.data == NULL)
			goto err;
		if (r.len > 0 && read_full(r.data, r.len) != 1) {
			free(r.data);
			goto trunc;
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 64;
			struct rec *nv = realloc(v, cap * sizeof(*nv));
			if (nv == NULL) {
				free(r.data);
				goto err;
			}
			v = nv;
		}
		v[cnt++] = r;
	}
	*out = v;
	*n = cnt;
	return 0;
trunc:
	fail("record %u: truncated input", cnt);
err:
	for (uint32_t i = 0; i < cnt; i++)
		free(v[i].data);
	free(v);
	return -EINVAL;
}

static void
free_recs(struct rec *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(v[i].data);
	free(v);
}

static int
parse_hex16(const char *s, size_t n, uint8_t key[16])
{
	if (n != 32)
		return -EINVAL;
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(s + 2 * i, "%2x", &b) != 1)
			return -EINVAL;
		key[i] = (uint8_t)b;
	}
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || ((s[i] | 0x20) >= 'a' &&
		      (s[i] | 0x20) <= 'f')))
			return -EINVAL;
	return 0;
}

/* Key file: 16 raw bytes, or 32 hex digits (optionally + newline). */
static int
load_key(const struct opts *o, uint8_t key[16])
{
	uint8_t buf[64];
	size_t n;
	FILE *f;

	if (o->key_hex) {
		if (parse_hex16(o->key_hex, strlen(o->key_hex), key) != 0)
			return fail("--key: need 32 hex digits (16 bytes)");
		return 0;
	}
	if (o->key_file == NULL)
		return fail("cbc: --key or --key-file is required");
	f = fopen(o->key_file, "rb");
	if (f == NULL)
		return fail("%s: cannot open key file: %s", o->key_file,
			    strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n == 16) {
		memcpy(key, buf, 16);
		return 0;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (parse_hex16((const char *)buf, n, key) == 0)
		return 0;
	return fail("%s: key file must hold 16 bytes (raw, or 32 hex digits), got %zu bytes",
		    o->key_file, n);
}

static int
cmd_cbc(const struct opts *o)
{
	struct hp_nf_cbc *c = NULL;
	struct hp_nf_cbc_job *jobs = NULL;
	struct hp_nf_aes_key *keys = NULL;
	uint8_t (*ivs)[16] = NULL;
	uint8_t master[16];
	struct rec *v;
	uint32_t n;
	int mb = o->impl == NULL || strcmp(o->impl, "mb") == 0;
	int rc = 1;

	if (!mb && strcmp(o->impl, "evp") != 0) {
		fail("cbc: --impl must be mb or evp");
		return 2; /* a bad flag value is a usage error */
	}
	if (load_key(o, master) != 0)
		return 1;
	if (read_recs(1, &v, &n) != 0)
		return 1;
	if (mb && hp_nf_cbc_create(&c) != 0) {
		fail("cbc: cannot create the ipsec-mb manager");
		goto out;
	}
	jobs = calloc(n + 1, sizeof(*jobs));
	keys = aligned_alloc(16, (n + 1) * sizeof(*keys)); /* size: multiple of 16 */
	ivs = calloc(n + 1, 16);
	if (jobs == NULL || keys == NULL || ivs == NULL) {
		fail("cbc: out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *h = v[i].hdr;
		uint8_t fb[16], kf[16];
		uint32_t seq = (uint32_t)h[13] << 24 | (uint32_t)h[14] << 16 |
			       (uint32_t)h[15] << 8 | h[16];

		hp_nf_cbc_flow_block(h, h + 4, h + 8, h + 10, h[12], fb);
		v[i].len = hp_nf_cbc_pad(v[i].data, v[i].len);
		if (mb) {
			/* Fast-path derivation: AES-NI with expanded keys. */
			struct hp_nf_aes_key mk;
			uint8_t sb[16];

			hp_nf_cbc_expand(c, master, &mk);
			hp_nf_aes_block(&mk, fb, kf);
			hp_nf_cbc_expand(c, kf, &keys[i]);
			hp_nf_cbc_seq_block(seq, sb);
			hp_nf_aes_block(&keys[i], sb, ivs[i]);
			jobs[i] = (struct hp_nf_cbc_job){ .buf = v[i].data,
				.len = v[i].len, .key = &keys[i], .iv = ivs[i] };
		} else if (hp_nf_cbc_derive_ref(master, fb, seq, kf, ivs[i]) != 0 ||
			   hp_nf_cbc_evp(kf, ivs[i], v[i].data, v[i].len, 1) != 0) {
			fail("cbc: OpenSSL failed on record %u", i);
			goto out;
		}
	}
	/* Bursts of 32, as a worker sees them. */
	for (uint32_t i = 0; mb && i < n; i += 32)
		if (hp_nf_cbc_encrypt_burst(c, jobs + i, n - i < 32 ? n - i : 32)) {
			fail("cbc: ipsec-mb burst failed");
			goto out;
		}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t lb[4] = { (uint8_t)v[i].len, (uint8_t)(v[i].len >> 8),
				  (uint8_t)(v[i].len >> 16), (uint8_t)(v[i].len >> 24) };

		fwrite(lb, 1, 4, stdout);
		fwrite(v[i].data, 1, v[i].len, stdout);
	}
	rc = 0;
out:
	free(jobs);
	free(keys);
	free(ivs);
	hp_nf_cbc_free(c);
	free_recs(v, n);
	return rc;
}

static int
cmd_md5(const struct opts *o)
{
	struct hp_nf_md5_job *jobs;
	uint8_t (*dg)[16];
	struct rec *v;
	uint32_t n;
	int mb = o->impl == NULL || strncmp(o->impl, "mb", 2) == 0;

	/* mb takes nf_isa.c's table; mb-gather / mb-nogather force the loads. */
	if (o->impl != NULL && strcmp(o->impl, "mb-gather") == 0)
		hp_nf_md5_mb_loads(HP_NF_MD5_LOADS_GATHER);
	else if (o->impl != NULL && strcmp(o->impl, "mb-nogather") == 0)
		hp_nf_md5_mb_loads(HP_NF_MD5_LOADS_TRANSPOSE);
	else if (o->impl != NULL && strcmp(o->impl, "mb") != 0 &&
		 strcmp(o->impl, "ref") != 0) {
		fail("md5: --impl must be mb, mb-gather, mb-nogather or ref");
		return 2; /* a bad flag value is a usage error */
	}
	if (read_recs(0, &v, &n) != 0)
		return 1;
	jobs = calloc(n + 1, sizeof(*jobs));
	dg = calloc(n + 1, 16);
	if (jobs == NULL || dg == NULL) {
		free(jobs);
		free(dg);
		free_recs(v, n);
		return fail("md5: out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		jobs[i] = (struct hp_nf_md5_job){ .data = v[i].data,
			.len = v[i].len, .digest = dg[i] };
		if (!mb)
			hp_nf_md5_ref(v[i].data, v[i].len, dg[i]);
	}
	for (uint32_t i = 0; mb && i < n; i += 32)
		hp_nf_md5_mb(jobs + i, n - i < 32 ? n - i : 32);
	for (uint32_t i = 0; i < n; i++) {
		for (int j = 0; j < 16; j++)
			printf("%02x", dg[i][j]);
		putchar('\n');
	}
	free(jobs);
	free(dg);
	free_recs(v, n);
	return 0;
}

static int
get_patterns(const struct opts *o, struct hp_nf_patset **ps)
{
	char err[256];
	int rc;

	if (o->patterns) {
		rc = hp_nf_patset_load(o->patterns, ps, err, sizeof(err));
		if (rc != 0)
			return fail("%s", err);
		return 0;
	}
	if (o->gen == 0)
		return fail("--patterns FILE or --gen N is required");
	if (hp_nf_patset_generate(o->seed, o->gen, ps) != 0)
		return fail("cannot generate %u patterns", o->gen);
	return 0;
}

static int
cmd_dpi(const struct opts *o)
{
	const char *eng = o->engine ? o->engine : "batch";
	struct hp_nf_patset *ps = NULL;
	struct hp_nf_ac *ac = NULL;
	struct hp_nf_hs *hs = NULL;
	struct hp_nf_hs_scratch *scr = NULL;
	struct hp_nf_dpi_res *res = NULL;
	const uint8_t **dp = NULL;
	uint32_t *dl = NULL;
	struct rec *v = NULL;
	uint32_t n = 0;
	char err[256];
	int rc = 1;

	if (strcmp(eng, "ac") && strcmp(eng, "batch") && strcmp(eng, "nfa") &&
	    strcmp(eng, "hs"))
		return fail("dpi: --engine must be ac, batch, nfa or hs");
	if (get_patterns(o, &ps) != 0)
		return 1;
	if (read_recs(0, &v, &n) != 0)
		goto out;
	if (strcmp(eng, "hs") == 0) {
		if (hp_nf_hs_build(ps, &hs, err, sizeof(err)) != 0) {
			fail("%s", err);
			goto out;
		}
		if (hp_nf_hs_scratch_alloc(hs, &scr) != 0) {
			fail("hyperscan: cannot allocate scratch");
			goto out;
		}
	} else if (hp_nf_ac_build(ps, &ac) != 0) {
		fail("dpi: cannot build the automaton");
		goto out;
	}
	res = calloc(n + 1, sizeof(*res));
	dp = calloc(n + 1, sizeof(*dp));
	dl = calloc(n + 1, sizeof(*dl));
	if (res == NULL || dp == NULL || dl == NULL) {
		fail("dpi: out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		dp[i] = v[i].data;
		dl[i] = v[i].len;
		if (hs)
			hp_nf_hs_scan(hs, scr, v[i].data, v[i].len, &res[i]);
		else if (strcmp(eng, "ac") == 0)
			hp_nf_ac_scan(ac, v[i].data, v[i].len, &res[i]);
		else if (strcmp(eng, "nfa") == 0)
			hp_nf_ac_scan_nfa(ac, v[i].data, v[i].len, &res[i]);
	}
	if (strcmp(eng, "batch") == 0)
		hp_nf_ac_scan_batch(ac, dp, dl, n, res);
	for (uint32_t i = 0; i < n; i++)
		printf("%u %d\n", res[i].count,
		       res[i].first == HP_NF_NO_MATCH ? -1 : (int)res[i].first);
	rc = 0;
out:
	free(res);
	free(dp);
	free(dl);
	hp_nf_hs_scratch_free(scr);
	hp_nf_hs_free(hs);
	hp_nf_ac_free(ac);
	hp_nf_patset_free(ps);
	free_recs(v, n);
	return rc;
}

static int
cmd_gen_patterns(const struct opts *o)
{
	struct hp_nf_patset *ps;
	int rc;

	if (o->gen == 0)
		return fail("gen-patterns: --gen N is required");
	if (get_patterns(o, &ps) != 0)
		return 1;
	rc = hp_nf_patset_write(ps, stdout);
	hp_nf_patset_free(ps);
	return rc ? fail("write error") : 0;
}

static int
cmd_gen_traffic(const struct opts *o)
{
	struct hp_nf_patset *ps;
	uint64_t s = o->seed * 0x9E3779B97F4A7C15ULL + 77;
	uint8_t *buf;

	if (o->count == 0 || o->size == 0 || o->size > MAX_REC)
		return fail("gen-traffic: --count and --size (1..%u) are required",
			    MAX_REC);
	if (get_patterns(o, &ps) != 0)
		return 1;
	buf = malloc(o->size);
	if (buf == NULL) {
		hp_nf_patset_free(ps);
		return fail("out of memory");
	}
	for (uint32_t i = 0; i < o->count; i++) {
		uint8_t lb[4] = { (uint8_t)o->size, (uint8_t)(o->size >> 8), 0, 0 };

		hp_nf_traffic_fill(ps, &s, buf, o->size, o->p);
		fwrite(lb, 1, 4, stdout);
		fwrite(buf, 1, o->size, stdout);
	}
	free(buf);
	hp_nf_patset_free(ps);
	return 0;
}

/* CRC32C (Castagnoli, reflected, init and final xor ~0): the tag of the
 * hp header, recomputed here without DPDK. */
static uint32_t
crc32c(const uint8_t *p, uint32_t n)
{
	uint32_t c = ~0u;

	for (uint32_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

static uint32_t
rd32(const uint8_t *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/* Body of an hplane frame (after Ethernet, IPv4, UDP/TCP and the 16-byte
 * hp header); -1 when the frame is not one. */
static int
hp_body(uint8_t *f, uint32_t len, uint32_t *boff, uint32_t *blen)
{
	uint32_t off = 14, ihl, tot, l4h;

	if (len < off + 20 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
		return -1;
	ihl = (f[14] & 0xf) * 4u;
	tot = (uint32_t)f[16] << 8 | f[17];
	if (ihl < 20 || off + tot > len || tot < ihl + 8)
		return -1;
	if (f[off + 9] == 17)
		l4h = 8;
	else if (f[off + 9] == 6)
		l4h = (f[off + ihl + 12] >> 4) * 4u;
	else
		return -1;
	off += ihl + l4h;
	if (off + 16 > 14 + tot || rd32(f + off, 1) != 0x48504c31u)
		return -1;
	*boff = off + 16;
	*blen = 14 + tot - *boff;
	return 0;
}

/* Ones' complement sum of n bytes as big-endian 16-bit words, added to sum. */
static uint32_t
be_sum(const uint8_t *p, uint32_t n, uint32_t sum)
{
	for (uint32_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

/* The UDP or TCP checksum of a frame hp_body accepted, redone after its
 * body changed (a UDP checksum of 0, "none", stays 0), so tshark and the
 * receiving stack take the planted frame. */
static void
l4_cksum_fix(uint8_t *f)
{
	uint32_t ihl = (f[14] & 0xf) * 4u, tot = (uint32_t)f[16] << 8 | f[17];
	uint8_t proto = f[14 + 9], *l4 = f + 14 + ihl;
	uint32_t len = proto == 17 ? ((uint32_t)l4[4] << 8 | l4[5]) : tot - ihl;
	uint8_t *ck = l4 + (proto == 17 ? 6 : 16);
	uint32_t sum;

	if (proto == 17 && ((ck[0] == 0 && ck[1] == 0) || len < 8 || len > tot - ihl))
		return;
	ck[0] = ck[1] = 0;
	sum = be_sum(f + 14 + 12, 8, proto + len);
	sum = be_sum(l4, len, sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (sum == 0 && proto == 17)
		sum = 0xffff;
	ck[0] = (uint8_t)(sum >> 8);
	ck[1] = (uint8_t)sum;
}

static int
cmd_plant_pcap(const struct opts *o)
{
	struct hp_nf_patset *ps = NULL;
	uint64_t s = o->seed * 0x9E3779B97F4A7C15ULL + 3;
	uint8_t gh[24], rh[16], *f = NULL;
	FILE *in = NULL, *out = NULL;
	unsigned long n = 0, planted = 0;
	int swap, rc = 1;

	if (o->in == NULL || o->out == NULL)
		return fail("plant-pcap: --in and --out are required");
	if (get_patterns(o, &ps) != 0)
		return 1;
	in = fopen(o->in, "rb");
	if (in == NULL) {
		fail("%s: %s", o->in, strerror(errno));
		goto out;
	}
	if (fread(gh, 1, 24, in) != 24) {
		fail("%s: not a pcap file", o->in);
		goto out;
	}
	swap = rd32(gh, 0) == 0xd4c3b2a1u || rd32(gh, 0) == 0x4d3cb2a1u;
	if (!swap && rd32(gh, 0) != 0xa1b2c3d4u && rd32(gh, 0) != 0xa1b23c4du) {
		fail("%s: not a pcap file", o->in);
		goto out;
	}
	out = fopen(o->out, "wb");
	f = malloc(MAX_REC + 1);
	if (out == NULL || f == NULL) {
		fail("%s: %s", o->out, strerror(errno));
		goto out;
	}
	fwrite(gh, 1, 24, out);
	while (fread(rh, 1, 16, in) == 16) {
		uint32_t cap = rd32(rh + 8, swap), boff, blen;

		if (cap > MAX_REC || fread(f, 1, cap, in) != cap) {
			fail("%s: truncated record %lu", o->in, n);
			goto out;
		}
		/* A pattern after the body's first 8 bytes (the generator's
		 * packet index, which keeps bodies distinct). */
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		if (hp_body(f, cap, &boff, &blen) == 0 &&
		    (double)(s >> 11) * (1.0 / 9007199254740992.0) < o->p) {
			uint32_t id = (uint32_t)((s >> 20) % ps->n), t;
			uint8_t *body = f + boff;

			if (blen >= 8u + ps->len[id]) {
				memcpy(body + 8 + (s >> 40) % (blen - 8 - ps->len[id] + 1),
				       ps->pat[id], ps->len[id]);
				t = crc32c(body, blen);
				body[-4] = (uint8_t)(t >> 24);
				body[-3] = (uint8_t)(t >> 16);
				body[-2] = (uint8_t)(t >> 8);
				body[-1] = (uint8_t)t;
				l4_cksum_fix(f);
				planted++;
			}
		}
		fwrite(rh, 1, 16, out);
		fwrite(f, 1, cap, out);
		n++;
	}
	fprintf(stderr, "hp-nf: %lu frames, %lu with a planted pattern\n", n, planted);
	rc = ferror(out) ? fail("%s: write error", o->out) : 0;
out:
	free(f);
	if (out)
		fclose(out);
	if (in)
		fclose(in);
	hp_nf_patset_free(ps);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "impl", required_argument, NULL, 'i' },
		{ "engine", required_argument, NULL, 'e' },
		{ "patterns", required_argument, NULL, 'P' },
		{ "gen", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 'z' },
		{ "p", required_argument, NULL, 'p' },
		{ "key", required_argument, NULL, 'k' },
		{ "key-file", required_argument, NULL, 'K' },
		{ "in", required_argument, NULL, 'I' },
		{ "out", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .seed = 1, .p = 0.3 };
	const char *cmd;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		double v = 0;
		int bad = 0;

		switch (c) {
		case 'i': o.impl = optarg; break;
		case 'e': o.engine = optarg; break;
		case 'P': o.patterns = optarg; break;
		case 'g': bad = num("gen", optarg, 1, HP_NF_PAT_MAX, &v); o.gen = (uint32_t)v; break;
		case 's': bad = num("seed", optarg, 0, 9007199254740992.0, &v);
			o.seed = (uint64_t)v; break;
		case 'c': bad = num("count", optarg, 1, UINT32_MAX, &v); o.count = (uint32_t)v; break;
		case 'z': bad = num("size", optarg, 1, 65535, &v); o.size = (uint32_t)v; break;
		case 'p': bad = num("p", optarg, 0, 1, &o.p); break;
		case 'k': o.key_hex = optarg; break;
		case 'K': o.key_file = optarg; break;
		case 'I': o.in = optarg; break;
		case 'O': o.out = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "hp-nf: %s needs a value\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "hp-nf: unknown option %s (hp-nf --help)\n", argv[optind - 1]);
			return 2;
		}
		if (bad)
			return bad;
	}
	if (strcmp(cmd, "cbc") == 0)
		return cmd_cbc(&o);
	if (strcmp(cmd, "md5") == 0)
		return cmd_md5(&o);
	if (strcmp(cmd, "dpi") == 0)
		return cmd_dpi(&o);
	if (strcmp(cmd, "gen-patterns") == 0)
		return cmd_gen_patterns(&o);
	if (strcmp(cmd, "gen-traffic") == 0)
		return cmd_gen_traffic(&o);
	if (strcmp(cmd, "plant-pcap") == 0)
		return cmd_plant_pcap(&o);
	if (strcmp(cmd, "check-patterns") == 0) {
		struct hp_nf_patset *ps;

		if (o.patterns == NULL)
			return fail("check-patterns: --patterns FILE is required");
		if (get_patterns(&o, &ps) != 0)
			return 1;
		printf("%u patterns\n", ps->n);
		hp_nf_patset_free(ps);
		return 0;
	}
	fprintf(stderr, "hp-nf: unknown command '%s' (hp-nf --help)\n", cmd);
	return 2;
}
