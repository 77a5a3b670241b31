/* SPDX-License-Identifier: BSD-3-Clause
 * Sliding-window reorder, one window per flow while it holds something
 * (see hp_reorder.h).
 * Cost: a push of an in-order packet into an empty window is the NextExp
 * compare and the flow's 32-byte state (no window is touched), ~10 ns on
 * the scheduler lcore; a held packet adds a slot write, and the flow's
 * first hold one entry on the hold queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "hp_reorder.h"

/* What a skipped sequence leaves in its slot: not a packet. */
static char skip_mark;
#define SKIP ((struct rte_mbuf *)(void *)&skip_mark)

int
hp_reorder_init_pool(struct hp_reorder *r, uint32_t n_flows, uint32_t win,
		     uint32_t n_windows)
{
	uint32_t i, nq;

	memset(r, 0, sizeof(*r));
	if (win < 2 || !rte_is_power_of_2(win) || n_flows == 0 || n_windows == 0 ||
	    n_flows > (1u << 31))
		return -EINVAL;
	n_windows = RTE_MIN(n_windows, n_flows);
	nq = rte_align32pow2(n_flows);
	r->flows = calloc(n_flows, sizeof(*r->flows));
	r->slots = calloc((size_t)n_windows * win, sizeof(*r->slots));
	r->free_win = malloc((size_t)n_windows * sizeof(*r->free_win));
	r->q = malloc((size_t)nq * sizeof(*r->q));
	if (r->flows == NULL || r->slots == NULL || r->free_win == NULL || r->q == NULL) {
		hp_reorder_free(r);
		return -ENOMEM;
	}
	for (i = 0; i < n_windows; i++)
		r->free_win[i] = n_windows - 1 - i;
	r->n_win = r->n_free = n_windows;
	r->q_mask = nq - 1;
	r->win = win;
	r->mask = win - 1;
	r->n_flows = n_flows;
	return 0;
}

int
hp_reorder_init(struct hp_reorder *r, uint32_t n_flows, uint32_t win)
{
	return hp_reorder_init_pool(r, n_flows, win, n_flows);
}

void
hp_reorder_free(struct hp_reorder *r)
{
	free(r->flows);
	free(r->slots);
	free(r->free_win);
	free(r->q);
	r->flows = NULL;
	r->slots = NULL;
	r->free_win = NULL;
	r->q = NULL;
}

void
hp_reorder_reset_stats(struct hp_reorder *r)
{
	memset(&r->st, 0, sizeof(r->st));
}

double
hp_reorder_arrived_pct(const struct hp_reorder_stats *st)
{
	return st->packets ? 100.0 * (double)(st->packets - st->arrived_ooo) /
		(double)st->packets : 100.0;
}

double
hp_reorder_restored_pct(const struct hp_reorder_stats *st)
{
	return st->packets ? 100.0 * (double)(st->packets - st->late - st->drained) /
		(double)st->packets : 100.0;
}

/* The flow's window; valid while it holds something. */
static inline struct rte_mbuf **
wslots(struct hp_reorder *r, const struct hp_reorder_flow *fl)
{
	return &r->slots[(size_t)fl->win * r->win];
}

/* A slot came free; the window goes back to the pool with the last one. */
static inline void
slot_freed(struct hp_reorder *r, struct hp_reorder_flow *fl)
{
	if (--fl->held == 0)
		r->free_win[r->n_free++] = fl->win;
}

void
hp_reorder_flow_start(struct hp_reorder *r, uint32_t f, uint32_t seq)
{
	struct hp_reorder_flow *fl = &r->flows[f];
	struct rte_mbuf **s;
	uint32_t i;

	/* Skipped sequences an earlier flow of this slot still waited behind
	 * (every packet of it had left, so it could expire; only a gap whose
	 * packet went around the window, the pool empty, leaves that) are
	 * forgotten. A packet is never held here: held packets are in flight,
	 * and a flow with packets in flight does not expire. */
	if (fl->held != 0) {
		s = wslots(r, fl);
		for (i = 0; i < r->win && fl->held; i++)
			if (s[i] == SKIP) {
				s[i] = NULL;
				slot_freed(r, fl);
			}
	}
	/* queued and t_hold stay: a stale queue entry is dropped lazily */
	fl->base = seq;
	fl->next_out = seq;
	fl->next_exp = seq;
}


