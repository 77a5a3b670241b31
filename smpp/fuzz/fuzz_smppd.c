/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target for hp-smppd's parsers of outside input that are not PDUs:
 * the users file (smpp/tools/smppd_users.c) and the time fields of v3.4
 * 7.1.1 (smpp_time_parse; the PDU decoder's fuzz target also feeds it
 * every time field it decodes).  Plus a standalone main() that replays a
 * corpus when built without libFuzzer:
 *
 *   fuzz_smppd FILE|DIR...
 *
 * The first octet picks the parser (even: users file, odd: time field);
 * the rest is its input.  Checked: the users parser returns users within
 * the v3.4 limits or a "line N: ..." refusal; a time that parses formats
 * back to itself (absolute) or lies ahead of now (relative).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smpp.h"
#include "smppd.h"

#define CHECK(c) do { if (!(c)) { \
	fprintf(stderr, "fuzz_smppd: check failed: %s (line %d)\n", #c, __LINE__); \
	abort(); } } while (0)

/* 2026-11-26 12:00 UTC: a fixed now, so a run repeats */
#define NOW_MS 1795694400000LL

static void
check_users(const uint8_t *data, size_t size)
{
	static struct smppd_user u[SMPPD_MAX_USERS];
	char err[160];
	unsigned n = 99;
	int rc = smppd_users_parse((const char *)data, size, u, SMPPD_MAX_USERS, &n, err,
				   sizeof(err));

	if (rc < 0) {
		CHECK(rc == -EINVAL);
		CHECK(strncmp(err, "line ", 5) == 0 || strncmp(err, "no 'user", 8) == 0);
		return;
	}
	CHECK(rc == 0 && n >= 1 && n <= SMPPD_MAX_USERS);
	for (unsigned i = 0; i < n; i++) {
		CHECK(strlen(u[i].id) >= 1 && strlen(u[i].id) <= 15);
		if (u[i].hashed) {
			CHECK(u[i].iter >= SMPPD_ITER_MIN && u[i].iter <= SMPPD_ITER_MAX);
			CHECK(u[i].salt_len >= 8 && u[i].salt_len <= SMPPD_SALT_MAX);
		} else {
			CHECK(strlen(u[i].plain) >= 1 && strlen(u[i].plain) <= 8);
		}
		for (unsigned k = 0; k < i; k++)
			CHECK(strcmp(u[i].id, u[k].id) != 0);
	}
}

static void
check_time(const uint8_t *s, size_t len)
{
	int64_t t = 0, t2 = 0;
	char out[17];
	int k = smpp_time_parse(s, len, NOW_MS, &t);

	if (k < 0) {
		CHECK(k == -EINVAL);
		return;
	}
	CHECK(len == 0 || len == 16);
	if (k == SMPP_TIME_REL) {
		/* at most 99 years, 99 months, 99 days and 99:99:99 ahead */
		CHECK(t >= NOW_MS && t <= NOW_MS + 209LL * 366 * 86400000);
		CHECK(s[15] == 'R');
	}
	if (k == SMPP_TIME_ABS && smpp_time_format(t, out) == 0) {
		CHECK(smpp_time_parse((const uint8_t *)out, 16, NOW_MS, &t2) == SMPP_TIME_ABS);
		CHECK(t2 == t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		check_time(data + 1, size - 1);
	else
		check_users(data + 1, size - 1);
	return 0;
}

#ifndef SMPP_LIBFUZZER
static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 20];
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "fuzz_smppd: cannot read %s\n", path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int
main(int argc, char **argv)
{
	int fails = 0, files = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (d == NULL) {
			fails += replay_file(argv[i]);
			files++;
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			char path[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			fails += replay_file(path);
			files++;
		}
		closedir(d);
	}
	printf("fuzz_smppd: %d inputs replayed, %d failed\n", files, fails);
	return fails != 0 || files == 0;
}
#endif
