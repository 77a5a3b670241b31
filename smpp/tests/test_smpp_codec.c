/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the SMPP PDU codec: the tables, decoding into views,
 * per-PDU errors with their status and offset, and encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "test_util.h"

static const uint32_t all_ids[] = {
	0x80000000, 1, 0x80000001, 2, 0x80000002, 3, 0x80000003, 4, 0x80000004,
	5, 0x80000005, 6, 0x80000006, 7, 0x80000007, 8, 0x80000008, 9,
	0x80000009, 0x0B, 0x15, 0x80000015, 0x21, 0x80000021, 0x102, 0x103,
	0x80000103,
};

static void
test_tables(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(all_ids) / sizeof(all_ids[0]); i++) {
		const struct smpp_pdu_desc *d = smpp_pdu_desc_find(all_ids[i]);
		assert_non_null(d);
		assert_int_equal(d->command_id, all_ids[i]);
		assert_ptr_equal(smpp_pdu_desc_by_name(d->name), d);
		assert_true(d->nfields <= SMPP_MAX_FIELDS);
	}
	assert_null(smpp_pdu_desc_find(0x8000000B));   /* outbind has no resp */
	assert_null(smpp_pdu_desc_find(0x80000102));
	assert_null(smpp_pdu_desc_find(0x0A));
	assert_null(smpp_pdu_desc_find(0x22));
	for (unsigned i = 0; i < smpp_tlv_desc_count(); i++) {
		const struct smpp_tlv_desc *t = smpp_tlv_desc_at(i);
		assert_ptr_equal(smpp_tlv_desc_find(t->tag), t);
		if (i)
			assert_true(smpp_tlv_desc_at(i - 1)->tag < t->tag);
	}
	assert_string_equal(smpp_status_name(ESME_RINVCMDLEN), "ESME_RINVCMDLEN");
}

static void
test_submit_sm_roundtrip(void **state)
{
	static const uint8_t ref[] = { 0x00, 0x07 }, vend[] = { 1, 2, 3 };
	const struct smpp_tlv_value tlv[] = {
		{ SMPP_TLV_SAR_MSG_REF_NUM, 2, ref },
		{ 0x1401, 3, vend },
	};
	const struct kv kv[] = {
		{ "service_type", "CMT", 0 }, { "source_addr_ton", NULL, 5 },
		{ "source_addr_npi", NULL, 0 }, { "source_addr", "Sender", 0 },
		{ "dest_addr_ton", NULL, 1 }, { "dest_addr_npi", NULL, 1 },
		{ "destination_addr", "46700000001", 0 }, { "esm_class", NULL, 0x40 },
		{ "registered_delivery", NULL, 1 }, { "data_coding", NULL, 8 },
		{ "short_message", "hello", 0 }, { NULL, NULL, 0 },
	};
	uint8_t buf[512], re[512];
	struct smpp_pdu p;
	struct smpp_msg m;
	struct smpp_tlv_value tv[8];
	struct smpp_tlv t;
	const struct smpp_view *v;
	int n;

	(void)state;
	n = build_pdu("submit_sm", 77, kv, tlv, 2, buf, sizeof(buf));
	assert_true(n > 16);
	assert_int_equal(smpp_decode_pdu(buf, (uint32_t)n, 0, 0, &p), ESME_ROK);
	assert_int_equal(p.command_id, SMPP_SUBMIT_SM);
	assert_int_equal(p.sequence_number, 77);
	assert_int_equal(p.nfields, 18);
	v = smpp_field(&p, "source_addr");
	assert_non_null(v);
	assert_int_equal(v->len, 6);
	assert_memory_equal(smpp_view_ptr(&p, v), "Sender", 6);
	assert_ptr_equal(smpp_view_ptr(&p, v), buf + v->off);  /* a view, not a copy */
	v = smpp_field(&p, "short_message");
	assert_memory_equal(smpp_view_ptr(&p, v), "hello", 5);
	assert_int_equal(smpp_field_u(&p, 0 + 1), 5);          /* source_addr_ton */
	assert_int_equal(smpp_field_u(&p, 14), 8);             /* data_coding */
	assert_int_equal(p.ntlv, 2);
	assert_int_equal(p.tlv[1].tag, 0x1401);                /* vendor TLV kept raw */
	assert_memory_equal(buf + p.tlv[1].off, vend, 3);
	assert_int_equal(smpp_tlv_get(&p, SMPP_TLV_SAR_MSG_REF_NUM, &t), 1);
	assert_int_equal(buf[t.off + 1], 7);
	assert_int_equal(smpp_tlv_get(&p, SMPP_TLV_MESSAGE_PAYLOAD, &t), 0);
	/* re-encode from the fields: byte-identical */
	assert_int_equal(smpp_msg_from_pdu(&p, &m, tv, 8), 0);
	assert_int_equal(smpp_encode(&m, re, sizeof(re)), n);
	assert_memory_equal(re, buf, (size_t)n);
	/* too small a buffer refuses */
	assert_int_equal(smpp_encode(&m, re, (size_t)n - 1), -ENOSPC);
}

