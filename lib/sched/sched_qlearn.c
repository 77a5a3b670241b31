/* SPDX-License-Identifier: BSD-3-Clause
 * qlearn: the thesis's reinforcement-learning scheduler (Johansson & Pap
 * §4.10), table based, trained with random actions:
 *   state   eq. 4.1: input-rate level (5 quarters of the capacity, the last
 *           open), ring status (a bit per device whose queue is more than
 *           half full, Source Code 4.3) and packet type:
 *           S = ((I x 2^devices) + RS) x types + PT
 *   action  chain: CPU or accelerator (A = 0..1); task: the same per task
 *           step (A = 2 x step + role, 4 actions for ran)
 *   reward  eq. 4.2 per state-action: R = met / latency-sensitive x
 *           throughput / latency, with latency and the throughput at
 *           completion measured per decision (the processing step) and
 *           the deadline decided when the packet leaves (the overall step)
 *   train   `hplane train`: random actions over the run (the `random`
 *           scenario by default), then Q = R for every pair seen at least
 *           min_visits times, written as JSON (format heteroplane-qtable-1)
 *   infer   the action with the highest Q for the state; a state never
 *           seen takes the role that won most states; the chosen device
 *           full means wait (the thesis's learner never switches)
 * A CPU action goes to the least-queued CPU worker with room.
 * Decision cost: a state index (a loop over the devices) and two loads.
 * Options: qtable=FILE, the table to read (checked against the run before
 * it starts, read that once) or, with train=1 (`hplane train`), to write.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hp_common.h"
#include "hp_sched_policy.h"

#define TAG_BITS 16
#define TAG_MASK 0xffffu

int
hp_qtable_alloc(struct hp_qtable *t, bool task_gran, unsigned int n_dev,
		unsigned int n_types, unsigned int n_tasks, const char *roles)
{
	size_t n, i;

	memset(t, 0, sizeof(*t));
	if (n_dev == 0 || n_dev > HP_Q_MAX_DEV_BITS || n_types == 0 || n_tasks == 0 ||
	    n_tasks > HP_MAX_TASKS)
		return -EINVAL;
	t->task_gran = task_gran;
	t->n_dev = n_dev;
	t->n_types = n_types;
	t->n_tasks = n_tasks;
	t->n_actions = task_gran ? 2 * n_tasks : 2;
	t->n_states = HP_Q_RATE_LEVELS * (1u << n_dev) * n_types;
	snprintf(t->roles, sizeof(t->roles), "%s", roles);
	n = (size_t)t->n_states * t->n_actions;
	t->q = malloc(n * sizeof(*t->q));
	t->visits = calloc(n, sizeof(*t->visits));
	if (t->q == NULL || t->visits == NULL) {
		hp_qtable_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		t->q[i] = NAN;
	return 0;
}

void
hp_qtable_free(struct hp_qtable *t)
{
	free(t->q);
	free(t->visits);
	t->q = NULL;
	t->visits = NULL;
}

unsigned int
hp_q_rate_level(double rate_pps, double cap_pps)
{
	double x;

	if (!(cap_pps > 0) || !(rate_pps > 0))
		return 0;
	x = rate_pps / cap_pps * 4;
	return x >= HP_Q_RATE_LEVELS - 1 ? HP_Q_RATE_LEVELS - 1 : (unsigned int)x;
}

unsigned int
hp_q_ring_bits(const struct hp_sched *s)
{
	unsigned int d, bits = 0;

	for (d = 0; d < s->n_dev && d < HP_Q_MAX_DEV_BITS; d++)
		if (2 * (uint64_t)s->dev[d].queued > s->dev[d].queue_cap)
			bits |= 1u << d;
	return bits;
}

unsigned int
hp_q_state(const struct hp_qtable *t, unsigned int rate_level, unsigned int ring_bits,
	   unsigned int ptype)
{
	if (rate_level >= HP_Q_RATE_LEVELS)
		rate_level = HP_Q_RATE_LEVELS - 1;
	ring_bits &= (1u << t->n_dev) - 1;
	if (ptype >= t->n_types)
		ptype = 0;
	return ((rate_level << t->n_dev) + ring_bits) * t->n_types + ptype;
}

double
hp_q_reward(const struct hp_qstat *q)
{
	double frac, tput, lat;

	if (q->n == 0)
		return NAN;
	frac = q->dl_n ? (double)q->dl_met / (double)q->dl_n : 1.0;
	tput = q->tput / (double)q->n;
	lat = q->lat_s / (double)q->n;
	return lat > 0 ? frac * tput / lat : 0;
}

unsigned int
hp_q_best_role(const struct hp_qlearn *ql, unsigned int state, unsigned int step)
{
	const struct hp_qtable *t = &ql->t;
	double q0 = t->q[(size_t)state * t->n_actions + hp_q_action(t, step, 0)];
	double q1 = t->q[(size_t)state * t->n_actions + hp_q_action(t, step, 1)];

	if (isnan(q0) && isnan(q1))
		return (unsigned int)ql->best_default[step];
	if (isnan(q0))
		return 1;
	if (isnan(q1))
		return 0;
	return q1 >= q0 ? 1 : 0;
}

/* The role that wins most states where both were tried (accelerator on a
 * tie or when nothing is known): what a never-seen state does. */
