/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the batch decoder: both input forms, multi-threaded boundary
 * marking against the sequential walk, per-PDU errors that do not stop the
 * batch, resynchronisation on the end marker, and the mode switch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "smpp_gpu_cmp.h"   /* smpp/gpu/: field-for-field batch comparison */
#include "smpp_priv.h"
#include "test_util.h"

#define NPDU 20000

/* A SUBMIT_SM of the thesis's mix (4.1): distinct addresses, a 20-char
 * message, 5 TLVs; every 7th message carries the end marker bytes inside
 * its text, to trap a framer that trusts markers blindly. */
static int
mk_submit(uint32_t i, const struct smpp_config *cfg, uint8_t *buf, size_t cap)
{
	static const uint8_t v2[] = { 0, 7 }, v1[] = { 3 }, v1b[] = { 1 }, vend[] = "vend";
	const struct smpp_tlv_value tlv[] = {
		{ SMPP_TLV_SAR_MSG_REF_NUM, 2, v2 }, { SMPP_TLV_SAR_TOTAL_SEGMENTS, 1, v1 },
		{ SMPP_TLV_SAR_SEGMENT_SEQNUM, 1, v1b }, { SMPP_TLV_USER_MESSAGE_REFERENCE, 2, v2 },
		{ 0x1401, 4, vend },
	};
	char src[24], dst[24], msg[24];
	struct kv kv[] = { { "source_addr", src, 0 }, { "destination_addr", dst, 0 },
		{ "short_message", msg, 0 }, { NULL, NULL, 0 } };

	snprintf(src, sizeof(src), "9477%07u", i);
	snprintf(dst, sizeof(dst), "9471%07u", i * 7u);
	snprintf(msg, sizeof(msg), "message number %05u", i % 100000);
	if (i % 7 == 0 && cfg->marker_len <= 4)
		memcpy(msg + 2, cfg->marker, cfg->marker_len);
	return build_pdu("submit_sm", i, kv, tlv, 5, buf, cap);
}

static uint8_t *
mk_stream(const struct smpp_config *cfg, unsigned n, size_t *len)
{
	size_t cap = (size_t)n * 200 + 1024, l = 0;
	uint8_t *s = malloc(cap), pdu[512], corr[64];

	for (unsigned i = 0; s && i < n; i++) {
		int pl = mk_submit(i, cfg, pdu, sizeof(pdu));
		int r;

		assert_true(pl > 0);
		memset(corr, 0, sizeof(corr));
		memcpy(corr, &i, sizeof(i));
		r = smpp_element_append(cfg, s, cap, l, corr, pdu, (uint32_t)pl);
		assert_true(r > 0);
		l = (size_t)r;
	}
	*len = l;
	return s;
}

/* The records of rb (decoded from s), expanded, equal full. */
static void
expand_cmp(const char *what, const struct smpp_rbatch *rb, const uint8_t *s,
	   const struct smpp_batch *full)
{
	struct smpp_batch x;

	smpp_batch_init(&x);
	x.pdus = calloc(rb->n + 1, sizeof(*x.pdus));
	assert_non_null(x.pdus);
	x.n = rb->n;
	x.nerr = rb->nerr;
	for (size_t i = 0; i < rb->n; i++)
		smpp_rec_expand(&rb->recs[i], s, &x.pdus[i]);
	assert_int_equal(smpp_gpu_cmp_batch(what, full, &x), 0);
	smpp_batch_free(&x);
}

/* smpp_decode_batch_rec on ctx, its records expanded, equals full. */
static void
rec_cmp(struct smpp_ctx *ctx, const uint8_t *s, size_t len,
	const struct smpp_batch *full)
{
	struct smpp_rbatch rb;

	smpp_rbatch_init(&rb);
	assert_int_equal(smpp_decode_batch_rec(ctx, s, len, SMPP_MODE_CPU, &rb), 0);
	assert_int_equal(rb.mode_used, SMPP_MODE_CPU);
	expand_cmp("records", &rb, s, full);
	smpp_rbatch_free(&rb);
}

