/* SPDX-License-Identifier: BSD-3-Clause
 * Registries of tasks and apps. Registration happens in constructors
 * (HP_TASK_REGISTER / HP_APP_REGISTER), before main(), single-threaded.
 * Also the app-level glue of the optional task hooks: which context
 * writes generator bodies, and the check of a --param string.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hp_common.h"
#include "hp_task.h"

#define HP_MAX_REG 64

static const struct hp_task_ops *tasks[HP_MAX_REG];
static unsigned int n_tasks;
static const struct hp_app *apps[HP_MAX_REG];
static unsigned int n_apps;

int
hp_task_register(const struct hp_task_ops *ops)
{
	if (ops == NULL || ops->name == NULL || ops->process == NULL ||
	    n_tasks == HP_MAX_REG || hp_task_find(ops->name) != NULL)
		return -EINVAL;
	tasks[n_tasks++] = ops;
	return 0;
}

const struct hp_task_ops *
hp_task_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_tasks; i++)
		if (strcmp(tasks[i]->name, name) == 0)
			return tasks[i];
	return NULL;
}

const struct hp_task_ops *
hp_task_at(unsigned int i)
{
	return i < n_tasks ? tasks[i] : NULL;
}

int
hp_app_register(const struct hp_app *app)
{
	if (app == NULL || app->name == NULL || app->n_tasks == 0 ||
	    app->n_tasks > HP_MAX_TASKS || n_apps == HP_MAX_REG ||
	    hp_app_find(app->name) != NULL)
		return -EINVAL;
	apps[n_apps++] = app;
	return 0;
}

const struct hp_app *
hp_app_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_apps; i++)
		if (strcmp(apps[i]->name, name) == 0)
			return apps[i];
	return NULL;
}

const struct hp_app *
hp_app_at(unsigned int i)
{
	return i < n_apps ? apps[i] : NULL;
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
