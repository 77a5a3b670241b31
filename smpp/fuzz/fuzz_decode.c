/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for the batch decoder (libFuzzer entry point), plus a
 * standalone main() that replays a corpus when built without libFuzzer:
 *
 *   fuzz_decode [-e EXPECTED] FILE|DIR...
 *
 * Every input is decoded in plain and element framing, with one and two
 * threads, and checked: views stay inside their PDU, the two thread counts
 * agree, every PDU that decodes cleanly re-encodes byte-identically from
 * its fields, the compact records (smpp_decode_batch_rec, lenient and
 * strict) expand to exactly the full decode, and the baseline ISA's
 * decoders (smpp_dec_isa.c) give what the ones chosen for this CPU give,
 * and every time field decoded goes through smpp_time_parse (v3.4 7.1.1:
 * what parses as absolute formats back to itself).
 * With -e, a file of "NAME STATUS" lines gives the status the first PDU of
 * corpus file NAME must get (plain framing).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"
#include "smpp_priv.h"      /* smpp_dec, smpp_dec_isa_select */
#include "smpp_gpu_cmp.h"   /* smpp/gpu/: field-for-field batch comparison */

#define CHECK(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_decode: check failed: %s (line %d)\n", #c, __LINE__); \
	abort(); } } while (0)

/* A decoded time field: hp-smppd parses it (fuzz_smppd.c covers the
 * parser on raw input too). */
static void
check_time(const uint8_t *s, size_t n)
{
	const int64_t now = 1795694400000LL;   /* fixed: a run repeats */
	int64_t t = 0, t2 = 0;
	char out[17];
	int k = smpp_time_parse(s, n, now, &t);

	CHECK(k == -EINVAL || k == SMPP_TIME_NONE || k == SMPP_TIME_ABS || k == SMPP_TIME_REL);
	CHECK(k != SMPP_TIME_REL || t >= now);
	if (k == SMPP_TIME_ABS && smpp_time_format(t, out) == 0) {
		CHECK(smpp_time_parse((const uint8_t *)out, 16, now, &t2) == SMPP_TIME_ABS);
		CHECK(t2 == t);
	}
}

static void
check_pdu(const struct smpp_pdu *p, const uint8_t *in, size_t len)
{
	static uint8_t re[1 << 17];
	static struct smpp_tlv_value tlv[16384];
	struct smpp_msg m;
	struct smpp_tlv t;
	uint32_t it = 0;
	unsigned nt = 0;

	CHECK(p->pdu >= in && (size_t)(p->pdu - in) + p->len <= len);
	CHECK(p->error <= 0xFF);
	if (p->error != ESME_ROK)
		return;
	CHECK(p->desc != NULL && p->command_length == p->len);
	for (unsigned i = 0; i < p->nfields; i++) {
		CHECK((uint32_t)p->f[i].off + p->f[i].len <= p->len);
		if (p->desc->fields[i].type == SMPP_FT_TIME)
			check_time(p->pdu + p->f[i].off, p->f[i].len);
	}
	while (smpp_tlv_iter(p, &it, &t)) {
		CHECK(t.off + t.len <= p->len);
		nt++;
	}
	CHECK(nt == p->ntlv);
	CHECK(smpp_msg_from_pdu(p, &m, tlv, 16384) == 0);
	CHECK(smpp_encode(&m, re, sizeof(re)) == (int)p->len);
	CHECK(memcmp(re, p->pdu, p->len) == 0);
}

/* The compact records of ctx, expanded, equal the full decode want. */
static void
check_rec(struct smpp_ctx *ctx, const uint8_t *data, size_t size,
	  const struct smpp_batch *want)
{
	static struct smpp_rbatch rb;
	static struct smpp_batch x;

	CHECK(smpp_decode_batch_rec(ctx, data, size, SMPP_MODE_CPU, &rb) == 0);
	if (x.cap < rb.n + 1) {
		free(x.pdus);
		x.cap = rb.n + 1;
		x.pdus = calloc(x.cap, sizeof(*x.pdus));
		CHECK(x.pdus != NULL);
	}
	x.n = rb.n;
	x.nerr = rb.nerr;
	for (size_t i = 0; i < rb.n; i++)
		smpp_rec_expand(&rb.recs[i], data, &x.pdus[i]);
	CHECK(smpp_gpu_cmp_batch("compact records", want, &x) == 0);
}

/* The baseline ISA's decoders (no vectors wider than SSE2) give the full
 * decode want and its records too. */
static void
check_isa(struct smpp_ctx *ctx, const uint8_t *data, size_t size,
	  const struct smpp_batch *want)
{
	static struct smpp_batch x;
	const char *best = smpp_dec.name;

	if (strcmp(best, "generic") == 0)
		return;
	CHECK(smpp_dec_isa_select("generic") == 0);
	CHECK(smpp_decode_batch(ctx, data, size, SMPP_MODE_CPU, &x) == 0);
	check_rec(ctx, data, size, want);
	CHECK(smpp_dec_isa_select(best) == 0);
	CHECK(smpp_gpu_cmp_batch("baseline decoders", want, &x) == 0);
}

