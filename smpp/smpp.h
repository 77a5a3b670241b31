/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * heteroplane SMPP library: public API.
 *
 * An SMPP v3.4 codec (every PDU of the specification) and a batch decoder
 * after Weerasinghe 2017, ch. 3.3.  Decoded fields are views (offset, length)
 * into the caller's input; nothing is copied.  Errors are reported per PDU
 * with the ESME_R* status an SMSC would answer with and the byte offset of
 * the fault; a bad PDU never stops a batch.  No DPDK dependency.
 *
 * Threading: a struct smpp_ctx is used by one caller at a time (it owns the
 * scratch memory of the batch decoder); the per-PDU functions are reentrant.
 */
#ifndef SMPP_H
#define SMPP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- protocol constants (SMPP v3.4, sections 5.1.2 and 5.1.3) ---------- */

#define SMPP_HEADER_LEN       16u
#define SMPP_RESP_BIT         0x80000000u

enum smpp_cmd {
	SMPP_GENERIC_NACK          = 0x80000000u,
	SMPP_BIND_RECEIVER         = 0x00000001u,
	SMPP_BIND_RECEIVER_RESP    = 0x80000001u,
	SMPP_BIND_TRANSMITTER      = 0x00000002u,
	SMPP_BIND_TRANSMITTER_RESP = 0x80000002u,
	SMPP_QUERY_SM              = 0x00000003u,
	SMPP_QUERY_SM_RESP         = 0x80000003u,
	SMPP_SUBMIT_SM             = 0x00000004u,
	SMPP_SUBMIT_SM_RESP        = 0x80000004u,
	SMPP_DELIVER_SM            = 0x00000005u,
	SMPP_DELIVER_SM_RESP       = 0x80000005u,
	SMPP_UNBIND                = 0x00000006u,
	SMPP_UNBIND_RESP           = 0x80000006u,
	SMPP_REPLACE_SM            = 0x00000007u,
	SMPP_REPLACE_SM_RESP       = 0x80000007u,
	SMPP_CANCEL_SM             = 0x00000008u,
	SMPP_CANCEL_SM_RESP        = 0x80000008u,
	SMPP_BIND_TRANSCEIVER      = 0x00000009u,
	SMPP_BIND_TRANSCEIVER_RESP = 0x80000009u,
	SMPP_OUTBIND               = 0x0000000Bu,
	SMPP_ENQUIRE_LINK          = 0x00000015u,
	SMPP_ENQUIRE_LINK_RESP     = 0x80000015u,
	SMPP_SUBMIT_MULTI          = 0x00000021u,
	SMPP_SUBMIT_MULTI_RESP     = 0x80000021u,
	SMPP_ALERT_NOTIFICATION    = 0x00000102u,
	SMPP_DATA_SM               = 0x00000103u,
	SMPP_DATA_SM_RESP          = 0x80000103u,
};

/* command_status values (v3.4 table 5-2) the decoder reports. */
enum smpp_status {
	ESME_ROK              = 0x00,
	ESME_RINVMSGLEN       = 0x01,
	ESME_RINVCMDLEN       = 0x02,
	ESME_RINVCMDID        = 0x03,
	ESME_RINVBNDSTS       = 0x04,
	ESME_RALYBND          = 0x05,
	ESME_RSYSERR          = 0x08,
	ESME_RINVSRCADR       = 0x0A,
	ESME_RINVDSTADR       = 0x0B,
	ESME_RINVMSGID        = 0x0C,
	ESME_RBINDFAIL        = 0x0D,
	ESME_RINVPASWD        = 0x0E,
	ESME_RINVSYSID        = 0x0F,
	ESME_RCANCELFAIL      = 0x11,
	ESME_RREPLACEFAIL     = 0x13,
	ESME_RMSGQFUL         = 0x14,
	ESME_RINVSERTYP       = 0x15,
	ESME_RINVNUMDESTS     = 0x33,
	ESME_RINVDLNAME       = 0x34,
	ESME_RINVDESTFLAG     = 0x40,
	ESME_RINVSYSTYP       = 0x53,
	ESME_RTHROTTLED       = 0x58,
	ESME_RINVSCHED        = 0x61,
	ESME_RINVEXPIRY       = 0x62,
	ESME_RQUERYFAIL       = 0x67,
	ESME_RINVOPTPARSTREAM = 0xC0,
	ESME_ROPTPARNOTALLWD  = 0xC1,
	ESME_RINVPARLEN       = 0xC2,
	ESME_RMISSINGOPTPARAM = 0xC3,
	ESME_RINVOPTPARAMVAL  = 0xC4,
	ESME_RUNKNOWNERR      = 0xFF,
};

