/* SPDX-License-Identifier: BSD-3-Clause
 * Registries of tasks and apps. Registration happens in constructors
 * (HP_TASK_REGISTER / HP_APP_REGISTER), before main(), single-threaded.
 * Also the app-level glue of the optional task hooks (which context
 * writes generator bodies, the check of a --param string) and the
 * helpers task code shares (hp_task.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hp_common.h"
#include "hp_registry.h"
#include "hp_task.h"

#define HP_MAX_REG 64

HP_REGISTRY(task_reg, struct hp_task_ops, name, HP_MAX_REG);
HP_REGISTRY(app_reg, struct hp_app, name, HP_MAX_REG);

int
hp_task_register(const struct hp_task_ops *ops)
{
	if (ops == NULL || ops->process == NULL)
		return -EINVAL;
	return hp_registry_add(&task_reg, ops);
}

const struct hp_task_ops *
hp_task_find(const char *name)
{
	return hp_registry_find(&task_reg, name);
}

const struct hp_task_ops *
hp_task_at(unsigned int i)
{
	return hp_registry_at(&task_reg, i);
}

int
hp_app_register(const struct hp_app *app)
{
	if (app == NULL || app->n_tasks == 0 || app->n_tasks > HP_MAX_TASKS)
		return -EINVAL;
	return hp_registry_add(&app_reg, app);
}

/* Apps live in one table (hp_apps.c) while their tasks are built only
 * with their libraries (lib/nf, lib/ldpc): an app is offered once every
 * task of its chain is registered. Asked after main() starts, when every
 * constructor has run. */
static bool
app_built(const struct hp_app *a)
{
	for (unsigned int k = 0; k < a->n_tasks; k++)
		if (hp_task_find(a->tasks[k]) == NULL)
			return false;
	return true;
}

const struct hp_app *
hp_app_find(const char *name)
{
	const struct hp_app *a = hp_registry_find(&app_reg, name);

	return a != NULL && app_built(a) ? a : NULL;
}

const struct hp_app *
hp_app_at(unsigned int i)
{
	const struct hp_app *a;
	unsigned int j, seen = 0;

	for (j = 0; (a = hp_registry_at(&app_reg, j)) != NULL; j++)
		if (app_built(a) && seen++ == i)
			return a;
	return NULL;
}

struct hp_task_ctx *
hp_app_body_ctx(const struct hp_app *app, struct hp_task_ctx *ctx)
{
	/* Only the first task: a later one sees what earlier tasks made. */
	if (app == NULL || ctx == NULL || ctx[0].ops == NULL ||
	    ctx[0].ops->gen_body == NULL)
		return NULL;
	return &ctx[0];
}

uint32_t
hp_task_gen_body(void *arg, uint64_t gen_id, uint32_t size, uint32_t hdr_len,
		 uint8_t *body, uint32_t room)
{
	struct hp_task_ctx *ctx = arg;
	uint32_t n = ctx->ops->gen_body(ctx, gen_id, size, hdr_len, body, room);

	return n <= room ? n : room;
}

int
hp_task_body_init(struct hp_task_ctx *ctx, const struct hp_task_ops *ops,
		  const struct hp_task_cfg *cfg)
{
	int ret;

	ctx->ops = NULL;
	ctx->cfg = cfg;
	ctx->priv = NULL;
	if (ops == NULL || ops->gen_body == NULL)
		return 0;
	ret = ops->ctx_init != NULL ? ops->ctx_init(ctx) : 0;
	if (ret < 0)
		return ret;
	ctx->ops = ops;
	return 1;
}

