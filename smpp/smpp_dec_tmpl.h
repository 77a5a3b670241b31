/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU's decoders over one instruction set, instantiated by
 * smpp_dec_isa.c, which defines before each include: KT (the target
 * attribute), KN(name) (the instance's names) and the NUL-bitmap
 * primitives
 *   KN(nul64)(p)           bit i set when p[i] == 0, 64 readable octets;
 *   KN(nul_tail)(p, n, &m) the same for n < 64 octets without reading past
 *                          them: 0, or -1 where the ISA has no masked load.
 * The decoding itself is smpp_decode.h's, shared with the GPU: here it
 * gets the NUL window that measures C-strings with one vector compare.
 * No include guard: included once per instruction set.
 */

/* Load a window at pos: 64 octets, or the n < 64 left in the PDU where a
 * masked load can read them without touching what lies beyond; -1 when
 * neither works (the scalar loop takes over). */
static inline KT int
KN(nulwin_load)(struct nulwin *w, const uint8_t *b, uint32_t pos, uint32_t len)
{
	uint32_t n = len - pos;

	if (n >= 64) {
		w->mask = KN(nul64)(b + pos);
		n = 64;
	} else if (KN(nul_tail)(b + pos, n, &w->mask) < 0) {
		return -1;
	}
	w->base = pos;
	w->n = n;
	return 0;
}

/* smpp_cstr_len through the window st, moved to pos when it does not cover
 * [pos, pos + max) (a full window) or [pos, len) (a short one at the PDU's
 * end); scalar for max > 64 and where no window can be loaded. */
static inline KT __attribute__((always_inline)) int
KN(cstr_win)(const uint8_t *b, uint32_t pos, uint32_t len, uint32_t max, void *st)
{
	struct nulwin *w = (struct nulwin *)st;
	uint32_t rel = pos - w->base;
	uint64_t m;

	if (rel >= w->n || (w->n - rel < max && w->base + w->n != len)) {
		if (max > 64 || KN(nulwin_load)(w, b, pos, len) < 0)
			return smpp_cstr_len(b, pos, len, max);
		rel = 0;
	}
	/* the window covers max octets from pos, or all up to the PDU's end */
	m = w->mask >> rel;
	if (m != 0 && (uint32_t)__builtin_ctzll(m) < max)
		return __builtin_ctzll(m);
	return len - pos < max ? -2 : -1;
}

/*
 * smpp_decode_pdu.  Cost (best of 200 passes over 10k PDUs, 2-vCPU Xeon
 * VM, AVX-512): thesis mix (submit_sm of 103 octets, 18 fields, 5 TLVs)
 * 49 ns per PDU, of which ~15 ns are the TLVs; submit_sm of 75 octets
 * without TLVs 38 ns.  The NUL window took the C-strings from byte loops
 * (70 / 57 ns) to one vector compare (a masked one near the PDU's end).
 */
static KT int
KN(decode_pdu)(const uint8_t *b, uint32_t len, unsigned flags, uint64_t base,
	       struct smpp_pdu *o)
{
	struct nulwin w = { .base = 0, .n = 0 };

	return smpp_dec_pdu(b, len, flags, base, o, &smpp_host_tab, KN(cstr_win), &w);
}

/* Everything the fast path does not take: the full decoder, packed. */
static KT int
KN(rec_slow)(const uint8_t *b, uint32_t len, unsigned flags, struct smpp_rec *r)
{
	struct smpp_pdu p;

	KN(decode_pdu)(b, len, flags, 0, &p);
	smpp_rec_pack(&p, 0, r);
	return r->error;
}

/*
 * The fast path's TLV walk over [area, len): 0 with the count and whether
 * message_payload is there, -1 for anything the full decoder must report.
 * With rec, each header's place and tag/length word go into rec (inlined
 * twice, so the walk without it carries no recording).
 */
static inline KT __attribute__((always_inline)) int
KN(tlv_walk)(const uint8_t *b, uint32_t len, uint32_t area, unsigned flags,
	     const struct smpp_pdu_desc *d, unsigned *pnt, int *has_payload,
	     struct smpp_tlv_shape *rec)
{
	uint32_t pos = area;
	unsigned nt = 0;
	int pl = 0;
	uint16_t st;

	while (pos < len) {
		uint16_t tag, tl;
		uint32_t h;

		if (len - pos < 4)
			return -1;
		h = smpp_rd32(b + pos);          /* tag and length in one load */
		tag = (uint16_t)(h >> 16);
		tl = (uint16_t)h;
		if (tl > len - pos - 4 ||
		    !smpp_dec_tlv_ok(&smpp_host_tab, d, tag, tl, flags, &pl, &st))
			return -1;
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

/*
 * smpp_decode_pdu_rec with the batch loop's TLV shape (sh, may be NULL).
 * Cost (2-vCPU Xeon VM, AVX-512, thesis mix in cache, best of 3000 batch
 * calls of 1000 PDUs, framing included): 15 ns per PDU without TLVs; with 5
 * TLVs 19.8 ns when their headers repeat the previous PDU's (the batch
 * loop's shape), 30.6 ns before the shape existed, 32.8 ns when every PDU
 * misses it (4 and 5 TLVs alternating: 29.0 before); smpp_decode_pdu: 49 ns
 * plus the 224-octet record.  The common shape -- a submit_sm or deliver_sm
 * that decodes cleanly -- in straight code: one 128-octet NUL bitmap (two
 * vector compares) locates all five C-strings, the fixed 1-octet fields are
 * not visited, the 18 lengths go out in three stores.  Any check that fails
 * (and every other PDU) goes to the full decoder, so statuses and fault
 * offsets are its own; the limits come from the same table.
 */
static KT int
KN(decode_rec)(const uint8_t *b, uint32_t len, unsigned flags, struct smpp_rec *r,
	       struct smpp_tlv_shape *sh)
{
	const struct smpp_pdu_desc *d;
	const struct smpp_field_desc *f;
	uint64_t m0, m1;
	uint32_t id, n, w, p, e, l0, l3, l6, l10, l11, smlen, area;
	unsigned nt = 0;
	int has_payload = 0, rc;

	if (len < SMPP_HEADER_LEN + 17)
		return KN(rec_slow)(b, len, flags, r);
	id = smpp_rd32(b + 4);
	if ((id != SMPP_SUBMIT_SM && id != SMPP_DELIVER_SM) || smpp_rd32(b) != len)
		return KN(rec_slow)(b, len, flags, r);
	d = &smpp_pdu_tab[smpp_dec_pdu_index(&smpp_host_tab, id) - 1];
	f = d->fields;
	n = len - SMPP_HEADER_LEN;
	/* the body's first 128 octets (or all of a shorter one) as a NUL
	 * bitmap, w octets of it valid */
	if (n >= 64) {
		m0 = KN(nul64)(b + 16);
		if (n >= 128) {
			m1 = KN(nul64)(b + 80);
			w = 128;
		} else if (KN(nul_tail)(b + 80, n - 64, &m1) == 0) {
			w = n;
		} else {
			m1 = 0;
			w = 64;
		}
	} else if (KN(nul_tail)(b + 16, n, &m0) == 0) {
		m1 = 0;
		w = n;
	} else {
		return KN(rec_slow)(b, len, flags, r);
	}
	/* body offsets; a NUL beyond the field's maximum, or none in the
	 * window, is an error or a long field: the full decoder's case */
	e = nul_from(m0, m1, 0);
	if (e >= w || e >= f[0].max)
		return KN(rec_slow)(b, len, flags, r);
	l0 = e;
	p = e + 3;                                  /* ton, npi */
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[3].max)
		return KN(rec_slow)(b, len, flags, r);
	l3 = e - p;
	p = e + 3;
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[6].max)
		return KN(rec_slow)(b, len, flags, r);
	l6 = e - p;
	p = e + 4;                                  /* esm_class, protocol_id, priority */
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[10].max ||
	    (e != p && e - p != 16))
		return KN(rec_slow)(b, len, flags, r);
	l10 = e - p;
	p = e + 1;
	if (p >= w || (e = nul_from(m0, m1, p)) >= w || e - p >= f[11].max ||
	    (e != p && e - p != 16))
		return KN(rec_slow)(b, len, flags, r);
	l11 = e - p;
	p = e + 5;                                  /* 4 one-octet fields, then sm_length */
	if (p >= n)
		return KN(rec_slow)(b, len, flags, r);
	smlen = b[SMPP_HEADER_LEN + p];
	if (smlen > f[17].max || smlen > n - p - 1)
		return KN(rec_slow)(b, len, flags, r);
	area = SMPP_HEADER_LEN + p + 1 + smlen;

	/* The TLV walk is a chain of dependent loads (~3.3 ns per TLV).  When
	 * the previous PDU of the batch had the same TLV headers at the same
	 * places (same area length and tag/length words), this walk would
	 * repeat its steps and checks exactly: compare the words, all loads
	 * independent, and take its count. */
	if (sh != NULL && sh->command_id == id && sh->area_len == len - area) {
		uint32_t x = 0;

		for (unsigned k = 0; k < sh->ntlv; k++)
			x |= smpp_rd32(b + area + sh->pos[k]) ^ sh->hdr[k];
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
		rc = KN(tlv_walk)(b, len, area, flags, d, &nt, &has_payload, sh);
	} else {
		rc = KN(tlv_walk)(b, len, area, flags, d, &nt, &has_payload, NULL);
		sh = NULL;
	}
	if (rc < 0)
		return KN(rec_slow)(b, len, flags, r);
	if (nt > UINT16_MAX || ((flags & SMPP_F_STRICT) && has_payload && smlen != 0))
		return KN(rec_slow)(b, len, flags, r);
	/* a shape with message_payload is not kept: its strict check also
	 * depends on sm_length */
	if (sh != NULL && nt <= SMPP_SHAPE_MAX && !has_payload) {
		sh->command_id = id;
		sh->area_len = len - area;
		sh->ntlv = (uint16_t)nt;
	}
good:
	rec_good(r, b, len, id, nt, area, l0, l3, l6, l10, l11, smlen);
	return ESME_ROK;
}