static void
decode_cmp(const struct smpp_config *base, const uint8_t *s, size_t len,
	   struct smpp_batch *b1)
{
	struct smpp_config cfg = *base;
	struct smpp_ctx *c1, *c4;
	struct smpp_batch b4;

	cfg.threads = 1;
	assert_int_equal(smpp_ctx_create(&cfg, &c1), 0);
	cfg.threads = 4;
	cfg.min_parallel = 0;
	assert_int_equal(smpp_ctx_create(&cfg, &c4), 0);
	smpp_batch_init(&b4);
	assert_int_equal(smpp_decode_batch(c1, s, len, SMPP_MODE_CPU, b1), 0);
	assert_int_equal(smpp_decode_batch(c4, s, len, SMPP_MODE_CPU, &b4), 0);
	assert_int_equal(b1->n, b4.n);
	assert_int_equal(b1->nerr, b4.nerr);
	for (size_t i = 0; i < b1->n; i++) {
		assert_int_equal(b1->pdus[i].off, b4.pdus[i].off);
		assert_int_equal(b1->pdus[i].len, b4.pdus[i].len);
		assert_int_equal(b1->pdus[i].error, b4.pdus[i].error);
		assert_int_equal(b1->pdus[i].sequence_number, b4.pdus[i].sequence_number);
		assert_int_equal(b1->pdus[i].ntlv, b4.pdus[i].ntlv);
	}
	/* the compact records say the same, on 1 and 4 threads */
	rec_cmp(c1, s, len, b1);
	rec_cmp(c4, s, len, b1);
	smpp_batch_free(&b4);
	smpp_ctx_free(c1);
	smpp_ctx_free(c4);
}

static void
test_plain(void **state)
{
	struct smpp_config cfg;
	struct smpp_batch b;
	size_t len;
	uint8_t *s;

	(void)state;
	smpp_config_default(&cfg);
	s = mk_stream(&cfg, NPDU, &len);
	smpp_batch_init(&b);
	decode_cmp(&cfg, s, len, &b);
	assert_int_equal(b.n, NPDU);
	assert_int_equal(b.nerr, 0);
	for (size_t i = 0; i < b.n; i++) {
		assert_int_equal(b.pdus[i].sequence_number, i);
		assert_int_equal(b.pdus[i].ntlv, 5);
	}
	/* a bad body in the middle: only that PDU fails */
	s[b.pdus[500].off + b.pdus[500].f[16].off] = 0xff; /* sm_length */
	decode_cmp(&cfg, s, len, &b);
	assert_int_equal(b.n, NPDU);
	assert_int_equal(b.nerr, 1);
	assert_int_equal(b.pdus[500].error, ESME_RINVMSGLEN);
	assert_int_equal(b.pdus[501].error, ESME_ROK);
	/* a bad command_length: plain framing cannot resync, the rest is one
	 * erroneous element and everything before it decodes */
	s[b.pdus[1000].off] = 0x7f;
	decode_cmp(&cfg, s, len, &b);
	assert_int_equal(b.n, 1001);
	assert_int_equal(b.pdus[1000].error, ESME_RINVCMDLEN);
	assert_int_equal(b.pdus[1000].error_off, b.pdus[1000].off);
	assert_int_equal(b.pdus[999].error, ESME_ROK);
	smpp_batch_free(&b);
	free(s);
}