static void
q_defaults(struct hp_qlearn *ql)
{
	const struct hp_qtable *t = &ql->t;
	unsigned int st, k;

	for (k = 0; k < t->n_tasks; k++) {
		unsigned int win[2] = { 0, 0 };

		for (st = 0; st < t->n_states; st++) {
			double q0 = t->q[(size_t)st * t->n_actions + hp_q_action(t, k, 0)];
			double q1 = t->q[(size_t)st * t->n_actions + hp_q_action(t, k, 1)];

			if (!isnan(q0) && !isnan(q1))
				win[q1 >= q0 ? 1 : 0]++;
			else if (!isnan(q0) || !isnan(q1))
				win[isnan(q0) ? 1 : 0]++;
		}
		ql->best_default[k] = win[0] > win[1] ? 0 : 1;
		if (!t->task_gran)
			break;
	}
	if (!t->task_gran)
		for (k = 1; k < HP_MAX_TASKS; k++)
			ql->best_default[k] = ql->best_default[0];
}

void
hp_q_finish_training(struct hp_qlearn *ql)
{
	struct hp_qtable *t = &ql->t;
	size_t i, n = (size_t)t->n_states * t->n_actions;

	for (i = 0; i < n; i++) {
		t->visits[i] = ql->st[i].n > UINT32_MAX ? UINT32_MAX : (uint32_t)ql->st[i].n;
		t->q[i] = ql->st[i].n >= ql->min_visits ? hp_q_reward(&ql->st[i]) : NAN;
	}
	q_defaults(ql);
}

/* ---- file format ---- */

int
hp_qtable_save(const struct hp_qtable *t, const char *path, char *err, size_t errlen)
{
	json_t *root = json_object(), *q = json_array(), *v = json_array();
	size_t i, n = (size_t)t->n_states * t->n_actions;
	int ret = 0;

	if (root == NULL || q == NULL || v == NULL) {
		json_decref(root);
		json_decref(q);
		json_decref(v);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		json_array_append_new(q, isnan(t->q[i]) ? json_null() : json_real(t->q[i]));
		json_array_append_new(v, json_integer(t->visits[i]));
	}
	json_object_set_new(root, "format", json_string(HP_Q_FORMAT));
	json_object_set_new(root, "granularity", json_string(t->task_gran ? "task" : "chain"));
	json_object_set_new(root, "devices", json_integer(t->n_dev));
	json_object_set_new(root, "roles", json_string(t->roles));
	json_object_set_new(root, "rate_levels", json_integer(HP_Q_RATE_LEVELS));
	json_object_set_new(root, "packet_types", json_integer(t->n_types));
	json_object_set_new(root, "tasks", json_integer(t->n_tasks));
	json_object_set_new(root, "actions", json_integer(t->n_actions));
	json_object_set_new(root, "states", json_integer(t->n_states));
	json_object_set_new(root, "q", q);
	json_object_set_new(root, "visits", v);
	if (json_dump_file(root, path, JSON_COMPACT) != 0) {
		snprintf(err, errlen, "cannot write Q-table %s: %s", path, strerror(errno));
		ret = -EIO;
	}
	json_decref(root);
	return ret;
}

