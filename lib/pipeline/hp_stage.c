/* SPDX-License-Identifier: BSD-3-Clause
 * The one launcher (hp_stage.h): stages on an lcore each, or as DPDK
 * services on service lcores balanced by lib/svc. Both run the same
 * start/pass/finish of a stage; only who calls the pass differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "hp_common.h"
#include "hp_stage.h"
#include "hp_svc.h"

#define IDLE_POLLS_BEFORE_YIELD 64
#define IDLE_POLLS_BEFORE_SLEEP 4

bool
hp_stage_done(const struct hp_stage *st)
{
	return __atomic_load_n(&st->done, __ATOMIC_ACQUIRE) != 0;
}

static void
stage_finish(struct hp_stage *st)
{
	if (st->ops->finish != NULL)
		st->ops->finish(st->arg);
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
}

/* An lcore of its own: the stage's passes back to back, pausing after one
 * that found nothing (yielding or sleeping after a while when the lcore
 * shares its CPU: --idle). One indirect call a pass. */
static int
stage_lcore_main(void *arg)
{
	struct hp_stage *st = arg;
	const int idle = st->launch->conf.idle;
	unsigned int idle_polls = 0;
	int n;

	if (st->ops->start != NULL)
		st->ops->start(st->arg, true);
	st->started = true;
	while ((n = st->ops->pass(st->arg)) != HP_STAGE_DONE) {
		if (n > 0)
			continue;
		if (idle && ++idle_polls >= (idle == HP_IDLE_SLEEP ?
					     IDLE_POLLS_BEFORE_SLEEP : IDLE_POLLS_BEFORE_YIELD)) {
			idle_polls = 0;
			hp_idle_giveup(idle);
		} else {
			rte_pause();
		}
	}
	stage_finish(st);
	return 0;
}

/* A stage as a service: one pass per call, -EAGAIN when it found nothing
 * (DPDK 22.11's idle value, which lib/svc's statistics and balancer read).
 * Registered MT-unsafe: DPDK never runs it on two lcores at once, so a
 * stage keeps its order (reorder, per-flow FIFO) and its single-producer/
 * consumer rings wherever it runs; lib/svc moves it only when it is not
 * running. After its last pass it stays idle until the services stop. */
static int32_t
stage_service(void *arg)
{
	struct hp_stage *st = arg;
	int n;

	if (st->done)
		return -EAGAIN;
	if (unlikely(!st->started)) {
		/* on the service lcore: lib/load notes the CPU it runs on */
		if (st->ops->start != NULL)
			st->ops->start(st->arg, false);
		st->started = true;
	}
	n = st->ops->pass(st->arg);
	if (n == HP_STAGE_DONE) {
		stage_finish(st);
		return -EAGAIN;
	}
	return n > 0 ? 0 : -EAGAIN;
}

static int
launch_lcores(struct hp_launch *l, char *err, size_t errlen)
{
	unsigned int next = rte_get_main_lcore(), i;
	int ret;

	for (i = 0; i < l->n; i++) {
		struct hp_stage *st = &l->stages[i];
		unsigned int lc = rte_get_next_lcore(next, 1, 0);

		if (lc >= RTE_MAX_LCORE) {
			snprintf(err, errlen, "ran out of lcores");
			return -ENODEV;
		}
		ret = rte_eal_remote_launch(stage_lcore_main, st, lc);
		if (ret < 0) {
			snprintf(err, errlen, "cannot launch lcore %u: %s", lc, strerror(-ret));
			return ret;
		}
		st->lcore = lc;
		st->launched = true;
		next = lc;
	}
	return 0;
}

static void
svc_event(const struct hp_svc_event *ev, void *arg)
{
	const struct hp_launch *l = arg;
	const char *name = "-";
	unsigned int i;

	if (l->conf.quiet)
		return;
	for (i = 0; i < l->n; i++)
		if (l->stages[i].svc_id == ev->service_id)
			name = l->stages[i].name;
	printf("services: %s %s lcore %d -> %d (%s)%s\n", hp_svc_action_name(ev->d.action),
	       name, ev->from_lcore, ev->to_lcore, ev->d.reason,
	       ev->result == 0 ? "" : " failed");
	fflush(stdout);
}

static int
check_service_cores(const struct hp_launch_conf *c, char *err, size_t errlen)
{
	unsigned int i, k;

	if (c->n_service_cores == 0 || c->n_service_cores > HP_SVC_MAX_LCORES) {
		snprintf(err, errlen, "stages as services need 1..%d service lcores",
			 HP_SVC_MAX_LCORES);
		return -EINVAL;
	}
	for (i = 0; i < c->n_service_cores; i++) {
		unsigned int lc = c->service_cores[i];

		if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) ||
		    lc == rte_get_main_lcore()) {
			snprintf(err, errlen, "service lcore %u is not an EAL worker lcore (the main lcore is %u)",
				 lc, rte_get_main_lcore());
			return -EINVAL;
		}
		for (k = 0; k < i; k++)
			if (c->service_cores[k] == lc) {
				snprintf(err, errlen, "service lcore %u listed twice", lc);
				return -EINVAL;
			}
	}
	return 0;
}

/* Registers every stage as a service, maps them round robin over the
 * service lcores in array order and starts them with the balancer's
 * control thread. */
