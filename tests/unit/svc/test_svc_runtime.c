/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the service-core runtime (lib/svc/hp_svc.c) on real DPDK
 * service lcores: statistics against the service's own and DPDK's
 * counters (exact counts, nested timestamps: no preemption moves them),
 * -EAGAIN calls counted as idle, the windows and the balancer's table on
 * ticks at chosen times, safe migration (an MT-unsafe service never runs twice
 * at once, runs where it was moved, loop counters keep advancing), the
 * allowed mask, parking a core, adopted services and bad input.
 * Each case runs for a few hundred milliseconds.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "hp_svc.h"

/* A service with a target load: a job of 'work' cycles every work/load
 * cycles, or (every > 0) in every every-th call, a pattern no preemption
 * changes; -EAGAIN when no job is due. Counts overlapping executions, the
 * jobs it did, and the cycles it measured itself from its entry to its
 * exit: in all its calls and in those that did a job. The runtime's
 * timestamps enclose these, and DPDK's enclose the runtime's, whatever
 * preempts the lcore.
 */
struct job_svc {
	double load;
	uint64_t every;
	uint64_t calls;
	uint64_t work;
	uint64_t next;
	uint32_t inside;
	uint32_t overlaps;
	uint64_t jobs;
	uint64_t call_cycles;
	uint64_t job_cycles;
	uint64_t calls_on[RTE_MAX_LCORE];
};

/* The TSC read in program order with the runtime's reads around the call:
 * RDTSC alone may execute a little early or late (Intel SDM, RDTSC:
 * LFENCE before and after orders it). */
static inline uint64_t
tsc_in_order(void)
{
#ifdef RTE_ARCH_X86
	uint64_t t;

	__builtin_ia32_lfence();
	t = rte_rdtsc();
	__builtin_ia32_lfence();
	return t;
#else
	return rte_rdtsc_precise();
#endif
}

static int32_t
job_fn(void *arg)
{
	struct job_svc *j = arg;
	uint64_t now = tsc_in_order(), end;
	int32_t rc = -EAGAIN;

	if (__atomic_add_fetch(&j->inside, 1, __ATOMIC_ACQ_REL) > 1)
		__atomic_add_fetch(&j->overlaps, 1, __ATOMIC_RELAXED);
	j->calls_on[rte_lcore_id()]++;
	if (j->every ? ++j->calls % j->every == 0 : j->load > 0 && now >= j->next) {
		hp_svc_job_delay(j->every ? 0 : now - j->next);
		end = now + j->work;
		while (rte_rdtsc() < end)
			;
		/* jobs queue up while the lcore is preempted: load stays real */
		j->next += j->every ? 0 : (uint64_t)((double)j->work / j->load);
		j->jobs++;
		rc = 0;
	}
	/* counted before leaving: a migrated service's next call may start
	 * on the other lcore right after */
	end = tsc_in_order() - now;
	j->call_cycles += end;
	if (rc == 0)
		j->job_cycles += end;
	__atomic_sub_fetch(&j->inside, 1, __ATOMIC_ACQ_REL);
	return rc;
}

static void
job_init(struct job_svc *j, double load)
{
	memset(j, 0, sizeof(*j));
	j->load = load;
	j->work = rte_get_tsc_hz() / 100000;	/* 10 us */
	j->next = rte_rdtsc();
}

static void
run_ticks(double seconds)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(seconds * rte_get_tsc_hz());

	while (rte_rdtsc() < end) {
		hp_svc_tick(rte_rdtsc());
		usleep(100);
	}
}

static unsigned int lc1, lc2;	/* the two service lcores */

static void
setup(struct hp_svc_conf *c, bool balance)
{
	hp_svc_conf_default(c);
	c->balance = balance;
	c->dpdk_stats = true;
	/* this machine's CPUs are shared: a runner may wait 100 ms for one */
	c->migrate_timeout_us = 2000000;
	assert_int_equal(hp_svc_init(c), 0);
	assert_int_equal(hp_svc_lcore_add(lc1), 0);
	assert_int_equal(hp_svc_lcore_add(lc2), 1);
}

/* Adds a window's counts to a sum of windows. */
static void
stats_add(struct hp_svc_stats *sum, const struct hp_svc_stats *w)
{
	sum->calls += w->calls;
	sum->idle_calls += w->idle_calls;
	sum->busy_cycles += w->busy_cycles;
	sum->call_cycles += w->call_cycles;
	sum->total_cycles += w->total_cycles;
}

