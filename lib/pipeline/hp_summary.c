/* SPDX-License-Identifier: BSD-3-Clause
 * Run report: the summary table on stdout, summary.json (jansson: every
 * string escaped, whatever a path or a device name holds) and trace.csv,
 * each written under a temporary name and renamed, so that a failed write
 * (a full disk) leaves the previous file or none, never a truncated one.
 * Key names of summary.json are an interface (tests and tools read them).
 * A share of nothing (no such packet) is null, not 100 %.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "hp_batch.h"
#include "hp_pipeline.h"
#include "hp_reorder.h"
#include "hp_sched.h"

/* a / b in percent, NAN where b is nothing */
static double
pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : NAN;
}

/* Order before the window (arrived) or after it (restored), percent. */
static double
ooo_pct(const struct hp_run_result *r, bool restored)
{
	struct hp_reorder_stats st = {
		.packets = r->reorder_pkts,
		.late = r->reorder_late,
		.arrived_ooo = r->reorder_arrived_ooo,
		.drained = r->reorder_drained,
	};

	if (r->reorder_pkts == 0)
		return NAN;
	return restored ? hp_reorder_restored_pct(&st) : hp_reorder_arrived_pct(&st);
}

static double
q_us(const struct hp_hist *h, double q)
{
	return h->count ? (double)hp_hist_quantile(h, q) / 1e3 : NAN;
}

static double
rate(const struct hp_run_result *r, double x)
{
	return r->duration_s > 0 ? x / r->duration_s : 0;
}

static double
gbps(const struct hp_run_result *r)
{
	return rate(r, (double)r->bytes_delivered * 8 / 1e9);
}

static double
l1_gbps(const struct hp_run_result *r)
{
	return rate(r, (double)r->bytes_delivered_l1 * 8 / 1e9);
}

static double
mpps(const struct hp_run_result *r)
{
	return rate(r, (double)r->delivered / 1e6);
}

static const char *
sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	       sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* "12.34 %", or "-" for a share of nothing. */
static const char *
pct_str(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f %%", v);
	return buf;
}

/* Where each task ran (thesis Figures 5.5/5.12: C2 splits per task). */
static void
print_task_share(const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	unsigned int i, k;
	char b[32];

	printf("  %-26s granularity %s\n", "task share", cfg->task_gran ? "task" : "chain");
	for (k = 0; k < r->n_tasks; k++) {
		uint64_t all = 0;

		for (i = 0; i < r->n_dev; i++)
			all += r->dev_task_pkts[i][k];
		printf("  %-26s task %u:", "", k);
		for (i = 0; i < r->n_dev; i++)
			printf(" %s %s", r->dev[i].name,
			       pct_str(b, sizeof(b), pct(r->dev_task_pkts[i][k], all)));
		printf("\n");
	}
}

static void
print_power(const struct hp_run_result *r)
{
	unsigned int i;

	if (!r->power.measured_any)
		printf("  %-26s %s\n", "power (measured)", r->power.unavailable);
	for (i = 0; i < r->power.n; i++)
		printf("  %-26s %.3f W mean, %.3f J  %s\n", i == 0 ? "power" : "",
		       r->power.mean_w[i], r->power.joules[i], r->power.name[i]);
}

/* Drops by reason and task errors: what a user looks for first when
 * delivered < received. */
static void
print_drops(const struct hp_run_result *r)
{
	unsigned int i, n = 0;

	for (i = 1; i < HP_DROP_REASONS; i++)
		if (r->dropped_invalid[i]) {
			printf("  %-26s %" PRIu64 " (%s)\n", n ? "" : "dropped invalid",
			       r->dropped_invalid[i], hp_drop_reason_names[i]);
			n++;
		}
	if (n == 0)
		printf("  %-26s 0\n", "dropped invalid");
	if (r->task_errors)
		printf("  %-26s %" PRIu64 " refused by a task, dropped (task_error); %" PRIu64 " by a security task\n",
		       "task errors", r->task_errors, r->task_errors_security);
	else
		printf("  %-26s 0\n", "task errors");
	if (r->dropped_admission)
		printf("  %-26s %" PRIu64 " refused by the policy's admission (above the target rate)\n",
		       "dropped (admission)", r->dropped_admission);
}

/* One line a packet type that saw packets. */
static void
print_types(const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	unsigned int i;
	char b[32];

	printf("  %-26s %-13s %-9s %12s %12s %14s  %s\n", "per packet type", "frame bytes",
	       "needs", "received", "delivered", "bytes", "deadlines met");
	for (i = 0; i <= cfg->types.n && i <= HP_MAX_TYPES; i++) {
		const struct hp_type_count *c = &r->type[i];
		const struct hp_type *t = i ? &cfg->types.t[i - 1] : NULL;
		char range[24];

		if (c->rx == 0 && c->tx == 0)
			continue;
		if (t != NULL)
			snprintf(range, sizeof(range), "%u..%u", t->min_len, t->max_len);
		printf("  %-26s %-13s %-9s %12" PRIu64 " %12" PRIu64 " %14" PRIu64 "  %s\n",
		       "", t ? range : "(no type)",
		       t ? (t->reorder && t->latency ? "order,lat" : t->reorder ? "order" :
			    t->latency ? "latency" : "-") : "-",
		       c->rx, c->tx, c->bytes,
		       c->dl_pkts ? pct_str(b, sizeof(b), pct(c->dl_met, c->dl_pkts)) : "-");
	}
}

