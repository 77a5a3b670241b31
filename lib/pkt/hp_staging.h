/* SPDX-License-Identifier: BSD-3-Clause
 * Staging buffers with retry (Johansson & Pap, Source Code 4.1/4.2): every
 * enqueue into a ring or port goes through one, so a full ring never drops
 * a packet; what did not fit stays at the front and is retried, and the
 * producer stops taking new work while the buffer is full. Used by the
 * devices and the pipeline's scheduler, hence here below both.
 */
#ifndef HP_STAGING_H
#define HP_STAGING_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#define HP_STAGING_MAX 4096

struct hp_staging {
	uint32_t len;
	uint32_t cap;     /* <= HP_STAGING_MAX */
	uint64_t retries; /* flushes that could not take everything */
	struct rte_mbuf *buf[HP_STAGING_MAX];
};

static inline void
hp_staging_init(struct hp_staging *s, uint32_t cap)
{
	s->len = 0;
	s->retries = 0;
	s->cap = cap > HP_STAGING_MAX ? HP_STAGING_MAX : cap;
}

static inline uint32_t
hp_staging_room(const struct hp_staging *s)
{
	return s->cap - s->len;
}

static inline int
hp_staging_put(struct hp_staging *s, struct rte_mbuf *m)
{
	if (s->len == s->cap)
		return -ENOSPC;
	s->buf[s->len++] = m;
	return 0;
}

/* Drops the first n (taken by the consumer) and keeps the rest in order. */
static inline void
hp_staging_consume(struct hp_staging *s, uint32_t n)
{
	if (n == 0) {
		if (s->len)
			s->retries++;
		return;
	}
	if (n < s->len) {
		memmove(s->buf, s->buf + n, (s->len - n) * sizeof(s->buf[0]));
		s->retries++;
	}
	s->len -= n;
}

/* Enqueues into a ring; returns how many went. */
static inline uint32_t
hp_staging_flush_ring(struct hp_staging *s, struct rte_ring *r)
{
	uint32_t n;

	if (s->len == 0)
		return 0;
	n = rte_ring_enqueue_burst(r, (void **)s->buf, s->len, NULL);
	hp_staging_consume(s, n);
	return n;
}

/* Transmits on a port queue in bursts; returns how many went. */
static inline uint32_t
hp_staging_flush_eth(struct hp_staging *s, uint16_t port, uint16_t q)
{
	uint32_t done = 0;

	while (done < s->len) {
		uint16_t want = (uint16_t)RTE_MIN(s->len - done, 512u);
		uint16_t n = rte_eth_tx_burst(port, q, s->buf + done, want);

		done += n;
		if (n < want)
			break;
	}
	hp_staging_consume(s, done);
	return done;
}

#endif /* HP_STAGING_H */
