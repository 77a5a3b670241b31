/* SPDX-License-Identifier: BSD-3-Clause
 * The report's drawing kit, private to apps/hplane/report*.c: CSV files
 * read back by header name, HTML escaping and numbers, and the inline-SVG
 * line and bar plots (report_draw.c); report.c builds the pages from them.
 */
#ifndef HP_REPORT_PRIV_H
#define HP_REPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DIM(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_SERIES 32

struct csv {
	unsigned int ncol, nrow;
	char **name;        /* ncol header names */
	double **col;       /* ncol columns of nrow values */
	char comment[512];  /* first '#' line, without the '#' */
};

struct series {
	char label[96];
	const double *x, *y;
	unsigned int n;
	double xscale, yscale;   /* 0 means 1 */
};

enum { Y_ZERO = 1, Y_PCT = 2, MARKERS = 4 };

struct bar {
	char label[96];
	double v;
	char note[48];   /* after the value, e.g. the energy beside the power */
};

void rpt_csv_free(struct csv *c);
const double *rpt_csv_get(const struct csv *c, const char *name);
int rpt_csv_load(struct csv *c, const char *path, char *err, size_t errlen);
bool rpt_ends_with(const char *s, const char *suffix);
void rpt_esc(FILE *f, const char *s);
void rpt_missing(FILE *f, const char *title, const char *why);
const char *rpt_num(char *b, size_t n, double v);
void rpt_plot_bars(FILE *f, const char *title, const char *unit, struct bar *b, unsigned int n, const char *zero_note);
void rpt_plot_lines(FILE *f, const char *title, const char *xlab, const char *ylab, const struct series *s, unsigned int ns, int flags, const char *why);

/* report_series.c */
unsigned int rpt_series_match(const struct csv *c, const char *fix, bool prefix, double yscale,
			      struct series *s, unsigned int ns);
unsigned int rpt_series_apps(const struct csv *c, const char *suffix, struct series *s,
			     unsigned int max);
bool rpt_series_col(const struct csv *c, const char *xcol, const char *col, const char *label,
		    double yscale, struct series *s);
double *rpt_per_second(const struct csv *c, const double *t, const double *col);
void rpt_app_drop_plot(FILE *f, const struct csv *c, const double *t, struct series *s);

#endif
