/* SPDX-License-Identifier: BSD-3-Clause
 * Log-linear latency histogram: 32 linear sub-buckets per power of two, so
 * any percentile is within 1/32 (3.1 %) of the true value; min, max, count
 * and mean are exact. Recording is a clz and two adds (~5 ns), no locks:
 * each histogram has one writer.
 */
#ifndef HP_HIST_H
#define HP_HIST_H

#include <stdint.h>

#define HP_HIST_SUB_BITS 5
#define HP_HIST_SUB (1u << HP_HIST_SUB_BITS)
#define HP_HIST_BUCKETS ((64 - HP_HIST_SUB_BITS + 1) * HP_HIST_SUB)

struct hp_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t b[HP_HIST_BUCKETS];
};

void hp_hist_reset(struct hp_hist *h);

static inline unsigned int
hp_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < HP_HIST_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);
	return (e - HP_HIST_SUB_BITS + 1) * HP_HIST_SUB +
	       (unsigned int)((v >> (e - HP_HIST_SUB_BITS)) & (HP_HIST_SUB - 1));
}

static inline void
hp_hist_add(struct hp_hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->b[hp_hist_index(v)]++;
}

/* Lowest value that falls into bucket idx, and the bucket's width. */
uint64_t hp_hist_bucket_low(unsigned int idx);
uint64_t hp_hist_bucket_width(unsigned int idx);
/* Value at quantile q in [0,1] (bucket midpoint, clamped to [min,max]);
 * 0 for an empty histogram. */
uint64_t hp_hist_quantile(const struct hp_hist *h, double q);
double hp_hist_mean(const struct hp_hist *h);
/* Standard deviation from the buckets' midpoints (within the 3 % bucket
 * width of the exact figure). */
double hp_hist_std(const struct hp_hist *h);
/* dst += src */
void hp_hist_merge(struct hp_hist *dst, const struct hp_hist *src);

#endif /* HP_HIST_H */
