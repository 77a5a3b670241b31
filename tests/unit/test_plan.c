/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of lib/plan: the pythia-8700k platform's models (alone rates,
 * measured and estimated interference), every configuration and its JSON
 * round trip, a configuration at a load, and the goals: what each picks
 * is checked against every configuration by brute force; a user's goal
 * through the same ops table; bad platforms and goals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hp_model.h"
#include "hp_plan.h"
#include "hp_test.h"

static const char *const apps[] = { "ids", "vpn" };
static const char *const tasks[] = { "dpi", "aes_cbc" };
static const uint32_t batches[] = { 1024, 4096, 16384 };

static void
load(struct hp_platform *pf)
{
	char err[256] = "";

	setenv("HP_PROFILE_DIR", HP_TEST_PROFILE_DIR, 1);
	assert_int_equal(hp_platform_load(pf, "pythia-8700k", err, sizeof(err)), 0);
}

static void
test_platform(void **state)
{
	struct hp_platform pf;
	const char *pair[2] = { "dpi", "md5" };
	const char *four[4] = { "dpi", "md5", "md5", "md5" };
	const char *mix[3] = { "dpi", "md5", "aes_cbc" };
	double pps[4], alone;
	int d;

	(void)state;
	load(&pf);
	assert_int_equal(pf.n_dev, 3);
	assert_string_equal(pf.dev_name[2], "dgpu");
	assert_int_equal(pf.dev[0].cls, HP_MODEL_CLASS_CPU);
	assert_int_equal(pf.dev[2].cls, HP_MODEL_CLASS_DGPU);
	assert_true(pf.dev[2].pcie && !pf.dev[1].pcie);
	assert_true(hp_model_copies_back(&pf.dev[2], "aes_cbc"));
	assert_false(hp_model_copies_back(&pf.dev[2], "dpi"));
	assert_true(pf.dev[2].power_off_w == 0 && pf.dev[2].power_busy_w == 250);
	assert_true(fabs(pf.link_pps - 2.353e6) < 1);
	d = 2;	/* Table I, GTX 1080 Ti, DPI with 1 MD5 at 1024: 1.099 Mpps, 14.6 % */
	assert_int_equal(hp_plan_device_rates(&pf, d, pair, 2, 1024, pps), 0);
	assert_true(fabs(pps[0] - 1.099e6) / 1.099e6 < 0.01);
	alone = hp_model_rate_pps(&pf.dev[d], "dpi", 1024);
	assert_true(fabs(1 - pps[0] / alone - 0.146) < 1e-9);
	/* with 3 MD5: 0.588 Mpps, the co-workers' from the aggregated column */
	assert_int_equal(hp_plan_device_rates(&pf, d, four, 4, 1024, pps), 0);
	assert_true(fabs(pps[0] - 0.588e6) / 0.588e6 < 0.01);
	assert_true(fabs(pps[0] + pps[1] + pps[2] + pps[3] - 2.351e6) / 2.351e6 < 0.03);
	/* a mix the tables never ran is estimated: each slowed, none stopped */
	assert_int_equal(hp_plan_device_rates(&pf, d, mix, 3, 4096, pps), 0);
	for (d = 0; d < 3; d++)
		assert_true(pps[d] > 0 && pps[d] < hp_model_rate_pps(&pf.dev[2], mix[d], 4096));
	/* a batch between rows takes the row that holds it; past 16K, 16K's */
	assert_true(hp_model_rate_pps(&pf.dev[0], "md5", 2048) ==
		    hp_model_rate_pps(&pf.dev[0], "md5", 4096));
	assert_true(hp_model_rate_pps(&pf.dev[0], "md5", 65536) ==
		    hp_model_rate_pps(&pf.dev[0], "md5", 16384));
	assert_int_equal(hp_plan_device_rates(&pf, 0, (const char *[]){ "ldpc" }, 1, 1024, pps),
			 -EINVAL);
	hp_platform_free(&pf);
}

