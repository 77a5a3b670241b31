/* SPDX-License-Identifier: BSD-3-Clause
 * An example of a user's goal for `hplane run --goal-lib FILE.so --goal
 * fewest-devices` (docs/scheduling.md): of the configurations that carry
 * the offered load, the one with the fewest devices at work; the pick's
 * ties then go to less power, then less latency. A goal library exports
 * one struct hp_goal_ops named hp_goal_ops_v1 (HP_GOAL_OPS_SYMBOL in
 * lib/plan/hp_plan.h); hplane dlopens it and registers the goal.
 * Built by meson as build/examples/goal_fewest_devices.so.
 */
#include <math.h>

#include "hp_plan.h"

static double
fewest_devices(const struct hp_plan_eval *ev, double param)
{
	unsigned int d, n = 0;

	(void)param;
	for (d = 0; d < HP_PLAN_MAX_DEV; d++)
		n += ev->dev_util[d] > 0;
	/* NAN: it cannot carry the load (the pick then takes the most delivered) */
	return ev->delivered_pps >= ev->offered_pps * 0.999 ? (double)n : NAN;
}

const struct hp_goal_ops hp_goal_ops_v1 = {
	.name = "fewest-devices",
	.desc = "the fewest devices that carry the offered load (example goal library)",
	.score = fewest_devices,
};