/* --apps: one line an app, then where its packets ran. */
static void
print_apps(const struct hp_run_result *r)
{
	unsigned int a, i;
	char b1[32], b2[32], b3[32];

	printf("  %-26s %-8s %11s %12s %12s %12s %9s %9s %9s\n", "per app", "", "share/got",
	       "received", "delivered", "verified", "p99 us", "deadline", "in order");
	for (a = 0; a < r->n_apps; a++) {
		const struct hp_app_report *p = &r->apps[a];

		printf("  %-26s %-8s %5.3f/%5.3f %12" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %9.1f %9s %9s\n", "", p->name, p->share,
		       r->received ? (double)p->received / (double)r->received : 0.0,
		       p->received, p->delivered, p->verified,
		       p->lat.count ? q_us(&p->lat, 0.99) : 0.0,
		       p->deadline_pkts ? pct_str(b1, sizeof(b1),
						  pct(p->deadline_met, p->deadline_pkts)) : "-",
		       p->order_out ? pct_str(b2, sizeof(b2),
					      pct(p->order_out_in_order, p->order_out)) : "-");
		printf("  %-26s %-8s dropped: port %" PRIu64 " admission %" PRIu64
		       " task errors %" PRIu64 "\n", "", "", p->dropped_port,
		       p->dropped_admission, p->task_errors);
		printf("  %-26s %-8s", "", "");
		for (i = 0; i < r->n_dev; i++)
			printf(" %s %s", r->dev[i].name,
			       pct_str(b3, sizeof(b3), pct(p->dev_pkts[i], p->delivered)));
		printf("\n");
	}
}

void
hp_print_summary(const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	unsigned int i;
	char b1[32], b2[32], b3[32];

	printf("\n=== heteroplane summary: app %s, scheduler %s, scenario %s, %u worker(s), %.1f s ===\n",
	       cfg->app, cfg->sched, cfg->trace_file ? "trace" : cfg->scenario,
	       cfg->workers, r->duration_s);
	if (r->interrupted)
		printf("  %-26s by %s after %.1f s: traffic stopped, in-flight packets drained\n",
		       "interrupted", sig_name(r->interrupted), r->duration_s);
	printf("  %-26s %" PRIu64 "\n", "packets offered", r->offered);
	printf("  %-26s %" PRIu64 " (%" PRIu64 " bytes)\n", "packets received", r->received,
	       r->bytes_received);
	printf("  %-26s %" PRIu64 " (%" PRIu64 " bytes)\n", "packets delivered", r->delivered,
	       r->bytes_delivered);
	printf("  %-26s %" PRIu64 "\n", "dropped at port", r->dropped_port);
	if (cfg->src == HP_SRC_AF_PACKET)
		printf("  %-26s MTU %u, frames up to %u B whole; %" PRIu64 " of the drops in the kernel's ring; %" PRIu64 " datagrams reassembled by the kernel from %" PRIu64 " fragments, %" PRIu64 " failed\n",
		       "port (af_packet)", r->port.mtu, r->port.frame_max, r->port.kernel_drops,
		       r->port.reasm_datagrams, r->port.reasm_fragments, r->port.reasm_failed);
	else if (cfg->src == HP_SRC_PCAP)
		printf("  %-26s %" PRIu64 " records a pass%s; frames up to %u B in one mbuf\n",
		       "port (pcap)", r->port.pcap_records,
		       r->port.pcap_cut ? ", then the file is cut" : "", r->port.frame_max);
	printf("  %-26s %" PRIu64 "\n", "dropped internally", r->dropped_internal);
	print_drops(r);
	printf("  %-26s %" PRIu64 " verified, %" PRIu64 " failed, %" PRIu64 " not checkable\n",
	       "verification", r->verified, r->verify_failures, r->unverified);
	printf("  %-26s %" PRIu64 " of %" PRIu64 "\n", "mbufs leaked", r->mbufs_leaked,
	       r->mbufs_total);
	printf("  %-26s %.3f Mpps, %.3f Gbps L2 (frames without FCS), %.3f Gbps L1 (+ %u B a frame: FCS, preamble, gap) (capacity %.3f Mpps)\n",
	       "throughput", mpps(r), gbps(r), l1_gbps(r), HP_L1_OVERHEAD, r->capacity_pps / 1e6);
	if (r->lat.count)
		printf("  %-26s mean %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  (from port arrival)\n",
		       "latency (us)", hp_hist_mean(&r->lat) / 1e3, q_us(&r->lat, 0.5),
		       q_us(&r->lat, 0.9), q_us(&r->lat, 0.99), q_us(&r->lat, 0.999),
		       (double)r->lat.max / 1e3);
	else
		printf("  %-26s - (no packet delivered)\n", "latency (us)");
	printf("  %-26s %s of %" PRIu64 " latency-sensitive packets\n", "deadlines met",
	       pct_str(b1, sizeof(b1), pct(r->deadline_met, r->deadline_pkts)), r->deadline_pkts);
	/* measured where packets leave, against each flow's input order */
	printf("  %-26s %s of %" PRIu64 " order-needing packets sent (%" PRIu64 " late, %" PRIu64 " window drains, %" PRIu64 " timeout drains)\n",
	       "in order", pct_str(b1, sizeof(b1), pct(r->order_out_in_order, r->order_out)),
	       r->order_out, r->reorder_late, r->reorder_drains, r->reorder_timeout_drains);
	printf("  %-26s %s arrived in order at the reorder stage, %s restored by the window\n",
	       "order before the window", pct_str(b2, sizeof(b2), ooo_pct(r, false)),
	       pct_str(b3, sizeof(b3), ooo_pct(r, true)));
	printf("  %-26s %" PRIu64 " at the end, %" PRIu64 " at most, of %" PRIu64 "; %" PRIu64 " expired idle; %" PRIu64 " packets of new flows refused (table full)\n",
	       "flows", r->flows_live, r->flows_peak, r->flows_max, r->flows_expired,
	       r->flows_refused);
	print_types(cfg, r);
	if (r->n_apps)
		print_apps(r);
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_dev_report *d = &r->dev[i];

		printf("  %-26s %s of packets, latency mean %.1f us p99 %.1f us",
		       i == 0 ? "device share" : "",
		       pct_str(b1, sizeof(b1), pct(r->dev_pkts[i], r->delivered)),
		       d->lat_mean_us, d->lat_p99_us);
		printf("  %s%s\n", d->name, d->modeled ? " (modeled)" : "");
		if (d->batch) {
			unsigned int k;

			printf("  %-26s %" PRIu64 " batches, mean %.1f packets; flushes:", "",
			       d->batches, d->batches ? (double)d->batch_pkts / (double)d->batches : 0);
			for (k = 1; k < HP_FLUSH_REASONS; k++)
				if (d->flush[k])
					printf(" %s %" PRIu64, hp_flush_reason_names[k], d->flush[k]);
			if (d->modeled)
				printf("; modeled busy %.1f %%", d->model_busy_pct);
			printf("\n");
		}
		if (d->failed)
			printf("  %-26s FAILED at %.2f s (%s); %" PRIu64 " packets finished on the CPU path instead\n",
			       "", d->failed_at_s, d->fail_reason, d->fallback_pkts);
	}
	if (cfg->task_gran || r->n_tasks > 1)
		print_task_share(cfg, r);
	print_power(r);
	printf("  %-26s arrival->device %.2f  between tasks %.2f  device->tx %.2f  (processing %.2f)\n",
	       "overhead per packet (us)", r->oh1_us, r->oh2_us, r->oh3_us, r->proc_us);
	printf("  %-26s %.0f cycles/packet (way in %.0f, way back %.0f)\n", "scheduler lcore busy",
	       r->sched_cycles_per_pkt, r->sched_in_cycles_per_pkt,
	       r->sched_cycles_per_pkt - r->sched_in_cycles_per_pkt);
	for (unsigned int i = 0; r->n_sched > 1 && i < r->n_sched; i++) {
		const struct hp_sched_lcore *l = &r->sched_lcores[i];

		printf("  %-26s queue %u: rx %" PRIu64 "  tx %" PRIu64 "  dropped %" PRIu64 "  busy %.1f%%  %.0f cycles/packet (way in %.0f)\n",
		       i ? "" : "scheduler lcores", l->queue, l->rx, l->tx, l->dropped,
		       l->total_cycles ? 100.0 * (double)l->busy_cycles / (double)l->total_cycles : 0,
		       l->cycles_per_pkt, l->in_cycles_per_pkt);
	}
	fflush(stdout);
}

