/* SPDX-License-Identifier: BSD-3-Clause
 * What a run collects: the load counters of every polling loop (lib/load),
 * the progress lines printed from the trace rows the scheduler writes, and
 * the result once every stage has stopped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pl_priv.h"

/* Load counters (lib/load) of every polling loop: devices, scheduler,
 * and the traffic lcore when there is one. */
unsigned int
pl_n_loops(const struct pl_run *r)
{
	return r->n_dev + r->n_sc + (pl_has_traffic(r) ? 1 : 0);
}

struct hp_load *
pl_loop_load(const struct pl_run *r, unsigned int i)
{
	if (i < r->n_dev)
		return &r->dev[i].load;
	return i < r->n_dev + r->n_sc ? &r->sc[i - r->n_dev].load : &r->tr->load;
}

int
pl_loads_init(struct pl_run *r, char *err, size_t errlen)
{
	unsigned int i, burst = r->cfg->burst;
	int ret = 0;

	for (i = 0; i < pl_n_loops(r) && ret == 0; i++) {
		bool sched = i >= r->n_dev && i < r->n_dev + r->n_sc;
		struct hp_load_conf c = {
			.interval_s = r->cfg->load_interval_s,
			.hz = r->hz,
			.yields = r->cfg->idle_yield != 0,
			/* items per iteration at saturation: a device's burst
			 * or batch; scheduler and traffic each handle rx,
			 * completions and tx in one iteration */
			.max_batch = i < r->n_dev ?
				RTE_MAX(burst, r->dev[i].caps.max_batch_pkts) : 3 * burst,
		};

		/* "sched" with one scheduler lcore, "sched0".. with several */
		if (sched && r->n_sc > 1)
			snprintf(c.name, sizeof(c.name), "sched%u", i - r->n_dev);
		else
			snprintf(c.name, sizeof(c.name), "%s", i < r->n_dev ? r->dev[i].name :
				 sched ? "sched" : "traffic");
		ret = hp_load_init(pl_loop_load(r, i), &c);
		if (ret == 0)
			ret = hp_load_register(pl_loop_load(r, i));
	}
	if (ret == 0)
		ret = hp_load_telemetry_init();
	if (ret < 0)
		snprintf(err, errlen, "load counters: %s (interval 0.01..60 s)",
			 strerror(-ret));
	return ret;
}

void
pl_loads_fini(struct pl_run *r)
{
	unsigned int i;

	if (r->dev == NULL || r->sc == NULL || r->tr == NULL)
		return;
	for (i = 0; i < pl_n_loops(r); i++)
		hp_load_unregister(pl_loop_load(r, i));
}

/* A percentage, or "-" where it would be a share of nothing (NAN). */
static const char *
pct_str(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "%6s", "-");
	else
		snprintf(buf, len, "%5.1f%%", v);
	return buf;
}

static void
print_row(const struct pl_run *r, const struct hp_trace_row *row)
{
	char load[256], dl[16], ro[16];
	size_t o;
	unsigned int i;

	o = (size_t)snprintf(load, sizeof(load), "sched %3.0f%%", row->sched_busy_pct);
	for (i = 0; i < r->n_dev && o < sizeof(load); i++)
		o += (size_t)snprintf(load + o, sizeof(load) - o, " %s %3.0f%%",
				      r->dev[i].name, row->worker_busy_pct[i]);
	printf("[%5.1fs] offered %8.3f Mpps  delivered %8.3f Mpps %7.3f Gbps L2  p50 %8.1f us  p99 %8.1f us  deadline %s  reorder %s  port-drops %" PRIu64 "  load: %s\n",
	       row->t, row->offered_pps / 1e6, row->delivered_pps / 1e6, row->gbps,
	       row->p50_us, row->p99_us, pct_str(dl, sizeof(dl), row->deadline_pct),
	       pct_str(ro, sizeof(ro), row->reorder_pct), row->dropped_port, load);
	if (row->goal[0] != '\0')
		printf("         goal %s  configuration %s  switches %" PRIu64 "\n", row->goal,
		       row->cfg, row->switches);
	/* load estimates (lib/load, docs/load.md), one loop a line */
	for (i = 0; i < row->n_load; i++) {
		const struct hp_load *ld = pl_loop_load(r, i);

		hp_load_row_str(load, sizeof(load), ld->conf.name, &row->load[i]);
		printf("         load %s\n", load);
		if (row->load[i].warn_new)
			printf("         warning: %s projected load %.0f%% crosses %.0f%% (now %.0f%%)\n",
			       ld->conf.name, row->load[i].projected * 100,
			       ld->conf.warn_threshold * 100, row->load[i].load * 100);
	}
	fflush(stdout);
}

