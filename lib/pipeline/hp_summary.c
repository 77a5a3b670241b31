/* SPDX-License-Identifier: BSD-3-Clause
 * Run report: the summary table on stdout, summary.json and trace.csv.
 * Key names of summary.json are an interface (tests and tools read them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hp_batch.h"
#include "hp_pipeline.h"
#include "hp_reorder.h"
#include "hp_sched.h"

static double
pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 100.0;
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

	return restored ? hp_reorder_restored_pct(&st) : hp_reorder_arrived_pct(&st);
}

static double
q_us(const struct hp_hist *h, double q)
{
	return (double)hp_hist_quantile(h, q) / 1e3;
}

static double
gbps(const struct hp_run_result *r)
{
	return r->duration_s > 0 ? (double)r->bytes_delivered * 8 / r->duration_s / 1e9 : 0;
}

static double
mpps(const struct hp_run_result *r)
{
	return r->duration_s > 0 ? (double)r->delivered / r->duration_s / 1e6 : 0;
}

/* Where each task ran (thesis Figures 5.5/5.12: C2 splits per task). */
static void
print_task_share(const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	unsigned int i, k;

	printf("  %-26s granularity %s\n", "task share", cfg->task_gran ? "task" : "chain");
	for (k = 0; k < r->n_tasks; k++) {
		uint64_t all = 0;

		for (i = 0; i < r->n_dev; i++)
			all += r->dev_task_pkts[i][k];
		printf("  %-26s task %u:", "", k);
		for (i = 0; i < r->n_dev; i++)
			printf(" %s %.1f %%", r->dev[i].name, pct(r->dev_task_pkts[i][k], all));
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

void
hp_print_summary(const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	unsigned int i;

	printf("\n=== heteroplane summary: app %s, scheduler %s, scenario %s, %u worker(s), %.1f s ===\n",
	       cfg->app, cfg->sched, cfg->trace_file ? "trace" : cfg->scenario,
	       cfg->workers, r->duration_s);
	printf("  %-26s %" PRIu64 "\n", "packets offered", r->offered);
	printf("  %-26s %" PRIu64 "\n", "packets received", r->received);
	printf("  %-26s %" PRIu64 "\n", "packets delivered", r->delivered);
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
	for (i = 1; i < HP_DROP_REASONS; i++)
		if (r->dropped_invalid[i])
			printf("  %-26s %" PRIu64 " (%s)\n", "dropped invalid",
			       r->dropped_invalid[i], hp_drop_reason_names[i]);
	printf("  %-26s %" PRIu64 " verified, %" PRIu64 " failed, %" PRIu64 " not checkable\n",
	       "verification", r->verified, r->verify_failures, r->unverified);
	printf("  %-26s %" PRIu64 " of %" PRIu64 "\n", "mbufs leaked", r->mbufs_leaked,
	       r->mbufs_total);
	printf("  %-26s %.3f Gbps, %.3f Mpps (capacity %.3f Mpps)\n", "throughput",
	       gbps(r), mpps(r), r->capacity_pps / 1e6);
	printf("  %-26s mean %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n",
	       "latency (us)", hp_hist_mean(&r->lat) / 1e3, q_us(&r->lat, 0.5),
	       q_us(&r->lat, 0.9), q_us(&r->lat, 0.99), q_us(&r->lat, 0.999),
	       (double)(r->lat.count ? r->lat.max : 0) / 1e3);
	printf("  %-26s %.2f %% of %" PRIu64 " latency-sensitive packets\n",
	       "deadlines met", pct(r->deadline_met, r->deadline_pkts), r->deadline_pkts);
	printf("  %-26s %.2f %% of %" PRIu64 " order-needing packets (%" PRIu64 " late, %" PRIu64 " window drains)\n",
	       "in order", pct(r->reorder_in_order, r->reorder_pkts), r->reorder_pkts,
	       r->reorder_late, r->reorder_drains);
	printf("  %-26s %.2f %% arrived in order at the reorder stage, %.2f %% restored by the window\n",
	       "order before the window", ooo_pct(r, false), ooo_pct(r, true));
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_dev_report *d = &r->dev[i];

		printf("  %-26s %5.1f %% of packets, latency mean %.1f us p99 %.1f us",
		       i == 0 ? "device share" : "", pct(r->dev_pkts[i], r->delivered),
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
	printf("  %-26s sched->device %.2f  between tasks %.2f  device->tx %.2f  (processing %.2f)\n",
	       "overhead per packet (us)", r->oh1_us, r->oh2_us, r->oh3_us, r->proc_us);
	printf("  %-26s %.0f cycles/packet (way in %.0f, way back %.0f)\n", "scheduler lcore busy",
	       r->sched_cycles_per_pkt, r->sched_in_cycles_per_pkt,
	       r->sched_cycles_per_pkt - r->sched_in_cycles_per_pkt);
	fflush(stdout);
}

/* Granularity, where each task ran, and power (docs/scheduling.md). */
static void
write_sched_json(FILE *f, const struct hp_run_cfg *cfg, const struct hp_run_result *r)
{
	unsigned int i, k;

	fprintf(f, "  \"granularity\": \"%s\",\n  \"cpu_model\": %s%s%s,\n",
		cfg->task_gran ? "task" : "chain", cfg->cpu_model ? "\"" : "",
		cfg->cpu_model ? cfg->cpu_model : "null", cfg->cpu_model ? "\"" : "");
	fprintf(f, "  \"task_share\": [");
	for (k = 0; k < r->n_tasks; k++) {
		uint64_t all = 0;

		for (i = 0; i < r->n_dev; i++)
			all += r->dev_task_pkts[i][k];
		fprintf(f, "%s{", k ? ", " : "");
		for (i = 0; i < r->n_dev; i++)
			fprintf(f, "%s\"%s\": %.3f", i ? ", " : "", r->dev[i].name,
				pct(r->dev_task_pkts[i][k], all));
		fprintf(f, "}");
	}
	fprintf(f, "],\n");
	fprintf(f, "  \"power\": {\"measured\": %s, \"unavailable\": \"%s\", \"sources\": [",
		r->power.measured_any ? "true" : "false", r->power.unavailable);
	for (i = 0; i < r->power.n; i++)
		fprintf(f, "%s{\"name\": \"%s\", \"modeled\": %s, \"mean_w\": %.4f, \"joules\": %.4f}",
			i ? ", " : "", r->power.name[i], r->power.modeled[i] ? "true" : "false",
			r->power.mean_w[i], r->power.joules[i]);
	fprintf(f, "]},\n");
}

int
hp_write_outputs(const struct hp_run_cfg *cfg, const struct hp_run_result *r,
		 const char *dir, char *err, size_t errlen)
{
	char path[4096];
	FILE *f;
	unsigned int i, w;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "{\n");
	fprintf(f, "  \"app\": \"%s\",\n  \"scheduler\": \"%s\",\n  \"scenario\": \"%s\",\n",
		cfg->app, cfg->sched, cfg->trace_file ? "trace" : cfg->scenario);
	fprintf(f, "  \"source\": \"%s\",\n", cfg->src == HP_SRC_GEN ? "generator" :
		cfg->src == HP_SRC_PCAP ? "pcap" : "af_packet");
	fprintf(f, "  \"workers\": %u,\n  \"duration_s\": %.3f,\n  \"capacity_pps\": %.1f,\n",
		cfg->workers, r->duration_s, r->capacity_pps);
	fprintf(f, "  \"packets_offered\": %" PRIu64 ",\n  \"packets_received\": %" PRIu64 ",\n"
		"  \"packets_delivered\": %" PRIu64 ",\n  \"dropped_port\": %" PRIu64 ",\n"
		"  \"dropped_internal\": %" PRIu64 ",\n",
		r->offered, r->received, r->delivered, r->dropped_port, r->dropped_internal);
	fprintf(f, "  \"port\": {\"mtu\": %u, \"frame_max\": %u, \"kernel_drops\": %" PRIu64 ", \"reassembled\": {\"datagrams\": %" PRIu64 ", \"fragments\": %" PRIu64 ", \"failed\": %" PRIu64 "}, \"pcap_records\": %" PRIu64 ", \"pcap_cut\": %s},\n",
		r->port.mtu, r->port.frame_max, r->port.kernel_drops, r->port.reasm_datagrams,
		r->port.reasm_fragments, r->port.reasm_failed, r->port.pcap_records,
		r->port.pcap_cut ? "true" : "false");
	fprintf(f, "  \"dropped_invalid\": {");
	for (i = 1; i < HP_DROP_REASONS; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i > 1 ? ", " : "", hp_drop_reason_names[i],
			r->dropped_invalid[i]);
	fprintf(f, "},\n");
	fprintf(f, "  \"verify_failures\": %" PRIu64 ",\n  \"verified\": %" PRIu64 ",\n"
		"  \"unverified\": %" PRIu64 ",\n  \"task_errors\": %" PRIu64 ",\n",
		r->verify_failures, r->verified, r->unverified, r->task_errors);
	fprintf(f, "  \"mbufs_leaked\": %" PRIu64 ",\n  \"mbufs_total\": %" PRIu64 ",\n",
		r->mbufs_leaked, r->mbufs_total);
	fprintf(f, "  \"throughput_gbps\": %.6f,\n  \"throughput_mpps\": %.6f,\n", gbps(r), mpps(r));
	fprintf(f, "  \"latency_us\": {\"mean\": %.3f, \"std\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"p999\": %.3f, \"min\": %.3f, \"max\": %.3f, \"count\": %" PRIu64 "},\n",
		hp_hist_mean(&r->lat) / 1e3, hp_hist_std(&r->lat) / 1e3, q_us(&r->lat, 0.5), q_us(&r->lat, 0.9),
		q_us(&r->lat, 0.99), q_us(&r->lat, 0.999),
		(double)(r->lat.count ? r->lat.min : 0) / 1e3,
		(double)(r->lat.count ? r->lat.max : 0) / 1e3, r->lat.count);
	fprintf(f, "  \"deadline\": {\"packets\": %" PRIu64 ", \"met\": %" PRIu64 ", \"success_pct\": %.3f},\n",
		r->deadline_pkts, r->deadline_met, pct(r->deadline_met, r->deadline_pkts));
	fprintf(f, "  \"reorder\": {\"packets\": %" PRIu64 ", \"in_order\": %" PRIu64 ", \"success_pct\": %.3f, \"late\": %" PRIu64 ", \"window_drains\": %" PRIu64 ", \"arrived_out_of_order\": %" PRIu64 ", \"arrived_in_order_pct\": %.3f, \"drained\": %" PRIu64 ", \"restored_pct\": %.3f},\n",
		r->reorder_pkts, r->reorder_in_order, pct(r->reorder_in_order, r->reorder_pkts),
		r->reorder_late, r->reorder_drains, r->reorder_arrived_ooo, ooo_pct(r, false),
		r->reorder_drained, ooo_pct(r, true));
	fprintf(f, "  \"device_share\": {");
	for (i = 0; i < r->n_dev; i++)
		fprintf(f, "%s\"%s\": %.3f", i ? ", " : "", r->dev[i].name,
			pct(r->dev_pkts[i], r->delivered));
	fprintf(f, "},\n");
	fprintf(f, "  \"devices\": [");
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_dev_report *d = &r->dev[i];
		unsigned int k;

		fprintf(f, "%s\n    {\"name\": \"%s\", \"modeled\": %s, \"packets\": %" PRIu64
			", \"share_pct\": %.3f, \"latency_mean_us\": %.3f, \"latency_p99_us\": %.3f",
			i ? "," : "", d->name, d->modeled ? "true" : "false", r->dev_pkts[i],
			pct(r->dev_pkts[i], r->delivered), d->lat_mean_us, d->lat_p99_us);
		fprintf(f, ", \"busy_pct\": %.3f", d->busy_pct);
		if (d->batch) {
			fprintf(f, ", \"batches\": %" PRIu64 ", \"mean_batch\": %.2f, \"flush\": {",
				d->batches, d->batches ? (double)d->batch_pkts / (double)d->batches : 0);
			for (k = 1; k < HP_FLUSH_REASONS; k++)
				fprintf(f, "%s\"%s\": %" PRIu64, k > 1 ? ", " : "",
					hp_flush_reason_names[k], d->flush[k]);
			fprintf(f, "}, \"modeled_busy_pct\": %.3f", d->model_busy_pct);
			fprintf(f, ", \"driver_calls\": %" PRIu64 ", \"driver_polls\": %" PRIu64
				", \"gathered_packets\": %" PRIu64 ", \"prep_cycles_per_pkt\": %.1f",
				d->driver_calls, d->driver_polls, d->gathered_pkts,
				d->prep_cycles_pkt);
		}
		fprintf(f, ", \"failed\": %s, \"failed_at_s\": %.3f, \"fail_reason\": \"%s\", \"fallback_packets\": %" PRIu64 "}",
			d->failed ? "true" : "false", d->failed_at_s, d->fail_reason,
			d->fallback_pkts);
	}
	fprintf(f, "\n  ],\n");
	fprintf(f, "  \"overhead_us\": {\"sched_to_device\": %.4f, \"between_tasks\": %.4f, \"device_to_tx\": %.4f, \"processing\": %.4f},\n",
		r->oh1_us, r->oh2_us, r->oh3_us, r->proc_us);
	write_sched_json(f, cfg, r);
	fprintf(f, "  \"sched_cycles_per_packet\": %.1f,\n  \"sched_in_cycles_per_packet\": %.1f,\n"
		"  \"stage_retries\": %" PRIu64 "\n}\n",
		r->sched_cycles_per_pkt, r->sched_in_cycles_per_pkt, r->stage_retries);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/trace.csv", dir);
	f = fopen(path, "w");
	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "t_s,offered_pps,delivered_pps,gbps,p50_us,p99_us,deadline_pct,reorder_pct,dropped_port,sched_load_pct");
	for (w = 0; w < r->n_dev; w++)
		fprintf(f, ",%s_load_pct", r->dev[w].name);
	for (w = 0; w < r->n_load; w++) /* lib/load estimators, docs/load.md */
		hp_load_csv_head(f, r->load_name[w]);
	/* latency mean, completions per device, power (docs/scheduling.md) */
	fprintf(f, ",mean_us,arrived_in_order_pct");
	for (w = 0; w < r->n_dev; w++)
		fprintf(f, ",%s_share_pct", r->dev[w].name);
	for (w = 0; w < r->power.n; w++)
		fprintf(f, ",power_w:%s", r->power.name[w]);
	fprintf(f, ",sched_in_pct\n");
	for (i = 0; i < r->n_rows; i++) {
		const struct hp_trace_row *row = &r->rows[i];

		fprintf(f, "%.3f,%.1f,%.1f,%.6f,%.3f,%.3f,%.3f,%.3f,%" PRIu64 ",%.2f",
			row->t, row->offered_pps, row->delivered_pps, row->gbps,
			row->p50_us, row->p99_us, row->deadline_pct, row->reorder_pct,
			row->dropped_port, row->sched_busy_pct);
		for (w = 0; w < r->n_dev; w++)
			fprintf(f, ",%.2f", row->worker_busy_pct[w]);
		for (w = 0; w < r->n_load && w < row->n_load; w++)
			hp_load_csv_cols(f, &row->load[w]);
		fprintf(f, ",%.3f,%.3f", row->mean_us, row->arrived_pct);
		for (w = 0; w < r->n_dev; w++)
			fprintf(f, ",%.2f", row->dev_share_pct[w]);
		for (w = 0; w < r->power.n; w++)
			fprintf(f, ",%.4f", row->power_w[w]);
		fprintf(f, ",%.2f\n", row->sched_in_pct);
	}
	if (fclose(f) != 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}
