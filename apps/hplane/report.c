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

#define DIM(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_RUNS 256        /* run folders of one compare */
#define MAX_SERIES 32
#define MAX_EMBED (8u << 20) /* PNG or markdown embedded, bytes */

/* ---- CSV read back by header name ---- */

struct csv {
	unsigned int ncol, nrow;
	char **name;        /* ncol header names */
	double **col;       /* ncol columns of nrow values */
	char comment[512];  /* first '#' line, without the '#' */
};

static void
csv_free(struct csv *c)
{
	unsigned int i;

	for (i = 0; i < c->ncol; i++) {
		free(c->name[i]);
		free(c->col[i]);
	}
	free(c->name);
	free(c->col);
	memset(c, 0, sizeof(*c));
}

/* Splits line into fields in place (RFC 4180: a field in double quotes
 * may hold commas, "" is a quote); at most max stored. Returns the count,
 * or 0 for an unterminated quote. */
static unsigned int
split(char *line, char **f, unsigned int max)
{
	unsigned int n = 0;
	char *p = line, *w;

	line[strcspn(line, "\r\n")] = '\0';
	for (;;) {
		if (n < max)
			f[n] = p;
		n++;
		if (*p == '"') {
			/* unquote in place: w trails p */
			for (w = p++;; p++) {
				if (*p == '\0')
					return 0;
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
				*w++ = *p;
			}
			*w = '\0';
			p++;
			if (*p != ',' && *p != '\0')
				return 0;
		} else {
			p += strcspn(p, ",");
		}
		if (*p == '\0')
			break;
		*p++ = '\0';
	}
	return n;
}

static int
csv_load(struct csv *c, const char *path, char *err, size_t errlen)
{
	char *line = NULL, **f = NULL;
	size_t cap = 0, rows_cap = 0;
	unsigned int lineno = 0, n, i;
	FILE *fp;
	int ret = -EINVAL;

	memset(c, 0, sizeof(*c));
	fp = fopen(path, "r");
	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? -ENOENT : -EINVAL;
	}
	while (getline(&line, &cap, fp) > 0) {
		lineno++;
		if (line[0] == '#') {
			if (c->comment[0] == '\0')
				snprintf(c->comment, sizeof(c->comment), "%.*s",
					 (int)strcspn(line + 1, "\r\n"), line + 1);
			continue;
		}
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (c->name == NULL) {
			/* at most one field a comma and one more */
			for (n = 1, i = 0; line[i]; i++)
				n += line[i] == ',';
			f = calloc(n, sizeof(*f));
			c->name = calloc(n, sizeof(*c->name));
			c->col = calloc(n, sizeof(*c->col));
			if (f == NULL || c->name == NULL || c->col == NULL)
				goto nomem;
			c->ncol = n = split(line, f, n);
			if (n == 0) {
				snprintf(err, errlen, "%s:%u: a quote is not closed", path, lineno);
				goto out;
			}
			for (i = 0; i < n; i++) {
				c->name[i] = strdup(f[i]);
				if (c->name[i] == NULL)
					goto nomem;
				if (f[i][0] == '\0') {
					snprintf(err, errlen, "%s:%u: header column %u has no name",
						 path, lineno, i + 1);
					goto out;
				}
			}
			continue;
		}
		n = split(line, f, c->ncol);
		if (n != c->ncol) {
			if (n == 0)
				snprintf(err, errlen, "%s:%u: a quote is not closed", path, lineno);
			else
				snprintf(err, errlen, "%s:%u: %u fields, the header has %u", path,
					 lineno, n, c->ncol);
			goto out;
		}
		if (c->nrow == rows_cap) {
			rows_cap = rows_cap ? 2 * rows_cap : 64;
			for (i = 0; i < c->ncol; i++) {
				double *p = realloc(c->col[i], rows_cap * sizeof(double));

				if (p == NULL)
					goto nomem;
				c->col[i] = p;
			}
		}
		for (i = 0; i < c->ncol; i++) {
			char *end;

			/* an empty field: no value that second (a share of nothing) */
			if (f[i][0] == '\0') {
				c->col[i][c->nrow] = NAN;
				continue;
			}
			errno = 0;
			c->col[i][c->nrow] = strtod(f[i], &end);
			if (end == f[i] || *end != '\0' || errno == ERANGE) {
				snprintf(err, errlen, "%s:%u: column %s: '%.40s' is not a number",
					 path, lineno, c->name[i], f[i]);
				goto out;
			}
		}
		c->nrow++;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (c->name == NULL) {
		snprintf(err, errlen, "%s: empty (no header line)", path);
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
	ret = -ENOMEM;
out:
	free(f);
	free(line);
	fclose(fp);
	if (ret < 0)
		csv_free(c);
	return ret;
}

static const double *
csv_get(const struct csv *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->ncol; i++)
		if (strcmp(c->name[i], name) == 0)
			return c->col[i];
	return NULL;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && strcmp(s + a - b, suffix) == 0;
}