static void
test_build_roundtrip(void **state)
{
	struct hp_platform pf;
	struct hp_plan pl, back;
	struct hp_plan_eval a, b;
	double off[2] = { 0.4e6, 0.7e6 };
	char err[256] = "", path[] = "/tmp/hp_plan_XXXXXX", label[128];
	unsigned int i;
	int fd;

	(void)state;
	load(&pf);
	assert_int_equal(hp_plan_build(&pl, &pf, apps, tasks, 2, batches, 3, 2.0, err, sizeof(err)),
			 0);
	assert_int_equal(pl.n_cfg, 7 * 7 * 3);	/* non-empty device sets per app x batches */
	hp_plan_cfg_label(&pl, &pl.cfg[0], label, sizeof(label));
	assert_string_equal(label, "ids=cpu,vpn=cpu@1024");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(hp_plan_write(&pl, &pf, path, err, sizeof(err)), 0);
	assert_int_equal(hp_plan_load(&back, path, err, sizeof(err)), 0);
	assert_int_equal(back.n_cfg, pl.n_cfg);
	for (i = 0; i < pl.n_cfg; i += 17) {
		hp_plan_eval_at(&pl, i, off, &a);
		hp_plan_eval_at(&back, i, off, &b);
		assert_true(fabs(a.delivered_pps - b.delivered_pps) < 1e-3 * a.delivered_pps + 1);
		assert_true(fabs(a.power_w - b.power_w) < 1e-6);
		assert_true(fabs(a.lat_ms - b.lat_ms) < 1e-6 * a.lat_ms + 1e-9);
	}
	/* a configuration at a load: delivered no more than offered or its
	 * capacity, an unused discrete GPU is off, a split app counts both */
	for (i = 0; i < pl.n_cfg; i++) {
		hp_plan_eval_at(&pl, i, off, &a);
		assert_true(a.delivered_pps <= a.offered_pps + 1);
		assert_true(a.delivered_pps <= pl.cfg[i].cap_pps + 1);
		if (!((pl.cfg[i].devmask[0] | pl.cfg[i].devmask[1]) & 4))
			assert_true(a.power_w <= 80 + 15 + 1e-9);
	}
	unlink(path);
	hp_plan_free(&back);
	/* a file that is not one */
	assert_int_equal(hp_plan_load(&back, HP_TEST_PROFILE_DIR "/pythia-8700k.json", err,
				      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "heteroplane-configs-1"));
	hp_plan_free(&back);
	hp_plan_free(&pl);
	hp_platform_free(&pf);
}

/* Brute force: no configuration beats the pick on the goal's own terms. */
static void
check_goal(const struct hp_plan *pl, const char *goal, const double *off)
{
	struct hp_goal g;
	struct hp_plan_eval best, ev, mt;
	struct hp_goal gm;
	char err[256] = "";
	unsigned int i;
	int k;

	assert_int_equal(hp_goal_parse(&g, goal, err, sizeof(err)), 0);
	assert_int_equal(hp_goal_parse(&gm, "max-throughput", err, sizeof(err)), 0);
	k = hp_goal_pick(pl, &g, off, &best);
	assert_true(k >= 0);
	hp_goal_pick(pl, &gm, off, &mt);
	for (i = 0; i < pl->n_cfg; i++) {
		bool serves;

		hp_plan_eval_at(pl, i, off, &ev);
		serves = ev.delivered_pps >= ev.offered_pps * 0.999;
		if (!strcmp(goal, "max-throughput"))
			assert_true(ev.delivered_pps <= best.delivered_pps + 1e-6);
		else if (!strcmp(goal, "min-latency") && serves)
			assert_true(best.lat_ms <= ev.lat_ms + 1e-9);
		else if (!strcmp(goal, "min-energy") && serves)
			assert_true(best.power_w <= ev.power_w + 1e-9);
	}
	if (!strcmp(goal, "min-energy") || !strncmp(goal, "target-rate", 11))
		assert_true(best.power_w <= mt.power_w + 1e-9);
}

/* min-latency's model counts the queue: on one device, a batch's latency
 * rises toward saturation (M/D/1's wait outgrows the shorter fill), so
 * the goal keeps away from a configuration that just carries the load. */
static void
test_latency_queueing(void **state)
{
	struct hp_platform pf;
	struct hp_plan pl;
	struct hp_plan_eval half, near, ev;
	struct hp_goal g;
	char err[256] = "";
	double off[1], cap;
	unsigned int i, one = 0;
	int k;

	(void)state;
	load(&pf);
	assert_int_equal(hp_plan_build(&pl, &pf, &apps[1], &tasks[1], 1, batches, 1, 0, err,
				       sizeof(err)), 0);
	for (i = 0; i < pl.n_cfg; i++)	/* the discrete GPU alone */
		if (pl.cfg[i].devmask[0] == 4)
			one = i;
	assert_int_equal(pl.cfg[one].devmask[0], 4);
	cap = pl.cfg[one].pps[0][2];
	off[0] = 0.5 * cap;
	hp_plan_eval_at(&pl, one, off, &half);
	off[0] = 0.97 * cap;
	hp_plan_eval_at(&pl, one, off, &near);
	assert_true(near.delivered_pps >= near.offered_pps * 0.999);
	assert_true(near.lat_ms > half.lat_ms);
	/* at 97 % of the GTX the goal picks a configuration with more room */
	assert_int_equal(hp_goal_parse(&g, "min-latency", err, sizeof(err)), 0);
	k = hp_goal_pick(&pl, &g, off, &ev);
	assert_true(k >= 0 && (unsigned int)k != one);
	assert_true(ev.lat_ms < near.lat_ms);
	hp_plan_free(&pl);
	hp_platform_free(&pf);
}