static void
test_element(void **state)
{
	struct smpp_config cfg;
	struct smpp_batch b;
	size_t len;
	uint8_t *s;
	uint32_t id;

	(void)state;
	smpp_config_default(&cfg);
	cfg.framing = SMPP_FRAME_ELEMENT;
	cfg.corr_len = 6;
	s = mk_stream(&cfg, NPDU, &len);
	smpp_batch_init(&b);
	decode_cmp(&cfg, s, len, &b);
	assert_int_equal(b.n, NPDU);
	assert_int_equal(b.nerr, 0);
	for (size_t i = 0; i < b.n; i += 997) {
		assert_int_equal(b.pdus[i].corr_len, 6);
		memcpy(&id, s + b.pdus[i].corr_off, 4);
		assert_int_equal(id, i);
		assert_int_equal(b.pdus[i].sequence_number, i);
	}
	/* a broken command_length: resync on the end marker, one error */
	s[b.pdus[700].off + 6] = 0x7f;
	decode_cmp(&cfg, s, len, &b);
	assert_int_equal(b.n, NPDU);
	assert_int_equal(b.nerr, 1);
	assert_int_equal(b.pdus[700].error, ESME_RINVCMDLEN);
	assert_int_equal(b.pdus[701].sequence_number, 701);
	/* a damaged end marker: that element fails, the next decodes */
	s[b.pdus[800].off + 6 + b.pdus[800].len] ^= 0xff;
	decode_cmp(&cfg, s, len, &b);
	assert_int_equal(b.pdus[800].error, ESME_RINVCMDLEN);
	assert_true(b.nerr >= 2);
	assert_int_equal(b.pdus[b.n - 1].sequence_number, NPDU - 1);
	smpp_batch_free(&b);
	free(s);
}

static void
test_modes(void **state)
{
	struct smpp_config cfg;
	struct smpp_ctx *c;
	struct smpp_batch b;
	uint8_t pdu[512];
	int n;

	(void)state;
	smpp_config_default(&cfg);
	cfg.threads = 0;
	assert_int_equal(smpp_ctx_create(&cfg, &c), -EINVAL);
	cfg.threads = 2;
	assert_int_equal(smpp_ctx_create(&cfg, &c), 0);
	smpp_batch_init(&b);
	n = mk_submit(1, &cfg, pdu, sizeof(pdu));
	assert_int_equal(smpp_decode_batch(c, pdu, (size_t)n, SMPP_MODE_GPU, &b), -ENOTSUP);
	assert_int_equal(smpp_decode_batch(c, pdu, (size_t)n, SMPP_MODE_GPU_FUSED, &b), -ENOTSUP);
	assert_int_equal(smpp_decode_batch(c, pdu, (size_t)n, SMPP_MODE_AUTO, &b), 0);
	assert_int_equal(b.mode_used, SMPP_MODE_CPU);
	assert_int_equal(b.n, 1);
	assert_int_equal(smpp_decode_batch(c, pdu, (size_t)n, (enum smpp_mode)9, &b), -EINVAL);
	assert_int_equal(smpp_decode_batch(c, NULL, 0, SMPP_MODE_CPU, &b), 0);
	assert_int_equal(b.n, 0);
	assert_int_equal(smpp_backend_register(SMPP_MODE_CPU, NULL), -EINVAL);
	smpp_batch_free(&b);
	smpp_ctx_free(c);
}

/* Random garbage between and inside PDUs: the threaded walk must still
 * equal the sequential one. */
static void
test_garbage(void **state)
{
	struct smpp_config cfg;
	struct smpp_batch b;
	size_t len;
	uint8_t *s;

	(void)state;
	for (int fr = 0; fr < 2; fr++) {
		smpp_config_default(&cfg);
		cfg.framing = fr ? SMPP_FRAME_ELEMENT : SMPP_FRAME_PLAIN;
		s = mk_stream(&cfg, 3000, &len);
		srand(7);
		for (int k = 0; k < 200; k++)
			s[(size_t)rand() % len] = (uint8_t)rand();
		smpp_batch_init(&b);
		decode_cmp(&cfg, s, len, &b);
		assert_true(b.n > 0);
		smpp_batch_free(&b);
		free(s);
	}
}

/* smpp_decode_pdu under the decoders of isa, checked against the baseline
 * instance's, which uses no vectors wider than SSE2. */
static void
decode_isa(const char *isa, const uint8_t *b, uint32_t len, unsigned flags,
	   struct smpp_pdu *p)
{
	struct smpp_pdu ref;

