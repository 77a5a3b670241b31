/* SPDX-License-Identifier: BSD-3-Clause
 * Service-time profiles (format heteroplane-profile-1, profiles/NAME.json):
 * per device and task, rows by batch size of
 *   time(n packets, b bytes) = fixed_us + per_pkt_us * n + per_byte_ns * b
 * Read by the modeled device, and by schedulers that need a cost model.
 */
#ifndef HP_MODEL_H
#define HP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define HP_MODEL_TASKS 16
#define HP_MODEL_ROWS 16

struct hp_model_row {
	uint32_t batch;       /* largest batch this row describes */
	double fixed_us;
	double per_pkt_us;
	double per_byte_ns;
};

struct hp_model_task {
	char name[32];
	unsigned int n_rows;
	struct hp_model_row rows[HP_MODEL_ROWS];
};

struct hp_model {
	char profile[128];
	char device[32];
	uint32_t max_batch;
	uint32_t copy_engines;
	char mem_kind[24];
	/* optional power model: watts = idle + (busy - idle) x utilisation;
	 * -1 when the profile has none */
	double power_idle_w, power_busy_w;
	unsigned int n_tasks;
	struct hp_model_task tasks[HP_MODEL_TASKS];
};

/* Where profiles are looked up by name: $HP_PROFILE_DIR, else the source
 * tree's profiles/. */
const char *hp_profile_dir(void);
/* Loads "NAME[@device]" (profiles dir) or "FILE.json[@device]"; the
 * device defaults to "gpu". 0 or -EINVAL with a one-line reason. */
int hp_model_load(struct hp_model *m, const char *spec, char *err,
		  size_t errlen);
/* Loads the device sections devs[0..n-1] of profile NAME or FILE.json,
 * reading the file once, into m[0..n-1]; found[i] says whether it has
 * devs[i] (with n == 1 a missing one is an error, -ENOENT). 0 or -EINVAL
 * with a one-line reason. */
int hp_model_load_devices(struct hp_model *m, const char *name, const char *const *devs,
			  unsigned int n, bool *found, char *err, size_t errlen);
/* Predicted microseconds for n packets of bytes total; -1 if the
 * profile has no model of the task. */
double hp_model_predict_us(const struct hp_model *m, const char *task,
			   uint32_t n, uint32_t bytes);

#endif /* HP_MODEL_H */
