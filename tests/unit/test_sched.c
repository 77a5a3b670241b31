/* SPDX-License-Identifier: BSD-3-Clause
 * Unit tests of the scheduling policies on constructed states (no
 * pipeline, no EAL): static's Algorithm 1-3 branches line by line with
 * thresholds derived from a Jetson-like model, qlearn's state index,
 * reward and Q-table file (round trip, malformed files), the policies'
 * options and checks before the run (a Q-table read once), adaptive's
 * deadline guarantee on random states, its flow affinity and offload
 * plan, the power sampler on a fake powercap tree, and a profile with a
 * malformed power model.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hp_common.h"
#include "hp_model.h"
#include "hp_power.h"
#include "hp_sched_policy.h"
#include "hp_test.h"

/* ---- a Jetson-like platform: 2 CPU workers (0, 1) and a GPU (2) ---- */

#define HZ 1000000ull /* 1 cycle = 1 us */

struct lin { double fixed, per_pkt, per_byte; };
/* thesis Tables 4.2/4.4 lines (profiles/jetson-thesis.json), in us */
static const struct lin gpu_m[2] = { { 4248.8, 0, 0.02538 }, { 714.6, 0, 0.00488 } };
static const struct lin cpu_m[2] = { { 0, 3.9, 1.6853 }, { 0, 0.36, 0.02599 } };

static uint64_t
fake_predict(const struct hp_sched *s, unsigned int d, unsigned int task, uint32_t n,
	     uint32_t bytes)
{
	const struct lin *m = s->dev[d].role == HP_ROLE_ACCEL ? gpu_m : cpu_m;
	double us = 0;
	unsigned int k;

	for (k = 0; k < 2; k++)
		if (task == HP_MAX_TASKS || task == k)
			us += m[k].fixed + m[k].per_pkt * n + m[k].per_byte * bytes;
	return (uint64_t)us;
}

struct plat {
	struct hp_sched s;
	struct hp_sched_dev dev[3];
	uint32_t room[3];
	struct hp_sched_env env;
	struct hp_type_table types;
};

static void
plat_init(struct plat *p, bool task_gran)
{
	/* Table 4.1 with ran's frame sizes (tests/integration) */
	static const struct hp_type t[] = {
		{ 0, 330, true, true, 100000 }, { 0, 330, false, false, 0 },
		{ 331, 1100, false, false, 0 }, { 331, 1100, true, false, 0 },
		{ 1101, 65535, false, false, 0 },
	};
	unsigned int d;

	memset(p, 0, sizeof(*p));
	p->types.n = 5;
	memcpy(p->types.t, t, sizeof(t));
	p->env = (struct hp_sched_env){
		.task_gran = task_gran, .n_tasks = 2, .task_names = { "ldpc", "aes_ctr" },
		.types = &p->types, .n_dev = 3, .role = { HP_ROLE_CPU, HP_ROLE_CPU, HP_ROLE_ACCEL },
		.hz = HZ, .capacity_pps = 17500, .imix_mean_bytes = 843, .seed = 1,
	};
	for (d = 0; d < 3; d++) {
		p->dev[d] = (struct hp_sched_dev){
			.role = d < 2 ? HP_ROLE_CPU : HP_ROLE_ACCEL, .modeled = true,
			.max_batch = d < 2 ? 32 : 128, .min_batch = d < 2 ? 1 : 4,
			.queue_cap = 192,
		};
		p->room[d] = 64;
	}
	p->s.n_dev = 3;
	p->s.room = p->room;
	p->s.dev = p->dev;
	p->s.env = &p->env;
	p->s.predict = fake_predict;
	p->s.now = 1000000;
}

static struct hp_sched_pkt
pkt(uint32_t len, bool reorder, uint64_t budget_us, uint8_t step)
{
	struct hp_sched_pkt q = {
		.len = len, .step = step, .type = 1, .reorder = reorder,
		.flow_slot = HP_FLOW_UNTRACKED, .flow_id = 7, .t_rx = 1000000,
		.deadline = budget_us ? 1000000 + budget_us : 0,
	};

	return q;
}

/* ---- static ---- */

static void
test_static_derive(void **state)
{
	struct plat p;
	struct hp_static st;
	char err[256];

	(void)state;
	plat_init(&p, false);
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), 0);
	assert_int_equal(st.acc, 2);
	assert_int_equal(st.n_cpu, 2);
	/* the small class only: 330 B has ratio ~11.6, 1100 B ~26 > 1.5x */
	assert_int_equal(st.size_cpu, 330);
	/* a full CPU queue (192) of 330-byte chains: 192 x 565 us */
	assert_true(fabs((double)st.lat_cpu - 192 * (3.9 + 0.36 + 330 * (1.6853 + 0.02599))) < 200);
	/* LDPC is Algorithm 2's (CPU 26x behind, > 4 x 2 workers); AES is not */
	assert_true(st.heavy[0]);
	assert_false(st.heavy[1]);
	assert_true(st.rate_min < st.rate_med && st.rate_med < st.rate_max);
	assert_true(fabs(st.rate1 - 0.5 * st.g_all) < 1e-6);
	/* the accelerator's whole-chain capacity at 128-packet batches */
	assert_true(fabs(st.g_all - 128e6 / (4248.8 + 714.6 + 128 * 843 * (0.02538 + 0.00488))) < 20);
	/* util= from the parameters; bad values are refused */
	p.env.params[0] = "util=0.8";
	p.env.n_params = 1;
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), 0);
	assert_true(fabs(st.rate1 - 0.8 * st.g_all) < 1e-6);
	p.env.params[0] = "util=2";
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "util"));
	/* no accelerator: refused with a reason */
	p.env.n_params = 0;
	p.dev[2].role = HP_ROLE_CPU;
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "accelerator"));
	/* no model: refused, pointing at --profile */
	plat_init(&p, false);
	p.s.predict = NULL;
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--profile"));
}

