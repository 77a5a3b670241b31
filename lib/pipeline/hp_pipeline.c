/* SPDX-License-Identifier: BSD-3-Clause
 * hp_run (hp_pipeline.h): builds a run (port, devices, scheduler, traffic,
 * one stage each), launches the stages, measures (capacity, then the
 * scenario with progress and power), stops them in the packets' order and
 * tears everything down. The stages' own code is in pl_*.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

#include "hp_common.h"
#include "pl_priv.h"

/* Power (lib/power): measured sources and a modeled one per modeled
 * device with a power model. */
struct power {
	struct hp_power *pw;       /* NULL when nothing could be set up */
	uint64_t model_cyc[HP_MAX_DEVICES]; /* modeled busy cycles at the last sample */
	uint64_t pkts[HP_MAX_DEVICES];      /* packets it ran, at the last sample */
	uint64_t t_last, next, period;
};

static bool
power_modeled(const struct hp_device *d)
{
	return d->caps.modeled && d->caps.power_busy_w > 0;
}

static void
power_open(struct pl_run *r, struct power *p, uint64_t now)
{
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int i;

	p->pw = malloc(sizeof(*p->pw));
	if (p->pw == NULL)
		return;
	hp_power_open(p->pw, getenv("HP_POWERCAP_DIR"));
	for (i = 0; i < r->n_dev; i++) {
		const struct hp_device *d = &r->dev[i];
		char nm[HP_POWER_NAMELEN];

		if (!power_modeled(d))
			continue;
		snprintf(nm, sizeof(nm), "%.36s (modeled)", d->name);
		if (hp_power_add_modeled(p->pw, nm, d->caps.power_idle_w, d->caps.power_busy_w) == 0)
			p->pw->src[p->pw->n - 1].off_w = d->caps.power_off_w;
		p->model_cyc[i] = LOAD(d->st.model_cycles);
	}
	hp_power_start(p->pw, (double)now / (double)r->hz);
	/* telemetry's copy: names first, then how many */
	for (i = 0; i < p->pw->n && i < HP_POWER_MAX; i++) {
		snprintf(r->power.name[i], sizeof(r->power.name[i]), "%s", p->pw->src[i].name);
		r->power.modeled[i] = p->pw->src[i].kind == HP_POWER_MODELED;
	}
	__atomic_store_n(&r->power.n, RTE_MIN(p->pw->n, (unsigned int)HP_POWER_MAX),
			 __ATOMIC_RELEASE);
	p->t_last = now;
	p->period = (uint64_t)((cfg->power_interval_s > 0 ? cfg->power_interval_s : 1.0) *
			       (double)r->hz);
	p->next = now + p->period;
}

/* One power sample: modeled devices get their modeled busy share over the
 * interval (modeled service time / elapsed time). */
static void
power_sample(struct pl_run *r, struct power *p, uint64_t now)
{
	struct hp_power *pw = p->pw;
	unsigned int i, k = 0;
	double dt = (double)(now - p->t_last);
	uint32_t off;

	for (i = 0; i < pw->n; i++)
		if (pw->src[i].kind != HP_POWER_MODELED)
			k++;
	/* a device a configuration-level policy switched off (sched pythia)
	 * draws its off power; it may still finish what it held */
	off = __atomic_load_n(&r->sc->s.off_mask, __ATOMIC_RELAXED);
	for (i = 0; i < r->n_dev && k < pw->n; i++) {
		const struct hp_device *d = &r->dev[i];
		uint64_t mc;

		if (!power_modeled(d))
			continue;
		pw->src[k].off = (off >> i) & 1 && LOAD(d->st.pkts) == p->pkts[i];
		p->pkts[i] = LOAD(d->st.pkts);
		mc = LOAD(d->st.model_cycles);
		/* the counters restart at the measured phase's epoch */
		pw->src[k++].util = dt > 0 && mc >= p->model_cyc[i] ?
			(double)(mc - p->model_cyc[i]) / dt : 0;
		p->model_cyc[i] = mc;
	}
	hp_power_sample(pw, (double)now / (double)r->hz);
	p->t_last = now;
	p->next = now + p->period;
	for (i = 0; i < pw->n && i < HP_POWER_MAX; i++) {
		__atomic_store(&r->power_w[i], &pw->src[i].watts, __ATOMIC_RELAXED);
		__atomic_store(&r->power.joules[i], &pw->src[i].joules, __ATOMIC_RELAXED);
	}
}

