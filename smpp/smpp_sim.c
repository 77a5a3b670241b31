/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workload generation after Weerasinghe 2017, 4.1: SUBMIT_SM PDUs with
 * distinct source and destination addresses, messages of a configurable
 * length (default 20 characters) and a configurable number of TLVs
 * (default 5).  Used by the bench, the tuner and the tests, so that they
 * all decode the same mix.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "smpp.h"

void
smpp_sim_config_default(struct smpp_sim_config *c)
{
	c->msg_len = 20;
	c->ntlv = 5;
	c->command_id = SMPP_SUBMIT_SM;
}

/* The TLVs cycle through ones submit_sm and deliver_sm both allow (v3.4
 * 4.4.1, 4.6.1), so strict decoding accepts them; values vary with i. */
int
smpp_sim_pdu(const struct smpp_sim_config *c, uint32_t i, uint8_t *buf, size_t cap)
{
	static const uint16_t tags[] = {
		SMPP_TLV_SAR_MSG_REF_NUM, SMPP_TLV_SAR_TOTAL_SEGMENTS,
		SMPP_TLV_SAR_SEGMENT_SEQNUM, SMPP_TLV_USER_MESSAGE_REFERENCE,
		SMPP_TLV_SOURCE_PORT, SMPP_TLV_DESTINATION_PORT,
		SMPP_TLV_LANGUAGE_INDICATOR, SMPP_TLV_PAYLOAD_TYPE,
	};
	static const uint8_t lens[] = { 2, 1, 1, 2, 2, 2, 1, 1 };
	struct smpp_tlv_value tlv[64];
	uint8_t tv[64][2], msg[254];
	char src[24], dst[24];
	struct smpp_msg m;
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find(c->command_id);

	if (d == NULL || c->msg_len > 254 || c->ntlv > 64 ||
	    (c->command_id != SMPP_SUBMIT_SM && c->command_id != SMPP_DELIVER_SM))
		return -EINVAL;
	snprintf(src, sizeof(src), "9477%07u", i % 10000000u);
	snprintf(dst, sizeof(dst), "9471%07u", (i * 7919u) % 10000000u);
	for (unsigned k = 0; k < c->msg_len; k++)
		msg[k] = (uint8_t)('a' + (i + k * 7) % 26);
	memset(&m, 0, sizeof(m));
	m.command_id = c->command_id;
	m.sequence_number = i + 1;
	m.v[1].u = 1;                      /* source_addr_ton: international */
	m.v[2].u = 1;                      /* source_addr_npi: E.164 */
	m.v[3].p = (const uint8_t *)src;
	m.v[3].len = (uint32_t)strlen(src);
	m.v[4].u = 1;
	m.v[5].u = 1;
	m.v[6].p = (const uint8_t *)dst;
	m.v[6].len = (uint32_t)strlen(dst);
	m.v[12].u = 1;                     /* registered_delivery */
	m.v[17].p = msg;
	m.v[17].len = c->msg_len;
	for (unsigned k = 0; k < c->ntlv; k++) {
		unsigned t = k % (sizeof(tags) / sizeof(tags[0]));
		tv[k][0] = (uint8_t)(i >> 8);
		tv[k][1] = (uint8_t)(i | 1);
		tlv[k].tag = tags[t];
		tlv[k].len = lens[t];
		tlv[k].p = lens[t] == 2 ? tv[k] : tv[k] + 1;
	}
	m.tlv = tlv;
	m.ntlv = c->ntlv;
	return smpp_encode(&m, buf, cap);
}

int
smpp_sim_stream(const struct smpp_sim_config *c, const struct smpp_config *fr,
		uint32_t first, uint32_t n, uint8_t *buf, size_t cap)
{
	uint8_t pdu[1024], corr[256];
	size_t len = 0;

	if (fr->framing == SMPP_FRAME_ELEMENT && fr->corr_len > sizeof(corr))
		return -EINVAL;
	for (uint32_t i = first; i < first + n; i++) {
		int pl = smpp_sim_pdu(c, i, pdu, sizeof(pdu));
		int r;

		if (pl < 0)
			return pl;
		memset(corr, 0, sizeof(corr));
		for (unsigned k = 0; k < 4 && k < fr->corr_len; k++)
			corr[k] = (uint8_t)(i >> (24 - 8 * k));
		r = smpp_element_append(fr, buf, cap, len, corr, pdu, (uint32_t)pl);
		if (r < 0)
			return r;
		len = (size_t)r;
	}
	return len > INT32_MAX ? -E2BIG : (int)len;
}