static void
test_static_algorithm1(void **state)
{
	struct plat p;
	struct hp_static st;
	struct hp_sched_pkt q;
	enum hp_static_line line;
	char err[256];

	(void)state;
	plat_init(&p, false);
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), 0);
	p.s.rate_pps = st.rate1 * 1.1;
	/* line 1-2: small, no deadline, busy, no order: the least-queued CPU */
	p.dev[0].queued = 10;
	p.dev[1].queued = 3;
	q = pkt(300, false, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 1);
	assert_int_equal(line, HP_STATIC_A1_CPU);
	/* line 3-4: every other packet: large, ordered, tight, or quiet */
	q = pkt(1500, false, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A1_ACC);
	q = pkt(300, true, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A1_ACC);
	q = pkt(300, false, st.lat_cpu / 2, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A1_ACC);
	p.s.rate_pps = st.rate1 * 0.9;
	q = pkt(300, false, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A1_ACC);
	/* line 9-10: the accelerator full, order or tight deadline: retry */
	p.room[2] = 0;
	q = pkt(1500, true, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), -1);
	assert_int_equal(line, HP_STATIC_A1_RETRY);
	q = pkt(1500, false, st.lat_cpu / 2, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), -1);
	assert_int_equal(line, HP_STATIC_A1_RETRY);
	/* line 12: full, loose, no order: any device with room */
	q = pkt(1500, false, 0, 0);
	assert_true(hp_static_decide(&st, &p.s, &q, &line) < 2);
	assert_int_equal(line, HP_STATIC_A1_FALLBACK);
	/* line 2 with every CPU full: falls through to line 12 (GPU) */
	p.room[2] = 64;
	p.room[0] = p.room[1] = 0;
	p.s.rate_pps = st.rate1 * 1.1;
	q = pkt(300, false, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A1_FALLBACK);
	/* nothing has room */
	p.room[2] = 0;
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), -1);
	assert_int_equal(line, HP_STATIC_WAIT);
}

static void
test_static_algorithms2_3(void **state)
{
	struct plat p;
	struct hp_static st;
	struct hp_sched_pkt q;
	enum hp_static_line line;
	char err[256];

	(void)state;
	plat_init(&p, true);
	assert_int_equal(hp_static_derive(&st, &p.s, err, sizeof(err)), 0);
	/* Algorithm 2: LDPC always on the accelerator, or wait */
	p.s.rate_pps = st.rate_max * 2;
	q = pkt(300, false, 0, 0);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A2_ACC);
	p.room[2] = 0;
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), -1);
	p.room[2] = 64;
	/* Algorithm 3, line 1-2: above max, order: the flow's own CPU worker */
	q = pkt(1500, true, 0, 1);
	q.flow_id = 5;
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 1);
	assert_int_equal(line, HP_STATIC_A3_REORDER_CPU);
	q.flow_id = 4;
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 0);
	/* line 3-4: above medium, no order: a CPU, whatever the size */
	p.s.rate_pps = (st.rate_med + st.rate_max) / 2;
	q = pkt(1500, false, 0, 1);
	assert_true(hp_static_decide(&st, &p.s, &q, &line) < 2);
	assert_int_equal(line, HP_STATIC_A3_CPU_MED);
	/* ... with order: the accelerator (line 7-8) */
	q = pkt(1500, true, 0, 1);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A3_ACC);
	/* line 16-17: medium..max with order and the accelerator full: wait */
	p.room[2] = 0;
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), -1);
	assert_int_equal(line, HP_STATIC_A3_RETRY_ORDER);
	p.room[2] = 64;
	/* line 5-6: above min, no order, small: a CPU; large: accelerator */
	p.s.rate_pps = (st.rate_min + st.rate_med) / 2;
	q = pkt(300, false, 0, 1);
	assert_true(hp_static_decide(&st, &p.s, &q, &line) < 2);
	assert_int_equal(line, HP_STATIC_A3_CPU_MIN);
	q = pkt(1500, false, 0, 1);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A3_ACC);
	/* line 20: above min, the accelerator full, no order: fallback */
	p.room[2] = 0;
	assert_true(hp_static_decide(&st, &p.s, &q, &line) < 2);
	assert_int_equal(line, HP_STATIC_A3_FALLBACK);
	/* line 14-15: below min, the accelerator full: wait for it */
	p.s.rate_pps = st.rate_min / 2;
	q = pkt(300, false, 0, 1);
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), -1);
	assert_int_equal(line, HP_STATIC_A3_RETRY_LOW);
	p.room[2] = 64;
	assert_int_equal(hp_static_decide(&st, &p.s, &q, &line), 2);
	assert_int_equal(line, HP_STATIC_A3_ACC);
}

/* ---- qlearn ---- */

