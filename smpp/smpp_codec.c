/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMPP v3.4 PDU codec: decoding into views, encoding and JSON printing, all
 * three driven by the field tables of smpp_table.c.  Every read is bounded
 * by the PDU's framed length; a malformed PDU ends in its ESME_R* status and
 * the input offset of the fault, never in a read outside the PDU.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "smpp.h"
#include "smpp_priv.h"

static inline uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static inline int
fail(struct smpp_pdu *o, uint16_t st, uint64_t at)
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
static inline int
cstr_len(const uint8_t *b, uint32_t pos, uint32_t len, uint32_t max)
{
	uint32_t avail = len - pos;
	uint32_t lim = avail < max ? avail : max;

	for (uint32_t i = 0; i < lim; i++)
		if (b[pos + i] == 0)
			return (int)i;
	return avail < max ? -2 : -1;
}

/*
 * NUL bitmap of p[0..64): bit i set when p[i] == 0.  The caller guarantees
 * 64 readable octets inside the PDU.  One vector compare replaces the byte
 * loops of the C-strings that start in the window (submit_sm: all five).
 */
static inline uint64_t
nul_mask64(const uint8_t *p)
{
#if defined(__AVX512BW__)
	return _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p), _mm512_setzero_si512());
#elif defined(__AVX2__)
	__m256i z = _mm256_setzero_si256();
	uint64_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
		_mm256_loadu_si256((const __m256i *)p), z));
	uint64_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
		_mm256_loadu_si256((const __m256i *)(p + 32)), z));

	return hi << 32 | lo;
#elif defined(__SSE2__)
	__m128i z = _mm_setzero_si128();
	uint64_t m = 0;

	for (unsigned i = 0; i < 4; i++)
		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(p + 16 * i)), z)) << (16 * i);
	return m;
#else
	uint64_t m = 0;

	for (unsigned i = 0; i < 64; i++)
		m |= (uint64_t)(p[i] == 0) << i;
	return m;
#endif
}

/* A window [base, base + n) of the PDU, n <= 64, with its NUL bitmap. */
struct nulwin {
	uint32_t base, n;
	uint64_t mask;
};

/* Load a window at pos: 64 octets, or the n < 64 left in the PDU when a
 * masked load can read them without touching what lies beyond (AVX-512);
 * returns -1 when neither works (the scalar loop takes over). */
static inline int
nulwin_load(struct nulwin *w, const uint8_t *b, uint32_t pos, uint32_t len)
{
	uint32_t n = len - pos;

	if (n >= 64) {
		w->mask = nul_mask64(b + pos);
		n = 64;
	} else {
#if defined(__AVX512BW__)
		__mmask64 k = ((uint64_t)1 << n) - 1;

		w->mask = _mm512_cmpeq_epi8_mask(_mm512_maskz_loadu_epi8(k, b + pos),
						 _mm512_setzero_si512()) & k;
#else
		return -1;
#endif
	}
	w->base = pos;
	w->n = n;
	return 0;
}

/* cstr_len through the window, moved to pos when it does not cover
 * [pos, pos + max) (a full window) or [pos, len) (a short one at the PDU's
 * end); scalar for max > 64 and where no window can be loaded. */
static inline int
cstr_len_win(const uint8_t *b, uint32_t pos, uint32_t len, uint32_t max,
	     struct nulwin *w)
{
	uint32_t rel = pos - w->base;
	uint64_t m;

	if (rel >= w->n || (w->n - rel < max && w->base + w->n != len)) {
		if (max > 64 || nulwin_load(w, b, pos, len) < 0)
			return cstr_len(b, pos, len, max);
		rel = 0;
	}
	/* the window covers max octets from pos, or all up to the PDU's end */
	m = w->mask >> rel;
	if (m != 0 && (uint32_t)__builtin_ctzll(m) < max)
		return __builtin_ctzll(m);
	return len - pos < max ? -2 : -1;
}