/* The windows on ticks at chosen times (hp_svc_tick takes the time, so
 * preemption does not move them): a tick on the period grid closes a
 * period of exactly one period; a late one closes a longer period and the
 * next ends on the grid again, so shorter. A tick two intervals late
 * closes an interval and starts both grids again from it; the next
 * interval then closes after ceil(interval / period) periods (the two
 * cycle counts are rounded apart), and its counts, its periods' counts
 * summed and the balancer's table of it are the same numbers, for the
 * busy service and the idle one (ids[]).
 */
static void
check_windows(const struct hp_svc_conf *c, const uint32_t ids[2])
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t p = (uint64_t)c->period_us * hz / 1000000;
	const uint64_t iv = (uint64_t)c->interval_us * hz / 1000000;
	const uint64_t k_close = (iv + p - 1) / p;
	struct hp_svc_stats st, sum[2];
	const struct hp_svc_table *tb;
	uint64_t t;
	unsigned int k, j;

	assert_int_equal(hp_svc_tick(hp_svc_next_tick()), 0);
	t = hp_svc_next_tick();
	assert_int_equal(hp_svc_tick(t), 0);
	assert_int_equal(hp_svc_stats_get(ids[0], lc1, HP_SVC_PERIOD, &st), 0);
	assert_int_equal(st.total_cycles, p);
	assert_int_equal(hp_svc_tick(t + p + p / 2), 0);
	assert_int_equal(hp_svc_stats_get(ids[0], lc1, HP_SVC_PERIOD, &st), 0);
	assert_int_equal(st.total_cycles, p + p / 2);
	assert_int_equal(hp_svc_next_tick(), t + 2 * p);
	assert_int_equal(hp_svc_tick(t + 2 * p), 0);
	assert_int_equal(hp_svc_stats_get(ids[0], lc1, HP_SVC_PERIOD, &st), 0);
	assert_int_equal(st.total_cycles, p / 2 + p % 2);

	t = hp_svc_next_tick() + 2 * iv;
	assert_int_equal(hp_svc_tick(t), 0);
	assert_int_equal(hp_svc_next_tick(), t + p);
	memset(sum, 0, sizeof(sum));
	for (k = 1; k <= k_close; k++) {
		usleep(100);	/* calls to count, where lc1 gets a CPU */
		assert_int_equal(hp_svc_tick(t + k * p), 0);
		for (j = 0; j < 2; j++) {
			assert_int_equal(hp_svc_stats_get(ids[j], lc1, HP_SVC_PERIOD, &st), 0);
			assert_int_equal(st.total_cycles, p);
			stats_add(&sum[j], &st);
		}
	}
	tb = hp_svc_last_table();
	assert_int_equal(tb->interval_cycles, k_close * p);
	for (j = 0; j < 2; j++) {
		const struct hp_svc_cell *cell = &tb->cell[ids[j]][0];

		assert_int_equal(hp_svc_stats_get(ids[j], lc1, HP_SVC_INTERVAL, &st), 0);
		assert_int_equal(st.total_cycles, k_close * p);
		assert_int_equal(st.total_cycles, sum[j].total_cycles);
		assert_int_equal(st.calls, sum[j].calls);
		assert_int_equal(st.idle_calls, sum[j].idle_calls);
		assert_int_equal(st.busy_cycles, sum[j].busy_cycles);
		assert_int_equal(st.call_cycles, sum[j].call_cycles);
		assert_int_equal(cell->jobs, st.calls - st.idle_calls);
		assert_int_equal(cell->idle_calls, st.idle_calls);
		assert_true(cell->idle_cycles == (double)(st.call_cycles - st.busy_cycles));
	}
}

