/* SPDX-License-Identifier: BSD-3-Clause
 * Log-linear histogram queries (percentiles, merge).
 */
#include <math.h>
#include <string.h>

#include "hp_hist.h"

void
hp_hist_reset(struct hp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t
hp_hist_bucket_low(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < HP_HIST_SUB)
		return idx;
	e = idx / HP_HIST_SUB + HP_HIST_SUB_BITS - 1;
	sub = idx % HP_HIST_SUB;
	return (uint64_t)(HP_HIST_SUB + sub) << (e - HP_HIST_SUB_BITS);
}

uint64_t
hp_hist_bucket_width(unsigned int idx)
{
	if (idx < HP_HIST_SUB)
		return 1;
	return 1ull << (idx / HP_HIST_SUB - 1);
}

uint64_t
hp_hist_quantile(const struct hp_hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* Nearest-rank: the smallest value with at least q*count values <= it. */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < HP_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	if (i == HP_HIST_BUCKETS)
		return h->max;
	v = hp_hist_bucket_low(i) + (hp_hist_bucket_width(i) - 1) / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double
hp_hist_mean(const struct hp_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double
hp_hist_std(const struct hp_hist *h)
{
	double mean = hp_hist_mean(h), var = 0;
	unsigned int i;

	if (h->count < 2)
		return 0.0;
	for (i = 0; i < HP_HIST_BUCKETS; i++) {
		double mid;

		if (h->b[i] == 0)
			continue;
		mid = (double)hp_hist_bucket_low(i) + (double)hp_hist_bucket_width(i) / 2;
		var += (double)h->b[i] * (mid - mean) * (mid - mean);
	}
	return sqrt(var / (double)(h->count - 1));
}

void
hp_hist_merge(struct hp_hist *dst, const struct hp_hist *src)
{
	unsigned int i;

	if (src->count == 0)
		return;
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (i = 0; i < HP_HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}
