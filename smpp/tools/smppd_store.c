/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp-smppd's message store: what query_sm, cancel_sm, replace_sm and the
 * delivery receipts read.  Records sit in a ring in id order, so the
 * oldest leaves first and a lookup is a binary search, with no hash table
 * to size; pending ones are in a min-heap by the time they become final.
 * Everything is allocated (and touched) at start, so the memory a run
 * uses does not grow with its length.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smppd.h"

#define NO_HEAP UINT32_MAX

static uint32_t
phys(const struct smppd_store *st, uint32_t i)
{
	uint32_t p = st->head + i;

	return p >= st->cap ? p - st->cap : p;
}

int
smppd_store_init(struct smppd_store *st, uint32_t cap)
{
	memset(st, 0, sizeof(*st));
	st->m = calloc(cap, sizeof(*st->m));
	st->heap = calloc(cap, sizeof(*st->heap));
	if (st->m == NULL || st->heap == NULL) {
		smppd_store_free(st);
		return -ENOMEM;
	}
	/* touch every page now: the resident size is flat from the start */
	memset(st->m, 0, (size_t)cap * sizeof(*st->m));
	memset(st->heap, 0xff, (size_t)cap * sizeof(*st->heap));
	st->cap = cap;
	return 0;
}

void
smppd_store_free(struct smppd_store *st)
{
	free(st->m);
	free(st->heap);
	for (unsigned u = 0; u < SMPPD_MAX_USERS; u++)
		free(st->dq[u].q);
	memset(st, 0, sizeof(*st));
}

uint64_t
smppd_store_new_id(struct smppd_store *st, int64_t now_us)
{
	uint64_t id = now_us > 0 ? (uint64_t)now_us : 0;

	if (id <= st->last_id)
		id = st->last_id + 1;
	st->last_id = id;
	return id;
}

int64_t
smppd_store_final_ms(const struct smppd_msg *m)
{
	return m->due_ms < m->expire_ms ? m->due_ms : m->expire_ms;
}

/* ---- the timer heap ----------------------------------------------------- */

static int
before(const struct smppd_store *st, uint32_t a, uint32_t b)
{
	return smppd_store_final_ms(&st->m[a]) < smppd_store_final_ms(&st->m[b]);
}

static void
heap_set(struct smppd_store *st, uint32_t i, uint32_t slot)
{
	st->heap[i] = slot;
	st->m[slot].heap = i;
}

static void
heap_up(struct smppd_store *st, uint32_t i)
{
	uint32_t s = st->heap[i];

	while (i > 0 && before(st, s, st->heap[(i - 1) / 2])) {
		heap_set(st, i, st->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(st, i, s);
}

static void
heap_down(struct smppd_store *st, uint32_t i)
{
	uint32_t s = st->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= st->nheap)
			break;
		if (c + 1 < st->nheap && before(st, st->heap[c + 1], st->heap[c]))
			c++;
		if (!before(st, st->heap[c], s))
			break;
		heap_set(st, i, st->heap[c]);
		i = c;
	}
	heap_set(st, i, s);
}

static void
heap_del(struct smppd_store *st, uint32_t slot)
{
	uint32_t i = st->m[slot].heap, last;

	if (i == NO_HEAP)
		return;
	st->m[slot].heap = NO_HEAP;
	if (--st->nheap == i)
		return;
	/* the last entry fills the hole and moves whichever way it must */
	last = st->heap[st->nheap];
	heap_set(st, i, last);
	heap_down(st, i);
	heap_up(st, st->m[last].heap);
}

void
smppd_store_retime(struct smppd_store *st, uint32_t slot)
{
	struct smppd_msg *m = &st->m[slot];

	if (m->state != SMPP_STATE_ENROUTE) {
		heap_del(st, slot);
		return;
	}
	if (m->heap == NO_HEAP) {
		heap_set(st, st->nheap++, slot);
		heap_up(st, st->nheap - 1);
		return;
	}
	heap_up(st, m->heap);
	heap_down(st, m->heap);
}

int64_t
smppd_store_next_due(const struct smppd_store *st)
{
	return st->nheap ? smppd_store_final_ms(&st->m[st->heap[0]]) : INT64_MAX;
}

int64_t
smppd_store_pop_due(struct smppd_store *st, int64_t now_ms)
{
	uint32_t s;

	if (st->nheap == 0 || smppd_store_final_ms(&st->m[st->heap[0]]) > now_ms)
		return -1;
	s = st->heap[0];
	heap_del(st, s);
	return s;
}

/* ---- records ------------------------------------------------------------ */

int
smppd_store_room(struct smppd_store *st, uint32_t k)
{
	if (k > st->cap)
		return -ENOSPC;
	while (st->n + k > st->cap) {
		struct smppd_msg *old = &st->m[st->head];

		if (old->state == SMPP_STATE_ENROUTE) {
			st->full++;
			return -ENOSPC;
		}
		/* a receipt still waiting for a receiver goes with it (its
		 * queue entry no longer matches the slot's id) */
		if (old->dlr)
			st->dlr_dropped++;
		old->id = 0;
		old->dlr = 0;
		st->head = st->head + 1 == st->cap ? 0 : st->head + 1;
		st->n--;
		st->evicted++;
	}
	return 0;
}