/* Optional parameter tags (v3.4 section 5.3.2, table 5-10). */
enum smpp_tlv_tag {
	SMPP_TLV_DEST_ADDR_SUBUNIT          = 0x0005,
	SMPP_TLV_DEST_NETWORK_TYPE          = 0x0006,
	SMPP_TLV_DEST_BEARER_TYPE           = 0x0007,
	SMPP_TLV_DEST_TELEMATICS_ID         = 0x0008,
	SMPP_TLV_SOURCE_ADDR_SUBUNIT        = 0x000D,
	SMPP_TLV_SOURCE_NETWORK_TYPE        = 0x000E,
	SMPP_TLV_SOURCE_BEARER_TYPE         = 0x000F,
	SMPP_TLV_SOURCE_TELEMATICS_ID       = 0x0010,
	SMPP_TLV_QOS_TIME_TO_LIVE           = 0x0017,
	SMPP_TLV_PAYLOAD_TYPE               = 0x0019,
	SMPP_TLV_ADDITIONAL_STATUS_INFO_TEXT = 0x001D,
	SMPP_TLV_RECEIPTED_MESSAGE_ID       = 0x001E,
	SMPP_TLV_MS_MSG_WAIT_FACILITIES     = 0x0030,
	SMPP_TLV_PRIVACY_INDICATOR          = 0x0201,
	SMPP_TLV_SOURCE_SUBADDRESS          = 0x0202,
	SMPP_TLV_DEST_SUBADDRESS            = 0x0203,
	SMPP_TLV_USER_MESSAGE_REFERENCE     = 0x0204,
	SMPP_TLV_USER_RESPONSE_CODE         = 0x0205,
	SMPP_TLV_SOURCE_PORT                = 0x020A,
	SMPP_TLV_DESTINATION_PORT           = 0x020B,
	SMPP_TLV_SAR_MSG_REF_NUM            = 0x020C,
	SMPP_TLV_LANGUAGE_INDICATOR         = 0x020D,
	SMPP_TLV_SAR_TOTAL_SEGMENTS         = 0x020E,
	SMPP_TLV_SAR_SEGMENT_SEQNUM         = 0x020F,
	SMPP_TLV_SC_INTERFACE_VERSION       = 0x0210,
	SMPP_TLV_CALLBACK_NUM_PRES_IND      = 0x0302,
	SMPP_TLV_CALLBACK_NUM_ATAG          = 0x0303,
	SMPP_TLV_NUMBER_OF_MESSAGES         = 0x0304,
	SMPP_TLV_CALLBACK_NUM               = 0x0381,
	SMPP_TLV_DPF_RESULT                 = 0x0420,
	SMPP_TLV_SET_DPF                    = 0x0421,
	SMPP_TLV_MS_AVAILABILITY_STATUS     = 0x0422,
	SMPP_TLV_NETWORK_ERROR_CODE         = 0x0423,
	SMPP_TLV_MESSAGE_PAYLOAD            = 0x0424,
	SMPP_TLV_DELIVERY_FAILURE_REASON    = 0x0425,
	SMPP_TLV_MORE_MESSAGES_TO_SEND      = 0x0426,
	SMPP_TLV_MESSAGE_STATE              = 0x0427,
	SMPP_TLV_USSD_SERVICE_OP            = 0x0501,
	SMPP_TLV_DISPLAY_TIME               = 0x1201,
	SMPP_TLV_SMS_SIGNAL                 = 0x1203,
	SMPP_TLV_MS_VALIDITY                = 0x1204,
	SMPP_TLV_ALERT_ON_MESSAGE_DELIVERY  = 0x130C,
	SMPP_TLV_ITS_REPLY_TYPE             = 0x1380,
	SMPP_TLV_ITS_SESSION_INFO           = 0x1383,
};

/* ---- the field tables --------------------------------------------------- */