/* One submit_multi dest_address (flags 1/2) or unsuccess_sme entry. */
static int
list_entry(const uint8_t *b, uint32_t *ppos, uint32_t len, int unsucc,
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
	n = cstr_len(b, pos, len, 21);
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
		d->error_status = be32(b + pos);
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
 * Cost (best of 200 passes over 10k PDUs, 2-vCPU Xeon VM, AVX-512): thesis
 * mix (submit_sm of 103 octets, 18 fields, 5 TLVs) 49 ns per PDU, of which
 * ~15 ns are the TLVs; submit_sm of 75 octets without TLVs 38 ns.  The NUL
 * window took the C-strings from byte loops (70 / 57 ns) to one vector
 * compare (a masked one near the PDU's end); the inlined TLV lookup saved
 * another 3 ns.
 */
int
smpp_decode_pdu(const uint8_t *b, uint32_t len, unsigned flags,
		uint64_t base, struct smpp_pdu *o)
{
	const struct smpp_pdu_desc *d;
	uint32_t pos = SMPP_HEADER_LEN;
	uint32_t smlen = 0;
	int has_payload = 0;
	struct nulwin w = { .base = 0, .n = 0 };

	o->pdu = b;
	o->len = len;
	o->error = ESME_ROK;
	o->error_off = 0;
	o->desc = NULL;
	o->nfields = 0;
	o->ntlv = 0;
	o->tlv_area_off = 0;
	o->tlv_area_len = 0;
	o->command_length = len >= 4 ? be32(b) : 0;
	if (len < SMPP_HEADER_LEN) {
		o->command_id = o->command_status = o->sequence_number = 0;
		return fail(o, ESME_RINVCMDLEN, base);
	}
	o->command_id = be32(b + 4);
	o->command_status = be32(b + 8);
	o->sequence_number = be32(b + 12);
	d = smpp_pdu_desc_find(o->command_id);
	o->desc = d;
	if (o->command_length != len)
		return fail(o, ESME_RINVCMDLEN, base);
	if (d == NULL)
		return fail(o, ESME_RINVCMDID, base + 4);

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
					return fail(o, ESME_RINVCMDLEN, base + pos);
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
			n = cstr_len_win(b, pos, len, fd->max, &w);
			if (n == -2)
				return fail(o, ESME_RINVCMDLEN, base + pos);
			if (n < 0 || (fd->type == SMPP_FT_TIME && n != 0 && n != 16))
				return fail(o, fd->err, base + pos);
			o->f[i].off = (uint16_t)pos;
			o->f[i].len = (uint16_t)n;
			pos += (uint32_t)n + 1;
			break;
		case SMPP_FT_SMLEN:
			if (pos >= len)
				return fail(o, ESME_RINVCMDLEN, base + pos);
			smlen = b[pos];
			/* sm_length <= 254 (v3.4 5.2.21) and inside the PDU */
			if (smlen > d->fields[i + 1].max || smlen > len - pos - 1)
				return fail(o, ESME_RINVMSGLEN, base + pos);
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
			uint32_t cnt = b[o->f[i - 1].off], start = pos;
			int unsucc = fd->type == SMPP_FT_UNSUCC;
			struct smpp_dest de;
			uint16_t err = 0;

			/* number_of_dests: 1..254 (v3.4 5.2.24) */
			if (!unsucc && (cnt == 0 || cnt > fd->max))
				return fail(o, ESME_RINVNUMDESTS, base + o->f[i - 1].off);
			for (uint32_t k = 0; k < cnt; k++)
				if (list_entry(b, &pos, len, unsucc, &de, &err) < 0)
					return fail(o, err, base + pos);
			o->f[i].off = (uint16_t)start;
			o->f[i].len = (uint16_t)(pos - start);
			break;
		}
		default:
			return fail(o, ESME_RSYSERR, base + pos);
		}
		o->nfields = (uint16_t)(i + 1);
	}

	o->tlv_area_off = pos;
	o->tlv_area_len = len - pos;
	/* the count in a local: stores to o->tlv[] may alias o->ntlv */
	unsigned nt = 0;
	uint16_t st = ESME_ROK;

	while (pos < len) {
		const struct smpp_tlv_desc *td;
		unsigned k;
		uint16_t tag, tl;

		if (len - pos < 4) {
			st = ESME_RINVOPTPARSTREAM;
			break;
		}
		tag = be16(b + pos);
		tl = be16(b + pos + 2);
		if (tl > len - pos - 4) {
			st = ESME_RINVOPTPARSTREAM;
			break;
		}
		k = smpp_tlv_lookup(tag);
		if (k != 0) {
			td = &smpp_tlv_tab[k - 1];
			if (tl < td->min || tl > td->max) {
				st = ESME_RINVPARLEN;
				break;
			}
			if ((flags & SMPP_F_STRICT) &&
			    !(d->tlv_allowed & (UINT64_C(1) << (k - 1)))) {
				st = ESME_ROPTPARNOTALLWD;
				break;
			}
			has_payload |= tag == SMPP_TLV_MESSAGE_PAYLOAD;
		} else if ((flags & SMPP_F_STRICT) && (tag < 0x1400 || tag > 0x3FFF)) {
			/* not a v3.4 tag and not in the vendor range 0x1400-0x3FFF */
			st = ESME_ROPTPARNOTALLWD;
			break;
		}
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
		return fail(o, st, base + pos);
	/* v3.4 5.3.2.32: with message_payload, sm_length shall be 0. */
	if ((flags & SMPP_F_STRICT) && has_payload && smlen != 0)
		return fail(o, ESME_RINVMSGLEN, base + o->tlv_area_off);
	return ESME_ROK;
}

