/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests for DPI pattern files: Snort-style escapes, every error with
 * its line number, limits, write/parse round trips, generator determinism
 * and a fuzz run of the parser on hostile random input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hp_nf.h"

static int
parse(const char *txt, struct hp_nf_patset **out, char *err)
{
	struct hp_nf_patset *ps = hp_nf_patset_new();
	int rc = hp_nf_patset_parse(ps, txt, strlen(txt), "t", err, 256);

	*out = ps;
	return rc;
}

static void
test_escapes(void **state)
{
	struct hp_nf_patset *ps;
	char err[256];

	assert_int_equal(parse("# comment\n"
			       "GET /\n"
			       "\n"
			       "|00 01 86 A5|\n"
			       "SMB|25|x\r\n"
			       "a\\|b\\\\c\\\"d\\;\n"
			       "|0d0a|\n"
			       "x|4142 43|y", &ps, err), 0);
	assert_int_equal(ps->n, 6);
	assert_int_equal(ps->len[0], 5);
	assert_memory_equal(ps->pat[0], "GET /", 5);
	assert_int_equal(ps->len[1], 4);
	assert_memory_equal(ps->pat[1], "\x00\x01\x86\xa5", 4);
	assert_int_equal(ps->len[2], 5);
	assert_memory_equal(ps->pat[2], "SMB%x", 5);
	assert_int_equal(ps->len[3], 8);
	assert_memory_equal(ps->pat[3], "a|b\\c\"d;", 8);
	assert_int_equal(ps->len[4], 2);
	assert_memory_equal(ps->pat[4], "\r\n", 2);
	assert_int_equal(ps->len[5], 5);
	assert_memory_equal(ps->pat[5], "xABCy", 5);
	hp_nf_patset_free(ps);
}

static void
expect_err(const char *txt, const char *want)
{
	struct hp_nf_patset *ps;
	char err[256] = "";

	assert_int_equal(parse(txt, &ps, err), -EINVAL);
	if (strstr(err, want) == NULL)
		fail_msg("error '%s' does not contain '%s'", err, want);
	assert_null(strchr(err, '\n'));
	hp_nf_patset_free(ps);
}

static void
test_errors(void **state)
{
	char longp[300];

	expect_err("ok\n|4G|\n", "t:2: invalid character 'G'");
	expect_err("ok\n\nab|41\n", "t:3: unterminated |hex| escape");
	expect_err("|414|\n", "t:1: odd number of hex digits");
	expect_err("|4 1|\n", "t:1: odd number of hex digits");
	expect_err("x||\n", "t:1: empty |hex| escape");
	expect_err("a\\n\n", "t:1: invalid escape '\\n'");
	expect_err("abc\\", "t:1: backslash at end of line");
	memset(longp, 'a', 256);
	longp[256] = '\0';
	expect_err(longp, "t:1: pattern longer than 255 bytes");
	longp[255] = '\0';
	{
		struct hp_nf_patset *ps;
		char err[256];

		assert_int_equal(parse(longp, &ps, err), 0);
		assert_int_equal(ps->len[0], 255);
		hp_nf_patset_free(ps);
	}
}

static void
test_load_errors(void **state)
{
	struct hp_nf_patset *ps = NULL;
	char err[256], path[] = "/tmp/hp_nf_patXXXXXX";
	int fd;

	assert_int_equal(hp_nf_patset_load("/nonexistent/p.txt", &ps, err,
					   sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot open pattern file"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "# only a comment\n\n", 18), 18);
	close(fd);
	assert_int_equal(hp_nf_patset_load(path, &ps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no patterns"));
	unlink(path);
}

static int
sets_equal(const struct hp_nf_patset *a, const struct hp_nf_patset *b)
{
	if (a->n != b->n)
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->len[i] != b->len[i] ||
		    memcmp(a->pat[i], b->pat[i], a->len[i]) != 0)
			return 0;
	return 1;
}

static void
roundtrip(const struct hp_nf_patset *ps)
{
	struct hp_nf_patset *back = hp_nf_patset_new();
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(hp_nf_patset_write(ps, f), 0);
	fclose(f);
	if (hp_nf_patset_parse(back, buf, len, "rt", err, sizeof(err)) != 0)
		fail_msg("round trip: %s", err);
	assert_true(sets_equal(ps, back));
	hp_nf_patset_free(back);
	free(buf);
}

static void
test_generator(void **state)
{
	struct hp_nf_patset *a, *b, *c;
	uint32_t bin = 0, maxlen = 0, minlen = 999;

	assert_int_equal(hp_nf_patset_generate(1, 10000, &a), 0);
	assert_int_equal(hp_nf_patset_generate(1, 10000, &b), 0);
	assert_int_equal(hp_nf_patset_generate(2, 10000, &c), 0);
	assert_true(sets_equal(a, b));
	assert_false(sets_equal(a, c));
	for (uint32_t i = 0; i < a->n; i++) {
		int has_bin = 0;

		for (uint32_t j = 0; j < a->len[i]; j++)
			has_bin |= a->pat[i][j] < 0x20 || a->pat[i][j] >= 0x7f;
		bin += (uint32_t)has_bin;
		if (a->len[i] > maxlen)
			maxlen = a->len[i];
		if (a->len[i] < minlen)
			minlen = a->len[i];
	}
	/* A Snort-like mix: both text and binary contents, 4..128 bytes. */
	assert_true(bin > 1500 && bin < 6000);
	assert_true(minlen == 4 && maxlen > 64 && maxlen <= 128);
	roundtrip(a);
	hp_nf_patset_free(a);
	hp_nf_patset_free(b);
	hp_nf_patset_free(c);
	assert_int_equal(hp_nf_patset_generate(1, 0, &a), -EINVAL);
}

static void
test_fuzz(void **state)
{
	/* Random documents biased towards the syntax's special bytes. Each
	 * must either parse (and then survive a write/parse round trip) or
	 * fail with one line naming a line number. */
	static const char alpha[] = "||||\\\\ 0123456789abcdefABCDEFG#\n\r\"; xyz\x01\xff";
	uint64_t s = 12345;
	unsigned int ok = 0, bad = 0;

	for (int it = 0; it < 20000; it++) {
		char doc[128], err[256] = "";
		size_t n;
		struct hp_nf_patset *ps = hp_nf_patset_new();
		int rc;

		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (size_t)(s >> 58);
		for (size_t i = 0; i < n; i++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			doc[i] = (s >> 40) % 5 == 0 ? (char)(s >> 50) :
				 alpha[(s >> 33) % (sizeof(alpha) - 1)];
		}
		rc = hp_nf_patset_parse(ps, doc, n, "fz", err, sizeof(err));
		if (rc == 0) {
			ok++;
			roundtrip(ps);
		} else {
			bad++;
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(strncmp(err, "fz:", 3), 0);
			assert_null(strchr(err, '\n'));
		}
		hp_nf_patset_free(ps);
	}
	assert_true(ok > 1000 && bad > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_generator),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
