/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the SMPP library: the TLV table and its tag index, shared by
 * smpp_table.c (which defines them) and the decoder, which inlines the
 * per-TLV lookup (a call per TLV cost ~15 % of a thesis-mix decode).
 */
#ifndef SMPP_PRIV_H
#define SMPP_PRIV_H

#include "smpp.h"

/* Every v3.4 tag is below the vendor range 0x1400. */
#define SMPP_TLV_IDX_SIZE 0x1400

/* tag -> 1 + index into smpp_tlv_tab, 0 for tags v3.4 does not define */
extern const uint8_t smpp_tlv_idx[SMPP_TLV_IDX_SIZE]
	__attribute__((visibility("hidden")));
extern const struct smpp_tlv_desc smpp_tlv_tab[]
	__attribute__((visibility("hidden")));

static inline unsigned
smpp_tlv_lookup(uint16_t tag)
{
	return tag < SMPP_TLV_IDX_SIZE ? smpp_tlv_idx[tag] : 0;
}

/* Record of a decoded PDU, its framing fields (pdu_off, corr_len,
 * elem_back) aside; base: the PDU's input offset used for p->error_off. */
void smpp_rec_pack(const struct smpp_pdu *p, uint64_t base, struct smpp_rec *r)
	__attribute__((visibility("hidden")));

/* The TLV headers of the last PDU a batch loop decoded on the fast path
 * (command id, area length, each header's place and tag/length word), for
 * smpp_decode_pdu_rec_sh to recognise a PDU whose TLVs repeat them.
 * command_id 0: empty. */
#define SMPP_SHAPE_MAX 8
struct smpp_tlv_shape {
	uint32_t command_id;
	uint32_t area_len;
	uint32_t misses;          /* walks since the last hit */
	uint16_t ntlv;
	uint16_t pos[SMPP_SHAPE_MAX];
	uint32_t hdr[SMPP_SHAPE_MAX];
};

/* smpp_decode_pdu_rec with a shape kept across calls (NULL: none). */
int smpp_decode_pdu_rec_sh(const uint8_t *b, uint32_t len, unsigned flags,
			   struct smpp_rec *r, struct smpp_tlv_shape *sh)
	__attribute__((visibility("hidden")));

#endif /* SMPP_PRIV_H */