static void
test_qlearn_state_reward(void **state)
{
	struct plat p;
	struct hp_qtable t;
	struct hp_qstat q = { 0 };
	struct hp_qlearn ql;

	(void)state;
	plat_init(&p, false);
	assert_int_equal(hp_qtable_alloc(&t, false, 3, 6, 2, "cca"), 0);
	assert_int_equal(t.n_states, 5 * 8 * 6);
	assert_int_equal(t.n_actions, 2);
	/* eq. 4.1 with 2^devices ring states: ((I x 8) + RS) x 6 + PT */
	assert_int_equal(hp_q_state(&t, 0, 0, 0), 0);
	assert_int_equal(hp_q_state(&t, 2, 5, 3), ((2 * 8) + 5) * 6 + 3);
	assert_int_equal(hp_q_state(&t, 4, 7, 5), t.n_states - 1);
	assert_int_equal(hp_q_state(&t, 9, 0xff, 9), ((4 * 8) + 7) * 6 + 0); /* clamped */
	/* rate levels: quarters of the capacity, the last one open */
	assert_int_equal(hp_q_rate_level(0, 1000), 0);
	assert_int_equal(hp_q_rate_level(249, 1000), 0);
	assert_int_equal(hp_q_rate_level(250, 1000), 1);
	assert_int_equal(hp_q_rate_level(999, 1000), 3);
	assert_int_equal(hp_q_rate_level(5000, 1000), 4);
	assert_int_equal(hp_q_rate_level(500, 0), 0);
	/* ring bits: queues more than half full (Source Code 4.3) */
	p.dev[0].queued = 97;
	p.dev[1].queued = 96;
	p.dev[2].queued = 150;
	assert_int_equal(hp_q_ring_bits(&p.s), 1 | 4);
	/* eq. 4.2 */
	assert_true(isnan(hp_q_reward(&q)));
	q = (struct hp_qstat){ .n = 4, .lat_s = 0.04, .tput = 4e8, .dl_n = 0 };
	assert_true(fabs(hp_q_reward(&q) - 1e8 / 0.01) < 1);
	q.dl_n = 4;
	q.dl_met = 3;
	assert_true(fabs(hp_q_reward(&q) - 0.75 * 1e8 / 0.01) < 1);
	/* the greedy choice, unvisited pairs and the default */
	memset(&ql, 0, sizeof(ql));
	ql.t = t;
	ql.best_default[0] = 1;
	assert_int_equal(hp_q_best_role(&ql, 10, 0), 1); /* both unknown */
	t.q[10 * 2 + 0] = 5;
	assert_int_equal(hp_q_best_role(&ql, 10, 0), 0); /* only cpu known */
	t.q[10 * 2 + 1] = 7;
	assert_int_equal(hp_q_best_role(&ql, 10, 0), 1);
	t.q[10 * 2 + 0] = 9;
	assert_int_equal(hp_q_best_role(&ql, 10, 0), 0);
	hp_qtable_free(&t);
	/* task granularity: 2 actions per task step */
	assert_int_equal(hp_qtable_alloc(&t, true, 3, 6, 2, "cca"), 0);
	assert_int_equal(t.n_actions, 4);
	assert_int_equal(hp_q_action(&t, 1, 0), 2);
	assert_int_equal(hp_q_action(&t, 1, 1), 3);
	hp_qtable_free(&t);
	/* more ring bits than the table can index: refused */
	assert_int_equal(hp_qtable_alloc(&t, false, HP_Q_MAX_DEV_BITS + 1, 6, 2, "c"), -EINVAL);
}

static void
test_qlearn_training(void **state)
{
	struct hp_qlearn ql;
	unsigned int i;

	(void)state;
	memset(&ql, 0, sizeof(ql));
	assert_int_equal(hp_qtable_alloc(&ql.t, false, 3, 6, 2, "cca"), 0);
	ql.st = calloc((size_t)ql.t.n_states * ql.t.n_actions, sizeof(*ql.st));
	assert_non_null(ql.st);
	ql.min_visits = 4;
	/* entry = state x 2 + action (0 cpu, 1 accelerator).
	 * state 0: the accelerator's latency is lower: it wins (R 100 vs 10) */
	ql.st[0] = (struct hp_qstat){ .n = 10, .lat_s = 1.0, .tput = 10 };
	ql.st[1] = (struct hp_qstat){ .n = 10, .lat_s = 0.1, .tput = 10 };
	/* state 1: the CPU is faster but met 1 of 10 deadlines: 10 < 20 */
	ql.st[2] = (struct hp_qstat){ .n = 10, .lat_s = 0.1, .tput = 10, .dl_n = 10, .dl_met = 1 };
	ql.st[3] = (struct hp_qstat){ .n = 10, .lat_s = 0.5, .tput = 10 };
	/* state 2: too few visits to count */
	ql.st[4] = (struct hp_qstat){ .n = 3, .lat_s = 0.01, .tput = 10 };
	/* state 3: the CPU wins */
	ql.st[6] = (struct hp_qstat){ .n = 10, .lat_s = 0.1, .tput = 10 };
	ql.st[7] = (struct hp_qstat){ .n = 10, .lat_s = 1.0, .tput = 10 };
	hp_q_finish_training(&ql);
	assert_true(fabs(ql.t.q[1] - 100) < 1e-9 && fabs(ql.t.q[2] - 10) < 1e-9);
	assert_int_equal(hp_q_best_role(&ql, 0, 0), 1);
	assert_int_equal(hp_q_best_role(&ql, 1, 0), 1);
	assert_int_equal(hp_q_best_role(&ql, 3, 0), 0);
	assert_true(isnan(ql.t.q[4]) && isnan(ql.t.q[5]));
	assert_int_equal(ql.t.visits[4], 3);
	/* unseen states take the role that won most seen ones (2 of 3) */
	assert_int_equal(ql.best_default[0], 1);
	assert_int_equal(hp_q_best_role(&ql, 2, 0), 1);
	assert_int_equal(hp_q_best_role(&ql, 100, 0), 1);
	for (i = 0; i < HP_MAX_TASKS; i++)
		assert_int_equal(ql.best_default[i], 1);
	free(ql.st);
	hp_qtable_free(&ql.t);
}

