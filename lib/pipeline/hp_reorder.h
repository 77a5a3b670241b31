/* SPDX-License-Identifier: BSD-3-Clause
 * Per-flow reorder stage with the sliding-window semantics of Johansson &
 * Pap §4.7.1: a packet inside the window is held until the gap before it
 * closes; a late packet (before the window) is sent at once; an early
 * packet beyond the window drains the window in order and moves the window
 * so that the early packet sits at its midpoint. Sequence numbers are
 * compared in serial-number arithmetic, so they may wrap.
 *
 * Besides what it sends in order, it counts how disordered the packets
 * were when they reached it, before the window repaired anything:
 * arrived_ooo is RFC 4737's "reordered" packets (a packet whose sequence
 * is below NextExp, the highest sequence of its flow seen so far + 1:
 * something sent after it overtook it). And it counts what the window
 * could not restore, the thesis's failed reorders (§4.7.1, Figures 5.6,
 * 5.13, 5.20, 5.27 "packets successfully reordered"): late packets, sent
 * at once behind higher ones, and the packets an early arrival or the end
 * of the run pushed out ahead of a gap still open (drained). Every other
 * packet leaves after every lower sequence of its flow: restored.
 */
#ifndef HP_REORDER_H
#define HP_REORDER_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;

struct hp_reorder_flow {
	uint32_t base;     /* lowest sequence the window waits for */
	uint32_t next_out; /* sequence after the last one sent */
	uint32_t held;     /* packets held in the window */
	uint32_t next_exp; /* RFC 4737 NextExp: highest sequence arrived + 1 */
};

struct hp_reorder_stats {
	uint64_t packets;      /* packets pushed */
	uint64_t in_order;     /* sent with no higher sequence of the flow sent before */
	uint64_t late;         /* arrived before the window: sent at once */
	uint64_t early_drains; /* early packets that moved the window */
	uint64_t held_max;     /* most packets held at once, all flows */
	uint64_t arrived_ooo;  /* arrived below NextExp (RFC 4737 reordered) */
	uint64_t drained;      /* sent by a drain or flush ahead of an open gap */
};

/* Shares in percent (100 when no packet was pushed). arrived in order:
 * packets - arrived_ooo; restored: packets - late - drained. */
double hp_reorder_arrived_pct(const struct hp_reorder_stats *st);
double hp_reorder_restored_pct(const struct hp_reorder_stats *st);

struct hp_reorder {
	uint32_t win;
	uint32_t mask;
	uint32_t n_flows;
	uint64_t held;   /* packets held now, all flows */
	struct hp_reorder_flow *flows;
	struct rte_mbuf **slots; /* n_flows * win */
	struct hp_reorder_stats st;
};

/* win must be a power of two >= 2. Returns 0 or -errno. */
int hp_reorder_init(struct hp_reorder *r, uint32_t n_flows, uint32_t win);
void hp_reorder_free(struct hp_reorder *r);
void hp_reorder_reset_stats(struct hp_reorder *r);

/* Feeds packet m with sequence seq of flow f. Writes the packets to send
 * now, in order, to out (room for win + 1) and returns how many. */
unsigned int hp_reorder_push(struct hp_reorder *r, uint32_t f, uint32_t seq,
			     struct rte_mbuf *m, struct rte_mbuf **out);

/* Sends everything held for flow f in sequence order (end of run). */
unsigned int hp_reorder_flush(struct hp_reorder *r, uint32_t f,
			      struct rte_mbuf **out);

#endif /* HP_REORDER_H */