/* ---- compact records (struct smpp_rec) ---------------------------------- */

_Static_assert(sizeof(struct smpp_rec) == 64, "one cache line per record");
_Static_assert(offsetof(struct smpp_rec, flen) + 24 == sizeof(struct smpp_rec),
	       "the fast path writes flen..rsv in three 8-octet stores");

void
smpp_rec_pack(const struct smpp_pdu *p, uint64_t base, struct smpp_rec *r)
{
	const struct smpp_pdu_desc *d = p->desc;
	unsigned nf = p->nfields;

	r->len = p->len;
	r->command_id = p->command_id;
	r->command_status = p->command_status;
	r->sequence_number = p->sequence_number;
	r->error = p->error;
	r->error_off = p->error != ESME_ROK ? (uint32_t)(p->error_off - base) : 0;
	r->ntlv = p->ntlv;
	r->tlv_area_off = (uint16_t)p->tlv_area_off;
	r->list_len = 0;
	r->list_idx = 0xff;
	r->nul_mask = 0;
	r->nfields = (uint8_t)nf;
	memset(r->flen, 0, sizeof(r->flen));
	memset(r->rsv, 0, sizeof(r->rsv));
	for (unsigned i = 0; d != NULL && i < d->nfields; i++) {
		uint8_t t = d->fields[i].type;

		if (t == SMPP_FT_CSTR || t == SMPP_FT_TIME)
			r->nul_mask |= 1u << i;
		else if (t == SMPP_FT_DESTS || t == SMPP_FT_UNSUCC)
			r->list_idx = (uint8_t)i;
	}
	for (unsigned i = 0; i < nf; i++) {
		if (i == r->list_idx)
			r->list_len = p->f[i].len;
		else
			r->flen[i] = (uint8_t)p->f[i].len;
	}
}

/* Everything the fast path does not take: the full decoder, packed. */
static int
rec_slow(const uint8_t *b, uint32_t len, unsigned flags, struct smpp_rec *r)
{
	struct smpp_pdu p;

	smpp_decode_pdu(b, len, flags, 0, &p);
	smpp_rec_pack(&p, 0, r);
	return r->error;
}

/* First NUL at or after body offset p (< 128) in a 128-octet NUL bitmap;
 * 128 when there is none. */
static inline uint32_t
nul_from(uint64_t m0, uint64_t m1, uint32_t p)
{
	if (p < 64) {
		uint64_t s = m0 >> p;

		if (s != 0)
			return p + (uint32_t)__builtin_ctzll(s);
		return m1 != 0 ? 64 + (uint32_t)__builtin_ctzll(m1) : 128;
	}
	m1 >>= p - 64;
	return m1 != 0 ? p + (uint32_t)__builtin_ctzll(m1) : 128;
}

/*
 * The fast path's TLV walk over [area, len): 0 with the count and whether
 * message_payload is there, -1 for anything the full decoder must report.
 * With rec, each header's place and tag/length word go into rec (inlined
 * twice, so the walk without it carries no recording).
 */
static inline __attribute__((always_inline)) int
tlv_walk(const uint8_t *b, uint32_t len, uint32_t area, unsigned flags,
	 const struct smpp_pdu_desc *d, unsigned *pnt, int *has_payload,
	 struct smpp_tlv_shape *rec)
{
	uint32_t pos = area;
	unsigned nt = 0;
	int pl = 0;

