/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SMPP v3.4 batch decoder's core, written once for the CPU and the
 * GPU: the PDU decoder and the step function of boundary marking, inline
 * functions that the C compiler builds into smpp_decode_pdu() (per ISA,
 * smpp_dec_isa.c) and smpp_batch.c, and nvcc into the kernels and their
 * host emulation (smpp/gpu/hp_cuda_smpp.cu).  Internal to the library.
 *
 * What differs between the callers comes in as arguments:
 *  - the tables (struct smpp_dec_tab): the library's own on the CPU, their
 *    copy in constant memory on the GPU;
 *  - how a C-Octet String is measured and an end marker found: byte loops
 *    (the GPU), or the CPU's NUL-bitmap window and memmem, passed as
 *    functions that the compiler inlines.
 * Every read is bounded by the PDU's framed length or the input's; a
 * malformed PDU ends in its ESME_R* status and the input offset of the
 * fault.
 */
#ifndef SMPP_DECODE_H
#define SMPP_DECODE_H

#include <stdint.h>

#include "smpp.h"

/* Host and device under nvcc; plain static inline functions in C.  The
 * decoder is always inlined, so that the functions its callers pass
 * become direct code; the rare list entries (submit_multi) stay out of
 * line on the CPU, where inlining them cost the common PDUs registers. */
#ifdef __CUDACC__
#define SMPP_HD __host__ __device__
#define SMPP_INLINE static __forceinline__
#define SMPP_OUTLINE static inline
#else
#define SMPP_HD
#define SMPP_INLINE static inline __attribute__((always_inline))
#define SMPP_OUTLINE static __attribute__((noinline, unused))
#endif

/* Every v3.4 tag is below the vendor range 0x1400. */
#define SMPP_TLV_IDX_SIZE 0x1400
/* Every v3.4 command id has bits 10..30 clear: (id & 0x3ff) with the
 * response bit as bit 10 keys all of them. */
#define SMPP_PDU_KEYS 0x800
#define SMPP_PDU_KEY(id) (((id) & 0x3ffu) | ((id) >> 31) << 10)

/* The tables the decoder reads, wherever they are kept. */
struct smpp_dec_tab {
	const uint8_t *pdu_idx;              /* SMPP_PDU_KEY(id) -> 1 + index into pdu */
	const struct smpp_pdu_desc *pdu;
	const uint8_t *tlv_idx;              /* tag -> 1 + index into tlv, 0: not v3.4 */
	const struct smpp_tlv_desc *tlv;
};

SMPP_HD SMPP_INLINE uint32_t
smpp_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

SMPP_HD SMPP_INLINE uint16_t
smpp_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* 1 + the table index of a command id, 0 when v3.4 does not define it. */
SMPP_HD SMPP_INLINE unsigned
smpp_dec_pdu_index(const struct smpp_dec_tab *t, uint32_t id)
{
	if ((id & ~SMPP_RESP_BIT) >= 0x400u)
		return 0;
	return t->pdu_idx[SMPP_PDU_KEY(id)];
}

/* 1 + the table index of a TLV tag, 0 for tags v3.4 does not define. */
SMPP_HD SMPP_INLINE unsigned
smpp_dec_tlv_index(const struct smpp_dec_tab *t, uint16_t tag)
{
	return tag < SMPP_TLV_IDX_SIZE ? t->tlv_idx[tag] : 0;
}

/*
 * One TLV header (tag, value length tl) against the tables: 1 when good
 * (*payload gets 1 for message_payload), else 0 with *st ESME_RINVPARLEN
 * (a v3.4 TLV of a wrong length) or, with SMPP_F_STRICT,
 * ESME_ROPTPARNOTALLWD (not allowed in PDU d, or a reserved unknown tag).
 */
