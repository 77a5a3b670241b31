/* SPDX-License-Identifier: BSD-3-Clause
 * The SMPP GPU backend against the CPU decoder: every batch is decoded
 * through the public smpp_decode_batch() in modes gpu and gpu-fused and
 * compared field for field with SMPP_MODE_CPU. With --emul (unit test
 * smpp_gpu_emul, no GPU needed) the backends run the kernels' per-thread
 * code on the CPU; without it (unit test smpp_gpu) on GPU 0, exiting 77
 * (skipped) where there is none. Inputs:
 *   - the fuzz corpus (malformed PDUs of every kind: the per-PDU statuses
 *     and offsets must match), each seed alone and all together, in plain
 *     and element framing, lenient and strict; every prefix and random
 *     mutations of every seed through the per-PDU decoder;
 *   - 100k PDUs of the workload generator (thesis mix) in both framings;
 *   - streams built to defeat the speculative boundary marking (valid PDUs
 *     and elements nested inside message texts, tiny chunks, elements
 *     longer than chunks, corrupted lengths and markers, garbage), so the
 *     scan's check fails and the sequential repair runs;
 *   - launch shapes from one 32-thread block on one stream to 1024-thread
 *     blocks on 16 streams;
 *   - caller-pinned input (allocated and registered) against staged input,
 *     the records copied out by 1 to 5 host threads.
 *   test_smpp_gpu [--emul] CORPUS_DIR (smpp/fuzz/corpus)
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hp_cuda_smpp.h"
#include "smpp.h"
#include "smpp_gpu_cmp.h"

static int fails;

#define CHECK(c) do { if (!(c)) { \
	fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* xorshift64, the CUDA tests' generator (gpu/hpk_test_util.h), kept here
 * so that the SMPP tests need nothing from the cuda plugin */
static uint32_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static const struct smpp_gpu_launch shapes[] = {
	{ 0, 128, 4 },   /* defaults */
	{ 1, 32, 1 },    /* one block walks every tile; fused: 32 chunks */
	{ 3, 64, 3 },
	{ 0, 1024, 16 }, /* staging capped at 96 KiB */
	{ 7, 32, 5 },
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static void
config(struct smpp_config *cfg, enum smpp_framing fr, unsigned flags)
{
	smpp_config_default(cfg);
	cfg->framing = fr;
	cfg->flags = flags;
}

/* Decodes in[0..len) on the CPU and in both GPU modes under the given
 * shapes; every result must equal the CPU's. */
static void
check_modes(const char *what, const struct smpp_config *cfg, const uint8_t *in, size_t len,
	    const struct smpp_gpu_launch *sh, unsigned nsh)
{
	static const enum smpp_mode modes[] = { SMPP_MODE_GPU, SMPP_MODE_GPU_FUSED };
	struct smpp_ctx *ctx = NULL;
	struct smpp_batch cpu, gpu;
	char label[160];

	CHECK(smpp_ctx_create(cfg, &ctx) == 0);
	if (ctx == NULL)
		return;
	smpp_batch_init(&cpu);
	smpp_batch_init(&gpu);
	CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_CPU, &cpu) == 0);
	for (unsigned s = 0; s < nsh; s++) {
		CHECK(smpp_gpu_set_launch(&sh[s]) == 0);
		for (unsigned m = 0; m < 2; m++) {
			int rc = smpp_decode_batch(ctx, in, len, modes[m], &gpu);

			snprintf(label, sizeof(label), "%s [%s, %s, grid %u block %u streams %u]",
				 what, m ? "gpu-fused" : "gpu",
				 cfg->framing == SMPP_FRAME_PLAIN ? "plain" : "element", sh[s].grid,
				 sh[s].block, sh[s].streams);
			if (rc != 0) {
				fprintf(stderr, "%s: rc %d (%s)\n", label, rc, smpp_gpu_last_error());
				fails++;
				continue;
			}
			CHECK(gpu.mode_used == modes[m]);
			if (smpp_gpu_cmp_batch(label, &gpu, &cpu))
				fails++;
		}
	}
	smpp_batch_free(&cpu);
	smpp_batch_free(&gpu);
	smpp_ctx_free(ctx);
}

