/* SPDX-License-Identifier: BSD-3-Clause
 * svc-bench overhead: the service runner's loop cost with idle services,
 * bare rte_service against hp_svc (trampoline and sentinels), for the
 * cost notes and the dedicated-core model's constants (docs/svc.md).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "hp_svc.h"
#include "svc_bench.h"

static int32_t
bare_idle(void *arg)
{
	(void)arg;
	return -EAGAIN;
}

/* Cycles per runner loop over 10 ms windows; the least preempted window
 * (the minimum) is the loop's cost on a shared CPU.
 */
static double
loop_cycles(unsigned int lcore, double seconds, uint64_t (*loops)(unsigned int))
{
	double best = INFINITY;
	unsigned int w, n = (unsigned int)(seconds * 100) + 1;

	for (w = 0; w < n; w++) {
		uint64_t l0 = loops(lcore), t0 = rte_rdtsc(), l1, t1;

		usleep(10000);
		l1 = loops(lcore);
		t1 = rte_rdtsc();
		if (l1 > l0 && (double)(t1 - t0) / (double)(l1 - l0) < best)
			best = (double)(t1 - t0) / (double)(l1 - l0);
	}
	return best;
}

static uint64_t
bare_loops(unsigned int lcore)
{
	uint64_t v = 0;

	rte_service_lcore_attr_get(lcore, RTE_SERVICE_LCORE_ATTR_LOOPS, &v);
	return v;
}

/* Cycles per runner loop of bare DPDK with n idle services registered
 * and mapped here (MT-safe or not: an MT-unsafe one costs a spinlock
 * trylock/unlock a call), DPDK's statistics on or off.
 */
static int
bare_loop(unsigned int lcore, unsigned int n, bool mt_safe, bool stats,
	  double seconds, double *cyc)
{
	struct rte_service_spec spec = {
		.callback = bare_idle, .socket_id = SOCKET_ID_ANY,
		.capabilities = mt_safe ? RTE_SERVICE_CAP_MT_SAFE : 0,
	};
	uint32_t id[SB_MAX_SVC];
	unsigned int i, k = 0;
	int ret = -1;

	if (rte_service_lcore_add(lcore) < 0)
		return -1;
	for (k = 0; k < n; k++) {
		snprintf(spec.name, sizeof(spec.name), "bare_idle%u", k);
		if (rte_service_component_register(&spec, &id[k]) < 0)
			goto out;
		rte_service_component_runstate_set(id[k], 1);
		rte_service_runstate_set(id[k], 1);
		rte_service_set_stats_enable(id[k], stats);
		rte_service_map_lcore_set(id[k], lcore, 1);
	}
	rte_service_lcore_start(lcore);
	usleep(10000);
	*cyc = loop_cycles(lcore, seconds, bare_loops);
	/* a running service mapped only here would make the stop fail */
	for (i = 0; i < n; i++)
		rte_service_runstate_set(id[i], 0);
	if (rte_service_lcore_stop(lcore) < 0)
		goto out;
	rte_eal_wait_lcore(lcore);
	ret = 0;
out:
	for (i = 0; i < k; i++) {
		rte_service_map_lcore_set(id[i], lcore, 0);
		rte_service_component_unregister(id[i]);
	}
	rte_service_lcore_del(lcore);
	return ret;
}

/* The runner's cost split into a part per loop and a part per service
 * visited (from the loop with 1 and with 3 idle services), bare DPDK and
 * through hp_svc. That split is what decides whether consolidation can be
 * cheap at low load: a job waits half a loop for the runner to come round
 * to its service, and merging k services onto one lcore adds (k - 1) per-
 * service parts to a loop that has one per-loop part (docs/svc.md).
 */
int
sb_run_overhead(unsigned int lcore, double seconds)
{
	static const struct {
		const char *what;
		bool mt_safe, stats;
	} v[] = {
		{ "bare rte_service, MT-unsafe (spinlock a call)", false, false },
		{ "bare rte_service, MT-safe (no lock)", true, false },
		{ "bare rte_service, MT-unsafe, DPDK's stats on", false, true },
	};
	struct hp_svc_conf c;
	double one, three, per;
	uint32_t id[3];
	unsigned int i;

	printf("runner loop of idle services (cycles; best 10 ms window of %.1f s:\n"
	       "the least preempted on a shared CPU)\n"
	       "%-48s %8s %8s %9s %9s\n", seconds, "", "1 svc", "3 svcs",
	       "per svc", "per loop");
	for (i = 0; i < RTE_DIM(v); i++) {
		if (bare_loop(lcore, 1, v[i].mt_safe, v[i].stats, seconds, &one) < 0 ||
		    bare_loop(lcore, 3, v[i].mt_safe, v[i].stats, seconds, &three) < 0)
			return -1;
		per = (three - one) / 2;
		printf("%-48s %8.1f %8.1f %9.1f %9.1f\n", v[i].what, one, three, per,
		       one - per);
	}
	hp_svc_conf_default(&c);
	c.balance = false;
	if (hp_svc_init(&c) < 0 || hp_svc_lcore_add(lcore) < 0)
		return -1;
	for (i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "hp_idle%u", i);
		if (hp_svc_register(name, bare_idle, NULL, 0, &id[i]) < 0)
			return -1;
	}
	if (hp_svc_map(id[0], lcore, true) < 0 || hp_svc_start() < 0)
		return -1;
	usleep(10000);
	one = loop_cycles(lcore, seconds, hp_svc_lcore_loops);
	if (hp_svc_map(id[1], lcore, true) < 0 || hp_svc_map(id[2], lcore, true) < 0)
		return -1;
	usleep(10000);
	three = loop_cycles(lcore, seconds, hp_svc_lcore_loops);
	hp_svc_fini();
	per = (three - one) / 2;
	printf("%-48s %8.1f %8.1f %9.1f %9.1f\n", "through hp_svc (MT-unsafe + trampoline)",
	       one, three, per, one - per);
	return 0;
}