	while (pos < len) {
		const struct smpp_tlv_desc *td;
		unsigned k;
		uint16_t tag, tl;
		uint32_t h;

		if (len - pos < 4)
			return -1;
		h = be32(b + pos);          /* tag and length in one load */
		tag = (uint16_t)(h >> 16);
		tl = (uint16_t)h;
		if (tl > len - pos - 4)
			return -1;
		k = smpp_tlv_lookup(tag);
		if (k != 0) {
			td = &smpp_tlv_tab[k - 1];
			if (tl < td->min || tl > td->max ||
			    ((flags & SMPP_F_STRICT) &&
			     !(d->tlv_allowed & (UINT64_C(1) << (k - 1)))))
				return -1;
			pl |= tag == SMPP_TLV_MESSAGE_PAYLOAD;
		} else if ((flags & SMPP_F_STRICT) && (tag < 0x1400 || tag > 0x3FFF)) {
			return -1;
		}
		if (rec != NULL && nt < SMPP_SHAPE_MAX) {
			rec->pos[nt] = (uint16_t)(pos - area);
			rec->hdr[nt] = h;
		}
		nt++;
		pos += 4u + tl;
	}
	*pnt = nt;
	*has_payload = pl;
	return 0;
}

/* submit_sm / deliver_sm (v3.4 4.4.1, 4.6.1): fields 0, 3, 6 (C-strings)
 * and 10, 11 (times) carry a NUL; test_smpp_batch checks this against the
 * table. */
#define SM_NUL_MASK 0xC49u

/*
 * Cost (2-vCPU Xeon VM, AVX-512, thesis mix in cache, best of 3000 batch
 * calls of 1000 PDUs, framing included): 15 ns per PDU without TLVs; with 5
 * TLVs 19.8 ns when their headers repeat the previous PDU's (the batch
 * loop's shape), 30.6 ns before the shape existed, 32.8 ns when every PDU
 * misses it (4 and 5 TLVs alternating: 29.0 before); smpp_decode_pdu: 49 ns
 * plus the 224-octet record.  The common
 * shape -- a submit_sm or deliver_sm that decodes cleanly -- in straight
 * code: one 128-octet NUL bitmap (two masked vector compares) locates all
 * five C-strings, the fixed 1-octet fields are not visited, the 18 lengths
 * go out in three stores.  Any check that fails (and every other PDU) goes
 * to the full decoder, so statuses and fault offsets are its own; the
 * limits come from the same table.
 */
int
smpp_decode_pdu_rec(const uint8_t *b, uint32_t len, unsigned flags,
		    struct smpp_rec *r)
{
	return smpp_decode_pdu_rec_sh(b, len, flags, r, NULL);
}

int
smpp_decode_pdu_rec_sh(const uint8_t *b, uint32_t len, unsigned flags,
		       struct smpp_rec *r, struct smpp_tlv_shape *sh)
{
	const struct smpp_pdu_desc *d;
	const struct smpp_field_desc *f;
	uint64_t m0, m1;
	uint32_t id, n, w, p, e, l0, l3, l6, l10, l11, smlen, area;
	unsigned nt = 0;
	int has_payload = 0, rc;

