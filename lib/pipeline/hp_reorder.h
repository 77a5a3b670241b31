/* SPDX-License-Identifier: BSD-3-Clause
 * Per-flow reorder stage with the sliding-window semantics of Johansson &
 * Pap §4.7.1: a packet inside the window is held until the gap before it
 * closes; a late packet (before the window) is sent at once; an early
 * packet beyond the window drains the window in order and moves the window
 * so that the early packet sits at its midpoint. Sequence numbers are
 * compared in serial-number arithmetic, so they may wrap.
 *
 * Nothing waits for a sequence that will not come: a sequence whose packet
 * was dropped on the way is skipped (hp_reorder_skip) and the window moves
 * over it, and a gap is waited for at most the hold (hp_reorder_expire):
 * then the window drains, a timeout drain. Windows are taken from a pool
 * only while a flow holds something, so a table of many flows costs their
 * 32-byte states, not a window each.
 *
 * Besides what it sends in order, it counts how disordered the packets
 * were when they reached it, before the window repaired anything:
 * arrived_ooo is RFC 4737's "reordered" packets (a packet whose sequence
 * is below NextExp, the highest sequence of its flow seen so far + 1:
 * something sent after it overtook it). And it counts what the window
 * could not restore, the thesis's failed reorders (§4.7.1, Figures 5.6,
 * 5.13, 5.20, 5.27 "packets successfully reordered"): late packets, sent
 * at once behind higher ones, and the packets an early arrival, a timeout
 * or the end of the run pushed out ahead of a gap still open (drained).
 * Every other packet leaves after every lower sequence of its flow:
 * restored. These are the window's own books; whether a flow left in
 * order is measured where packets leave (the scheduler's flow table).
 */
#ifndef HP_REORDER_H
#define HP_REORDER_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;

struct hp_reorder_flow {
	uint32_t base;     /* lowest sequence the window waits for */
	uint32_t next_out; /* sequence after the last one sent */
	uint32_t held;     /* window slots in use: packets and skipped sequences */
	uint32_t next_exp; /* RFC 4737 NextExp: highest sequence arrived + 1 */
	uint32_t win;      /* its window in the pool while held > 0 */
	uint32_t queued;   /* it is on the hold queue */
	uint64_t t_hold;   /* hp_reorder.now when its front gap was first waited for */
};

struct hp_reorder_stats {
	uint64_t packets;      /* packets pushed */
	uint64_t in_order;     /* sent with no higher sequence of the flow sent before */
	uint64_t late;         /* arrived before the window: sent at once */
	uint64_t early_drains; /* early packets that moved the window */
	uint64_t held_max;     /* most packets held at once, all flows */
	uint64_t arrived_ooo;  /* arrived below NextExp (RFC 4737 reordered) */
	uint64_t drained;      /* sent by a drain or flush ahead of an open gap */
	uint64_t timeout_drains; /* windows drained because a gap outlived the hold */
	uint64_t skipped;      /* sequences that will not come (dropped on the way) */
	uint64_t no_window;    /* sent at once: the window pool was empty */
};

/* Shares in percent (100 when no packet was pushed). arrived in order:
 * packets - arrived_ooo; restored: packets - late - drained. */
double hp_reorder_arrived_pct(const struct hp_reorder_stats *st);
double hp_reorder_restored_pct(const struct hp_reorder_stats *st);

/* A flow on the hold queue and when to look at it again. */
struct hp_reorder_due {
	uint32_t flow;
	uint64_t due;
};

struct hp_reorder {
	uint32_t win;
	uint32_t mask;
	uint32_t n_flows;
	uint64_t held;   /* packets held now, all flows (skips not counted) */
	uint64_t now;    /* the caller's clock, set before push/skip/expire */
	uint64_t hold;   /* longest wait for a gap, in now's units; 0: no limit */
	struct hp_reorder_flow *flows;
	struct rte_mbuf **slots;  /* n_win windows of win slots */
	uint32_t *free_win;       /* stack of unused windows */
	uint32_t n_win, n_free;
	/* flows holding something, in the order they began to (each once) */
	struct hp_reorder_due *q;
	uint32_t q_mask, q_head, q_n;
	uint64_t q_last;          /* due of the last entry (entries stay sorted) */
	struct hp_reorder_stats st;
};

/* win must be a power of two >= 2; one window per flow. 0 or -errno. */
int hp_reorder_init(struct hp_reorder *r, uint32_t n_flows, uint32_t win);
/* The same with n_windows windows shared by the flows: a flow holds one
 * only while it holds something, so the packets that can be held at once
 * (the mbuf pool) bound what is needed. */
int hp_reorder_init_pool(struct hp_reorder *r, uint32_t n_flows, uint32_t win,
			 uint32_t n_windows);
void hp_reorder_free(struct hp_reorder *r);
void hp_reorder_reset_stats(struct hp_reorder *r);

/* Flow f's window starts at seq (a new flow, or one that needs order from
 * this packet on); f must hold no packet (skipped sequences an earlier
 * flow of the slot left behind are forgotten). */
void hp_reorder_flow_start(struct hp_reorder *r, uint32_t f, uint32_t seq);

/* Feeds packet m with sequence seq of flow f. Writes the packets to send
 * now, in order, to out (room for win + 1) and returns how many. */
unsigned int hp_reorder_push(struct hp_reorder *r, uint32_t f, uint32_t seq,
			     struct rte_mbuf *m, struct rte_mbuf **out);

/* Sequence seq of flow f will not come (its packet was dropped): the
 * window moves over it. Writes what that releases to out (room for win). */
unsigned int hp_reorder_skip(struct hp_reorder *r, uint32_t f, uint32_t seq,
			     struct rte_mbuf **out);

/* Drains the windows whose front gap has been waited for hold or more
 * (released within twice the hold: a flow whose gap moved is looked at
 * again at the queue's end). Writes at most room packets to out; returns
 * how many. */
unsigned int hp_reorder_expire(struct hp_reorder *r, struct rte_mbuf **out,
			       unsigned int room);

/* Whether hp_reorder_expire has something to look at (one compare). */
static inline bool
hp_reorder_due(const struct hp_reorder *r)
{
	return r->q_n != 0 && r->q[r->q_head].due <= r->now;
}

/* Sends everything held for flow f in sequence order (end of run). */
unsigned int hp_reorder_flush(struct hp_reorder *r, uint32_t f,
			      struct rte_mbuf **out);

/* Flushes the next flow that holds something (end of run): how many it
 * wrote to out (room for win); 0 once nothing is held. */
unsigned int hp_reorder_flush_next(struct hp_reorder *r, struct rte_mbuf **out);

#endif /* HP_REORDER_H */