/* Makes the temporary file named by the template path ("..XXXXXX.json"). */
static void
tmp_file(char *path)
{
	int fd = mkstemps(path, 5);

	assert_true(fd >= 0);
	close(fd);
}

static void
test_qtable_file(void **state)
{
	char path[] = "/tmp/hp_qt_XXXXXX.json", err[512];
	struct hp_qtable t, u;
	size_t i, n;

	(void)state;
	tmp_file(path);
	assert_int_equal(hp_qtable_alloc(&t, true, 3, 6, 2, "cca"), 0);
	n = (size_t)t.n_states * t.n_actions;
	for (i = 0; i < n; i += 7) {
		t.q[i] = (double)i * 1.5e9 + 0.125;
		t.visits[i] = (uint32_t)i + 1;
	}
	assert_int_equal(hp_qtable_save(&t, path, err, sizeof(err)), 0);
	assert_int_equal(hp_qtable_load(&u, path, err, sizeof(err)), 0);
	assert_true(u.task_gran);
	assert_int_equal(u.n_dev, 3);
	assert_int_equal(u.n_types, 6);
	assert_int_equal(u.n_actions, 4);
	assert_string_equal(u.roles, "cca");
	for (i = 0; i < n; i++) {
		if (isnan(t.q[i]))
			assert_true(isnan(u.q[i]));
		else
			assert_true(fabs(u.q[i] - t.q[i]) <= fabs(t.q[i]) * 1e-12);
		assert_int_equal(u.visits[i], t.visits[i]);
	}
	hp_qtable_free(&u);
	hp_qtable_free(&t);
	{
		static const struct { const char *json; const char *msg; } bad[] = {
			{ "{ not json", "line" },
			{ "{\"format\": \"other\"}", "format" },
			{ "{\"format\": \"heteroplane-qtable-1\", \"granularity\": \"x\"}", "granularity" },
			{ "{\"format\": \"heteroplane-qtable-1\", \"granularity\": \"chain\", \"roles\": \"ca\", \"devices\": -1}", "devices" },
			{ "{\"format\": \"heteroplane-qtable-1\", \"granularity\": \"chain\", \"roles\": \"cx\", \"devices\": 2, \"packet_types\": 6, \"tasks\": 1, \"actions\": 2, \"rate_levels\": 5, \"states\": 120}", "roles" },
			{ "{\"format\": \"heteroplane-qtable-1\", \"granularity\": \"chain\", \"roles\": \"ca\", \"devices\": 2, \"packet_types\": 6, \"tasks\": 1, \"actions\": 2, \"rate_levels\": 5, \"states\": 99}", "do not add up" },
			{ "{\"format\": \"heteroplane-qtable-1\", \"granularity\": \"chain\", \"roles\": \"ca\", \"devices\": 2, \"packet_types\": 6, \"tasks\": 1, \"actions\": 2, \"rate_levels\": 5, \"states\": 120, \"q\": [1], \"visits\": [1]}", "arrays of 240" },
		};

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			hp_test_write_file(path, bad[i].json);
			err[0] = '\0';
			assert_int_equal(hp_qtable_load(&u, path, err, sizeof(err)), -EINVAL);
			if (strstr(err, bad[i].msg) == NULL)
				fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
			assert_null(strchr(err, '\n'));
		}
	}
	assert_int_equal(hp_qtable_load(&u, "/nonexistent/q.json", err, sizeof(err)), -EINVAL);
	unlink(path);
}

/* ---- options and checks before the run (hp_sched_check) ---- */

static int
check(struct plat *p, const char *name, char *err, size_t errlen)
{
	const struct hp_sched_ops *ops = hp_sched_find(name);

	assert_non_null(ops);
	err[0] = '\0';
	return hp_sched_check(ops, &p->env, err, errlen);
}

/* Policy name checks the one option kv: ret, with msg in the reason. */
static void
check_one(struct plat *p, const char *name, const char *kv, int ret, const char *msg)
{
	char err[256];

	p->env.params[0] = kv;
	p->env.n_params = 1;
	assert_int_equal(check(p, name, err, sizeof(err)), ret);
	if (strstr(err, msg) == NULL)
		fail_msg("%s %s: '%s' lacks '%s'", name, kv, err, msg);
	assert_null(strchr(err, '\n'));
}