/* Mandatory parameter types (v3.4 section 3.1). */
enum smpp_ftype {
	SMPP_FT_U8,       /* Integer, 1 octet */
	SMPP_FT_CSTR,     /* C-Octet String, NUL terminated, max incl. NUL */
	SMPP_FT_TIME,     /* C-Octet String of 1 (empty) or 17 octets */
	SMPP_FT_SMLEN,    /* Integer, 1 octet: length of the next field */
	SMPP_FT_OSTR,     /* Octet String, length from the preceding SMLEN */
	SMPP_FT_DESTS,    /* submit_multi dest_address list, count from previous */
	SMPP_FT_UNSUCC,   /* submit_multi_resp unsuccess_sme list, count from previous */
};

struct smpp_field_desc {
	const char *name;
	uint8_t type;     /* enum smpp_ftype */
	uint8_t max;      /* CSTR/TIME: max octets incl. NUL; OSTR: max octets */
	uint8_t err;      /* ESME_R* status when this field is malformed */
};

#define SMPP_MAX_FIELDS 18

struct smpp_pdu_desc {
	uint32_t command_id;
	const char *name;
	uint8_t nfields;
	uint8_t resp_body_optional; /* response: body may be absent if status != 0 */
	uint64_t tlv_allowed;       /* bit i: smpp_tlv_desc_at(i) allowed (v3.4 ch. 4) */
	const struct smpp_field_desc *fields;
};

enum smpp_tlv_type {
	SMPP_TT_INT,      /* integer of exactly min (= max) octets */
	SMPP_TT_CSTR,     /* C-Octet String */
	SMPP_TT_OSTR,     /* Octet String */
	SMPP_TT_EMPTY,    /* no value (alert_on_message_delivery) */
};

struct smpp_tlv_desc {
	uint16_t tag;
	uint8_t type;     /* enum smpp_tlv_type */
	uint16_t min;     /* value length bounds */
	uint16_t max;
	const char *name;
};

/* Table lookups; NULL when unknown. */
const struct smpp_pdu_desc *smpp_pdu_desc_find(uint32_t command_id);
const struct smpp_pdu_desc *smpp_pdu_desc_by_name(const char *name);
const struct smpp_tlv_desc *smpp_tlv_desc_find(uint16_t tag);
const struct smpp_tlv_desc *smpp_tlv_desc_by_name(const char *name);
const struct smpp_tlv_desc *smpp_tlv_desc_at(unsigned idx);
unsigned smpp_tlv_desc_count(void);
/* Field index by name within a PDU, or -ENOENT. */
int smpp_field_index(const struct smpp_pdu_desc *d, const char *name);
/* "ESME_RINVCMDLEN" etc.; "ESME_R?" for values the table does not know. */
const char *smpp_status_name(uint32_t status);

/* ---- decoded PDU: views into the input ----------------------------------- */

struct smpp_view {
	uint16_t off;     /* from the PDU's first byte */
	uint16_t len;     /* CSTR/TIME: without the NUL */
};

struct smpp_tlv {
	uint16_t tag;
	uint16_t len;
	uint32_t off;     /* value offset from the PDU's first byte */
};

#define SMPP_TLV_INLINE 8

struct smpp_pdu {
	const uint8_t *pdu;       /* first byte of the PDU (its header) */
	uint64_t off;             /* element offset in the batch input */
	uint32_t len;             /* bytes framed as this PDU */
	uint64_t corr_off;        /* correlation id offset in the input */
	uint16_t corr_len;        /* 0 in plain framing */
	uint16_t error;           /* ESME_R* status; ESME_ROK when the PDU is good */
	uint64_t error_off;       /* input offset of the fault (when error) */
	uint32_t command_length, command_id, command_status, sequence_number;
	const struct smpp_pdu_desc *desc;   /* NULL for an unknown command_id */
	uint16_t nfields;         /* mandatory fields decoded (<= desc->nfields) */
	uint16_t ntlv;            /* TLVs in the PDU (all of them, see tlv[]) */
	uint32_t tlv_area_off;    /* optional part: offset from PDU start ... */
	uint32_t tlv_area_len;    /* ... and length, for smpp_tlv_iter */
	struct smpp_view f[SMPP_MAX_FIELDS];
	struct smpp_tlv tlv[SMPP_TLV_INLINE]; /* first min(ntlv, INLINE) TLVs */
};

/* Decoder flags. */
#define SMPP_F_STRICT   0x1u  /* TLVs not allowed for the PDU (v3.4 ch. 4) and
                               * reserved unknown tags are ESME_ROPTPARNOTALLWD */

