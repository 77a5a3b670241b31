/* SPDX-License-Identifier: BSD-3-Clause
 * Several scheduler lcores (--sched-lcores N, docs/scale-out.md): what
 * reads across them. Each scheduler keeps its own flows, windows,
 * counters and policy; the others only read its counters relaxed (the
 * trace rows, telemetry, the run's end), and after the stages stopped its
 * counters and histograms are added into the first's, so that the run's
 * totals are the sums of the lcores' and pl_collect() reads them there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ring.h>

#include "hp_common.h"
#include "pl_priv.h"

#define RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

uint64_t
pl_sum_u64(const struct pl_run *r, size_t off)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < r->n_sc; i++)
		v += __atomic_load_n((const uint64_t *)((const char *)&r->sc[i] + off),
				     __ATOMIC_RELAXED);
	return v;
}

void
pl_row_src(const struct pl_run *r, const struct pl_sched *sc, struct pl_row_src *v)
{
	unsigned int i, d, n = r->n_sc > 1 ? r->n_sc : 1;
	const struct pl_sched *s;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < n; i++) {
		/* one scheduler: its own, plain reads of its own counters */
		s = r->n_sc > 1 ? &r->sc[i] : sc;
		v->tx += RD(s->tx);
		v->bytes_tx += RD(s->bytes_tx);
		v->l1_pad += RD(s->l1_pad);
		v->dl_pkts += RD(s->dl_pkts);
		v->dl_met += RD(s->dl_met);
		v->order_out += RD(s->order_out);
		v->order_out_in_order += RD(s->order_out_in_order);
		v->ro_packets += RD(s->ro.st.packets);
		v->ro_in_order += RD(s->ro.st.in_order);
		v->ro_ooo += RD(s->ro.st.arrived_ooo);
		v->ro_held += RD(s->ro.held);
		v->busy += RD(s->busy_cycles);
		v->total += RD(s->total_cycles);
		v->in += RD(s->in_cycles);
		for (d = 0; d < r->n_dev; d++)
			v->back[d] += RD(s->back_w[d]);
	}
}

/* Once a pass with several schedulers: the devices' input rings as all
 * of them filled them, two reads of the ring's head and tail a device
 * (the policies' shared estimate, hp_sched_dev.shared). */
void
pl_multi_books(struct pl_run *r, struct pl_sched *sc)
{
	unsigned int w;

	for (w = 0; w < r->n_dev; w++)
		sc->sdev[w].shared = rte_ring_count(r->dev[w].in);
}

bool
pl_others_done(const struct pl_run *r)
{
	unsigned int i;

	for (i = 1; i < r->n_sc; i++)
		if (!hp_stage_done(PL_STAGE_SCHED(r, i)))
			return false;
	return true;
}

/* The dispatch cost per packet received, as pl_collect() computes the
 * run's: the thread's CPU time times the loop's busy share, else TSC. */
static double
cycles_per_pkt(const struct pl_run *r, const struct pl_sched *sc)
{
	uint64_t cyc = sc->cpu_ns && sc->total_cycles ?
		(uint64_t)((double)sc->cpu_ns * 1e-9 * (double)r->hz *
			   (double)sc->busy_cycles / (double)sc->total_cycles) :
		sc->busy_cycles;

	return sc->rx ? (double)cyc / (double)sc->rx : 0;
}

/* n uint64_t counters of src added into dst */
static void
add_u64(void *dst, const void *src, size_t bytes)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	size_t i;

	for (i = 0; i < bytes / sizeof(uint64_t); i++)
		d[i] += s[i];
}

/* Scheduler i's counters and histograms added into scheduler 0's. */
static void
merge_into_first(struct pl_run *r, struct pl_sched *s0, struct pl_sched *s)
{
	unsigned int d;

	RTE_BUILD_BUG_ON(sizeof(struct hp_type_count) % sizeof(uint64_t) != 0);
	RTE_BUILD_BUG_ON(sizeof(struct hp_reorder_stats) % sizeof(uint64_t) != 0);
	RTE_BUILD_BUG_ON(sizeof(struct hp_flowtab_stats) % sizeof(uint64_t) != 0);
	s0->rx += s->rx;
	s0->tx += s->tx;
	s0->bytes_tx += s->bytes_tx;
	s0->bytes_rx += s->bytes_rx;
	s0->l1_pad += s->l1_pad;
	add_u64(s0->invalid, s->invalid, sizeof(s->invalid));
	add_u64(s0->tcnt, s->tcnt, sizeof(s->tcnt));
	s0->freed += s->freed;
	s0->dl_pkts += s->dl_pkts;
	s0->dl_met += s->dl_met;
	s0->task_err += s->task_err;
	s0->task_err_sec += s->task_err_sec;
	s0->admission += s->admission;
	s0->untracked += s->untracked;
	s0->order_out += s->order_out;
	s0->order_out_in_order += s->order_out_in_order;
	s0->out_of_order_all += s->out_of_order_all;
	s0->oh1 += s->oh1;
	s0->proc += s->proc;
	s0->oh3 += s->oh3;
	s0->busy_cycles += s->busy_cycles;
	s0->total_cycles += s->total_cycles;
	s0->in_cycles += s->in_cycles;
	s0->cpu_ns += s->cpu_ns;
	s0->results_written += s->results_written;
	s0->results_no_room += s->results_no_room;
	/* held_max of the sum is not the sum of the maxima: the largest */
	{
		uint64_t hm = RTE_MAX(s0->ro.st.held_max, s->ro.st.held_max);

		add_u64(&s0->ro.st, &s->ro.st, sizeof(s->ro.st));
		s0->ro.st.held_max = hm;
	}
	add_u64(&s0->ft.st, &s->ft.st, sizeof(s->ft.st));
	s0->ft.max += s->ft.max;
	s0->ft.live += s->ft.live;
	s0->txs.retries += s->txs.retries;
	for (d = 0; d < r->n_dev; d++) {
		s0->back_w[d] += s->back_w[d];
		s0->back_base[d] += s->back_base[d];
		add_u64(s0->task_back[d], s->task_back[d], sizeof(s->task_back[d]));
		add_u64(s0->task_base[d], s->task_base[d], sizeof(s->task_base[d]));
		s0->wst[d]->retries += s->wst[d]->retries;
		hp_hist_merge(&s0->dlat[d], &s->dlat[d]);
	}
	hp_hist_merge(&s0->lat, &s->lat);
}

