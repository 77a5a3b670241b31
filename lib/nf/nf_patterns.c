/* SPDX-License-Identifier: BSD-3-Clause
 * DPI pattern sets: the Snort-content-style file parser and writer, the
 * deterministic generator of a Snort-like set, and the traffic filler that
 * plants patterns in a chosen share of packets.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hp_nf.h"

static uint64_t
rnd(uint64_t *s)
{
	/* xorshift64*, the same generator as hp_rand64() in the core. */
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static uint32_t
rndn(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rnd(s) >> 32) % n);
}

struct hp_nf_patset *
hp_nf_patset_new(void)
{
	return calloc(1, sizeof(struct hp_nf_patset));
}

void
hp_nf_patset_free(struct hp_nf_patset *ps)
{
	if (ps == NULL)
		return;
	for (uint32_t i = 0; i < ps->n; i++)
		free(ps->pat[i]);
	free(ps->pat);
	free(ps->len);
	free(ps);
}

int
hp_nf_patset_add(struct hp_nf_patset *ps, const uint8_t *p, uint16_t len)
{
	uint8_t *c;

	if (len == 0 || len > HP_NF_PAT_MAXLEN)
		return -EINVAL;
	if (ps->n >= HP_NF_PAT_MAX)
		return -E2BIG;
	if (ps->n == ps->cap) {
		uint32_t cap = ps->cap ? ps->cap * 2 : 256;
		uint8_t **np = realloc(ps->pat, cap * sizeof(*np));

		if (np == NULL)
			return -ENOMEM;
		ps->pat = np;
		uint16_t *nl = realloc(ps->len, cap * sizeof(*nl));
		if (nl == NULL)
			return -ENOMEM;
		ps->len = nl;
		ps->cap = cap;
	}
	c = malloc(len);
	if (c == NULL)
		return -ENOMEM;
	memcpy(c, p, len);
	ps->pat[ps->n] = c;
	ps->len[ps->n] = len;
	ps->n++;
	return 0;
}

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

static int
perr(char *err, size_t errlen, const char *name, unsigned long line,
     const char *fmt, ...)
{
	va_list ap;
	int o;

	if (err == NULL || errlen == 0)
		return -EINVAL;
	o = snprintf(err, errlen, "%s:%lu: ", name, line);
	if (o < 0 || (size_t)o >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + o, errlen - (size_t)o, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Parses one line (without its newline) into out; returns its length or
 * a negative value after writing the reason into err. */
static int
parse_line(const char *s, size_t n, uint8_t *out, const char *name,
	   unsigned long line, char *err, size_t errlen)
{
	size_t i = 0;
	int len = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c == '|') {
			size_t start = i++;
			int nib = -1, nbytes = 0;

			for (; i < n && s[i] != '|'; i++) {
				int v;

				if (s[i] == ' ' || s[i] == '\t') {
					if (nib >= 0)
						return perr(err, errlen, name, line,
							    "odd number of hex digits in escape at column %zu",
							    start + 1);
					continue;
				}
				v = hexval((unsigned char)s[i]);
				if (v < 0)
					return perr(err, errlen, name, line,
						    "invalid character '%c' (0x%02x) in |hex| escape at column %zu",
						    s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?',
						    (unsigned char)s[i], i + 1);
				if (nib < 0) {
					nib = v;
					continue;
				}
				if (len >= HP_NF_PAT_MAXLEN)
					return perr(err, errlen, name, line,
						    "pattern longer than %d bytes",
						    HP_NF_PAT_MAXLEN);
				out[len++] = (uint8_t)(nib << 4 | v);
				nib = -1;
				nbytes++;
			}
			if (i >= n)
				return perr(err, errlen, name, line,
					    "unterminated |hex| escape starting at column %zu",
					    start + 1);
			if (nib >= 0)
				return perr(err, errlen, name, line,
					    "odd number of hex digits in escape at column %zu",
					    start + 1);
			if (nbytes == 0)
				return perr(err, errlen, name, line,
					    "empty |hex| escape at column %zu", start + 1);
			i++; /* closing '|' */
			continue;
		}
		if (c == '\\') {
			if (i + 1 >= n)
				return perr(err, errlen, name, line,
					    "backslash at end of line");
			c = (unsigned char)s[i + 1];
			if (c != '\\' && c != '|' && c != '"' && c != ';')
				return perr(err, errlen, name, line,
					    "invalid escape '\\%c' at column %zu (only \\\\ \\| \\\" \\; are defined)",
					    c >= 0x20 && c < 0x7f ? c : '?', i + 1);
			i += 2;
		} else {
			i++;
		}
		if (len >= HP_NF_PAT_MAXLEN)
			return perr(err, errlen, name, line,
				    "pattern longer than %d bytes", HP_NF_PAT_MAXLEN);
		out[len++] = c;
	}
	return len;
}

