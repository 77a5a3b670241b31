/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench --model: the deadline application on MODELED dedicated service
 * cores, in virtual TSC time. For machines whose CPUs are shared (this
 * project's 2-core VM), where the real runs measure mostly how long the
 * polling threads wait for a CPU: the model shows what the same services,
 * loads, jitter and seeds give when every service lcore owns its core.
 *
 * What is modeled: each core runs DPDK's service runner, visiting its
 * mapped services in id order; a call that finds no due job costs
 * call_cycles, one that serves a job call_cycles + the job's work, and
 * every loop loop_cycles (both measured with 'svc-bench overhead'). The
 * statistics are those of lib/svc (busy cycles of useful calls, jobs,
 * reported delays, per 250 us period and 5 ms interval) and the decisions
 * are the real ones (hp_svc_decide, same policy, same settle interval
 * after an action). What is not: a migration takes effect at the interval
 * boundary (the real one waits two runner loops on each side, microseconds
 * on a dedicated core); caches, interrupts and the control thread's own
 * CPU time do not exist here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svc_bench.h"

struct mcell {
	uint64_t busy, jobs, delay_sum, delay_n, idle;
};

struct mstate {
	struct sb_run *sb;
	const struct sb_model *m;
	uint64_t t[HP_SVC_MAX_LCORES];		/* each core's virtual TSC */
	uint64_t pbusy[HP_SVC_MAX_LCORES];	/* useful cycles this period */
	struct mcell cell[SB_MAX_SVC][HP_SVC_MAX_LCORES]; /* this interval */
	uint32_t running[SB_MAX_SVC];
	uint32_t active;
};

/* Run core c's runner loop until its clock reaches 'until'. Idle loops are
 * skipped in one step up to the next due deadline (exact: an idle loop has
 * a fixed length).
 */
static void
core_run(struct mstate *ms, unsigned int c, uint64_t until)
{
	const struct sb_model *m = ms->m;
	uint64_t *t = &ms->t[c];

	while (*t < until) {
		uint64_t loop0 = *t, next = UINT64_MAX, len, skip;
		unsigned int s, n_on = 0;
		bool worked = false;

		for (s = 0; s < m->services; s++) {
			struct sb_svc *d = &ms->sb->svcs[s];

			if (!((ms->running[s] >> c) & 1u))
				continue;
			n_on++;
			if (*t >= d->deadline && *t < d->t_end) {
				uint64_t cost = m->call_cycles + d->work;

				sb_rec_done(sb_record(d, d->deadline, *t, c + 1), cost);
				ms->cell[s][c].delay_sum += *t - d->deadline;
				ms->cell[s][c].delay_n++;
				ms->cell[s][c].busy += cost;
				ms->cell[s][c].jobs++;
				ms->pbusy[c] += cost;
				*t += cost;
				d->jobs++;
				sb_next_deadline(d);
				worked = true;
			} else {
				*t += m->call_cycles;
				ms->cell[s][c].idle++;
			}
			if (d->deadline < next)
				next = d->deadline;
		}
		*t += m->loop_cycles;
		if (n_on == 0) {	/* an empty runner spins: nothing to model */
			*t = until;
			return;
		}
		if (worked || next <= *t)
			continue;
		len = *t - loop0;
		skip = next >= until ? (until - *t + len - 1) / len : (next - *t) / len;
		*t += skip * len;
		for (s = 0; s < m->services; s++)	/* one idle call a loop each */
			if ((ms->running[s] >> c) & 1u)
				ms->cell[s][c].idle += skip;
	}
}

static void
build_table(const struct mstate *ms, struct hp_svc_table *tb)
{
	const struct sb_model *m = ms->m;
	unsigned int s, c;

	memset(tb, 0, sizeof(*tb));
	tb->n_lcores = m->cores;
	tb->active = ms->active;
	tb->interval_cycles = m->interval;
	for (c = 0; c < m->cores; c++)
		tb->loop_cycles[c] = (double)m->loop_cycles;
	for (s = 0; s < m->services; s++) {
		tb->present |= UINT64_C(1) << s;
		tb->allowed[s] = m->cores == 32 ? UINT32_MAX : (1u << m->cores) - 1;
		tb->running[s] = ms->running[s];
		for (c = 0; c < m->cores; c++) {
			const struct mcell *x = &ms->cell[s][c];
			struct hp_svc_cell *y = &tb->cell[s][c];

			y->load = (double)x->busy / (double)m->interval;
			if (y->load > 1.0)	/* a job straddling the boundary */
				y->load = 1.0;
			y->jobs = x->jobs;
			y->delay_sum = (double)x->delay_sum;
			y->delay_n = x->delay_n;
			y->idle_calls = x->idle;
			y->idle_cycles = (double)x->idle * (double)m->call_cycles;
		}
	}
}

static void
apply(struct mstate *ms, const struct hp_svc_decision *d, uint64_t now)
{
	struct hp_svc_event ev = {
		.tsc = now, .d = *d, .service_id = d->service,
		.from_lcore = (int)d->from + 1, .to_lcore = -1,
	};

	switch (d->action) {
	case HP_SVC_ACT_MOVE:
		if (d->unpark) {
			ms->active |= 1u << d->to;
			ms->t[d->to] = now;
		}
		ms->running[d->service] = (ms->running[d->service] & ~(1u << d->from)) |
					  (1u << d->to);
		ev.to_lcore = (int)d->to + 1;
		break;
	case HP_SVC_ACT_DROP:
		ms->running[d->service] &= ~(1u << d->from);
		break;
	case HP_SVC_ACT_PARK:
		ms->active &= ~(1u << d->from);
		ev.service_id = UINT32_MAX;
		break;
	case HP_SVC_ACT_NONE:
		return;
	}
	sb_note_event(ms->sb, &ev, d->action == HP_SVC_ACT_PARK ? "-" : ms->sb->svcs[d->service].name);
}

int
sb_model_run(struct sb_run *sb, const struct sb_model *m, struct sb_result *res)
{
	struct hp_svc_decision d;
	struct hp_svc_bstate bst;
	struct hp_svc_table *tb;
	struct mstate *ms;
	uint64_t t_end = sb->svcs[0].t_end, now, next_iv, act_cyc = 0;
	bool settle = false;
	unsigned int s, c;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (m->services == 0 || m->services > SB_MAX_SVC || m->cores == 0 ||
	    m->cores > HP_SVC_MAX_LCORES || m->period == 0 ||
	    m->interval < m->period || m->interval % m->period != 0 ||
	    hp_svc_policy_check(&m->policy) < 0)
		return -EINVAL;
	tb = malloc(sizeof(*tb));
	ms = calloc(1, sizeof(*ms));
	if (tb == NULL || ms == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	ms->sb = sb;
	ms->m = m;
	for (s = 0; s < m->services; s++) {
		if (m->map[s] < 0 || (unsigned int)m->map[s] >= m->cores) {
			ret = -EINVAL;
			goto out;
		}
		sb->svcs[s].id = s;
		ms->running[s] = 1u << m->map[s];
	}
	/* as hp_svc_start: with scale-down, cores with nothing start parked */
	for (c = 0; c < m->cores; c++) {
		uint32_t used = 0;

		for (s = 0; s < m->services; s++)
			used |= ms->running[s];
		if (!(m->balance && m->policy.scale_down) || ((used >> c) & 1u))
			ms->active |= 1u << c;
		ms->t[c] = sb->t0;
	}
	hp_svc_bstate_init(&bst);
	next_iv = sb->t0 + m->interval;
	for (now = sb->t0 + m->period;; now += m->period) {
		struct sb_lsample *ls = NULL;

		for (c = 0; c < m->cores; c++) {
			if ((ms->active >> c) & 1u)
				core_run(ms, c, now);
			else
				ms->t[c] = now;
		}
		if (sb->n_lsamples < sb->cap_lsamples) {
			ls = &sb->lsamples[sb->n_lsamples++];
			ls->t = (int64_t)(now - sb->t0);
			ls->active = ms->active;
		}
		for (c = 0; c < m->cores; c++) {
			if (ls != NULL)
				ls->load[c] = (float)((double)ms->pbusy[c] / (double)m->period);
			ms->pbusy[c] = 0;
		}
		act_cyc += (uint64_t)__builtin_popcount(ms->active) * m->period;
		if (now >= next_iv) {
			next_iv += m->interval;
			if (m->balance && !settle) {
				build_table(ms, tb);
				ret = hp_svc_decide(&m->policy, tb, &bst, &d);
				if (ret < 0)
					goto out;
				if (ret > 0) {
					apply(ms, &d, now);
					res->moves++;
					settle = true;
				}
			} else {
				settle = false;
			}
			memset(ms->cell, 0, sizeof(ms->cell));
		}
		if (now >= t_end)
			break;
	}
	ret = 0;
out:
	res->modeled = true;
	res->n_lcores = m->cores;
	for (c = 0; c < m->cores; c++) {
		res->lcore_id[c] = c + 1;
		res->cpu_share[c] = 1.0;	/* dedicated, by construction */
	}
	for (s = 0; s < m->services && ms != NULL; s++)
		res->running[s] = ms->running[s];
	res->failures = 0;
	res->active_mean = (double)act_cyc / (double)(t_end - sb->t0);
	free(ms);
	free(tb);
	return ret;
}