	if (len < SMPP_HEADER_LEN + 17)
		return rec_slow(b, len, flags, r);
	id = be32(b + 4);
	if ((id != SMPP_SUBMIT_SM && id != SMPP_DELIVER_SM) || be32(b) != len)
		return rec_slow(b, len, flags, r);
	d = smpp_pdu_desc_find(id);
	f = d->fields;
	n = len - SMPP_HEADER_LEN;
#if defined(__AVX512BW__)
	{
		__mmask64 k0 = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
		__mmask64 k1 = n >= 128 ? ~UINT64_C(0) :
			       n > 64 ? (UINT64_C(1) << (n - 64)) - 1 : 0;

		m0 = _mm512_cmpeq_epi8_mask(_mm512_maskz_loadu_epi8(k0, b + 16),
					    _mm512_setzero_si512()) & k0;
		m1 = _mm512_cmpeq_epi8_mask(_mm512_maskz_loadu_epi8(k1, b + 80),
					    _mm512_setzero_si512()) & k1;
		w = n < 128 ? n : 128;
	}
#else
	if (n >= 128) {
		m0 = nul_mask64(b + 16);
		m1 = nul_mask64(b + 80);
		w = 128;
	} else if (n >= 64) {
		m0 = nul_mask64(b + 16);
		m1 = 0;
		w = 64;
	} else {
		return rec_slow(b, len, flags, r);
	}
#endif
	/* body offsets; a NUL beyond the field's maximum, or none in the
	 * window, is an error or a long field: the full decoder's case */
	e = nul_from(m0, m1, 0);
	if (e >= w || e >= f[0].max)
		return rec_slow(b, len, flags, r);
	l0 = e;
	p = e + 3;                                  /* ton, npi */
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[3].max)
		return rec_slow(b, len, flags, r);
	l3 = e - p;
	p = e + 3;
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[6].max)
		return rec_slow(b, len, flags, r);
	l6 = e - p;
	p = e + 4;                                  /* esm_class, protocol_id, priority */
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[10].max ||
	    (e != p && e - p != 16))
		return rec_slow(b, len, flags, r);
	l10 = e - p;
	p = e + 1;
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[11].max ||
	    (e != p && e - p != 16))
		return rec_slow(b, len, flags, r);
	l11 = e - p;
	p = e + 5;                                  /* 4 one-octet fields, then sm_length */
	if (p >= n)
		return rec_slow(b, len, flags, r);
	smlen = b[SMPP_HEADER_LEN + p];
	if (smlen > f[17].max || smlen > n - p - 1)
		return rec_slow(b, len, flags, r);
	area = SMPP_HEADER_LEN + p + 1 + smlen;

	/* The TLV walk is a chain of dependent loads (~3.3 ns per TLV).  When
	 * the previous PDU of the batch had the same TLV headers at the same
	 * places (same area length and tag/length words), this walk would
	 * repeat its steps and checks exactly: compare the words, all loads
	 * independent, and take its count. */
	if (sh != NULL && sh->command_id == id && sh->area_len == len - area) {
		uint32_t x = 0;

		for (unsigned k = 0; k < sh->ntlv; k++)
			x |= be32(b + area + sh->pos[k]) ^ sh->hdr[k];
		if (x == 0) {
			nt = sh->ntlv;
			sh->misses = 0;
			goto good;
		}
	}
	/* A miss: walk, and record this PDU's shape -- after 8 misses in a row
	 * only every 64th time, since recording costs a miss ~4 ns (a stale
	 * shape stays right: it is some earlier PDU's whole walk). */
	if (sh != NULL && (++sh->misses < 8 || (sh->misses & 63) == 0)) {
		sh->command_id = 0;       /* rewritten by the walk */
		rc = tlv_walk(b, len, area, flags, d, &nt, &has_payload, sh);
	} else {
		rc = tlv_walk(b, len, area, flags, d, &nt, &has_payload, NULL);
		sh = NULL;
	}
	if (rc < 0)
		return rec_slow(b, len, flags, r);
	if (nt > UINT16_MAX || ((flags & SMPP_F_STRICT) && has_payload && smlen != 0))
		return rec_slow(b, len, flags, r);
	/* a shape with message_payload is not kept: its strict check also
	 * depends on sm_length */
	if (sh != NULL && nt <= SMPP_SHAPE_MAX && !has_payload) {
		sh->command_id = id;
		sh->area_len = len - area;
		sh->ntlv = (uint16_t)nt;
	}
good:
	r->len = len;
	r->command_id = id;
	r->command_status = be32(b + 8);
	r->sequence_number = be32(b + 12);
	r->error_off = 0;
	r->error = ESME_ROK;
	r->ntlv = (uint16_t)nt;
	r->tlv_area_off = (uint16_t)area;
	r->list_len = 0;
	r->nul_mask = SM_NUL_MASK;
	/* lengths [st,1,1,src,1,1,dst,1 | 1,1,sched,valid,1,1,1,1 | 1,smlen],
	 * then nfields 18, list_idx none, rsv 0 */
	{
		uint64_t w0 = UINT64_C(0x0100010100010100) | l0 | (uint64_t)l3 << 24 |
			      (uint64_t)l6 << 48;
		uint64_t w1 = UINT64_C(0x0101010100000101) | (uint64_t)l10 << 16 |
			      (uint64_t)l11 << 24;
		uint64_t w2 = UINT64_C(0x00000000ff120001) | (uint64_t)smlen << 8;
		/* the 24 octets from flen to the record's end */
		uint8_t *q = (uint8_t *)r + offsetof(struct smpp_rec, flen);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(q, &w0, 8);
		memcpy(q + 8, &w1, 8);
		memcpy(q + 16, &w2, 8);
#else
		for (unsigned i = 0; i < 8; i++) {
			q[i] = (uint8_t)(w0 >> (8 * i));
			q[8 + i] = (uint8_t)(w1 >> (8 * i));
			q[16 + i] = (uint8_t)(w2 >> (8 * i));
		}
#endif
	}
	return ESME_ROK;
}

