/* SPDX-License-Identifier: BSD-3-Clause
 * Sliding-window reorder, one window per flow (see hp_reorder.h).
 * Cost: a push of an in-order packet is one slot write and one slot read
 * plus the NextExp compare, ~10 ns on the scheduler lcore.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "hp_reorder.h"

int
hp_reorder_init(struct hp_reorder *r, uint32_t n_flows, uint32_t win)
{
	memset(r, 0, sizeof(*r));
	if (win < 2 || !rte_is_power_of_2(win) || n_flows == 0)
		return -EINVAL;
	r->flows = calloc(n_flows, sizeof(*r->flows));
	r->slots = calloc((size_t)n_flows * win, sizeof(*r->slots));
	if (r->flows == NULL || r->slots == NULL) {
		hp_reorder_free(r);
		return -ENOMEM;
	}
	r->win = win;
	r->mask = win - 1;
	r->n_flows = n_flows;
	return 0;
}

void
hp_reorder_free(struct hp_reorder *r)
{
	free(r->flows);
	free(r->slots);
	r->flows = NULL;
	r->slots = NULL;
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

/* Sends the in-order run at the front of the window. */
static inline void
advance(struct hp_reorder *r, struct hp_reorder_flow *fl,
	struct rte_mbuf **slot, struct rte_mbuf **out, unsigned int *n)
{
	struct rte_mbuf *m;

	while (fl->held && (m = slot[fl->base & r->mask]) != NULL) {
		slot[fl->base & r->mask] = NULL;
		emit(r, fl, fl->base, m, out, n);
		fl->held--;
		r->held--;
		fl->base++;
	}
}

unsigned int
hp_reorder_push(struct hp_reorder *r, uint32_t f, uint32_t seq,
		struct rte_mbuf *m, struct rte_mbuf **out)
{
	struct hp_reorder_flow *fl = &r->flows[f];
	struct rte_mbuf **slot = &r->slots[(size_t)f * r->win];
	int32_t d = (int32_t)(seq - fl->base);
	unsigned int n = 0;

	r->st.packets++;
	/* RFC 4737 §3.3: reordered iff below NextExp (flows start at 0) */
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
	if ((uint32_t)d >= r->win) {
		/* Early beyond the window: drain what is held, in order, and
		 * move the window so that seq sits at its midpoint (never back
		 * over sequences already given up on). */
		uint32_t i, nb;

		r->st.early_drains++;
		for (i = 0; i < r->win && fl->held; i++) {
			struct rte_mbuf *h = slot[(fl->base + i) & r->mask];

			if (h != NULL) {
				slot[(fl->base + i) & r->mask] = NULL;
				emit(r, fl, fl->base + i, h, out, &n);
				fl->held--;
				r->held--;
				/* held means a gap before it (advance sends
				 * every run that has none) */
				r->st.drained++;
			}
		}
		nb = seq - r->win / 2;
		if ((int32_t)(nb - (fl->base + r->win)) < 0)
			nb = fl->base + r->win;
		fl->base = nb;
	}
	slot[seq & r->mask] = m;
	fl->held++;
	r->held++;
	if (r->held > r->st.held_max)
		r->st.held_max = r->held;
	advance(r, fl, slot, out, &n);
	return n;
}

unsigned int
hp_reorder_flush(struct hp_reorder *r, uint32_t f, struct rte_mbuf **out)
{
	struct hp_reorder_flow *fl = &r->flows[f];
	struct rte_mbuf **slot = &r->slots[(size_t)f * r->win];
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; i < r->win && fl->held; i++) {
		struct rte_mbuf *h = slot[(fl->base + i) & r->mask];

		if (h != NULL) {
			slot[(fl->base + i) & r->mask] = NULL;
			emit(r, fl, fl->base + i, h, out, &n);
			fl->held--;
			r->held--;
			r->st.drained++;
		}
	}
	fl->base += r->win;
	return n;
}