static void
test_sched_options(void **state)
{
	const struct hp_sched_ops *pin = hp_sched_find("pin");
	struct plat p;
	char err[256];

	(void)state;
	plat_init(&p, false);
	/* a key is matched whole (the check below refuses a repeated one) */
	p.env.params[0] = "dev=0";
	p.env.params[1] = "device=1";
	p.env.params[2] = "dev=1";
	p.env.n_params = 3;
	assert_string_equal(hp_sched_param(&p.env, "dev"), "1");
	assert_null(hp_sched_param(&p.env, "de"));
	assert_null(hp_sched_param(&p.env, "util"));
	/* keys the policy does not read, or no KEY=VALUE, are refused */
	assert_int_equal(check(&p, "pin", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown option 'device=1' (it reads dev)"));
	check_one(&p, "rr", "dev=0", -EINVAL, "it takes none");
	check_one(&p, "static", "=1", -EINVAL, "KEY=VALUE");
	/* a key given twice: one value meant, the other silently lost */
	p.env.params[0] = "dev=0";
	p.env.params[1] = "dev=1";
	p.env.n_params = 2;
	assert_int_equal(check(&p, "pin", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "option 'dev=1': dev given twice"));
	/* values are the policy's own: checked before the run ... */
	check_one(&p, "static", "util=0", -EINVAL, "util=0: expected 0 < util <= 1");
	check_one(&p, "pin", "dev=3", -EINVAL, "expected a device index 0..2");
	check_one(&p, "pin", "dev=1", 0, "");
	assert_null(p.env.conf);
	/* ... and read by init, with its reason in err */
	assert_int_equal(pin->init(&p.s, err, sizeof(err)), 0);
	assert_int_equal(p.s.cursor, 1);
	p.env.n_params = 0;
	assert_int_equal(pin->init(&p.s, err, sizeof(err)), 0);
	assert_int_equal(p.s.cursor, 2);   /* the accelerator */
	p.env.params[0] = "dev=x";
	p.env.n_params = 1;
	assert_int_equal(pin->init(&p.s, err, sizeof(err)), -EINVAL);
	assert_null(strchr(err, '\n'));
}

static void
test_qlearn_check(void **state)
{
	const struct hp_sched_ops *ops = hp_sched_find("qlearn");
	char path[] = "/tmp/hp_qc_XXXXXX.json", err[512];
	struct hp_qlearn *ql;
	struct hp_qtable t;
	struct plat p;

	(void)state;
	plat_init(&p, false);
	assert_int_equal(check(&p, "qlearn", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "needs --qtable FILE"));
	p.env.params[0] = "train=1";
	p.env.n_params = 1;
	assert_int_equal(check(&p, "qlearn", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "train needs --qtable FILE"));
	p.env.params[0] = "train=yes";
	assert_int_equal(check(&p, "qlearn", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "train=yes"));
	/* a table trained for this platform: read by check, handed to init */
	tmp_file(path);
	assert_int_equal(hp_qtable_alloc(&t, false, 3, 6, 2, "cca"), 0);
	t.q[0] = 1;
	t.visits[0] = 9;
	assert_int_equal(hp_qtable_save(&t, path, err, sizeof(err)), 0);
	hp_qtable_free(&t);
	p.env.params[0] = "qtable=/nonexistent/q.json";
	p.env.n_params = 1;
	assert_int_equal(check(&p, "qlearn", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Q-table /nonexistent/q.json"));
	assert_null(p.env.conf);
	p.env.params[0] = "train=0";
	p.env.n_params = 2;
	{
		char kv[64];

		snprintf(kv, sizeof(kv), "qtable=%s", path);
		p.env.params[1] = kv;
		assert_int_equal(check(&p, "qlearn", err, sizeof(err)), 0);
		assert_non_null(p.env.conf);
		/* the file is not read again */
		unlink(path);
		assert_int_equal(ops->init(&p.s, err, sizeof(err)), 0);
		ql = p.s.priv;
		assert_int_equal(ql->t.n_dev, 3);
		assert_true(ql->t.q[0] == 1 && ql->t.visits[0] == 9);
		assert_null(ql->st);
		ops->fini(&p.s);
		hp_sched_conf_free(ops, p.env.conf);
		/* a table for another granularity or device set: one line */
		assert_int_equal(hp_qtable_alloc(&t, true, 3, 6, 2, "cca"), 0);
		assert_int_equal(hp_qtable_save(&t, path, err, sizeof(err)), 0);
		hp_qtable_free(&t);
		assert_int_equal(check(&p, "qlearn", err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "trained for granularity task, devices cca"));
		assert_null(strchr(err, '\n'));
		p.env.role[1] = HP_ROLE_ACCEL;
		p.env.task_gran = true;
		assert_int_equal(check(&p, "qlearn", err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "this run has task, caa"));
		unlink(path);
		/* training: nothing to read; init sizes the table for the run */
		plat_init(&p, true);
		p.env.params[0] = "train=1";
		p.env.params[1] = kv;
		p.env.n_params = 2;
		assert_int_equal(check(&p, "qlearn", err, sizeof(err)), 0);
		assert_int_equal(ops->init(&p.s, err, sizeof(err)), 0);
		ql = p.s.priv;
		assert_true(ql->t.task_gran && ql->t.n_actions == 4 && ql->st != NULL);
		ops->fini(&p.s);
		hp_sched_conf_free(ops, p.env.conf);
	}
	/* init without its check says so */
	p.env.conf = NULL;
	assert_int_equal(ops->init(&p.s, err, sizeof(err)), -EINVAL);
}

static void
test_sched_profile(void **state)
{
	char path[] = "/tmp/hp_sp_XXXXXX.json", err[512];
	struct hp_sched_profile sp;

	(void)state;
	tmp_file(path);
	/* one section: the other role has none */
	hp_test_write_file(path, "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"tasks\": {\"x\": [{\"batch\": 8, \"fixed_us\": 1, \"per_pkt_us\": 0, \"per_byte_ns\": 1}]}}}}");
	assert_int_equal(hp_sched_profile_load(&sp, path, err, sizeof(err)), 0);
	assert_null(sp.role[HP_ROLE_CPU]);
	assert_non_null(sp.role[HP_ROLE_ACCEL]);
	assert_int_equal(sp.role[HP_ROLE_ACCEL]->max_batch, 8);
	hp_sched_profile_free(&sp);
	/* none, or malformed: one line */
	hp_test_write_file(path, "{\"devices\": {\"fpga\": {}}}");
	assert_int_equal(hp_sched_profile_load(&sp, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "neither a cpu nor a gpu"));
	hp_test_write_file(path, "{\"devices\": {\"cpu\": {\"max_batch\": 0}}}");
	assert_int_equal(hp_sched_profile_load(&sp, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "max_batch"));
	assert_null(sp.role[0]);
	assert_null(sp.role[1]);
	unlink(path);
}

/* ---- adaptive ---- */

static uint64_t rng = 88172645463325252ull;

static double
urand(void)
{
	return hp_rand_unit(&rng);
}

static void
test_adaptive_deadline(void **state)
{
	struct plat p;
	struct hp_adaptive a;
	char err[256];
	unsigned int it, d, met_any = 0, picked_met = 0;

	(void)state;
	plat_init(&p, false);
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	/* a constructed case: the GPU backed up, a CPU free: the CPU */
	a.backlog[2] = 0.9 * a.horizon[2];
	{
		struct hp_sched_pkt q = pkt(300, false, 20000, 0);

		assert_true(hp_adaptive_decide(&a, &p.s, &q) < 2);
	}
	/* random states: whenever some open device meets the deadline, the
	 * one picked does too (predicted, as the policy sees it) */
	for (it = 0; it < 20000; it++) {
		struct hp_sched_pkt q = pkt(100 + (uint32_t)(urand() * 1400), urand() < 0.3,
					    (uint64_t)(urand() * 60000), 0);
		double t_best = INFINITY, t_pick;
		int got;

		hp_adaptive_free(&a);
		assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
		if (q.deadline == q.t_rx)
			q.deadline = 0;
		for (d = 0; d < 3; d++) {
			a.backlog[d] = urand() * 1.2 * a.horizon[d];
			a.kappa[d] = 0.5 + urand() * 2;
			p.room[d] = urand() < 0.15 ? 0 : 64;
			p.dev[d].failed = urand() < 0.05;
		}
		a.sat = urand() < 0.5;
		for (d = 0; d < 3; d++) {
			bool open = !p.dev[d].failed && p.room[d] > 0 &&
				a.backlog[d] < (q.deadline ? 1.5 : 1.0) * a.horizon[d];
			double t = hp_adaptive_completion(&a, &p.s, d, &q);

			if (open && q.deadline && t <= (double)q.deadline && t < t_best)
				t_best = t;
		}
		got = hp_adaptive_decide(&a, &p.s, &q);
		if (!q.deadline || isinf(t_best))
			continue;
		met_any++;
		/* a device that meets exists: adaptive must pick one that
		 * meets (skipping would let the deadline slip) */
		assert_true(got >= 0 && got < 3);
		/* the packet was accounted on it: undo for the prediction */
		a.backlog[got] -= hp_sched_cost_am(&a.cost, (unsigned int)got, 2, q.len);
		t_pick = hp_adaptive_completion(&a, &p.s, (unsigned int)got, &q);
		assert_true(t_pick <= (double)q.deadline + 1e-6);
		picked_met++;
	}
	assert_true(met_any > 1000);
	assert_int_equal(picked_met, met_any);
	hp_adaptive_free(&a);
}

static void
test_adaptive_affinity_and_plan(void **state)
{
	struct plat p;
	struct hp_adaptive a;
	struct hp_sched_pkt q;
	char err[256];
	int d1, d2;

	(void)state;
	plat_init(&p, true);
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	/* an order-needing flow stays where it has packets in flight */
	q = pkt(300, true, 0, 1);
	q.flow_slot = 9;
	d1 = hp_adaptive_decide(&a, &p.s, &q);
	assert_true(d1 >= 0);
	a.backlog[d1] = 0.99 * a.horizon[d1]; /* it looks worse now */
	d2 = hp_adaptive_decide(&a, &p.s, &q);
	assert_int_equal(d2, d1);
	/* its device full: the packet waits (and so does the rest of its
	 * flow in this pass), it does not go elsewhere */
	p.room[d1] = 0;
	p.s.round = 5;
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), HP_SCHED_SKIP);
	p.room[d1] = 64;
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), HP_SCHED_SKIP);
	p.s.round = 6;
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), d1);
	/* once nothing is in flight the flow may move */
	hp_adaptive_done(&a, &p.s, &q, (unsigned int)d1, 1);
	hp_adaptive_done(&a, &p.s, &q, (unsigned int)d1, 1);
	hp_adaptive_done(&a, &p.s, &q, (unsigned int)d1, 1);
	assert_int_equal(a.flows[9 * HP_MAX_TASKS + 1].inflight, 0);
	/* the plan: a GPU short of time fills the CPUs' time with the
	 * classes they are least behind on: AES (task 1) of every size before
	 * small LDPC units, and never large LDPC units */
	hp_adaptive_free(&a);
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	{
		unsigned int small = hp_adaptive_bucket(&a, 300), large = hp_adaptive_bucket(&a, 1500);
		double dt = 1.0;

		assert_true(small < large);
		/* 20k packets/s: 40 % small, 40 % large, through both tasks */
		a.cls[0][small] = (struct hp_aclass){ .n = 8000, .n_free = 8000, .len = 300 };
		a.cls[0][large] = (struct hp_aclass){ .n = 8000, .n_free = 8000, .len = 1500 };
		a.cls[1][small] = (struct hp_aclass){ .n = 8000, .n_free = 8000, .len = 300 };
		a.cls[1][large] = (struct hp_aclass){ .n = 8000, .n_free = 8000, .len = 1500 };
		for (int i = 0; i < 30; i++) { /* let the rate averages settle */
			a.cls[0][small].n = a.cls[0][small].n_free = 8000;
			a.cls[0][large].n = a.cls[0][large].n_free = 8000;
			a.cls[1][small].n = a.cls[1][small].n_free = 8000;
			a.cls[1][large].n = a.cls[1][large].n_free = 8000;
			hp_adaptive_plan(&a, &p.s, dt);
		}
		assert_true(a.sat);
		assert_true(a.demand > 1.0);
		assert_true(a.cls[1][small].x == 1.0 && a.cls[1][large].x == 1.0);
		assert_true(a.cls[0][small].x > 0 && a.cls[0][small].x < 1.0);
		assert_true(a.cls[0][large].x == 0);
		/* a light load: no plan */
		for (int i = 0; i < 30; i++) {
			a.cls[0][small].n = a.cls[0][small].n_free = 100;
			a.cls[0][large].n = a.cls[0][large].n_free = 100;
			a.cls[1][small].n = a.cls[1][small].n_free = 100;
			a.cls[1][large].n = a.cls[1][large].n_free = 100;
			hp_adaptive_plan(&a, &p.s, dt);
		}
		assert_false(a.sat);
		assert_true(a.cls[1][small].x == 0);
	}
	hp_adaptive_free(&a);
}