/* ---- HTML and SVG output ---- */

static void
esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* control bytes would break the page, not inform */
			fputc((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' ? '?' : *s, f);
		}
	}
}

/* At most max bytes of s, "..." where it was cut. */
static void
esc_n(FILE *f, const char *s, size_t max)
{
	char buf[128];

	if (strlen(s) <= max || max + 4 > sizeof(buf)) {
		esc(f, s);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s...", (int)max, s);
	esc(f, buf);
}

static const char *
num(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(b, n, "-");
	else if (a >= 1e9)
		snprintf(b, n, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(b, n, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(b, n, "%.3gk", v / 1e3);
	else
		snprintf(b, n, "%.4g", v);
	return b;
}

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

struct series {
	char label[96];
	const double *x, *y;
	unsigned int n;
	double xscale, yscale;   /* 0 means 1 */
};

enum { Y_ZERO = 1, Y_PCT = 2, MARKERS = 4 };

#define PW 600
#define PH 260
#define ML 62
#define MR 16
#define MT 30
#define MB 40

static double
nice_step(double range, int ticks)
{
	double raw = range / ticks, mag = pow(10, floor(log10(raw))), fr = raw / mag;

	return (fr < 1.5 ? 1 : fr < 3 ? 2 : fr < 7 ? 5 : 10) * mag;
}

static double
sx(const struct series *s, unsigned int i)
{
	return s->x[i] * (s->xscale != 0 ? s->xscale : 1);
}

static double
sy(const struct series *s, unsigned int i)
{
	return s->y[i] * (s->yscale != 0 ? s->yscale : 1);
}

static void
missing(FILE *f, const char *title, const char *why)
{
	fputs("<p class=\"missing\"><b>", f);
	esc(f, title);
	fputs("</b>: not recorded by this run", f);
	if (why != NULL && why[0]) {
		fputs(" (", f);
		esc(f, why);
		fputs(")", f);
	}
	fputs(".</p>\n", f);
}

/* A line plot of up to MAX_SERIES series; non-finite points are gaps. A
 * plot with no finite point is the "not recorded" line instead. */
static void
plot_lines(FILE *f, const char *title, const char *xlab, const char *ylab,
	   const struct series *s, unsigned int ns, int flags, const char *why)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, st, v;
	unsigned int i, k, rows = 1;
	int lx = ML, h;
	char b[32];

	for (k = 0; k < ns; k++)
		for (i = 0; i < s[k].n; i++) {
			double x = sx(&s[k], i), y = sy(&s[k], i);

			if (!isfinite(x) || !isfinite(y))
				continue;
			x0 = fmin(x0, x);
			x1 = fmax(x1, x);
			y0 = fmin(y0, y);
			y1 = fmax(y1, y);
		}
	if (!(x0 <= x1)) {
		missing(f, title, why != NULL ? why : "no values");
		return;
	}
	if (x1 == x0)
		x1 = x0 + 1;
	if (flags & (Y_ZERO | Y_PCT))
		y0 = fmin(y0, 0);
	if (flags & Y_PCT)
		y1 = fmax(y1, 100);
	if (y1 == y0)
		y1 = y0 + 1;
	st = nice_step(y1 - y0, 5);
	y0 = floor(y0 / st) * st;
	y1 = ceil(y1 / st) * st;
	/* legend rows under the plot, items laid out left to right */
	for (k = 0; k < ns; k++) {
		int w = 26 + 6 * (int)strlen(s[k].label);

		if (lx + w > PW && lx > ML) {
			rows++;
			lx = ML;
		}
		lx += w;
	}
	h = PH + (int)rows * 16;
#define X(x) (ML + ((x) - x0) / (x1 - x0) * (PW - ML - MR))
#define Y(y) (MT + (y1 - (y)) / (y1 - y0) * (PH - MT - MB))
	fprintf(f, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		PW, h, PW, h);
	fputs("<text class=\"title\" x=\"8\" y=\"18\">", f);
	esc(f, title);
	fprintf(f, "</text>\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		ML, MT, PW - ML - MR, PH - MT - MB);
	for (v = y0; v <= y1 + st / 2; v += st) {
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>",
			ML, PW - MR, Y(v), Y(v));
		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML - 4, Y(v) + 4, num(b, sizeof(b), fabs(v) < st / 1e6 ? 0 : v));
	}
	st = nice_step(x1 - x0, 6);
	for (v = ceil(x0 / st) * st; v <= x1 + st / 1e6; v += st)
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			X(v), PH - MB + 14, num(b, sizeof(b), fabs(v) < st / 1e6 ? 0 : v));
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (ML + PW - MR) / 2,
		PH - 8);
	esc(f, xlab);
	fprintf(f, "</text>\n<text class=\"axis\" transform=\"translate(12,%d) rotate(-90)\" text-anchor=\"middle\">",
		(MT + PH - MB) / 2);
	esc(f, ylab);
	fputs("</text>\n", f);
	for (k = 0; k < ns; k++) {
		const char *col = palette[k % DIM(palette)];
		bool open = false;

		for (i = 0; i < s[k].n; i++) {
			double x = sx(&s[k], i), y = sy(&s[k], i);

			if (!isfinite(x) || !isfinite(y)) {
				if (open)
					fputs("\"/>\n", f);
				open = false;
				continue;
			}
			if (!open)
				fprintf(f, "<polyline class=\"line\" stroke=\"%s\" points=\"", col);
			open = true;
			fprintf(f, "%.1f,%.1f ", X(x), Y(y));
		}
		if (open)
			fputs("\"/>\n", f);
		for (i = 0; (flags & MARKERS) && i < s[k].n; i++)
			if (isfinite(sx(&s[k], i)) && isfinite(sy(&s[k], i)))
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
					X(sx(&s[k], i)), Y(sy(&s[k], i)), col);
	}
	lx = ML;
	rows = 0;
	for (k = 0; k < ns; k++) {
		int w = 26 + 6 * (int)strlen(s[k].label);
		int ly;

		if (lx + w > PW && lx > ML) {
			rows++;
			lx = ML;
		}
		ly = PH + 4 + (int)rows * 16;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"4\" fill=\"%s\"/><text class=\"legend\" x=\"%d\" y=\"%d\">",
			lx, ly, palette[k % DIM(palette)], lx + 20, ly + 5);
		esc(f, s[k].label);
		fputs("</text>\n", f);
		lx += w;
	}
	fputs("</svg>\n", f);
