/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers the SMPP tools share (hp-smppd, hp-smppsim, hp-smpptune,
 * hp-smppdump's pcap reader): a monotonic clock, big-endian fields (read
 * with the decoder's own smpp_rd32/smpp_rd16), hex digits, growing a byte
 * buffer, and flags that fail in one line.
 */
#ifndef SMPP_TOOL_UTIL_H
#define SMPP_TOOL_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "smpp_decode.h"

static inline double
tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void
tool_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The value of hex digit c (either case), or -1. */
static inline int
tool_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Room for n more octets after len in *buf of *cap (doubling from 4 KiB).
 * Returns 0 or -ENOMEM (the buffer is kept). */
static inline int
tool_reserve(uint8_t **buf, size_t *cap, size_t len, size_t n)
{
	size_t nc = *cap ? *cap : 4096;
	uint8_t *nb;

	if (*cap - len >= n)
		return 0;
	while (nc - len < n)
		nc *= 2;
	nb = realloc(*buf, nc);
	if (nb == NULL)
		return -ENOMEM;
	*buf = nb;
	*cap = nc;
	return 0;
}

/* A flag's number: the whole of s, finite, within [lo, hi]. 0, or -1
 * after one line on stderr naming the flag (a value that strtoul would
 * wrap, such as -1 for a count, is refused instead of becoming 4 billion). */
static inline int
tool_num(const char *prog, int flag, const char *s, double lo, double hi,
	 double *v)
{
	char *e;

	errno = 0;
	*v = strtod(s, &e);
	if (errno == 0 && e != s && *e == '\0' && *v >= lo && *v <= hi)
		return 0;
	fprintf(stderr, "%s: -%c: expected a number %g..%g\n", prog, flag, lo, hi);
	return -1;
}

/* getopt's answer to a bad flag (the optstring starts with ':' so that a
 * missing value is told apart, and opterr is 0): one line, exit code 2. */
static inline int
tool_bad_flag(const char *prog, int opt, int flag)
{
	if (!isprint(flag))
		flag = '?';
	if (flag == '-')
		fprintf(stderr, "%s: no long flags (--help): -h gives the usage\n", prog);
	else if (opt == ':')
		fprintf(stderr, "%s: -%c needs a value (-h: usage)\n", prog, flag);
	else
		fprintf(stderr, "%s: unknown flag -%c (-h: usage)\n", prog, flag);
	return 2;
}

#endif /* SMPP_TOOL_UTIL_H */
