/* SPDX-License-Identifier: BSD-3-Clause
 * The scheduler's flow table: per 5-tuple (its flow_id) the sequence the
 * next packet takes, whether the flow needs order, how many of its
 * packets are in the pipeline and which sequence left last. Keys live in
 * a DPDK rte_hash (cuckoo, extendable buckets: every one of max flows
 * fits, lookups and inserts are O(1), and a full table refuses a new flow
 * in O(1) without probing); the state is an array indexed by the key's
 * position. A flow with nothing in the pipeline and no packet for the
 * idle time is removed by a sweep of a few positions per call, so dead
 * flows do not fill it.
 *
 * Sequences never repeat within a run while fewer than 2^32 packets were
 * counted in (hp_flowtab_seq_unique): a new flow starts at the count of
 * packets counted in so far, so a flow that expires and comes back
 * continues above every sequence it had, where restarting at 0 would
 * reuse AES-CTR counters and IVs of foreign traffic (docs/packet-format.md).
 */
#ifndef HP_FLOWTAB_H
#define HP_FLOWTAB_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_hash.h>
#include <rte_prefetch.h>

#include "hp_pkt.h"

#define HP_FLOWTAB_MAX (1u << 20)  /* most flows a table may hold */

/* A direct-mapped cache of flow id -> position in front of rte_hash: a
 * hit is one compare in 64 KiB (stays in L2) where the bulk lookup costs
 * some 50 cycles a packet; with more live flows than entries it mostly
 * misses and costs the rte_hash lookup it would have anyway. */
#define HP_FLOWTAB_CACHE 4096u

struct hp_flowtab_cent {
	uint64_t id;
	uint32_t pos;      /* UINT32_MAX: empty */
	uint32_t pad;
};

struct hp_flow {
	uint64_t id;       /* flow_id: the key */
	uint64_t last;     /* clock of its last packet in */
	uint32_t seq;      /* sequence of its next packet */
	uint32_t inflight; /* packets counted in and not yet out */
	uint32_t out_next; /* sequence after the highest that went out */
	uint8_t used;
	uint8_t order;     /* needs order: set by a packet whose type needs it */
	uint8_t pad[2];
};

struct hp_flowtab_stats {
	uint64_t created;   /* flows taken */
	uint64_t expired;   /* flows removed after the idle time */
	uint64_t refused;   /* packets of new flows a full table could not take */
	uint64_t peak;      /* most flows at once */
};

struct hp_flowtab {
	struct rte_hash *h;
	struct hp_flow *f;   /* by rte_hash position */
	struct hp_flowtab_cent *c; /* HP_FLOWTAB_CACHE entries by id */
	uint32_t max;        /* flows it takes */
	uint32_t live;       /* flows in it now */
	uint32_t n_pos;      /* positions rte_hash may return */
	uint32_t sweep;      /* next position the sweep looks at */
	uint32_t sweep_n;    /* positions per hp_flowtab_expire call */
	uint64_t idle;       /* clock units without a packet before expiry */
	uint64_t seq_next;   /* packets counted in: where a new flow starts */
	struct hp_flowtab_stats st;
};

/* max: 1..HP_FLOWTAB_MAX flows; idle: clock units a flow may go without
 * a packet (INT64_MAX or more: never removed); per_idle: how many hp_flowtab_expire calls the caller makes
 * in an idle time (each looks at enough positions to go round the table
 * about four times in that). socket: NUMA socket of the rte_hash. 0 or
 * -errno (-EINVAL for a bad max, -ENOMEM). */
int hp_flowtab_init(struct hp_flowtab *t, uint32_t max, uint64_t idle,
		    uint64_t per_idle, int socket);
void hp_flowtab_free(struct hp_flowtab *t);

static inline hash_sig_t
hp_flowtab_sig(uint64_t id)
{
	return (hash_sig_t)(id ^ (id >> 32));
}

