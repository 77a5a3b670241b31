/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to the SMPP library: its tables as the decoder reads them
 * (smpp_decode.h; defined by smpp_table.c, copied by the GPU backend), the
 * decoders chosen for this CPU, and the compact record's helpers.
 */
#ifndef SMPP_PRIV_H
#define SMPP_PRIV_H

#include "smpp.h"
#include "smpp_decode.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMPP_HIDDEN __attribute__((visibility("hidden")))

/* The PDU table, by SMPP_PDU_KEY, and the TLV table, by tag: one load
 * each, which the per-TLV lookup measurably needs (a call per TLV cost
 * ~15 % of a thesis-mix decode). */
extern const uint8_t smpp_pdu_idx[SMPP_PDU_KEYS] SMPP_HIDDEN;
extern const struct smpp_pdu_desc smpp_pdu_tab[] SMPP_HIDDEN;
extern const unsigned smpp_pdu_count SMPP_HIDDEN;
extern const uint8_t smpp_tlv_idx[SMPP_TLV_IDX_SIZE] SMPP_HIDDEN;
extern const struct smpp_tlv_desc smpp_tlv_tab[] SMPP_HIDDEN;

/* The same in one struct; static, so that the compiler reads the arrays'
 * addresses from here without a load. */
static const struct smpp_dec_tab smpp_host_tab = {
	smpp_pdu_idx, smpp_pdu_tab, smpp_tlv_idx, smpp_tlv_tab,
};

/* Record of a decoded PDU, its framing fields (pdu_off, corr_len,
 * elem_back) aside; base: the PDU's input offset used for p->error_off. */
void smpp_rec_pack(const struct smpp_pdu *p, uint64_t base, struct smpp_rec *r) SMPP_HIDDEN;

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

/*
 * The decoders of one instruction set (smpp_dec_isa.c).  The best one the
 * CPU runs is chosen when the library loads, so a build for the baseline
 * x86-64 still decodes with AVX2 or AVX-512 where the CPU has them.
 */
struct smpp_dec_isa {
	const char *name;         /* "avx512", "avx2", "generic" */
	int (*pdu)(const uint8_t *b, uint32_t len, unsigned flags, uint64_t base,
		   struct smpp_pdu *o);
	/* smpp_decode_pdu_rec with a shape kept across calls (NULL: none) */
	int (*rec)(const uint8_t *b, uint32_t len, unsigned flags, struct smpp_rec *r,
		   struct smpp_tlv_shape *sh);
};
extern struct smpp_dec_isa smpp_dec SMPP_HIDDEN;

/* Use the decoders named name ("avx512", "avx2", "generic"): 0, -ENOENT
 * for an unknown name, -ENOTSUP when this CPU lacks the instructions.  For
 * tests and benches; not while other threads decode. */
int smpp_dec_isa_select(const char *name) SMPP_HIDDEN;

static inline int
smpp_decode_pdu_rec_sh(const uint8_t *b, uint32_t len, unsigned flags,
		       struct smpp_rec *r, struct smpp_tlv_shape *sh)
{
	return smpp_dec.rec(b, len, flags, r, sh);
}

#ifdef __cplusplus
}
#endif

#endif /* SMPP_PRIV_H */
