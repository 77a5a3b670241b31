/* SPDX-License-Identifier: BSD-3-Clause
 * Batch aggregation rules (see hp_batch.h). Called once per packet and
 * once per device-loop iteration: a few compares and one EWMA update.
 */
#include <math.h>
#include <string.h>

#include "hp_batch.h"

const char *const hp_flush_reason_names[HP_FLUSH_REASONS] = {
	[HP_FLUSH_NONE] = "none",
	[HP_FLUSH_FULL] = "full",
	[HP_FLUSH_TARGET] = "target",
	[HP_FLUSH_DEADLINE] = "deadline",
	[HP_FLUSH_TIMEOUT] = "timeout",
	[HP_FLUSH_STALE] = "stale",
	[HP_FLUSH_DRAIN] = "drain",
};

/* Weight of a new inter-arrival gap in the rate estimate: about the last
 * 64 arrivals, enough to follow the scenario's rate steps within a batch
 * or two without chasing single bursts. */
#define GAP_ALPHA (1.0 / 64)
#define STALE_FACTOR 8

void
hp_batcher_init(struct hp_batcher *b, const struct hp_batch_cfg *cfg)
{
	memset(b, 0, sizeof(*b));
	b->cfg = *cfg;
	if (b->cfg.max_pkts == 0 || b->cfg.max_pkts > HP_BATCH_MAX)
		b->cfg.max_pkts = HP_BATCH_MAX;
	if (b->cfg.min_pkts == 0)
		b->cfg.min_pkts = 1;
	if (b->cfg.min_pkts > b->cfg.max_pkts)
		b->cfg.min_pkts = b->cfg.max_pkts;
	b->target = b->cfg.adapt ? b->cfg.min_pkts : b->cfg.max_pkts;
}

bool
hp_batcher_fits(const struct hp_batcher *b, uint32_t len)
{
	if (b->n >= b->cfg.max_pkts)
		return false;
	/* An empty batch takes any packet, however large. */
	return b->n == 0 || b->cfg.max_bytes == 0 ||
	       b->bytes + len <= b->cfg.max_bytes;
}

static void
update_target(struct hp_batcher *b)
{
	double gap = b->gap_ewma, need;

	if (!b->cfg.adapt || gap <= 0)
		return;
	if (gap <= (double)b->cfg.svc_per_pkt) {
		/* Arrivals outpace even the per-packet cost: largest batch. */
		b->target = b->cfg.max_pkts;
		return;
	}
	need = ceil(1.25 * (double)b->cfg.svc_fixed / (gap - (double)b->cfg.svc_per_pkt));
	if (need < b->cfg.min_pkts)
		need = b->cfg.min_pkts;
	if (need > b->cfg.max_pkts)
		need = b->cfg.max_pkts;
	b->target = (uint32_t)need;
}

void
hp_batcher_add(struct hp_batcher *b, uint32_t len, uint64_t deadline,
	       uint64_t now)
{
	if (b->t_last != 0 && now >= b->t_last) {
		double gap = (double)(now - b->t_last);

		b->gap_ewma = b->gap_ewma == 0 ? gap :
			b->gap_ewma + GAP_ALPHA * (gap - b->gap_ewma);
		update_target(b);
	}
	b->t_last = now;
	if (b->n == 0)
		b->t_first = now;
	b->n++;
	b->bytes += len;
	if (deadline != 0 && (b->min_deadline == 0 || deadline < b->min_deadline))
		b->min_deadline = deadline;
}

enum hp_flush_reason
hp_batcher_check(const struct hp_batcher *b, uint64_t now, uint64_t service)
{
	uint64_t age;

	if (b->n == 0)
		return HP_FLUSH_NONE;
	if (b->n >= b->cfg.max_pkts ||
	    (b->cfg.max_bytes != 0 && b->bytes >= b->cfg.max_bytes))
		return HP_FLUSH_FULL;
	/* Deadline first: it is the only rule that ignores the minimum. It
	 * fires while leaving now still meets the deadline; once even an
	 * immediate flush would miss it (the device is backed up), shrinking
	 * the batch cannot save that packet and would only cost throughput,
	 * so the other rules decide. */
	if (b->min_deadline != 0 &&
	    now + service + b->cfg.margin >= b->min_deadline &&
	    now + service <= b->min_deadline)
		return HP_FLUSH_DEADLINE;
	if (b->cfg.adapt && b->n >= b->target && b->n >= b->cfg.min_pkts)
		return HP_FLUSH_TARGET;
	age = now > b->t_first ? now - b->t_first : 0;
	if (b->n >= b->cfg.min_pkts && age >= b->cfg.timeout)
		return HP_FLUSH_TIMEOUT;
	if (age >= STALE_FACTOR * b->cfg.timeout)
		return HP_FLUSH_STALE;
	return HP_FLUSH_NONE;
}

void
hp_batcher_reset(struct hp_batcher *b)
{
	b->n = 0;
	b->bytes = 0;
	b->t_first = 0;
	b->min_deadline = 0;
}

uint32_t
hp_batcher_target(const struct hp_batcher *b)
{
	return b->target;
}
