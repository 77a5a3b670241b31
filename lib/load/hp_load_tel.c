/* SPDX-License-Identifier: BSD-3-Clause
 * Where the load estimates go outside the process: a registry of polling
 * loops, the telemetry command /heteroplane/lcore/load (so
 * dpdk-telemetry.py reads a running instance) and, on DPDK 23.03+, the EAL
 * lcore usage callback (/eal/lcore/info, rte_lcore_dump). DPDK 22.11 has no
 * such callback; meson detects it (HP_HAVE_LCORE_USAGE_CB).
 *
 * Telemetry in 22.11 has no floating-point values and no dict inside a
 * dict, so fractions are integers in basis points (1 bp = 0.01 %) and the
 * all-loops form is a dict of columns.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "hp_load.h"

static struct hp_load *loops[HP_LOAD_MAX_LOOPS];
static rte_spinlock_t reg_lock = RTE_SPINLOCK_INITIALIZER;
static bool tel_done;

int
hp_load_register(struct hp_load *ld)
{
	unsigned int i, free_slot = HP_LOAD_MAX_LOOPS;
	int ret = 0;

	rte_spinlock_lock(&reg_lock);
	for (i = 0; i < HP_LOAD_MAX_LOOPS; i++) {
		if (loops[i] == ld) {
			ret = -EEXIST;
			break;
		}
		if (loops[i] == NULL && free_slot == HP_LOAD_MAX_LOOPS)
			free_slot = i;
	}
	if (ret == 0 && free_slot == HP_LOAD_MAX_LOOPS)
		ret = -ENOSPC;
	if (ret == 0)
		loops[free_slot] = ld;
	rte_spinlock_unlock(&reg_lock);
	return ret;
}

void
hp_load_unregister(struct hp_load *ld)
{
	unsigned int i;

	rte_spinlock_lock(&reg_lock);
	for (i = 0; i < HP_LOAD_MAX_LOOPS; i++)
		if (loops[i] == ld)
			loops[i] = NULL;
	rte_spinlock_unlock(&reg_lock);
}

void
hp_load_mark_shared(struct hp_load *ld)
{
	unsigned int i;

	if (ld->conf.cpu < 0)
		return;
	rte_spinlock_lock(&reg_lock);
	for (i = 0; i < HP_LOAD_MAX_LOOPS; i++)
		if (loops[i] != NULL && loops[i] != ld &&
		    __atomic_load_n(&loops[i]->conf.cpu, __ATOMIC_RELAXED) == ld->conf.cpu) {
			__atomic_store_n(&loops[i]->cpu_shared, true, __ATOMIC_RELAXED);
			__atomic_store_n(&ld->cpu_shared, true, __ATOMIC_RELAXED);
		}
	rte_spinlock_unlock(&reg_lock);
}

int
hp_load_foreach(int (*fn)(const struct hp_load *ld, void *arg), void *arg)
{
	unsigned int i;
	int ret = 0;

	rte_spinlock_lock(&reg_lock);
	for (i = 0; i < HP_LOAD_MAX_LOOPS && ret == 0; i++)
		if (loops[i] != NULL)
			ret = fn(loops[i], arg);
	rte_spinlock_unlock(&reg_lock);
	return ret;
}

static int
bp(double frac)
{
	double v = frac * 10000.0;

	return v > 1e9 ? 1000000000 : (int)(v + 0.5);
}

/* The first loop on an lcore, and where its answer goes (telemetry dict,
 * EAL usage record). */
struct by_lcore {
	unsigned int lcore;
	void *out;
};

/* ---- /heteroplane/lcore/load,<lcore>: one loop as a flat dict ---- */

static int
one_loop(const struct hp_load *ld, void *arg)
{
	struct by_lcore *o = arg;
	struct rte_tel_data *d = o->out;
	struct hp_load_raw raw;
	struct hp_load_est e;
	int have;

	if (ld->conf.lcore != o->lcore)
		return 0;
	have = hp_load_last(ld, &e) == 0;
	hp_load_read(ld, &raw);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "lcore", (int)ld->conf.lcore);
	rte_tel_data_add_dict_string(d, "name", ld->conf.name);
	rte_tel_data_add_dict_int(d, "counters", hp_load_enabled());
	rte_tel_data_add_dict_int(d, "window_ms", (int)(ld->conf.interval_s * 1000 + 0.5));
	rte_tel_data_add_dict_int(d, "valid", have);
	rte_tel_data_add_dict_int(d, "polls_bp", bp(e.polls));
	rte_tel_data_add_dict_int(d, "busy_bp", bp(e.busy));
	rte_tel_data_add_dict_int(d, "load_bp", bp(e.load));
	rte_tel_data_add_dict_int(d, "headroom_bp", bp(e.headroom));
	rte_tel_data_add_dict_int(d, "projected_bp", bp(e.projected));
	rte_tel_data_add_dict_int(d, "warn", e.warn);
	rte_tel_data_add_dict_u64(d, "warn_count", e.warn_count);
	rte_tel_data_add_dict_u64(d, "pps", (uint64_t)e.pps);
	rte_tel_data_add_dict_u64(d, "cycles_per_pkt", (uint64_t)(e.cycles_per_pkt + 0.5));
	rte_tel_data_add_dict_u64(d, "sat_cycles_per_pkt",
				  (uint64_t)(e.sat_cycles_per_pkt + 0.5));
	rte_tel_data_add_dict_u64(d, "capacity_pps", (uint64_t)e.capacity_pps);
	rte_tel_data_add_dict_u64(d, "empty_poll_cycles",
				  (uint64_t)(e.empty_poll_cycles + 0.5));
	rte_tel_data_add_dict_u64(d, "total_cycles", raw.total_cycles);
	rte_tel_data_add_dict_u64(d, "busy_cycles", raw.busy_cycles);
	rte_tel_data_add_dict_u64(d, "polls", raw.polls);
	rte_tel_data_add_dict_u64(d, "empty_polls", raw.empty_polls);
	rte_tel_data_add_dict_u64(d, "packets", raw.packets);
	rte_tel_data_add_dict_u64(d, "outliers", raw.outliers);
	return 1; /* first loop on that lcore */
}