#undef X
#undef Y
}

struct bar {
	char label[96];
	double v;
	char note[48];   /* after the value, e.g. the energy beside the power */
};

/* Horizontal bars, one a row, the value at the end. The notes are
 * cleared once drawn, so the next chart from the same array has none. */
static void
plot_bars(FILE *f, const char *title, const char *unit, struct bar *b,
	  unsigned int n, const char *zero_note)
{
	const int lw = 200, vw = 110, rh = 20;
	double vmax = 0;
	unsigned int i;
	int h = 34 + (int)n * rh;
	char buf[32];

	for (i = 0; i < n; i++)
		vmax = fmax(vmax, b[i].v);
	if (!(vmax > 0)) {
		fputs("<p class=\"note\"><b>", f);
		esc(f, title);
		fputs("</b>: ", f);
		esc(f, zero_note);
		fputs("</p>\n", f);
		for (i = 0; i < n; i++)
			b[i].note[0] = '\0';
		return;
	}
	fprintf(f, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		PW, h, PW, h);
	fputs("<text class=\"title\" x=\"8\" y=\"18\">", f);
	esc(f, title);
	fputs("</text>\n", f);
	for (i = 0; i < n; i++) {
		int y = 28 + (int)i * rh;
		double w = b[i].v / vmax * (PW - lw - vw);

		/* a label longer than its column is cut (whole in the tooltip) */
		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>", lw - 6,
			y + 13);
		esc(f, b[i].label);
		fputs("</title>", f);
		esc_n(f, b[i].label, 30);
		fprintf(f, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			lw, y + 2, b[i].v > 0 ? fmax(w, 1) : 0, rh - 6,
			palette[i % DIM(palette)]);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">%s %s", lw + fmax(w, 0) + 4,
			y + 13, num(buf, sizeof(buf), b[i].v), unit);
		esc(f, b[i].note);
		b[i].note[0] = '\0';
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

