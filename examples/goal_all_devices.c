/* SPDX-License-Identifier: BSD-3-Clause
 * A goal that keeps one configuration: `--goal-lib FILE.so --goal
 * all-devices` with `--sched-param devices=A+B` picks the configuration
 * that uses every allowed device, at any load, so the monitor never
 * switches after its start. bench/pythia/goals.py uses it as the fixed "igpu+dgpu"
 * configuration the goals are compared with (a single device is fixed by
 * devices=A alone: one configuration is left). Built by meson as
 * build/examples/goal_all_devices.so.
 */
#include "hp_plan.h"

static double
all_devices(const struct hp_plan_eval *ev, double param)
{
	unsigned int d, n = 0;

	(void)param;
	for (d = 0; d < HP_PLAN_MAX_DEV; d++)
		n += ev->dev_util[d] > 0;
	/* most devices at work first; at an idle port no device is at work
	 * in any configuration and the pick's ties go to less power, so a run
	 * starts on the cheapest and switches once, at the first evaluations */
	return -(double)n;
}

const struct hp_goal_ops hp_goal_ops_v1 = {
	.name = "all-devices",
	.desc = "the configuration with every allowed device at work (fixed-configuration baseline)",
	.score = all_devices,
};