static void
test_stats_vs_dpdk(void **state)
{
	struct hp_svc_conf c;
	struct job_svc busy, idle;
	struct hp_svc_stats sb, si;
	uint32_t ib, ii;
	uint64_t dcalls = 0, dcycles = 0, icycles = 1;
	unsigned int n;

	(void)state;
	setup(&c, false);
	job_init(&busy, 0.0);
	busy.every = 8;		/* a job, then 7 idle calls */
	job_init(&idle, 0.0);	/* always -EAGAIN */
	assert_int_equal(hp_svc_register("t_busy", job_fn, &busy, 0, &ib), 0);
	assert_int_equal(hp_svc_register("t_idle", job_fn, &idle, 0, &ii), 0);
	assert_int_equal(hp_svc_map(ib, lc1, true), 0);
	assert_int_equal(hp_svc_map(ii, lc1, true), 0);
	assert_int_equal(hp_svc_start(), 0);
	run_ticks(0.2);
	/* the balancer's table: the idle service's idle calls and their
	 * cycles, and the runner's own cycles per loop (the poll term of the
	 * delay prediction), measured on lc1; lc2 runs nothing
	 */
	for (n = 0; n < 100; n++) {	/* an interval lc1's thread had a CPU in */
		const struct hp_svc_table *t = hp_svc_last_table();
		const struct hp_svc_cell *ci = &t->cell[ii][0];

		assert_true(ci->jobs == 0);
		assert_true(t->loop_cycles[0] <= (double)t->interval_cycles);
		if (ci->idle_calls > 0 && ci->idle_cycles > 0.0 &&
		    t->loop_cycles[0] > 0.0 && t->cell[ib][0].jobs > 0)
			break;
		run_ticks(0.01);
	}
	assert_true(n < 100);
	check_windows(&c, (const uint32_t[2]){ ib, ii });
	assert_int_equal(hp_svc_stop(), 0);

	/* Counts, exact: every call of each service, as it counted them
	 * itself, and as DPDK 22.11 counted them; the busy one's jobs are its
	 * busy calls; the idle one's calls are all idle. */
	assert_int_equal(hp_svc_stats_get(ib, lc1, HP_SVC_CUMULATIVE, &sb), 0);
	assert_int_equal(hp_svc_stats_get(ii, lc1, HP_SVC_CUMULATIVE, &si), 0);
	assert_int_equal(rte_service_attr_get(ib, RTE_SERVICE_ATTR_CALL_COUNT, &dcalls), 0);
	assert_true(sb.calls > 100);
	assert_int_equal(sb.calls, busy.calls_on[lc1]);
	assert_int_equal(sb.calls, dcalls);
	assert_int_equal(busy.jobs, sb.calls / 8);
	assert_int_equal(sb.calls - sb.idle_calls, busy.jobs);
	assert_true(sb.delay_n == busy.jobs);
	assert_int_equal(si.calls, idle.calls_on[lc1]);
	assert_int_equal(si.idle_calls, si.calls);
	assert_int_equal(si.busy_cycles, 0);

	/* Cycles: nested timestamps, so inequalities that hold however long
	 * a preemption lasts (it lands inside all the enclosing pairs at
	 * once). Ours enclose what the service measured from its entry to
	 * its exit: no busy or idle cycle lost. DPDK's enclose ours and leave
	 * -EAGAIN calls out: a busy count that took in the 7 idle calls
	 * after each job or the runner's loop would exceed them. */
	assert_true(busy.job_cycles >= busy.jobs * busy.work);
	assert_true(sb.busy_cycles >= busy.job_cycles);
	assert_true(sb.call_cycles >= busy.call_cycles);
	assert_true(si.call_cycles >= idle.call_cycles && idle.call_cycles > 0);
	assert_int_equal(rte_service_attr_get(ib, RTE_SERVICE_ATTR_CYCLES, &dcycles), 0);
	assert_int_equal(rte_service_attr_get(ii, RTE_SERVICE_ATTR_CYCLES, &icycles), 0);
	assert_true(dcycles >= sb.busy_cycles);
	assert_int_equal(icycles, 0);
	assert_true(sb.busy_cycles < sb.call_cycles);
	hp_svc_fini();
}

static uint32_t events;
static struct hp_svc_event last_ev;

static void
on_event(const struct hp_svc_event *ev, void *arg)
{
	(void)arg;
	events++;
	last_ev = *ev;

}