/* ---- summary.json ---- */

/* A number, or null where there is none (NAN: a share of nothing). */
static json_t *
jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
ju64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A string from outside (a path, a device spec): jansson escapes quotes
 * and control characters; bytes that are not UTF-8 become '?', since a
 * JSON string must be Unicode. */
static json_t *
jstr(const char *s)
{
	json_t *j;
	char *c;
	size_t i;

	if (s == NULL)
		return json_null();
	j = json_string(s);
	if (j != NULL)
		return j;
	c = strdup(s);
	if (c == NULL)
		return json_null();
	for (i = 0; c[i]; i++)
		if ((unsigned char)c[i] >= 0x80)
			c[i] = '?';
	j = json_string(c);
	free(c);
	return j != NULL ? j : json_null();
}

/* json_object_set_new that gives up on the first failure (out of memory):
 * the caller checks once whether everything went in. */
#define SET(o, k, v) (ok &= json_object_set_new((o), (k), (v)) == 0)

/* Each scheduler lcore (--sched-lcores): its queue's counts and cost;
 * the run's totals are their sums. */
static json_t *
lcores_json(const struct hp_run_result *r)
{
	json_t *a = json_array();
	unsigned int i;
	bool ok = a != NULL;

	for (i = 0; ok && i < r->n_sched; i++) {
		const struct hp_sched_lcore *l = &r->sched_lcores[i];
		json_t *o = json_object();

		ok = o != NULL;
		if (!ok)
			break;
		SET(o, "queue", ju64(l->queue));
		SET(o, "received", ju64(l->rx));
		SET(o, "delivered", ju64(l->tx));
		SET(o, "bytes_received", ju64(l->bytes_rx));
		SET(o, "bytes_delivered", ju64(l->bytes_tx));
		SET(o, "dropped", ju64(l->dropped));
		SET(o, "queue_offered", ju64(l->q_offered));
		SET(o, "queue_dropped", ju64(l->q_dropped));
		SET(o, "busy_cycles", ju64(l->busy_cycles));
		SET(o, "total_cycles", ju64(l->total_cycles));
		SET(o, "busy_pct", jnum(l->total_cycles ? 100.0 * (double)l->busy_cycles /
						   (double)l->total_cycles : NAN));
		SET(o, "cycles_per_packet", jnum(l->cycles_per_pkt));
		SET(o, "in_cycles_per_packet", jnum(l->in_cycles_per_pkt));
		SET(o, "flows_created", ju64(l->flows_created));
		SET(o, "order_packets", ju64(l->order_out));
		SET(o, "order_in_order", ju64(l->order_out_in_order));
		SET(o, "latency_count", ju64(l->lat_count));
		ok &= json_array_append_new(a, o) == 0;
	}
	if (!ok) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *
latency_json(const struct hp_run_result *r)
{
	const struct hp_hist *h = &r->lat;
	json_t *o = json_object();
	int ok = o != NULL;

	SET(o, "mean", jnum(h->count ? hp_hist_mean(h) / 1e3 : NAN));
	SET(o, "std", jnum(h->count ? hp_hist_std(h) / 1e3 : NAN));
	SET(o, "p50", jnum(q_us(h, 0.5)));
	SET(o, "p90", jnum(q_us(h, 0.9)));
	SET(o, "p99", jnum(q_us(h, 0.99)));
	SET(o, "p999", jnum(q_us(h, 0.999)));
	SET(o, "min", jnum(h->count ? (double)h->min / 1e3 : NAN));
	SET(o, "max", jnum(h->count ? (double)h->max / 1e3 : NAN));
	SET(o, "count", ju64(h->count));
	SET(o, "from", json_string("port arrival"));
	return ok ? o : (json_decref(o), NULL);
}

static json_t *
order_json(const struct hp_run_result *r)
{
	json_t *o = json_object();
	int ok = o != NULL;

	SET(o, "packets", ju64(r->reorder_pkts));
	SET(o, "in_order", ju64(r->reorder_in_order));
	SET(o, "success_pct", jnum(pct(r->reorder_in_order, r->reorder_pkts)));
	SET(o, "late", ju64(r->reorder_late));
	SET(o, "window_drains", ju64(r->reorder_drains));
	SET(o, "arrived_out_of_order", ju64(r->reorder_arrived_ooo));
	SET(o, "arrived_in_order_pct", jnum(ooo_pct(r, false)));
	SET(o, "drained", ju64(r->reorder_drained));
	SET(o, "restored_pct", jnum(ooo_pct(r, true)));
	/* the window's hold, and order measured at tx (the "in order" line) */
	SET(o, "timeout_drains", ju64(r->reorder_timeout_drains));
	SET(o, "skipped", ju64(r->reorder_skipped));
	SET(o, "hold_us", jnum(r->reorder_hold_us));
	SET(o, "out_packets", ju64(r->order_out));
	SET(o, "out_in_order", ju64(r->order_out_in_order));
	SET(o, "out_in_order_pct", jnum(pct(r->order_out_in_order, r->order_out)));
	return ok ? o : (json_decref(o), NULL);
}

static json_t *
flows_json(const struct hp_run_result *r)
{
	json_t *o = json_object();
	int ok = o != NULL;

	SET(o, "max", ju64(r->flows_max));
	SET(o, "live", ju64(r->flows_live));
	SET(o, "peak", ju64(r->flows_peak));
	SET(o, "created", ju64(r->flows_created));
	SET(o, "expired", ju64(r->flows_expired));
	SET(o, "refused_packets", ju64(r->flows_refused));
	SET(o, "out_of_order_packets", ju64(r->out_of_order_all));
	return ok ? o : (json_decref(o), NULL);
}

static json_t *
device_json(const struct hp_run_result *r, unsigned int i)
{
	const struct hp_dev_report *d = &r->dev[i];
	json_t *o = json_object(), *fl;
	int ok = o != NULL;
	unsigned int k;

	SET(o, "name", jstr(d->name));
	SET(o, "modeled", json_boolean(d->modeled));
	SET(o, "packets", ju64(r->dev_pkts[i]));
	SET(o, "share_pct", jnum(pct(r->dev_pkts[i], r->delivered)));
	SET(o, "latency_mean_us", jnum(d->pkts ? d->lat_mean_us : NAN));
	SET(o, "latency_p99_us", jnum(d->pkts ? d->lat_p99_us : NAN));
	SET(o, "busy_pct", jnum(d->busy_pct));
	if (d->batch) {
		SET(o, "batches", ju64(d->batches));
		SET(o, "mean_batch", jnum(d->batches ? (double)d->batch_pkts /
					  (double)d->batches : NAN));
		fl = json_object();
		for (k = 1; k < HP_FLUSH_REASONS && fl != NULL; k++)
			ok &= json_object_set_new(fl, hp_flush_reason_names[k],
						  ju64(d->flush[k])) == 0;
		SET(o, "flush", fl);
		SET(o, "modeled_busy_pct", jnum(d->model_busy_pct));
		SET(o, "driver_calls", ju64(d->driver_calls));
		SET(o, "driver_polls", ju64(d->driver_polls));
		SET(o, "gathered_packets", ju64(d->gathered_pkts));
		SET(o, "scattered_packets", ju64(d->scattered_pkts));
		SET(o, "prep_cycles_per_pkt", jnum(d->prep_cycles_pkt));
		SET(o, "commit_cycles_per_pkt", jnum(d->commit_cycles_pkt));
	}
	SET(o, "failed", json_boolean(d->failed));
	SET(o, "failed_at_s", jnum(d->failed_at_s));
	SET(o, "fail_reason", jstr(d->fail_reason));
	SET(o, "fallback_packets", ju64(d->fallback_pkts));
	return ok ? o : (json_decref(o), NULL);
}

/* Granularity, where each task ran, and power (docs/scheduling.md). */
static int
sched_json(json_t *root, const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	json_t *ts = json_array(), *pw = json_object(), *src = json_array();
	int ok = root != NULL && ts != NULL && pw != NULL && src != NULL;
	unsigned int i, k;

	for (k = 0; k < r->n_tasks && ok; k++) {
		json_t *t = json_object();
		uint64_t all = 0;

		for (i = 0; i < r->n_dev; i++)
			all += r->dev_task_pkts[i][k];
		for (i = 0; i < r->n_dev && t != NULL; i++)
			ok &= json_object_set_new(t, r->dev[i].name,
						  jnum(pct(r->dev_task_pkts[i][k], all))) == 0;
		ok &= json_array_append_new(ts, t) == 0;
	}
	for (i = 0; i < r->power.n && ok; i++) {
		json_t *s = json_object();

		SET(s, "name", jstr(r->power.name[i]));
		SET(s, "modeled", json_boolean(r->power.modeled[i]));
		SET(s, "mean_w", jnum(r->power.mean_w[i]));
		SET(s, "joules", jnum(r->power.joules[i]));
		ok &= json_array_append_new(src, s) == 0;
	}
	SET(root, "granularity", json_string(cfg->task_gran ? "task" : "chain"));
	SET(root, "cpu_model", jstr(cfg->cpu_model));
	SET(root, "task_share", ts);
	SET(pw, "measured", json_boolean(r->power.measured_any));
	SET(pw, "unavailable", jstr(r->power.unavailable));
	SET(pw, "sources", src);
	SET(root, "power", pw);
	if (r->goal.goal[0] != '\0') {	/* sched pythia (docs/scheduling.md) */
		json_t *g = json_object();

		SET(g, "active", jstr(r->goal.goal));
		SET(g, "configuration", jstr(r->goal.cfg));
		SET(g, "switches", ju64(r->goal.switches));
		SET(g, "held_packets", ju64(r->goal.held));
		SET(g, "goal_changes", ju64(r->goal.goal_changes));
		SET(g, "learned_windows", ju64(r->goal.learned));
		SET(root, "goal", g);
	}
	return ok ? 0 : -ENOMEM;
}

/* One app of --apps: its share asked for and got, its counters (they add
 * up to the run's: received, delivered, task errors, verified), latency,
 * deadlines, order and where its packets ran. */
static json_t *
app_json(const struct hp_run_cfg *cfg, const struct hp_run_result *r, unsigned int i)
{
	const struct hp_app_report *p = &r->apps[i];
	const struct hp_app *app = cfg->mix.app[i];
	json_t *o = json_object(), *tasks = json_array(), *lat = json_object();
	json_t *dl = json_object(), *ord = json_object(), *share = json_object();
	int ok = o && tasks && lat && dl && ord && share;
	const struct hp_hist *h = &p->lat;
	unsigned int k;

	for (k = 0; k < app->n_tasks && ok; k++)
		ok &= json_array_append_new(tasks, jstr(app->tasks[k])) == 0;
	SET(o, "name", jstr(p->name));
	SET(o, "tasks", tasks);
	SET(o, "share", jnum(p->share));
	SET(o, "share_received", jnum(r->received ? (double)p->received / (double)r->received : NAN));
	SET(o, "packets_received", ju64(p->received));
	SET(o, "packets_delivered", ju64(p->delivered));
	SET(o, "bytes_delivered", ju64(p->bytes_delivered));
	SET(o, "task_errors", ju64(p->task_errors));
	SET(o, "dropped_admission", ju64(p->dropped_admission));
	/* its own FIFO at the scheduler's rx overflowed (per-app backpressure):
	 * part of the run's dropped_port */
	SET(o, "dropped_port", ju64(p->dropped_port));
	SET(o, "verified", ju64(p->verified));
	SET(o, "verify_failures", ju64(p->verify_failures));
	SET(lat, "mean", jnum(h->count ? hp_hist_mean(h) / 1e3 : NAN));
	SET(lat, "p50", jnum(q_us(h, 0.5)));
	SET(lat, "p99", jnum(q_us(h, 0.99)));
	SET(lat, "p999", jnum(q_us(h, 0.999)));
	SET(lat, "max", jnum(h->count ? (double)h->max / 1e3 : NAN));
	SET(lat, "count", ju64(h->count));
	SET(o, "latency_us", lat);
	SET(dl, "packets", ju64(p->deadline_pkts));
	SET(dl, "met", ju64(p->deadline_met));
	SET(dl, "success_pct", jnum(pct(p->deadline_met, p->deadline_pkts)));
	SET(o, "deadline", dl);
	SET(ord, "packets", ju64(p->order_out));
	SET(ord, "in_order", ju64(p->order_out_in_order));
	SET(ord, "success_pct", jnum(pct(p->order_out_in_order, p->order_out)));
	SET(o, "order", ord);
	for (k = 0; k < r->n_dev && ok; k++)
		SET(share, r->dev[k].name, jnum(p->delivered ?
			100.0 * (double)p->dev_pkts[k] / (double)p->delivered : NAN));
	SET(o, "device_share_pct", share);
	SET(o, "joules_modeled_dynamic", jnum(p->joules_dynamic));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Counters per packet type (index 0: frames no row matched) and per app
 * (one app a run today; a list, so that several fit later). */
static int
types_json(json_t *root, const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	json_t *ty = json_array(), *apps = json_array(), *a = json_object(), *tasks = json_array();
	const struct hp_app *app = hp_app_find(cfg->app);
	int ok = ty != NULL && apps != NULL && a != NULL && tasks != NULL;
	unsigned int i;

	for (i = 0; i <= cfg->types.n && i <= HP_MAX_TYPES && ok; i++) {
		const struct hp_type_count *c = &r->type[i];
		const struct hp_type *t = i ? &cfg->types.t[i - 1] : NULL;
		json_t *o = json_object();

		SET(o, "type", json_integer(i));
		SET(o, "min_len", t ? json_integer(t->min_len) : json_null());
		SET(o, "max_len", t ? json_integer(t->max_len) : json_null());
		SET(o, "reorder", json_boolean(t && t->reorder));
		SET(o, "latency", json_boolean(t && t->latency));
		SET(o, "deadline_us", t && t->latency ? jnum(t->deadline_us) : json_null());
		SET(o, "packets_received", ju64(c->rx));
		SET(o, "packets_delivered", ju64(c->tx));
		SET(o, "bytes_delivered", ju64(c->bytes));
		SET(o, "deadline_packets", ju64(c->dl_pkts));
		SET(o, "deadline_met", ju64(c->dl_met));
		SET(o, "deadline_success_pct", jnum(pct(c->dl_met, c->dl_pkts)));
		ok &= json_array_append_new(ty, o) == 0;
	}
	if (r->n_apps > 0) {
		/* --apps: an entry per app, the totals stay at the top */
		json_decref(a);
		json_decref(tasks);
		for (i = 0; i < r->n_apps && ok; i++) {
			json_t *o = app_json(cfg, r, i);

			ok &= o != NULL && json_array_append_new(apps, o) == 0;
		}
		SET(root, "types", ty);
		SET(root, "apps", apps);
		return ok ? 0 : -ENOMEM;
	}
	for (i = 0; app != NULL && i < app->n_tasks && ok; i++)
		ok &= json_array_append_new(tasks, jstr(app->tasks[i])) == 0;
	SET(a, "name", jstr(cfg->app));
	SET(a, "tasks", tasks);
	SET(a, "packets_delivered", ju64(r->delivered));
	SET(a, "bytes_delivered", ju64(r->bytes_delivered));
	SET(a, "task_errors", ju64(r->task_errors));
	/* the run's one app: every drop of the port and of admission is its */
	SET(a, "packets_received", ju64(r->received));
	SET(a, "dropped_port", ju64(r->dropped_port));
	SET(a, "dropped_admission", ju64(r->dropped_admission));
	SET(a, "verified", ju64(r->verified));
	SET(a, "verify_failures", ju64(r->verify_failures));
	ok &= json_array_append_new(apps, a) == 0;
	SET(root, "types", ty);
	SET(root, "apps", apps);
	return ok ? 0 : -ENOMEM;
}

/* ethdev's own counts of the ports over the measured phase, beside the
 * run's (docs/operations.md says where they differ and why). */
static json_t *
eth_json(const struct hp_eth_view *e)
{
	json_t *o = json_object();
	int ok = o != NULL;

	SET(o, "ipackets", ju64(e->ipackets));
	SET(o, "ibytes", ju64(e->ibytes));
	SET(o, "imissed", ju64(e->imissed));
	SET(o, "ierrors", ju64(e->ierrors));
	SET(o, "rx_nombuf", ju64(e->rx_nombuf));
	SET(o, "opackets", ju64(e->opackets));
	SET(o, "obytes", ju64(e->obytes));
	SET(o, "oerrors", ju64(e->oerrors));
	return ok ? o : (json_decref(o), NULL);
}

/* What the port saw (af_packet, pcap; zeros for the generator). */
static json_t *
port_json(const struct hp_run_result *r)
{
	const struct hp_port_report *p = &r->port;
	json_t *o = json_object(), *re = json_object();
	int ok = o != NULL && re != NULL;

	SET(o, "mtu", json_integer(p->mtu));
	SET(o, "frame_max", json_integer(p->frame_max));
	SET(o, "kernel_drops", ju64(p->kernel_drops));
	SET(re, "datagrams", ju64(p->reasm_datagrams));
	SET(re, "fragments", ju64(p->reasm_fragments));
	SET(re, "failed", ju64(p->reasm_failed));
	SET(o, "reassembled", re);
	SET(o, "pcap_records", ju64(p->pcap_records));
	SET(o, "pcap_cut", json_boolean(p->pcap_cut));
	SET(o, "ethdev", eth_json(&p->ethdev));
	return ok ? o : (json_decref(o), NULL);
}

static json_t *
summary_json(const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	json_t *o = json_object(), *inv = json_object(), *dl = json_object();
	json_t *share = json_object(), *devs = json_array(), *oh = json_object();
	int ok = o && inv && dl && share && devs && oh;
	unsigned int i;

	SET(o, "app", jstr(cfg->app));
	if (cfg->tx_results) {
		json_t *tr = json_object();

		ok &= tr != NULL;
		SET(tr, "written", ju64(r->results_written));
		SET(tr, "no_room", ju64(r->results_no_room));
		SET(o, "tx_results", tr);
	}
	SET(o, "scheduler", jstr(cfg->sched));
	SET(o, "scenario", jstr(cfg->trace_file ? "trace" : cfg->scenario));
	SET(o, "source", json_string(cfg->src == HP_SRC_GEN ? "generator" :
				     cfg->src == HP_SRC_PCAP ? "pcap" : "af_packet"));
	SET(o, "interrupted", json_boolean(r->interrupted != 0));
	SET(o, "signal", r->interrupted ? json_string(sig_name(r->interrupted)) : json_null());
	SET(o, "workers", json_integer(cfg->workers));
	SET(o, "duration_s", jnum(r->duration_s));
	SET(o, "capacity_pps", jnum(r->capacity_pps));
	SET(o, "packets_offered", ju64(r->offered));
	SET(o, "packets_received", ju64(r->received));
	SET(o, "packets_delivered", ju64(r->delivered));
	SET(o, "dropped_port", ju64(r->dropped_port));
	SET(o, "dropped_internal", ju64(r->dropped_internal));
	SET(o, "port", port_json(r));
	for (i = 1; i < HP_DROP_REASONS && inv != NULL; i++)
		ok &= json_object_set_new(inv, hp_drop_reason_names[i],
					  ju64(r->dropped_invalid[i])) == 0;
	SET(o, "dropped_invalid", inv);
	SET(o, "verify_failures", ju64(r->verify_failures));
	SET(o, "verified", ju64(r->verified));
	SET(o, "unverified", ju64(r->unverified));
	SET(o, "task_errors", ju64(r->task_errors));
	SET(o, "task_errors_security", ju64(r->task_errors_security));
	SET(o, "dropped_admission", ju64(r->dropped_admission));
	SET(o, "mbufs_leaked", ju64(r->mbufs_leaked));
	SET(o, "mbufs_total", ju64(r->mbufs_total));
	/* L2: Ethernet frames without FCS; L1: on the wire (HP_L1_OVERHEAD) */
	SET(o, "bytes_received", ju64(r->bytes_received));
	SET(o, "bytes_delivered", ju64(r->bytes_delivered));
	SET(o, "bytes_delivered_l1", ju64(r->bytes_delivered_l1));
	SET(o, "throughput_gbps", jnum(gbps(r)));
	SET(o, "throughput_l2_gbps", jnum(gbps(r)));
	SET(o, "throughput_l1_gbps", jnum(l1_gbps(r)));
	SET(o, "throughput_mpps", jnum(mpps(r)));
	SET(o, "latency_us", latency_json(r));
	SET(dl, "packets", ju64(r->deadline_pkts));
	SET(dl, "met", ju64(r->deadline_met));
	SET(dl, "success_pct", jnum(pct(r->deadline_met, r->deadline_pkts)));
	SET(o, "deadline", dl);
	SET(o, "reorder", order_json(r));
	SET(o, "flows", flows_json(r));
	for (i = 0; i < r->n_dev && share != NULL; i++)
		ok &= json_object_set_new(share, r->dev[i].name,
					  jnum(pct(r->dev_pkts[i], r->delivered))) == 0;
	SET(o, "device_share", share);
	for (i = 0; i < r->n_dev && devs != NULL; i++)
		ok &= json_array_append_new(devs, device_json(r, i)) == 0;
	SET(o, "devices", devs);
	/* sched_to_device counts from the port's arrival (thesis Figure
	 * 5.1's rx->device), the time in the port's queue included */
	SET(oh, "sched_to_device", jnum(r->oh1_us));
	SET(oh, "between_tasks", jnum(r->oh2_us));
	SET(oh, "device_to_tx", jnum(r->oh3_us));
	SET(oh, "processing", jnum(r->proc_us));
	SET(o, "overhead_us", oh);
	ok &= sched_json(o, cfg, r) == 0;
	ok &= types_json(o, cfg, r) == 0;
	SET(o, "sched_cycles_per_packet", jnum(r->sched_cycles_per_pkt));
	SET(o, "sched_in_cycles_per_packet", jnum(r->sched_in_cycles_per_pkt));
	SET(o, "sched_lcores", lcores_json(r));
	SET(o, "stage_retries", ju64(r->stage_retries));
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

#undef SET

/* ---- files: a temporary name in the same folder, then rename ---- */

struct out_file {
	FILE *f;
	char tmp[4200];
	char path[4200];
};

static int
out_open(struct out_file *o, const char *dir, const char *name, char *err, size_t errlen)
{
	mode_t um;
	int fd;

	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	snprintf(o->tmp, sizeof(o->tmp), "%s/.%s.XXXXXX", dir, name);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		return -errno;
	}
	/* what fopen would have made: 0666 less the umask */
	um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) < 0 || (o->f = fdopen(fd, "w")) == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		close(fd);
		unlink(o->tmp);
		return -EIO;
	}
	return 0;
}