static int
launch_services(struct hp_launch *l, char *err, size_t errlen)
{
	const struct hp_launch_conf *cf = &l->conf;
	struct hp_svc_conf c;
	unsigned int i;
	int ret;

	ret = check_service_cores(cf, err, errlen);
	if (ret < 0)
		return ret;
	hp_svc_conf_default(&c);
	c.balance = cf->svc_mode >= 0;
	if (c.balance) {
		c.policy.mode = (enum hp_svc_mode)cf->svc_mode;
		c.policy.scale_down = cf->svc_scale_down;
	}
	ret = hp_svc_init(&c);
	if (ret < 0) {
		snprintf(err, errlen, "service cores: %s", strerror(-ret));
		return ret;
	}
	hp_svc_set_event_cb(svc_event, l);
	for (i = 0; i < cf->n_service_cores; i++) {
		ret = hp_svc_lcore_add(cf->service_cores[i]);
		if (ret < 0) {
			snprintf(err, errlen, "lcore %u cannot be a service lcore: %s",
				 cf->service_cores[i], strerror(-ret));
			goto fail;
		}
	}
	for (i = 0; i < l->n; i++) {
		struct hp_stage *st = &l->stages[i];
		unsigned int lc = cf->service_cores[i % cf->n_service_cores];

		ret = hp_svc_register(st->name, stage_service, st, 0, &st->svc_id);
		if (ret == 0)
			ret = hp_svc_map(st->svc_id, lc, true);
		if (ret < 0) {
			snprintf(err, errlen, "service %s: %s", st->name, strerror(-ret));
			goto fail;
		}
		if (!cf->quiet)
			printf("services: %s on lcore %u\n", st->name, lc);
	}
	ret = hp_svc_start();
	if (ret == 0)
		ret = hp_svc_ctl_start();
	if (ret < 0) {
		snprintf(err, errlen, "service cores: cannot start: %s", strerror(-ret));
		goto fail;
	}
	for (i = 0; i < l->n; i++)
		l->stages[i].launched = true;
	l->svc_on = true;
	return 0;
fail:
	hp_svc_fini();
	return ret;
}

int
hp_launch_start(struct hp_launch *l, struct hp_stage *stages, unsigned int n,
		const struct hp_launch_conf *conf, char *err, size_t errlen)
{
	unsigned int i;

	*l = (struct hp_launch){ .conf = *conf, .stages = stages, .n = n };
	for (i = 0; i < n; i++) {
		stages[i].launch = l;
		stages[i].launched = stages[i].started = false;
		stages[i].done = 0;
	}
	return conf->services ? launch_services(l, err, errlen) :
				launch_lcores(l, err, errlen);
}

void
hp_stage_stop(struct hp_stage *st)
{
	st->ops->stop(st->arg);
}

void
hp_launch_join(struct hp_launch *l, struct hp_stage *st)
{
	RTE_SET_USED(l);
	if (!st->launched) {
		stage_finish(st);
		return;
	}
	while (!hp_stage_done(st))
		usleep(200);
}

/* Where each service ended, what the balancer did, and the services' own
 * statistics (useful share of their calls' cycles). */
static void
services_report(const struct hp_launch *l)
{
	const struct hp_launch_conf *cf = &l->conf;
	unsigned int k, i, n;

	for (k = 0; k < l->n; k++) {
		struct hp_svc_stats t = { 0 };
		uint32_t run = hp_svc_running(l->stages[k].svc_id);

		for (i = 0; i < hp_svc_lcore_count(); i++) {
			struct hp_svc_stats x;

			if (hp_svc_stats_get(l->stages[k].svc_id, hp_svc_lcore_id(i),
					     HP_SVC_CUMULATIVE, &x) < 0)
				continue;
			t.calls += x.calls;
			t.idle_calls += x.idle_calls;
			t.busy_cycles += x.busy_cycles;
			t.call_cycles += x.call_cycles;
		}
		printf("services: %s ends on lcore %d: %" PRIu64 " calls, %.1f %% idle, "
		       "%.1f %% of its cycles useful\n", l->stages[k].name,
		       run ? (int)hp_svc_lcore_id((unsigned int)__builtin_ctz(run)) : -1,
		       t.calls, t.calls ? 100.0 * (double)t.idle_calls / (double)t.calls : 0.0,
		       t.call_cycles ? 100.0 * (double)t.busy_cycles / (double)t.call_cycles : 0.0);
	}
	printf("services: balancer actions %" PRIu64 " (failed %" PRIu64 ")\n",
	       hp_svc_moves(), hp_svc_move_failures());
	for (k = 0, n = 0; k < cf->n_service_cores; k++)
		n += hp_svc_lcore_active(cf->service_cores[k]);
	printf("services: %u of %u service lcores active at the end%s\n", n,
	       cf->n_service_cores, cf->svc_scale_down ? " (scale-down on)" : "");
}

void
hp_launch_end(struct hp_launch *l)
{
	unsigned int i;

	if (l->svc_on) {
		if (!l->conf.quiet)
			services_report(l);
		hp_svc_fini();
		l->svc_on = false;
		return;
	}
	for (i = 0; i < l->n; i++)
		if (l->stages[i].launched && !l->conf.services)
			rte_eal_wait_lcore(l->stages[i].lcore);
}