static inline struct hp_flowtab_cent *
hp_flowtab_cent(const struct hp_flowtab *t, uint64_t id)
{
	/* the flow id is a hash already: its low bits spread */
	return &t->c[id & (HP_FLOWTAB_CACHE - 1)];
}

/* Looks up n ids (n <= RTE_HASH_LOOKUP_BULK_MAX): those the cache has,
 * then the others at once, so that rte_hash prefetches their buckets and
 * keys together: pos[i] is the flow's position, or < 0 when it is not in
 * the table. */
static inline void
hp_flowtab_find_bulk(struct hp_flowtab *t, const uint64_t *ids, unsigned int n,
		     int32_t *pos)
{
	const void *keys[RTE_HASH_LOOKUP_BULK_MAX];
	hash_sig_t sig[RTE_HASH_LOOKUP_BULK_MAX];
	int32_t mpos[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t idx[RTE_HASH_LOOKUP_BULK_MAX];
	unsigned int i, m = 0;

	for (i = 0; i < n; i++) {
		const struct hp_flowtab_cent *e = hp_flowtab_cent(t, ids[i]);

		if (e->id == ids[i] && e->pos != UINT32_MAX) {
			pos[i] = (int32_t)e->pos;
			continue;
		}
		idx[m] = (uint8_t)i;
		keys[m] = &ids[i];
		sig[m++] = hp_flowtab_sig(ids[i]);
	}
	if (m == 0)
		return;
	rte_hash_lookup_with_hash_bulk(t->h, keys, sig, m, mpos);
	for (i = 0; i < m; i++) {
		pos[idx[i]] = mpos[i];
		if (mpos[i] >= 0)
			*hp_flowtab_cent(t, ids[idx[i]]) = (struct hp_flowtab_cent){
				.id = ids[idx[i]], .pos = (uint32_t)mpos[i] };
	}
}

/* A flow the bulk lookup did not find (or added since): its position, or
 * HP_FLOW_UNTRACKED when the table is full (counted as refused). */
uint32_t hp_flowtab_add(struct hp_flowtab *t, uint64_t id, uint64_t now);

static inline void
hp_flowtab_prefetch(const struct hp_flowtab *t, uint32_t pos)
{
	rte_prefetch0(&t->f[pos]);
}

/* A packet of flow pos comes in: its sequence. */
static inline uint32_t
hp_flowtab_in(struct hp_flowtab *t, uint32_t pos, uint64_t now)
{
	struct hp_flow *f = &t->f[pos];

	f->last = now;
	f->inflight++;
	t->seq_next++;
	return f->seq++;
}

/* Counts a packet in that has no flow (untracked or not looked up), so
 * that the sequences of later flows still start above it. */
static inline void
hp_flowtab_count(struct hp_flowtab *t, unsigned int n)
{
	t->seq_next += n;
}

/* Whether the sequences handed out so far are unique in the run: false
 * once 2^32 packets were counted in (a sequence is 32 bits). */
static inline bool
hp_flowtab_seq_unique(const struct hp_flowtab *t)
{
	return (t->seq_next >> 32) == 0;
}

/* A packet of flow pos with sequence seq leaves (sent: out true; dropped:
 * false). Returns whether it went out after every lower sequence of its
 * flow that went out (in order), false for a dropped one. */
static inline bool
hp_flowtab_out(struct hp_flowtab *t, uint32_t pos, uint32_t seq, bool out)
{
	struct hp_flow *f = &t->f[pos];

	f->inflight--;
	if (!out)
		return false;
	if ((int32_t)(seq - f->out_next) >= 0) {
		f->out_next = seq + 1;
		return true;
	}
	return false;
}

/* Removes flows idle for t->idle with nothing in flight, looking at
 * t->sweep_n positions from where the last call stopped. Returns how many
 * it removed. */
unsigned int hp_flowtab_expire(struct hp_flowtab *t, uint64_t now);

#endif /* HP_FLOWTAB_H */