SMPP_HD SMPP_INLINE int
smpp_dec_tlv_ok(const struct smpp_dec_tab *t, const struct smpp_pdu_desc *d,
		uint16_t tag, uint16_t tl, unsigned flags, int *payload, uint16_t *st)
{
	unsigned k = smpp_dec_tlv_index(t, tag);

	if (k != 0) {
		const struct smpp_tlv_desc *td = &t->tlv[k - 1];

		if (tl < td->min || tl > td->max) {
			*st = ESME_RINVPARLEN;
			return 0;
		}
		if ((flags & SMPP_F_STRICT) && !(d->tlv_allowed & (UINT64_C(1) << (k - 1)))) {
			*st = ESME_ROPTPARNOTALLWD;
			return 0;
		}
		*payload |= tag == SMPP_TLV_MESSAGE_PAYLOAD;
	} else if ((flags & SMPP_F_STRICT) && (tag < 0x1400 || tag > 0x3FFF)) {
		/* not a v3.4 tag and not in the vendor range 0x1400-0x3FFF */
		*st = ESME_ROPTPARNOTALLWD;
		return 0;
	}
	return 1;
}

SMPP_HD SMPP_INLINE int
smpp_dec_fail(struct smpp_pdu *o, uint16_t st, uint64_t at)
{
	o->error = st;
	o->error_off = at;
	return st;
}

/*
 * Length of the C-Octet String at b[pos..len) whose size including the NUL
 * is at most max.  Returns the length without the NUL, -1 when no NUL within
 * max octets (field error), -2 when the PDU ends first (length error).
 */
SMPP_HD SMPP_INLINE int
smpp_cstr_len(const uint8_t *b, uint32_t pos, uint32_t len, uint32_t max)
{
	uint32_t avail = len - pos;
	uint32_t lim = avail < max ? avail : max;

	for (uint32_t i = 0; i < lim; i++)
		if (b[pos + i] == 0)
			return (int)i;
	return avail < max ? -2 : -1;
}

/* smpp_cstr_len by other means (the CPU's NUL window); st: its state. */
typedef int (*smpp_cstr_fn)(const uint8_t *b, uint32_t pos, uint32_t len, uint32_t max,
			    void *st);

/* One submit_multi dest_address (flags 1/2) or unsuccess_sme entry at
 * *ppos: 0, or -1 with the status in *err and the fault in *ppos. */
SMPP_HD SMPP_OUTLINE int
smpp_dec_list_entry(const uint8_t *b, uint32_t *ppos, uint32_t len, int unsucc,
		    struct smpp_dest *d, uint16_t *err)
{
	uint32_t pos = *ppos;
	int n;

	if (unsucc) {
		d->dest_flag = 1;
	} else {
		if (pos >= len)
			goto trunc;
		d->dest_flag = b[pos++];
		if (d->dest_flag != 1 && d->dest_flag != 2) {
			*err = ESME_RINVDESTFLAG;
			*ppos = pos - 1;
			return -1;
		}
	}
	d->ton = d->npi = 0;
	if (d->dest_flag == 1) {
		if (len - pos < 2)
			goto trunc;
		d->ton = b[pos];
		d->npi = b[pos + 1];
		pos += 2;
	}
	n = smpp_cstr_len(b, pos, len, 21);
	if (n == -2)
		goto trunc;
	if (n < 0) {
		*err = d->dest_flag == 2 ? ESME_RINVDLNAME : ESME_RINVDSTADR;
		*ppos = pos;
		return -1;
	}
	d->addr = b + pos;
	d->addr_len = (uint16_t)n;
	pos += (uint32_t)n + 1;
	d->error_status = 0;
	if (unsucc) {
		if (len - pos < 4)
			goto trunc;
		d->error_status = smpp_rd32(b + pos);
		pos += 4;
	}
	*ppos = pos;
	return 0;
trunc:
	*err = ESME_RINVCMDLEN;
	*ppos = pos;
	return -1;
}

/*
 * Decode the PDU b[0..len) into o (smpp_decode_pdu's contract; o->desc
 * points into t->pdu).  cstr measures the C-strings (NULL: smpp_cstr_len),
 * with its state cst.  The checks run in the order v3.4 lays the PDU out,
 * so the first fault is the one reported, on every caller.
 */