/* Flushes, syncs and renames; on any failure (ENOSPC, EFBIG, EIO) the
 * temporary file is removed and the old file, if any, stays. */
static int
out_close(struct out_file *o, bool failed, char *err, size_t errlen)
{
	int e = 0;

	if (failed || fflush(o->f) != 0 || ferror(o->f))
		e = errno ? errno : EIO;
	else if (fsync(fileno(o->f)) < 0 && errno != EINVAL && errno != EROFS)
		e = errno;
	if (fclose(o->f) != 0 && e == 0)
		e = errno ? errno : EIO;
	if (e == 0 && rename(o->tmp, o->path) < 0)
		e = errno;
	if (e == 0)
		return 0;
	unlink(o->tmp);
	snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
	return -e;
}

/* A CSV header name: quoted when it holds a comma, quote or line break. */
static void
csv_name(FILE *f, const char *pre, const char *name, const char *post)
{
	const char *c;

	if (strpbrk(name, ",\"\r\n") == NULL) {
		fprintf(f, ",%s%s%s", pre, name, post);
		return;
	}
	fprintf(f, ",\"%s", pre);
	for (c = name; *c; c++)
		fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
	fprintf(f, "%s\"", post);
}

/* A value of a row, empty where there is none (NAN). */
static void
csv_num(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputc(',', f);
}

