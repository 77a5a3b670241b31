/* SPDX-License-Identifier: BSD-3-Clause
 * The scheduler's flow table on rte_hash (see hp_flowtab.h).
 * Cost: a burst's lookup is one compare per packet in the id cache and
 * one rte_hash_lookup_with_hash_bulk for those it missed (it prefetches
 * their buckets and keys together), and one 32-byte state per packet; a
 * new flow adds one insert. bench/flows measures the
 * scheduler with 1k and 100k live flows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash.h>

#include "hp_flowtab.h"

/* Positions the sweep looks at per call: at least this, at most that. */
#define SWEEP_MIN 16u
#define SWEEP_MAX 4096u

int
hp_flowtab_init(struct hp_flowtab *t, uint32_t max, uint64_t idle, uint64_t per_idle,
		int socket)
{
	static unsigned int serial; /* rte_hash names are unique per process */
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters p = {
		.name = name,
		/* rte_hash takes 8 at least; the table counts its own max */
		.entries = RTE_MAX(max, 8u),
		.key_len = sizeof(uint64_t),
		.socket_id = socket,
		/* extendable buckets: every one of max keys fits whatever
		 * their hashes, where plain cuckoo may refuse some at ~95 % */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	uint64_t n;
	int32_t np;

	memset(t, 0, sizeof(*t));
	if (max == 0 || max > HP_FLOWTAB_MAX)
		return -EINVAL;
	snprintf(name, sizeof(name), "hp_flows%u", __atomic_fetch_add(&serial, 1,
								      __ATOMIC_RELAXED));
	t->h = rte_hash_create(&p);
	if (t->h == NULL)
		return -ENOMEM;
	np = rte_hash_max_key_id(t->h);
	if (np <= 0) {
		hp_flowtab_free(t);
		return -EINVAL;
	}
	t->n_pos = (uint32_t)np;
	t->f = calloc(t->n_pos, sizeof(*t->f));
	t->c = malloc(HP_FLOWTAB_CACHE * sizeof(*t->c));
	if (t->f == NULL || t->c == NULL) {
		hp_flowtab_free(t);
		return -ENOMEM;
	}
	for (n = 0; n < HP_FLOWTAB_CACHE; n++)
		t->c[n] = (struct hp_flowtab_cent){ .pos = UINT32_MAX };
	t->max = max;
	t->idle = idle;
	/* round the table about four times per idle time */
	n = per_idle ? ((uint64_t)t->n_pos * 4 + per_idle - 1) / per_idle : SWEEP_MAX;
	t->sweep_n = (uint32_t)RTE_MIN(RTE_MAX(n, (uint64_t)SWEEP_MIN),
				       (uint64_t)RTE_MIN(SWEEP_MAX, t->n_pos));
	return 0;
}

void
hp_flowtab_free(struct hp_flowtab *t)
{
	rte_hash_free(t->h);
	free(t->f);
	free(t->c);
	t->h = NULL;
	t->f = NULL;
	t->c = NULL;
}

uint32_t
hp_flowtab_add(struct hp_flowtab *t, uint64_t id, uint64_t now)
{
	hash_sig_t sig = hp_flowtab_sig(id);
	struct hp_flow *f;
	int32_t pos;

	if (t->live >= t->max) {
		/* full: it may still be one added earlier in this burst */
		pos = rte_hash_lookup_with_hash(t->h, &id, sig);
		if (pos < 0) {
			t->st.refused++;
			return HP_FLOW_UNTRACKED;
		}
		return (uint32_t)pos;
	}
	/* finds the key if it is there already, else inserts it */
	pos = rte_hash_add_key_with_hash(t->h, &id, sig);
	if (pos < 0 || (uint32_t)pos >= t->n_pos) {
		t->st.refused++;
		return HP_FLOW_UNTRACKED;
	}
	f = &t->f[pos];
	if (f->used)
		return (uint32_t)pos;
	*f = (struct hp_flow){
		.id = id,
		.last = now,
		.seq = (uint32_t)t->seq_next,
		.out_next = (uint32_t)t->seq_next,
		.used = 1,
	};
	*hp_flowtab_cent(t, id) = (struct hp_flowtab_cent){ .id = id, .pos = (uint32_t)pos };
	t->live++;
	t->st.created++;
	if (t->live > t->st.peak)
		t->st.peak = t->live;
	return (uint32_t)pos;
}

unsigned int
hp_flowtab_expire(struct hp_flowtab *t, uint64_t now)
{
	unsigned int i, gone = 0;

	/* an idle time of INT64_MAX or more: flows are never removed */
	if (t->live == 0 || t->idle >= (uint64_t)INT64_MAX)
		return 0;
	for (i = 0; i < t->sweep_n; i++) {
		struct hp_flow *f = &t->f[t->sweep];

		if (++t->sweep == t->n_pos)
			t->sweep = 0;
		if (!f->used || f->inflight != 0 ||
		    (int64_t)(now - f->last) < (int64_t)t->idle)
			continue;
		if (rte_hash_del_key_with_hash(t->h, &f->id, hp_flowtab_sig(f->id)) < 0)
			continue; /* cannot happen: the key is there */
		/* its position may go to another flow: the cache forgets it */
		if (hp_flowtab_cent(t, f->id)->id == f->id)
			hp_flowtab_cent(t, f->id)->pos = UINT32_MAX;
		f->used = 0;
		t->live--;
		t->st.expired++;
		gone++;
	}
	return gone;
}