int
hp_nf_patset_parse(struct hp_nf_patset *ps, const char *buf, size_t len,
		   const char *name, char *err, size_t errlen)
{
	uint8_t pat[HP_NF_PAT_MAXLEN];
	unsigned long line = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t e = nl ? (size_t)(nl - buf) : len;
		size_t n = e - pos;
		int pl, rc;

		line++;
		if (n > 0 && buf[pos + n - 1] == '\r')
			n--;
		if (n == 0 || buf[pos] == '#') {
			pos = e + 1;
			continue;
		}
		pl = parse_line(buf + pos, n, pat, name, line, err, errlen);
		if (pl < 0)
			return pl;
		rc = hp_nf_patset_add(ps, pat, (uint16_t)pl);
		if (rc == -E2BIG)
			return perr(err, errlen, name, line,
				    "more than %d patterns", HP_NF_PAT_MAX);
		if (rc != 0) {
			perr(err, errlen, name, line, "out of memory");
			return -ENOMEM;
		}
		pos = e + 1;
	}
	return 0;
}

int
hp_nf_patset_load(const char *path, struct hp_nf_patset **out, char *err,
		  size_t errlen)
{
	struct hp_nf_patset *ps = NULL;
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, len = 0, r;
	int rc;

	f = fopen(path, "rb");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open pattern file: %s", path,
			 strerror(errno));
		return rc;
	}
	do {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap + 65536 * 4);

			if (nb == NULL) {
				rc = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
			cap += 65536 * 4;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
	} while (r > 0);
	if (ferror(f)) {
		rc = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s: cannot read pattern file: %s", path, strerror(-rc));
		goto fail;
	}
	ps = hp_nf_patset_new();
	if (ps == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	rc = hp_nf_patset_parse(ps, buf, len, path, err, errlen);
	if (rc != 0)
		goto fail;
	if (ps->n == 0) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: no patterns in file", path);
		goto fail;
	}
	free(buf);
	fclose(f);
	*out = ps;
	return 0;
fail:
	hp_nf_patset_free(ps);
	free(buf);
	fclose(f);
	return rc;
}