SMPP_HD SMPP_INLINE int
smpp_dec_pdu(const uint8_t *b, uint32_t len, unsigned flags, uint64_t base,
	     struct smpp_pdu *o, const struct smpp_dec_tab *t, smpp_cstr_fn cstr, void *cst)
{
	const struct smpp_pdu_desc *d;
	uint32_t pos = SMPP_HEADER_LEN, smlen = 0;
	unsigned di, nt = 0;
	int has_payload = 0;
	uint16_t st = ESME_ROK;

	o->pdu = b;
	o->len = len;
	o->error = ESME_ROK;
	o->error_off = 0;
	o->desc = NULL;
	o->nfields = 0;
	o->ntlv = 0;
	o->tlv_area_off = 0;
	o->tlv_area_len = 0;
	o->command_length = len >= 4 ? smpp_rd32(b) : 0;
	if (len < SMPP_HEADER_LEN) {
		o->command_id = o->command_status = o->sequence_number = 0;
		return smpp_dec_fail(o, ESME_RINVCMDLEN, base);
	}
	o->command_id = smpp_rd32(b + 4);
	o->command_status = smpp_rd32(b + 8);
	o->sequence_number = smpp_rd32(b + 12);
	di = smpp_dec_pdu_index(t, o->command_id);
	d = di != 0 ? &t->pdu[di - 1] : NULL;
	o->desc = d;
	if (o->command_length != len)
		return smpp_dec_fail(o, ESME_RINVCMDLEN, base);
	if (d == NULL)
		return smpp_dec_fail(o, ESME_RINVCMDID, base + 4);

	/* v3.4 4.x.2: a response with an error status may come without body. */
	if (d->resp_body_optional && o->command_status != 0 && len == pos)
		return ESME_ROK;

	for (unsigned i = 0; i < d->nfields; i++) {
		const struct smpp_field_desc *fd = &d->fields[i];
		int n;

		switch (fd->type) {
		case SMPP_FT_U8: {
			/* a run of 1-octet integers in one step (submit_sm has
			 * runs of 2, 2, 3 and 4): no dispatch per field */
			unsigned k = i;

			do {
				if (pos >= len) {
					o->nfields = (uint16_t)k;
					return smpp_dec_fail(o, ESME_RINVCMDLEN, base + pos);
				}
				o->f[k].off = (uint16_t)pos;
				o->f[k].len = 1;
				pos++;
				k++;
			} while (k < d->nfields && d->fields[k].type == SMPP_FT_U8);
			o->nfields = (uint16_t)k;
			i = k - 1;
			continue;
		}
		case SMPP_FT_CSTR:
		case SMPP_FT_TIME:
			n = cstr != NULL ? cstr(b, pos, len, fd->max, cst)
					 : smpp_cstr_len(b, pos, len, fd->max);
			if (n == -2)
				return smpp_dec_fail(o, ESME_RINVCMDLEN, base + pos);
			if (n < 0 || (fd->type == SMPP_FT_TIME && n != 0 && n != 16))
				return smpp_dec_fail(o, fd->err, base + pos);
			o->f[i].off = (uint16_t)pos;
			o->f[i].len = (uint16_t)n;
			pos += (uint32_t)n + 1;
			break;
		case SMPP_FT_SMLEN:
			if (pos >= len)
				return smpp_dec_fail(o, ESME_RINVCMDLEN, base + pos);
			smlen = b[pos];
			/* sm_length <= 254 (v3.4 5.2.21) and inside the PDU */
			if (smlen > d->fields[i + 1].max || smlen > len - pos - 1)
				return smpp_dec_fail(o, ESME_RINVMSGLEN, base + pos);
			o->f[i].off = (uint16_t)pos;
			o->f[i].len = 1;
			pos++;
			break;
		case SMPP_FT_OSTR:
			o->f[i].off = (uint16_t)pos;
			o->f[i].len = (uint16_t)smlen;
			pos += smlen;
			break;
		case SMPP_FT_DESTS:
		case SMPP_FT_UNSUCC: {
			uint32_t at = o->f[i - 1].off, cnt = b[at], start = pos;
			int unsucc = fd->type == SMPP_FT_UNSUCC;
			struct smpp_dest de;
			uint16_t err = 0;

			/* number_of_dests: 1..254 (v3.4 5.2.24) */
			if (!unsucc && (cnt == 0 || cnt > fd->max))
				return smpp_dec_fail(o, ESME_RINVNUMDESTS, base + at);
			for (uint32_t k = 0; k < cnt; k++)
				if (smpp_dec_list_entry(b, &pos, len, unsucc, &de, &err) < 0)
					return smpp_dec_fail(o, err, base + pos);
			o->f[i].off = (uint16_t)start;
			o->f[i].len = (uint16_t)(pos - start);
			break;
		}
		default:
			return smpp_dec_fail(o, ESME_RSYSERR, base + pos);
		}
		o->nfields = (uint16_t)(i + 1);
	}