/* ---- /heteroplane/lcore/load: every loop, as columns ---- */

enum col { C_LCORE, C_POLLS, C_BUSY, C_LOAD, C_HEAD, C_PROJ, C_WARN, C_CPP, C_CAP, C_N };
static const char *const col_name[C_N] = {
	[C_LCORE] = "lcore", [C_POLLS] = "polls_bp", [C_BUSY] = "busy_bp",
	[C_LOAD] = "load_bp", [C_HEAD] = "headroom_bp", [C_PROJ] = "projected_bp",
	[C_WARN] = "warn", [C_CPP] = "cycles_per_pkt", [C_CAP] = "capacity_pps",
};

struct all_arg {
	struct rte_tel_data *col[C_N];
	struct rte_tel_data *names;
};

static int
all_loops(const struct hp_load *ld, void *arg)
{
	struct all_arg *a = arg;
	struct hp_load_est e;

	if (hp_load_last(ld, &e) < 0)
		memset(&e, 0, sizeof(e));
	rte_tel_data_add_array_int(a->col[C_LCORE], (int)ld->conf.lcore);
	rte_tel_data_add_array_int(a->col[C_POLLS], bp(e.polls));
	rte_tel_data_add_array_int(a->col[C_BUSY], bp(e.busy));
	rte_tel_data_add_array_int(a->col[C_LOAD], bp(e.load));
	rte_tel_data_add_array_int(a->col[C_HEAD], bp(e.headroom));
	rte_tel_data_add_array_int(a->col[C_PROJ], bp(e.projected));
	rte_tel_data_add_array_int(a->col[C_WARN], e.warn);
	rte_tel_data_add_array_u64(a->col[C_CPP], (uint64_t)(e.cycles_per_pkt + 0.5));
	rte_tel_data_add_array_u64(a->col[C_CAP], (uint64_t)e.capacity_pps);
	rte_tel_data_add_array_string(a->names, ld->conf.name);
	return 0;
}

static int
tel_load(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct all_arg a = { 0 };
	unsigned int i;
	int ret = 0;

	RTE_SET_USED(cmd);
	if (params != NULL && *params != '\0') {
		struct by_lcore o = { .out = d };
		char *end;
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v >= RTE_MAX_LCORE)
			return -EINVAL;
		o.lcore = (unsigned int)v;
		return hp_load_foreach(one_loop, &o) == 1 ? 0 : -ENOENT;
	}
	for (i = 0; i < C_N; i++) {
		a.col[i] = rte_tel_data_alloc();
		if (a.col[i] == NULL)
			ret = -ENOMEM;
		else
			rte_tel_data_start_array(a.col[i], i == C_CPP || i == C_CAP ?
						 RTE_TEL_U64_VAL : RTE_TEL_INT_VAL);
	}
	a.names = rte_tel_data_alloc();
	if (a.names == NULL)
		ret = -ENOMEM;
	else
		rte_tel_data_start_array(a.names, RTE_TEL_STRING_VAL);
	if (ret < 0)
		goto fail;
	hp_load_foreach(all_loops, &a);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "counters", hp_load_enabled());
	rte_tel_data_add_dict_container(d, "name", a.names, 0);
	for (i = 0; i < C_N; i++)
		rte_tel_data_add_dict_container(d, col_name[i], a.col[i], 0);
	return 0;
fail:
	for (i = 0; i < C_N; i++)
		rte_tel_data_free(a.col[i]);
	rte_tel_data_free(a.names);
	return ret;
}

#ifdef HP_HAVE_LCORE_USAGE_CB
static int
usage_one(const struct hp_load *ld, void *arg)
{
	struct by_lcore *ua = arg;
	struct rte_lcore_usage *u = ua->out;
	struct hp_load_raw now, zero;
	struct hp_load_est e;

	if (ld->conf.lcore != ua->lcore)
		return 0;
	/* EAL divides busy by total of cumulative counters: give it (c) over
	 * the loop's life. */
	hp_load_read(ld, &now);
	memset(&zero, 0, sizeof(zero));
	if (hp_load_compute(&zero, &now, ld->conf.max_batch, ld->conf.hz, &e) < 0)
		return -1;
	u->total_cycles = now.total_cycles;
	u->busy_cycles = (uint64_t)(fmin(e.load, 1.0) * (double)now.total_cycles);
	return 1;
}

static int
usage_cb(unsigned int lcore_id, struct rte_lcore_usage *usage)
{
	struct by_lcore ua = { .lcore = lcore_id, .out = usage };

	return hp_load_foreach(usage_one, &ua) == 1 ? 0 : -1;
}
#endif

int
hp_load_telemetry_init(void)
{
	int ret = 0;

	rte_spinlock_lock(&reg_lock);
	if (!tel_done) {
		ret = rte_telemetry_register_cmd("/heteroplane/lcore/load", tel_load,
			/* help must stay under RTE_TEL_MAX_STRING_LEN (128) */
			"Polling-loop load estimates in basis points (docs/load.md). Parameter: none (all loops) or an lcore id");
		if (ret == 0) {
#ifdef HP_HAVE_LCORE_USAGE_CB
			rte_lcore_register_usage_cb(usage_cb);
#endif
			tel_done = true;
		}
	}
	rte_spinlock_unlock(&reg_lock);
	return ret;
}