void
pl_multi_collect(struct pl_run *r, struct hp_run_result *res)
{
	const struct pl_traffic *tr = r->tr;
	unsigned int i;

	res->n_sched = r->n_sc;
	for (i = 0; i < r->n_sc; i++) {
		struct pl_sched *sc = &r->sc[i];
		struct hp_sched_lcore *l = &res->sched_lcores[i];
		uint64_t drops = sc->task_err + sc->admission;

		/* what came after its last row, into its run histogram */
		pl_lat_fold(r, sc);
		hp_hist_merge(&sc->lat, &sc->ilat);
		hp_hist_reset(&sc->ilat);
		for (unsigned int k = 0; k < HP_DROP_REASONS; k++)
			drops += sc->invalid[k];
		*l = (struct hp_sched_lcore){
			.queue = sc->q,
			.rx = sc->rx,
			.tx = sc->tx,
			.bytes_rx = sc->bytes_rx,
			.bytes_tx = sc->bytes_tx,
			.dropped = drops,
			.busy_cycles = sc->busy_cycles,
			.total_cycles = sc->total_cycles,
			.cycles_per_pkt = cycles_per_pkt(r, sc),
			.flows_created = sc->ft.st.created,
			.reorder_pkts = sc->ro.st.packets,
			.order_out = sc->order_out,
			.order_out_in_order = sc->order_out_in_order,
			.lat_count = sc->lat.count,
		};
		l->in_cycles_per_pkt = sc->busy_cycles ? l->cycles_per_pkt *
			(double)sc->in_cycles / (double)sc->busy_cycles : 0;
		/* the generator counts per queue only with several */
		if (r->cfg->src == HP_SRC_GEN && r->n_sc > 1) {
			l->q_offered = tr->q_offered[i];
			l->q_dropped = tr->q_dropped[i];
		} else if (r->cfg->src == HP_SRC_GEN) {
			l->q_offered = tr->offered;
			l->q_dropped = tr->dropped_port;
		}
	}
	for (i = 1; i < r->n_sc; i++)
		merge_into_first(r, &r->sc[0], &r->sc[i]);
}

/* What runs with several scheduler lcores today, refused otherwise with
 * one line (the caller exits 2): a combination that would run wrong. */
int
hp_run_multi_check(const struct hp_run_cfg *cfg, char *err, size_t errlen)
{
	const char *no = NULL;

	if (cfg->sched_lcores > HP_MAX_SCHED_LCORES) {
		snprintf(err, errlen, "--sched-lcores %u: at most %d scheduler lcores",
			 cfg->sched_lcores, HP_MAX_SCHED_LCORES);
		return -EINVAL;
	}
	if (cfg->sched_lcores <= 1)
		return 0;
	if (cfg->mix.n > 1)
		no = "--apps";
	else if (cfg->task_gran)
		no = "--granularity task";
	else if (cfg->tx_results)
		no = "--tx-results";
	else if (!strcmp(cfg->sched, "qlearn") || !strcmp(cfg->sched, "pythia"))
		no = !strcmp(cfg->sched, "qlearn") ? "--sched qlearn (one Q-table, one learner)" :
		     "--sched pythia / --goal (one monitor switches the devices)";
	else if (cfg->stages_as_services)
		no = "--stages-as-services";
	else if (cfg->max_packets && cfg->src != HP_SRC_GEN)
		no = "--packets with a pcap or af_packet source";
	if (no != NULL) {
		snprintf(err, errlen, "--sched-lcores %u: not with %s yet (docs/scale-out.md)",
			 cfg->sched_lcores, no);
		return -ENOTSUP;
	}
	return 0;
}

_Static_assert(HP_MAX_SCHED_LCORES <= HP_DEV_MAX_OUT && HP_MAX_SCHED_LCORES <= HP_RSS_MAX_Q &&
	       HP_MAX_SCHED_LCORES <= 8, "hp_meta's owner (3 bits), a device's completion rings and the RSS queues hold every scheduler lcore");