	o->tlv_area_off = pos;
	o->tlv_area_len = len - pos;
	/* the count in a local: stores to o->tlv[] may alias o->ntlv */
	while (pos < len) {
		uint16_t tag, tl;

		if (len - pos < 4) {
			st = ESME_RINVOPTPARSTREAM;
			break;
		}
		tag = smpp_rd16(b + pos);
		tl = smpp_rd16(b + pos + 2);
		if (tl > len - pos - 4) {
			st = ESME_RINVOPTPARSTREAM;
			break;
		}
		if (!smpp_dec_tlv_ok(t, d, tag, tl, flags, &has_payload, &st))
			break;
		if (nt < SMPP_TLV_INLINE) {
			o->tlv[nt].tag = tag;
			o->tlv[nt].len = tl;
			o->tlv[nt].off = pos + 4;
		}
		nt++;
		pos += 4u + tl;
	}
	o->ntlv = (uint16_t)nt;
	if (st != ESME_ROK)
		return smpp_dec_fail(o, st, base + pos);
	/* v3.4 5.3.2.32: with message_payload, sm_length shall be 0. */
	if ((flags & SMPP_F_STRICT) && has_payload && smlen != 0)
		return smpp_dec_fail(o, ESME_RINVMSGLEN, base + o->tlv_area_off);
	return ESME_ROK;
}

/* ---- boundary marking: the step function -------------------------------- */

#define SMPP_NOPOS UINT64_MAX

/* The element starting at one position of the input. */
struct smpp_frame {
	uint64_t off;       /* element start */
	uint32_t len;       /* octets framed as the PDU (0 when none) */
	uint32_t pdu_off;   /* PDU start - element start (= corr_len) */
	uint64_t next;      /* next element start */
	uint16_t err;       /* framing error (ESME_RINVCMDLEN) */
};

/* The first end marker in in[from..len), SMPP_NOPOS when none, by other
 * means (the CPU's memmem). */
typedef uint64_t (*smpp_find_fn)(const struct smpp_config *c, const uint8_t *in,
				 uint64_t len, uint64_t from);

SMPP_HD static inline int
smpp_marker_at(const struct smpp_config *c, const uint8_t *in, uint64_t at)
{
	for (uint32_t k = 0; k < c->marker_len; k++)
		if (in[at + k] != c->marker[k])
			return 0;
	return 1;
}

/* The first end marker in in[from..len) (find: NULL, a byte loop). */
SMPP_HD static inline uint64_t
smpp_find_marker(const struct smpp_config *c, const uint8_t *in, uint64_t len,
		 uint64_t from, smpp_find_fn find)
{
	uint32_t ml = c->marker_len;

	if (from > len || len - from < ml)
		return SMPP_NOPOS;
	if (find != NULL)
		return find(c, in, len, from);
	for (uint64_t x = from; x + ml <= len; x++)
		if (smpp_marker_at(c, in, x))
			return x;
	return SMPP_NOPOS;
}

