/* SPDX-License-Identifier: BSD-3-Clause
 * hplane's run report (see report.h): the run's own files read back
 * (summary.json with jansson, the CSVs by their header names), drawn as
 * inline SVG. Only what the files carry is drawn; a series a run did not
 * record gets a visible line saying so, and columns or keys this code
 * does not know (added by later runs) still show in the tables.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <jansson.h>

#include "report.h"
#include "report_priv.h"

#define MAX_RUNS 256        /* run folders of one compare */
#define MAX_EMBED (8u << 20) /* PNG or markdown embedded, bytes */

static json_t *
jget(json_t *root, const char *path)
{
	char key[128];
	const char *p = path;

	while (root != NULL && *p) {
		size_t n = strcspn(p, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		root = json_is_object(root) ? json_object_get(root, key) : NULL;
		p += n + (p[n] == '.');
	}
	return root;
}

static double
jnum(json_t *root, const char *path)
{
	json_t *v = jget(root, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *
jstr(json_t *root, const char *path, const char *def)
{
	json_t *v = jget(root, path);

	return json_is_string(v) ? json_string_value(v) : def;
}

static json_t *
summary_load(const char *dir, char *err, size_t errlen)
{
	char path[4200];
	json_error_t je;
	json_t *j;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	j = json_load_file(path, 0, &je);
	if (j == NULL)
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
	else if (!json_is_object(j) || !json_is_number(json_object_get(j, "packets_delivered"))) {
		snprintf(err, errlen, "%s: not a run's summary (no packets_delivered)", path);
		json_decref(j);
		j = NULL;
	}
	return j;
}

static void
scalar(FILE *f, json_t *v)
{
	char b[64];

	if (json_is_string(v))
		rpt_esc(f, json_string_value(v));
	else if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v)) {
		snprintf(b, sizeof(b), "%.6g", json_real_value(v));
		fputs(b, f);
	} else if (json_is_true(v))
		fputs("true", f);
	else if (json_is_false(v))
		fputs("false", f);
	else if (json_is_null(v))
		fputs("-", f);
	else if (json_is_array(v)) {
		size_t i;

		fputs("[", f);
		for (i = 0; i < json_array_size(v); i++) {
			fputs(i ? ", " : "", f);
			scalar(f, json_array_get(v, i));
		}
		fputs("]", f);
	} else {
		fputs("{...}", f);
	}
}

static bool
is_rowset(json_t *v)
{
	size_t i;
	json_t *e;

	if (json_is_array(v) && json_array_size(v) > 0) {
		json_array_foreach(v, i, e)
			if (!json_is_object(e))
				return false;
		return true;
	}
	return false;
}

/* An array of objects as a table: one row each, a column per key any of
 * them has (in first-seen order); nested values flattened by scalar(). */
static void
rowset_table(FILE *f, const char *name, json_t *arr)
{
	json_t *keys = json_array(), *e, *v;
	const char *k;
	size_t i, c;

	json_array_foreach(arr, i, e)
		json_object_foreach(e, k, v) {
			bool seen = false;

			for (c = 0; c < json_array_size(keys); c++)
				seen |= !strcmp(json_string_value(json_array_get(keys, c)), k);
			if (!seen)
				json_array_append_new(keys, json_string(k));
		}
	fputs("<h3>", f);
	rpt_esc(f, name);
	fputs("</h3>\n<table class=\"rows\"><tr><th>#</th>", f);
	for (c = 0; c < json_array_size(keys); c++) {
		fputs("<th>", f);
		rpt_esc(f, json_string_value(json_array_get(keys, c)));
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	json_array_foreach(arr, i, e) {
		fprintf(f, "<tr><td>%zu</td>", i);
		for (c = 0; c < json_array_size(keys); c++) {
			fputs("<td>", f);
			v = json_object_get(e, json_string_value(json_array_get(keys, c)));
			if (v != NULL)
				scalar(f, v);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	json_decref(keys);
}

/* Every scalar of the summary as key = value, the arrays of objects
 * (devices, power sources, ...) kept aside for tables of their own. */
static void
flatten(FILE *f, json_t *v, const char *prefix, json_t *tables)
{
	const char *k;
	json_t *e;
	char key[512];

	if (json_is_object(v)) {
		json_object_foreach(v, k, e) {
			snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "", k);
			flatten(f, e, key, tables);
		}
		return;
	}
	if (is_rowset(v)) {
		json_t *t = json_pack("{s:s, s:O}", "name", prefix, "rows", v);

		json_array_append_new(tables, t);
		return;
	}
	fputs("<tr><td>", f);
	rpt_esc(f, prefix);
	fputs("</td><td>", f);
	scalar(f, v);
	fputs("</td></tr>\n", f);
}

static void
summary_tables(FILE *f, json_t *s)
{
	json_t *tables = json_array(), *t;
	size_t i;

	fputs("<h2>The summary (summary.json)</h2>\n<div class=\"kv\"><table class=\"kv\">\n", f);
	flatten(f, s, "", tables);
	fputs("</table></div>\n", f);
	json_array_foreach(tables, i, t)
		rowset_table(f, json_string_value(json_object_get(t, "name")),
			     json_object_get(t, "rows"));
	json_decref(tables);
}

struct head {
	const char *label, *path, *unit;
};

static const struct head headline[] = {
	{ "packets offered", "packets_offered", "" },
	{ "packets delivered", "packets_delivered", "" },
	{ "dropped at the port", "dropped_port", "" },
	{ "dropped internally", "dropped_internal", "" },
	{ "throughput", "throughput_gbps", "Gbps" },
	{ "throughput", "throughput_mpps", "Mpps" },
	{ "capacity", "capacity_pps", "pps" },
	{ "latency p50", "latency_us.p50", "us" },
	{ "latency p99", "latency_us.p99", "us" },
	{ "latency p99.9", "latency_us.p999", "us" },
	{ "latency max", "latency_us.max", "us" },
	{ "deadlines met", "deadline.success_pct", "%" },
	{ "in order", "reorder.success_pct", "%" },
	{ "verify failures", "verify_failures", "" },
	{ "mbufs leaked", "mbufs_leaked", "" },
};

static void
headline_cards(FILE *f, json_t *s)
{
	unsigned int i;
	char b[32];

	fputs("<div class=\"cards\">\n", f);
	for (i = 0; i < DIM(headline); i++) {
		double v = jnum(s, headline[i].path);

		if (!isfinite(v))
			continue;
		fprintf(f, "<div class=\"card\"><div class=\"v\">%s <small>%s</small></div><div class=\"k\">%s</div></div>\n",
			rpt_num(b, sizeof(b), v), headline[i].unit, headline[i].label);
	}
	fputs("</div>\n", f);
}

/* ---- the sections of one run ---- */

static void
trace_plots(FILE *f, const struct csv *c, json_t *sum)
{
	struct series s[MAX_SERIES];
	const double *t = rpt_csv_get(c, "t_s"), *dp = rpt_csv_get(c, "dropped_port");
	double *drops = NULL;
	unsigned int n;

	fputs("<h2>Over time (trace.csv, one row a second)</h2>\n<div class=\"plots\">\n", f);
	if (t == NULL || c->nrow == 0) {
		/* no row, no column storage: check the rows first */
		rpt_missing(f, "every plot over time", c->nrow == 0 ?
			"trace.csv has no rows: the run was shorter than a second" :
			"trace.csv has no t_s column");
		fputs("</div>\n", f);
		return;
	}
	n = 0;
	n += rpt_series_col(c, "t_s", "offered_pps", "offered", 1, &s[n]);
	n += rpt_series_col(c, "t_s", "delivered_pps", "delivered", 1, &s[n]);
	if (dp != NULL && (drops = rpt_per_second(c, t, dp)) != NULL) {
		memset(&s[n], 0, sizeof(s[n]));
		snprintf(s[n].label, sizeof(s[n].label), "dropped at the port");
		s[n].x = t;
		s[n].y = drops;
		s[n].n = c->nrow;
		n++;
	}
	rpt_plot_lines(f, "Offered vs delivered rate", "time (s)", "packets/s", s, n, Y_ZERO, NULL);
	free(drops);

	n = 0;
	for (unsigned int i = 0; i < c->ncol && n < MAX_SERIES; i++) {
		const char *nm = c->name[i];

		/* run-wide percentiles and the mean: p50_us, p99_us, mean_us, ... */
		if ((nm[0] == 'p' && strspn(nm + 1, "0123456789") > 0 &&
		     !strcmp(nm + 1 + strspn(nm + 1, "0123456789"), "_us")) ||
		    !strcmp(nm, "mean_us"))
			n += rpt_series_col(c, "t_s", nm, nm, 1, &s[n]);
	}
	rpt_plot_lines(f, "Latency per second", "time (s)", "microseconds", s, n, Y_ZERO, NULL);

	n = 0;
	n += rpt_series_col(c, "t_s", "deadline_pct", "deadlines met", 1, &s[n]);
	n += rpt_series_col(c, "t_s", "reorder_pct", "in order (after the window)", 1, &s[n]);
	n += rpt_series_col(c, "t_s", "arrived_in_order_pct", "arrived in order", 1, &s[n]);
	rpt_plot_lines(f, "Deadline and order success", "time (s)", "% of packets", s, n, Y_PCT,
		   NULL);

	n = rpt_series_match(c, "_share_pct", false, 1, s, 0);
	rpt_plot_lines(f, "Device share (completions)", "time (s)", "% of packets", s, n, Y_PCT,
		   NULL);

	n = rpt_series_match(c, "_c_load", false, 100, s, 0);
	rpt_plot_lines(f, "Per-lcore load estimate (c: work cycles / capacity)", "time (s)",
		   "% of the lcore", s, n, Y_PCT, "no load estimator columns (*_c_load)");

	n = rpt_series_match(c, "_load_pct", false, 1, s, 0);
	rpt_plot_lines(f, "Busy share of each polling loop", "time (s)", "% of the lcore", s, n,
		   Y_PCT, NULL);

	n = rpt_series_match(c, "power_w:", true, 1, s, 0);
	rpt_plot_lines(f, "Power per device over time", "time (s)", "watts", s, n, Y_ZERO,
		   jstr(sum, "power.unavailable", "no power source"));
	/* --apps: each app's rate and p99 (plots only where the columns are) */
	n = rpt_series_apps(c, "_delivered_pps", s, MAX_SERIES);
	if (n > 0)
		rpt_plot_lines(f, "Delivered per app", "time (s)", "packets/s", s, n, Y_ZERO, NULL);
	n = rpt_series_apps(c, "_p99_us", s, MAX_SERIES);
	if (n > 0)
		rpt_plot_lines(f, "p99 latency per app", "time (s)", "microseconds", s, n, Y_ZERO,
			       NULL);
	rpt_app_drop_plot(f, c, t, s);
	fputs("</div>\n", f);
}

/* Per packet type and per app, where the summary has them ("types" and
 * "apps": arrays of objects). */
static void
per_type_app(FILE *f, json_t *sum, struct bar *b, unsigned int max)
{
	json_t *v;
	unsigned int n = 0;
	size_t i;

	json_array_foreach(jget(sum, "types"), i, v)
		if (n < max) {
			json_t *lo = json_object_get(v, "min_len"), *hi = json_object_get(v, "max_len");

			if (json_is_integer(lo) && json_is_integer(hi))
				snprintf(b[n].label, sizeof(b[n].label), "type %lld (%lld..%lld B)",
					 (long long)json_integer_value(json_object_get(v, "type")),
					 (long long)json_integer_value(lo),
					 (long long)json_integer_value(hi));
			else
				snprintf(b[n].label, sizeof(b[n].label), "type %lld (no row)",
					 (long long)json_integer_value(json_object_get(v, "type")));
			b[n++].v = jnum(v, "packets_delivered");
		}
	if (n > 0)
		rpt_plot_bars(f, "Delivered per packet type", "packets", b, n, "no packet was delivered");
	n = 0;
	json_array_foreach(jget(sum, "types"), i, v)
		if (n < max && isfinite(jnum(v, "deadline_success_pct")) &&
		    jnum(v, "deadline_packets") > 0) {
			snprintf(b[n].label, sizeof(b[n].label), "type %lld",
				 (long long)json_integer_value(json_object_get(v, "type")));
			b[n++].v = jnum(v, "deadline_success_pct");
		}
	if (n > 0)
		rpt_plot_bars(f, "Deadlines met per packet type", "%", b, n, "no deadline was met");
	n = 0;
	json_array_foreach(jget(sum, "apps"), i, v)
		if (n < max) {
			snprintf(b[n].label, sizeof(b[n].label), "%s", jstr(v, "name", "?"));
			b[n++].v = jnum(v, "packets_delivered");
		}
	if (n > 0)
		rpt_plot_bars(f, "Delivered per app", "packets", b, n, "no packet was delivered");
	n = 0;
	json_array_foreach(jget(sum, "apps"), i, v)
		if (n < max && isfinite(jnum(v, "latency_us.p99"))) {
			snprintf(b[n].label, sizeof(b[n].label), "%s", jstr(v, "name", "?"));
			b[n++].v = jnum(v, "latency_us.p99");
		}
	if (n > 0)
		rpt_plot_bars(f, "p99 latency per app (us)", "microseconds", b, n, NULL);
	n = 0;
	json_array_foreach(jget(sum, "apps"), i, v)
		for (unsigned int k = 0; k < 2 && n < max; k++) {
			snprintf(b[n].label, sizeof(b[n].label), "%s %s", jstr(v, "name", "?"),
				 k ? "by admission" : "at the port");
			b[n++].v = jnum(v, k ? "dropped_admission" : "dropped_port");
		}
	if (n > 0)
		rpt_plot_bars(f, "Dropped per app", "packets", b, n, "no app dropped a packet");
}

static void
summary_plots(FILE *f, json_t *sum)
{
	struct bar b[64] = { 0 };
	json_t *inv = jget(sum, "dropped_invalid"), *devs = jget(sum, "devices"), *v, *d;
	const char *k;
	unsigned int n = 0;
	size_t i;
	bool any_batch = false;
	char title[256];

	fputs("<h2>Totals (summary.json)</h2>\n<div class=\"plots\">\n", f);
	/* drops by reason: the top-level dropped_* counters and the invalid
	 * packets by reason */
	json_object_foreach(sum, k, v)
		if (!strncmp(k, "dropped_", 8) && json_is_number(v) && n < DIM(b)) {
			snprintf(b[n].label, sizeof(b[n].label), "%s", k + 8);
			b[n++].v = json_number_value(v);
		}
	json_object_foreach(inv, k, v)
		if (json_is_number(v) && n < DIM(b)) {
			snprintf(b[n].label, sizeof(b[n].label), "invalid: %s", k);
			b[n++].v = json_number_value(v);
		}
	if (n == 0)
		rpt_missing(f, "Drops by reason", "no dropped_* counters in summary.json");
	else
		rpt_plot_bars(f, "Drops by reason", "packets", b, n,
			  "no packet was dropped, for any reason");

	n = 0;
	json_array_foreach(jget(sum, "power.sources"), i, v)
		if (n < DIM(b)) {
			const char *nm = jstr(v, "name", "?");

			snprintf(b[n].label, sizeof(b[n].label), "%s%s", nm,
				 json_is_true(json_object_get(v, "modeled")) &&
				 strstr(nm, "modeled") == NULL ? " (modeled)" : "");
			snprintf(b[n].note, sizeof(b[n].note), ", %.4g J", jnum(v, "joules"));
			b[n++].v = jnum(v, "mean_w");
		}
	/* with no source, the plot over time already said why */
	if (n > 0)
		rpt_plot_bars(f, "Power per device (mean)", "W", b, n, "every source read 0 W");

	json_array_foreach(devs, i, d) {
		json_t *fl = json_object_get(d, "flush");

		if (!json_is_object(fl))
			continue;
		any_batch = true;
		n = 0;
		json_object_foreach(fl, k, v)
			if (json_is_number(v) && n < DIM(b)) {
				snprintf(b[n].label, sizeof(b[n].label), "flush: %s", k);
				b[n++].v = json_number_value(v);
			}
		snprintf(title, sizeof(title), "%s: %.0f batches, mean %.1f packets; flush reasons",
			 jstr(d, "name", "?"), jnum(d, "batches"), jnum(d, "mean_batch"));
		rpt_plot_bars(f, title, "batches", b, n, "no batch was flushed");
	}
	if (!any_batch)
		rpt_missing(f, "Batch sizes and flush reasons",
			"no device batches in this run: CPU workers take bursts; a --gpu device batches");

	n = 0;
	json_array_foreach(devs, i, d)
		if (n < DIM(b)) {
			snprintf(b[n].label, sizeof(b[n].label), "%s", jstr(d, "name", "?"));
			b[n++].v = jnum(d, "share_pct");
		}
	if (n == 0)
		rpt_missing(f, "Device share", "no devices in summary.json");
	else
		rpt_plot_bars(f, "Device share over the run", "%", b, n, "no packet was delivered");
	per_type_app(f, sum, b, DIM(b));
	fputs("</div>\n", f);
}

/* A PNG beside the report as an inline data: URI (base64). */
static void
embed_png(FILE *f, const char *path, const char *caption)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[3];
	FILE *p = fopen(path, "rb");
	struct stat st;
	size_t n;

	if (p == NULL)
		return;
	if (fstat(fileno(p), &st) != 0 || st.st_size > (off_t)MAX_EMBED) {
		fclose(p);
		fputs("<p class=\"note\">", f);
		rpt_esc(f, caption);
		fputs(": too large to embed; it is beside this report.</p>\n", f);
		return;
	}
	fputs("<figure><img alt=\"", f);
	rpt_esc(f, caption);
	fputs("\" src=\"data:image/png;base64,", f);
	while ((n = fread(in, 1, 3, p)) > 0) {
		uint32_t w = (uint32_t)in[0] << 16 | (n > 1 ? (uint32_t)in[1] << 8 : 0) |
			     (n > 2 ? in[2] : 0);

		fputc(b64[w >> 18 & 63], f);
		fputc(b64[w >> 12 & 63], f);
		fputc(n > 1 ? b64[w >> 6 & 63] : '=', f);
		fputc(n > 2 ? b64[w & 63] : '=', f);
	}
	fclose(p);
	fputs("\"><figcaption>", f);
	rpt_esc(f, caption);
	fputs("</figcaption></figure>\n", f);
}

/* A step without a settled row measured nothing (ramp writes zeros), and
 * the kernel's view is -1 where it was not read: both are gaps. */
static unsigned int
ramp_gaps(struct csv *r)
{
	const double *rows = rpt_csv_get(r, "rows");
	unsigned int i, k, unsettled = 0;

	for (k = 0; k < r->nrow; k++) {
		bool none = rows != NULL && rows[k] == 0;

		unsettled += none;
		for (i = 0; i < r->ncol; i++)
			if ((none && strcmp(r->name[i], "step") && strcmp(r->name[i], "target")) ||
			    ((rpt_ends_with(r->name[i], "_os_cpu") || rpt_ends_with(r->name[i], "_os_wait")) &&
			     r->col[i][k] < 0))
				r->col[i][k] = NAN;
	}
	return unsettled;
}

static void
ramp_section(FILE *f, const char *dir, struct csv *r)
{
	struct series s[MAX_SERIES];
	char path[4200];
	unsigned int n, i, j, unsettled = ramp_gaps(r);

	fputs("<h2>Ramp (ramp.csv, one row a step)</h2>\n", f);
	if (r->comment[0]) {
		fputs("<p>", f);
		rpt_esc(f, r->comment);
		fputs("</p>\n", f);
	}
	if (unsettled)
		fprintf(f, "<p class=\"missing\">%u of %u steps had no settled row (hold longer): left out of the plots.</p>\n",
			unsettled, r->nrow);
	fputs("<div class=\"plots\">\n", f);
	n = 0;
	n += rpt_series_col(r, "offered_pps", "delivered_pps", "delivered", 1, &s[n]);
	n += rpt_series_col(r, "offered_pps", "offered_pps", "offered (ideal)", 1, &s[n]);
	rpt_plot_lines(f, "Delivered vs offered, per step", "offered (packets/s)", "packets/s", s, n,
		   Y_ZERO | MARKERS, NULL);
	n = rpt_series_col(r, "offered_frac", "drop_ratio", "drop ratio", 100, &s[0]);
	s[0].xscale = 100;
	rpt_plot_lines(f, "Drops per step", "offered (% of capacity)", "% of offered", s, n,
		   Y_ZERO | MARKERS, NULL);
	/* the loops' (c) load, then each CPU's estimates beside the kernel's */
	n = 0;
	for (i = 0; i < r->ncol && n < MAX_SERIES; i++)
		if (rpt_ends_with(r->name[i], "_c_load") && strncmp(r->name[i], "core", 4) != 0)
			n += rpt_series_col(r, "offered_frac", r->name[i], r->name[i], 100, &s[n]);
	for (j = 0; j < n; j++)
		s[j].xscale = 100;
	rpt_plot_lines(f, "Load estimate (c) of each loop, per step", "offered (% of capacity)",
		   "% of the lcore", s, n, Y_PCT | MARKERS, "no *_c_load columns");
	n = 0;
	for (i = 0; i < r->ncol && n < MAX_SERIES; i++)
		if (!strncmp(r->name[i], "core", 4) &&
		    (rpt_ends_with(r->name[i], "_c_load") || rpt_ends_with(r->name[i], "_os_cpu")))
			n += rpt_series_col(r, "offered_frac", r->name[i], r->name[i], 100, &s[n]);
	for (j = 0; j < n; j++)
		s[j].xscale = 100;
	rpt_plot_lines(f, "Per CPU: estimate (c) and the kernel's CPU time", "offered (% of capacity)",
		   "% of the CPU", s, n, Y_ZERO | MARKERS, "no per-CPU columns");
	fputs("</div>\n", f);
	snprintf(path, sizeof(path), "%s/ramp.png", dir);
	embed_png(f, path, "ramp.png (tools/load_plot.py)");
}

static int
run_section(FILE *f, const char *dir, json_t *sum, const struct csv *trace,
	    char *err, size_t errlen)
{
	struct csv ramp;
	char path[4200];
	int ret;

	headline_cards(f, sum);
	trace_plots(f, trace, sum);
	summary_plots(f, sum);
	snprintf(path, sizeof(path), "%s/ramp.csv", dir);
	ret = rpt_csv_load(&ramp, path, err, errlen);
	if (ret == 0) {
		ramp_section(f, dir, &ramp);
		rpt_csv_free(&ramp);
	} else if (ret != -ENOENT) {
		return ret;
	}
	summary_tables(f, sum);
	return 0;
}

/* ---- a compare's folder: one run folder per scenario x policy ---- */

struct run {
	char name[256];
	json_t *sum;
	struct csv trace;
};

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct run *)a)->name, ((const struct run *)b)->name);
}

