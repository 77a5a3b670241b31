/* SPDX-License-Identifier: BSD-3-Clause
 * Power per device (Johansson & Pap §4.12.1, §5.7): a sampler the run's
 * control loop calls about once a second. Sources:
 *   rapl     CPU packages (and DRAM) through the powercap sysfs energy
 *            counters (intel-rapl:N/energy_uj, wrap at max_energy_range_uj)
 *   nvml     NVIDIA GPUs through libnvidia-ml, loaded with dlopen (total
 *            energy counter where the GPU has one, else the power reading)
 *   modeled  a modeled device: idle + (busy - idle) x its modeled busy
 *            share over the interval, from its profile; always "modeled"
 * Where no measured source exists the report says "unavailable" and why.
 */
#ifndef HP_POWER_H
#define HP_POWER_H

#include <stdbool.h>
#include <stdint.h>

#define HP_POWER_MAX 16
#define HP_POWER_NAMELEN 48

enum hp_power_kind { HP_POWER_RAPL, HP_POWER_NVML, HP_POWER_MODELED };

struct hp_power_src {
	char name[HP_POWER_NAMELEN];
	enum hp_power_kind kind;
	char path[512];           /* rapl: the zone's energy_uj */
	uint64_t last_uj, max_uj; /* rapl counter and its wrap */
	void *nvml_dev;           /* nvml: device handle */
	unsigned long long last_mj;
	bool nvml_energy;         /* nvml: energy counter (else power reading) */
	double idle_w, busy_w;    /* modeled */
	double util;              /* modeled: busy share, set before a sample */
	double off_w;             /* modeled: power when switched off (< 0: idle) */
	bool off;                 /* modeled: switched off, set before a sample */
	double watts;             /* over the last interval */
	double joules;            /* since hp_power_start */
	bool ok;                  /* the last read worked */
};

struct hp_power {
	unsigned int n;
	struct hp_power_src src[HP_POWER_MAX];
	double t_last;
	bool started;
	void *nvml;               /* dlopen handle */
	char why_none[200];       /* why no measured source was found */
};

/* What a run reports (summary.json "power"). */
struct hp_power_report {
	unsigned int n;
	char name[HP_POWER_MAX][HP_POWER_NAMELEN];
	bool modeled[HP_POWER_MAX];
	double mean_w[HP_POWER_MAX];
	double joules[HP_POWER_MAX];
	bool measured_any;        /* a rapl or nvml source worked */
	char unavailable[200];    /* why not, when !measured_any */
};

/* Finds the measured sources: RAPL zones under powercap_dir (NULL:
 * /sys/class/powercap) and NVML GPUs (library HP_NVML_LIB or
 * libnvidia-ml.so.1). Never fails: what is missing is noted in why_none. */
void hp_power_open(struct hp_power *p, const char *powercap_dir);
/* Adds a modeled source; 0 or -ENOSPC. */
int hp_power_add_modeled(struct hp_power *p, const char *name, double idle_w,
			 double busy_w);
/* Reads every counter as the start of the measurement (t in seconds). */
void hp_power_start(struct hp_power *p, double t);
/* Reads every source; watts over [t_last, t], joules accumulated. */
void hp_power_sample(struct hp_power *p, double t);
void hp_power_report(const struct hp_power *p, double duration_s,
		     struct hp_power_report *r);
void hp_power_close(struct hp_power *p);

#endif /* HP_POWER_H */
