/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One concatenation view over the three ways SMPP carries a split message:
 * a UDH with an 8-bit (IEI 0x00) or 16-bit (IEI 0x08) reference
 * (GSM 03.40 9.2.3.24.1 / 9.2.3.24.8), or the sar_* TLVs (v3.4 5.3.2.22-24);
 * the text comes from short_message or message_payload (exactly one), plus
 * reassembly of the parts.
 */
#include <errno.h>
#include <string.h>

#include "smpp.h"

static int
udh_parse(const uint8_t *m, uint32_t n, struct smpp_concat *c)
{
	uint32_t udhl, pos = 1;

	if (n < 1 || (udhl = m[0]) + 1u > n)
		return -EINVAL;
	c->udh = m;
	c->udh_len = (uint16_t)(udhl + 1);
	while (pos < udhl + 1) {
		uint8_t iei, iel;

		if (udhl + 1 - pos < 2)
			return -EINVAL;
		iei = m[pos];
		iel = m[pos + 1];
		pos += 2;
		if (iel > udhl + 1 - pos)
			return -EINVAL;
		if (iei == 0x00 && iel == 3) {
			c->src = SMPP_CONCAT_UDH8;
			c->ref = m[pos];
			c->total = m[pos + 1];
			c->seq = m[pos + 2];
		} else if (iei == 0x08 && iel == 4) {
			c->src = SMPP_CONCAT_UDH16;
			c->ref = (uint16_t)(m[pos] << 8 | m[pos + 1]);
			c->total = m[pos + 2];
			c->seq = m[pos + 3];
		}
		pos += iel;
	}
	c->body = m + udhl + 1;
	c->body_len = n - udhl - 1;
	return 0;
}

int
smpp_concat_view(const struct smpp_pdu *p, struct smpp_concat *c)
{
	const struct smpp_view *sm = smpp_field(p, "short_message");
	const struct smpp_view *esm = smpp_field(p, "esm_class");
	struct smpp_tlv pl, r, t, s;
	int has_pl, nsar;
	const uint8_t *msg;
	uint32_t n;

	memset(c, 0, sizeof(*c));
	if (p->desc == NULL || p->error != ESME_ROK || esm == NULL)
		return -ENOTSUP;
	has_pl = smpp_tlv_get(p, SMPP_TLV_MESSAGE_PAYLOAD, &pl);
	if (has_pl && sm != NULL && sm->len > 0)
		return -EINVAL;     /* v3.4 5.3.2.32: exactly one of the two */
	if (has_pl) {
		msg = p->pdu + pl.off;
		n = pl.len;
		c->payload_tlv = 1;
	} else if (sm != NULL) {
		msg = p->pdu + sm->off;
		n = sm->len;
	} else {
		msg = p->pdu;   /* data_sm without message_payload: empty */
		n = 0;
	}
	c->total = c->seq = 1;
	c->body = msg;
	c->body_len = n;
	/* esm_class bit 6 (0x40): UDH indicator, v3.4 5.2.12 */
	if (p->pdu[esm->off] & 0x40) {
		if (udh_parse(msg, n, c) < 0)
			return -EINVAL;
	}
	if (c->src == SMPP_CONCAT_NONE) {
		nsar = smpp_tlv_get(p, SMPP_TLV_SAR_MSG_REF_NUM, &r) +
		       smpp_tlv_get(p, SMPP_TLV_SAR_TOTAL_SEGMENTS, &t) +
		       smpp_tlv_get(p, SMPP_TLV_SAR_SEGMENT_SEQNUM, &s);
		if (nsar == 3) {
			c->src = SMPP_CONCAT_SAR;
			c->ref = (uint16_t)(p->pdu[r.off] << 8 | p->pdu[r.off + 1]);
			c->total = p->pdu[t.off];
			c->seq = p->pdu[s.off];
		} else if (nsar != 0) {
			return -EINVAL;   /* the three sar_* TLVs go together */
		}
	}
	if (c->total == 0 || c->seq == 0 || c->seq > c->total)
		return -EINVAL;
	return 0;
}

int
smpp_concat_reassemble(const struct smpp_concat *parts, unsigned n,
		       uint8_t *out, size_t cap)
{
	const struct smpp_concat *by_seq[256] = { NULL };
	size_t pos = 0;
	unsigned total;

	if (n == 0)
		return -EAGAIN;
	total = parts[0].total;
	for (unsigned i = 0; i < n; i++) {
		const struct smpp_concat *c = &parts[i];

		if (c->total != total || c->ref != parts[0].ref ||
		    c->seq == 0 || c->seq > total || by_seq[c->seq] != NULL)
			return -EINVAL;
		by_seq[c->seq] = c;
	}
	if (n < total)
		return -EAGAIN;
	for (unsigned k = 1; k <= total; k++) {
		const struct smpp_concat *c = by_seq[k];

		if (cap - pos < c->body_len)
			return -ENOSPC;
		memcpy(out + pos, c->body, c->body_len);
		pos += c->body_len;
	}
	return (int)pos;
}
