/* SPDX-License-Identifier: BSD-3-Clause
 * Scheduler registry, what every policy shares (options, the --profile
 * models, cost lines) and the round-robin policy (Johansson & Pap §4.8):
 * the next device in turn that has room; packet properties are ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "hp_model.h"
#include "hp_registry.h"
#include "hp_sched.h"

HP_REGISTRY(scheds, struct hp_sched_ops, name, 16);

int
hp_sched_register(const struct hp_sched_ops *ops)
{
	if (ops == NULL || ops->pick == NULL)
		return -EINVAL;
	return hp_registry_add(&scheds, ops);
}

const struct hp_sched_ops *
hp_sched_find(const char *name)
{
	return hp_registry_find(&scheds, name);
}

const struct hp_sched_ops *
hp_sched_at(unsigned int i)
{
	return hp_registry_at(&scheds, i);
}

/* Whether the NULL-terminated list holds the key of item (up to its '='). */
static bool
key_listed(const char *const *list, const char *item, size_t kl)
{
	for (; list != NULL && *list != NULL; list++)
		if (strlen(*list) == kl && strncmp(*list, item, kl) == 0)
			return true;
	return false;
}

int
hp_sched_check(const struct hp_sched_ops *ops, struct hp_sched_env *env, char *err,
	       size_t errlen)
{
	char q[80];
	unsigned int i, j;

	env->conf = NULL;
	for (i = 0; i < env->n_params; i++) {
		const char *item = env->params[i], *eq = strchr(item, '=');

		hp_quote(q, sizeof(q), item, 60);
		if (eq == NULL || eq == item) {
			snprintf(err, errlen, "option '%s': expected KEY=VALUE", q);
			return -EINVAL;
		}
		if (!key_listed(ops->params, item, (size_t)(eq - item))) {
			char keys[128] = "it takes none";
			const char *const *k;
			size_t o = 0;

			for (k = ops->params; k != NULL && *k != NULL && o < sizeof(keys); k++)
				o += (size_t)snprintf(keys + o, sizeof(keys) - o, "%s%s",
						      k == ops->params ? "it reads " : ", ", *k);
			snprintf(err, errlen, "unknown option '%s' (%s)", q, keys);
			return -EINVAL;
		}
		/* an option takes one value: given twice, which one was meant? */
		for (j = 0; j < i; j++)
			if (strncmp(env->params[j], item, (size_t)(eq - item) + 1) == 0) {
				snprintf(err, errlen, "option '%s': %.*s given twice", q,
					 (int)RTE_MIN(eq - item, 40), item);
				return -EINVAL;
			}
	}
	return ops->check != NULL ? ops->check(env, err, errlen) : 0;
}

void
hp_sched_conf_free(const struct hp_sched_ops *ops, void *conf)
{
	if (ops != NULL && conf != NULL && ops->conf_free != NULL)
		ops->conf_free(conf);
}

const char *
hp_sched_param(const struct hp_sched_env *env, const char *key)
{
	size_t kl = strlen(key);
	unsigned int i;

	for (i = env->n_params; i-- > 0;)
		if (strncmp(env->params[i], key, kl) == 0 && env->params[i][kl] == '=')
			return env->params[i] + kl + 1;
	return NULL;
}

int
hp_sched_profile_load(struct hp_sched_profile *p, const char *name, char *err,
		      size_t errlen)
{
	static const char *const section[2] = { "cpu", "gpu" };
	bool found[2] = { false, false };
	char q[160];
	unsigned int i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->models = calloc(2, sizeof(*p->models));
	if (p->models == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* a missing section is fine: that role has its own model */
	ret = hp_model_load_devices(p->models, name, section, 2, found, err, errlen);
	if (ret < 0)
		goto fail;
	for (i = 0; i < 2; i++)
		p->role[i] = found[i] ? &p->models[i] : NULL;
	if (p->role[0] == NULL && p->role[1] == NULL) {
		snprintf(err, errlen, "profile %s has neither a cpu nor a gpu device section",
			 hp_quote(q, sizeof(q), name, 120));
		ret = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	hp_sched_profile_free(p);
	return ret;
}

void
hp_sched_profile_free(struct hp_sched_profile *p)
{
	free(p->models);
	p->models = NULL;
	p->role[0] = p->role[1] = NULL;
}

int
hp_sched_least_queued(const struct hp_sched *s, enum hp_sched_role role)
{
	unsigned int d;
	int best = -1;

	for (d = 0; d < s->n_dev; d++) {
		if (s->dev[d].role != role || s->room[d] == 0 || s->dev[d].failed)
			continue;
		/* with several scheduler lcores the others' packets in the
		 * ring count too (shared is 0 with one) */
		if (best < 0 || s->dev[d].queued + s->dev[d].shared <
				s->dev[best].queued + s->dev[best].shared)
			best = (int)d;
	}
	return best;
}

unsigned int
hp_sched_cost_update(const struct hp_sched *s, struct hp_sched_cost *c)
{
	/* Two frame sizes span the IMIX; a line through them is exact for
	 * the profiles' cost lines and close for online measurements. */
	const uint32_t l1 = 256, l2 = 1280;
	unsigned int d, k, n_known = 0, nt = s->env->n_tasks;

	for (d = 0; d < s->n_dev && d < HP_SCHED_MAX_DEV; d++) {
		uint32_t b = s->dev[d].max_batch ? s->dev[d].max_batch : 1;

		c->known[d] = false;
		for (k = 0; k <= nt && s->predict != NULL; k++) {
			unsigned int task = k == nt ? HP_MAX_TASKS : k;
			double p1 = (double)s->predict(s, d, task, 1, l1);
			double p2 = (double)s->predict(s, d, task, 1, l2);
			double q1 = (double)s->predict(s, d, task, b, b * l1) / b;
			double q2 = (double)s->predict(s, d, task, b, b * l2) / b;

			c->one_b[d][k] = (p2 - p1) / (l2 - l1);
			c->one_a[d][k] = p1 - c->one_b[d][k] * l1;
			c->am_b[d][k] = (q2 - q1) / (l2 - l1);
			c->am_a[d][k] = q1 - c->am_b[d][k] * l1;
			if (k == nt && p1 > 0)
				c->known[d] = true;
		}
		n_known += c->known[d];
	}
	return n_known;
}

static int
rr_pick(struct hp_sched *s, struct rte_mbuf *m)
{
	unsigned int i, d;

	RTE_SET_USED(m);
	for (i = 0; i < s->n_dev; i++) {
		d = s->cursor;
		s->cursor = (s->cursor + 1 == s->n_dev) ? 0 : s->cursor + 1;
		if (s->room[d] > 0)
			return (int)d;
	}
	return -1;
}

static const struct hp_sched_ops sched_rr = {
	.name = "rr",
	.desc = "round robin over devices that have room (thesis §4.8)",
	.pick = rr_pick,
};
HP_SCHED_REGISTER(sched_rr)