int
hp_nf_patset_write(const struct hp_nf_patset *ps, FILE *f)
{
	for (uint32_t i = 0; i < ps->n; i++) {
		const uint8_t *p = ps->pat[i];
		int inhex = 0;

		for (uint32_t j = 0; j < ps->len[i]; j++) {
			uint8_t c = p[j];
			/* '#' first would read as a comment, so it is hex. */
			int raw = c >= 0x20 && c < 0x7f && c != '|' &&
				  c != '\\' && !(j == 0 && c == '#');

			if (raw && inhex) {
				fputc('|', f);
				inhex = 0;
			}
			if (raw) {
				fputc(c, f);
			} else {
				fprintf(f, inhex ? " %02X" : "|%02X", c);
				inhex = 1;
			}
		}
		if (inhex)
			fputc('|', f);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------ generator */

/* Vocabulary in the spirit of Snort content strings: protocol keywords,
 * URI pieces, file names, commands and exploit markers. */
static const char *const vocab[] = {
	"GET ", "POST ", "HEAD ", "PUT ", "HTTP/1.1", "HTTP/1.0", "Host: ",
	"User-Agent: ", "Content-Type: ", "Content-Length: ", "Cookie: ",
	"Authorization: Basic ", "Referer: ", "/cgi-bin/", "/scripts/",
	"/admin/", "/wp-admin/", "/wp-content/plugins/", "/phpmyadmin/",
	"/etc/passwd", "/bin/sh", "cmd.exe", "root.exe", "/winnt/system32/",
	".php", ".asp", ".aspx", ".jsp", ".cgi", ".pl", ".dll", ".exe", ".htr",
	"?id=", "&cmd=", "&file=", "?page=", "=../", "..%2f", "%c0%af",
	"%u9090", "<script", "javascript:", "onerror=", "eval(", "document.",
	"UNION SELECT", "select ", "union ", "insert into", "drop table",
	"xp_cmdshell", "exec(", "system(", "passthru", "base64_decode",
	"wget ", "curl ", "chmod 777", "nc -e", "/tmp/", "USER ", "PASS ",
	"RETR ", "STOR ", "SITE EXEC", "MAIL FROM:", "RCPT TO:", "EHLO ",
	"HELO ", "PRIVMSG ", "JOIN #", "SMB", "NTLMSSP", "IPC$", "ADMIN$",
	"\\PIPE\\", "lsarpc", "srvsvc", "samr", "MSRPC", "Content-Disposition",
	"filename=", "boundary=", "X-Forwarded-For", "shell", "exploit",
	"payload", "backdoor", "trojan", "botnet", "login", "password",
	"config", "index", "upload", "download", "update", "install", "debug",
};
#define NVOCAB (sizeof(vocab) / sizeof(vocab[0]))

static void
gen_word(uint64_t *s, uint8_t *out, int *len, int max)
{
	static const char alnum[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	int n = 3 + (int)rndn(s, 8);

	for (int i = 0; i < n && *len < max; i++)
		out[(*len)++] = (uint8_t)alnum[rndn(s, sizeof(alnum) - 1)];
}

static void
gen_vocab(uint64_t *s, uint8_t *out, int *len, int max)
{
	const char *v = vocab[rndn(s, NVOCAB)];

	for (; *v && *len < max; v++)
		out[(*len)++] = (uint8_t)*v;
}

static void
gen_bin(uint64_t *s, uint8_t *out, int *len, int max, int n)
{
	/* Binary contents in rules favour 00, FF, NOP sleds and small
	 * protocol numbers; the rest is uniform. */
	static const uint8_t fav[] = { 0x00, 0x00, 0x00, 0xff, 0x90, 0x01,
				       0x02, 0x03, 0x04, 0x05, 0x0a, 0x0d };
	for (int i = 0; i < n && *len < max; i++)
		out[(*len)++] = rndn(s, 3) == 0 ?
				fav[rndn(s, sizeof(fav))] : (uint8_t)rnd(s);
}

/* Target length drawn from a distribution like Snort content strings:
 * most 4..20 bytes, a tail up to 64 and a few long ones. */
static int
gen_target_len(uint64_t *s)
{
	uint32_t r = rndn(s, 100);

	if (r < 60)
		return 4 + (int)rndn(s, 9);    /* 4..12 */
	if (r < 90)
		return 13 + (int)rndn(s, 20);  /* 13..32 */
	if (r < 98)
		return 33 + (int)rndn(s, 32);  /* 33..64 */
	return 65 + (int)rndn(s, 64);          /* 65..128 */
}

static void
gen_one(uint64_t *s, uint8_t *out, int *len)
{
	int target = gen_target_len(s);
	uint32_t kind = rndn(s, 100);

	*len = 0;
	while (*len < target) {
		if (kind < 30) {        /* text: vocabulary and words */
			if (rndn(s, 2))
				gen_vocab(s, out, len, target);
			else
				gen_word(s, out, len, target);
		} else if (kind < 55) { /* URI-like: path + word + suffix */
			gen_vocab(s, out, len, target);
			gen_word(s, out, len, target);
		} else if (kind < 80) { /* binary */
			gen_bin(s, out, len, target, target);
		} else {                /* mixed: |00|word|00| and friends */
			if (rndn(s, 2))
				gen_bin(s, out, len, target, 1 + (int)rndn(s, 4));
			else
				gen_vocab(s, out, len, target);
		}
	}
}

static uint64_t
fnv(const uint8_t *p, int n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h | 1; /* 0 marks an empty slot */
}

int
hp_nf_patset_generate(uint64_t seed, uint32_t n, struct hp_nf_patset **out)
{
	struct hp_nf_patset *ps;
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
	uint64_t *set;
	uint32_t *setidx;
	uint32_t cap = 1;
	int rc = -ENOMEM;

	if (n == 0 || n > HP_NF_PAT_MAX)
		return -EINVAL;
	while (cap < 2 * n)
		cap <<= 1;
	ps = hp_nf_patset_new();
	set = calloc(cap, sizeof(*set));
	setidx = calloc(cap, sizeof(*setidx));
	if (ps == NULL || set == NULL || setidx == NULL)
		goto fail;
	while (ps->n < n) {
		uint8_t p[HP_NF_PAT_MAXLEN];
		int len, dup = 0;
		uint64_t h;
		uint32_t slot;

		gen_one(&s, p, &len);
		/* No runs of one byte value (00 00 00 00, NOP sleds): they hit
		 * zero padding and counters in almost every packet, which
		 * would drown the share of matching packets we aim for. */
		if (memchr(p + 1, p[0], (size_t)len - 1) != NULL) {
			int run = 1;

			for (int j = 1; j < len && run; j++)
				run = p[j] == p[0];
			if (run)
				continue;
		}
		h = fnv(p, len);
		/* Distinct patterns only: duplicates would just repeat ids. */
		for (slot = (uint32_t)h & (cap - 1); set[slot] != 0;
		     slot = (slot + 1) & (cap - 1)) {
			uint32_t j = setidx[slot];

			if (set[slot] == h && ps->len[j] == len &&
			    memcmp(ps->pat[j], p, (size_t)len) == 0) {
				dup = 1;
				break;
			}
		}
		if (dup)
			continue;
		set[slot] = h;
		setidx[slot] = ps->n;
		rc = hp_nf_patset_add(ps, p, (uint16_t)len);
		if (rc != 0)
			goto fail;
	}
	free(set);
	free(setidx);
	*out = ps;
	return 0;
fail:
	free(set);
	free(setidx);
	hp_nf_patset_free(ps);
	return rc;
}

int
hp_nf_traffic_fill(const struct hp_nf_patset *ps, uint64_t *seed,
		   uint8_t *buf, uint32_t len, double p_match)
{
	/* Background: 70 % printable text, 30 % random bytes, which keeps
	 * accidental matches of >= 4-byte patterns rare (well below 1 %). */
	for (uint32_t i = 0; i < len; i++) {
		uint64_t r = rnd(seed);

		buf[i] = (r & 0xff) < 179 ? (uint8_t)(0x20 + (r >> 8) % 95) :
					    (uint8_t)(r >> 16);
	}
	if (ps == NULL || ps->n == 0 ||
	    (double)(rnd(seed) >> 11) * (1.0 / 9007199254740992.0) >= p_match)
		return 0;
	uint32_t id = rndn(seed, ps->n);
	uint32_t pl = ps->len[id];

	if (pl > len)
		return 0;
	memcpy(buf + rndn(seed, len - pl + 1), ps->pat[id], pl);
	return 1;
}