/*
 * Decode one PDU of exactly len bytes (len as framed, normally its
 * command_length).  Fills *out and returns its status (ESME_ROK or an
 * ESME_R* value, also in out->error).  base_off is added to error offsets.
 */
int smpp_decode_pdu(const uint8_t *pdu, uint32_t len, unsigned flags,
		    uint64_t base_off, struct smpp_pdu *out);

/* Field accessors; return 0 / empty for fields the PDU does not have. */
const struct smpp_view *smpp_field(const struct smpp_pdu *p, const char *name);
uint32_t smpp_field_u(const struct smpp_pdu *p, unsigned idx);
static inline const uint8_t *smpp_view_ptr(const struct smpp_pdu *p,
					   const struct smpp_view *v)
{
	return p->pdu + v->off;
}

/* Walk all TLVs of a decoded PDU (also those beyond tlv[]): set *it = 0,
 * then call until it returns 0.  Returns 1 and fills *t per TLV. */
int smpp_tlv_iter(const struct smpp_pdu *p, uint32_t *it, struct smpp_tlv *t);
/* First TLV with tag, or NULL-like: returns 1 and fills *t, 0 if absent. */
int smpp_tlv_get(const struct smpp_pdu *p, uint16_t tag, struct smpp_tlv *t);

/* submit_multi lists: walk entries of the DESTS / UNSUCC field. */
struct smpp_dest {
	uint8_t dest_flag;        /* 1 SME address, 2 distribution list; UNSUCC: 1 */
	uint8_t ton, npi;
	const uint8_t *addr;      /* address or dl_name, without NUL */
	uint16_t addr_len;
	uint32_t error_status;    /* UNSUCC only */
};
int smpp_list_iter(const struct smpp_pdu *p, unsigned idx, uint32_t *it,
		   struct smpp_dest *d);

/* Print one decoded PDU as a JSON object on one line (with '\n'). */
int smpp_pdu_print_json(FILE *f, const struct smpp_pdu *p, const uint8_t *in);

/* ---- encoding ------------------------------------------------------------ */

struct smpp_value {
	const uint8_t *p;         /* CSTR/TIME (no NUL), OSTR, raw list bytes */
	uint32_t len;
	uint32_t u;               /* U8 value; DESTS/UNSUCC: entry count */
};

struct smpp_tlv_value {
	uint16_t tag;
	uint16_t len;
	const uint8_t *p;
};

struct smpp_msg {
	uint32_t command_id, command_status, sequence_number;
	/* Response with status != 0 and no_body set: header only (v3.4 4.x.2). */
	int no_body;
	struct smpp_value v[SMPP_MAX_FIELDS];   /* by field index of the table */
	const struct smpp_tlv_value *tlv;
	unsigned ntlv;
};

/*
 * Encode msg into buf.  SMLEN fields take the length of the following OSTR;
 * the count field before a list is taken from that list's value.u.
 * Returns the PDU length, -ENOSPC if cap is too small, -EINVAL for a value
 * the table forbids (CSTR too long, short_message > 254, unknown command).
 */
int smpp_encode(const struct smpp_msg *msg, uint8_t *buf, size_t cap);
/* Fill msg from a decoded PDU (views; tlv points to caller's array of cap). */
int smpp_msg_from_pdu(const struct smpp_pdu *p, struct smpp_msg *msg,
		      struct smpp_tlv_value *tlv, unsigned cap);
/* Append one submit_multi dest_address entry to a list buffer; returns the
 * new length or -ENOSPC/-EINVAL. dest_flag 2 ignores ton/npi. */
int smpp_dest_append(uint8_t *buf, size_t cap, size_t len, uint8_t dest_flag,
		     uint8_t ton, uint8_t npi, const char *addr);

/* ---- batch decoding (Weerasinghe 3.3.2, 3.3.3) -------------------------- */

enum smpp_mode {
	SMPP_MODE_CPU = 0,     /* boundary marking + decoding on N pthreads */
	SMPP_MODE_AUTO,        /* GPU at or above gpu_threshold PDUs when one is
	                        * registered, CPU otherwise */
	SMPP_MODE_GPU,         /* CPU boundary marking, GPU decoding */
	SMPP_MODE_GPU_FUSED,   /* both on the GPU (dynamic parallelism) */
	SMPP_MODE_COUNT
};