static int
runs_load(const char *dir, struct run *runs, unsigned int *nruns, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;
	int ret = 0;

	if (d == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d)) != NULL && n < MAX_RUNS) {
		char p[4600];
		struct stat st;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(runs[n].name))
			continue;
		snprintf(p, sizeof(p), "%s/%s/summary.json", dir, e->d_name);
		if (stat(p, &st) != 0)
			continue;
		snprintf(runs[n].name, sizeof(runs[n].name), "%s", e->d_name);
		n++;
	}
	closedir(d);
	qsort(runs, n, sizeof(*runs), cmp_name);
	*nruns = n;
	for (unsigned int i = 0; i < n && ret == 0; i++) {
		char sub[4400];

		snprintf(sub, sizeof(sub), "%.4000s/%.255s", dir, runs[i].name);
		runs[i].sum = summary_load(sub, err, errlen);
		if (runs[i].sum == NULL)
			ret = -EINVAL;
		else {
			snprintf(sub, sizeof(sub), "%.4000s/%.255s/trace.csv", dir, runs[i].name);
			ret = rpt_csv_load(&runs[i].trace, sub, err, errlen);
		}
	}
	return ret;
}

static const struct head cmp_cols[] = {
	{ "app", "app", NULL },
	{ "scheduler", "scheduler", NULL },
	{ "granularity", "granularity", NULL },
	{ "delivered", "packets_delivered", "" },
	{ "Mpps", "throughput_mpps", "" },
	{ "port drops", "dropped_port", "" },
	{ "p50 us", "latency_us.p50", "" },
	{ "p99 us", "latency_us.p99", "" },
	{ "deadlines %", "deadline.success_pct", "" },
	{ "in order %", "reorder.success_pct", "" },
};