static void
run_one(const uint8_t *data, size_t size, enum smpp_framing fr, FILE *sink)
{
	struct smpp_config cfg;
	struct smpp_ctx *c1 = NULL, *c2 = NULL;
	struct smpp_batch b1, b2;

	smpp_config_default(&cfg);
	cfg.framing = fr;
	cfg.corr_len = 2;
	cfg.marker_len = 2;
	cfg.marker[0] = 0xfe;
	cfg.marker[1] = 0xed;
	cfg.max_pdu_len = 4096;
	CHECK(smpp_ctx_create(&cfg, &c1) == 0);
	cfg.threads = 2;
	cfg.min_parallel = 0;   /* force the speculative parallel framing */
	CHECK(smpp_ctx_create(&cfg, &c2) == 0);
	smpp_batch_init(&b1);
	smpp_batch_init(&b2);
	CHECK(smpp_decode_batch(c1, data, size, SMPP_MODE_CPU, &b1) == 0);
	CHECK(smpp_decode_batch(c2, data, size, SMPP_MODE_CPU, &b2) == 0);
	CHECK(b1.n == b2.n && b1.nerr == b2.nerr);
	for (size_t i = 0; i < b1.n; i++) {
		CHECK(b1.pdus[i].off == b2.pdus[i].off);
		CHECK(b1.pdus[i].error == b2.pdus[i].error);
		check_pdu(&b1.pdus[i], data, size);
		if (sink != NULL)
			smpp_pdu_print_json(sink, &b1.pdus[i], data);
	}
	CHECK(smpp_decode_batch(c1, data, size, SMPP_MODE_GPU, &b1) == -ENOTSUP);
	/* compact records: 1 and 2 threads, lenient; then strict */
	check_rec(c1, data, size, &b1);
	check_rec(c2, data, size, &b1);
	check_isa(c1, data, size, &b1);
	smpp_ctx_free(c1);
	cfg.threads = 1;
	cfg.flags = SMPP_F_STRICT;
	CHECK(smpp_ctx_create(&cfg, &c1) == 0);
	CHECK(smpp_decode_batch(c1, data, size, SMPP_MODE_CPU, &b1) == 0);
	check_rec(c1, data, size, &b1);
	smpp_batch_free(&b1);
	smpp_batch_free(&b2);
	smpp_ctx_free(c1);
	smpp_ctx_free(c2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;

	if (sink == NULL)
		sink = fopen("/dev/null", "w");
	run_one(data, size, SMPP_FRAME_PLAIN, sink);
	run_one(data, size, SMPP_FRAME_ELEMENT, sink);
	return 0;
}

#ifndef SMPP_LIBFUZZER
static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf != NULL && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

/* Status the first PDU of name must get, from the expectations file. */
static int
expected_for(const char *exp, const char *name)
{
	FILE *f = exp ? fopen(exp, "r") : NULL;
	char line[512], n[256];
	unsigned st;
	int r = -1;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (line[0] != '#' && sscanf(line, "%255s %x", n, &st) == 2 &&
		    strcmp(n, name) == 0)
			r = (int)st;
	if (f != NULL)
		fclose(f);
	return r;
}

static int
replay_file(const char *path, const char *name, const char *exp)
{
	size_t len;
	uint8_t *buf = slurp(path, &len);
	int want;

	if (buf == NULL) {
		fprintf(stderr, "fuzz_decode: cannot read %s\n", path);
		return 1;
	}
	LLVMFuzzerTestOneInput(buf, len);
	want = expected_for(exp, name);
	if (want >= 0) {
		struct smpp_config cfg;
		struct smpp_ctx *c = NULL;
		struct smpp_batch b;
		int got;

		smpp_config_default(&cfg);
		cfg.max_pdu_len = 4096;
		smpp_batch_init(&b);
		CHECK(smpp_ctx_create(&cfg, &c) == 0);
		CHECK(smpp_decode_batch(c, buf, len, SMPP_MODE_CPU, &b) == 0);
		got = b.n ? b.pdus[0].error : -1;
		smpp_batch_free(&b);
		smpp_ctx_free(c);
		if (got != want) {
			fprintf(stderr, "fuzz_decode: %s: status 0x%x, expected 0x%x (%s)\n",
				name, got, want, smpp_status_name((uint32_t)want));
			free(buf);
			return 1;
		}
	}
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *exp = NULL;
	int fails = 0, files = 0, ai = 1;

	if (argc > 2 && strcmp(argv[1], "-e") == 0) {
		exp = argv[2];
		ai = 3;
	}
	for (int i = ai; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (d == NULL) {
			const char *base = strrchr(argv[i], '/');
			fails += replay_file(argv[i], base ? base + 1 : argv[i], exp);
			files++;
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			fails += replay_file(path, de->d_name, exp);
			files++;
		}
		closedir(d);
	}
	printf("fuzz_decode: %d inputs replayed, %d failed\n", files, fails);
	return fails != 0 || files == 0;
}
#endif
