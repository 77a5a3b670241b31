/* SPDX-License-Identifier: BSD-3-Clause
 * Goals over configurations (Pythia VI-C): each is an ops table that
 * scores a configuration at the offered load; hp_goal_pick keeps the best
 * one. A user's goal is the same ops table exported from a shared object
 * as hp_goal_ops_v1 (loading it is the live half, not built yet).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_plan.h"

#define HP_GOALS_MAX 16
#define SERVES(ev) ((ev)->delivered_pps >= (ev)->offered_pps * 0.999)

/* the most delivered, whatever it costs */
static double
max_tput(const struct hp_plan_eval *ev, double param)
{
	(void)param;
	return -ev->delivered_pps;
}

/* of those that carry the whole offered load, the least latency */
static double
min_latency(const struct hp_plan_eval *ev, double param)
{
	(void)param;
	return SERVES(ev) ? ev->lat_ms : NAN;
}

/* of those that carry the whole offered load, the least power: at the
 * same delivered traffic that is the least energy per bit */
static double
min_energy(const struct hp_plan_eval *ev, double param)
{
	(void)param;
	return SERVES(ev) ? ev->power_w : NAN;
}

/* the least power, whatever it delivers: the paper's "lowest power
 * consumption" policy (Fig. 5(c)/(d) at 15 s), which sheds traffic
 * where min-energy would keep a device on to carry it */
static double
min_power(const struct hp_plan_eval *ev, double param)
{
	(void)param;
	return ev->power_w;
}

/* the least power that delivers the target (or all that is offered, when
 * less is): param is the target in Gbit/s */
static double
target_rate(const struct hp_plan_eval *ev, double param)
{
	double want = ev->offered_pps;
	double gbps_off = ev->delivered_pps > 0 ?
		ev->delivered_gbps / ev->delivered_pps * ev->offered_pps : 0;

	if (gbps_off > param && ev->offered_pps > 0)
		want = ev->offered_pps * param / gbps_off;
	return ev->delivered_pps >= want * 0.999 ? ev->power_w : NAN;
}

static int
parse_rate(const char *arg, double *param, char *err, size_t errlen)
{
	char *end, q[48];
	double v = strtod(arg, &end);

	if (end == arg || !(v > 0) || isinf(v) ||
	    (*end != '\0' && strcmp(end, "g") != 0 && strcmp(end, "G") != 0 &&
	     strcmp(end, "gbps") != 0)) {
		snprintf(err, errlen, "target-rate:%s: expected a rate in Gbit/s > 0 (e.g. target-rate:10)",
			 hp_quote(q, sizeof(q), arg, 30));
		return -EINVAL;
	}
	*param = v;
	return 0;
}

static const struct hp_goal_ops builtin[] = {
	{ .name = "max-throughput", .desc = "the most delivered traffic", .score = max_tput },
	{ .name = "min-latency", .desc = "the least latency that carries the offered load",
	  .score = min_latency },
	{ .name = "min-energy", .desc = "the least power that carries the offered load",
	  .score = min_energy },
	{ .name = "min-power", .desc = "the least power, whatever it delivers (sheds traffic)",
	  .score = min_power },
	{ .name = "target-rate", .desc = "the least power that delivers RATE Gbit/s",
	  .takes_arg = true, .parse = parse_rate, .score = target_rate },
};

static const struct hp_goal_ops *added[HP_GOALS_MAX];
static unsigned int n_added;

const struct hp_goal_ops *
hp_goal_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (strcmp(builtin[i].name, name) == 0)
			return &builtin[i];
	for (i = 0; i < n_added; i++)
		if (strcmp(added[i]->name, name) == 0)
			return added[i];
	return NULL;
}

int
hp_goal_register(const struct hp_goal_ops *ops)
{
	if (ops == NULL || ops->name == NULL || ops->score == NULL ||
	    (ops->takes_arg && ops->parse == NULL))
		return -EINVAL;
	if (hp_goal_find(ops->name) != NULL)
		return -EEXIST;
	if (n_added == HP_GOALS_MAX)
		return -ENOSPC;
	added[n_added++] = ops;
	return 0;
}

int
hp_goal_parse(struct hp_goal *g, const char *text, char *err, size_t errlen)
{
	char name[64], q[80];
	const char *colon = strchr(text, ':');
	size_t nl = colon ? (size_t)(colon - text) : strlen(text);

	memset(g, 0, sizeof(*g));
	if (nl < sizeof(name)) {
		memcpy(name, text, nl);
		name[nl] = '\0';
		g->ops = hp_goal_find(name);
	}
	if (g->ops == NULL) {
		snprintf(err, errlen, "unknown goal %s (max-throughput, min-latency, min-energy, target-rate:GBPS)",
			 hp_quote(q, sizeof(q), text, 60));
		return -EINVAL;
	}
	if (g->ops->takes_arg != (colon != NULL)) {
		snprintf(err, errlen, "goal %s %s", g->ops->name,
			 g->ops->takes_arg ? "needs an argument (NAME:ARG)" : "takes no argument");
		g->ops = NULL;
		return -EINVAL;
	}
	if (colon != NULL && g->ops->parse(colon + 1, &g->param, err, errlen) < 0) {
		g->ops = NULL;
		return -EINVAL;
	}
	return 0;
}

/* Whether (s, ev) beats (bs, best): the score, then power, then latency;
 * a configuration that cannot serve the goal only beats another that
 * cannot, on delivered traffic. */
static bool
better(double s, const struct hp_plan_eval *ev, double bs, const struct hp_plan_eval *best)
{
	if (isnan(s) != isnan(bs))
		return isnan(bs);
	if (isnan(s)) {
		if (ev->delivered_pps != best->delivered_pps)
			return ev->delivered_pps > best->delivered_pps;
	} else if (s != bs) {
		return s < bs;
	}
	if (ev->power_w != best->power_w)
		return ev->power_w < best->power_w;
	return ev->lat_ms < best->lat_ms;
}

int
hp_goal_pick(const struct hp_plan *pl, const struct hp_goal *g, const double *offered_pps,
	     struct hp_plan_eval *out)
{
	struct hp_plan_eval ev;
	double bs = NAN;
	int best = -1;
	unsigned int i;

	if (pl->n_cfg == 0 || g->ops == NULL)
		return -ENOENT;
	for (i = 0; i < pl->n_cfg; i++) {
		double s;

		hp_plan_eval_at(pl, i, offered_pps, &ev);
		s = g->ops->score(&ev, g->param);
		if (best < 0 || better(s, &ev, bs, out)) {
			best = (int)i;
			bs = s;
			*out = ev;
		}
	}
	return best;
}