/* One PDU of len octets through both per-PDU decoders. */
static void
check_pdu(const char *what, const uint8_t *p, uint32_t len, unsigned flags)
{
	struct smpp_pdu a, b;
	int ra, rb;

	/* the per-PDU decoders leave off and corr_* (set by the framing) alone */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = smpp_decode_pdu(p, len, flags, 1000, &a);
	rb = smpp_gpu_emul_decode_pdu(p, len, flags, 1000, &b);

	CHECK(ra == rb);
	if (smpp_gpu_cmp_pdu(what, 0, &b, &a))
		fails++;
}

struct seed {
	char name[256];
	uint8_t *data;
	size_t len;
};

static unsigned
load_corpus(const char *dir, struct seed *s, unsigned cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return 0;
	}
	while ((e = readdir(d)) != NULL && n < cap) {
		char path[4096];
		FILE *f;
		long l;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		if (f == NULL)
			continue;
		fseek(f, 0, SEEK_END);
		l = ftell(f);
		rewind(f);
		s[n].data = malloc(l > 0 ? (size_t)l : 1);
		if (s[n].data != NULL && l >= 0 && fread(s[n].data, 1, (size_t)l, f) == (size_t)l) {
			snprintf(s[n].name, sizeof(s[n].name), "%s", e->d_name);
			s[n].len = (size_t)l;
			n++;
		} else {
			free(s[n].data);
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

static void
test_corpus(const char *dir)
{
	static struct seed seeds[256];
	unsigned n = load_corpus(dir, seeds, 256);
	uint8_t *all, *el;
	size_t alen = 0, elen = 0, cap = 0;
	struct smpp_config cfg;
	char what[320];

	CHECK(n >= 20);
	for (unsigned i = 0; i < n; i++)
		cap += seeds[i].len + 64;
	all = malloc(cap);
	el = malloc(cap);
	config(&cfg, SMPP_FRAME_ELEMENT, 0);
	for (unsigned i = 0; i < n; i++) {
		struct seed *s = &seeds[i];
		uint8_t corr[8] = { (uint8_t)i };
		int r;

		memcpy(all + alen, s->data, s->len);
		alen += s->len;
		r = smpp_element_append(&cfg, el, cap, elen, corr, s->data, (uint32_t)s->len);
		CHECK(r > 0);
		elen = r > 0 ? (size_t)r : elen;
		for (unsigned flags = 0; flags <= SMPP_F_STRICT; flags += SMPP_F_STRICT) {
			/* the seed alone, every prefix, and 64 mutations */
			for (uint32_t cut = 0; cut <= s->len; cut++) {
				snprintf(what, sizeof(what), "%.200s[:%u]", s->name, cut);
				check_pdu(what, s->data, cut, flags);
			}
			for (unsigned k = 0; k < 64 && s->len > 0; k++) {
				uint8_t m[4096];
				size_t l = s->len < sizeof(m) ? s->len : sizeof(m);

				memcpy(m, s->data, l);
				m[rnd() % l] = (uint8_t)rnd();
				if (k & 1)
					m[rnd() % l] = 0;
				snprintf(what, sizeof(what), "%.200s mutation %u", s->name, k);
				check_pdu(what, m, (uint32_t)l, flags);
			}
			config(&cfg, SMPP_FRAME_PLAIN, flags);
			snprintf(what, sizeof(what), "seed %.200s", s->name);
			check_modes(what, &cfg, s->data, s->len, shapes, 2);
		}
		config(&cfg, SMPP_FRAME_ELEMENT, 0);
	}
	for (unsigned flags = 0; flags <= SMPP_F_STRICT; flags += SMPP_F_STRICT) {
		config(&cfg, SMPP_FRAME_PLAIN, flags);
		check_modes("corpus concatenated", &cfg, all, alen, shapes, NSHAPES);
		config(&cfg, SMPP_FRAME_ELEMENT, flags);
		check_modes("corpus as elements", &cfg, el, elen, shapes, NSHAPES);
	}
	for (unsigned i = 0; i < n; i++)
		free(seeds[i].data);
	free(all);
	free(el);
	printf("corpus: %u seeds, prefixes and mutations per PDU, seeds and streams per batch\n", n);
}

/* Appends PDU p to both batch forms of the sweep. */
static void
sweep_add(uint8_t *pl, size_t *plen, uint8_t *el, size_t *elen, size_t cap, const uint8_t *p,
	  uint32_t n)
{
	struct smpp_config cfg;
	int r;

	memcpy(pl + *plen, p, n);
	*plen += n;
	config(&cfg, SMPP_FRAME_ELEMENT, 0);
	r = smpp_element_append(&cfg, el, cap, *elen, NULL, p, n);
	CHECK(r > 0);
	*elen = r > 0 ? (size_t)r : *elen;
}

static void
put_len(uint8_t *p, uint32_t n)
{
	p[0] = (uint8_t)(n >> 24);
	p[1] = (uint8_t)(n >> 16);
	p[2] = (uint8_t)(n >> 8);
	p[3] = (uint8_t)n;
}

/*
 * The tables, entry by entry: every command id v3.4 defines (and unknown
 * ones) with random bodies of NUL-separated text, and a submit_sm with one
 * TLV of every known tag and of tags at the edges of the table and of the
 * vendor range, with lengths around each tag's bounds; per PDU lenient and
 * strict, then all of them as one batch in both framings.
 */
static void
test_tables(void)
{
	static const uint16_t edges[] = { 0x0000, 0x0004, 0x13ff, 0x1400, 0x1401, 0x3ffe,
					  0x3fff, 0x4000, 0xfffe, 0xffff };
	const size_t cap = 4u << 20;
	uint8_t *pl = malloc(cap), *el = malloc(cap), p[1024];
	size_t plen = 0, elen = 0;
	struct smpp_sim_config sc;
	struct smpp_config cfg;
	unsigned npdu = 0;
	int base;

	for (uint32_t key = 0; key < 2048 + 64; key++) {
		uint32_t id = key < 2048 ? (key & 0x3ffu) | (key & 0x400u ? SMPP_RESP_BIT : 0) : rnd();

		if (key < 2048 && smpp_pdu_desc_find(id) == NULL && rnd() % 32)
			continue;
		for (unsigned k = 0; k < 12; k++) {
			uint32_t bl = rnd() % 160, st = k & 1 ? rnd() % 3 : 0;

			memset(p, 0, SMPP_HEADER_LEN);
			put_len(p, SMPP_HEADER_LEN + bl);
			put_len(p + 4, id);
			put_len(p + 8, st);
			put_len(p + 12, k);
			for (uint32_t i = 0; i < bl; i++)
				p[16 + i] = rnd() % 6 == 0 ? 0 : rnd() % 3 ? (uint8_t)('0' + rnd() % 10)
									    : (uint8_t)rnd();
			check_pdu("random body", p, SMPP_HEADER_LEN + bl, 0);
			check_pdu("random body", p, SMPP_HEADER_LEN + bl, SMPP_F_STRICT);
			sweep_add(pl, &plen, el, &elen, cap, p, SMPP_HEADER_LEN + bl);
			npdu++;
		}
	}
	smpp_sim_config_default(&sc);
	sc.ntlv = 0;
	base = smpp_sim_pdu(&sc, 7, p, sizeof(p));
	CHECK(base > 0);
	for (unsigned i = 0; base > 0 && i < smpp_tlv_desc_count() + 10; i++) {
		const struct smpp_tlv_desc *td = i < 10 ? NULL : smpp_tlv_desc_at(i - 10);
		uint16_t tag = td ? td->tag : edges[i];
		uint32_t lens[8] = { 0, 1, 2, 4, 300 };

		if (td != NULL) {
			lens[4] = td->min ? td->min - 1u : 0;
			lens[5] = td->min;
			lens[6] = td->max < 300 ? td->max : 300;
			lens[7] = td->max < 299 ? td->max + 1u : 299;
		}
		for (unsigned k = 0; k < 8; k++) {
			uint32_t n = (uint32_t)base + 4 + lens[k];

			p[base] = (uint8_t)(tag >> 8);
			p[base + 1] = (uint8_t)tag;
			p[base + 2] = (uint8_t)(lens[k] >> 8);
			p[base + 3] = (uint8_t)lens[k];
			memset(p + base + 4, 'x', lens[k]);
			put_len(p, n);
			check_pdu("tlv sweep", p, n, 0);
			check_pdu("tlv sweep", p, n, SMPP_F_STRICT);
			sweep_add(pl, &plen, el, &elen, cap, p, n);
			npdu++;
		}
	}
	for (unsigned flags = 0; flags <= SMPP_F_STRICT; flags += SMPP_F_STRICT) {
		config(&cfg, SMPP_FRAME_PLAIN, flags);
		check_modes("table sweep", &cfg, pl, plen, shapes, 2);
		config(&cfg, SMPP_FRAME_ELEMENT, flags);
		check_modes("table sweep", &cfg, el, elen, shapes, 2);
	}
	free(pl);
	free(el);
	printf("tables: %u PDUs (every command id, random bodies; TLV tags and lengths at the edges)\n",
	       npdu);
}

static uint8_t *
sim_stream(const struct smpp_config *cfg, uint32_t n, size_t *len)
{
	struct smpp_sim_config sc;
	size_t cap = (size_t)n * 160 + 64;
	uint8_t *buf = malloc(cap);
	int r;

	smpp_sim_config_default(&sc);
	r = smpp_sim_stream(&sc, cfg, 0, n, buf, cap);
	CHECK(r > 0);
	*len = r > 0 ? (size_t)r : 0;
	return buf;
}

static void
test_generated(void)
{
	static const struct smpp_gpu_launch big[] = { { 0, 128, 4 }, { 40, 256, 3 } };
	struct smpp_config cfg;
	double t0 = (double)clock() / CLOCKS_PER_SEC;

	for (int fr = SMPP_FRAME_PLAIN; fr <= SMPP_FRAME_ELEMENT; fr++) {
		size_t len;
		uint8_t *in;

		config(&cfg, (enum smpp_framing)fr, 0);
		in = sim_stream(&cfg, 100000, &len);
		check_modes("100k generated", &cfg, in, len, big, 2);
		free(in);
	}
	printf("generated: 100k thesis-mix PDUs x 2 framings x 2 modes x 2 shapes (%.1f s CPU)\n",
	       (double)clock() / CLOCKS_PER_SEC - t0);
}

/* One decode of in[0..len) in mode m under launch sh, compared with cpu;
 * returns the stats of the batch. */
static struct smpp_gpu_stats
decode_cmp(const char *what, struct smpp_ctx *ctx, const struct smpp_batch *cpu,
	   const uint8_t *in, size_t len, enum smpp_mode m, const struct smpp_gpu_launch *sh)
{
	struct smpp_gpu_stats st = { 0, 0 };
	struct smpp_batch b;
	char label[160];

	snprintf(label, sizeof(label), "%s [%s, block %u streams %u copy threads %u]", what,
		 m == SMPP_MODE_GPU ? "gpu" : "gpu-fused", sh->block, sh->streams,
		 sh->copy_threads);
	smpp_batch_init(&b);
	CHECK(smpp_gpu_set_launch(sh) == 0);
	if (smpp_decode_batch(ctx, in, len, m, &b) != 0) {
		fprintf(stderr, "%s: %s\n", label, smpp_gpu_last_error());
		fails++;
	} else if (smpp_gpu_cmp_batch(label, &b, cpu)) {
		fails++;
	}
	smpp_gpu_last_stats(&st);
	smpp_batch_free(&b);
	return st;
}

/*
 * Caller-pinned input and the parallel copy-out: 40k generated PDUs from
 * smpp_gpu_host_alloc memory, from a registered buffer and from plain
 * memory, both modes, 1 to 5 copy threads; the records must equal the
 * CPU's, and the stats must say whether the staging copy ran and how many
 * threads copied out.
 */
static void
test_pinned(void)
{
	static const struct smpp_gpu_launch sh[] = {
		{ 0, 128, 4, 0 }, { 0, 512, 3, 3 }, { 5, 1024, 2, 1 }, { 0, 64, 5, 5 },
	};
	static const enum smpp_mode modes[] = { SMPP_MODE_GPU, SMPP_MODE_GPU_FUSED };
	struct smpp_config cfg;
	struct smpp_ctx *ctx = NULL;
	struct smpp_batch cpu;
	struct smpp_gpu_stats st;
	size_t len;
	uint8_t *plain, *pinned, *reg;

	config(&cfg, SMPP_FRAME_PLAIN, 0);
	plain = sim_stream(&cfg, 40000, &len);
	pinned = smpp_gpu_host_alloc(len + 64);
	reg = malloc(len + 64);
	CHECK(pinned != NULL && reg != NULL && smpp_ctx_create(&cfg, &ctx) == 0);
	if (pinned == NULL || reg == NULL || ctx == NULL)
		goto out;
	memcpy(pinned, plain, len);
	memcpy(reg, plain, len);
	smpp_batch_init(&cpu);
	CHECK(smpp_decode_batch(ctx, plain, len, SMPP_MODE_CPU, &cpu) == 0);
	CHECK(smpp_gpu_host_register(NULL, 10) == -EINVAL);
	CHECK(smpp_gpu_host_register(reg, len + 64) == 0);
	for (unsigned s = 0; s < sizeof(sh) / sizeof(sh[0]); s++) {
		for (unsigned m = 0; m < 2; m++) {
			unsigned want = sh[s].copy_threads;

			/* plain memory goes through the staging */
			st = decode_cmp("plain", ctx, &cpu, plain, len, modes[m], &sh[s]);
			CHECK(st.staged == len);
			if (want)
				CHECK(st.copy_threads == want);
			else
				CHECK(st.copy_threads >= 1 && st.copy_threads <= 4);
		}
	}
	smpp_batch_free(&cpu);
	/* the records point into the input decoded: each copy is compared
	 * with a CPU run over that copy */
	for (int which = 0; which < 2; which++) {
		const uint8_t *in = which ? reg : pinned;

		smpp_batch_init(&cpu);
		CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_CPU, &cpu) == 0);
		for (unsigned s = 0; s < sizeof(sh) / sizeof(sh[0]); s++)
			for (unsigned m = 0; m < 2; m++) {
				st = decode_cmp(which ? "registered" : "host_alloc", ctx, &cpu, in,
						len, modes[m], &sh[s]);
				CHECK(st.staged == 0);
			}
		smpp_batch_free(&cpu);
	}
	/* a range that runs past the pinned memory is staged */
	smpp_batch_init(&cpu);
	memcpy(reg + 64, plain, len);
	CHECK(smpp_gpu_host_unregister(reg) == 0);
	CHECK(smpp_gpu_host_unregister(reg) == -ENOENT);
	CHECK(smpp_gpu_host_register(reg, len + 63) == 0);
	CHECK(smpp_decode_batch(ctx, reg + 64, len, SMPP_MODE_CPU, &cpu) == 0);
	st = decode_cmp("past the range", ctx, &cpu, reg + 64, len, SMPP_MODE_GPU, &sh[0]);
	CHECK(st.staged == len);
	CHECK(smpp_gpu_host_unregister(reg) == 0);
	/* small batches copy out on the calling thread */
	smpp_batch_free(&cpu);
	smpp_batch_init(&cpu);
	CHECK(smpp_decode_batch(ctx, plain, 2000, SMPP_MODE_CPU, &cpu) == 0);
	st = decode_cmp("small", ctx, &cpu, plain, 2000, SMPP_MODE_GPU_FUSED, &sh[0]);
	CHECK(st.copy_threads == 1);
	smpp_batch_free(&cpu);
	printf("pinned input: 40k PDUs from alloc'd, registered and plain memory, 1-5 copy threads\n");
out:
	smpp_ctx_free(ctx);
	smpp_gpu_host_free(pinned);
	free(reg);
	free(plain);
}