/* ---- summary.json ---- */

/* The value at a dotted path ("latency_us.p99"), or NULL. */
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
		esc(f, json_string_value(v));
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
	esc(f, name);
	fputs("</h3>\n<table class=\"rows\"><tr><th>#</th>", f);
	for (c = 0; c < json_array_size(keys); c++) {
		fputs("<th>", f);
		esc(f, json_string_value(json_array_get(keys, c)));
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
	esc(f, prefix);
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
			num(b, sizeof(b), v), headline[i].unit, headline[i].label);
	}
	fputs("</div>\n", f);
}

/* ---- the sections of one run ---- */

/* Up to MAX_SERIES columns of c whose names end in suffix (prefix 0) or
 * start with it (prefix 1), labelled by the rest of the name. */
static unsigned int
series_match(const struct csv *c, const char *fix, bool prefix, double yscale,
	     struct series *s, unsigned int ns)
{
	const double *t = csv_get(c, "t_s");
	unsigned int i;
	size_t fl = strlen(fix);

	for (i = 0; i < c->ncol && ns < MAX_SERIES; i++) {
		const char *n = c->name[i];

		if (prefix ? strncmp(n, fix, fl) != 0 || n[fl] == '\0' : !ends_with(n, fix))
			continue;
		snprintf(s[ns].label, sizeof(s[ns].label), "%.*s",
			 prefix ? (int)strlen(n + fl) : (int)(strlen(n) - fl), prefix ? n + fl : n);
		s[ns].x = t;
		s[ns].y = c->col[i];
		s[ns].n = c->nrow;
		s[ns].xscale = 1;
		s[ns].yscale = yscale;
		ns++;
	}
	return ns;
}

/* A named column as a series over t_s; false when the column is absent. */
static bool
series_col(const struct csv *c, const char *xcol, const char *col, const char *label,
	   double yscale, struct series *s)
{
	const double *x = csv_get(c, xcol), *y = csv_get(c, col);

	if (x == NULL || y == NULL)
		return false;
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	s->x = x;
	s->y = y;
	s->n = c->nrow;
	s->yscale = yscale;
	return true;
}