/* Full accelerator batches, heavy order-needing flows, and a flow whose
 * device is beyond its horizon. */
static void
test_adaptive_batches_and_flows(void **state)
{
	struct plat p;
	struct hp_adaptive a;
	struct hp_sched_pkt q;
	struct hp_aflow *f;
	char err[256];

	(void)state;
	plat_init(&p, false);
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	/* the accelerator past its horizon in work (its packets cost more
	 * than the IMIX mean) but its third batch not full: it still takes
	 * packets, so that batch leaves full; the CPUs are past theirs */
	a.backlog[0] = 1.1 * a.horizon[0];
	a.backlog[1] = 1.1 * a.horizon[1];
	a.backlog[2] = 1.2 * a.horizon[2];
	p.dev[2].queued = 300;
	q = pkt(1500, false, 0, 0);
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), 2);
	p.dev[2].queued = 3 * 128; /* three full batches: wait */
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), HP_SCHED_SKIP);
	hp_adaptive_free(&a);

	/* idle devices: a light order-needing flow's small packet finishes
	 * first on a CPU worker; a heavy one (a packet every 100 us, more
	 * than half a CPU worker at ~565 us each) starts on the accelerator */
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	q = pkt(300, true, 0, 0);
	q.flow_slot = 3;
	f = &a.flows[3 * HP_MAX_TASKS];
	f->t_last = 1;
	f->gap = (double)HZ / 10;
	assert_true(hp_adaptive_decide(&a, &p.s, &q) < 2);
	hp_adaptive_free(&a);
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	f = &a.flows[3 * HP_MAX_TASKS];
	f->t_last = 1;
	f->gap = (double)HZ / 10000;
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), 2);
	/* ... and the placements teach it: a flow placed every 100 us turns
	 * heavy by itself */
	hp_adaptive_free(&a);
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	f = &a.flows[3 * HP_MAX_TASKS];
	for (int i = 0; i < 100; i++) { /* EWMA 1/8: (7/8)^100 of 1 s left */
		int d = hp_adaptive_decide(&a, &p.s, &q);

		assert_true(d >= 0);
		hp_adaptive_done(&a, &p.s, &q, (unsigned int)d, HP_MAX_TASKS);
		a.backlog[0] = a.backlog[1] = a.backlog[2] = 0;
		p.s.now += HZ / 10000;
	}
	assert_true(f->gap < (double)HZ / 5000);
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), 2);
	hp_adaptive_free(&a);

	/* a light flow on CPU worker 0, which is now past its horizon: the
	 * packet waits (its flow's packets there drain, then it may move) */
	assert_int_equal(hp_adaptive_setup(&a, &p.s, 1024, err, sizeof(err)), 0);
	f = &a.flows[3 * HP_MAX_TASKS];
	f->t_last = 1;
	f->gap = (double)HZ / 10;
	f->dev = 0;
	f->inflight = 1;
	a.backlog[0] = 1.2 * a.horizon[0];
	p.s.round = 1;
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), HP_SCHED_SKIP);
	a.backlog[0] = 0.5 * a.horizon[0];
	p.s.round = 2;
	assert_int_equal(hp_adaptive_decide(&a, &p.s, &q), 0);
	hp_adaptive_free(&a);
}