/* An enquire_link of 16 octets. */
static void
enquire_link(uint8_t *p, uint32_t seq)
{
	static const uint8_t h[] = { 0, 0, 0, 16, 0, 0, 0, 0x15, 0, 0, 0, 0 };

	memcpy(p, h, sizeof(h));
	p[12] = (uint8_t)(seq >> 24);
	p[13] = (uint8_t)(seq >> 16);
	p[14] = (uint8_t)(seq >> 8);
	p[15] = (uint8_t)seq;
}

/* A submit_sm whose short_message is `text` of tl octets. */
static int
submit_with_text(const uint8_t *text, uint32_t tl, uint32_t seq, uint8_t *buf, size_t cap)
{
	struct smpp_msg m;

	memset(&m, 0, sizeof(m));
	m.command_id = SMPP_SUBMIT_SM;
	m.sequence_number = seq;
	m.v[3].p = (const uint8_t *)"447700900123";
	m.v[3].len = 12;
	m.v[6].p = (const uint8_t *)"447700900456";
	m.v[6].len = 12;
	m.v[17].p = text;
	m.v[17].len = tl;
	return smpp_encode(&m, buf, cap);
}

/*
 * Streams that make the speculative walks start inside messages: texts that
 * hold well-formed PDUs (plain) or marker + well-formed element (element),
 * with chunks from 24 octets (many chunks spanned by one element) up.
 */
