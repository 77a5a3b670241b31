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
#define HP_MODEL_INTERF 128
/* Rows may describe batches beyond what the live batcher takes
 * (HP_BATCH_MAX): an offline analysis of configurations reads them. */
#define HP_MODEL_BATCH_MAX 65536

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

/* Interference (optional "interference" list of a device): how much a
 * kernel of task slows down (0..1, a fraction of its alone throughput)
 * when k instances of co share the device at this batch size, and how
 * much each of those k is slowed in the same run (co_slowdown). */
struct hp_model_interf {
	char task[32], co[32];
	uint32_t batch, k;
	double slowdown, co_slowdown;
};

enum hp_model_class { HP_MODEL_CLASS_ANY, HP_MODEL_CLASS_CPU, HP_MODEL_CLASS_IGPU,
		      HP_MODEL_CLASS_DGPU };

struct hp_model {
	char profile[128];
	char device[32];
	uint32_t max_batch;
	uint32_t copy_engines;
	char mem_kind[24];
	/* optional power model: watts = idle + (busy - idle) x utilisation;
	 * -1 when the profile has none */
	double power_idle_w, power_busy_w;
	/* power when unused and switched off (power.off_w); -1: it stays idle */
	double power_off_w;
	enum hp_model_class cls;    /* "class": cpu, igpu, dgpu (optional) */
	/* "pcie": the device sits behind a PCIe link of pcie_gbps per direction
	 * that the NIC shares; tasks in copy_back also send their packets back
	 * (they change them). Absent: it works in host memory (no copy). */
	bool pcie;
	double pcie_gbps;
	char copy_back[HP_MODEL_TASKS][32];
	unsigned int n_copy_back;
	unsigned int n_interf;
	struct hp_model_interf interf[HP_MODEL_INTERF];
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

/* Alone throughput of task at batch (packets per second, from the row that
 * holds batch, 1500-byte packets); -1 if the task is not modeled. */
double hp_model_rate_pps(const struct hp_model *m, const char *task, uint32_t batch);
/* Slow-down (0..1) of kernels[0] when it shares the device with
 * kernels[1..n-1] at this batch size. A run of the form "task + k x co"
 * found in the interference list is used as measured (for kernels[0]:
 * slowdown, for kernels[i > 0]: that entry's co_slowdown through
 * hp_model_slowdown_of); any other mix is estimated per co-runner kind
 * from its k = 1 and k = 3 entries (linear in k, fair share past 3) and
 * averaged; a kind with no entry counts as time sharing (k / (k + 1)). */
double hp_model_slowdown_of(const struct hp_model *m, const char *const *kernels,
			    unsigned int n, unsigned int i, uint32_t batch);
/* Whether task's packets go back over the PCIe link (copy_back). */
bool hp_model_copies_back(const struct hp_model *m, const char *task);

#endif /* HP_MODEL_H */
