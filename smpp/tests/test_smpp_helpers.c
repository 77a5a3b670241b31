/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the helpers: data_coding -> charset, text conversion (GSM
 * 7-bit with the extension table, packed GSM, Latin-1, UCS-2), the
 * concatenation view with reassembly, the delivery receipt parser, and
 * the time fields (v3.4 7.1.1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "test_util.h"

static void
test_dcs(void **state)
{
	(void)state;
	assert_int_equal(smpp_dcs_charset(0x00, SMPP_CS_GSM7), SMPP_CS_GSM7);
	assert_int_equal(smpp_dcs_charset(0x00, SMPP_CS_LATIN1), SMPP_CS_LATIN1);
	assert_int_equal(smpp_dcs_charset(0x01, SMPP_CS_GSM7), SMPP_CS_ASCII);
	assert_int_equal(smpp_dcs_charset(0x02, SMPP_CS_GSM7), SMPP_CS_BINARY);
	assert_int_equal(smpp_dcs_charset(0x03, SMPP_CS_GSM7), SMPP_CS_LATIN1);
	assert_int_equal(smpp_dcs_charset(0x04, SMPP_CS_GSM7), SMPP_CS_BINARY);
	assert_int_equal(smpp_dcs_charset(0x06, SMPP_CS_GSM7), SMPP_CS_UNKNOWN);
	assert_int_equal(smpp_dcs_charset(0x08, SMPP_CS_GSM7), SMPP_CS_UCS2);
	assert_int_equal(smpp_dcs_charset(0x10, SMPP_CS_LATIN1), SMPP_CS_GSM7); /* class 0 */
	assert_int_equal(smpp_dcs_charset(0x18, SMPP_CS_GSM7), SMPP_CS_UCS2);
	assert_int_equal(smpp_dcs_charset(0x14, SMPP_CS_GSM7), SMPP_CS_BINARY);
	assert_int_equal(smpp_dcs_charset(0x30, SMPP_CS_GSM7), SMPP_CS_UNKNOWN); /* compressed */
	assert_int_equal(smpp_dcs_charset(0x48, SMPP_CS_GSM7), SMPP_CS_UCS2);
	assert_int_equal(smpp_dcs_charset(0x90, SMPP_CS_GSM7), SMPP_CS_UNKNOWN);
	assert_int_equal(smpp_dcs_charset(0xC8, SMPP_CS_UCS2), SMPP_CS_GSM7);
	assert_int_equal(smpp_dcs_charset(0xE0, SMPP_CS_GSM7), SMPP_CS_UCS2);
	assert_int_equal(smpp_dcs_charset(0xF0, SMPP_CS_UCS2), SMPP_CS_GSM7);
	assert_int_equal(smpp_dcs_charset(0xF4, SMPP_CS_GSM7), SMPP_CS_BINARY);
	assert_string_equal(smpp_charset_name(SMPP_CS_UCS2), "ucs2");
}

static void
test_text(void **state)
{
	/* "@£{€}" in GSM 7-bit with two escapes */
	static const uint8_t g[] = { 0x00, 0x01, 0x1B, 0x28, 0x1B, 0x65, 0x1B, 0x29 };
	/* "hellohello" packed, the TS 23.038 example */
	static const uint8_t pk[] = { 0xE8, 0x32, 0x9B, 0xFD, 0x46, 0x97, 0xD9, 0xEC, 0x37 };
	static const uint8_t u2[] = { 0x00, 0x48, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00 };
	static const uint8_t l1[] = { 'c', 'a', 'f', 0xE9 };
	char out[128];
	uint8_t g7[64];

	(void)state;
	assert_int_equal(smpp_text_to_utf8(g, sizeof(g), SMPP_CS_GSM7, out, sizeof(out)), 8);
	assert_string_equal(out, "@\xC2\xA3{\xE2\x82\xAC}");
	assert_int_equal(smpp_text_to_utf8(pk, sizeof(pk), SMPP_CS_GSM7_PACKED, out, sizeof(out)), 10);
	assert_string_equal(out, "hellohello");
	/* H, e-acute, U+1F600 as a surrogate pair */
	assert_int_equal(smpp_text_to_utf8(u2, sizeof(u2), SMPP_CS_UCS2, out, sizeof(out)), 7);
	assert_string_equal(out, "H\xC3\xA9\xF0\x9F\x98\x80");
	assert_int_equal(smpp_text_to_utf8(u2, 7, SMPP_CS_UCS2, out, sizeof(out)), -EILSEQ);
	assert_int_equal(smpp_text_to_utf8(l1, 4, SMPP_CS_LATIN1, out, sizeof(out)), 5);
	assert_string_equal(out, "caf\xC3\xA9");
	assert_int_equal(smpp_text_to_utf8(l1, 4, SMPP_CS_BINARY, out, sizeof(out)), -ENOTSUP);
	assert_int_equal(smpp_text_to_utf8(l1, 4, SMPP_CS_LATIN1, out, 5), -ENOSPC);
	/* UTF-8 -> GSM 7-bit and back */
	assert_int_equal(smpp_utf8_to_gsm7("a[\xE2\x82\xAC]", 6, g7, sizeof(g7)), 7);
	assert_int_equal(g7[1], 0x1B);
	assert_int_equal(g7[2], 0x3C);
	assert_int_equal(smpp_text_to_utf8(g7, 7, SMPP_CS_GSM7, out, sizeof(out)), 6);
	assert_string_equal(out, "a[\xE2\x82\xAC]");
	assert_int_equal(smpp_utf8_to_gsm7("\xE4\xB8\xAD", 3, g7, sizeof(g7)), -EILSEQ);
}

/* deliver_sm carrying part seq of total with the given method. */
static int
mk_part(int method, uint8_t seq, const char *text, uint8_t *buf, size_t cap)
{
	uint8_t sm[200];
	static uint8_t ref[2] = { 0x12, 0x34 }, tot[1] = { 3 }, sq[1];
	struct smpp_tlv_value tlv[3] = {
		{ SMPP_TLV_SAR_MSG_REF_NUM, 2, ref }, { SMPP_TLV_SAR_TOTAL_SEGMENTS, 1, tot },
		{ SMPP_TLV_SAR_SEGMENT_SEQNUM, 1, sq },
	};
	struct smpp_msg m;
	size_t n = 0, tl = strlen(text);

	sq[0] = seq;
	memset(&m, 0, sizeof(m));
	m.command_id = SMPP_DELIVER_SM;
	if (method == 8) {          /* UDH, 8-bit reference */
		memcpy(sm, "\x05\x00\x03\x34\x03", 5);
		sm[5] = seq;
		n = 6;
	} else if (method == 16) {  /* UDH, 16-bit reference, after a port IE */
		memcpy(sm, "\x0c\x05\x04\x0b\x84\x23\xf0\x08\x04\x12\x34\x03", 12);
		sm[12] = seq;
		n = 13;
	}
	memcpy(sm + n, text, tl);
	n += tl;
	if (method == 8 || method == 16)
		m.v[7].u = 0x40;    /* esm_class: UDHI */
	if (method == 'p') {        /* SAR TLVs + message_payload, no short_message */
		static struct smpp_tlv_value t4[4];
		static uint8_t pl[200];

		memcpy(t4, tlv, sizeof(tlv));
		memcpy(pl, text, tl);
		t4[3] = (struct smpp_tlv_value){ SMPP_TLV_MESSAGE_PAYLOAD, (uint16_t)tl, pl };
		m.tlv = t4;
		m.ntlv = 4;
		return smpp_encode(&m, buf, cap);
	}
	if (method == 's') {
		m.tlv = tlv;
		m.ntlv = 3;
	}
	m.v[17].p = sm;
	m.v[17].len = (uint32_t)n;
	return smpp_encode(&m, buf, cap);
}

static void
test_concat(void **state)
{
	static const char *txt[3] = { "one ", "two ", "three" };
	const int methods[] = { 8, 16, 's', 'p' };
	uint8_t pdus[3][300], out[64];
	struct smpp_pdu p[3];
	struct smpp_concat c[3];

	(void)state;
	for (unsigned mi = 0; mi < 4; mi++) {
		/* parts arrive out of order: 3, 1, 2 */
		for (int k = 0; k < 3; k++) {
			int seq = (k + 2) % 3 + 1;
			int n = mk_part(methods[mi], (uint8_t)seq, txt[seq - 1], pdus[k], 300);
			assert_true(n > 0);
			assert_int_equal(smpp_decode_pdu(pdus[k], (uint32_t)n, 0, 0, &p[k]), 0);
			assert_int_equal(smpp_concat_view(&p[k], &c[k]), 0);
			assert_int_equal(c[k].seq, seq);
			assert_int_equal(c[k].total, 3);
		}
		assert_int_equal(c[0].src, mi == 0 ? SMPP_CONCAT_UDH8 : mi == 1 ?
				 SMPP_CONCAT_UDH16 : SMPP_CONCAT_SAR);
		assert_int_equal(c[0].ref, mi == 0 ? 0x34 : 0x1234);
		assert_int_equal(c[0].payload_tlv, mi == 3);
		assert_int_equal(smpp_concat_reassemble(c, 2, out, sizeof(out)), -EAGAIN);
		assert_int_equal(smpp_concat_reassemble(c, 3, out, sizeof(out)), 13);
		assert_memory_equal(out, "one two three", 13);
		assert_int_equal(smpp_concat_reassemble(c, 3, out, 5), -ENOSPC);
		c[1] = c[0];
		assert_int_equal(smpp_concat_reassemble(c, 3, out, sizeof(out)), -EINVAL);
	}
	/* a plain message: one part of one */
	{
		struct kv kv[] = { { "short_message", "solo", 0 }, { NULL, NULL, 0 } };
		int n = build_pdu("submit_sm", 1, kv, NULL, 0, pdus[0], 300);
		assert_int_equal(smpp_decode_pdu(pdus[0], (uint32_t)n, 0, 0, &p[0]), 0);
		assert_int_equal(smpp_concat_view(&p[0], &c[0]), 0);
		assert_int_equal(c[0].src, SMPP_CONCAT_NONE);
		assert_int_equal(c[0].total, 1);
		assert_int_equal(c[0].body_len, 4);
	}
	/* both short_message and message_payload: refused */
	{
		static const uint8_t pl[] = "x";
		struct smpp_tlv_value t = { SMPP_TLV_MESSAGE_PAYLOAD, 1, pl };
		struct kv kv[] = { { "short_message", "solo", 0 }, { NULL, NULL, 0 } };
		int n = build_pdu("submit_sm", 1, kv, &t, 1, pdus[0], 300);
		assert_int_equal(smpp_decode_pdu(pdus[0], (uint32_t)n, 0, 0, &p[0]), 0);
		assert_int_equal(smpp_concat_view(&p[0], &c[0]), -EINVAL);
	}
	/* UDHI set but the UDH length runs past the message */
	{
		struct kv kv[] = { { "esm_class", NULL, 0x40 }, { "short_message", "\x09\x00\x03", 0 },
			{ NULL, NULL, 0 } };
		int n = build_pdu("submit_sm", 1, kv, NULL, 0, pdus[0], 300);
		assert_int_equal(smpp_decode_pdu(pdus[0], (uint32_t)n, 0, 0, &p[0]), 0);
		assert_int_equal(smpp_concat_view(&p[0], &c[0]), -EINVAL);
	}
	/* not a message PDU */
	{
		struct kv kv[] = { { "system_id", "x", 0 }, { NULL, NULL, 0 } };
		int n = build_pdu("bind_transmitter", 1, kv, NULL, 0, pdus[0], 300);
		assert_int_equal(smpp_decode_pdu(pdus[0], (uint32_t)n, 0, 0, &p[0]), 0);
		assert_int_equal(smpp_concat_view(&p[0], &c[0]), -ENOTSUP);
	}
}

static void
chk(const struct smpp_receipt *r, enum smpp_dlr_field f, const char *v)
{
	assert_true(r->present & (1u << f));
	assert_int_equal(r->len[f], strlen(v));
	assert_memory_equal(r->v[f], v, strlen(v));
}

static void
test_receipt(void **state)
{
	static const char std[] = "id:0123456789 sub:001 dlvrd:001 submit date:2401011200 "
		"done date:2401011201 stat:DELIVRD err:000 Text:Hello world";
	static const char vendor[] = "ID:ab-cd-ef SUBMIT_DATE:240101120000 Stat : UNDELIV "
		"err:0x0B extra:thing";
	struct smpp_receipt r;

	(void)state;
	assert_int_equal(smpp_receipt_parse(std, strlen(std), &r), 8);
	chk(&r, SMPP_DLR_ID, "0123456789");
	chk(&r, SMPP_DLR_SUB, "001");
	chk(&r, SMPP_DLR_DLVRD, "001");
	chk(&r, SMPP_DLR_SUBMIT_DATE, "2401011200");
	chk(&r, SMPP_DLR_DONE_DATE, "2401011201");
	chk(&r, SMPP_DLR_STAT, "DELIVRD");
	chk(&r, SMPP_DLR_ERR, "000");
	chk(&r, SMPP_DLR_TEXT, "Hello world");
	assert_int_equal(smpp_receipt_parse(vendor, strlen(vendor), &r), 4);
	chk(&r, SMPP_DLR_ID, "ab-cd-ef");
	chk(&r, SMPP_DLR_SUBMIT_DATE, "240101120000");
	chk(&r, SMPP_DLR_STAT, "UNDELIV");
	chk(&r, SMPP_DLR_ERR, "0x0B");
	assert_false(r.present & (1u << SMPP_DLR_DONE_DATE));
	assert_false(r.present & (1u << SMPP_DLR_TEXT));
	assert_int_equal(smpp_receipt_parse("no receipt here", 15, &r), 0);
	assert_int_equal(r.present, 0);
}

static int64_t
tparse(const char *s, int64_t now, int64_t *t)
{
	return smpp_time_parse((const uint8_t *)s, strlen(s), now, t);
}

static void
test_time(void **state)
{
	/* 2027-01-31 10:30:15.250 UTC */
	const int64_t now = 1801391415250LL;
	static const char *const bad[] = {
		"garbage_garbage1", "261301000000000+", "261100000000000+", "261132000000000+",
		"260431000000000+", "270229000000000+", "261126240000000+", "261126126000000+",
		"261126120060000+", "261126120000049+", "261126120000000X", "2611261200000 0+",
		"26112612000000+", "2611261200000000+", "000001000000100R", "000001000000001R",
		"0000010000000a0R", "-00001000000000R",
	};
	int64_t t = 42;
	char out[17];

	(void)state;
	assert_int_equal(smpp_time_parse(NULL, 0, now, &t), SMPP_TIME_NONE);
	assert_int_equal(t, 42);
	/* absolute: UTC, 4 quarter hours ahead, 8 behind, tenths */
	assert_int_equal(tparse("261126120000000+", now, &t), SMPP_TIME_ABS);
	assert_int_equal(t, 1795694400000LL);
	assert_int_equal(tparse("261126120000004+", now, &t), SMPP_TIME_ABS);
	assert_int_equal(t, 1795690800000LL);
	assert_int_equal(tparse("261126120000008-", now, &t), SMPP_TIME_ABS);
	assert_int_equal(t, 1795701600000LL);
	assert_int_equal(tparse("261126120000548+", now, &t), SMPP_TIME_ABS);
	assert_int_equal(t, 1795694400000LL + 500 - 12 * 3600000LL);
	assert_int_equal(tparse("280229000000000+", now, &t), SMPP_TIME_ABS);  /* leap */
	assert_int_equal(t, 1835395200000LL);
	/* relative: by the calendar (31 Jan + 1 month rolls into March) */
	assert_int_equal(tparse("000100000000000R", now, &t), SMPP_TIME_REL);
	assert_int_equal(t, 1804069815250LL);
	assert_int_equal(tparse("010000000000000R", now, &t), SMPP_TIME_REL);
	assert_int_equal(t, 1832927415250LL);
	assert_int_equal(tparse("000001020304000R", now, &t), SMPP_TIME_REL);
	assert_int_equal(t, 1801485199250LL);
	assert_int_equal(tparse("000000000000000R", now, &t), SMPP_TIME_REL);
	assert_int_equal(t, now);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tparse(bad[i], now, &t), -EINVAL);
	/* format: UTC, tenths kept, and read back */
	assert_int_equal(smpp_time_format(1795694400000LL + 700, out), 0);
	assert_string_equal(out, "261126120000700+");
	assert_int_equal(tparse(out, now, &t), SMPP_TIME_ABS);
	assert_int_equal(t, 1795694400000LL + 700);
	assert_int_equal(smpp_time_format(0, out), -ERANGE);          /* 1970 */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dcs),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_concat),
		cmocka_unit_test(test_receipt),
		cmocka_unit_test(test_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