/* Puts m (or SKIP) into seq's slot, taking a window if the flow has none;
 * false when the pool is empty or the slot is taken (a repeated sequence). */
static inline bool
put(struct hp_reorder *r, struct hp_reorder_flow *fl, uint32_t seq, struct rte_mbuf *m)
{
	struct rte_mbuf **s;

	if (fl->held == 0) {
		if (r->n_free == 0)
			return false;
		fl->win = r->free_win[--r->n_free];
	}
	s = wslots(r, fl);
	if (s[seq & r->mask] != NULL)
		return false;
	s[seq & r->mask] = m;
	fl->held++;
	return true;
}

static inline void
emit(struct hp_reorder *r, struct hp_reorder_flow *fl, uint32_t seq,
     struct rte_mbuf *m, struct rte_mbuf **out, unsigned int *n)
{
	if ((int32_t)(seq - fl->next_out) >= 0) {
		r->st.in_order++;
		fl->next_out = seq + 1;
	}
	out[(*n)++] = m;
}

/* Sends the in-order run at the front of the window, passing over
 * skipped sequences. */
static inline void
advance(struct hp_reorder *r, struct hp_reorder_flow *fl, struct rte_mbuf **out,
	unsigned int *n)
{
	struct rte_mbuf **s, *m;

	while (fl->held) {
		s = wslots(r, fl);
		m = s[fl->base & r->mask];
		if (m == NULL)
			break;
		s[fl->base & r->mask] = NULL;
		if (m != SKIP) {
			emit(r, fl, fl->base, m, out, n);
			r->held--;
		}
		fl->base++;
		slot_freed(r, fl);
	}
}

/* Sends everything the window holds, in sequence order; every packet it
 * sends had a gap before it (advance sends every run that has none).
 * Returns the sequence after the last slot in use (base if none). */
static uint32_t
drain(struct hp_reorder *r, struct hp_reorder_flow *fl, struct rte_mbuf **out,
      unsigned int *n)
{
	uint32_t i, end = fl->base;
	struct rte_mbuf **s, *m;

	if (fl->held == 0)
		return end;
	s = wslots(r, fl);
	for (i = 0; i < r->win && fl->held; i++) {
		m = s[(fl->base + i) & r->mask];
		if (m == NULL)
			continue;
		s[(fl->base + i) & r->mask] = NULL;
		end = fl->base + i + 1;
		if (m != SKIP) {
			emit(r, fl, fl->base + i, m, out, n);
			r->held--;
			r->st.drained++;
		}
		slot_freed(r, fl);
	}
	return end;
}

static inline void
q_push(struct hp_reorder *r, uint32_t f, uint64_t due)
{
	/* entries stay sorted by due: a flow looked at again goes no earlier
	 * than the last one (it is released within twice the hold) */
	if (due < r->q_last)
		due = r->q_last;
	r->q[(r->q_head + r->q_n) & r->q_mask] = (struct hp_reorder_due){ f, due };
	r->q_n++;
	r->q_last = due;
	r->flows[f].queued = 1;
}

/* A flow that holds something after a push or skip waits for its front
 * gap from now if it did not hold before or its front moved. */
static inline void
hold_note(struct hp_reorder *r, uint32_t f, uint32_t was, uint32_t base0)
{
	struct hp_reorder_flow *fl = &r->flows[f];

	if (fl->held == 0 || (was != 0 && fl->base == base0))
		return;
	fl->t_hold = r->now;
	if (!fl->queued)
		q_push(r, f, r->hold ? r->now + r->hold : UINT64_MAX);
}

/* An early sequence beyond the window: drain it and move it so that seq
 * sits at its midpoint (never back over sequences already given up on). */
static void
early(struct hp_reorder *r, struct hp_reorder_flow *fl, uint32_t seq,
      struct rte_mbuf **out, unsigned int *n)
{
	uint32_t nb;