static void
test_migration(void **state)
{
	struct hp_svc_conf c;
	struct job_svc a, b, *mj;
	uint32_t ia, ib, moved, stay;
	uint64_t loops1, loops2, calls_after[2], tick_at;
	struct hp_svc_stats st;
	int waited;

	(void)state;
	setup(&c, true);
	job_init(&a, 0.50);
	job_init(&b, 0.35);
	assert_int_equal(hp_svc_register("t_a", job_fn, &a, 0, &ia), 0);
	assert_int_equal(hp_svc_register("t_b", job_fn, &b, 0, &ib), 0);
	assert_int_equal(hp_svc_map(ia, lc1, true), 0);
	assert_int_equal(hp_svc_map(ib, lc1, true), 0);
	/* one instance only: a second mapping is refused */
	assert_int_equal(hp_svc_map(ia, lc2, true), -EBUSY);
	events = 0;
	hp_svc_set_event_cb(on_event, NULL);
	assert_int_equal(hp_svc_next_tick(), 0);	/* not started */
	assert_int_equal(hp_svc_start(), 0);
	assert_int_equal(hp_svc_ctl_start(), 0);
	/* 0.85 on lc1: one of them must move to lc2. Which one is the lighter
	 * as measured: when the lcore saturates (other processes share this
	 * machine), round robin gives both equal shares, so either may go.
	 */
	for (waited = 0; events == 0 && hp_svc_moves() == 0 && waited < 300; waited++)
		usleep(10000);
	assert_int_equal(hp_svc_ctl_stop(), 0);
	assert_true(events >= 1);
	assert_int_equal(hp_svc_move_failures(), 0);
	assert_int_equal(last_ev.result, 0);
	assert_int_equal(last_ev.d.action, HP_SVC_ACT_MOVE);
	moved = last_ev.service_id;
	assert_true(moved == ia || moved == ib);
	stay = moved == ia ? ib : ia;
	mj = moved == ia ? &a : &b;
	assert_int_equal(last_ev.from_lcore, (int)lc1);
	assert_int_equal(last_ev.to_lcore, (int)lc2);
	assert_int_equal(hp_svc_running(moved), 1u << 1);
	assert_int_equal(hp_svc_running(stay), 1u << 0);

	/* it runs on lc2 now, not on lc1; both runners keep looping */
	calls_after[0] = mj->calls_on[lc1];
	calls_after[1] = mj->calls_on[lc2];
	loops1 = hp_svc_lcore_loops(lc1);
	loops2 = hp_svc_lcore_loops(lc2);
	/* 50 ms, and on until both runners have had a CPU: on a loaded host a
	 * runnable thread waited longer than 50 ms for one, and the checks
	 * below failed on a runner that had not run, not on one that ran
	 * the service where it should not (2 s at most, as for migrations) */
	run_ticks(0.05);
	for (waited = 0; waited < 40 && (mj->calls_on[lc2] == calls_after[1] ||
					 hp_svc_lcore_loops(lc1) == loops1 ||
					 hp_svc_lcore_loops(lc2) == loops2); waited++)
		run_ticks(0.05);
	/* a tick that closes a period schedules the next one after it */
	while ((tick_at = rte_rdtsc()) < hp_svc_next_tick())
		usleep(20);
	hp_svc_tick(tick_at);
	assert_true(hp_svc_next_tick() > tick_at);
	assert_true(hp_svc_next_tick() <= tick_at + rte_get_tsc_hz() * c.period_us / 1000000);
	assert_true(mj->calls_on[lc2] > calls_after[1]);
	assert_int_equal(mj->calls_on[lc1], calls_after[0]);
	assert_true(hp_svc_lcore_loops(lc1) > loops1);
	assert_true(hp_svc_lcore_loops(lc2) > loops2);
	assert_int_equal(hp_svc_stats_get(moved, lc2, HP_SVC_CUMULATIVE, &st), 0);
	assert_true(st.calls > 0);
	assert_int_equal(hp_svc_stop(), 0);
	assert_int_equal(hp_svc_next_tick(), 0);
	assert_int_equal(a.overlaps, 0);
	assert_int_equal(b.overlaps, 0);
	hp_svc_fini();
}

