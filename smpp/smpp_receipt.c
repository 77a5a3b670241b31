/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lenient delivery receipt parser.  v3.4 appendix B only suggests the format
 * "id:IIIIIIIIII sub:SSS dlvrd:DDD submit date:YYMMDDhhmm done
 * date:YYMMDDhhmm stat:DDDDDDD err:E Text: ..."; SMSCs vary the case, the
 * separators in the date keys, the order and the id length, and drop fields.
 * So: keys anywhere, any case, values up to the next blank, "text" takes the
 * rest, and r->present says which fields were seen.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "smpp.h"

static const struct { const char *key; uint8_t f; } keys[] = {
	{ "submit date", SMPP_DLR_SUBMIT_DATE }, { "submit_date", SMPP_DLR_SUBMIT_DATE },
	{ "submitdate", SMPP_DLR_SUBMIT_DATE }, { "done date", SMPP_DLR_DONE_DATE },
	{ "done_date", SMPP_DLR_DONE_DATE }, { "donedate", SMPP_DLR_DONE_DATE },
	{ "dlvrd", SMPP_DLR_DLVRD }, { "stat", SMPP_DLR_STAT },
	{ "text", SMPP_DLR_TEXT }, { "sub", SMPP_DLR_SUB }, { "err", SMPP_DLR_ERR },
	{ "id", SMPP_DLR_ID },
};

int
smpp_receipt_parse(const char *s, size_t n, struct smpp_receipt *r)
{
	size_t i = 0;
	int found = 0;

	memset(r, 0, sizeof(*r));
	while (i < n) {
		int matched = 0;

		while (i < n && isspace((unsigned char)s[i]))
			i++;
		for (unsigned k = 0; k < sizeof(keys) / sizeof(keys[0]) && i < n; k++) {
			size_t kl = strlen(keys[k].key), j;
			uint8_t f = keys[k].f;

			if (n - i < kl || strncasecmp(s + i, keys[k].key, kl) != 0)
				continue;
			j = i + kl;
			while (j < n && s[j] == ' ')
				j++;
			if (j >= n || s[j] != ':')
				continue;
			j++;
			while (j < n && s[j] == ' ')
				j++;
			i = j;
			if (f == SMPP_DLR_TEXT) {
				j = n;
				while (j > i && (s[j - 1] == 0 || isspace((unsigned char)s[j - 1])))
					j--;
			} else {
				while (j < n && !isspace((unsigned char)s[j]) && s[j] != 0)
					j++;
			}
			if (!(r->present & (1u << f))) {
				r->present |= 1u << f;
				r->v[f] = s + i;
				r->len[f] = (uint16_t)(j - i > 0xFFFF ? 0xFFFF : j - i);
				found++;
			}
			i = j;
			matched = 1;
			break;
		}
		if (!matched)   /* an unknown token: skip it */
			while (i < n && !isspace((unsigned char)s[i]))
				i++;
	}
	return found;
}