static void
power_close(struct power *p, const struct hp_run_result *res, struct hp_power_report *rep)
{
	if (p->pw == NULL)
		return;
	if (rep != NULL)
		hp_power_report(p->pw, res->duration_s, rep);
	hp_power_close(p->pw);
	free(p->pw);
	p->pw = NULL;
}

/* What can be refused before anything is built. The caller (hplane)
 * checks the same in its own terms first; these guard other callers. */
static int
run_check(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	unsigned int i, need = hp_run_lcores(cfg);

	r->app = cfg->mix.n > 1 ? pl_apps_chain(r) : hp_app_find(cfg->app);
	if (cfg->mix.n > 1 && cfg->task_gran) {
		snprintf(err, errlen, "--apps runs whole chains only (granularity chain)");
		return -ENOTSUP;
	}
	if (r->app == NULL) {
		snprintf(err, errlen, "unknown app '%s'", cfg->app);
		return -EINVAL;
	}
	for (i = 0; i < r->app->n_tasks; i++) {
		r->tasks[i] = hp_task_find(r->app->tasks[i]);
		if (r->tasks[i] == NULL) {
			snprintf(err, errlen, "app %s needs task '%s', which is not built in",
				 cfg->app, r->app->tasks[i]);
			return -ENOTSUP;
		}
	}
	if (cfg->workers == 0 || cfg->workers > HP_MAX_WORKERS) {
		snprintf(err, errlen, "workers must be 1..%d", HP_MAX_WORKERS);
		return -EINVAL;
	}
	if (cfg->burst == 0 || cfg->burst > HP_BURST) {
		snprintf(err, errlen, "burst must be 1..%d", HP_BURST);
		return -EINVAL;
	}
	if (!cfg->stages_as_services && cfg->n_service_cores) {
		snprintf(err, errlen, "service lcores given, but the stages do not run as services");
		return -EINVAL;
	}
	if (rte_lcore_count() < need) {
		snprintf(err, errlen, "%u workers%s need %u lcores but EAL has %u",
			 cfg->workers, cfg->n_gpu ? " and accelerators" : "", need, rte_lcore_count());
		return -EINVAL;
	}
	r->n_dev = cfg->workers + cfg->n_gpu;
	r->n_sc = cfg->sched_lcores > 1 ? cfg->sched_lcores : 1;
	return hp_run_multi_check(cfg, err, errlen);
}

/* Devices: cfg->workers cpu workers, then the accelerators in --gpu order, each
 * with a ring in and a ring out. --cpu-model makes each CPU worker a
 * modeled device with the profile's cpu section (docs/scheduling.md). */