	/* the framing fields, which the decoder leaves alone, compare equal */
	memset(&ref, 0, sizeof(ref));
	memset(p, 0, sizeof(*p));
	assert_int_equal(smpp_dec_isa_select("generic"), 0);
	smpp_decode_pdu(b, len, flags, 0, &ref);
	assert_int_equal(smpp_dec_isa_select(isa), 0);
	smpp_decode_pdu(b, len, flags, 0, p);
	assert_int_equal(smpp_gpu_cmp_pdu(isa, 0, p, &ref), 0);
}

/* The compact record's fast path (submit_sm / deliver_sm) against the full
 * decoder packed: byte for byte on good PDUs, and the same statuses and
 * fault offsets on every one-octet change and every truncation of one,
 * lenient and strict; under each instruction set this CPU runs, the full
 * decoder also equal to the baseline's. */
static void
rec_fast_check(const char *isa)
{
	struct smpp_sim_config sc;
	struct smpp_rec fast, slow;
	struct smpp_pdu p;
	uint8_t pdu[1024], m[1024];
	static const uint8_t vals[] = { 0x00, 0x01, 0x10, 0x11, 0x7f, 0xfe, 0xff };

	smpp_sim_config_default(&sc);
	for (unsigned v = 0; v < 6; v++) {
		/* submit_sm / deliver_sm, message lengths 0..254, 0..12 TLVs
		 * (long ones leave the 128-octet window), one with a 16-octet time */
		sc.command_id = v & 1 ? SMPP_DELIVER_SM : SMPP_SUBMIT_SM;
		sc.msg_len = (unsigned[]){ 20, 0, 160, 254, 100, 63 }[v];
		sc.ntlv = (unsigned[]){ 5, 0, 1, 12, 8, 3 }[v];
		int n = smpp_sim_pdu(&sc, 1234 + v, pdu, sizeof(pdu));

		assert_true(n > 0);
		for (unsigned strict = 0; strict < 2; strict++) {
			decode_isa(isa, pdu, (uint32_t)n, strict, &p);
			assert_int_equal(smpp_decode_pdu_rec(pdu, (uint32_t)n, strict, &fast), 0);
			smpp_rec_pack(&p, 0, &slow);
			fast.pdu_off = slow.pdu_off = 0;
			fast.corr_len = slow.corr_len = fast.elem_back = slow.elem_back = 0;
			assert_memory_equal(&fast, &slow, sizeof(fast));
			/* every octet changed to each of vals, then every
			 * truncation with its command_length fixed up */
			for (int i = 0; i < n + n - 15; i++) {
				for (unsigned k = 0; k < (i < n ? sizeof(vals) : 1); k++) {
					uint32_t l = i < n ? (uint32_t)n : (uint32_t)(i - n + 16);

					memcpy(m, pdu, (size_t)n);
					if (i < n) {
						m[i] = vals[k];
					} else {
						m[2] = (uint8_t)(l >> 8);
						m[3] = (uint8_t)l;
					}
					decode_isa(isa, m, l, strict, &p);
					smpp_rec_pack(&p, 0, &slow);
					slow.pdu_off = slow.corr_len = slow.elem_back = 0;
					/* alone, and after the unchanged PDU left its TLV
					 * shape for the batch loop's shortcut */
					for (int primed = 0; primed < 2; primed++) {
						struct smpp_tlv_shape sh = { .command_id = 0 };
						int st;

						if (primed)
							smpp_decode_pdu_rec_sh(pdu, (uint32_t)n, strict,
									       &fast, &sh);
						st = smpp_decode_pdu_rec_sh(m, l, strict, &fast, &sh);
						fast.pdu_off = fast.corr_len = fast.elem_back = 0;
						assert_int_equal(st, p.error);
						assert_memory_equal(&fast, &slow, sizeof(fast));
					}
				}
			}
		}
	}
	/* the fast path's NUL mask is the table's */
	assert_int_equal(slow.nul_mask & 0x3ffff, 0xC49);
}

