/* SPDX-License-Identifier: BSD-3-Clause
 * Helpers shared by the core's unit tests (cmocka): include it after
 * cmocka.h, whose assertions they use.
 */
#ifndef HP_TEST_H
#define HP_TEST_H

#include <stdio.h>

/* Writes text to path, the input file of a loader under test; a file that
 * cannot be written fails the test here rather than as a confusing load
 * error later. */
static inline void
hp_test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

#endif /* HP_TEST_H */