/* ---- power ---- */

static void
mkfile(const char *dir, const char *name, const char *val)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	hp_test_write_file(p, val);
}

static void
test_power(void **state)
{
	char root[] = "/tmp/hp_pc_XXXXXX", z0[600], z00[600], z01[600];
	struct hp_power pw;
	struct hp_power_report rep;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(z0, sizeof(z0), "%s/intel-rapl:0", root);
	snprintf(z00, sizeof(z00), "%s/intel-rapl:0:0", root);
	snprintf(z01, sizeof(z01), "%s/intel-rapl:0:1", root);
	mkdir(z0, 0755);
	mkdir(z00, 0755);
	mkdir(z01, 0755);
	mkfile(z0, "name", "package-0\n");
	mkfile(z0, "energy_uj", "1000000\n");
	mkfile(z0, "max_energy_range_uj", "2000000\n");
	mkfile(z00, "name", "core\n");     /* inside the package: left out */
	mkfile(z00, "energy_uj", "5\n");
	mkfile(z01, "name", "dram\n");
	mkfile(z01, "energy_uj", "0\n");
	mkfile(z01, "max_energy_range_uj", "1000000000\n");
	setenv("HP_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	hp_power_open(&pw, root);
	assert_int_equal(pw.n, 2);
	assert_int_equal(hp_power_add_modeled(&pw, "gpu (modeled)", 1.0, 3.0), 0);
	hp_power_start(&pw, 10.0);
	/* 2 s later: the package wrapped (1.0 J -> 2.0 J range -> 0.5 J:
	 * 1.5 J used), DRAM used 4 J; the modeled GPU was half busy */
	mkfile(z0, "energy_uj", "500000\n");
	mkfile(z01, "energy_uj", "4000000\n");
	pw.src[2].util = 0.5;
	hp_power_sample(&pw, 12.0);
	assert_true(fabs(pw.src[0].watts - 0.75) < 1e-9);
	assert_true(fabs(pw.src[1].watts - 2.0) < 1e-9);
	assert_true(fabs(pw.src[2].watts - 2.0) < 1e-9);
	hp_power_report(&pw, 2.0, &rep);
	assert_true(rep.measured_any);
	assert_string_equal(rep.name[0], "rapl:package-0");
	assert_string_equal(rep.name[1], "rapl:dram-0");
	assert_true(rep.modeled[2] && !rep.modeled[0]);
	assert_true(fabs(rep.joules[2] - 4.0) < 1e-9 && fabs(rep.mean_w[0] - 0.75) < 1e-9);
	hp_power_close(&pw);
	/* nothing measurable: "unavailable" with the reasons */
	hp_power_open(&pw, "/nonexistent/powercap");
	assert_int_equal(pw.n, 0);
	hp_power_start(&pw, 0);
	hp_power_sample(&pw, 1);
	hp_power_report(&pw, 1.0, &rep);
	assert_false(rep.measured_any);
	assert_non_null(strstr(rep.unavailable, "unavailable"));
	assert_non_null(strstr(rep.unavailable, "RAPL"));
	assert_non_null(strstr(rep.unavailable, "NVML"));
	hp_power_close(&pw);
	unsetenv("HP_NVML_LIB");
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		assert_int_equal(system(cmd), 0);
	}
}