	r->st.early_drains++;
	drain(r, fl, out, n);
	nb = seq - r->win / 2;
	if ((int32_t)(nb - (fl->base + r->win)) < 0)
		nb = fl->base + r->win;
	fl->base = nb;
}

unsigned int
hp_reorder_push(struct hp_reorder *r, uint32_t f, uint32_t seq,
		struct rte_mbuf *m, struct rte_mbuf **out)
{
	struct hp_reorder_flow *fl = &r->flows[f];
	uint32_t was = fl->held, base0 = fl->base;
	int32_t d = (int32_t)(seq - fl->base);
	unsigned int n = 0;

	r->st.packets++;
	/* RFC 4737 §3.3: reordered iff below NextExp */
	if ((int32_t)(seq - fl->next_exp) < 0)
		r->st.arrived_ooo++;
	else
		fl->next_exp = seq + 1;
	if (d < 0) {
		/* Late: the window has moved past it; send it at once. */
		r->st.late++;
		emit(r, fl, seq, m, out, &n);
		return n;
	}
	if ((uint32_t)d >= r->win)
		early(r, fl, seq, out, &n);
	if (seq == fl->base && fl->held == 0) {
		/* nothing before it is missing: straight out */
		emit(r, fl, seq, m, out, &n);
		fl->base++;
	} else if (put(r, fl, seq, m)) {
		r->held++;
		if (r->held > r->st.held_max)
			r->st.held_max = r->held;
		advance(r, fl, out, &n);
	} else {
		r->st.no_window++;
		emit(r, fl, seq, m, out, &n);
	}
	hold_note(r, f, was, base0);
	return n;
}

unsigned int
hp_reorder_skip(struct hp_reorder *r, uint32_t f, uint32_t seq, struct rte_mbuf **out)
{
	struct hp_reorder_flow *fl = &r->flows[f];
	uint32_t was = fl->held, base0 = fl->base;
	int32_t d = (int32_t)(seq - fl->base);
	unsigned int n = 0;

	r->st.skipped++;
	if (d < 0)
		return 0; /* the window has moved past it already */
	if ((uint32_t)d >= r->win)
		early(r, fl, seq, out, &n);
	if (seq == fl->base && fl->held == 0)
		fl->base++;
	else if (put(r, fl, seq, SKIP))
		advance(r, fl, out, &n);
	else
		r->st.no_window++; /* waited for until the hold runs out */
	hold_note(r, f, was, base0);
	return n;
}

unsigned int
hp_reorder_expire(struct hp_reorder *r, struct rte_mbuf **out, unsigned int room)
{
	unsigned int n = 0;

	while (r->q_n && n + r->win <= room) {
		struct hp_reorder_due e = r->q[r->q_head];
		struct hp_reorder_flow *fl = &r->flows[e.flow];

		if (e.due > r->now)
			break;
		r->q_head = (r->q_head + 1) & r->q_mask;
		r->q_n--;
		fl->queued = 0;
		if (fl->held == 0)
			continue; /* its gap closed since */
		if (fl->t_hold + r->hold <= r->now) {
			r->st.timeout_drains++;
			fl->base = drain(r, fl, out, &n);
		} else {
			q_push(r, e.flow, fl->t_hold + r->hold);
		}
	}
	return n;
}

unsigned int
hp_reorder_flush(struct hp_reorder *r, uint32_t f, struct rte_mbuf **out)
{
	struct hp_reorder_flow *fl = &r->flows[f];
	unsigned int n = 0;

	drain(r, fl, out, &n);
	fl->base += r->win;
	return n;
}

unsigned int
hp_reorder_flush_next(struct hp_reorder *r, struct rte_mbuf **out)
{
	unsigned int n;

	while (r->q_n) {
		uint32_t f = r->q[r->q_head].flow;

		r->q_head = (r->q_head + 1) & r->q_mask;
		r->q_n--;
		r->flows[f].queued = 0;
		if (r->flows[f].held && (n = hp_reorder_flush(r, f, out)) != 0)
			return n;
	}
	return 0;
}