static void
trace_plots(FILE *f, const struct csv *c, json_t *sum)
{
	struct series s[MAX_SERIES];
	const double *t = csv_get(c, "t_s"), *dp = csv_get(c, "dropped_port");
	double *drops = NULL;
	unsigned int n, i;

	fputs("<h2>Over time (trace.csv, one row a second)</h2>\n<div class=\"plots\">\n", f);
	if (t == NULL || c->nrow == 0) {
		/* no row, no column storage: check the rows first */
		missing(f, "every plot over time", c->nrow == 0 ?
			"trace.csv has no rows: the run was shorter than a second" :
			"trace.csv has no t_s column");
		fputs("</div>\n", f);
		return;
	}
	n = 0;
	n += series_col(c, "t_s", "offered_pps", "offered", 1, &s[n]);
	n += series_col(c, "t_s", "delivered_pps", "delivered", 1, &s[n]);
	if (dp != NULL && (drops = malloc(c->nrow * sizeof(*drops))) != NULL) {
		/* each row counts its own interval's port drops */
		for (i = 0; i < c->nrow; i++) {
			double dt = t[i] - (i ? t[i - 1] : 0);

			drops[i] = dt > 0 ? dp[i] / dt : NAN;
		}
		memset(&s[n], 0, sizeof(s[n]));
		snprintf(s[n].label, sizeof(s[n].label), "dropped at the port");
		s[n].x = t;
		s[n].y = drops;
		s[n].n = c->nrow;
		n++;
	}
	plot_lines(f, "Offered vs delivered rate", "time (s)", "packets/s", s, n, Y_ZERO, NULL);
	free(drops);

	n = 0;
	for (i = 0; i < c->ncol && n < MAX_SERIES; i++) {
		const char *nm = c->name[i];

		/* run-wide percentiles and the mean: p50_us, p99_us, mean_us, ... */
		if ((nm[0] == 'p' && strspn(nm + 1, "0123456789") > 0 &&
		     !strcmp(nm + 1 + strspn(nm + 1, "0123456789"), "_us")) ||
		    !strcmp(nm, "mean_us"))
			n += series_col(c, "t_s", nm, nm, 1, &s[n]);
	}
	plot_lines(f, "Latency per second", "time (s)", "microseconds", s, n, Y_ZERO, NULL);

	n = 0;
	n += series_col(c, "t_s", "deadline_pct", "deadlines met", 1, &s[n]);
	n += series_col(c, "t_s", "reorder_pct", "in order (after the window)", 1, &s[n]);
	n += series_col(c, "t_s", "arrived_in_order_pct", "arrived in order", 1, &s[n]);
	plot_lines(f, "Deadline and order success", "time (s)", "% of packets", s, n, Y_PCT,
		   NULL);

	n = series_match(c, "_share_pct", false, 1, s, 0);
	plot_lines(f, "Device share (completions)", "time (s)", "% of packets", s, n, Y_PCT,
		   NULL);

	n = series_match(c, "_c_load", false, 100, s, 0);
	plot_lines(f, "Per-lcore load estimate (c: work cycles / capacity)", "time (s)",
		   "% of the lcore", s, n, Y_PCT, "no load estimator columns (*_c_load)");

	n = series_match(c, "_load_pct", false, 1, s, 0);
	plot_lines(f, "Busy share of each polling loop", "time (s)", "% of the lcore", s, n,
		   Y_PCT, NULL);

	n = series_match(c, "power_w:", true, 1, s, 0);
	plot_lines(f, "Power per device over time", "time (s)", "watts", s, n, Y_ZERO,
		   jstr(sum, "power.unavailable", "no power source"));
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
		plot_bars(f, "Delivered per packet type", "packets", b, n, "no packet was delivered");
	n = 0;
	json_array_foreach(jget(sum, "types"), i, v)
		if (n < max && isfinite(jnum(v, "deadline_success_pct")) &&
		    jnum(v, "deadline_packets") > 0) {
			snprintf(b[n].label, sizeof(b[n].label), "type %lld",
				 (long long)json_integer_value(json_object_get(v, "type")));
			b[n++].v = jnum(v, "deadline_success_pct");
		}
	if (n > 0)
		plot_bars(f, "Deadlines met per packet type", "%", b, n, "no deadline was met");
	n = 0;
	json_array_foreach(jget(sum, "apps"), i, v)
		if (n < max) {
			snprintf(b[n].label, sizeof(b[n].label), "%s", jstr(v, "name", "?"));
			b[n++].v = jnum(v, "packets_delivered");
		}
	if (n > 0)
		plot_bars(f, "Delivered per app", "packets", b, n, "no packet was delivered");
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
		missing(f, "Drops by reason", "no dropped_* counters in summary.json");
	else
		plot_bars(f, "Drops by reason", "packets", b, n,
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
		plot_bars(f, "Power per device (mean)", "W", b, n, "every source read 0 W");

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
		plot_bars(f, title, "batches", b, n, "no batch was flushed");
	}
	if (!any_batch)
		missing(f, "Batch sizes and flush reasons",
			"no device batches in this run: CPU workers take bursts; a --gpu device batches");

	n = 0;
	json_array_foreach(devs, i, d)
		if (n < DIM(b)) {
			snprintf(b[n].label, sizeof(b[n].label), "%s", jstr(d, "name", "?"));
			b[n++].v = jnum(d, "share_pct");
		}
	if (n == 0)
		missing(f, "Device share", "no devices in summary.json");
	else
		plot_bars(f, "Device share over the run", "%", b, n, "no packet was delivered");
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
		esc(f, caption);
		fputs(": too large to embed; it is beside this report.</p>\n", f);
		return;
	}
	fputs("<figure><img alt=\"", f);
	esc(f, caption);
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
	esc(f, caption);
	fputs("</figcaption></figure>\n", f);
}