static void
write_trace(FILE *f, const struct hp_run_result *r)
{
	unsigned int i, w;

	fprintf(f, "t_s,offered_pps,delivered_pps,gbps,p50_us,p99_us,deadline_pct,reorder_pct,dropped_port,sched_load_pct");
	for (w = 0; w < r->n_dev; w++)
		csv_name(f, "", r->dev[w].name, "_load_pct");
	for (w = 0; w < r->n_load; w++) /* lib/load estimators, docs/load.md */
		hp_load_csv_head(f, r->load_name[w]);
	/* latency mean, completions per device, power (docs/scheduling.md) */
	fprintf(f, ",mean_us,arrived_in_order_pct");
	for (w = 0; w < r->n_dev; w++)
		csv_name(f, "", r->dev[w].name, "_share_pct");
	for (w = 0; w < r->power.n; w++)
		csv_name(f, "power_w:", r->power.name[w], "");
	fprintf(f, ",sched_in_pct,l1_gbps");
	/* --apps: six columns an app, after the run's (app:NAME_...); the
	 * drops are counts, as the run's dropped_port */
	for (w = 0; w < r->n_apps; w++) {
		csv_name(f, "app:", r->apps[w].name, "_rx_pps");
		csv_name(f, "app:", r->apps[w].name, "_delivered_pps");
		csv_name(f, "app:", r->apps[w].name, "_p99_us");
		csv_name(f, "app:", r->apps[w].name, "_deadline_pct");
		csv_name(f, "app:", r->apps[w].name, "_dropped_port");
		csv_name(f, "app:", r->apps[w].name, "_dropped_admission");
	}
	if (r->goal.goal[0] != '\0')	/* a configuration-level policy's */
		fprintf(f, ",goal,configuration,switches");
	fputc('\n', f);
	for (i = 0; i < r->n_rows; i++) {
		const struct hp_trace_row *row = &r->rows[i];

		fprintf(f, "%.6f,%.1f,%.1f,%.6f,%.3f,%.3f", row->t, row->offered_pps,
			row->delivered_pps, row->gbps, row->p50_us, row->p99_us);
		csv_num(f, ",%.3f", row->deadline_pct);
		csv_num(f, ",%.3f", row->reorder_pct);
		fprintf(f, ",%" PRIu64 ",%.2f", row->dropped_port, row->sched_busy_pct);
		for (w = 0; w < r->n_dev; w++)
			fprintf(f, ",%.2f", row->worker_busy_pct[w]);
		for (w = 0; w < r->n_load && w < row->n_load; w++)
			hp_load_csv_cols(f, &row->load[w]);
		fprintf(f, ",%.3f", row->mean_us);
		csv_num(f, ",%.3f", row->arrived_pct);
		for (w = 0; w < r->n_dev; w++)
			csv_num(f, ",%.2f", row->dev_share_pct[w]);
		for (w = 0; w < r->power.n; w++)
			fprintf(f, ",%.4f", row->power_w[w]);
		fprintf(f, ",%.2f,%.6f", row->sched_in_pct, row->l1_gbps);
		for (w = 0; w < r->n_apps; w++) {
			fprintf(f, ",%.1f,%.1f", row->app_rx_pps[w], row->app_pps[w]);
			csv_num(f, ",%.3f", row->app_p99_us[w]);
			csv_num(f, ",%.3f", row->app_deadline_pct[w]);
			fprintf(f, ",%" PRIu64 ",%" PRIu64, row->app_drop_port[w],
				row->app_drop_adm[w]);
		}
		if (r->goal.goal[0] != '\0')
			fprintf(f, ",%s,\"%s\",%" PRIu64, row->goal, row->cfg, row->switches);
		fputc('\n', f);
	}
}

int
hp_write_outputs(const struct hp_run_cfg *cfg, const struct hp_run_result *r,
		 const char *dir, char *err, size_t errlen)
{
	struct out_file o;
	json_t *js;
	int ret, bad;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	js = summary_json(cfg, r);
	if (js == NULL) {
		snprintf(err, errlen, "cannot write %s/summary.json: out of memory", dir);
		return -ENOMEM;
	}
	ret = out_open(&o, dir, "summary.json", err, errlen);
	if (ret == 0) {
		errno = 0;
		bad = json_dumpf(js, o.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
				 JSON_REAL_PRECISION(12)) != 0;
		bad |= fputc('\n', o.f) == EOF;
		ret = out_close(&o, bad, err, errlen);
	}
	json_decref(js);
	if (ret < 0)
		return ret;
	ret = out_open(&o, dir, "trace.csv", err, errlen);
	if (ret < 0)
		return ret;
	errno = 0;
	write_trace(o.f, r);
	return out_close(&o, false, err, errlen);
}