/* Is there a well-formed element (valid command_length, marker after the
 * PDU) at pos?  ELEMENT framing only. */
SMPP_HD static inline int
smpp_elem_ok(const struct smpp_config *c, const uint8_t *in, uint64_t len, uint64_t pos)
{
	uint64_t q = pos + c->corr_len, cl;

	if (q > len || len - q < 4)
		return 0;
	cl = smpp_rd32(in + q);
	return cl >= SMPP_HEADER_LEN && cl <= c->max_pdu_len && cl <= len - q &&
	       len - q - cl >= c->marker_len && smpp_marker_at(c, in, q + cl);
}

/*
 * The step function: the element of in[0..len) starting at pos.  Plain
 * framing cannot resynchronise after a bad command_length (nothing marks
 * the next PDU), so the rest of the input becomes one erroneous element;
 * element framing resynchronises on the next end marker.  It depends on
 * pos alone, which is what lets boundary marking run speculatively in
 * parallel and still equal a sequential walk.
 */
SMPP_HD static inline void
smpp_frame_at(const struct smpp_config *c, const uint8_t *in, uint64_t len, uint64_t pos,
	      struct smpp_frame *f, smpp_find_fn find)
{
	int element = c->framing == SMPP_FRAME_ELEMENT;
	uint64_t q = pos, cl, m;

	f->off = pos;
	f->err = ESME_ROK;
	f->pdu_off = 0;
	if (element) {
		f->pdu_off = c->corr_len;
		q = pos + c->corr_len;
		if (q > len) {
			f->err = ESME_RINVCMDLEN;
			f->pdu_off = (uint32_t)(len - pos);
			f->len = 0;
			f->next = len;
			return;
		}
	}
	if (len - q < 4)
		goto bad;
	cl = smpp_rd32(in + q);
	if (cl < SMPP_HEADER_LEN || cl > c->max_pdu_len || cl > len - q)
		goto bad;
	if (element && (len - q - cl < c->marker_len || !smpp_marker_at(c, in, q + cl)))
		goto bad;
	f->len = (uint32_t)cl;
	f->next = q + cl + (element ? c->marker_len : 0);
	return;
bad:
	f->err = ESME_RINVCMDLEN;
	/* element framing: resync on a marker that ends the input or is
	 * followed by a well-formed element, so that marker bytes inside a
	 * message text are not taken for an element end */
	for (m = element ? smpp_find_marker(c, in, len, q, find) : SMPP_NOPOS;
	     m != SMPP_NOPOS; m = smpp_find_marker(c, in, len, m + 1, find)) {
		uint64_t nx = m + c->marker_len;

		if (nx == len || smpp_elem_ok(c, in, len, nx)) {
			f->len = (uint32_t)(m - q);
			f->next = nx;
			return;
		}
	}
	f->len = (uint32_t)(len - q > UINT32_MAX ? UINT32_MAX : len - q);
	f->next = len;
}

/* Is pos a believable element start?  Only picks where a speculative walk
 * starts; correctness never depends on it. */
SMPP_HD static inline int
smpp_plausible(const struct smpp_config *c, const struct smpp_dec_tab *t,
	       const uint8_t *in, uint64_t len, uint64_t pos, smpp_find_fn find)
{
	struct smpp_frame f;

	if (c->framing == SMPP_FRAME_ELEMENT)
		/* elem_ok, not frame_at: a bad element's resync scan would
		 * make this search quadratic on garbage */
		return pos >= c->marker_len && smpp_marker_at(c, in, pos - c->marker_len) &&
		       smpp_elem_ok(c, in, len, pos);
	/* plain: three good elements in a row with known command ids */
	for (int k = 0; k < 3 && pos < len; k++) {
		smpp_frame_at(c, in, len, pos, &f, find);
		if (f.err != ESME_ROK || smpp_dec_pdu_index(t, smpp_rd32(in + pos + 4)) == 0)
			return 0;
		pos = f.next;
	}
	return 1;
}

#endif /* SMPP_DECODE_H */
