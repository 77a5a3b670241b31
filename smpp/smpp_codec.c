/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMPP v3.4 PDU codec: the decoding entry points (the decoder itself is
 * smpp_decode.h, shared with the GPU, built per instruction set by
 * smpp_dec_isa.c), compact records, field, TLV and list access, encoding
 * and JSON printing, all driven by the field tables of smpp_table.c.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "smpp.h"
#include "smpp_priv.h"

static inline void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

/* The decoders of this CPU's instruction set (smpp_dec_isa.c). */
int
smpp_decode_pdu(const uint8_t *b, uint32_t len, unsigned flags,
		uint64_t base, struct smpp_pdu *o)
{
	return smpp_dec.pdu(b, len, flags, base, o);
}

int
smpp_decode_pdu_rec(const uint8_t *b, uint32_t len, unsigned flags,
		    struct smpp_rec *r)
{
	return smpp_dec.rec(b, len, flags, r, NULL);
}

/* ---- compact records (struct smpp_rec) ---------------------------------- */

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
	p->command_length = r->len >= 4 ? smpp_rd32(p->pdu) : 0;
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
		p->tlv[k].tag = smpp_rd16(p->pdu + pos);
		p->tlv[k].len = smpp_rd16(p->pdu + pos + 2);
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
	t->tag = smpp_rd16(p->pdu + pos);
	t->len = smpp_rd16(p->pdu + pos + 2);
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
	if (smpp_dec_list_entry(p->pdu, &pos, end, fd->type == SMPP_FT_UNSUCC, d, &err) < 0)
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
				/* an unsuccess_sme entry has no dest_flag (v3.4 4.5.2) */
				fputs(lf ? "{" : ",{", f);
				if (fd->type == SMPP_FT_DESTS)
					fprintf(f, "\"dest_flag\":%u,", de.dest_flag);
				fprintf(f, "\"ton\":%u,\"npi\":%u,\"addr\":", de.ton, de.npi);
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
