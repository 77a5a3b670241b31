/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMPP v3.4 time fields (7.1.1): schedule_delivery_time, validity_period
 * and final_date.  The decoder only checks their length; an SMSC must also
 * refuse a month 13 or "garbage_garbage1" (ESME_RINVSCHED/ESME_RINVEXPIRY),
 * which needs the calendar.  Days are counted with the proleptic Gregorian
 * algorithm of H. Hinnant ("chrono-Compatible Low-Level Date Algorithms"),
 * so no libc time zone state is read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "smpp.h"

#define MS_DAY 86400000LL

/* Days since 1970-01-01 of y-m-d; d may exceed the month's length (it
 * rolls over), which relative times rely on. */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static unsigned
month_days(int64_t y, unsigned m)
{
	static const uint8_t n[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return n[m - 1] + (m == 2 && leap);
}

static int64_t
floor_day(int64_t t_ms)
{
	return t_ms >= 0 ? t_ms / MS_DAY : (t_ms - MS_DAY + 1) / MS_DAY;
}

/* Two decimal digits at s, or -1. */
static int
dd(const uint8_t *s)
{
	if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
		return -1;
	return (s[0] - '0') * 10 + (s[1] - '0');
}

int
smpp_time_parse(const uint8_t *s, size_t len, int64_t now_ms, int64_t *t_ms)
{
	int v[6], t, nn;
	int64_t y, ms;
	unsigned m, d;

	if (len == 0)
		return SMPP_TIME_NONE;
	if (len != 16)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		if ((v[i] = dd(s + 2 * i)) < 0)
			return -EINVAL;
	if (s[12] < '0' || s[12] > '9' || (nn = dd(s + 13)) < 0)
		return -EINVAL;
	t = s[12] - '0';
	if (s[15] == 'R') {
		/* an interval: tnn is "000" (7.1.1.2) */
		if (t != 0 || nn != 0)
			return -EINVAL;
		civil_from_days(floor_day(now_ms), &y, &m, &d);
		ms = now_ms - floor_day(now_ms) * MS_DAY;
		y += v[0] + (int64_t)(m - 1 + (unsigned)v[1]) / 12;
		m = (m - 1 + (unsigned)v[1]) % 12 + 1;
		*t_ms = (days_from_civil(y, m, d) + v[2]) * MS_DAY + ms +
			((int64_t)v[3] * 3600 + v[4] * 60 + v[5]) * 1000;
		return SMPP_TIME_REL;
	}
	if ((s[15] != '+' && s[15] != '-') || nn > 48)
		return -EINVAL;
	y = 2000 + v[0];
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || (unsigned)v[2] > month_days(y, (unsigned)v[1]) ||
	    v[3] > 23 || v[4] > 59 || v[5] > 59)
		return -EINVAL;
	/* local time nn quarter hours ahead of UTC ('+'): UTC = local - offset */
	ms = (days_from_civil(y, (unsigned)v[1], (unsigned)v[2]) * 86400 +
	      v[3] * 3600 + v[4] * 60 + v[5]) * 1000 + t * 100;
	ms -= (s[15] == '+' ? 1 : -1) * (int64_t)nn * 15 * 60 * 1000;
	*t_ms = ms;
	return SMPP_TIME_ABS;
}

int
smpp_time_format(int64_t t_ms, char out[17])
{
	int64_t day = floor_day(t_ms);
	int64_t ms = t_ms - day * MS_DAY, y;
	unsigned m, d, sec = (unsigned)(ms / 1000);
	char t[64];

	civil_from_days(day, &y, &m, &d);
	if (y < 2000 || y > 2099)
		return -ERANGE;
	/* every value has its two digits here; the compiler cannot see it */
	snprintf(t, sizeof(t), "%02u%02u%02u%02u%02u%02u%u00+", (unsigned)(y - 2000), m, d,
		 sec / 3600, sec / 60 % 60, sec % 60, (unsigned)(ms % 1000) / 100);
	memcpy(out, t, 17);
	return 0;
}