int
hp_task_opt_get(const char *param, const char *name, char *val, size_t vlen)
{
	size_t nl = strlen(name);
	const char *p = param;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (l > nl && strncmp(p, name, nl) == 0 && p[nl] == '=') {
			if (l - nl - 1 >= vlen)
				return -E2BIG;
			memcpy(val, p + nl + 1, l - nl - 1);
			val[l - nl - 1] = '\0';
			return 1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* Whether the comma-separated list `list` holds the name n (nl bytes). */
static int
name_in(const char *list, const char *n, size_t nl)
{
	while (list != NULL && *list != '\0') {
		const char *end = strchr(list, ',');
		size_t l = end ? (size_t)(end - list) : strlen(list);

		if (l == nl && strncmp(list, n, nl) == 0)
			return 1;
		list = end ? end + 1 : NULL;
	}
	return 0;
}

int
hp_app_param_check(const struct hp_app *app, const char *param, char *err,
		   size_t errlen)
{
	const struct hp_task_ops *ops[HP_MAX_TASKS];
	const char *p = param;
	unsigned int k;

	if (app == NULL || param == NULL)
		return 0;
	for (k = 0; k < app->n_tasks; k++)
		ops[k] = hp_task_find(app->tasks[k]);
	while (*p != '\0') {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', l);
		int known = 0;

		if (eq == NULL || eq == p) {
			snprintf(err, errlen, "bad --param item '%.*s' (want name=value[,name=value...])",
				 (int)l, p);
			return -EINVAL;
		}
		for (k = 0; k < app->n_tasks; k++)
			if (ops[k] != NULL && name_in(ops[k]->params, p, (size_t)(eq - p)))
				known = 1;
		if (!known) {
			char names[256] = "";
			size_t o = 0;

			for (k = 0; k < app->n_tasks && o < sizeof(names); k++)
				if (ops[k] != NULL && ops[k]->params != NULL)
					o += (size_t)snprintf(names + o, sizeof(names) - o,
							      "%s%s: %s", o ? "; " : "",
							      ops[k]->name, ops[k]->params);
			if (names[0] == '\0')
				snprintf(err, errlen, "app %s takes no --param options", app->name);
			else
				snprintf(err, errlen, "unknown option '%.*s' for app %s (%s)",
					 (int)(eq - p), p, app->name, names);
			return -EINVAL;
		}
		p = end ? end + 1 : p + l;
	}
	for (k = 0; k < app->n_tasks; k++)
		if (ops[k] != NULL && ops[k]->param_check != NULL &&
		    ops[k]->param_check(param, err, errlen) < 0)
			return -EINVAL;
	return 0;
}

/* ---- helpers for task code ---- */

unsigned int
hp_task_burst(struct rte_mbuf **pkts, uint16_t n, uint16_t *i,
	      struct rte_mbuf **m, const uint8_t **data, uint32_t *len)
{
	unsigned int k = 0;

	for (; *i < n && k < HP_BURST; (*i)++) {
		struct rte_mbuf *p = pkts[*i];
		struct hp_meta *md = hp_meta(p);

		if (md->status != HP_ST_OK)
			continue;
		if (p->nb_segs != 1 || (uint32_t)md->data_off + md->data_len >
		    rte_pktmbuf_data_len(p)) {
			hp_task_fail(md, EINVAL);
			continue;
		}
		m[k] = p;
		data[k] = rte_pktmbuf_mtod_offset(p, const uint8_t *, md->data_off);
		len[k++] = md->data_len;
	}
	return k;
}

int
hp_task_offload_copy_in(struct hp_task_ctx *ctx, struct rte_mbuf *m,
			struct hp_offload *o, uint8_t *stage, uint32_t room)
{
	struct hp_meta *md = hp_meta(m);

	RTE_SET_USED(ctx);
	if (md->status != HP_ST_OK)
		return 1;
	if (m->nb_segs != 1 || md->data_len > room ||
	    (uint32_t)md->data_off + md->data_len > rte_pktmbuf_data_len(m)) {
		hp_task_fail(md, EINVAL);
		return -EINVAL;
	}
	o->in_len = md->data_len;
	o->src = rte_pktmbuf_mtod_offset(m, const uint8_t *, md->data_off);
	o->dst = NULL; /* the task knows where its result goes */
	if (stage != NULL)
		memcpy(stage, o->src, md->data_len);
	return 0;
}

int
hp_task_opt_check(const char *task, const char *param, const char *const *known)
{
	const char *p = param;

	while (p != NULL && *p != '\0') {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		int ok = 0;

		for (unsigned int i = 0; known[i] != NULL; i++) {
			size_t kl = strlen(known[i]);

			if (l > kl && strncmp(p, known[i], kl) == 0 && p[kl] == '=')
				ok = 1;
		}
		if (!ok) {
			HP_LOG(ERR, "%s: unknown option '%.*s' in --param", task,
			       (int)l, p);
			return -EINVAL;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int
hp_task_opt_word(const char *task, const char *param, const char *name,
		 const char *const *words, char *val, size_t vlen, char *err,
		 size_t errlen)
{
	int rc = hp_task_opt_get(param, name, val, vlen);

	if (rc == 0)
		return 0;
	for (unsigned int i = 0; rc > 0 && words[i] != NULL; i++)
		if (strcmp(val, words[i]) == 0)
			return 0;
	snprintf(err, errlen, "%s: bad %s '%s' (%s%s%s)", task, name,
		 rc > 0 ? val : "(too long)", words[0], words[1] ? "|" : "",
		 words[1] ? words[1] : "");
	return -EINVAL;
}
