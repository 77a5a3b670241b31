/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers the SMPP tools share (hp-smppd, hp-smppsim, hp-smpptune,
 * hp-smppdump's pcap reader): a monotonic clock, big-endian fields, and
 * growing a byte buffer.
 */
#ifndef SMPP_TOOL_UTIL_H
#define SMPP_TOOL_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double
tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline uint32_t
tool_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t
tool_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
tool_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
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

#endif /* SMPP_TOOL_UTIL_H */