static int
devices_build(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	char name[RTE_RING_NAMESIZE], cpu_spec[600] = "cpu", line[256];
	unsigned int i;
	int ret;

	r->task_cfg = cfg->task;
	r->task_cfg.tx_offload = r->tx_offload;
	r->env = (struct hp_dev_env){
		.epoch = &r->epoch,
		.burst = cfg->burst,
		.hz = r->hz,
		.app = r->app,
		.task_cfg = &r->task_cfg,
		.task_gran = cfg->task_gran,
	};
	memcpy(r->env.tasks, r->tasks, sizeof(r->tasks));
	/* where each app's part of the joint chain ends (one app: the chain) */
	r->env.n_apps = cfg->mix.n > 1 ? cfg->mix.n : 1;
	r->env.app_end[0] = (uint8_t)r->app->n_tasks;
	for (i = 0; i < cfg->mix.n; i++)
		r->env.app_end[i] = (uint8_t)(cfg->mix.first[i] + cfg->mix.app[i]->n_tasks);
	if (cfg->cpu_model != NULL &&
	    hp_device_cpu_model_spec(cpu_spec, sizeof(cpu_spec), cfg->cpu_model, cfg->burst,
				     "inflight=1,role=cpu") < 0) {
		snprintf(err, errlen, "CPU model spec too long");
		return -EINVAL;
	}
	for (i = 0; i < r->n_dev; i++) {
		struct hp_device *d = &r->dev[i];

		ret = hp_device_create(d, i < cfg->workers ? cpu_spec : cfg->gpus[i - cfg->workers], &r->env, i,
				       err, errlen);
		if (ret < 0)
			return ret;
		if (i < cfg->workers && cfg->cpu_model != NULL) {
			char nm[HP_DEV_NAMELEN];

			snprintf(nm, sizeof(nm), "cpu%u(%.30s)", i, d->name);
			memcpy(d->name, nm, sizeof(nm));
		}
		if (cfg->task_gran && r->app->n_tasks > 1 && !d->caps.one_task) {
			snprintf(err, errlen, "device %s runs whole chains only: granularity task needs devices that run one task at a time (cpu, model:)",
				 d->name);
			return -ENOTSUP;
		}
		/* several scheduler lcores: one input ring they all fill
		 * (multi-producer: an enqueue is a CAS on the head, see
		 * docs/scale-out.md for the measured cost) and a completion
		 * ring per scheduler, each packet back to its owner */
		snprintf(name, sizeof(name), "hp_d%u_in", i);
		d->in = rte_ring_create(name, cfg->ring_size, rte_socket_id(),
					r->n_sc > 1 ? RING_F_SC_DEQ : RING_F_SP_ENQ | RING_F_SC_DEQ);
		d->n_out = r->n_sc > 1 ? r->n_sc : 0;
		for (unsigned int o = 0; o < RTE_MAX(d->n_out, 1u); o++) {
			snprintf(name, sizeof(name), o ? "hp_d%u_out%u" : "hp_d%u_out", i, o);
			d->outs[o] = rte_ring_create(name, cfg->ring_size, rte_socket_id(),
						     RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (d->outs[o] == NULL)
				break;
		}
		d->out = d->outs[0];
		if (d->in == NULL || d->outs[RTE_MAX(d->n_out, 1u) - 1] == NULL) {
			snprintf(err, errlen, "cannot create device rings: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
		if (!cfg->quiet && hp_device_describe(d, line, sizeof(line)) == 0)
			printf("device %u: %s\n", i, line);
	}
	return 0;
}

/* A device as a stage: its poll is the pass. */
static void
device_start(void *arg, bool alone)
{
	RTE_SET_USED(alone);
	hp_device_start(arg);
}

static int
device_pass(void *arg)
{
	int n = hp_device_poll(arg);

	return n > 0 ? n : n == HP_DEV_POLL_DONE ? HP_STAGE_DONE : -EAGAIN;
}

static void
device_stop(void *arg)
{
	hp_device_quit(arg);
}

static const struct hp_stage_ops device_stage = {
	.name = "device",
	.start = device_start,
	.pass = device_pass,
	.stop = device_stop,
};

/* The stages in launch order (lcores 1.. or round robin over the service
 * lcores): devices, scheduler, then traffic for generated traffic. */
static void
stages_build(struct pl_run *r)
{
	unsigned int i;

	for (i = 0; i < r->n_dev; i++) {
		r->stage[i] = (struct hp_stage){ .ops = &device_stage, .arg = &r->dev[i] };
		snprintf(r->stage[i].name, sizeof(r->stage[i].name), "hp_%.28s", r->dev[i].name);
	}
	for (i = 0; i < r->n_sc; i++) {
		*PL_STAGE_SCHED(r, i) = (struct hp_stage){ .ops = &pl_sched_stage,
							   .arg = &r->sc[i] };
		if (r->n_sc > 1)
			snprintf(PL_STAGE_SCHED(r, i)->name, HP_STAGE_NAMELEN, "hp_sched%u", i);
		else
			snprintf(PL_STAGE_SCHED(r, i)->name, HP_STAGE_NAMELEN, "hp_sched");
	}
	*PL_STAGE_TRAFFIC(r) = (struct hp_stage){ .ops = &pl_traffic_stage, .arg = r,
						  .name = "hp_traffic" };
	r->n_stages = r->n_dev + r->n_sc + (pl_has_traffic(r) ? 1 : 0);
}

static int
run_build(struct pl_run *r, const struct hp_sched_ops *sops, struct hp_run_result *res,
	  char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	r->rows = calloc(HP_TRACE_MAX, sizeof(*r->rows));
	r->dev = rte_zmalloc("hp_devices", sizeof(*r->dev) * r->n_dev, RTE_CACHE_LINE_SIZE);
	r->sc = rte_zmalloc("hp_sched", sizeof(*r->sc) * r->n_sc, RTE_CACHE_LINE_SIZE);
	r->tr = rte_zmalloc("hp_traffic", sizeof(*r->tr), RTE_CACHE_LINE_SIZE);
	if (r->rows == NULL || r->dev == NULL || r->sc == NULL || r->tr == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* the port makes the pool: its mbufs as long as its frames */
	ret = pl_ports_setup(r, err, errlen);
	if (ret == 0)
		ret = devices_build(r, err, errlen);
	if (ret == 0)
		ret = pl_sched_setup(r, sops, err, errlen);
	if (ret == 0)
		ret = pl_traffic_setup(r, err, errlen);
	if (ret == 0)
		ret = pl_loads_init(r, err, errlen);
	if (ret < 0)
		return ret;
	res->n_load = pl_n_loops(r);
	for (i = 0; i < res->n_load; i++)
		snprintf(res->load_name[i], sizeof(res->load_name[i]), "%s",
			 pl_loop_load(r, i)->conf.name);
	stages_build(r);
	return 0;
}

/* The signal that asked the run to stop, or 0. */
static int
stop_signal(const struct pl_run *r)
{
	return r->cfg->stop_signal != NULL ? *r->cfg->stop_signal : 0;
}

/* Sleeps s seconds, or less once a stop is asked for. */
static void
nap(const struct pl_run *r, double s)
{
	uint64_t end = rte_rdtsc() + (uint64_t)(s * (double)r->hz);

	while (!stop_signal(r) && rte_rdtsc() < end)
		usleep(2000);
}

/* Capacity, measured with the same app at full rate unless given: the
 * sink's rate over the second half of the calibration. */
static void
calibrate(struct pl_run *r, struct hp_run_result *res)
{
	const struct hp_run_cfg *cfg = r->cfg;
	double half = cfg->calib_s / 2;
	uint64_t a, b, ta, tb;

	res->capacity_pps = cfg->capacity_pps;
	if (cfg->src != HP_SRC_GEN || cfg->capacity_pps > 0)
		return;
	STORE(r->calibrating, 1);
	pl_gen_set(r, true);
	nap(r, half);
	a = LOAD(r->tr->sink);
	ta = rte_rdtsc();
	nap(r, half);
	b = LOAD(r->tr->sink);
	tb = rte_rdtsc();
	pl_gen_set(r, false);
	pl_wait_drained(r);
	STORE(r->calibrating, 0);
	/* over the time the window took: a signal cuts it short */
	res->capacity_pps = tb > ta ? (double)(b - a) * (double)r->hz / (double)(tb - ta) : 0;
	if (res->capacity_pps < 1000)
		res->capacity_pps = 1000;
	if (!cfg->quiet)
		printf("capacity: %.3f Mpps measured over %.2f s with app %s\n",
		       res->capacity_pps / 1e6, half, cfg->app);
}

/* The measured phase: every stage zeroes its own counters at the epoch,
 * then the scenario runs until its time is up (or the file or the packet
 * budget is used up), with progress lines and power samples. */
static int
measure(struct pl_run *r, struct hp_run_result *res, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	char accs[HP_MAX_ACCEL * (HP_DEV_NAMELEN + 16)] = "";
	size_t ao = 0;
	struct power pw = { 0 };
	uint64_t start, stop_at, now;
	unsigned int i;
	int ret = 0;

	calibrate(r, res);
	if (cfg->src == HP_SRC_GEN && cfg->trace_file != NULL) {
		ret = hp_profile_load(&r->tr->prof, cfg->trace_file, res->capacity_pps,
				      err, errlen);
	} else if (cfg->src == HP_SRC_GEN &&
		   hp_profile_scenario(&r->tr->prof, cfg->scenario, res->capacity_pps,
				       cfg->duration_s, cfg->seed) < 0) {
		snprintf(err, errlen, "unknown scenario '%s' (low, medium, stress, standard, random)",
			 cfg->scenario);
		ret = -EINVAL;
	}
	if (ret < 0)
		return ret;
	STORE(r->epoch, 1);
	for (i = 0; i < r->n_stages; i++) {
		const int *seen = i < r->n_dev ? &r->dev[i].epoch_seen :
			i < r->n_dev + r->n_sc ? &r->sc[i - r->n_dev].epoch_seen :
			&r->tr->epoch_seen;

		while (LOAD(*seen) != 1)
			usleep(200);
	}
	/* the generator is off and drained: ethdev's counts start here */
	pl_port_ethdev(r, &r->eth0, true);
	start = rte_rdtsc();
	stop_at = start + (uint64_t)(cfg->duration_s * (double)r->hz);
	STORE(r->t0, start);
	power_open(r, &pw, start);
	for (i = cfg->workers; i < r->n_dev && ao < sizeof(accs); i++)
		ao += (size_t)snprintf(accs + ao, sizeof(accs) - ao, " + device %s%s", r->dev[i].name,
				       r->dev[i].caps.modeled ? " (modeled)" : "");
	printf("running: app %s, %u worker(s)%s, source %s, up to %.1f s\n", cfg->app,
	       cfg->workers, accs, cfg->src == HP_SRC_GEN ? "generator" : cfg->src_arg,
	       cfg->duration_s);
	fflush(stdout);
	if (cfg->src == HP_SRC_GEN)
		pl_gen_set(r, true);
	for (;;) {
		now = rte_rdtsc();
		pl_progress(r);
		if (pw.pw != NULL && now >= pw.next)
			power_sample(r, &pw, now);
		if (now >= stop_at || stop_signal(r) ||
		    (cfg->src == HP_SRC_PCAP &&
		     PL_SUM(r, rx) + pl_port_drops(r) >= r->pcap_count) ||
		    (cfg->max_packets && PL_SUM(r, rx) >= cfg->max_packets))
			break;
		usleep(2000);
	}
	res->duration_s = (double)(rte_rdtsc() - start) / (double)r->hz;
	res->interrupted = stop_signal(r);
	if (pw.pw != NULL)
		power_sample(r, &pw, rte_rdtsc());
	power_close(&pw, res, &res->power);
	return 0;
}

/* Stops the stages in the packets' order: the generator (or the pcap
 * replay), then the scheduler (it drains everything in flight), the
 * devices, the sink. */
static void
stages_stop(struct pl_run *r)
{
	unsigned int i;

	pl_gen_set(r, false);
	pl_ports_stop_rx(r);
	for (i = 0; i < r->n_sc; i++)
		hp_stage_stop(PL_STAGE_SCHED(r, i));
	for (i = 0; i < r->n_sc; i++)
		hp_launch_join(&r->launch, PL_STAGE_SCHED(r, i));
	for (i = 0; i < r->n_dev; i++) {
		hp_stage_stop(&r->stage[i]);
		hp_launch_join(&r->launch, &r->stage[i]);
	}
	if (r->n_stages > r->n_dev + r->n_sc) {
		hp_stage_stop(PL_STAGE_TRAFFIC(r));
		hp_launch_join(&r->launch, PL_STAGE_TRAFFIC(r));
	}
	hp_launch_end(&r->launch);
}

static void
run_teardown(struct pl_run *r, struct hp_run_result *res)
{
	unsigned int i;

	pl_loads_fini(r);
	pl_ports_close(r);
	if (r->dev != NULL) {
		for (i = 0; i < r->n_dev; i++) {
			hp_device_destroy(&r->dev[i]);
			rte_ring_free(r->dev[i].in);
			for (unsigned int o = 0; o < HP_DEV_MAX_OUT; o++)
				rte_ring_free(r->dev[i].outs[o]);
		}
	}
	pl_traffic_free(r);
	pl_sched_free(r);
	if (r->pool != NULL) {
		res->mbufs_total = r->pool->size;
		res->mbufs_leaked = r->pool->size - rte_mempool_avail_count(r->pool);
		rte_mempool_free(r->pool);
	}
	rte_free(r->dev);
	rte_free(r->sc);
	rte_free(r->tr);
	free(r->rows);
}

/* The pcap output, once its port is closed: renamed to its name when the
 * run went well and the file holds every frame sent (net_pcap does not
 * report a failed write: a full disk shows as a short file; a file is
 * its 24-byte header, then a 16-byte header and the frame for each), else
 * removed. */
static int
pcap_out_finish(struct pl_run *r, const struct hp_run_result *res, int ret, char *err,
		size_t errlen)
{
	struct stat st;

	if (ret == 0 && stat(r->tx_pcap_tmp, &st) == 0 &&
	    (uint64_t)st.st_size < 24 + 16 * res->delivered + res->bytes_delivered) {
		snprintf(err, errlen, "cannot write %s: %" PRIu64 " frames sent, %lld bytes written (disk full?)",
			 r->tx_pcap, res->delivered, (long long)st.st_size);
		ret = -EIO;
	} else if (ret == 0 && rename(r->tx_pcap_tmp, r->tx_pcap) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", r->tx_pcap, strerror(errno));
		ret = -EIO;
	}
	if (ret < 0)
		unlink(r->tx_pcap_tmp);
	return ret;
}

unsigned int
hp_run_lcores(const struct hp_run_cfg *cfg)
{
	if (cfg->stages_as_services)
		return 0;   /* every stage runs on the service lcores */
	return 2 + cfg->workers + cfg->n_gpu +
	       (cfg->sched_lcores > 1 ? cfg->sched_lcores - 1 : 0) +
	       (cfg->src == HP_SRC_GEN || (cfg->src == HP_SRC_PCAP && cfg->sched_lcores > 1) ?
		1 : 0);
}

int
hp_run(const struct hp_run_cfg *cfg, struct hp_run_result *res, char *err,
       size_t errlen)
{
	struct pl_run run, *r = &run;
	const struct hp_sched_ops *sops = hp_sched_find(cfg->sched);
	const struct hp_launch_conf lc = {
		.services = cfg->stages_as_services,
		.n_service_cores = cfg->n_service_cores,
		.service_cores = cfg->service_cores,
		.svc_mode = cfg->svc_mode,
		.svc_scale_down = cfg->svc_scale_down,
		.idle = cfg->idle_yield,
		.quiet = cfg->quiet,
	};
	int ret;

	memset(res, 0, sizeof(*res));
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->hz = rte_get_tsc_hz();
	if (sops == NULL) {
		snprintf(err, errlen, "unknown scheduler '%s'", cfg->sched);
		return -EINVAL;
	}
	ret = run_check(r, err, errlen);
	if (ret < 0)
		return ret;
	/* build */
	ret = run_build(r, sops, res, err, errlen);
	if (ret < 0)
		goto out;
	/* measure, readable on telemetry (pl_tel.c) while the stages run */
	ret = pl_tel_attach(r, err, errlen);
	if (ret == 0)
		ret = hp_launch_start(&r->launch, r->stage, r->n_stages, &lc, err, errlen);
	if (ret == 0)
		ret = measure(r, res, err, errlen);
	stages_stop(r);
	pl_tel_detach(r);
	pl_progress(r);
	if (ret == 0)
		pl_collect(r, res);
	if (ret == 0)
		pl_ports_report(r, &res->port);
	/* the policy's end of run (qlearn training writes its table) */
	if (ret == 0 && sops->finish != NULL)
		ret = sops->finish(&r->sc->s, err, errlen);
out:
	/* tear down */
	pl_tel_detach(r);
	run_teardown(r, res);
	if (r->tx_pcap_tmp[0] != '\0')
		ret = pcap_out_finish(r, res, ret, err, errlen);
	return ret;
}
