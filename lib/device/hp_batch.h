/* SPDX-License-Identifier: BSD-3-Clause
 * Batch aggregation for batch devices (Johansson & Pap §4.5; Maghazeh et
 * al. for rate adaptation). Pure logic over TSC times so the flush rules
 * are unit-testable without a device:
 *   full      the batch reached max packets or max bytes
 *   target    it reached the rate-adapted target size (adapt=1): the
 *             smallest batch the device serves faster than that many
 *             packets arrive (Maghazeh et al.: service(B) <= B x gap with
 *             25 % headroom, service(B) = fixed + B x per_pkt), so a low
 *             rate gets small, early batches and a high rate large ones
 *   deadline  the most urgent deadline in it has no more slack than the
 *             predicted service time plus a margin, and leaving now still
 *             meets it (this overrides the minimum size; a deadline that
 *             is already lost does not shrink batches)
 *   timeout   the oldest packet waited longer than the timeout (only once
 *             the minimum size is reached: the thesis found single-packet
 *             batches slowed everything down)
 *   stale     the oldest packet waited 8x the timeout: liveness rule so a
 *             trickle below the minimum size is never held forever
 *   drain     the pipeline is stopping
 */
#ifndef HP_BATCH_H
#define HP_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#define HP_BATCH_MAX 4096 /* = HP_STAGING_MAX: a batch drains in one piece */

enum hp_flush_reason {
	HP_FLUSH_NONE = 0,
	HP_FLUSH_FULL,
	HP_FLUSH_TARGET,
	HP_FLUSH_DEADLINE,
	HP_FLUSH_TIMEOUT,
	HP_FLUSH_STALE,
	HP_FLUSH_DRAIN,
	HP_FLUSH_REASONS
};
extern const char *const hp_flush_reason_names[HP_FLUSH_REASONS];

struct hp_batch_cfg {
	uint32_t max_pkts;       /* <= HP_BATCH_MAX */
	uint32_t max_bytes;      /* 0: no limit */
	uint32_t min_pkts;       /* >= 1 */
	uint64_t timeout;        /* cycles */
	uint64_t margin;         /* cycles added to the predicted service time */
	bool adapt;              /* rate-adapted target size */
	uint64_t svc_fixed;      /* cycles per batch (service model) */
	uint64_t svc_per_pkt;    /* cycles per packet (service model) */
};

/* The open batch's bookkeeping (the packets live with the caller). */
struct hp_batcher {
	struct hp_batch_cfg cfg;
	uint32_t n;
	uint32_t bytes;
	uint64_t t_first;        /* arrival of the oldest packet */
	uint64_t min_deadline;   /* 0: no deadline packet in the batch */
	/* arrival-rate estimate (EWMA of inter-arrival gaps, cycles) */
	uint64_t t_last;
	double gap_ewma;
	uint32_t target;
};

void hp_batcher_init(struct hp_batcher *b, const struct hp_batch_cfg *cfg);
/* True when a packet of len bytes still fits into the open batch. */
bool hp_batcher_fits(const struct hp_batcher *b, uint32_t len);
/* Accounts one packet (deadline 0 = none) arriving at now. */
void hp_batcher_add(struct hp_batcher *b, uint32_t len, uint64_t deadline,
		    uint64_t now);
/* Should the open batch leave now? service = predicted cycles to serve
 * it (including the queue ahead of it on the device). */
enum hp_flush_reason hp_batcher_check(const struct hp_batcher *b,
				      uint64_t now, uint64_t service);
/* Starts a new empty batch (the rate estimate is kept). */
void hp_batcher_reset(struct hp_batcher *b);
/* The current rate-adapted target size. */
uint32_t hp_batcher_target(const struct hp_batcher *b);

#endif /* HP_BATCH_H */
