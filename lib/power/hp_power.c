/* SPDX-License-Identifier: BSD-3-Clause
 * The power sampler (see hp_power.h). It runs on the control (main) lcore,
 * which otherwise sleeps: a sample reads a few sysfs files and NVML calls,
 * tens of microseconds once a second, never on a polling lcore.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_power.h"

#define MIN_SZ(a, b) ((a) < (b) ? (a) : (b))

/* The few NVML entry points we use, declared here so that building needs
 * no NVIDIA headers (return 0 = NVML_SUCCESS). */
typedef void *nvml_dev_t;
struct nvml_fns {
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *);
	int (*handle)(unsigned int, nvml_dev_t *);
	int (*name)(nvml_dev_t, char *, unsigned int);
	int (*energy)(nvml_dev_t, unsigned long long *); /* mJ */
	int (*power)(nvml_dev_t, unsigned int *);        /* mW */
};
static struct nvml_fns nv;

static int
read_u64(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (f == NULL)
		return -errno;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -EIO;
}

static int
read_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (f == NULL)
		return -errno;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl != NULL)
		*nl = '\0';
	return 0;
}

static struct hp_power_src *
add_src(struct hp_power *p, enum hp_power_kind kind, const char *name)
{
	struct hp_power_src *s;

	if (p->n == HP_POWER_MAX)
		return NULL;
	s = &p->src[p->n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

/* RAPL zones: every intel-rapl:N package, and their dram subzone (DRAM
 * is not inside the package figure; core/uncore are, so they are left
 * out to keep the sum meaningful). Returns the zones found. */
static unsigned int
rapl_open(struct hp_power *p, const char *dir, char *why, size_t wlen)
{
	struct dirent **ents = NULL, *e;
	int n_ent = scandir(dir, &ents, NULL, alphasort), k;
	unsigned int found = 0;

	if (n_ent < 0) {
		snprintf(why, wlen, "no RAPL (%.50s: %.30s)", dir, strerror(errno));
		return 0;
	}
	/* in name order: package N, then its subzones */
	for (k = 0; k < n_ent; k++) {
		char zpath[512], name[64], file[600], label[HP_POWER_NAMELEN];
		unsigned int pkg, sub;
		int fields;
		struct hp_power_src *s;
		uint64_t v;

		e = ents[k];
		fields = sscanf(e->d_name, "intel-rapl:%u:%u", &pkg, &sub);

		if (fields < 1 || strncmp(e->d_name, "intel-rapl:", 11) != 0)
			continue;
		snprintf(zpath, sizeof(zpath), "%s/%s", dir, e->d_name);
		snprintf(file, sizeof(file), "%s/name", zpath);
		if (read_str(file, name, sizeof(name)) < 0)
			continue;
		if (fields == 2 && strcmp(name, "dram") != 0)
			continue;
		snprintf(file, sizeof(file), "%s/energy_uj", zpath);
		if (read_u64(file, &v) < 0) {
			snprintf(why, wlen, "no RAPL (%.60s: %.20s)", file, strerror(errno));
			continue;
		}
		if (fields == 2)
			snprintf(label, sizeof(label), "rapl:dram-%u", pkg);
		else
			snprintf(label, sizeof(label), "rapl:%.32s", name);
		s = add_src(p, HP_POWER_RAPL, label);
		if (s == NULL)
			break;
		memcpy(s->path, file, MIN_SZ(strlen(file) + 1, sizeof(s->path)));
		s->path[sizeof(s->path) - 1] = '\0';
		snprintf(file, sizeof(file), "%s/max_energy_range_uj", zpath);
		if (read_u64(file, &s->max_uj) < 0)
			s->max_uj = 0;
		s->last_uj = v;
		s->ok = true;
		found++;
	}
	for (k = 0; k < n_ent; k++)
		free(ents[k]);
	free(ents);
	if (found == 0 && why[0] == '\0')
		snprintf(why, wlen, "no RAPL zones in %s", dir);
	return found;
}

static unsigned int
nvml_open(struct hp_power *p, char *why, size_t wlen)
{
	const char *lib = getenv("HP_NVML_LIB");
	unsigned int n = 0, i, found = 0;

	if (lib == NULL || lib[0] == '\0')
		lib = "libnvidia-ml.so.1";
	p->nvml = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (p->nvml == NULL) {
		snprintf(why, wlen, "no NVML (%s)", dlerror());
		return 0;
	}
	nv.init = (int (*)(void))dlsym(p->nvml, "nvmlInit_v2");
	nv.shutdown = (int (*)(void))dlsym(p->nvml, "nvmlShutdown");
	nv.count = (int (*)(unsigned int *))dlsym(p->nvml, "nvmlDeviceGetCount_v2");
	nv.handle = (int (*)(unsigned int, nvml_dev_t *))dlsym(p->nvml,
							       "nvmlDeviceGetHandleByIndex_v2");
	nv.name = (int (*)(nvml_dev_t, char *, unsigned int))dlsym(p->nvml, "nvmlDeviceGetName");
	nv.energy = (int (*)(nvml_dev_t, unsigned long long *))dlsym(p->nvml,
					"nvmlDeviceGetTotalEnergyConsumption");
	nv.power = (int (*)(nvml_dev_t, unsigned int *))dlsym(p->nvml, "nvmlDeviceGetPowerUsage");
	if (nv.init == NULL || nv.count == NULL || nv.handle == NULL || nv.power == NULL ||
	    nv.init() != 0 || nv.count(&n) != 0) {
		snprintf(why, wlen, "no NVML (%s loaded but not usable)", lib);
		dlclose(p->nvml);
		p->nvml = NULL;
		return 0;
	}
	for (i = 0; i < n; i++) {
		char gname[64] = "gpu", label[HP_POWER_NAMELEN];
		struct hp_power_src *s;
		nvml_dev_t h;
		unsigned int mw;

		if (nv.handle(i, &h) != 0)
			continue;
		if (nv.name != NULL)
			nv.name(h, gname, sizeof(gname));
		snprintf(label, sizeof(label), "nvml:%u:%.30s", i, gname);
		s = add_src(p, HP_POWER_NVML, label);
		if (s == NULL)
			break;
		s->nvml_dev = h;
		s->nvml_energy = nv.energy != NULL && nv.energy(h, &s->last_mj) == 0;
		s->ok = s->nvml_energy || nv.power(h, &mw) == 0;
		found++;
	}
	if (found == 0)
		snprintf(why, wlen, "no NVML GPU");
	return found;
}

void
hp_power_open(struct hp_power *p, const char *powercap_dir)
{
	char w1[96] = "", w2[96] = "";
	unsigned int n;

	memset(p, 0, sizeof(*p));
	n = rapl_open(p, powercap_dir ? powercap_dir : "/sys/class/powercap", w1, sizeof(w1));
	n += nvml_open(p, w2, sizeof(w2));
	if (n == 0)
		snprintf(p->why_none, sizeof(p->why_none), "%s; %s", w1, w2);
}

int
hp_power_add_modeled(struct hp_power *p, const char *name, double idle_w,
		     double busy_w)
{
	struct hp_power_src *s = add_src(p, HP_POWER_MODELED, name);

	if (s == NULL)
		return -ENOSPC;
	s->idle_w = idle_w;
	s->busy_w = busy_w;
	s->off_w = -1;
	s->ok = true;
	return 0;
}

/* Reads one source: energy since the last read in joules (rapl, nvml with
 * an energy counter), or the power now in watts (*is_power). */
static int
src_read(struct hp_power_src *s, double *val, bool *is_power)
{
	*is_power = false;
	switch (s->kind) {
	case HP_POWER_RAPL: {
		uint64_t v, d;

		if (read_u64(s->path, &v) < 0)
			return -EIO;
		/* the counter wraps at max_energy_range_uj */
		d = v >= s->last_uj ? v - s->last_uj :
			(s->max_uj > s->last_uj ? s->max_uj - s->last_uj + v : v);
		s->last_uj = v;
		*val = (double)d / 1e6;
		return 0;
	}
	case HP_POWER_NVML: {
		unsigned long long mj;
		unsigned int mw;

		if (s->nvml_energy) {
			if (nv.energy(s->nvml_dev, &mj) != 0)
				return -EIO;
			*val = (double)(mj - s->last_mj) / 1e3;
			s->last_mj = mj;
			return 0;
		}
		if (nv.power(s->nvml_dev, &mw) != 0)
			return -EIO;
		*val = mw / 1e3;
		*is_power = true;
		return 0;
	}
	case HP_POWER_MODELED: {
		double u = s->util < 0 ? 0 : s->util > 1 ? 1 : s->util;

		*val = s->off && s->off_w >= 0 ? s->off_w : s->idle_w + (s->busy_w - s->idle_w) * u;
		*is_power = true;
		return 0;
	}
	}
	return -EINVAL;
}

void
hp_power_start(struct hp_power *p, double t)
{
	unsigned int i;

	for (i = 0; i < p->n; i++) {
		double v;
		bool pw;

		if (p->src[i].kind != HP_POWER_MODELED)
			p->src[i].ok = src_read(&p->src[i], &v, &pw) == 0;
		p->src[i].joules = 0;
		p->src[i].watts = 0;
	}
	p->t_last = t;
	p->started = true;
}

void
hp_power_sample(struct hp_power *p, double t)
{
	double dt = t - p->t_last;
	unsigned int i;

	if (!p->started || dt <= 0)
		return;
	for (i = 0; i < p->n; i++) {
		struct hp_power_src *s = &p->src[i];
		double v;
		bool pw;

		s->ok = src_read(s, &v, &pw) == 0;
		if (!s->ok)
			continue;
		if (pw) {
			s->watts = v;
			s->joules += v * dt;
		} else {
			s->watts = v / dt;
			s->joules += v;
		}
	}
	p->t_last = t;
}

void
hp_power_report(const struct hp_power *p, double duration_s,
		struct hp_power_report *r)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->n = p->n;
	for (i = 0; i < p->n; i++) {
		const struct hp_power_src *s = &p->src[i];

		snprintf(r->name[i], sizeof(r->name[i]), "%s", s->name);
		r->modeled[i] = s->kind == HP_POWER_MODELED;
		r->joules[i] = s->joules;
		r->mean_w[i] = duration_s > 0 ? s->joules / duration_s : 0;
		if (!r->modeled[i])
			r->measured_any = true;
	}
	if (!r->measured_any)
		snprintf(r->unavailable, sizeof(r->unavailable), "unavailable: %.180s",
			 p->why_none[0] ? p->why_none : "no source");
}

void
hp_power_close(struct hp_power *p)
{
	if (p->nvml != NULL) {
		if (nv.shutdown != NULL)
			nv.shutdown();
		dlclose(p->nvml);
		p->nvml = NULL;
	}
	p->n = 0;
}