int
smpp_rec_field(const struct smpp_rec *r, unsigned k, struct smpp_view *v)
{
	uint32_t off = SMPP_HEADER_LEN;

	if (k >= r->nfields)
		return -ENOENT;
	for (unsigned j = 0; j < k; j++)
		off += j == r->list_idx ? r->list_len : r->flen[j];
	off += (uint32_t)__builtin_popcount(r->nul_mask & ((1u << k) - 1));
	v->off = (uint16_t)off;
	v->len = k == r->list_idx ? r->list_len : r->flen[k];
	return 0;
}

void
smpp_rec_expand(const struct smpp_rec *r, const uint8_t *in, struct smpp_pdu *p)
{
	uint32_t pos, nt;

	p->pdu = in + r->pdu_off;
	p->off = r->pdu_off - r->elem_back;
	p->len = r->len;
	p->corr_off = p->off;
	p->corr_len = r->corr_len;
	p->error = r->error;
	p->error_off = r->error != ESME_ROK ? (uint64_t)r->pdu_off + r->error_off : 0;
	p->command_length = r->len >= 4 ? be32(p->pdu) : 0;
	p->command_id = r->command_id;
	p->command_status = r->command_status;
	p->sequence_number = r->sequence_number;
	p->desc = r->len >= SMPP_HEADER_LEN ? smpp_pdu_desc_find(r->command_id) : NULL;
	p->nfields = r->nfields;
	p->ntlv = r->ntlv;
	p->tlv_area_off = r->tlv_area_off;
	p->tlv_area_len = r->tlv_area_off != 0 ? r->len - r->tlv_area_off : 0;
	for (unsigned k = 0; k < r->nfields; k++)
		smpp_rec_field(r, k, &p->f[k]);
	/* the counted TLVs were all read whole by the decoder */
	pos = r->tlv_area_off;
	nt = r->ntlv < SMPP_TLV_INLINE ? r->ntlv : SMPP_TLV_INLINE;
	for (unsigned k = 0; k < nt; k++) {
		p->tlv[k].tag = be16(p->pdu + pos);
		p->tlv[k].len = be16(p->pdu + pos + 2);
		p->tlv[k].off = pos + 4;
		pos += 4u + p->tlv[k].len;
	}
}

const struct smpp_view *
smpp_field(const struct smpp_pdu *p, const char *name)
{
	int i = smpp_field_index(p->desc, name);

	if (i < 0 || (unsigned)i >= p->nfields)
		return NULL;
	return &p->f[i];
}

uint32_t
smpp_field_u(const struct smpp_pdu *p, unsigned idx)
{
	if (idx >= p->nfields || p->f[idx].len == 0)
		return 0;
	return p->pdu[p->f[idx].off];
}

int
smpp_tlv_iter(const struct smpp_pdu *p, uint32_t *it, struct smpp_tlv *t)
{
	uint32_t pos = p->tlv_area_off + *it;
	uint32_t end = p->tlv_area_off + p->tlv_area_len;

	/* Only walks what the decoder validated: stops at a bad TLV. */
	if (p->tlv_area_len == 0 || end - pos < 4 || pos >= end)
		return 0;
	t->tag = be16(p->pdu + pos);
	t->len = be16(p->pdu + pos + 2);
	if (t->len > end - pos - 4)
		return 0;
	t->off = pos + 4;
	*it += 4u + t->len;
	return 1;
}

int
smpp_tlv_get(const struct smpp_pdu *p, uint16_t tag, struct smpp_tlv *t)
{
	uint32_t it = 0;
	unsigned n = p->ntlv < SMPP_TLV_INLINE ? p->ntlv : SMPP_TLV_INLINE;

	for (unsigned i = 0; i < n; i++) {
		if (p->tlv[i].tag == tag) {
			*t = p->tlv[i];
			return 1;
		}
	}
	if (p->ntlv <= SMPP_TLV_INLINE)
		return 0;
	while (smpp_tlv_iter(p, &it, t))
		if (t->tag == tag)
			return 1;
	return 0;
}

int
smpp_list_iter(const struct smpp_pdu *p, unsigned idx, uint32_t *it,
	       struct smpp_dest *d)
{
	const struct smpp_field_desc *fd;
	uint32_t pos, end;
	uint16_t err;

