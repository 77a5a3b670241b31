/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * data_coding handling: which character set a data_coding value selects
 * (SMPP v3.4 5.2.19 for 0x00-0x0F, GSM 03.38 / 3GPP TS 23.038 ch. 4 coding
 * groups above), and conversion of message text to UTF-8.  The raw octets
 * stay with the caller (views), so a text that does not convert is never
 * lost.
 */
#include <errno.h>
#include <string.h>

#include "smpp.h"

/* GSM 03.38 default alphabet (TS 23.038 6.2.1), septet -> Unicode. 0x1B is
 * the escape to the extension table; shown as NBSP if it ends the text. */
static const uint16_t gsm7_basic[128] = {
	0x0040, 0x00A3, 0x0024, 0x00A5, 0x00E8, 0x00E9, 0x00F9, 0x00EC,
	0x00F2, 0x00C7, 0x000A, 0x00D8, 0x00F8, 0x000D, 0x00C5, 0x00E5,
	0x0394, 0x005F, 0x03A6, 0x0393, 0x039B, 0x03A9, 0x03A0, 0x03A8,
	0x03A3, 0x0398, 0x039E, 0x00A0, 0x00C6, 0x00E6, 0x00DF, 0x00C9,
	0x0020, 0x0021, 0x0022, 0x0023, 0x00A4, 0x0025, 0x0026, 0x0027,
	0x0028, 0x0029, 0x002A, 0x002B, 0x002C, 0x002D, 0x002E, 0x002F,
	0x0030, 0x0031, 0x0032, 0x0033, 0x0034, 0x0035, 0x0036, 0x0037,
	0x0038, 0x0039, 0x003A, 0x003B, 0x003C, 0x003D, 0x003E, 0x003F,
	0x00A1, 0x0041, 0x0042, 0x0043, 0x0044, 0x0045, 0x0046, 0x0047,
	0x0048, 0x0049, 0x004A, 0x004B, 0x004C, 0x004D, 0x004E, 0x004F,
	0x0050, 0x0051, 0x0052, 0x0053, 0x0054, 0x0055, 0x0056, 0x0057,
	0x0058, 0x0059, 0x005A, 0x00C4, 0x00D6, 0x00D1, 0x00DC, 0x00A7,
	0x00BF, 0x0061, 0x0062, 0x0063, 0x0064, 0x0065, 0x0066, 0x0067,
	0x0068, 0x0069, 0x006A, 0x006B, 0x006C, 0x006D, 0x006E, 0x006F,
	0x0070, 0x0071, 0x0072, 0x0073, 0x0074, 0x0075, 0x0076, 0x0077,
	0x0078, 0x0079, 0x007A, 0x00E4, 0x00F6, 0x00F1, 0x00FC, 0x00E0,
};

/* TS 23.038 6.2.1.1 extension table (after 0x1B). */
static const struct { uint8_t sept; uint16_t cp; } gsm7_ext[] = {
	{ 0x0A, 0x000C }, { 0x14, 0x005E }, { 0x28, 0x007B }, { 0x29, 0x007D },
	{ 0x2F, 0x005C }, { 0x3C, 0x005B }, { 0x3D, 0x007E }, { 0x3E, 0x005D },
	{ 0x40, 0x007C }, { 0x65, 0x20AC },
};
#define N_EXT (sizeof(gsm7_ext) / sizeof(gsm7_ext[0]))

enum smpp_charset
smpp_dcs_charset(uint8_t dcs, enum smpp_charset dflt)
{
	if (dcs <= 0x0F) {
		switch (dcs) {
		case 0x00: return dflt;          /* SMSC default alphabet */
		case 0x01: return SMPP_CS_ASCII; /* IA5 */
		case 0x02: case 0x04: return SMPP_CS_BINARY;
		case 0x03: return SMPP_CS_LATIN1;
		case 0x08: return SMPP_CS_UCS2;
		default:   return SMPP_CS_UNKNOWN; /* JIS, Cyrillic, Hebrew, ... */
		}
	}
	if (dcs <= 0x7F) {
		/* general data coding 00xx / auto-deletion 01xx: bit 5 means
		 * compressed (not supported), bits 3..2 the alphabet */
		if (dcs & 0x20)
			return SMPP_CS_UNKNOWN;
		switch ((dcs >> 2) & 3) {
		case 0: return SMPP_CS_GSM7;
		case 1: return SMPP_CS_BINARY;
		case 2: return SMPP_CS_UCS2;
		default: return SMPP_CS_UNKNOWN;
		}
	}
	if (dcs <= 0xBF)
		return SMPP_CS_UNKNOWN;              /* reserved groups */
	if (dcs <= 0xDF)
		return SMPP_CS_GSM7;                 /* message waiting, discard/store */
	if (dcs <= 0xEF)
		return SMPP_CS_UCS2;                 /* message waiting, store, UCS2 */
	return (dcs & 0x04) ? SMPP_CS_BINARY : SMPP_CS_GSM7; /* data coding/class */
}

const char *
smpp_charset_name(enum smpp_charset cs)
{
	static const char *const n[] = { "gsm7", "gsm7-packed", "ascii",
		"latin1", "ucs2", "binary", "unknown" };

	return (unsigned)cs < sizeof(n) / sizeof(n[0]) ? n[cs] : "unknown";
}