/* A step without a settled row measured nothing (ramp writes zeros), and
 * the kernel's view is -1 where it was not read: both are gaps. */
static unsigned int
ramp_gaps(struct csv *r)
{
	const double *rows = csv_get(r, "rows");
	unsigned int i, k, unsettled = 0;

	for (k = 0; k < r->nrow; k++) {
		bool none = rows != NULL && rows[k] == 0;

		unsettled += none;
		for (i = 0; i < r->ncol; i++)
			if ((none && strcmp(r->name[i], "step") && strcmp(r->name[i], "target")) ||
			    ((ends_with(r->name[i], "_os_cpu") || ends_with(r->name[i], "_os_wait")) &&
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
		esc(f, r->comment);
		fputs("</p>\n", f);
	}
	if (unsettled)
		fprintf(f, "<p class=\"missing\">%u of %u steps had no settled row (hold longer): left out of the plots.</p>\n",
			unsettled, r->nrow);
	fputs("<div class=\"plots\">\n", f);
	n = 0;
	n += series_col(r, "offered_pps", "delivered_pps", "delivered", 1, &s[n]);
	n += series_col(r, "offered_pps", "offered_pps", "offered (ideal)", 1, &s[n]);
	plot_lines(f, "Delivered vs offered, per step", "offered (packets/s)", "packets/s", s, n,
		   Y_ZERO | MARKERS, NULL);
	n = series_col(r, "offered_frac", "drop_ratio", "drop ratio", 100, &s[0]);
	s[0].xscale = 100;
	plot_lines(f, "Drops per step", "offered (% of capacity)", "% of offered", s, n,
		   Y_ZERO | MARKERS, NULL);
	/* the loops' (c) load, then each CPU's estimates beside the kernel's */
	n = 0;
	for (i = 0; i < r->ncol && n < MAX_SERIES; i++)
		if (ends_with(r->name[i], "_c_load") && strncmp(r->name[i], "core", 4) != 0)
			n += series_col(r, "offered_frac", r->name[i], r->name[i], 100, &s[n]);
	for (j = 0; j < n; j++)
		s[j].xscale = 100;
	plot_lines(f, "Load estimate (c) of each loop, per step", "offered (% of capacity)",
		   "% of the lcore", s, n, Y_PCT | MARKERS, "no *_c_load columns");
	n = 0;
	for (i = 0; i < r->ncol && n < MAX_SERIES; i++)
		if (!strncmp(r->name[i], "core", 4) &&
		    (ends_with(r->name[i], "_c_load") || ends_with(r->name[i], "_os_cpu")))
			n += series_col(r, "offered_frac", r->name[i], r->name[i], 100, &s[n]);
	for (j = 0; j < n; j++)
		s[j].xscale = 100;
	plot_lines(f, "Per CPU: estimate (c) and the kernel's CPU time", "offered (% of capacity)",
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
	ret = csv_load(&ramp, path, err, errlen);
	if (ret == 0) {
		ramp_section(f, dir, &ramp);
		csv_free(&ramp);
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
			ret = csv_load(&runs[i].trace, sub, err, errlen);
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
		esc(f, runs[i].name);
		fputs("</td>", f);
		for (k = 0; k < DIM(cmp_cols); k++) {
			fputs("<td>", f);
			if (cmp_cols[k].unit == NULL)
				esc(f, jstr(runs[i].sum, cmp_cols[k].path, "-"));
			else
				fputs(num(b, sizeof(b), jnum(runs[i].sum, cmp_cols[k].path)), f);
			fputs("</td>", f);
		}
		fputs("<td>", f);
		json_array_foreach(jget(runs[i].sum, "devices"), j, dv) {
			fputs(j ? ", " : "", f);
			esc(f, jstr(dv, "name", "?"));
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
		esc(f, group);
		fputs("</h3>\n<div class=\"plots\">\n", f);
		for (k = 0; k < DIM(what); k++) {
			char title[300];

			ns = 0;
			for (i = g; i < n && ns < MAX_SERIES; i++)
				if (!strncmp(runs[i].name, group, strlen(group)) &&
				    (runs[i].name[strlen(group)] == '-' ||
				     runs[i].name[strlen(group)] == '\0'))
					ns += series_col(&runs[i].trace, "t_s", what[k].col,
							 runs[i].name, 1, &s[ns]);
			snprintf(title, sizeof(title), "%s: %s", group, what[k].title);
			plot_lines(f, title, "time (s)", what[k].unit, s, ns, what[k].flags, NULL);
		}
		fputs("</div>\n", f);
	}
	/* the compare tool's own plots and tables, embedded */
	d = opendir(dir);
	while (d != NULL && (e = readdir(d)) != NULL)
		if (ends_with(e->d_name, ".png")) {
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
			esc(f, buf);
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
	esc(f, dir);
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", css);
	if (sum != NULL) {
		char b[32];

		fputs("hplane run: app ", f);
		esc(f, jstr(sum, "app", "?"));
		fputs(", scheduler ", f);
		esc(f, jstr(sum, "scheduler", "?"));
		fputs(" (", f);
		esc(f, jstr(sum, "granularity", "chain"));
		fputs("), scenario ", f);
		esc(f, jstr(sum, "scenario", "?"));
		fprintf(f, ", %s worker(s), ", num(b, sizeof(b), jnum(sum, "workers")));
		fprintf(f, "%s s", num(b, sizeof(b), jnum(sum, "duration_s")));
	} else {
		fputs("hplane compare", f);
	}
	fputs("</h1>\n<p class=\"note\">From the files in <code>", f);
	esc(f, dir);
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
		ret = csv_load(&trace, p, err, errlen);
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
	csv_free(&trace);
	for (i = 0; i < nruns; i++) {
		json_decref(runs[i].sum);
		csv_free(&runs[i].trace);
	}
	return ret;
}
