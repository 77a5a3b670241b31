/* SPDX-License-Identifier: BSD-3-Clause
 * Several apps at once (hplane run --apps): the spec's parser. Each app
 * keeps its own chain; the run joins the chains one after another, and a
 * packet runs only its app's part of the joint chain (docs/architecture.md,
 * "Several apps at once").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hp_common.h"
#include "hp_task.h"

int
hp_app_mix_parse(struct hp_app_mix *mix, const char *spec, char *err, size_t errlen)
{
	char buf[256], *save = NULL, *item;
	double sum = 0;
	size_t nl = 0;

	memset(mix, 0, sizeof(*mix));
	if (spec == NULL || *spec == '\0' || strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "--apps: expected NAME:SHARE,... (e.g. ids:0.3,dedup:0.3,vpn:0.4)");
		return -EINVAL;
	}
	memcpy(buf, spec, strlen(spec) + 1);
	if (buf[strlen(buf) - 1] == ',' || buf[0] == ',' || strstr(buf, ",,") != NULL) {
		snprintf(err, errlen, "--apps '%s': an empty item", spec);
		return -EINVAL;
	}
	for (item = strtok_r(buf, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		const struct hp_app *a;
		unsigned int i;
		double sh;

		if (colon == NULL) {
			snprintf(err, errlen, "--apps: '%s' has no share (NAME:SHARE)", item);
			return -EINVAL;
		}
		*colon = '\0';
		if (hp_parse_double(colon + 1, 0, 1, &sh) < 0 || !(sh > 0)) {
			snprintf(err, errlen, "--apps: share '%s' of %s is not a number in (0, 1]",
				 colon + 1, item);
			return -EINVAL;
		}
		a = hp_app_find(item);
		if (a == NULL) {
			snprintf(err, errlen, "--apps: unknown app '%s' (see hplane list)", item);
			return -EINVAL;
		}
		for (i = 0; i < mix->n; i++)
			if (mix->app[i] == a) {
				snprintf(err, errlen, "--apps: app '%s' named twice", item);
				return -EINVAL;
			}
		if (mix->n == HP_MAX_APPS) {
			snprintf(err, errlen, "--apps: more than %d apps", HP_MAX_APPS);
			return -EINVAL;
		}
		if (mix->n_tasks + a->n_tasks > HP_MAX_TASKS) {
			snprintf(err, errlen, "--apps: the apps' chains have more than %d tasks in all",
				 HP_MAX_TASKS);
			return -EINVAL;
		}
		mix->first[mix->n] = mix->n_tasks;
		mix->n_tasks += a->n_tasks;
		mix->app[mix->n] = a;
		mix->share[mix->n++] = sh;
		sum += sh;
		nl += (size_t)snprintf(mix->name + nl, sizeof(mix->name) - nl, "%s%s",
				       mix->n > 1 ? "+" : "", a->name);
		if (nl >= sizeof(mix->name))
			nl = sizeof(mix->name) - 1;
	}
	/* shares are of the whole offered traffic: they must say all of it
	 * (no normalisation, so a typo is not silently rescaled) */
	if (fabs(sum - 1.0) > 1e-6) {
		snprintf(err, errlen, "--apps: the shares sum to %g, not 1", sum);
		memset(mix, 0, sizeof(*mix));
		return -EINVAL;
	}
	return 0;
}
