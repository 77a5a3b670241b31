/* SPDX-License-Identifier: BSD-3-Clause
 * The report's series: trace.csv's columns picked by name (a suffix, a
 * prefix, the app:NAME columns) as plot series, counts turned into rates,
 * and the per-app drop plot. Private to apps/hplane/report*.c.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_priv.h"

/* Up to MAX_SERIES columns of c whose names end in suffix (prefix 0) or
 * start with it (prefix 1), labelled by the rest of the name. */
unsigned int
rpt_series_match(const struct csv *c, const char *fix, bool prefix, double yscale,
		 struct series *s, unsigned int ns)
{
	const double *t = rpt_csv_get(c, "t_s");
	unsigned int i;
	size_t fl = strlen(fix);

	for (i = 0; i < c->ncol && ns < MAX_SERIES; i++) {
		const char *n = c->name[i];

		if (prefix ? strncmp(n, fix, fl) != 0 || n[fl] == '\0' : !rpt_ends_with(n, fix))
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

/* --apps: the app:NAME<suffix> columns (up to max), labelled NAME. */
unsigned int
rpt_series_apps(const struct csv *c, const char *suffix, struct series *s, unsigned int max)
{
	const double *t = rpt_csv_get(c, "t_s");
	unsigned int i, ns = 0;

	for (i = 0; i < c->ncol && ns < max; i++) {
		const char *n = c->name[i];

		if (strncmp(n, "app:", 4) != 0 || !rpt_ends_with(n, suffix) ||
		    strlen(n) <= 4 + strlen(suffix))
			continue;
		snprintf(s[ns].label, sizeof(s[ns].label), "%.*s",
			 (int)(strlen(n) - 4 - strlen(suffix)), n + 4);
		s[ns].x = t;
		s[ns].y = c->col[i];
		s[ns].n = c->nrow;
		s[ns].xscale = 1;
		s[ns].yscale = 1;
		ns++;
	}
	return ns;
}

/* A named column as a series over t_s; false when the column is absent. */
bool
rpt_series_col(const struct csv *c, const char *xcol, const char *col, const char *label,
	       double yscale, struct series *s)
{
	const double *x = rpt_csv_get(c, xcol), *y = rpt_csv_get(c, col);

	if (x == NULL || y == NULL)
		return false;
	memset(s, 0, sizeof(*s));
	/* a long column name is cut to the legend's width */
	snprintf(s->label, sizeof(s->label), "%.*s", (int)sizeof(s->label) - 1, label);
	s->x = x;
	s->y = y;
	s->n = c->nrow;
	s->yscale = yscale;
	return true;
}

/* A count column (each row its own interval's) as a rate: malloc'd, NULL
 * when out of memory. */
double *
rpt_per_second(const struct csv *c, const double *t, const double *col)
{
	double *y = malloc(c->nrow * sizeof(*y));
	unsigned int i;

	for (i = 0; y != NULL && i < c->nrow; i++) {
		double dt = t[i] - (i ? t[i - 1] : 0);

		y[i] = dt > 0 ? col[i] / dt : NAN;
	}
	return y;
}

/* --apps: which app lost packets and where, each app's port and
 * admission drops a second (plotted only where the columns are). */
void
rpt_app_drop_plot(FILE *f, const struct csv *c, const double *t, struct series *s)
{
	double *y[MAX_SERIES];
	unsigned int n, np, i;

	np = rpt_series_apps(c, "_dropped_port", s, MAX_SERIES);
	n = np + rpt_series_apps(c, "_dropped_admission", s + np, MAX_SERIES - np);
	for (i = 0; i < n; i++) {
		size_t l = strlen(s[i].label);

		snprintf(s[i].label + l, sizeof(s[i].label) - l, "%s",
			 i < np ? " at the port" : " by admission");
		y[i] = rpt_per_second(c, t, s[i].y);
		s[i].y = y[i];
		if (y[i] == NULL)
			n = i; /* out of memory: the ones before */
	}
	if (n > 0)
		rpt_plot_lines(f, "Dropped per app", "time (s)", "packets/s", s, n, Y_ZERO, NULL);
	for (i = 0; i < n; i++)
		free(y[i]);
}