enum smpp_framing {
	SMPP_FRAME_PLAIN = 0,  /* concatenated PDUs framed by command_length */
	SMPP_FRAME_ELEMENT,    /* [correlation id | PDU | end marker] elements */
};

#define SMPP_MARKER_MAX 16

struct smpp_config {
	unsigned threads;            /* >= 1 */
	uint32_t max_pdu_len;        /* command_length above this: ESME_RINVCMDLEN */
	enum smpp_framing framing;
	uint16_t corr_len;           /* ELEMENT framing: correlation id octets */
	uint8_t marker_len;          /* ELEMENT framing: end marker octets (>= 1) */
	uint8_t marker[SMPP_MARKER_MAX];
	uint32_t gpu_threshold;      /* AUTO: PDUs from which a GPU is used */
	uint32_t min_parallel;       /* PDUs (estimated) below which one thread runs */
	unsigned flags;              /* SMPP_F_* */
};

/* Defaults: 1 thread, max 65536, plain, corr 8, marker "\xfe\xed\xfa\xce"
 * (4 octets), gpu_threshold 10000, min_parallel 4096. */
void smpp_config_default(struct smpp_config *cfg);

struct smpp_ctx;
/* Returns 0 and *ctx, or -EINVAL (bad config) / -ENOMEM. */
int smpp_ctx_create(const struct smpp_config *cfg, struct smpp_ctx **ctx);
void smpp_ctx_free(struct smpp_ctx *ctx);
const struct smpp_config *smpp_ctx_config(const struct smpp_ctx *ctx);

struct smpp_batch {
	struct smpp_pdu *pdus;   /* grown by the decoder as needed */
	size_t n, cap;
	size_t nerr;             /* PDUs with error != ESME_ROK */
	enum smpp_mode mode_used;
};
void smpp_batch_init(struct smpp_batch *b);
void smpp_batch_free(struct smpp_batch *b);

/*
 * Decode every element of in[0..len).  Returns 0 (per-PDU errors are in
 * out->pdus[i].error), -EINVAL for bad arguments, -ENOMEM, or -ENOTSUP for
 * a GPU mode when no GPU backend is registered.
 */
int smpp_decode_batch(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
		      enum smpp_mode mode, struct smpp_batch *out);

/* A decoder for the GPU modes: given the framed out->pdus (off/len/corr set
 * by the CPU boundary marking for SMPP_MODE_GPU; empty for GPU_FUSED),
 * decodes them.  The GPU issue registers its kernels here. */
typedef int (*smpp_backend_fn)(struct smpp_ctx *ctx, const uint8_t *in,
			       size_t len, struct smpp_batch *out);
int smpp_backend_register(enum smpp_mode mode, smpp_backend_fn fn);

/* Boundary marking only (exposed for tools, tests and the GPU backends). */
int smpp_frame_batch(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
		     struct smpp_batch *out);

/* ---- compact records: the batch result in 64 octets per PDU ------------- */

/*
 * What struct smpp_pdu says, in one cache line: offsets relative to the
 * batch input and the PDU, field views as lengths (a field starts where the
 * one before it ends, plus its NUL for C-strings: smpp_rec_field), TLVs as
 * the count and the area they lie in (smpp_rec_tlv walks it).  For large
 * batches the 224-octet struct smpp_pdu is more than the PDU itself (~103
 * octets for the thesis mix) and decoding became a memory stream; this
 * form writes 64.  Inputs below 4 GiB; smpp_rec_expand gives the full
 * struct back.
 */
struct smpp_rec {
	uint32_t pdu_off;         /* PDU's first octet, from the input start */
	uint32_t len;             /* octets framed as this PDU */
	uint32_t command_id, command_status, sequence_number;
	uint32_t error_off;       /* fault, from the PDU's first octet */
	uint16_t error;           /* ESME_R* status; ESME_ROK when good */
	uint16_t corr_len;        /* 0 in plain framing */
	uint16_t elem_back;       /* pdu_off - element (correlation id) offset */
	uint16_t ntlv;            /* TLVs (all of them) */
	uint16_t tlv_area_off;    /* optional part, from the PDU start; 0: not reached */
	uint16_t list_len;        /* octets of the list field (submit_multi[_resp]) */
	uint32_t nul_mask;        /* bit k: field k is a C-string (NUL after it) */
	uint8_t flen[SMPP_MAX_FIELDS]; /* field lengths (the list field: 0) */
	uint8_t nfields;          /* mandatory fields decoded */
	uint8_t list_idx;         /* index of the list field, 0xff: none */
	uint8_t rsv[4];
};