void
pl_progress(struct pl_run *r)
{
	unsigned int n = LOAD(r->n_rows);

	for (; r->shown < n; r->shown++)
		if (!r->cfg->quiet)
			print_row(r, &r->rows[r->shown]);
}

/* a / b in percent; none where b is nothing (NAN: null in the outputs,
 * not "100 % of 0") */
static double
pct_of(uint64_t a, uint64_t b, double none)
{
	return b ? 100.0 * (double)a / (double)b : none;
}

/* One trace row per second, computed by the lcore that owns the data (the
 * scheduler's pass calls it). With several scheduler lcores the first
 * writes it: counts and rates are the sums of all (read relaxed), the
 * latency quantiles its own flows' (a share RSS chose; the run's
 * histogram at the end merges all). */
void
pl_sched_row(struct pl_run *r, struct pl_sched *sc, uint64_t now, double dt)
{
	struct pl_sched_row *p = &sc->row;
	struct hp_trace_row *row;
	struct pl_row_src v;
	uint64_t off = pl_offered_now(r), pd = pl_port_drops(r);
	uint64_t ro, roin, all = 0;
	unsigned int i;

	pl_row_src(r, sc, &v);
	ro = v.ro_packets;
	roin = v.ro_in_order;

	if (r->n_rows >= HP_TRACE_MAX)
		return;
	row = &r->rows[r->n_rows];
	pl_lat_fold(r, sc);
	row->t = (double)(now - r->t0) / (double)r->hz;
	row->offered_pps = (double)(off - p->off) / dt;
	row->delivered_pps = (double)(v.tx - p->tx) / dt;
	row->gbps = (double)(v.bytes_tx - p->bytes) * 8 / dt / 1e9;
	row->l1_gbps = row->gbps + (double)((v.tx - p->tx) * HP_L1_OVERHEAD +
					    v.l1_pad - p->l1pad) * 8 / dt / 1e9;
	row->p50_us = (double)hp_hist_quantile(&sc->ilat, 0.5) / 1e3;
	row->p99_us = (double)hp_hist_quantile(&sc->ilat, 0.99) / 1e3;
	row->deadline_pct = pct_of(v.dl_met - p->dlmet, v.dl_pkts - p->dl, NAN);
	/* order-needing packets sent this second, in order at tx */
	row->reorder_pct = pct_of(v.order_out_in_order - p->outin, v.order_out - p->outp,
				  NAN);
	row->arrived_pct = 100.0 - pct_of(v.ro_ooo - p->roooo, ro - p->ro, NAN);
	row->dropped_port = pd - p->portdrop;
	row->sched_busy_pct = pct_of(v.busy - p->busy, v.total - p->total, 0);
	row->sched_in_pct = pct_of(v.in - p->in, v.busy - p->busy, 0);
	for (i = 0; i < r->n_dev; i++) {
		uint64_t b = LOAD(r->dev[i].st.busy_cycles), t = LOAD(r->dev[i].st.total_cycles);

		row->worker_busy_pct[i] = t > p->wtotal[i] ?
			100.0 * (double)(b - p->wbusy[i]) / (double)(t - p->wtotal[i]) : 0;
		p->wbusy[i] = b;
		p->wtotal[i] = t;
	}
	row->mean_us = hp_hist_mean(&sc->ilat) / 1e3;
	for (i = 0; i < r->n_dev; i++)
		all += v.back[i] - p->back[i];
	for (i = 0; i < r->n_dev; i++) {
		row->dev_share_pct[i] = pct_of(v.back[i] - p->back[i], all, NAN);
		p->back[i] = v.back[i];
	}
	for (i = 0; i < HP_POWER_MAX; i++)
		__atomic_load(&r->power_w[i], &row->power_w[i], __ATOMIC_RELAXED);
	memcpy(row->goal, sc->s.gs.goal, sizeof(row->goal));
	memcpy(row->cfg, sc->s.gs.cfg, sizeof(row->cfg));
	row->switches = sc->s.gs.switches;
	if (sc->apps != NULL)
		pl_apps_row(sc->apps, row, dt);
	p->tx = v.tx;
	p->bytes = v.bytes_tx;
	p->l1pad = v.l1_pad;
	p->dl = v.dl_pkts;
	p->dlmet = v.dl_met;
	p->ro = ro;
	p->roin = roin;
	p->held = v.ro_held;
	p->roooo = v.ro_ooo;
	p->outp = v.order_out;
	p->outin = v.order_out_in_order;
	p->off = off;
	p->portdrop = pd;
	p->busy = v.busy;
	p->total = v.total;
	p->in = v.in;
	hp_hist_merge(&sc->lat, &sc->ilat);
	pl_tel_lat_publish(r, sc, now, dt);
	hp_hist_reset(&sc->ilat);
	row->n_load = pl_n_loops(r);
	for (i = 0; i < row->n_load; i++)
		hp_load_row_take(pl_loop_load(r, i), &p->load[i], &row->load[i]);
	STORE(r->n_rows, r->n_rows + 1);
}