static void
compare_section(FILE *f, const char *dir, struct run *runs, unsigned int n)
{
	struct series s[MAX_SERIES];
	char path[4200], b[32], group[256];
	unsigned int i, k, ns, g;
	size_t j;
	DIR *d;
	struct dirent *e;
	FILE *md;

	fputs("<h2>Runs</h2>\n<table class=\"rows\"><tr><th>run</th>", f);
	for (k = 0; k < DIM(cmp_cols); k++)
		fprintf(f, "<th>%s</th>", cmp_cols[k].label);
	fputs("<th>device share %</th></tr>\n", f);
	for (i = 0; i < n; i++) {
		json_t *dv;

		fputs("<tr><td>", f);
		rpt_esc(f, runs[i].name);
		fputs("</td>", f);
		for (k = 0; k < DIM(cmp_cols); k++) {
			fputs("<td>", f);
			if (cmp_cols[k].unit == NULL)
				rpt_esc(f, jstr(runs[i].sum, cmp_cols[k].path, "-"));
			else
				fputs(rpt_num(b, sizeof(b), jnum(runs[i].sum, cmp_cols[k].path)), f);
			fputs("</td>", f);
		}
		fputs("<td>", f);
		json_array_foreach(jget(runs[i].sum, "devices"), j, dv) {
			fputs(j ? ", " : "", f);
			rpt_esc(f, jstr(dv, "name", "?"));
			fprintf(f, " %.1f", jnum(dv, "share_pct"));
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	/* per scenario (the folder name up to its first '-'), the runs side
	 * by side over time */
	for (g = 0; g < n; g++) {
		static const struct { const char *col, *title, *unit; int flags; } what[] = {
			{ "delivered_pps", "delivered", "packets/s", Y_ZERO },
			{ "p99_us", "latency p99", "microseconds", Y_ZERO },
			{ "deadline_pct", "deadlines met", "% of packets", Y_PCT },
		};
		bool first = true;

		snprintf(group, sizeof(group), "%.*s", (int)strcspn(runs[g].name, "-"),
			 runs[g].name);
		for (i = 0; i < g; i++)
			first &= strncmp(runs[i].name, group, strlen(group)) != 0 ||
				 (runs[i].name[strlen(group)] != '-' &&
				  runs[i].name[strlen(group)] != '\0');
		if (!first)
			continue;
		fputs("<h3>", f);
		rpt_esc(f, group);
		fputs("</h3>\n<div class=\"plots\">\n", f);
		for (k = 0; k < DIM(what); k++) {
			char title[300];

			ns = 0;
			for (i = g; i < n && ns < MAX_SERIES; i++)
				if (!strncmp(runs[i].name, group, strlen(group)) &&
				    (runs[i].name[strlen(group)] == '-' ||
				     runs[i].name[strlen(group)] == '\0'))
					ns += rpt_series_col(&runs[i].trace, "t_s", what[k].col,
							 runs[i].name, 1, &s[ns]);
			snprintf(title, sizeof(title), "%s: %s", group, what[k].title);
			rpt_plot_lines(f, title, "time (s)", what[k].unit, s, ns, what[k].flags, NULL);
		}
		fputs("</div>\n", f);
	}
	/* the compare tool's own plots and tables, embedded */
	d = opendir(dir);
	while (d != NULL && (e = readdir(d)) != NULL)
		if (rpt_ends_with(e->d_name, ".png")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			embed_png(f, path, e->d_name);
		}
	if (d != NULL)
		closedir(d);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = fopen(path, "r");
	if (md != NULL) {
		char *buf = malloc(MAX_EMBED + 1);
		size_t got = buf ? fread(buf, 1, MAX_EMBED, md) : 0;

		if (buf != NULL) {
			buf[got] = '\0';
			fputs("<h2>report.md</h2>\n<pre>", f);
			rpt_esc(f, buf);
			fputs("</pre>\n", f);
		}
		free(buf);
		fclose(md);
	}
}

/* ---- the page ---- */

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:16px;color:#222;max-width:1240px}"
	"h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;border-bottom:1px solid #ccc;margin:18px 0 8px}"
	"h3{font-size:14px;margin:12px 0 4px}"
	".plots{display:flex;flex-wrap:wrap;gap:10px}.plots svg,.plots p{border:1px solid #ddd;margin:0}"
	".plots p{width:580px;padding:8px}"
	"svg text{font:11px sans-serif;fill:#333}svg .title{font-weight:bold;font-size:12px}"
	"svg .frame{fill:none;stroke:#999}svg .grid{stroke:#eee}svg .line{fill:none;stroke-width:1.6}"
	".missing{color:#a33;font-style:italic}.note{color:#555}"
	".cards{display:flex;flex-wrap:wrap;gap:6px}.card{border:1px solid #ddd;padding:4px 10px;min-width:110px}"
	".card .v{font-size:16px;font-weight:bold}.card .k{font-size:11px;color:#666}"
	"table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:1px 6px}"
	"td{text-align:right}td:first-child{text-align:left}div.kv{columns:2}table.kv{width:100%}"
	"table.kv td:last-child{word-break:break-word}pre{font-size:11px;background:#f6f6f6;padding:6px;overflow:auto}"
	"pre{white-space:pre-wrap}figure{margin:8px 0}img{max-width:100%}";

static void
page_head(FILE *f, const char *dir, json_t *sum)
{
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>hplane report: ");
	rpt_esc(f, dir);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", css);
	if (sum != NULL) {
		char b[32];

		fputs("hplane run: app ", f);
		rpt_esc(f, jstr(sum, "app", "?"));
		fputs(", scheduler ", f);
		rpt_esc(f, jstr(sum, "scheduler", "?"));
		fputs(" (", f);
		rpt_esc(f, jstr(sum, "granularity", "chain"));
		fputs("), scenario ", f);
		rpt_esc(f, jstr(sum, "scenario", "?"));
		fprintf(f, ", %s worker(s), ", rpt_num(b, sizeof(b), jnum(sum, "workers")));
		fprintf(f, "%s s", rpt_num(b, sizeof(b), jnum(sum, "duration_s")));
	} else {
		fputs("hplane compare", f);
	}
	fputs("</h1>\n<p class=\"note\">From the files in <code>", f);
	rpt_esc(f, dir);
	fprintf(f, "</code> (source %s), built %s by <code>hplane report</code>; "
		"every plot is drawn from those files alone.</p>\n",
		sum != NULL ? jstr(sum, "source", "?") : "run folders", when);
}

int
hp_report_build(const char *dir, char *path, size_t pathlen, char *err, size_t errlen)
{
	static struct run runs[MAX_RUNS];
	char tmp[4200], p[4200];
	struct stat st;
	struct csv trace = { 0 };
	json_t *sum = NULL;
	unsigned int nruns = 0, i;
	FILE *f = NULL;
	int ret;

	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a folder (give a run's --out folder)", dir);
		return -ENOTDIR;
	}
	snprintf(p, sizeof(p), "%s/summary.json", dir);
	if (access(p, F_OK) == 0) {
		sum = summary_load(dir, err, errlen);
		if (sum == NULL)
			return -EINVAL;
		snprintf(p, sizeof(p), "%s/trace.csv", dir);
		ret = rpt_csv_load(&trace, p, err, errlen);
		if (ret < 0)
			goto out;
	} else {
		memset(runs, 0, sizeof(runs));
		ret = runs_load(dir, runs, &nruns, err, errlen);
		if (ret < 0)
			goto out;
		if (nruns == 0) {
			snprintf(err, errlen, "%s: no summary.json and no run folders holding one: not a hplane run's output",
				 dir);
			ret = -ENOENT;
			goto out;
		}
	}
	snprintf(path, pathlen, "%s/report.html", dir);
	snprintf(tmp, sizeof(tmp), "%s/.report.html.%ld", dir, (long)getpid());
	f = fopen(tmp, "w");
	if (f == NULL) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		ret = -EIO;
		goto out;
	}
	page_head(f, dir, sum);
	if (sum != NULL)
		ret = run_section(f, dir, sum, &trace, err, errlen);
	else
		compare_section(f, dir, runs, nruns);
	fputs("</body></html>\n", f);
	if (ret == 0 && (ferror(f) || fflush(f) != 0)) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		ret = -EIO;
	}
	if (fclose(f) != 0 && ret == 0) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		ret = -EIO;
	}
	if (ret == 0 && rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		ret = -EIO;
	}
	if (ret < 0)
		unlink(tmp);
out:
	json_decref(sum);
	rpt_csv_free(&trace);
	for (i = 0; i < nruns; i++) {
		json_decref(runs[i].sum);
		rpt_csv_free(&runs[i].trace);
	}
	return ret;
}