struct smpp_rbatch {
	struct smpp_rec *recs;    /* grown by the decoder as needed */
	size_t n, cap;
	size_t nerr;
	enum smpp_mode mode_used;
};
void smpp_rbatch_init(struct smpp_rbatch *b);
void smpp_rbatch_free(struct smpp_rbatch *b);

/*
 * smpp_decode_batch with compact records: the same PDUs, statuses, fault
 * offsets and views.  Returns 0, -EINVAL, -ENOMEM, -ENOTSUP (GPU mode
 * without backend) or -E2BIG (len of 4 GiB or more).  The GPU modes decode
 * through smpp_decode_batch and pack its records.
 */
int smpp_decode_batch_rec(struct smpp_ctx *ctx, const uint8_t *in, size_t len,
			  enum smpp_mode mode, struct smpp_rbatch *out);
/* One PDU of exactly len octets into r (all but the framing fields pdu_off,
 * corr_len, elem_back, which it leaves alone); returns its status. */
int smpp_decode_pdu_rec(const uint8_t *pdu, uint32_t len, unsigned flags,
			struct smpp_rec *r);
/* Field k's view (offset from the PDU start, length); 0, or -ENOENT when k
 * is not a decoded field. */
int smpp_rec_field(const struct smpp_rec *r, unsigned k, struct smpp_view *v);
/* The full struct smpp_pdu of a record decoded from input in. */
void smpp_rec_expand(const struct smpp_rec *r, const uint8_t *in,
		     struct smpp_pdu *p);

/* Append one element in ctx's framing to buf: returns new length or -ENOSPC. */
int smpp_element_append(const struct smpp_config *cfg, uint8_t *buf, size_t cap,
			size_t len, const uint8_t *corr, const uint8_t *pdu,
			uint32_t pdu_len);

/* ---- helpers: data_coding (v3.4 5.2.19, GSM 03.38 ch. 4) ---------------- */

enum smpp_charset {
	SMPP_CS_GSM7 = 0,      /* GSM 03.38 default alphabet, one septet per octet */
	SMPP_CS_GSM7_PACKED,   /* septets packed 8 in 7 octets */
	SMPP_CS_ASCII,         /* IA5 */
	SMPP_CS_LATIN1,
	SMPP_CS_UCS2,          /* big endian, surrogate pairs accepted */
	SMPP_CS_BINARY,        /* raw octets */
	SMPP_CS_UNKNOWN,       /* reserved / compressed / national: raw only */
};

/* Charset for a data_coding value; dcs 0 ("SMSC default") maps to dflt. */
enum smpp_charset smpp_dcs_charset(uint8_t dcs, enum smpp_charset dflt);
const char *smpp_charset_name(enum smpp_charset cs);
/*
 * Decode text into UTF-8 (NUL terminated). Returns the UTF-8 length,
 * -EILSEQ for odd-length UCS-2 (the raw octets stay available to the
 * caller), -ENOTSUP for BINARY/UNKNOWN, -ENOSPC when out is too small.
 */
int smpp_text_to_utf8(const uint8_t *p, size_t n, enum smpp_charset cs,
		      char *out, size_t cap);
/* UTF-8 to unpacked GSM 7-bit (with 0x1B escapes). -EILSEQ when a character
 * has no GSM 7-bit form, -ENOSPC. */
int smpp_utf8_to_gsm7(const char *s, size_t n, uint8_t *out, size_t cap);

/* ---- helpers: concatenation (GSM 03.40 9.2.3.24.1/.8, v3.4 5.3.2.22-24) -- */

enum smpp_concat_src {
	SMPP_CONCAT_NONE = 0, SMPP_CONCAT_UDH8, SMPP_CONCAT_UDH16, SMPP_CONCAT_SAR,
};

struct smpp_concat {
	enum smpp_concat_src src;
	uint16_t ref;
	uint8_t total, seq;       /* 1 / 1 for a message that is not split */
	int payload_tlv;          /* text came from message_payload */
	const uint8_t *udh;       /* whole UDH incl. its length octet, or NULL */
	uint16_t udh_len;
	const uint8_t *body;      /* text after the UDH */
	uint32_t body_len;
};