static void
test_profile_power_malformed(void **state)
{
	char path[] = "/tmp/hp_pw_XXXXXX.json", err[512];
	struct hp_model m;

	(void)state;
	tmp_file(path);
	hp_test_write_file(path, "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"power\": {\"idle_w\": -1, \"busy_w\": 2}, \"tasks\": {\"x\": [{\"batch\": 8, \"fixed_us\": 1, \"per_pkt_us\": 0, \"per_byte_ns\": 1}]}}}}");
	assert_int_equal(hp_model_load(&m, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "power.idle_w"));
	hp_test_write_file(path, "{\"devices\": {\"gpu\": {\"max_batch\": 8, \"power\": {\"idle_w\": 1, \"busy_w\": 2}, \"tasks\": {\"x\": [{\"batch\": 8, \"fixed_us\": 1, \"per_pkt_us\": 0, \"per_byte_ns\": 1}]}}}}");
	assert_int_equal(hp_model_load(&m, path, err, sizeof(err)), 0);
	assert_true(m.power_idle_w == 1 && m.power_busy_w == 2);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_derive),
		cmocka_unit_test(test_static_algorithm1),
		cmocka_unit_test(test_static_algorithms2_3),
		cmocka_unit_test(test_qlearn_state_reward),
		cmocka_unit_test(test_qlearn_training),
		cmocka_unit_test(test_qtable_file),
		cmocka_unit_test(test_sched_options),
		cmocka_unit_test(test_qlearn_check),
		cmocka_unit_test(test_sched_profile),
		cmocka_unit_test(test_adaptive_deadline),
		cmocka_unit_test(test_adaptive_affinity_and_plan),
		cmocka_unit_test(test_adaptive_batches_and_flows),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_profile_power_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