static void
test_encode_refuses(void **state)
{
	const struct kv long_src[] = { { "source_addr", "012345678901234567890", 0 }, { NULL, NULL, 0 } };
	char sm[300];
	struct kv big_sm[] = { { "short_message", sm, 0 }, { NULL, NULL, 0 } };
	uint8_t buf[1024];

	(void)state;
	memset(sm, 'x', 255);
	sm[255] = 0;
	assert_int_equal(build_pdu("submit_sm", 1, long_src, NULL, 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(build_pdu("submit_sm", 1, big_sm, NULL, 0, buf, sizeof(buf)), -EINVAL);
	sm[254] = 0;
	assert_true(build_pdu("submit_sm", 1, big_sm, NULL, 0, buf, sizeof(buf)) > 254);
}

static void
expect_err(const uint8_t *b, uint32_t len, unsigned flags, uint16_t st, uint64_t off)
{
	struct smpp_pdu p;

	assert_int_equal(smpp_decode_pdu(b, len, flags, 1000, &p), st);
	assert_int_equal(p.error, st);
	assert_int_equal(p.error_off, 1000 + off);
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static void
test_decode_errors(void **state)
{
	const struct kv kv[] = { { "source_addr", "1", 0 }, { "destination_addr", "2", 0 },
		{ "short_message", "abc", 0 }, { NULL, NULL, 0 } };
	uint8_t buf[512], b2[512];
	struct smpp_pdu p;
	int n;
	uint32_t smlen_off;

	(void)state;
	n = build_pdu("submit_sm", 1, kv, NULL, 0, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(smpp_decode_pdu(buf, (uint32_t)n, 0, 0, &p), ESME_ROK);
	smlen_off = p.f[16].off;
	/* shorter than a header */
	expect_err(buf, 10, 0, ESME_RINVCMDLEN, 0);
	/* command_length disagrees with the framed length */
	expect_err(buf, (uint32_t)n - 1, 0, ESME_RINVCMDLEN, 0);
	/* unknown command id, offset of the id */
	memcpy(b2, buf, (size_t)n);
	put32(b2 + 4, 0x77);
	expect_err(b2, (uint32_t)n, 0, ESME_RINVCMDID, 4);
	/* sm_length 255 */
	memcpy(b2, buf, (size_t)n);
	b2[smlen_off] = 255;
	expect_err(b2, (uint32_t)n, 0, ESME_RINVMSGLEN, smlen_off);
	/* sm_length beyond the PDU */
	b2[smlen_off] = 4;
	expect_err(b2, (uint32_t)n, 0, ESME_RINVMSGLEN, smlen_off);
	/* a truncated TLV after the message: 3 stray bytes */
	memcpy(b2, buf, (size_t)n);
	b2[n] = 0x02; b2[n + 1] = 0x0C; b2[n + 2] = 0;
	put32(b2, (uint32_t)n + 3);
	expect_err(b2, (uint32_t)n + 3, 0, ESME_RINVOPTPARSTREAM, (uint32_t)n);
	/* known TLV with a wrong length */
	memcpy(b2 + n, "\x02\x0c\x00\x01\x05", 5);
	put32(b2, (uint32_t)n + 5);
	expect_err(b2, (uint32_t)n + 5, 0, ESME_RINVPARLEN, (uint32_t)n);
	/* TLV not allowed in submit_sm: fine by default, refused when strict */
	memcpy(b2 + n, "\x02\x10\x00\x01\x34", 5);
	assert_int_equal(smpp_decode_pdu(b2, (uint32_t)n + 5, 0, 0, &p), ESME_ROK);
	expect_err(b2, (uint32_t)n + 5, SMPP_F_STRICT, ESME_ROPTPARNOTALLWD, (uint32_t)n);
	/* vendor-range tags are always allowed; reserved unknown ones are not
	 * when strict */
	memcpy(b2 + n, "\x14\x00\x00\x01\x34", 5);
	assert_int_equal(smpp_decode_pdu(b2, (uint32_t)n + 5, SMPP_F_STRICT, 0, &p), ESME_ROK);
	memcpy(b2 + n, "\x00\x99\x00\x01\x34", 5);
	assert_int_equal(smpp_decode_pdu(b2, (uint32_t)n + 5, 0, 0, &p), ESME_ROK);
	expect_err(b2, (uint32_t)n + 5, SMPP_F_STRICT, ESME_ROPTPARNOTALLWD, (uint32_t)n);
	/* source_addr without its NUL: 16 + service_type(1) + ton + npi */
	memcpy(b2, buf, 19);
	memset(b2 + 19, '7', 40);
	put32(b2, 59);
	expect_err(b2, 59, 0, ESME_RINVSRCADR, 19);
	/* body cut inside a C-string: a length error, not a field error */
	memcpy(b2, buf, 19);
	memset(b2 + 19, '7', 5);
	put32(b2, 24);
	expect_err(b2, 24, 0, ESME_RINVCMDLEN, 19);
}

static void
test_responses_and_lists(void **state)
{
	uint8_t buf[512], list[256];
	struct smpp_pdu p;
	struct smpp_msg m;
	struct smpp_dest d;
	uint32_t it = 0;
	int n, l = 0;

	(void)state;
	/* submit_sm_resp with an error status and no body (v3.4 4.4.2) */
	memset(&m, 0, sizeof(m));
	m.command_id = SMPP_SUBMIT_SM_RESP;
	m.command_status = ESME_RINVDSTADR;
	m.no_body = 1;
	n = smpp_encode(&m, buf, sizeof(buf));
	assert_int_equal(n, 16);
	assert_int_equal(smpp_decode_pdu(buf, 16, 0, 0, &p), ESME_ROK);
	assert_int_equal(p.nfields, 0);
	/* ... but with status 0 the body is required */
	m.command_status = 0;
	n = smpp_encode(&m, buf, sizeof(buf));
	assert_int_equal(n, 17);
	put32(buf, 16);
	assert_int_equal(smpp_decode_pdu(buf, 16, 0, 0, &p), ESME_RINVCMDLEN);

	/* submit_multi with an SME address and a distribution list */
	l = smpp_dest_append(list, sizeof(list), 0, 1, 1, 1, "4670001");
	l = smpp_dest_append(list, sizeof(list), (size_t)l, 2, 0, 0, "friends");
	assert_true(l > 0);
	memset(&m, 0, sizeof(m));
	m.command_id = SMPP_SUBMIT_MULTI;
	m.v[5].p = list;
	m.v[5].len = (uint32_t)l;
	m.v[5].u = 2;
	m.v[16].p = (const uint8_t *)"hi";
	m.v[16].len = 2;
	n = smpp_encode(&m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(smpp_decode_pdu(buf, (uint32_t)n, 0, 0, &p), ESME_ROK);
	assert_int_equal(smpp_field_u(&p, 4), 2);
	assert_int_equal(smpp_list_iter(&p, 5, &it, &d), 1);
	assert_int_equal(d.dest_flag, 1);
	assert_memory_equal(d.addr, "4670001", 7);
	assert_int_equal(smpp_list_iter(&p, 5, &it, &d), 1);
	assert_int_equal(d.dest_flag, 2);
	assert_memory_equal(d.addr, "friends", 7);
	assert_int_equal(smpp_list_iter(&p, 5, &it, &d), 0);
	/* submit_multi_resp: its unsuccess_sme entries print without the
	 * dest_flag that v3.4 4.5.2 does not have */
	{
		static const uint8_t uns[] = { 1, 1, '4', '6', 0, 0, 0, 0, 0x0B };
		char *js = NULL;
		size_t jl = 0;
		FILE *f;

		memset(&m, 0, sizeof(m));
		m.command_id = SMPP_SUBMIT_MULTI_RESP;
		m.v[0].p = (const uint8_t *)"abc";
		m.v[0].len = 3;
		m.v[2].p = uns;
		m.v[2].len = sizeof(uns);
		m.v[2].u = 1;
		n = smpp_encode(&m, buf, sizeof(buf));
		assert_int_equal(smpp_decode_pdu(buf, (uint32_t)n, 0, 0, &p), ESME_ROK);
		f = open_memstream(&js, &jl);
		assert_int_equal(smpp_pdu_print_json(f, &p, NULL), 0);
		fclose(f);
		assert_non_null(strstr(js, "\"unsuccess_sme\":[{\"ton\":1,\"npi\":1,\"addr\":\"46\","
					   "\"error_status_code\":11}]"));
		assert_null(strstr(js, "dest_flag"));
		free(js);
	}
	/* header-only PDUs */
	memset(&m, 0, sizeof(m));
	m.command_id = SMPP_ENQUIRE_LINK;
	assert_int_equal(smpp_encode(&m, buf, sizeof(buf)), 16);
	assert_int_equal(smpp_decode_pdu(buf, 16, 0, 0, &p), ESME_ROK);
	/* with a stray body byte: a one-byte TLV area is a broken TLV */
	put32(buf, 17);
	buf[16] = 0;
	assert_int_equal(smpp_decode_pdu(buf, 17, 0, 0, &p), ESME_RINVOPTPARSTREAM);
}

static void
test_many_tlvs(void **state)
{
	struct smpp_tlv_value tlv[20];
	uint8_t val[20][2], buf[1024];
	struct smpp_pdu p;
	struct smpp_tlv t;
	uint32_t it = 0;
	unsigned k = 0;
	int n;

	(void)state;
	for (unsigned i = 0; i < 20; i++) {
		val[i][0] = 0;
		val[i][1] = (uint8_t)i;
		tlv[i] = (struct smpp_tlv_value){ (uint16_t)(0x1500 + i), 2, val[i] };
	}
	n = build_pdu("deliver_sm", 3, NULL, tlv, 20, buf, sizeof(buf));
	assert_int_equal(smpp_decode_pdu(buf, (uint32_t)n, 0, 0, &p), ESME_ROK);
	assert_int_equal(p.ntlv, 20);
	while (smpp_tlv_iter(&p, &it, &t)) {
		assert_int_equal(t.tag, 0x1500 + k);
		k++;
	}
	assert_int_equal(k, 20);
	/* beyond the inline array, found through the iterator */
	assert_int_equal(smpp_tlv_get(&p, 0x1513, &t), 1);
	assert_int_equal(buf[t.off + 1], 19);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_submit_sm_roundtrip),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_responses_and_lists),
		cmocka_unit_test(test_many_tlvs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