/* Concatenation view of submit_sm/deliver_sm/data_sm/submit_multi.
 * Returns 0, -EINVAL (both short_message and message_payload present, or a
 * broken UDH), -ENOTSUP (a PDU without a message). */
int smpp_concat_view(const struct smpp_pdu *p, struct smpp_concat *c);
/* Joins the bodies of the parts of one message (any order). Returns the
 * length, -EAGAIN when parts are missing, -EINVAL for mixed refs/totals or a
 * duplicate, -ENOSPC. */
int smpp_concat_reassemble(const struct smpp_concat *parts, unsigned n,
			   uint8_t *out, size_t cap);

/* ---- helpers: delivery receipts (v3.4 appendix B, vendor variants) ------ */

enum smpp_dlr_field {
	SMPP_DLR_ID = 0, SMPP_DLR_SUB, SMPP_DLR_DLVRD, SMPP_DLR_SUBMIT_DATE,
	SMPP_DLR_DONE_DATE, SMPP_DLR_STAT, SMPP_DLR_ERR, SMPP_DLR_TEXT,
	SMPP_DLR_NFIELDS
};

struct smpp_receipt {
	unsigned present;         /* bit per enum smpp_dlr_field */
	const char *v[SMPP_DLR_NFIELDS];
	uint16_t len[SMPP_DLR_NFIELDS];
};

/* Lenient parse: keys in any order and case, "submit date" or
 * "submit_date", extra keys ignored. Returns the number of fields found. */
int smpp_receipt_parse(const char *s, size_t n, struct smpp_receipt *r);

/* ---- helpers: time fields (v3.4 7.1.1) ---------------------------------- */

/* message_state (v3.4 5.2.28) */
enum smpp_msg_state {
	SMPP_STATE_ENROUTE = 1, SMPP_STATE_DELIVERED, SMPP_STATE_EXPIRED,
	SMPP_STATE_DELETED, SMPP_STATE_UNDELIVERABLE, SMPP_STATE_ACCEPTED,
	SMPP_STATE_UNKNOWN, SMPP_STATE_REJECTED,
};

enum smpp_time_kind { SMPP_TIME_NONE = 0, SMPP_TIME_ABS, SMPP_TIME_REL };

/*
 * A schedule_delivery_time / validity_period / final_date value as decoded
 * (without its NUL): empty, absolute "YYMMDDhhmmsstnnp" (years 2000-2099,
 * t tenths, nn quarter hours ahead of ('+') or behind ('-') UTC, 0..48) or
 * relative "YYMMDDhhmmss000R" (added to now_ms, years and months by the
 * calendar).  Returns the kind and *t_ms (UTC, ms since 1970; untouched for
 * NONE), or -EINVAL for anything else: wrong length, a non-digit, month 13,
 * 31 April, hour 24, an offset above 48, tnn of a relative time not 000.
 */
int smpp_time_parse(const uint8_t *s, size_t len, int64_t now_ms, int64_t *t_ms);
/* t_ms as an absolute UTC time "YYMMDDhhmmsst00+" (17 octets with NUL);
 * 0, or -ERANGE outside 2000-2099. */
int smpp_time_format(int64_t t_ms, char out[17]);

/* ---- workload generation (Weerasinghe 4.1) ------------------------------ */

struct smpp_sim_config {
	unsigned msg_len;        /* short_message octets, default 20 */
	unsigned ntlv;           /* TLVs per PDU, default 5 */
	uint32_t command_id;     /* SMPP_SUBMIT_SM (default) or SMPP_DELIVER_SM */
};
void smpp_sim_config_default(struct smpp_sim_config *c);
/* PDU number i: distinct addresses and text per i. Returns its length or
 * -EINVAL / -ENOSPC. */
int smpp_sim_pdu(const struct smpp_sim_config *c, uint32_t i, uint8_t *buf,
		 size_t cap);
/* n PDUs from number first, framed as fr says (correlation id = i).
 * Returns the stream length or -ENOSPC / -EINVAL / -E2BIG. */
int smpp_sim_stream(const struct smpp_sim_config *c, const struct smpp_config *fr,
		    uint32_t first, uint32_t n, uint8_t *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* SMPP_H */
