/* SPDX-License-Identifier: BSD-3-Clause
 * The report's drawing kit (report_priv.h): CSV read back by header name,
 * escaping and number formatting, inline-SVG line and bar plots. Split from
 * report.c, which assembles the pages.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"

/* ---- CSV read back by header name ---- */


void
rpt_csv_free(struct csv *c)
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

int
rpt_csv_load(struct csv *c, const char *path, char *err, size_t errlen)
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

			/* an empty field: no value that second (a share of nothing);
			 * the goal and configuration columns (--goal) are labels */
			if (f[i][0] == '\0' || !strcmp(c->name[i], "goal") ||
			    !strcmp(c->name[i], "configuration")) {
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
		rpt_csv_free(c);
	return ret;
}

const double *
rpt_csv_get(const struct csv *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->ncol; i++)
		if (strcmp(c->name[i], name) == 0)
			return c->col[i];
	return NULL;
}

bool
rpt_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && strcmp(s + a - b, suffix) == 0;
}

/* ---- HTML and SVG output ---- */

void
rpt_esc(FILE *f, const char *s)
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
		rpt_esc(f, s);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s...", (int)max, s);
	rpt_esc(f, buf);
}

const char *
rpt_num(char *b, size_t n, double v)
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

void
rpt_missing(FILE *f, const char *title, const char *why)
{
	fputs("<p class=\"missing\"><b>", f);
	rpt_esc(f, title);
	fputs("</b>: not recorded by this run", f);
	if (why != NULL && why[0]) {
		fputs(" (", f);
		rpt_esc(f, why);
		fputs(")", f);
	}
	fputs(".</p>\n", f);
}

/* A line plot of up to MAX_SERIES series; non-finite points are gaps. A
 * plot with no finite point is the "not recorded" line instead. */
void
rpt_plot_lines(FILE *f, const char *title, const char *xlab, const char *ylab,
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
		rpt_missing(f, title, why != NULL ? why : "no values");
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
	rpt_esc(f, title);
	fprintf(f, "</text>\n<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		ML, MT, PW - ML - MR, PH - MT - MB);
	for (v = y0; v <= y1 + st / 2; v += st) {
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>",
			ML, PW - MR, Y(v), Y(v));
		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML - 4, Y(v) + 4, rpt_num(b, sizeof(b), fabs(v) < st / 1e6 ? 0 : v));
	}
	st = nice_step(x1 - x0, 6);
	for (v = ceil(x0 / st) * st; v <= x1 + st / 1e6; v += st)
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			X(v), PH - MB + 14, rpt_num(b, sizeof(b), fabs(v) < st / 1e6 ? 0 : v));
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (ML + PW - MR) / 2,
		PH - 8);
	rpt_esc(f, xlab);
	fprintf(f, "</text>\n<text class=\"axis\" transform=\"translate(12,%d) rotate(-90)\" text-anchor=\"middle\">",
		(MT + PH - MB) / 2);
	rpt_esc(f, ylab);
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
		rpt_esc(f, s[k].label);
		fputs("</text>\n", f);
		lx += w;
	}
	fputs("</svg>\n", f);
#undef X
#undef Y
}


/* Horizontal bars, one a row, the value at the end. The notes are
 * cleared once drawn, so the next chart from the same array has none. */
void
rpt_plot_bars(FILE *f, const char *title, const char *unit, struct bar *b,
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
		rpt_esc(f, title);
		fputs("</b>: ", f);
		rpt_esc(f, zero_note);
		fputs("</p>\n", f);
		for (i = 0; i < n; i++)
			b[i].note[0] = '\0';
		return;
	}
	fprintf(f, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
		PW, h, PW, h);
	fputs("<text class=\"title\" x=\"8\" y=\"18\">", f);
	rpt_esc(f, title);
	fputs("</text>\n", f);
	for (i = 0; i < n; i++) {
		int y = 28 + (int)i * rh;
		double w = b[i].v / vmax * (PW - lw - vw);

		/* a label longer than its column is cut (whole in the tooltip) */
		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\"><title>", lw - 6,
			y + 13);
		rpt_esc(f, b[i].label);
		fputs("</title>", f);
		esc_n(f, b[i].label, 30);
		fprintf(f, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			lw, y + 2, b[i].v > 0 ? fmax(w, 1) : 0, rh - 6,
			palette[i % DIM(palette)]);
		fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%d\">%s %s", lw + fmax(w, 0) + 4,
			y + 13, rpt_num(buf, sizeof(buf), b[i].v), unit);
		rpt_esc(f, b[i].note);
		b[i].note[0] = '\0';
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

/* ---- summary.json ---- */

/* The value at a dotted path ("latency_us.p99"), or NULL. */