static void
test_goals(void **state)
{
	struct hp_platform pf;
	struct hp_plan pl;
	struct hp_plan_eval ev;
	struct hp_goal g;
	double light[2], heavy[2];
	char err[256] = "";
	int k;

	(void)state;
	load(&pf);
	assert_int_equal(hp_plan_build(&pl, &pf, apps, tasks, 2, batches, 3, 1.0, err, sizeof(err)),
			 0);
	light[0] = light[1] = 4.0 / pl.gbps_per_mpps * 1e6;    /* 4 Gbit/s each */
	heavy[0] = heavy[1] = 14.0 / pl.gbps_per_mpps * 1e6;   /* 28: past the link */
	check_goal(&pl, "max-throughput", light);
	check_goal(&pl, "min-latency", light);
	check_goal(&pl, "min-energy", light);
	check_goal(&pl, "target-rate:5", light);
	check_goal(&pl, "max-throughput", heavy);
	check_goal(&pl, "min-energy", heavy);
	/* light: one device suffices and the discrete GPU stays off (Fig. 5a) */
	assert_int_equal(hp_goal_parse(&g, "min-energy", err, sizeof(err)), 0);
	k = hp_goal_pick(&pl, &g, light, &ev);
	assert_false((pl.cfg[k].devmask[0] | pl.cfg[k].devmask[1]) & 4);
	assert_true(ev.delivered_pps >= ev.offered_pps * 0.999);
	/* target-rate holds its rate within 5 % with less power than max */
	assert_int_equal(hp_goal_parse(&g, "target-rate:5", err, sizeof(err)), 0);
	k = hp_goal_pick(&pl, &g, light, &ev);
	assert_true(k >= 0 && ev.delivered_gbps >= 5 * 0.95);
	/* bad goals: one line each */
	assert_int_equal(hp_goal_parse(&g, "fastest", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown goal"));
	assert_int_equal(hp_goal_parse(&g, "target-rate", err, sizeof(err)), -EINVAL);
	assert_int_equal(hp_goal_parse(&g, "target-rate:-3", err, sizeof(err)), -EINVAL);
	assert_int_equal(hp_goal_parse(&g, "target-rate:10x", err, sizeof(err)), -EINVAL);
	assert_int_equal(hp_goal_parse(&g, "min-energy:1", err, sizeof(err)), -EINVAL);
	assert_null(strchr(err, '\n'));
	assert_int_equal(hp_goal_parse(&g, "target-rate:10g", err, sizeof(err)), 0);
	assert_true(g.param == 10);
	hp_plan_free(&pl);
	hp_platform_free(&pf);
}

/* A user's goal: the fewest devices, then what the pick's ties say. */
static double
fewest(const struct hp_plan_eval *ev, double param)
{
	unsigned int d, n = 0;

	(void)param;
	for (d = 0; d < HP_PLAN_MAX_DEV; d++)
		n += ev->dev_util[d] > 0;
	return ev->delivered_pps >= ev->offered_pps * 0.999 ? n : NAN;
}

static const struct hp_goal_ops user_goal = {
	.name = "fewest-devices", .desc = "test", .score = fewest,
};

static void
test_user_goal(void **state)
{
	struct hp_platform pf;
	struct hp_plan pl;
	struct hp_plan_eval ev;
	struct hp_goal g;
	double off[2] = { 0.2e6, 0.2e6 };
	char err[256] = "";
	int k;

	(void)state;
	assert_int_equal(hp_goal_parse(&g, "fewest-devices", err, sizeof(err)), -EINVAL);
	assert_int_equal(hp_goal_register(&user_goal), 0);
	assert_int_equal(hp_goal_register(&user_goal), -EEXIST);
	assert_int_equal(hp_goal_parse(&g, "fewest-devices", err, sizeof(err)), 0);
	load(&pf);
	assert_int_equal(hp_plan_build(&pl, &pf, apps, tasks, 2, batches, 3, 1.0, err, sizeof(err)),
			 0);
	k = hp_goal_pick(&pl, &g, off, &ev);
	assert_true(k >= 0);
	assert_int_equal(__builtin_popcount(pl.cfg[k].devmask[0] | pl.cfg[k].devmask[1]), 1);
	hp_plan_free(&pl);
	hp_platform_free(&pf);
}

static void
test_bad_platforms(void **state)
{
	struct hp_platform pf;
	struct hp_plan pl;
	char err[256] = "";
	const char *twice[2] = { "ids", "ids" };

	(void)state;
	setenv("HP_PROFILE_DIR", HP_TEST_PROFILE_DIR, 1);
	assert_int_equal(hp_platform_load(&pf, "no-such-machine", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no such profile"));
	/* a profile of one device is not a platform */
	assert_int_equal(hp_platform_load(&pf, "jetson-thesis", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"platform\""));
	hp_test_write_file("/tmp/hp_plan_bad.json", "{\"platform\": {\"devices\": [\"a\", \"a\"]}, \"devices\": {}}");
	assert_int_equal(hp_platform_load(&pf, "/tmp/hp_plan_bad.json", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "named twice"));
	hp_test_write_file("/tmp/hp_plan_bad.json", "{\"platform\": {\"devices\": [\"a\"]}, \"devices\": {}}");
	assert_int_equal(hp_platform_load(&pf, "/tmp/hp_plan_bad.json", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no device"));
	hp_test_write_file("/tmp/hp_plan_bad.json",
		   "{\"platform\": {\"devices\": [\"g\"]}, \"devices\": {\"g\": {\"max_batch\": 8, "
		   "\"tasks\": {\"dpi\": [{\"batch\": 8, \"fixed_us\": 1, \"per_pkt_us\": 0, "
		   "\"per_byte_ns\": 0}]}, \"interference\": [{\"task\": \"dpi\", \"co\": \"dpi\", "
		   "\"batch\": 8, \"k\": 1, \"slowdown\": 1.5, \"co_slowdown\": 0}]}}}");
	assert_int_equal(hp_platform_load(&pf, "/tmp/hp_plan_bad.json", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "slow-downs below 1"));
	assert_null(strchr(err, '\n'));
	hp_test_write_file("/tmp/hp_plan_bad.json",
		   "{\"platform\": {\"devices\": [\"g\"]}, \"devices\": {\"g\": {\"max_batch\": 8, "
		   "\"class\": \"tpu\", \"tasks\": {\"dpi\": [{\"batch\": 8, \"fixed_us\": 1, "
		   "\"per_pkt_us\": 0, \"per_byte_ns\": 0}]}}}}");
	assert_int_equal(hp_platform_load(&pf, "/tmp/hp_plan_bad.json", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "class: expected cpu, igpu or dgpu"));
	hp_test_write_file("/tmp/hp_plan_bad.json",
		   "{\"platform\": {\"devices\": [\"g\"]}, \"devices\": {\"g\": {\"max_batch\": 8, "
		   "\"pcie\": {\"gbps\": 0}, \"tasks\": {\"dpi\": [{\"batch\": 8, \"fixed_us\": 1, "
		   "\"per_pkt_us\": 0, \"per_byte_ns\": 0}]}}}}");
	assert_int_equal(hp_platform_load(&pf, "/tmp/hp_plan_bad.json", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pcie.gbps: expected a number > 0"));
	hp_test_write_file("/tmp/hp_plan_bad.json",
		   "{\"platform\": {\"devices\": [\"g\"], \"link_mpps\": -1}, \"devices\": {}}");
	assert_int_equal(hp_platform_load(&pf, "/tmp/hp_plan_bad.json", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "link_mpps"));
	unlink("/tmp/hp_plan_bad.json");
	load(&pf);
	assert_int_equal(hp_plan_build(&pl, &pf, twice, tasks, 2, batches, 3, 1.0, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "named twice"));
	assert_int_equal(hp_plan_build(&pl, &pf, apps, (const char *[]){ "dpi", "ldpc" }, 2, batches,
				       3, 1.0, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no model of task ldpc"));
	hp_platform_free(&pf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_platform),
		cmocka_unit_test(test_build_roundtrip),
		cmocka_unit_test(test_goals),
		cmocka_unit_test(test_latency_queueing),
		cmocka_unit_test(test_user_goal),
		cmocka_unit_test(test_bad_platforms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