static int
put_utf8(char *out, size_t cap, size_t *pos, uint32_t cp)
{
	uint8_t b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (uint8_t)cp; n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xC0 | cp >> 6; b[1] = 0x80 | (cp & 0x3F); n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xE0 | cp >> 12; b[1] = 0x80 | ((cp >> 6) & 0x3F);
		b[2] = 0x80 | (cp & 0x3F); n = 3;
	} else {
		b[0] = 0xF0 | cp >> 18; b[1] = 0x80 | ((cp >> 12) & 0x3F);
		b[2] = 0x80 | ((cp >> 6) & 0x3F); b[3] = 0x80 | (cp & 0x3F); n = 4;
	}
	if (cap - *pos < n + 1)   /* keep room for the NUL */
		return -ENOSPC;
	memcpy(out + *pos, b, n);
	*pos += n;
	return 0;
}

static uint32_t
gsm7_cp(uint8_t sept, int esc)
{
	if (esc) {
		for (unsigned i = 0; i < N_EXT; i++)
			if (gsm7_ext[i].sept == sept)
				return gsm7_ext[i].cp;
		/* TS 23.038: an unknown extension shows the basic character */
	}
	return gsm7_basic[sept & 0x7F];
}

static int
septets_to_utf8(const uint8_t *s, size_t n, char *out, size_t cap)
{
	size_t pos = 0;
	int rc;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i] & 0x7F;

		if (c == 0x1B && i + 1 < n) {
			rc = put_utf8(out, cap, &pos, gsm7_cp(s[++i] & 0x7F, 1));
		} else {
			rc = put_utf8(out, cap, &pos, gsm7_cp(c, 0));
		}
		if (rc < 0)
			return rc;
	}
	out[pos] = 0;
	return (int)pos;
}

int
smpp_text_to_utf8(const uint8_t *p, size_t n, enum smpp_charset cs,
		  char *out, size_t cap)
{
	size_t pos = 0;
	int rc;

	if (cap == 0)
		return -ENOSPC;
	switch (cs) {
	case SMPP_CS_GSM7:
		return septets_to_utf8(p, n, out, cap);
	case SMPP_CS_GSM7_PACKED: {
		/* 8 septets in 7 octets, least significant bit first */
		size_t ns = n * 8 / 7;
		uint8_t sep[320];

		if (ns > sizeof(sep))
			return -ENOSPC;
		for (size_t i = 0; i < ns; i++) {
			size_t bit = i * 7, o = bit / 8, sh = bit % 8;
			unsigned v = p[o] >> sh;
			if (sh > 1 && o + 1 < n)
				v |= (unsigned)p[o + 1] << (8 - sh);
			sep[i] = v & 0x7F;
		}
		/* 7 fill bits look like a trailing '@': TS 23.038 6.1.2.3.1
		 * says CR pads, but an all-zero fill is what most SMSCs send */
		if (ns && n * 8 % 7 == 0 && sep[ns - 1] == 0)
			ns--;
		return septets_to_utf8(sep, ns, out, cap);
	}
	case SMPP_CS_ASCII:
	case SMPP_CS_LATIN1:
		for (size_t i = 0; i < n; i++) {
			uint32_t cp = p[i];
			if (cs == SMPP_CS_ASCII && cp > 0x7F)
				cp = 0xFFFD;
			if ((rc = put_utf8(out, cap, &pos, cp)) < 0)
				return rc;
		}
		out[pos] = 0;
		return (int)pos;
	case SMPP_CS_UCS2:
		if (n & 1)
			return -EILSEQ;  /* odd length: not UCS-2, keep the raw */
		for (size_t i = 0; i < n; i += 2) {
			uint32_t cp = (uint32_t)p[i] << 8 | p[i + 1];
			if (cp >= 0xD800 && cp <= 0xDBFF && i + 3 < n) {
				uint32_t lo = (uint32_t)p[i + 2] << 8 | p[i + 3];
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					i += 2;
				}
			}
			if (cp >= 0xD800 && cp <= 0xDFFF)
				cp = 0xFFFD;   /* lone surrogate */
			if ((rc = put_utf8(out, cap, &pos, cp)) < 0)
				return rc;
		}
		out[pos] = 0;
		return (int)pos;
	default:
		return -ENOTSUP;
	}
}

/* Next code point of UTF-8 text; -1 on a malformed sequence. */
static int32_t
utf8_next(const uint8_t *s, size_t n, size_t *i)
{
	uint8_t c = s[*i];
	uint32_t cp;
	int k;

	if (c < 0x80) { (*i)++; return c; }
	if ((c & 0xE0) == 0xC0) { cp = c & 0x1F; k = 1; }
	else if ((c & 0xF0) == 0xE0) { cp = c & 0x0F; k = 2; }
	else if ((c & 0xF8) == 0xF0) { cp = c & 0x07; k = 3; }
	else return -1;
	if (n - *i <= (size_t)k)
		return -1;
	for (int j = 1; j <= k; j++) {
		if ((s[*i + j] & 0xC0) != 0x80)
			return -1;
		cp = cp << 6 | (s[*i + j] & 0x3F);
	}
	*i += (size_t)k + 1;
	return (int32_t)cp;
}

int
smpp_utf8_to_gsm7(const char *str, size_t n, uint8_t *out, size_t cap)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0, pos = 0;

	while (i < n) {
		int32_t cp = utf8_next(s, n, &i);
		int found = -1, ext = 0;

		if (cp < 0)
			return -EILSEQ;
		for (unsigned k = 0; k < 128 && found < 0; k++)
			if (gsm7_basic[k] == (uint32_t)cp && k != 0x1B)
				found = (int)k;
		for (unsigned k = 0; k < N_EXT && found < 0; k++)
			if (gsm7_ext[k].cp == (uint32_t)cp) {
				found = gsm7_ext[k].sept;
				ext = 1;
			}
		if (found < 0)
			return -EILSEQ;
		if (cap - pos < (size_t)(1 + ext))
			return -ENOSPC;
		if (ext)
			out[pos++] = 0x1B;
		out[pos++] = (uint8_t)found;
	}
	return (int)pos;
}