static int
get_uint(json_t *root, const char *key, unsigned int max, unsigned int *v,
	 const char *path, char *err, size_t errlen)
{
	json_t *x = json_object_get(root, key);

	if (!json_is_integer(x) || json_integer_value(x) < 0 ||
	    json_integer_value(x) > (json_int_t)max) {
		snprintf(err, errlen, "Q-table %s: \"%s\": expected an integer 0..%u", path, key, max);
		return -EINVAL;
	}
	*v = (unsigned int)json_integer_value(x);
	return 0;
}

int
hp_qtable_load(struct hp_qtable *t, const char *path, char *err, size_t errlen)
{
	unsigned int n_dev, n_types, n_tasks, n_actions, levels, states;
	json_t *root, *x, *q, *v;
	json_error_t je;
	const char *gran, *roles;
	char qpath[160], qtext[100];
	size_t i, n;
	int ret = -EINVAL;

	memset(t, 0, sizeof(*t));
	/* the path and the parser's excerpt are echoed quoted: one line */
	hp_quote(qpath, sizeof(qpath), path, 120);
	root = json_load_file(path, 0, &je);
	if (root == NULL) {
		snprintf(err, errlen, "Q-table %s: %s (line %d)", qpath,
			 hp_quote(qtext, sizeof(qtext), je.text, 80), je.line);
		return -EINVAL;
	}
	x = json_object_get(root, "format");
	if (!json_is_string(x) || strcmp(json_string_value(x), HP_Q_FORMAT) != 0) {
		snprintf(err, errlen, "Q-table %s: \"format\" is not \"%s\"", qpath, HP_Q_FORMAT);
		goto out;
	}
	x = json_object_get(root, "granularity");
	gran = json_is_string(x) ? json_string_value(x) : "";
	if (strcmp(gran, "chain") != 0 && strcmp(gran, "task") != 0) {
		snprintf(err, errlen, "Q-table %s: \"granularity\": expected \"chain\" or \"task\"", qpath);
		goto out;
	}
	x = json_object_get(root, "roles");
	roles = json_is_string(x) ? json_string_value(x) : "";
	if (get_uint(root, "devices", HP_Q_MAX_DEV_BITS, &n_dev, qpath, err, errlen) < 0 ||
	    get_uint(root, "packet_types", HP_MAX_TYPES + 1, &n_types, qpath, err, errlen) < 0 ||
	    get_uint(root, "tasks", HP_MAX_TASKS, &n_tasks, qpath, err, errlen) < 0 ||
	    get_uint(root, "actions", 2 * HP_MAX_TASKS, &n_actions, qpath, err, errlen) < 0 ||
	    get_uint(root, "rate_levels", 64, &levels, qpath, err, errlen) < 0 ||
	    get_uint(root, "states", 1u << 30, &states, qpath, err, errlen) < 0)
		goto out;
	if (strlen(roles) != n_dev || strspn(roles, "ca") != n_dev) {
		snprintf(err, errlen, "Q-table %s: \"roles\": expected one 'c' or 'a' per device", qpath);
		goto out;
	}
	if (hp_qtable_alloc(t, gran[0] == 't', n_dev, n_types, n_tasks, roles) < 0) {
		snprintf(err, errlen, "Q-table %s: bad dimensions", qpath);
		goto out;
	}
	if (levels != HP_Q_RATE_LEVELS || states != t->n_states || n_actions != t->n_actions) {
		snprintf(err, errlen, "Q-table %s: dimensions do not add up (%u states x %u actions, expected %u x %u with %u rate levels)",
			 qpath, states, n_actions, t->n_states, t->n_actions, HP_Q_RATE_LEVELS);
		goto out;
	}
	q = json_object_get(root, "q");
	v = json_object_get(root, "visits");
	n = (size_t)t->n_states * t->n_actions;
	if (!json_is_array(q) || json_array_size(q) != n || !json_is_array(v) ||
	    json_array_size(v) != n) {
		snprintf(err, errlen, "Q-table %s: \"q\" and \"visits\" must be arrays of %zu entries",
			 qpath, n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		json_t *qi = json_array_get(q, i), *vi = json_array_get(v, i);

		if (!(json_is_null(qi) || json_is_number(qi)) || !json_is_integer(vi) ||
		    json_integer_value(vi) < 0 || json_integer_value(vi) > UINT32_MAX) {
			snprintf(err, errlen, "Q-table %s: entry %zu: expected a number or null, and a visit count",
				 qpath, i);
			goto out;
		}
		t->q[i] = json_is_null(qi) ? NAN : json_number_value(qi);
		t->visits[i] = (uint32_t)json_integer_value(vi);
	}
	ret = 0;
out:
	if (ret < 0)
		hp_qtable_free(t);
	json_decref(root);
	return ret;
}

/* ---- ops ---- */

static int
role_device(const struct hp_sched *s, unsigned int role)
{
	return hp_sched_least_queued(s, role ? HP_ROLE_ACCEL : HP_ROLE_CPU);
}

/* What qlearn_check() read for init: the options, and outside training
 * the table, so that the file is read once. */
struct qlearn_conf {
	bool train;
	struct hp_qtable t;
};

static void
qlearn_conf_free(void *conf)
{
	struct qlearn_conf *qc = conf;

	hp_qtable_free(&qc->t);
	free(qc);
}

static int
qlearn_check(struct hp_sched_env *env, char *err, size_t errlen)
{
	const char *path = hp_sched_param(env, "qtable"), *train = hp_sched_param(env, "train");
	unsigned int d, n_types = (env->types ? env->types->n : 0) + 1;
	char roles[HP_SCHED_MAX_DEV + 1], q[160];
	struct qlearn_conf *qc;
	struct hp_qtable *t;
	int ret;

	if (train != NULL && strcmp(train, "0") != 0 && strcmp(train, "1") != 0) {
		snprintf(err, errlen, "train=%s: expected 0 or 1", hp_quote(q, sizeof(q), train, 32));
		return -EINVAL;
	}
	if (env->n_dev > HP_Q_MAX_DEV_BITS) {
		snprintf(err, errlen, "qlearn handles up to %d devices", HP_Q_MAX_DEV_BITS);
		return -EINVAL;
	}
	if (path == NULL) {
		snprintf(err, errlen, train != NULL && train[0] == '1' ?
			 "train needs --qtable FILE to write" :
			 "needs --qtable FILE (hplane train writes one)");
		return -EINVAL;
	}
	qc = calloc(1, sizeof(*qc));
	if (qc == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	qc->train = train != NULL && train[0] == '1';
	if (qc->train)
		goto out;
	t = &qc->t;
	ret = hp_qtable_load(t, path, err, errlen);
	if (ret < 0)
		goto fail;
	for (d = 0; d < env->n_dev; d++)
		roles[d] = env->role[d] == HP_ROLE_CPU ? 'c' : 'a';
	roles[d] = '\0';
	if (t->task_gran != env->task_gran || t->n_dev != env->n_dev ||
	    t->n_types != n_types || t->n_tasks != env->n_tasks || strcmp(t->roles, roles) != 0) {
		snprintf(err, errlen,
			 "Q-table %s was trained for granularity %s, devices %s, %u packet types, %u tasks; this run has %s, %s, %u, %u",
			 hp_quote(q, sizeof(q), path, 120), t->task_gran ? "task" : "chain", t->roles,
			 t->n_types, t->n_tasks, env->task_gran ? "task" : "chain", roles, n_types,
			 env->n_tasks);
		ret = -EINVAL;
		goto fail;
	}
out:
	env->conf = qc;
	return 0;
fail:
	qlearn_conf_free(qc);
	return ret;
}

static int
qlearn_init(struct hp_sched *s, char *err, size_t errlen)
{
	const struct hp_sched_env *env = s->env;
	struct qlearn_conf *qc = env->conf;
	struct hp_qlearn *ql;
	char roles[HP_SCHED_MAX_DEV + 1];
	unsigned int d, n_types = (env->types ? env->types->n : 0) + 1;
	int ret;

	/* the table, options and device count were checked with the file */
	if (qc == NULL) {
		snprintf(err, errlen, "not checked: hp_sched_check() comes first");
		return -EINVAL;
	}
	ql = calloc(1, sizeof(*ql));
	if (ql == NULL)
		return -ENOMEM;
	ql->min_visits = 4;
	ql->rng = env->seed ? env->seed * 0x9e3779b97f4a7c15ull : 1;
	ql->cap_pps = env->capacity_pps;
	if (!(ql->cap_pps > 0)) {
		/* no capacity given: the devices' own, at full batches */
		struct hp_sched_cost c;

		hp_sched_cost_update(s, &c);
		for (d = 0; d < s->n_dev; d++) {
			double am = hp_sched_cost_am(&c, d, env->n_tasks,
						     (uint32_t)env->imix_mean_bytes);

			if (c.known[d] && am > 0)
				ql->cap_pps += (double)env->hz / am;
		}
	}
	if (qc->train) {
		for (d = 0; d < s->n_dev && d < HP_SCHED_MAX_DEV; d++)
			roles[d] = s->dev[d].role == HP_ROLE_CPU ? 'c' : 'a';
		roles[d] = '\0';
		ret = hp_qtable_alloc(&ql->t, env->task_gran, s->n_dev, n_types, env->n_tasks,
				      roles);
		ql->st = ret == 0 ? calloc((size_t)ql->t.n_states * ql->t.n_actions,
					   sizeof(*ql->st)) : NULL;
		if (ql->st == NULL) {
			if (ret == -EINVAL)
				snprintf(err, errlen, "qlearn handles up to %d devices",
					 HP_Q_MAX_DEV_BITS);
			else
				snprintf(err, errlen, "out of memory");
			hp_qtable_free(&ql->t);
			free(ql);
			return ret < 0 ? ret : -ENOMEM;
		}
	} else {
		/* the table moves from the conf to the run */
		ql->t = qc->t;
		memset(&qc->t, 0, sizeof(qc->t));
		q_defaults(ql);
	}
	s->priv = ql;
	return 0;
}

static void
qlearn_fini(struct hp_sched *s)
{
	struct hp_qlearn *ql = s->priv;

	if (ql == NULL)
		return;
	hp_qtable_free(&ql->t);
	free(ql->st);
	free(ql);
	s->priv = NULL;
}

static int
qlearn_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	struct hp_qlearn *ql = s->priv;
	struct hp_meta *md = hp_meta(m);
	unsigned int step = s->env->task_gran ? md->step : 0, role, st;
	int d;

	st = hp_q_state(&ql->t, hp_q_rate_level(s->rate_pps, ql->cap_pps),
			hp_q_ring_bits(s), md->type);
	if (ql->st != NULL) {
		/* training: a random action among those with room */
		int c = role_device(s, 0), a = role_device(s, 1);

		if (c < 0 && a < 0)
			return -1;
		role = c < 0 ? 1 : a < 0 ? 0 : (unsigned int)(hp_rand64(&ql->rng) >> 63);
		d = role ? a : c;
	} else {
		role = hp_q_best_role(ql, st, step);
		d = role_device(s, role);
		if (d < 0)
			return -1;
	}
	if (step < HP_MAX_TASKS) {
		uint64_t idx = (uint64_t)st * ql->t.n_actions + hp_q_action(&ql->t, step, role);

		/* the decision, for the reward (16 bits a step) */
		md->sched_tag &= ~((uint64_t)TAG_MASK << (TAG_BITS * step));
		if (idx + 1 <= TAG_MASK)
			md->sched_tag |= (idx + 1) << (TAG_BITS * step);
	}
	return d;
}

static void
qlearn_done(struct hp_sched *s, struct rte_mbuf *m, unsigned int d, unsigned int step,
	    uint64_t now)
{
	struct hp_qlearn *ql = s->priv;
	struct hp_meta *md = hp_meta(m);
	unsigned int slot = step == HP_MAX_TASKS ? 0 : step;
	uint64_t idx;

	RTE_SET_USED(d);
	if (ql->st == NULL || slot >= HP_MAX_TASKS)
		return;
	idx = (md->sched_tag >> (TAG_BITS * slot)) & TAG_MASK;
	if (idx == 0)
		return;
	ql->st[idx - 1].n++;
	ql->st[idx - 1].lat_s += (double)(now - md->t_sched) / (double)s->env->hz;
	ql->st[idx - 1].tput += s->tput_bps;
}

static void
qlearn_tx(struct hp_sched *s, struct rte_mbuf *m, uint64_t now)
{
	struct hp_qlearn *ql = s->priv;
	struct hp_meta *md = hp_meta(m);
	unsigned int k;

	if (ql->st == NULL || !(md->flags & HP_MF_LATENCY))
		return;
	for (k = 0; k < HP_MAX_TASKS; k++) {
		uint64_t idx = (md->sched_tag >> (TAG_BITS * k)) & TAG_MASK;

		if (idx == 0)
			continue;
		ql->st[idx - 1].dl_n++;
		ql->st[idx - 1].dl_met += now <= md->t_deadline;
	}
}

static int
qlearn_finish(struct hp_sched *s, char *err, size_t errlen)
{
	struct hp_qlearn *ql = s->priv;
	size_t i, n, seen = 0;
	const char *path;
	int ret;

	if (ql == NULL || ql->st == NULL)
		return 0;
	hp_q_finish_training(ql);
	n = (size_t)ql->t.n_states * ql->t.n_actions;
	for (i = 0; i < n; i++)
		seen += !isnan(ql->t.q[i]);
	path = hp_sched_param(s->env, "qtable");
	ret = hp_qtable_save(&ql->t, path, err, errlen);
	if (ret == 0)
		printf("qlearn: wrote %s: %zu of %zu state-actions learned (granularity %s, unseen states take %s)\n",
		       path, seen, n, ql->t.task_gran ? "task" : "chain",
		       ql->best_default[0] ? "the accelerator" : "a CPU worker");
	return ret;
}

static const struct hp_sched_ops sched_qlearn = {
	.name = "qlearn",
	.desc = "thesis Q-learning (§4.10): state = rate level, ring bits, type; hplane train writes the table",
	.params = (const char *const[]){ "qtable", "train", NULL },
	.check = qlearn_check,
	.conf_free = qlearn_conf_free,
	.init = qlearn_init,
	.fini = qlearn_fini,
	.pick = qlearn_pick,
	.done = qlearn_done,
	.tx = qlearn_tx,
	.finish = qlearn_finish,
};
HP_SCHED_REGISTER(sched_qlearn)