static void
test_allowed_mask(void **state)
{
	struct hp_svc_conf c;
	struct job_svc a, b;
	uint32_t ia, ib;
	unsigned int i;

	(void)state;
	setup(&c, true);
	job_init(&a, 0.50);
	job_init(&b, 0.35);
	assert_int_equal(hp_svc_register("t_a", job_fn, &a, 0, &ia), 0);
	assert_int_equal(hp_svc_register("t_b", job_fn, &b, 0, &ib), 0);
	assert_int_equal(hp_svc_allow(ia, lc2, false), 0);
	assert_int_equal(hp_svc_allow(ib, lc2, false), 0);
	assert_int_equal(hp_svc_map(ia, lc2, true), -EPERM);
	assert_int_equal(hp_svc_map(ia, lc1, true), 0);
	assert_int_equal(hp_svc_map(ib, lc1, true), 0);
	/* disallowing where it runs is refused */
	assert_int_equal(hp_svc_allow(ia, lc1, false), -EBUSY);
	assert_int_equal(hp_svc_start(), 0);
	/* 150 ms, and on until lc1 has had a CPU (2 s at most) */
	run_ticks(0.15);
	for (i = 0; i < 40 && (a.calls_on[lc1] == 0 || b.calls_on[lc1] == 0); i++)
		run_ticks(0.05);
	assert_int_equal(hp_svc_moves(), 0);
	assert_true(a.calls_on[lc1] > 0 && b.calls_on[lc1] > 0);
	assert_int_equal(a.calls_on[lc2] + b.calls_on[lc2], 0);
	assert_int_equal(hp_svc_running(ia), 1);
	assert_int_equal(hp_svc_running(ib), 1);
	hp_svc_fini();
}

static void
test_scale_down_parks(void **state)
{
	struct hp_svc_conf c;
	struct job_svc a, b;
	uint32_t ia, ib;
	uint64_t loops;
	int i;

	(void)state;
	hp_svc_conf_default(&c);
	c.migrate_timeout_us = 2000000;
	c.policy.scale_down = true;
	c.policy.scale_down_sustain = 4;
	c.policy.scale_down_max_delay = -1.0;
	/* the offered loads are 5 % and 3 %; the high cold line keeps catch-up
	 * bursts after preemption (a busy shared machine) from resetting it
	 */
	c.policy.scale_down_threshold = 0.5;
	assert_int_equal(hp_svc_init(&c), 0);
	assert_int_equal(hp_svc_lcore_add(lc1), 0);
	assert_int_equal(hp_svc_lcore_add(lc2), 1);
	job_init(&a, 0.05);
	job_init(&b, 0.03);
	assert_int_equal(hp_svc_register("t_a", job_fn, &a, 0, &ia), 0);
	assert_int_equal(hp_svc_register("t_b", job_fn, &b, 0, &ib), 0);
	assert_int_equal(hp_svc_map(ia, lc1, true), 0);
	assert_int_equal(hp_svc_map(ib, lc2, true), 0);
	assert_int_equal(hp_svc_start(), 0);
	assert_true(hp_svc_lcore_active(lc1) && hp_svc_lcore_active(lc2));
	for (i = 0; i < 40 && hp_svc_lcore_active(lc1) == hp_svc_lcore_active(lc2); i++)
		run_ticks(0.05);
	assert_int_equal(hp_svc_move_failures(), 0);
	/* one lcore emptied and parked: its runner stopped looping */
	assert_true(hp_svc_lcore_active(lc1) != hp_svc_lcore_active(lc2));
	assert_int_equal(hp_svc_running(ia), hp_svc_running(ib));
	loops = hp_svc_lcore_loops(hp_svc_lcore_active(lc1) ? lc2 : lc1);
	usleep(20000);
	assert_int_equal(hp_svc_lcore_loops(hp_svc_lcore_active(lc1) ? lc2 : lc1), loops);
	assert_int_equal(a.overlaps + b.overlaps, 0);
	hp_svc_fini();
}

static struct job_svc foreign_job;