void
pl_collect(struct pl_run *r, struct hp_run_result *res)
{
	struct pl_sched *sc = r->sc;
	uint64_t cyc = 0, n = 0, oh2 = 0, wp = 0;
	unsigned int i;

	/* each scheduler lcore's part, then their sums into sc */
	pl_multi_collect(r, res);

	res->received = sc->rx;
	res->bytes_received = sc->bytes_rx;
	memcpy(res->type, sc->tcnt, sizeof(res->type));
	res->n_tasks = r->app->n_tasks;
	memcpy(res->dropped_invalid, sc->invalid, sizeof(sc->invalid));
	/* what came after the last row */
	pl_lat_fold(r, sc);
	hp_hist_merge(&sc->lat, &sc->ilat);
	hp_hist_reset(&sc->ilat);
	res->lat = sc->lat;
	res->deadline_pkts = sc->dl_pkts;
	res->deadline_met = sc->dl_met;
	res->reorder_pkts = sc->ro.st.packets;
	res->reorder_in_order = sc->ro.st.in_order;
	res->reorder_late = sc->ro.st.late;
	res->reorder_drains = sc->ro.st.early_drains;
	res->reorder_arrived_ooo = sc->ro.st.arrived_ooo;
	res->reorder_drained = sc->ro.st.drained;
	res->reorder_timeout_drains = sc->ro.st.timeout_drains;
	res->reorder_skipped = sc->ro.st.skipped;
	res->reorder_hold_us = pl_reorder_hold_us(r->cfg);
	res->order_out = sc->order_out;
	res->order_out_in_order = sc->order_out_in_order;
	res->out_of_order_all = sc->out_of_order_all;
	res->flows_max = sc->ft.max;
	res->flows_live = sc->ft.live;
	res->flows_peak = sc->ft.st.peak;
	res->flows_created = sc->ft.st.created;
	res->flows_expired = sc->ft.st.expired;
	res->flows_refused = sc->ft.st.refused;
	/* refused packets never leave: the scheduler dropped them */
	res->task_errors = sc->task_err;
	res->task_errors_security = sc->task_err_sec;
	res->dropped_admission = sc->admission;
	res->n_dev = r->n_dev;
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_device *d = &r->dev[i];
		struct hp_dev_report *dr = &res->dev[i];
		struct hp_dev_info info;

		res->dev_pkts[i] = sc->back_w[i] - sc->back_base[i];
		for (unsigned int k = 0; k < r->app->n_tasks; k++)
			res->dev_task_pkts[i][k] = sc->task_back[i][k] - sc->task_base[i][k];
		oh2 += d->st.oh2_cycles;
		wp += d->st.pkts;
		res->stage_retries += d->ost.retries + sc->wst[i]->retries;
		snprintf(dr->name, sizeof(dr->name), "%s", d->name);
		hp_device_info(d, &info);
		dr->modeled = info.modeled;
		dr->batch = info.batch;
		dr->pkts = sc->dlat[i].count;
		dr->lat_mean_us = hp_hist_mean(&sc->dlat[i]) / 1e3;
		dr->lat_p99_us = (double)hp_hist_quantile(&sc->dlat[i], 0.99) / 1e3;
		dr->batches = d->st.batches;
		dr->batch_pkts = d->st.batch_pkts;
		dr->driver_calls = d->st.driver_calls;
		dr->driver_polls = d->st.driver_polls;
		dr->gathered_pkts = d->st.gathered_pkts;
		dr->scattered_pkts = d->st.scattered_pkts;
		dr->commit_cycles_pkt = d->st.commit_pkts ?
			(double)d->st.commit_cycles / (double)d->st.commit_pkts : 0;
		dr->prep_cycles_pkt = d->st.prep_pkts ?
			(double)d->st.prep_cycles / (double)d->st.prep_pkts : 0;
		RTE_BUILD_BUG_ON(HP_FLUSH_REASONS > RTE_DIM(dr->flush));
		memcpy(dr->flush, d->st.flush, sizeof(d->st.flush));
		dr->fallback_pkts = d->st.fallback_pkts;
		dr->failed = d->failed != 0;
		dr->failed_at_s = d->failed_at_s;
		snprintf(dr->fail_reason, sizeof(dr->fail_reason), "%s", d->fail_reason);
		dr->busy_pct = d->st.total_cycles ?
			100.0 * (double)d->st.busy_cycles / (double)d->st.total_cycles : 0;
		dr->model_busy_pct = res->duration_s > 0 ?
			100.0 * (double)d->st.model_cycles / (double)r->hz / res->duration_s : 0;
	}
	res->stage_retries += sc->txs.retries;
	n = sc->tx;
	if (n) {
		double us = 1e6 / (double)r->hz;

		res->oh1_us = (double)sc->oh1 / (double)n * us;
		res->proc_us = (double)sc->proc / (double)n * us;
		res->oh3_us = (double)sc->oh3 / (double)n * us;
		/* hops per delivered packet (st.pkts counts tasks with
		 * granularity task, packets with chain) */
		res->oh2_us = wp ? (double)oh2 / (double)(r->cfg->task_gran ? n : wp) * us : 0;
	}
	/* Dispatch cost: the CPU time the scheduler thread had, times the
	 * share of its loop time that found work, per packet received.
	 * TSC spans alone (busy_cycles) also count the slices another
	 * thread ran while this one was preempted mid-iteration; the share
	 * busy/total is hit by preemption alike in its numerator and
	 * denominator, so it survives. Exact when the loop is saturated. */
	cyc = sc->cpu_ns && sc->total_cycles ?
		(uint64_t)((double)sc->cpu_ns * 1e-9 * (double)r->hz *
			   (double)sc->busy_cycles / (double)sc->total_cycles) :
		sc->busy_cycles;
	res->sched_cycles_per_pkt = sc->rx ? (double)cyc / (double)sc->rx : 0;
	res->sched_in_cycles_per_pkt = sc->busy_cycles ?
		res->sched_cycles_per_pkt * (double)sc->in_cycles / (double)sc->busy_cycles : 0;
	pl_apps_collect(r, res);
	res->results_written = sc->results_written;
	res->results_no_room = sc->results_no_room;
	res->goal = sc->s.gs;
	res->verified = r->tr->ver.verified;
	res->verify_failures = r->tr->ver.fail;
	res->unverified = r->tr->ver.unverified;
	if (r->cfg->src == HP_SRC_GEN) {
		res->offered = r->tr->offered;
		res->dropped_port = pl_port_drops(r);
		res->delivered = r->tr->sink;
		res->bytes_delivered = r->tr->sink_bytes;
	} else {
		res->dropped_port = pl_port_drops(r);
		res->offered = res->received + res->dropped_port;
		res->delivered = sc->tx;
		res->bytes_delivered = sc->bytes_tx;
	}
	/* on the wire: every frame padded to 60 B, plus FCS, preamble and
	 * gap (the scheduler's tx count; the sink sees the same frames) */
	res->bytes_delivered_l1 = res->bytes_delivered + sc->l1_pad +
				  HP_L1_OVERHEAD * res->delivered;
	/* What came in and neither left nor was dropped with a reason
	 * (invalid at classification, refused by a task or by admission). */
	{
		uint64_t inv = 0, out;

		for (i = 0; i < HP_DROP_REASONS; i++)
			inv += res->dropped_invalid[i];
		out = res->delivered + inv + res->task_errors + res->dropped_admission;
		res->dropped_internal = res->received > out ? res->received - out : 0;
	}
	res->n_rows = r->n_rows;
	res->rows = r->rows;
	r->rows = NULL;
}
