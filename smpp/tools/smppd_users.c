/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd's users file parser.  Outside input, so it is strict (every
 * line is a user, a comment or blank, or the file is refused with its line
 * number) and has no other dependency, so that the fuzz target
 * (smpp/fuzz/fuzz_smppd.c) runs it as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smppd.h"

#define LINE_MAX_LEN 1024

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* n hex digits (even) at s into out; 0 or -1. */
static int
unhex(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i + 1 < n; i += 2) {
		int a = hexval(s[i]), b = hexval(s[i + 1]);

		if (a < 0 || b < 0)
			return -1;
		out[i / 2] = (uint8_t)(a << 4 | b);
	}
	return n % 2 ? -1 : 0;
}

/* A decimal number of at most 9 digits in [lo, hi]; 0 or -1. */
static int
number(const char *s, size_t n, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint32_t x = 0;

	if (n == 0 || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint32_t)(s[i] - '0');
	}
	if (x < lo || x > hi)
		return -1;
	*v = x;
	return 0;
}

/* "$pbkdf2-sha256$ITER$SALT$DK" (tok not NUL terminated). */
static const char *
parse_hash(const char *tok, size_t n, struct smppd_user *u)
{
	const char *p = tok + strlen(SMPPD_HASH_TAG), *end = tok + n, *d1, *d2;

	d1 = memchr(p, '$', (size_t)(end - p));
	if (d1 == NULL)
		return "hash: expected $pbkdf2-sha256$ITER$SALT_HEX$HASH_HEX";
	d2 = memchr(d1 + 1, '$', (size_t)(end - d1 - 1));
	if (d2 == NULL || memchr(d2 + 1, '$', (size_t)(end - d2 - 1)) != NULL)
		return "hash: expected $pbkdf2-sha256$ITER$SALT_HEX$HASH_HEX";
	if (number(p, (size_t)(d1 - p), SMPPD_ITER_MIN, SMPPD_ITER_MAX, &u->iter) < 0)
		return "hash: iterations must be 1000..10000000";
	u->salt_len = (unsigned)(d2 - d1 - 1) / 2;
	if (d2 - d1 - 1 < 16 || d2 - d1 - 1 > 2 * SMPPD_SALT_MAX ||
	    unhex(d1 + 1, (size_t)(d2 - d1 - 1), u->salt) < 0)
		return "hash: salt must be 8..64 octets in hex";
	if (end - d2 - 1 != 2 * SMPPD_DK_LEN || unhex(d2 + 1, 2 * SMPPD_DK_LEN, u->dk) < 0)
		return "hash: PBKDF2-HMAC-SHA256 output must be 32 octets in hex";
	u->hashed = 1;
	return NULL;
}

/* One line without its end: NULL, or why it is refused. *add: a user. */
static const char *
parse_line(const char *s, size_t n, struct smppd_user *u, int *add)
{
	const char *tok[8];
	size_t tl[8];
	unsigned nt = 0;

	*add = 0;
	for (size_t i = 0; i < n;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n || (nt == 0 && s[i] == '#'))
			break;
		if (nt == 8)
			return "too many words (expected: user SYSTEM_ID SECRET [binds=N])";
		tok[nt] = s + i;
		while (i < n && s[i] != ' ' && s[i] != '\t') {
			if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
				return "a character that is not printable ASCII";
			i++;
		}
		tl[nt] = (size_t)(s + i - tok[nt]);
		nt++;
	}
	if (nt == 0)
		return NULL;
	if (tl[0] != 4 || memcmp(tok[0], "user", 4) != 0)
		return "expected 'user SYSTEM_ID SECRET [binds=N]'";
	if (nt < 3)
		return "expected 'user SYSTEM_ID SECRET [binds=N]'";
	memset(u, 0, sizeof(*u));
	if (tl[1] > 15)
		return "system_id longer than 15 characters (v3.4 4.1.1)";
	memcpy(u->id, tok[1], tl[1]);
	if (tl[2] >= strlen(SMPPD_HASH_TAG) &&
	    memcmp(tok[2], SMPPD_HASH_TAG, strlen(SMPPD_HASH_TAG)) == 0) {
		const char *why = parse_hash(tok[2], tl[2], u);

		if (why != NULL)
			return why;
	} else if (tok[2][0] == '$') {
		return "unknown hash (expected $pbkdf2-sha256$...)";
	} else if (tl[2] > 8) {
		return "password longer than 8 characters (v3.4 4.1.1)";
	} else {
		memcpy(u->plain, tok[2], tl[2]);
	}
	for (unsigned k = 3; k < nt; k++) {
		if (tl[k] > 6 && memcmp(tok[k], "binds=", 6) == 0) {
			uint32_t v;

			if (number(tok[k] + 6, tl[k] - 6, 1, 65536, &v) < 0)
				return "binds= expects 1..65536";
			u->max_binds = v;
			continue;
		}
		return "unknown option (expected binds=N)";
	}
	*add = 1;
	return NULL;
}

int
smppd_users_parse(const char *text, size_t len, struct smppd_user *u,
		  unsigned cap, unsigned *n, char *err, size_t errlen)
{
	unsigned line = 0;
	size_t i = 0;

	*n = 0;
	while (i < len) {
		const char *s = text + i, *nl = memchr(s, '\n', len - i);
		size_t l = nl ? (size_t)(nl - s) : len - i;
		const char *why;
		struct smppd_user tmp;
		int add;

		line++;
		i += l + (nl != NULL);
		if (l > 0 && s[l - 1] == '\r')
			l--;
		if (memchr(s, '\0', l) != NULL)
			why = "a NUL octet";
		else if (l > LINE_MAX_LEN)
			why = "line longer than 1024 characters";
		else
			why = parse_line(s, l, &tmp, &add);
		if (why == NULL && add) {
			for (unsigned k = 0; k < *n && why == NULL; k++)
				if (strcmp(u[k].id, tmp.id) == 0)
					why = "system_id listed twice";
			if (why == NULL && *n == cap)
				why = "too many users";
			if (why == NULL)
				u[(*n)++] = tmp;
		}
		if (why != NULL) {
			snprintf(err, errlen, "line %u: %s", line, why);
			return -EINVAL;
		}
	}
	if (*n == 0) {
		snprintf(err, errlen, "no 'user SYSTEM_ID SECRET' line");
		return -EINVAL;
	}
	return 0;
}