static void
test_adopt_foreign(void **state)
{
	struct rte_service_spec spec = {
		.name = "t_foreign",
		.callback = job_fn,
		.callback_userdata = &foreign_job,
		.socket_id = SOCKET_ID_ANY,
	};
	struct hp_svc_conf c;
	struct hp_svc_stats st;
	uint32_t id;
	unsigned int i;

	(void)state;
	setup(&c, false);
	job_init(&foreign_job, 0.2);
	assert_int_equal(rte_service_component_register(&spec, &id), 0);
	rte_service_component_runstate_set(id, 1);
	assert_int_equal(rte_service_map_lcore_set(id, lc2, 1), 0);
	assert_int_equal(hp_svc_adopt(id), 0);
	assert_int_equal(hp_svc_adopt(id), -EINVAL);	/* twice */
	assert_int_equal(hp_svc_running(id), 1u << 1);
	assert_int_equal(hp_svc_start(), 0);
	/* 100 ms, and on until lc2 has done a job (2 s at most); DPDK's
	 * counts reach ours at a tick */
	run_ticks(0.1);
	for (i = 0; i < 40 && (hp_svc_stats_get(id, lc2, HP_SVC_CUMULATIVE, &st) != 0 ||
			       st.busy_cycles == 0); i++)
		run_ticks(0.05);
	assert_int_equal(hp_svc_stop(), 0);
	assert_int_equal(hp_svc_stats_get(id, lc2, HP_SVC_CUMULATIVE, &st), 0);
	assert_true(st.calls > 0);
	assert_true(st.busy_cycles > 0);
	hp_svc_fini();
	rte_service_component_unregister(id);
}

static int32_t
nop_fn(void *arg)
{
	(void)arg;
	return -EAGAIN;
}

static void
test_bad_input(void **state)
{
	struct hp_svc_conf c;
	uint32_t id;

	(void)state;
	hp_svc_conf_default(&c);
	c.interval_us = 1000;
	c.period_us = 300;	/* not a divisor */
	assert_int_equal(hp_svc_init(&c), -EINVAL);
	hp_svc_conf_default(&c);
	c.policy.threshold = 2.0;
	assert_int_equal(hp_svc_init(&c), -EINVAL);
	assert_int_equal(hp_svc_register("x", nop_fn, NULL, 0, &id), -EINVAL); /* no init */
	setup(&c, true);
	assert_int_equal(hp_svc_init(&c), -EINVAL);	/* twice */
	assert_int_equal(hp_svc_lcore_add(lc1), -EINVAL); /* twice */
	assert_int_equal(hp_svc_lcore_add(rte_get_main_lcore()), -EINVAL);
	assert_int_equal(hp_svc_register(NULL, nop_fn, NULL, 0, &id), -EINVAL);
	assert_int_equal(hp_svc_register("x", NULL, NULL, 0, &id), -EINVAL);
	assert_int_equal(hp_svc_register("x", nop_fn, NULL, 0x80, &id), -EINVAL);
	assert_int_equal(hp_svc_register("a_name_that_is_far_too_long_for_dpdk",
					 nop_fn, NULL, 0, &id), -EINVAL);
	assert_int_equal(hp_svc_register("x", nop_fn, NULL, HP_SVC_F_MT_SAFE, &id), 0);
	assert_int_equal(hp_svc_map(id, 999, true), -EINVAL);
	assert_int_equal(hp_svc_map(id + 1, lc1, true), -EINVAL);
	/* multi-instance: two lcores fine */
	assert_int_equal(hp_svc_map(id, lc1, true), 0);
	assert_int_equal(hp_svc_map(id, lc2, true), 0);
	assert_int_equal(hp_svc_running(id), 3);
	assert_int_equal(hp_svc_tick(rte_rdtsc()), -EINVAL);	/* not started */
	hp_svc_fini();
}

/* a failed assertion leaves the test early: always tear down */
static int
teardown(void **state)
{
	(void)state;
	hp_svc_fini();
	return 0;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "--no-pci", "--no-shconf", "-m", "128",
			"--log-level=lib.eal:error",
			"--lcores=0@(0-1),1@(0-1),2@(0-1)", NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_bad_input, teardown),
		cmocka_unit_test_teardown(test_stats_vs_dpdk, teardown),
		cmocka_unit_test_teardown(test_migration, teardown),
		cmocka_unit_test_teardown(test_allowed_mask, teardown),
		cmocka_unit_test_teardown(test_scale_down_parks, teardown),
		cmocka_unit_test_teardown(test_adopt_foreign, teardown),
	};
	int ret;

	(void)argc;
	if (rte_eal_init(8, eal) < 0) {
		fprintf(stderr, "test_svc_runtime: EAL init failed\n");
		return 1;
	}
	lc1 = rte_get_next_lcore(rte_get_main_lcore(), 1, 0);
	lc2 = rte_get_next_lcore(lc1, 1, 0);
	if (lc1 >= RTE_MAX_LCORE || lc2 >= RTE_MAX_LCORE) {
		fprintf(stderr, "test_svc_runtime: need two worker lcores\n");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return ret;
}
