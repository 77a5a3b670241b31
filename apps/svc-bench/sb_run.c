/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench: what the real runs (svc_bench.c) and the dedicated-core model
 * (svc_model.c) share: load profiles, deadlines, per-job records and the
 * balancer's event log, all on an explicit struct sb_run.
 */
#include <stdio.h>
#include <string.h>

#include "hp_common.h"
#include "svc_bench.h"

double
sb_profile_at(const struct sb_profile *p, double x)
{
	unsigned int i;

	if (x <= p->t[0])
		return p->v[0];
	for (i = 1; i < p->n; i++)
		if (x <= p->t[i])
			return p->v[i - 1] + (p->v[i] - p->v[i - 1]) *
			       (x - p->t[i - 1]) / (p->t[i] - p->t[i - 1]);
	return p->v[p->n - 1];
}

struct sb_rec *
sb_record(struct sb_svc *d, uint64_t deadline, uint64_t start, uint32_t lcore)
{
	if (d->n_rec == d->cap) {
		d->lost++;
		return NULL;
	}
	d->rec[d->n_rec] = (struct sb_rec){
		.deadline = deadline - d->run->t0, .start = start - d->run->t0,
		.lcore = lcore,
	};
	return &d->rec[d->n_rec++];
}

void
sb_rec_done(struct sb_rec *r, uint64_t cycles)
{
	if (r != NULL)
		r->dur = cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles;
}

void
sb_next_deadline(struct sb_svc *d)
{
	uint64_t step = (uint64_t)(d->run->hz / 100000);	/* 10 us while idle */

	for (;;) {
		double x = (double)(d->nominal - d->t0) / (double)(d->t_end - d->t0);
		double load = sb_profile_at(&d->prof, x), gap, jit;

		if (d->nominal >= d->t_end) {
			d->deadline = UINT64_MAX;
			return;
		}
		if (load < 1e-4) {
			d->nominal += step;
			continue;
		}
		gap = (double)d->work / load;
		d->nominal += (uint64_t)gap;
		jit = (hp_rand_unit(&d->rng) - 0.5) *
		      d->jitter * gap;
		d->deadline = (uint64_t)((double)d->nominal + jit);
		return;
	}
}

void
sb_note_event(struct sb_run *sb, const struct hp_svc_event *ev, const char *service_name)
{
	if (sb->n_events < SB_MAX_EVENTS)
		sb->events[sb->n_events++] = *ev;
	printf("  t=%.1f ms: %s service %s lcore %d -> %d (%s) %s, %.0f us\n",
	       (double)(int64_t)(ev->tsc - sb->t0) * 1e3 / sb->hz,
	       hp_svc_action_name(ev->d.action), service_name,
	       ev->from_lcore, ev->to_lcore, ev->d.reason,
	       ev->result == 0 ? "ok" : strerror(-ev->result),
	       (double)ev->migrate_cycles * 1e6 / sb->hz);
}