uint32_t
smppd_store_add(struct smppd_store *st, const struct smppd_msg *m)
{
	uint32_t slot = phys(st, st->n);

	st->m[slot] = *m;
	st->m[slot].heap = NO_HEAP;
	st->n++;
	smppd_store_retime(st, slot);
	return slot;
}

struct smppd_msg *
smppd_store_find(struct smppd_store *st, uint64_t id, uint32_t *slot)
{
	uint32_t lo = 0, hi = st->n;

	/* the first logical index whose id is >= id */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->m[phys(st, mid)].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == st->n || st->m[phys(st, lo)].id != id)
		return NULL;
	*slot = phys(st, lo);
	return &st->m[*slot];
}

struct smppd_msg *
smppd_store_next(struct smppd_store *st, uint32_t *slot)
{
	uint32_t logical = *slot >= st->head ? *slot - st->head : *slot + st->cap - st->head;
	uint32_t nx;

	if (logical + 1 >= st->n)
		return NULL;
	nx = phys(st, logical + 1);
	if (st->m[nx].id != st->m[*slot].id)
		return NULL;
	*slot = nx;
	return &st->m[nx];
}

/* ---- receipt queues ----------------------------------------------------- */

int
smppd_store_dlr_push(struct smppd_store *st, unsigned user, uint32_t slot)
{
	struct smppd_dlr_q *q = &st->dq[user];

	if (q->n == q->cap) {
		uint32_t nc = q->cap ? q->cap * 2 : 1024;
		struct smppd_dlr_ref *nq;

		if (nc > st->cap)
			nc = st->cap;
		if (nc <= q->cap) {
			/* as many waiting as the store holds: the oldest
			 * entry is stale or about to be, drop it */
			q->head = (q->head + 1) % q->cap;
			q->n--;
			st->dlr_dropped++;
		} else {
			nq = malloc((size_t)nc * sizeof(*nq));
			if (nq == NULL)
				return -ENOMEM;
			for (uint32_t i = 0; i < q->n; i++)
				nq[i] = q->q[(q->head + i) % q->cap];
			free(q->q);
			q->q = nq;
			q->head = 0;
			q->cap = nc;
		}
	}
	q->q[(q->head + q->n) % q->cap] = (struct smppd_dlr_ref){ slot, st->m[slot].id };
	q->n++;
	return 0;
}

struct smppd_msg *
smppd_store_dlr_pop(struct smppd_store *st, unsigned user, uint32_t *slot)
{
	struct smppd_dlr_q *q = &st->dq[user];

	while (q->n > 0) {
		struct smppd_dlr_ref r = q->q[q->head];

		q->head = (q->head + 1) % q->cap;
		q->n--;
		if (st->m[r.slot].id == r.id && st->m[r.slot].dlr) {
			*slot = r.slot;
			return &st->m[r.slot];
		}
	}
	return NULL;
}

uint32_t
smppd_store_dlr_len(const struct smppd_store *st, unsigned user)
{
	return st->dq[user].n;
}

/* ---- receipts ----------------------------------------------------------- */

static const char *const stat_names[] = {
	[SMPP_STATE_ENROUTE] = "ENROUTE", [SMPP_STATE_DELIVERED] = "DELIVRD",
	[SMPP_STATE_EXPIRED] = "EXPIRED", [SMPP_STATE_DELETED] = "DELETED",
	[SMPP_STATE_UNDELIVERABLE] = "UNDELIV", [SMPP_STATE_ACCEPTED] = "ACCEPTD",
	[SMPP_STATE_UNKNOWN] = "UNKNOWN", [SMPP_STATE_REJECTED] = "REJECTD",
};

const char *
smppd_state_stat(unsigned state)
{
	if (state >= sizeof(stat_names) / sizeof(stat_names[0]))
		return NULL;
	return stat_names[state];
}

int
smppd_state_parse(const char *stat)
{
	for (unsigned i = SMPP_STATE_DELIVERED; i < sizeof(stat_names) / sizeof(stat_names[0]); i++)
		if (strcmp(stat, stat_names[i]) == 0)
			return (int)i;
	return -1;
}

/* YYMMDDhhmm (appendix B) in UTC, from the absolute format's first ten. */
static void
rdate(int64_t ms, char out[11])
{
	char t[17];

	if (smpp_time_format(ms, t) < 0)
		memcpy(t, "0000000000", 11);
	memcpy(out, t, 10);
	out[10] = '\0';
}

int
smppd_receipt_text(const struct smppd_msg *m, char *out, size_t cap)
{
	char sub[11], done[11], text[SMPPD_TEXT + 1];
	int n;

	rdate(m->submit_ms, sub);
	rdate(m->done_ms, done);
	/* the text field is the message's first 20 octets; a NUL would end
	 * the receipt for C-minded parsers, so it becomes '.' */
	for (unsigned i = 0; i < m->text_len; i++)
		text[i] = m->text[i] ? (char)m->text[i] : '.';
	text[m->text_len] = '\0';
	n = snprintf(out, cap, "id:%016llx sub:001 dlvrd:%03u submit date:%s done date:%s "
		     "stat:%s err:%03u text:%s", (unsigned long long)m->id,
		     m->state == SMPP_STATE_DELIVERED, sub, done,
		     smppd_state_stat(m->state) ? smppd_state_stat(m->state) : "UNKNOWN",
		     m->err, text);
	return n < (int)cap ? n : (int)cap - 1;
}