static void
test_rec_fast(void **state)
{
	static const char *const isas[] = { "avx512", "avx2", "generic" };
	const char *best = smpp_dec.name;
	unsigned ran = 0;

	(void)state;
	assert_int_equal(smpp_dec_isa_select("sse9"), -ENOENT);
	for (unsigned k = 0; k < sizeof(isas) / sizeof(isas[0]); k++) {
		if (smpp_dec_isa_select(isas[k]) == -ENOTSUP) {
			print_message("decoders for %s: not on this CPU\n", isas[k]);
			continue;
		}
		rec_fast_check(isas[k]);
		ran++;
	}
	assert_true(ran > 0);
	assert_int_equal(smpp_dec_isa_select(best), 0);
}

/* A stand-in GPU backend: the CPU decoder of its own context, so that the
 * records of the GPU modes (packed from struct smpp_pdu) can be checked. */
static struct smpp_ctx *fake_ctx;

static int
fake_backend(struct smpp_ctx *ctx, const uint8_t *in, size_t len, struct smpp_batch *out)
{
	enum smpp_mode m = out->mode_used;   /* set by smpp_decode_batch */
	int rc;

	(void)ctx;
	rc = smpp_decode_batch(fake_ctx, in, len, SMPP_MODE_CPU, out);
	out->mode_used = m;
	return rc;
}

static void
test_rec_backend(void **state)
{
	struct smpp_config cfg;
	struct smpp_ctx *c;
	struct smpp_batch full;
	struct smpp_rbatch rb;
	size_t len;
	uint8_t *s;

	(void)state;
	for (int fr = 0; fr < 2; fr++) {
		smpp_config_default(&cfg);
		cfg.framing = fr ? SMPP_FRAME_ELEMENT : SMPP_FRAME_PLAIN;
		cfg.gpu_threshold = 100;
		s = mk_stream(&cfg, 3000, &len);
		srand(11);
		for (int k = 0; k < 50; k++)
			s[(size_t)rand() % len] = (uint8_t)rand();
		assert_int_equal(smpp_ctx_create(&cfg, &c), 0);
		assert_int_equal(smpp_ctx_create(&cfg, &fake_ctx), 0);
		smpp_batch_init(&full);
		smpp_rbatch_init(&rb);
		assert_int_equal(smpp_decode_batch(c, s, len, SMPP_MODE_CPU, &full), 0);
		assert_int_equal(smpp_backend_register(SMPP_MODE_GPU, fake_backend), 0);
		assert_int_equal(smpp_backend_register(SMPP_MODE_GPU_FUSED, fake_backend), 0);
		for (int m = 0; m < 3; m++) {
			enum smpp_mode mode = m == 0 ? SMPP_MODE_GPU : m == 1 ?
					      SMPP_MODE_GPU_FUSED : SMPP_MODE_AUTO;

			assert_int_equal(smpp_decode_batch_rec(c, s, len, mode, &rb), 0);
			assert_int_equal(rb.mode_used, m == 1 ? SMPP_MODE_GPU_FUSED : SMPP_MODE_GPU);
			expand_cmp("gpu-mode records", &rb, s, &full);
		}
		/* below the threshold auto stays on the CPU */
		assert_int_equal(smpp_decode_batch_rec(c, s, 64 * 99, SMPP_MODE_AUTO, &rb), 0);
		assert_int_equal(rb.mode_used, SMPP_MODE_CPU);
		smpp_backend_register(SMPP_MODE_GPU, NULL);
		smpp_backend_register(SMPP_MODE_GPU_FUSED, NULL);
		assert_int_equal(smpp_decode_batch_rec(c, s, len, SMPP_MODE_GPU, &rb), -ENOTSUP);
		smpp_batch_free(&full);
		smpp_rbatch_free(&rb);
		smpp_ctx_free(c);
		smpp_ctx_free(fake_ctx);
		free(s);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_element),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_rec_fast),
		cmocka_unit_test(test_rec_backend),   /* registers backends: last */
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