	if (p->desc == NULL || idx >= p->nfields)
		return 0;
	fd = &p->desc->fields[idx];
	if (fd->type != SMPP_FT_DESTS && fd->type != SMPP_FT_UNSUCC)
		return 0;
	pos = p->f[idx].off + *it;
	end = p->f[idx].off + p->f[idx].len;
	if (pos >= end)
		return 0;
	if (list_entry(p->pdu, &pos, end, fd->type == SMPP_FT_UNSUCC, d, &err) < 0)
		return 0;
	*it = pos - p->f[idx].off;
	return 1;
}

/* ---- printing ----------------------------------------------------------- */

static void
json_str(FILE *f, const uint8_t *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			/* bytes, not characters: \u00XX keeps JSON valid */
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
json_hex(FILE *f, const uint8_t *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", s[i]);
	fputc('"', f);
}

int
smpp_pdu_print_json(FILE *f, const struct smpp_pdu *p, const uint8_t *in)
{
	const struct smpp_pdu_desc *d = p->desc;
	struct smpp_tlv t;
	uint32_t it = 0;
	int first = 1;

	fprintf(f, "{\"off\":%llu,\"len\":%u", (unsigned long long)p->off, p->len);
	if (p->corr_len && in != NULL) {
		fputs(",\"corr\":", f);
		json_hex(f, in + p->corr_off, p->corr_len);
	}
	fprintf(f, ",\"command_length\":%u,\"command_id\":%u,\"name\":\"%s\","
		"\"command_status\":%u,\"sequence_number\":%u",
		p->command_length, p->command_id, d ? d->name : "unknown",
		p->command_status, p->sequence_number);
	fprintf(f, ",\"error\":\"%s\",\"error_code\":%u", smpp_status_name(p->error),
		p->error);
	if (p->error)
		fprintf(f, ",\"error_off\":%llu", (unsigned long long)p->error_off);
	fputs(",\"fields\":{", f);
	for (unsigned i = 0; d != NULL && i < p->nfields; i++) {
		const struct smpp_field_desc *fd = &d->fields[i];
		const uint8_t *v = p->pdu + p->f[i].off;
		struct smpp_dest de;
		uint32_t lit = 0;
		int lf = 1;

		fprintf(f, "%s\"%s\":", i ? "," : "", fd->name);
		switch (fd->type) {
		case SMPP_FT_U8:
		case SMPP_FT_SMLEN:
			fprintf(f, "%u", v[0]);
			break;
		case SMPP_FT_CSTR:
		case SMPP_FT_TIME:
			json_str(f, v, p->f[i].len);
			break;
		case SMPP_FT_OSTR:
			json_hex(f, v, p->f[i].len);
			break;
		default:
			fputc('[', f);
			while (smpp_list_iter(p, i, &lit, &de)) {
				fprintf(f, "%s{\"dest_flag\":%u,\"ton\":%u,\"npi\":%u,"
					"\"addr\":", lf ? "" : ",", de.dest_flag,
					de.ton, de.npi);
				json_str(f, de.addr, de.addr_len);
				if (fd->type == SMPP_FT_UNSUCC)
					fprintf(f, ",\"error_status_code\":%u",
						de.error_status);
				fputc('}', f);
				lf = 0;
			}
			fputc(']', f);
			break;
		}
	}
	fputs("},\"tlvs\":[", f);
	while (smpp_tlv_iter(p, &it, &t)) {
		const struct smpp_tlv_desc *td = smpp_tlv_desc_find(t.tag);

		fprintf(f, "%s{\"tag\":%u,\"name\":\"%s\",\"len\":%u,\"value\":",
			first ? "" : ",", t.tag, td ? td->name : "raw", t.len);
		json_hex(f, p->pdu + t.off, t.len);
		fputc('}', f);
		first = 0;
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---- encoding ----------------------------------------------------------- */

int
smpp_encode(const struct smpp_msg *m, uint8_t *buf, size_t cap)
{
	const struct smpp_pdu_desc *d = smpp_pdu_desc_find(m->command_id);
	size_t pos = SMPP_HEADER_LEN;

	if (d == NULL)
		return -EINVAL;
	if (cap < SMPP_HEADER_LEN)
		return -ENOSPC;
	if (m->no_body && d->resp_body_optional && m->command_status != 0)
		goto tlvs;
	for (unsigned i = 0; i < d->nfields; i++) {
		const struct smpp_field_desc *fd = &d->fields[i];
		const struct smpp_value *v = &m->v[i];
		uint32_t u = v->u;

		switch (fd->type) {
		case SMPP_FT_U8:
		case SMPP_FT_SMLEN:
			if (i + 1 < d->nfields) {
				uint8_t nt = d->fields[i + 1].type;
				/* counts and lengths come from what follows */
				if (nt == SMPP_FT_OSTR)
					u = m->v[i + 1].len;
				else if (nt == SMPP_FT_DESTS || nt == SMPP_FT_UNSUCC)
					u = m->v[i + 1].u;
			}
			if (u > 255 || (fd->type == SMPP_FT_SMLEN &&
					u > d->fields[i + 1].max))
				return -EINVAL;
			if (cap - pos < 1)
				return -ENOSPC;
			buf[pos++] = (uint8_t)u;
			break;
		case SMPP_FT_CSTR:
		case SMPP_FT_TIME:
			if (v->len >= fd->max || (v->len && memchr(v->p, 0, v->len)) ||
			    (fd->type == SMPP_FT_TIME && v->len != 0 && v->len != 16))
				return -EINVAL;
			if (cap - pos < v->len + 1)
				return -ENOSPC;
			if (v->len)
				memcpy(buf + pos, v->p, v->len);
			pos += v->len;
			buf[pos++] = 0;
			break;
		default: /* OSTR and the raw list bytes */
			if (cap - pos < v->len)
				return -ENOSPC;
			if (v->len)
				memcpy(buf + pos, v->p, v->len);
			pos += v->len;
			break;
		}
	}
tlvs:
	for (unsigned i = 0; i < m->ntlv; i++) {
		const struct smpp_tlv_value *t = &m->tlv[i];

		if (cap - pos < 4u + t->len)
			return -ENOSPC;
		buf[pos] = t->tag >> 8;
		buf[pos + 1] = t->tag & 0xff;
		buf[pos + 2] = t->len >> 8;
		buf[pos + 3] = t->len & 0xff;
		if (t->len)
			memcpy(buf + pos + 4, t->p, t->len);
		pos += 4u + t->len;
	}
	if (pos > UINT32_MAX)
		return -EINVAL;
	put32(buf, (uint32_t)pos);
	put32(buf + 4, m->command_id);
	put32(buf + 8, m->command_status);
	put32(buf + 12, m->sequence_number);
	return (int)pos;
}

int
smpp_msg_from_pdu(const struct smpp_pdu *p, struct smpp_msg *m,
		  struct smpp_tlv_value *tlv, unsigned cap)
{
	const struct smpp_pdu_desc *d = p->desc;
	struct smpp_tlv t;
	uint32_t it = 0;
	unsigned n = 0;

	if (d == NULL || p->error != ESME_ROK)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->command_id = p->command_id;
	m->command_status = p->command_status;
	m->sequence_number = p->sequence_number;
	m->no_body = d->nfields > 0 && p->nfields == 0;
	for (unsigned i = 0; i < p->nfields; i++) {
		uint8_t ty = d->fields[i].type;

		m->v[i].p = p->pdu + p->f[i].off;
		m->v[i].len = p->f[i].len;
		if (ty == SMPP_FT_U8 || ty == SMPP_FT_SMLEN)
			m->v[i].u = p->pdu[p->f[i].off];
		else if (ty == SMPP_FT_DESTS || ty == SMPP_FT_UNSUCC)
			m->v[i].u = p->pdu[p->f[i - 1].off];
	}
	while (smpp_tlv_iter(p, &it, &t)) {
		if (n == cap)
			return -ENOSPC;
		tlv[n].tag = t.tag;
		tlv[n].len = t.len;
		tlv[n].p = p->pdu + t.off;
		n++;
	}
	m->tlv = tlv;
	m->ntlv = n;
	return 0;
}

int
smpp_dest_append(uint8_t *buf, size_t cap, size_t len, uint8_t flag,
		 uint8_t ton, uint8_t npi, const char *addr)
{
	size_t al = strlen(addr);
	size_t need = 1 + (flag == 1 ? 2 : 0) + al + 1;

	if ((flag != 1 && flag != 2) || al > 20)
		return -EINVAL;
	if (cap < len || cap - len < need)
		return -ENOSPC;
	buf[len++] = flag;
	if (flag == 1) {
		buf[len++] = ton;
		buf[len++] = npi;
	}
	memcpy(buf + len, addr, al + 1);
	return (int)(len + al + 1);
}
