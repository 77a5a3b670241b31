/* SPDX-License-Identifier: BSD-3-Clause
 * Numbers from outside (a flag's value, a field of an input file), parsed
 * whole, bounded and finite: strtoul would wrap "-1" and "4294967551",
 * sscanf's %u wraps silently, strtod takes "nan", "inf", "0x1p3" and
 * leading blanks, and 1e400 becomes inf.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "hp_common.h"

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int
hp_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	uint64_t x = 0;
	const char *p;

	if (s == NULL || !is_digit(*s))
		return -EINVAL;
	for (p = s; is_digit(*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	if (*p != '\0')
		return -EINVAL;
	if (x < lo || x > hi)
		return -ERANGE;
	*v = x;
	return 0;
}

int
hp_parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *v)
{
	uint64_t x;
	int ret = hp_parse_u64(s, lo, hi, &x);

	if (ret == 0)
		*v = (unsigned int)x;
	return ret;
}

int
hp_parse_double_prefix(const char *s, double lo, double hi, double *v, const char **end)
{
	const char *p = s;
	char *e;
	double x;

	if (s == NULL)
		return -EINVAL;
	/* a plain decimal: [-]digits[.digits][e[+-]digits]; what strtod
	 * would also take (blanks, '+', inf, nan, hex) is refused first */
	if (*p == '-')
		p++;
	if ((!is_digit(*p) && !(*p == '.' && is_digit(p[1]))) ||
	    (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
		return -EINVAL;
	errno = 0;
	x = strtod(s, &e);
	if (e == s || errno == ERANGE || !isfinite(x))
		return -ERANGE;
	if (x < lo || x > hi)
		return -ERANGE;
	*v = x;
	*end = e;
	return 0;
}

int
hp_parse_double(const char *s, double lo, double hi, double *v)
{
	const char *end;
	double x;
	int ret = hp_parse_double_prefix(s, lo, hi, &x, &end);

	if (ret < 0)
		return ret;
	if (*end != '\0')
		return -EINVAL;
	*v = x;
	return 0;
}
