/* SPDX-License-Identifier: BSD-3-Clause
 * Registries of tasks and apps. Registration happens in constructors
 * (HP_TASK_REGISTER / HP_APP_REGISTER), before main(), single-threaded.
 */
#include <errno.h>
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