static void
test_speculation(void)
{
	struct smpp_config cfg;
	uint8_t *in = malloc(1 << 20), pdu[512], text[254];
	const size_t cap = 1 << 20;

	for (int fr = SMPP_FRAME_PLAIN; fr <= SMPP_FRAME_ELEMENT; fr++) {
		size_t len = 0;
		struct smpp_gpu_launch sh[4] = { { 1, 32, 2 }, { 0, 128, 4 }, { 0, 32, 3 }, { 0, 32, 1 } };

		config(&cfg, (enum smpp_framing)fr, 0);
		for (uint32_t i = 0; i < 3000; i++) {
			uint32_t tl = 0;
			int pl;

			if (i % 3 == 0) {
				/* nested: PDUs (plain) or elements (element) in the text */
				while (tl + 40 <= sizeof(text)) {
					if (fr == SMPP_FRAME_ELEMENT) {
						memcpy(text + tl, cfg.marker, cfg.marker_len);
						tl += cfg.marker_len;
						memset(text + tl, 0x33, cfg.corr_len);
						tl += cfg.corr_len;
					}
					enquire_link(text + tl, i);
					tl += 16;
					if (fr == SMPP_FRAME_ELEMENT) {
						memcpy(text + tl, cfg.marker, cfg.marker_len);
						tl += cfg.marker_len;
					}
				}
				pl = submit_with_text(text, tl, i, pdu, sizeof(pdu));
			} else {
				struct smpp_sim_config sc;

				smpp_sim_config_default(&sc);
				sc.msg_len = rnd() % 200;
				pl = smpp_sim_pdu(&sc, i, pdu, sizeof(pdu));
			}
			CHECK(pl > 0);
			if (i % 97 == 5 && pl > 20)
				pdu[4] = 0x7f; /* unknown command id: a good length, not plausible */
			pl = smpp_element_append(&cfg, in, cap, len, NULL, pdu, (uint32_t)pl);
			CHECK(pl > 0);
			len = pl > 0 ? (size_t)pl : len;
		}
		/* chunks of ~24 octets: most are inside one element */
		sh[2].grid = (unsigned)(len / 24 / 32);
		check_modes("nested PDUs in texts", &cfg, in, len, sh, 4);

		/* corrupted lengths and markers: plain ends in one error element,
		 * element framing resynchronises */
		for (unsigned k = 0; k < 40; k++)
			in[rnd() % len] = (uint8_t)rnd();
		check_modes("corrupted stream", &cfg, in, len, sh, 4);
	}
	/* garbage with markers sprinkled in, and tiny inputs */
	for (int fr = SMPP_FRAME_PLAIN; fr <= SMPP_FRAME_ELEMENT; fr++) {
		struct smpp_gpu_launch sh[2] = { { 4, 32, 2 }, { 0, 64, 3 } };

		config(&cfg, (enum smpp_framing)fr, 0);
		cfg.max_pdu_len = 200;
		for (size_t i = 0; i < 65536; i++)
			in[i] = (uint8_t)(rnd() % 4 ? rnd() % 32 : rnd());
		for (unsigned k = 0; k < 500; k++)
			memcpy(in + rnd() % (65536 - 4), cfg.marker, cfg.marker_len);
		check_modes("garbage", &cfg, in, 65536, sh, 2);
		for (size_t l = 0; l < 48; l++)
			check_modes("tiny", &cfg, in + 1000 * l, l, sh, 1);
	}
	free(in);
	printf("speculation: nested PDUs/elements, tiny chunks, corruption, garbage\n");
}

