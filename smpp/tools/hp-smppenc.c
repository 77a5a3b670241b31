/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppenc: encode SMPP PDUs from a text description with the library's
 * table-driven encoder, one PDU per input line:
 *
 *   submit_sm seq=1 source_addr=123 short_message=hello tlv:sar_msg_ref_num=7
 *
 * Header keys: seq, status, nobody (response without body).  Mandatory
 * fields by their v3.4 name: numbers for integers, text for C-Octet strings,
 * text or hex:.. for short_message.  submit_multi destinations: repeated
 * dest=TON,NPI,ADDR or dl=NAME; unsuccess_sme: unsucc=TON,NPI,ADDR,STATUS.
 * TLVs: tlv:NAME=value (integers by the TLV's size, C strings get their NUL)
 * or tlv:0xTAG=hex:... for raw/vendor ones.  %XX escapes a byte in text.
 * Output: binary PDUs on stdout, or one hex line per PDU with -x.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"
#include "tool_util.h"

#define LINE_MAX_LEN 65536

/* Decode a value in place: hex:... or text with %XX escapes. */
static int
unescape(char *s, uint32_t *len)
{
	uint8_t *o = (uint8_t *)s;
	size_t n = 0;

	if (strncmp(s, "hex:", 4) == 0) {
		const char *h = s + 4;
		size_t l = strlen(h);
		if (l % 2)
			return -EINVAL;
		for (size_t i = 0; i < l; i += 2) {
			int a = tool_hexval(h[i]), b = tool_hexval(h[i + 1]);
			if (a < 0 || b < 0)
				return -EINVAL;
			o[n++] = (uint8_t)(a << 4 | b);
		}
	} else {
		for (size_t i = 0; s[i]; i++) {
			if (s[i] == '%' && tool_hexval(s[i + 1]) >= 0 && tool_hexval(s[i + 2]) >= 0) {
				o[n++] = (uint8_t)(tool_hexval(s[i + 1]) << 4 | tool_hexval(s[i + 2]));
				i += 2;
			} else {
				o[n++] = (uint8_t)s[i];
			}
		}
	}
	*len = (uint32_t)n;
	return 0;
}

static int
encode_line(char *line, uint8_t *out, size_t cap)
{
	static uint8_t lists[2][8192], tlvbuf[LINE_MAX_LEN];
	struct smpp_tlv_value tlv[64];
	const struct smpp_pdu_desc *d;
	struct smpp_msg m;
	size_t llen = 0, tpos = 0;
	unsigned nlist = 0;
	char *save = NULL, *tok;
	int li = -1;

	memset(&m, 0, sizeof(m));
	tok = strtok_r(line, " \t\r\n", &save);
	if (tok == NULL)
		return 0;
	d = smpp_pdu_desc_by_name(tok);
	if (d == NULL) {
		fprintf(stderr, "hp-smppenc: unknown PDU '%s'\n", tok);
		return -EINVAL;
	}
	m.command_id = d->command_id;
	m.tlv = tlv;
	for (unsigned i = 0; i < d->nfields; i++)
		if (d->fields[i].type == SMPP_FT_DESTS || d->fields[i].type == SMPP_FT_UNSUCC)
			li = (int)i;
	while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
		char *eq = strchr(tok, '='), *val;
		uint32_t vl;
		int fi;

		if (eq == NULL)
			goto bad;
		*eq = 0;
		val = eq + 1;
		if (strcmp(tok, "seq") == 0) {
			m.sequence_number = (uint32_t)strtoul(val, NULL, 0);
		} else if (strcmp(tok, "status") == 0) {
			m.command_status = (uint32_t)strtoul(val, NULL, 0);
		} else if (strcmp(tok, "nobody") == 0) {
			m.no_body = atoi(val);
		} else if ((strcmp(tok, "dest") == 0 || strcmp(tok, "dl") == 0 ||
			    strcmp(tok, "unsucc") == 0) && li >= 0) {
			unsigned ton = 0, npi = 0, st = 0;
			char addr[64] = "";
			int r;

			if (strcmp(tok, "dl") == 0)
				r = smpp_dest_append(lists[0], sizeof(lists[0]), llen, 2,
						     0, 0, val);
			else if (strcmp(tok, "dest") == 0 &&
				 sscanf(val, "%u,%u,%63[^,]", &ton, &npi, addr) >= 2)
				r = smpp_dest_append(lists[0], sizeof(lists[0]), llen, 1,
						     (uint8_t)ton, (uint8_t)npi, addr);
			else if (strcmp(tok, "unsucc") == 0 &&
				 sscanf(val, "%u,%u,%63[^,],%u", &ton, &npi, addr, &st) == 4 &&
				 llen + 3 + strlen(addr) + 4 < sizeof(lists[0])) {
				/* unsuccess_sme: ton, npi, address, error_status_code */
				r = (int)llen;
				lists[0][r++] = (uint8_t)ton;
				lists[0][r++] = (uint8_t)npi;
				memcpy(lists[0] + r, addr, strlen(addr) + 1);
				r += (int)strlen(addr) + 1;
				lists[0][r++] = (uint8_t)(st >> 24);
				lists[0][r++] = (uint8_t)(st >> 16);
				lists[0][r++] = (uint8_t)(st >> 8);
				lists[0][r++] = (uint8_t)st;
			} else
				r = -EINVAL;
			if (r < 0)
				goto bad;
			llen = (size_t)r;
			nlist++;
			m.v[li].p = lists[0];
			m.v[li].len = (uint32_t)llen;
			m.v[li].u = nlist;
		} else if (strncmp(tok, "tlv:", 4) == 0) {
			const char *tn = tok + 4;
			const struct smpp_tlv_desc *td = smpp_tlv_desc_by_name(tn);
			struct smpp_tlv_value *t = &tlv[m.ntlv];

			if (m.ntlv == 64)
				goto bad;
			if (td == NULL && strncmp(tn, "0x", 2) != 0)
				goto bad;
			t->tag = td ? td->tag : (uint16_t)strtoul(tn, NULL, 16);
			t->p = tlvbuf + tpos;
			if (td && td->type == SMPP_TT_INT && strncmp(val, "hex:", 4) != 0) {
				unsigned long u = strtoul(val, NULL, 0);
				for (unsigned k = 0; k < td->min; k++)
					tlvbuf[tpos + k] = (uint8_t)(u >> (8 * (td->min - 1 - k)));
				t->len = td->min;
			} else {
				int is_hex = strncmp(val, "hex:", 4) == 0;

				if (unescape(val, &vl) < 0 || tpos + vl + 1 > sizeof(tlvbuf))
					goto bad;
				memcpy(tlvbuf + tpos, val, vl);
				if (td && td->type == SMPP_TT_CSTR && !is_hex)
					tlvbuf[tpos + vl++] = 0;
				t->len = (uint16_t)vl;
			}
			tpos += t->len;
			m.ntlv++;
		} else if ((fi = smpp_field_index(d, tok)) >= 0) {
			uint8_t ty = d->fields[fi].type;

			if (ty == SMPP_FT_U8 || ty == SMPP_FT_SMLEN) {
				m.v[fi].u = (uint32_t)strtoul(val, NULL, 0);
			} else {
				if (unescape(val, &vl) < 0)
					goto bad;
				m.v[fi].p = (const uint8_t *)val;
				m.v[fi].len = vl;
			}
		} else {
			goto bad;
		}
		continue;
bad:
		fprintf(stderr, "hp-smppenc: bad item '%s'\n", tok);
		return -EINVAL;
	}
	return smpp_encode(&m, out, cap);
}

int
main(int argc, char **argv)
{
	static char line[LINE_MAX_LEN];
	static uint8_t out[LINE_MAX_LEN + 1024];
	int hex = argc > 1 && strcmp(argv[1], "-x") == 0;
	unsigned lineno = 0;

	if (argc > 2 || (argc == 2 && !hex)) {
		fprintf(stderr, "usage: hp-smppenc [-x] < description\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		int n;

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
			continue;
		n = encode_line(line, out, sizeof(out));
		if (n < 0) {
			fprintf(stderr, "hp-smppenc: line %u: %s\n", lineno, strerror(-n));
			return 1;
		}
		if (hex) {
			for (int i = 0; i < n; i++)
				printf("%02x", out[i]);
			putchar('\n');
		} else if (fwrite(out, 1, (size_t)n, stdout) != (size_t)n) {
			return 1;
		}
	}
	return 0;
}