static void
test_api(int emul)
{
	struct smpp_gpu_launch bad[] = { { 0, 48, 1 }, { 0, 2048, 1 }, { 0, 32, 17 },
					 { 1u << 23, 32, 1 }, { 0, 32, 1, 17 } };
	struct smpp_config cfg;
	struct smpp_ctx *ctx = NULL;
	struct smpp_batch b;
	size_t len;
	uint8_t *in;
	char msg[256];

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(smpp_gpu_set_launch(&bad[i]) == -EINVAL);
	CHECK(smpp_gpu_set_launch(&shapes[0]) == 0);
	/* AUTO takes the GPU backend at the threshold */
	config(&cfg, SMPP_FRAME_PLAIN, 0);
	cfg.gpu_threshold = 100;
	in = sim_stream(&cfg, 2000, &len);
	CHECK(smpp_ctx_create(&cfg, &ctx) == 0);
	smpp_batch_init(&b);
	CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_AUTO, &b) == 0);
	CHECK(b.mode_used == SMPP_MODE_GPU && b.n == 2000 && b.nerr == 0);
	/* after fini the modes are gone again, and AUTO stays on the CPU */
	smpp_gpu_fini();
	CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_GPU, &b) == -ENOTSUP);
	CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_GPU_FUSED, &b) == -ENOTSUP);
	CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_AUTO, &b) == 0);
	CHECK(b.mode_used == SMPP_MODE_CPU && b.n == 2000);
	CHECK(smpp_gpu_init(emul ? SMPP_GPU_EMUL : 0, msg, sizeof(msg)) == 0);
	CHECK(smpp_decode_batch(ctx, in, len, SMPP_MODE_GPU_FUSED, &b) == 0 && b.n == 2000);
	smpp_batch_free(&b);
	smpp_ctx_free(ctx);
	free(in);
}

int
main(int argc, char **argv)
{
	int emul = argc == 3 && strcmp(argv[1], "--emul") == 0;
	char msg[256];

	if (argc != 2 + emul) {
		fprintf(stderr, "usage: test_smpp_gpu [--emul] CORPUS_DIR\n");
		return 2;
	}
	if (smpp_gpu_init(emul ? SMPP_GPU_EMUL : 0, msg, sizeof(msg)) != 0) {
		printf("SKIP: %s\n", msg);
		return emul ? 1 : 77;
	}
	if (!emul && smpp_gpu_emulated()) {
		printf("SKIP: HP_SMPP_GPU_EMUL=1 is set; this test wants a GPU\n");
		return 77;
	}
	printf("%s\n", msg);
	test_corpus(argv[1 + emul]);
	test_tables();
	test_generated();
	test_speculation();
	test_pinned();
	test_api(emul);
	smpp_gpu_fini();
	if (fails) {
		printf("%d check(s) failed\n", fails);
		return 1;
	}
	printf("all SMPP %s checks passed\n", emul ? "GPU emulation" : "GPU");
	return 0;
}
