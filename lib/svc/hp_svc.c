/* SPDX-License-Identifier: BSD-3-Clause
 * Service-core runtime: the timing trampoline every managed service runs
 * through, period/interval statistics, and the code that applies the
 * balancer's decisions to DPDK's service mapping without ever running a
 * service where it should not (see hp_svc.h).
 *
 * Migration protocol (the thesis moved services from inside the service
 * loop; here a control thread does it, so it has to prove what the loop
 * could assume): unmap the service from the source lcore, wait until the
 * source's runner has completed two more loops (the loop in flight may
 * hold a mask snapshot that still has the service; the next one reads the
 * new mask), check the trampoline's in-call flag for that lcore and, when
 * no other instance is mapped, rte_service_may_be_active() == 0; only then
 * map it on the destination and wait for the destination's loop counter to
 * advance. On any failure the source mapping is restored.
 *
 * Two DPDK 22.11 runner details make this need care: a runner whose mask
 * is empty spins without counting loops, and it visits only the service
 * ids between the lowest and the highest mapped one, so the "active on
 * this lcore" flag of an unmapped service outside that range never clears
 * and rte_service_may_be_active() would say 1 forever. Two idle sentinel
 * services, one registered before and one after every managed service
 * (lowest and highest id), are mapped on the source lcore while a service
 * leaves it: loops keep counting and the leaving id stays inside the
 * visited range. They are unmapped again afterwards, so they cost nothing
 * between migrations.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_memory.h>
#include <rte_pause.h>
#include <rte_per_lcore.h>
#include <rte_service.h>
#include <rte_service_component.h>
#include <rte_thread.h>

#include "hp_svc.h"

RTE_LOG_REGISTER(hp_svc_logtype, heteroplane.svc, INFO);
#define SVC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hp_svc_logtype, "hp_svc: " fmt "\n", ##__VA_ARGS__)

#define SLOT_OTHER HP_SVC_MAX_LCORES	/* calls from unmanaged lcores */
#define N_SLOTS (HP_SVC_MAX_LCORES + 1)

/* Counters of one service on one lcore. Written only by that lcore (plain
 * load + relaxed store), read by the control thread; the unmanaged slot
 * may have several writers and uses atomic adds.
 */
struct slot {
	/* A call adds to exactly one of these two, so a reader's interval
	 * never shows work (or a negative count) that a half-updated pair
	 * would make up; calls is their sum. */
	uint64_t busy_calls;
	uint64_t idle_calls;
	uint64_t busy_cycles;
	uint64_t call_cycles;
	uint64_t delay_sum;
	uint64_t delay_n;
	uint64_t delay_max;
	uint32_t in_call;
} __rte_cache_aligned;

struct svc {
	bool foreign;		/* adopted: DPDK's counters, no trampoline */
	bool no_active_check;	/* id outside the sentinels' range */
	bool mt_safe;
	hp_svc_fn fn;
	void *arg;
	uint32_t allowed;	/* lcore indices */
	uint32_t running;
	uint64_t dpdk_calls;	/* foreign: last DPDK readings */
	uint64_t dpdk_cycles;
	struct slot slot[N_SLOTS];
};

struct snap {
	struct hp_svc_stats at_period;	/* cumulative at the last period end */
	struct hp_svc_stats at_interval;
	struct hp_svc_stats period;	/* the last closed period */
	struct hp_svc_stats interval;	/* the last closed interval */
};

static struct {
	bool inited;
	bool started;
	struct hp_svc_conf conf;
	uint64_t period_cycles, interval_cycles, migrate_timeout;
	unsigned int n_lcores;
	unsigned int lcore_id[HP_SVC_MAX_LCORES];
	int idx_of[RTE_MAX_LCORE];
	uint32_t active;
	uint64_t present;
	uint64_t own;		/* registered here (unregistered at fini) */
	uint32_t sent_lo, sent_hi; /* sentinel service ids */
	bool have_hi;
	struct svc *svc[HP_SVC_MAX_SERVICES];
	struct snap snap[HP_SVC_MAX_SERVICES][N_SLOTS];
	uint64_t t_start, period_start, interval_start, next_period, next_interval;
	uint64_t loops_at[HP_SVC_MAX_LCORES];	/* runner loops at the interval start */
	uint64_t loops_iv[HP_SVC_MAX_LCORES];	/* ... during the last interval */
	struct hp_svc_table table;
	struct hp_svc_bstate bstate;
	bool settle;		/* the interval after an action straddles it */
	hp_svc_event_cb ev_cb;
	void *ev_arg;
	hp_svc_period_cb period_cb;
	void *period_arg;
	uint64_t moves, failures;
	pthread_mutex_t lock;
	pthread_t ctl;
	bool ctl_running;
	volatile bool ctl_stop;
} G = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The slot the current lcore's running service writes (for job delays). */
static RTE_DEFINE_PER_LCORE(struct slot *, cur_slot);
static RTE_DEFINE_PER_LCORE(bool, cur_shared);

static inline void
add_own(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

/* Cost: two rdtsc, the per-lcore pointer and four relaxed stores per call.
 * svc-bench overhead, runner loop of one idle service on this shared VM's
 * Xeon (best 10 ms window): 42-74 cycles bare, 79-118 with DPDK's own
 * statistics, 128-205 through here, i.e. ~90 cycles a call (docs/svc.md).
 */
static int32_t
svc_trampoline(void *arg)
{
	struct svc *s = arg;
	unsigned int lc = rte_lcore_id();
	int idx = lc < RTE_MAX_LCORE ? G.idx_of[lc] : -1;
	struct slot *sl;
	uint64_t t0, dt;
	int32_t rc;

	if (unlikely(idx < 0)) {	/* an application lcore ran it */
		sl = &s->slot[SLOT_OTHER];
		RTE_PER_LCORE(cur_slot) = sl;
		RTE_PER_LCORE(cur_shared) = true;
		t0 = rte_rdtsc();
		rc = s->fn(s->arg);
		dt = rte_rdtsc() - t0;
		RTE_PER_LCORE(cur_slot) = NULL;
		__atomic_fetch_add(&sl->call_cycles, dt, __ATOMIC_RELAXED);
		if (rc == -EAGAIN) {
			__atomic_fetch_add(&sl->idle_calls, 1, __ATOMIC_RELAXED);
		} else {
			__atomic_fetch_add(&sl->busy_calls, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&sl->busy_cycles, dt, __ATOMIC_RELAXED);
		}
		return rc;
	}
	sl = &s->slot[idx];
	__atomic_store_n(&sl->in_call, 1, __ATOMIC_RELAXED);
	RTE_PER_LCORE(cur_slot) = sl;
	RTE_PER_LCORE(cur_shared) = false;
	t0 = rte_rdtsc();
	rc = s->fn(s->arg);
	dt = rte_rdtsc() - t0;
	RTE_PER_LCORE(cur_slot) = NULL;
	add_own(&sl->call_cycles, dt);
	if (rc == -EAGAIN) {
		add_own(&sl->idle_calls, 1);
	} else {
		add_own(&sl->busy_calls, 1);
		add_own(&sl->busy_cycles, dt);
	}
	__atomic_store_n(&sl->in_call, 0, __ATOMIC_RELEASE);
	return rc;
}

void
hp_svc_job_delay(uint64_t cycles)
{
	struct slot *sl = RTE_PER_LCORE(cur_slot);

	if (sl == NULL)
		return;
	if (RTE_PER_LCORE(cur_shared)) {
		__atomic_fetch_add(&sl->delay_sum, cycles, __ATOMIC_RELAXED);
		__atomic_fetch_add(&sl->delay_n, 1, __ATOMIC_RELAXED);
		return;
	}
	add_own(&sl->delay_sum, cycles);
	add_own(&sl->delay_n, 1);
	if (cycles > sl->delay_max)
		__atomic_store_n(&sl->delay_max, cycles, __ATOMIC_RELAXED);
}

/* Sentinel: mapped on a source lcore during a migration, never works. */
static int32_t
sentinel_fn(void *arg)
{
	RTE_SET_USED(arg);
	return -EAGAIN;
}

/* Register a sentinel whose id is above 'above' (or the lowest free one
 * when above < 0): DPDK hands out the lowest free id, so fill any lower
 * holes with temporary registrations first and release them afterwards.
 */
static int
sentinel_register(const char *tag, int above, uint32_t *id)
{
	struct rte_service_spec spec = {
		.callback = sentinel_fn,
		.capabilities = RTE_SERVICE_CAP_MT_SAFE,
		.socket_id = SOCKET_ID_ANY,
	};
	uint32_t hold[HP_SVC_MAX_SERVICES], sid = 0;
	unsigned int n = 0, i;
	int ret;

	for (;;) {
		snprintf(spec.name, sizeof(spec.name), "hp_svc_%s_%u", tag, n);
		ret = rte_service_component_register(&spec, &sid);
		if (ret < 0)
			break;
		if ((int)sid > above || n == HP_SVC_MAX_SERVICES - 1)
			break;
		hold[n++] = sid;
	}
	for (i = 0; i < n; i++)
		rte_service_component_unregister(hold[i]);
	if (ret < 0 || (int)sid <= above) {
		if (ret == 0)
			rte_service_component_unregister(sid);
		SVC_LOG(ERR, "no service id left for the %s sentinel", tag);
		return ret < 0 ? ret : -ENOSPC;
	}
	rte_service_component_runstate_set(sid, 1);
	rte_service_runstate_set(sid, 1);
	*id = sid;
	return 0;
}

static void
sentinels_map(unsigned int lcore, bool on)
{
	rte_service_map_lcore_set(G.sent_lo, lcore, on);
	if (G.have_hi)
		rte_service_map_lcore_set(G.sent_hi, lcore, on);
}

void
hp_svc_conf_default(struct hp_svc_conf *c)
{
	*c = (struct hp_svc_conf){
		.period_us = 250,
		.interval_us = 5000,
		.balance = true,
		.dpdk_stats = false,
		.migrate_timeout_us = 100000,
	};
	hp_svc_policy_default(&c->policy);
}

int
hp_svc_init(const struct hp_svc_conf *c)
{
	unsigned int i;

	if (c == NULL || G.inited)
		return -EINVAL;
	if (c->period_us == 0 || c->interval_us < c->period_us ||
	    c->interval_us % c->period_us != 0 || c->migrate_timeout_us == 0 ||
	    hp_svc_policy_check(&c->policy) < 0) {
		SVC_LOG(ERR, "bad configuration (period %u us, interval %u us)",
			c->period_us, c->interval_us);
		return -EINVAL;
	}
	memset(G.svc, 0, sizeof(G.svc));
	G.conf = *c;
	G.period_cycles = (uint64_t)c->period_us * rte_get_tsc_hz() / 1000000;
	G.interval_cycles = (uint64_t)c->interval_us * rte_get_tsc_hz() / 1000000;
	G.migrate_timeout = (uint64_t)c->migrate_timeout_us * rte_get_tsc_hz() / 1000000;
	G.n_lcores = 0;
	for (i = 0; i < RTE_MAX_LCORE; i++)
		G.idx_of[i] = -1;
	G.active = 0;
	G.present = G.own = 0;
	G.moves = G.failures = 0;
	G.ev_cb = NULL;
	G.period_cb = NULL;
	G.started = false;
	G.have_hi = false;
	if (sentinel_register("lo", -1, &G.sent_lo) < 0)
		return -ENOSPC;
	G.inited = true;
	return 0;
}

int
hp_svc_lcore_add(unsigned int lcore_id)
{
	int ret;

	if (!G.inited || G.started || lcore_id >= RTE_MAX_LCORE ||
	    G.n_lcores == HP_SVC_MAX_LCORES || G.idx_of[lcore_id] >= 0)
		return -EINVAL;
	/* the main lcore runs the application; only EAL worker lcores can
	 * become service lcores (DPDK itself would accept the main one)
	 */
	if (lcore_id == rte_get_main_lcore() || !rte_lcore_is_enabled(lcore_id)) {
		SVC_LOG(ERR, "lcore %u is not an EAL worker lcore", lcore_id);
		return -EINVAL;
	}
	ret = rte_service_lcore_add(lcore_id);
	if (ret < 0 && ret != -EALREADY) {
		SVC_LOG(ERR, "lcore %u cannot be a service lcore: %s", lcore_id,
			strerror(-ret));
		return ret;
	}
	G.idx_of[lcore_id] = (int)G.n_lcores;
	G.lcore_id[G.n_lcores++] = lcore_id;
	return (int)G.n_lcores - 1;
}

int
hp_svc_lcore_index(unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE ? G.idx_of[lcore_id] : -1;
}

unsigned int
hp_svc_lcore_id(unsigned int index)
{
	return index < G.n_lcores ? G.lcore_id[index] : RTE_MAX_LCORE;
}

unsigned int
hp_svc_lcore_count(void)
{
	return G.n_lcores;
}

bool
hp_svc_lcore_active(unsigned int lcore_id)
{
	int i = hp_svc_lcore_index(lcore_id);

	return i >= 0 && (G.active >> i) & 1u;
}

static uint32_t
all_lcores(void)
{
	return G.n_lcores == 32 ? UINT32_MAX : (1u << G.n_lcores) - 1;
}

static struct svc *
svc_alloc(uint32_t flags)
{
	/* the slots are cache-line aligned, so is the struct's size */
	struct svc *sv = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*sv));

	if (sv == NULL)
		return NULL;
	memset(sv, 0, sizeof(*sv));
	sv->mt_safe = (flags & HP_SVC_F_MT_SAFE) != 0;
	sv->allowed = all_lcores();
	return sv;
}

static void
svc_install(uint32_t id, struct svc *sv)
{
	G.svc[id] = sv;
	memset(G.snap[id], 0, sizeof(G.snap[id]));
	G.present |= UINT64_C(1) << id;
}

int
hp_svc_register(const char *name, hp_svc_fn fn, void *arg, uint32_t flags,
		uint32_t *id)
{
	struct rte_service_spec spec = {
		.callback = svc_trampoline,
		.capabilities = (flags & HP_SVC_F_MT_SAFE) ? RTE_SERVICE_CAP_MT_SAFE : 0,
		.socket_id = SOCKET_ID_ANY,
	};
	struct svc *sv;
	uint32_t sid;
	int ret;

	if (!G.inited || name == NULL || fn == NULL || id == NULL ||
	    (flags & ~HP_SVC_F_MT_SAFE) != 0)
		return -EINVAL;
	if (G.started)
		return -EBUSY;	/* the high sentinel is placed at start */
	if (snprintf(spec.name, sizeof(spec.name), "%s", name) >= (int)sizeof(spec.name)) {
		SVC_LOG(ERR, "service name '%s' longer than %d", name,
			RTE_SERVICE_NAME_MAX - 1);
		return -EINVAL;
	}
	sv = svc_alloc(flags);
	if (sv == NULL)
		return -ENOMEM;
	sv->fn = fn;
	sv->arg = arg;
	spec.callback_userdata = sv;
	pthread_mutex_lock(&G.lock);
	ret = rte_service_component_register(&spec, &sid);
	if (ret < 0) {
		SVC_LOG(ERR, "registering '%s': %s", name, strerror(-ret));
		goto fail;
	}
	if (sid >= HP_SVC_MAX_SERVICES) {
		rte_service_component_unregister(sid);
		ret = -ENOSPC;
		goto fail;
	}
	svc_install(sid, sv);
	sv->no_active_check = sid < G.sent_lo;
	G.own |= UINT64_C(1) << sid;
	rte_service_component_runstate_set(sid, 1);
	rte_service_set_stats_enable(sid, G.conf.dpdk_stats);
	pthread_mutex_unlock(&G.lock);
	*id = sid;
	return 0;
fail:
	pthread_mutex_unlock(&G.lock);
	free(sv);
	return ret;
}

int
hp_svc_adopt(uint32_t id)
{
	struct svc *sv;
	unsigned int i;

	if (!G.inited || G.started || id >= HP_SVC_MAX_SERVICES ||
	    rte_service_get_name(id) == NULL || (G.present >> id) & 1u)
		return -EINVAL;
	sv = svc_alloc(rte_service_probe_capability(id, RTE_SERVICE_CAP_MT_SAFE) == 1 ?
		       HP_SVC_F_MT_SAFE : 0);
	if (sv == NULL)
		return -ENOMEM;
	sv->foreign = true;
	sv->no_active_check = id < G.sent_lo;
	for (i = 0; i < G.n_lcores; i++)
		if (rte_service_map_lcore_get(id, G.lcore_id[i]) == 1)
			sv->running |= 1u << i;
	rte_service_set_stats_enable(id, 1);
	pthread_mutex_lock(&G.lock);
	svc_install(id, sv);
	pthread_mutex_unlock(&G.lock);
	return 0;
}

static bool
managed(uint32_t id)
{
	return id < HP_SVC_MAX_SERVICES && ((G.present >> id) & 1u);
}

int
hp_svc_allow(uint32_t id, unsigned int lcore_id, bool allow)
{
	int i = hp_svc_lcore_index(lcore_id);
	int ret = 0;

	if (!managed(id) || i < 0)
		return -EINVAL;
	pthread_mutex_lock(&G.lock);
	if (allow)
		G.svc[id]->allowed |= 1u << i;
	else if ((G.svc[id]->running >> i) & 1u)
		ret = -EBUSY;
	else
		G.svc[id]->allowed &= ~(1u << i);
	pthread_mutex_unlock(&G.lock);
	return ret;
}

uint32_t
hp_svc_running(uint32_t id)
{
	return managed(id) ? __atomic_load_n(&G.svc[id]->running, __ATOMIC_RELAXED) : 0;
}

uint64_t
hp_svc_lcore_loops(unsigned int lcore_id)
{
	uint64_t v = 0;

	if (rte_service_lcore_attr_get(lcore_id, RTE_SERVICE_LCORE_ATTR_LOOPS, &v) < 0)
		return 0;
	return v;
}

/* One step of waiting for a runner. The runner may share this CPU, and
 * the control side may run at a higher real-time priority than the runner
 * (svc-bench --rt: service lcores SCHED_FIFO 1, control 2): sched_yield()
 * gives the CPU only to threads of the same priority, so a control thread
 * that yields keeps the runner it waits for off its CPU until the
 * kernel's real-time throttling (measured: 33-100 ms migrations). Spin for
 * up to 20 us (a runner on a core of its own loops every few hundred ns,
 * or once a job), then sleep 100 us a step. Not shorter: on this
 * project's VM a sleep and wake-up costs the CPU ~40 us, so 10 us sleeps
 * left the runner nothing (a FIFO spinner under a 10 us sleeper got
 * 0.01 % of its CPU, under a 100 us one 68 %).
 */
struct waiter {
	uint64_t spin_until;
};

static void
wait_init(struct waiter *w)
{
	w->spin_until = rte_rdtsc() + rte_get_tsc_hz() / 50000;
}

static void
wait_step(struct waiter *w)
{
	const struct timespec ts = { .tv_sec = 0, .tv_nsec = 100000 };

	if (rte_rdtsc() < w->spin_until)
		rte_pause();
	else
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* rte_eal_wait_lcore() spins, which would hold a lower-priority runner on
 * this CPU off: wait with wait_step() until the lcore has returned.
 */
static void
wait_lcore_done(unsigned int lcore)
{
	struct waiter w;

	wait_init(&w);
	while (rte_eal_get_lcore_state(lcore) == RUNNING)
		wait_step(&w);
	rte_eal_wait_lcore(lcore);
}

/* Wait until lcore's runner has looped 'n' more times than 'base'. */
static int
wait_loops(unsigned int lcore, uint64_t base, uint64_t n)
{
	uint64_t end = rte_rdtsc() + G.migrate_timeout;
	struct waiter w;

	wait_init(&w);
	while (hp_svc_lcore_loops(lcore) < base + n) {
		if (rte_rdtsc() > end) {
			SVC_LOG(WARNING, "service lcore %u looped %" PRIu64 " of %" PRIu64
				" times in %u us (descheduled?)", lcore,
				hp_svc_lcore_loops(lcore) - base, n,
				G.conf.migrate_timeout_us);
			return -ETIMEDOUT;
		}
		wait_step(&w);
	}
	return 0;
}

/* After unmapping id from lcore index i: prove it no longer runs there. */
static int
wait_quiet(uint32_t id, unsigned int i)
{
	struct svc *s = G.svc[id];
	unsigned int lcore = G.lcore_id[i];
	uint64_t end;
	struct waiter w;
	int ret;

	ret = wait_loops(lcore, hp_svc_lcore_loops(lcore), 2);
	if (ret < 0)
		return ret;
	if (!s->foreign && __atomic_load_n(&s->slot[i].in_call, __ATOMIC_ACQUIRE))
		return -EBUSY;
	if (s->running & ~(1u << i))
		return 0;	/* other instances run: may_be_active says 1 */
	if (s->no_active_check)
		return 0;	/* DPDK never clears its flag (see top) */
	end = rte_rdtsc() + G.migrate_timeout;
	wait_init(&w);
	while ((ret = rte_service_may_be_active(id)) != 0) {
		if (ret < 0)
			return ret;
		if (rte_rdtsc() > end)
			return -EBUSY;
		wait_step(&w);
	}
	return 0;
}

static int
lcore_unpark(unsigned int i)
{
	unsigned int lcore = G.lcore_id[i];
	int ret;

	if ((G.active >> i) & 1u)
		return 0;
	ret = rte_service_lcore_start(lcore);
	if (ret < 0 && ret != -EALREADY) {
		SVC_LOG(ERR, "starting service lcore %u: %s", lcore, strerror(-ret));
		return ret;
	}
	G.active |= 1u << i;
	return 0;
}

static int
lcore_park(unsigned int i)
{
	unsigned int lcore = G.lcore_id[i];
	uint64_t s;
	int ret;

	for (s = 0; s < HP_SVC_MAX_SERVICES; s++)
		if (managed(s) && ((G.svc[s]->running >> i) & 1u))
			return -EBUSY;
	ret = rte_service_lcore_stop(lcore);
	if (ret < 0 && ret != -EALREADY)
		return ret;
	/* the runner returns after its current loop; the lcore then waits */
	wait_lcore_done(lcore);
	G.active &= ~(1u << i);
	return 0;
}

static int
unmap_safely(uint32_t id, unsigned int from)
{
	struct svc *s = G.svc[id];
	int ret;

	if (!((G.active >> from) & 1u)) {	/* nothing runs there */
		ret = rte_service_map_lcore_set(id, G.lcore_id[from], 0);
		if (ret == 0)
			__atomic_store_n(&s->running, s->running & ~(1u << from),
					 __ATOMIC_RELAXED);
		return ret;
	}
	sentinels_map(G.lcore_id[from], true);
	ret = rte_service_map_lcore_set(id, G.lcore_id[from], 0);
	if (ret == 0)
		ret = wait_quiet(id, from);
	sentinels_map(G.lcore_id[from], false);
	if (ret < 0) {
		rte_service_map_lcore_set(id, G.lcore_id[from], 1);
		return ret;
	}
	__atomic_store_n(&s->running, s->running & ~(1u << from), __ATOMIC_RELAXED);
	return 0;
}

static int
map_checked(uint32_t id, unsigned int to)
{
	struct svc *s = G.svc[id];
	unsigned int lcore = G.lcore_id[to];
	uint64_t base = hp_svc_lcore_loops(lcore);
	int ret;

	ret = rte_service_map_lcore_set(id, lcore, 1);
	if (ret < 0)
		return ret;
	__atomic_store_n(&s->running, s->running | (1u << to), __ATOMIC_RELAXED);
	if (!G.started || !((G.active >> to) & 1u))
		return 0;
	/* the destination keeps looping (so it will run the service) */
	return wait_loops(lcore, base, 2);
}

static int
migrate(uint32_t id, unsigned int from, unsigned int to, bool unpark)
{
	int ret;

	if (unpark) {
		ret = lcore_unpark(to);
		if (ret < 0)
			return ret;
	}
	ret = unmap_safely(id, from);
	if (ret < 0)
		return ret;
	ret = map_checked(id, to);
	if (ret < 0 && ret != -ETIMEDOUT) {
		/* could not map: put it back where it was */
		rte_service_map_lcore_set(id, G.lcore_id[from], 1);
		__atomic_store_n(&G.svc[id]->running, G.svc[id]->running | (1u << from),
				 __ATOMIC_RELAXED);
	}
	return ret;
}

int
hp_svc_map(uint32_t id, unsigned int lcore_id, bool on)
{
	int i = hp_svc_lcore_index(lcore_id);
	struct svc *s;
	int ret;

	if (!managed(id) || i < 0)
		return -EINVAL;
	s = G.svc[id];
	pthread_mutex_lock(&G.lock);
	if (on && !((s->allowed >> i) & 1u))
		ret = -EPERM;
	else if (on == (bool)((s->running >> i) & 1u))
		ret = 0;
	else if (on && !s->mt_safe && s->running)
		ret = -EBUSY;	/* one instance only: move it instead */
	else if (on)
		ret = map_checked(id, (unsigned int)i);
	else if (G.started)
		ret = unmap_safely(id, (unsigned int)i);
	else {
		ret = rte_service_map_lcore_set(id, lcore_id, 0);
		if (ret == 0)
			s->running &= ~(1u << i);
	}
	pthread_mutex_unlock(&G.lock);
	return ret;
}

/* ---- statistics ---- */

static void
slot_read(const struct slot *sl, struct hp_svc_stats *o)
{
	o->idle_calls = __atomic_load_n(&sl->idle_calls, __ATOMIC_RELAXED);
	o->calls = __atomic_load_n(&sl->busy_calls, __ATOMIC_RELAXED) + o->idle_calls;
	o->busy_cycles = __atomic_load_n(&sl->busy_cycles, __ATOMIC_RELAXED);
	o->call_cycles = __atomic_load_n(&sl->call_cycles, __ATOMIC_RELAXED);
	o->delay_sum = __atomic_load_n(&sl->delay_sum, __ATOMIC_RELAXED);
	o->delay_n = __atomic_load_n(&sl->delay_n, __ATOMIC_RELAXED);
	o->delay_max = __atomic_load_n(&sl->delay_max, __ATOMIC_RELAXED);
	o->total_cycles = 0;
}

static void
stats_sub(struct hp_svc_stats *o, const struct hp_svc_stats *a,
	  const struct hp_svc_stats *b, uint64_t total)
{
	o->calls = a->calls - b->calls;
	o->idle_calls = a->idle_calls - b->idle_calls;
	o->busy_cycles = a->busy_cycles - b->busy_cycles;
	o->call_cycles = a->call_cycles - b->call_cycles;
	o->delay_sum = a->delay_sum - b->delay_sum;
	o->delay_n = a->delay_n - b->delay_n;
	o->delay_max = a->delay_max;	/* running maximum, not per window */
	o->total_cycles = total;
}

/* Adopted services: spread DPDK's new calls and busy cycles evenly over
 * the lcores the service is mapped on (exact when it runs on one).
 */
static void
sample_foreign(uint32_t id)
{
	struct svc *s = G.svc[id];
	uint64_t calls = 0, cycles = 0, dc, dy;
	unsigned int n = __builtin_popcount(s->running), i;

	rte_service_attr_get(id, RTE_SERVICE_ATTR_CALL_COUNT, &calls);
	rte_service_attr_get(id, RTE_SERVICE_ATTR_CYCLES, &cycles);
	dc = calls - s->dpdk_calls;
	dy = cycles - s->dpdk_cycles;
	s->dpdk_calls = calls;
	s->dpdk_cycles = cycles;
	if (n == 0)
		return;
	for (i = 0; i < G.n_lcores; i++) {
		if (!((s->running >> i) & 1u))
			continue;
		s->slot[i].busy_calls += dc / n; /* DPDK counts no idle calls */
		s->slot[i].call_cycles += dy / n;
		s->slot[i].busy_cycles += dy / n;
	}
}

static void
sample(uint64_t now, bool close_interval)
{
	uint64_t dp = now - G.period_start, di = now - G.interval_start;
	uint32_t id;
	unsigned int l;

	for (id = 0; id < HP_SVC_MAX_SERVICES; id++) {
		if (!managed(id))
			continue;
		if (G.svc[id]->foreign)
			sample_foreign(id);
		for (l = 0; l < N_SLOTS; l++) {
			struct snap *sn = &G.snap[id][l];
			struct hp_svc_stats cur;

			if (l >= G.n_lcores && l != SLOT_OTHER)
				continue;
			slot_read(&G.svc[id]->slot[l], &cur);
			stats_sub(&sn->period, &cur, &sn->at_period, dp);
			sn->at_period = cur;
			if (close_interval) {
				stats_sub(&sn->interval, &cur, &sn->at_interval, di);
				sn->at_interval = cur;
			}
		}
	}
	G.period_start = now;
	if (!close_interval)
		return;
	G.interval_start = now;
	for (l = 0; l < G.n_lcores; l++) {
		uint64_t loops = hp_svc_lcore_loops(G.lcore_id[l]);

		/* a parked runner does not loop; a restarted one counts on */
		G.loops_iv[l] = loops >= G.loops_at[l] ? loops - G.loops_at[l] : 0;
		G.loops_at[l] = loops;
	}
}

static void
build_table(void)
{
	struct hp_svc_table *t = &G.table;
	uint64_t in_calls[HP_SVC_MAX_LCORES];
	uint32_t id;
	unsigned int l;

	memset(t, 0, sizeof(*t));
	t->n_lcores = G.n_lcores;
	t->active = G.active;
	t->present = G.present;
	for (l = 0; l < G.n_lcores; l++)
		in_calls[l] = 0;
	for (id = 0; id < HP_SVC_MAX_SERVICES; id++) {
		if (!managed(id))
			continue;
		if (G.svc[id]->mt_safe)
			t->mt_safe |= UINT64_C(1) << id;
		t->allowed[id] = G.svc[id]->allowed;
		t->running[id] = G.svc[id]->running;
		for (l = 0; l < G.n_lcores; l++) {
			const struct hp_svc_stats *st = &G.snap[id][l].interval;
			struct hp_svc_cell *c = &t->cell[id][l];

			t->interval_cycles = st->total_cycles;
			c->load = st->total_cycles ?
				  (double)st->busy_cycles / (double)st->total_cycles : 0.0;
			if (c->load > 1.0)	/* a call straddling the interval end */
				c->load = 1.0;
			c->jobs = st->calls - st->idle_calls;
			c->delay_sum = (double)st->delay_sum;
			c->delay_n = st->delay_n;
			/* adopted services: DPDK leaves idle calls out */
			if (!G.svc[id]->foreign) {
				c->idle_calls = st->idle_calls;
				c->idle_cycles = (double)(st->call_cycles -
							  st->busy_cycles);
			}
			in_calls[l] += st->call_cycles;
		}
	}
	/* the runner's own cycles per loop: the interval less the calls */
	for (l = 0; l < G.n_lcores; l++)
		if (G.loops_iv[l] > 0 && ((t->active >> l) & 1u) &&
		    t->interval_cycles > in_calls[l])
			t->loop_cycles[l] = (double)(t->interval_cycles - in_calls[l]) /
					    (double)G.loops_iv[l];
}

static int
apply(const struct hp_svc_decision *d, struct hp_svc_event *ev)
{
	uint64_t t0 = rte_rdtsc();
	int ret = -EINVAL;

	*ev = (struct hp_svc_event){
		.d = *d, .service_id = d->service,
		.from_lcore = d->from < G.n_lcores ? (int)G.lcore_id[d->from] : -1,
		.to_lcore = -1,
	};
	switch (d->action) {
	case HP_SVC_ACT_MOVE:
		ev->to_lcore = d->to < G.n_lcores ? (int)G.lcore_id[d->to] : -1;
		if (managed(d->service) && d->from < G.n_lcores && d->to < G.n_lcores)
			ret = migrate(d->service, d->from, d->to, d->unpark);
		break;
	case HP_SVC_ACT_DROP:
		if (managed(d->service) && d->from < G.n_lcores)
			ret = unmap_safely(d->service, d->from);
		break;
	case HP_SVC_ACT_PARK:
		ev->service_id = UINT32_MAX;
		if (d->from < G.n_lcores)
			ret = lcore_park(d->from);
		break;
	case HP_SVC_ACT_NONE:
		break;
	}
	ev->tsc = rte_rdtsc();
	ev->migrate_cycles = ev->tsc - t0;
	ev->result = ret;
	return ret;
}

int
hp_svc_start(void)
{
	uint64_t now;
	uint32_t id;
	unsigned int i;
	int ret = 0;

	if (!G.inited || G.started || G.n_lcores == 0)
		return -EINVAL;
	pthread_mutex_lock(&G.lock);
	if (!G.have_hi) {
		int top = (int)G.sent_lo;

		for (id = 0; id < HP_SVC_MAX_SERVICES; id++)
			if (managed(id) && (int)id > top)
				top = (int)id;
		ret = sentinel_register("hi", top, &G.sent_hi);
		if (ret < 0)
			goto out;
		G.have_hi = true;
	}
	rte_service_runstate_set(G.sent_lo, 1);
	rte_service_runstate_set(G.sent_hi, 1);
	for (id = 0; id < HP_SVC_MAX_SERVICES; id++)
		if (managed(id))
			rte_service_runstate_set(id, 1);
	for (i = 0; i < G.n_lcores; i++) {
		bool used = false;

		for (id = 0; id < HP_SVC_MAX_SERVICES; id++)
			used |= managed(id) && ((G.svc[id]->running >> i) & 1u);
		if (!used && G.conf.balance && G.conf.policy.scale_down)
			continue;	/* parked until a service needs it */
		ret = lcore_unpark(i);
		if (ret < 0)
			goto out;
	}
	now = rte_rdtsc();
	for (i = 0; i < G.n_lcores; i++) {
		G.loops_at[i] = hp_svc_lcore_loops(G.lcore_id[i]);
		G.loops_iv[i] = 0;
	}
	for (id = 0; id < HP_SVC_MAX_SERVICES; id++) {
		if (!managed(id))
			continue;
		if (G.svc[id]->foreign)
			sample_foreign(id);
		for (i = 0; i < N_SLOTS; i++) {
			struct hp_svc_stats cur;

			slot_read(&G.svc[id]->slot[i], &cur);
			G.snap[id][i].at_period = cur;
			G.snap[id][i].at_interval = cur;
		}
	}
	G.t_start = G.period_start = G.interval_start = now;
	G.next_period = now + G.period_cycles;
	G.next_interval = now + G.interval_cycles;
	hp_svc_bstate_init(&G.bstate);
	G.settle = false;
	G.started = true;
out:
	pthread_mutex_unlock(&G.lock);
	return ret;
}

uint64_t
hp_svc_next_tick(void)
{
	return G.started ? G.next_period : 0;
}

int
hp_svc_tick(uint64_t now)
{
	struct hp_svc_decision d;
	struct hp_svc_event ev;
	bool close;
	int ret = 0;

	if (!G.started)
		return -EINVAL;
	if (now < G.next_period)
		return 0;
	pthread_mutex_lock(&G.lock);
	close = now >= G.next_interval;
	sample(now, close);
	G.next_period += G.period_cycles;
	if (G.next_period <= now)	/* woke late: do not replay missed periods */
		G.next_period = now + G.period_cycles;
	if (close) {
		G.next_interval += G.interval_cycles;
		if (G.next_interval <= now)
			G.next_interval = now + G.interval_cycles;
		build_table();
		if (G.conf.balance && !G.settle) {
			ret = hp_svc_decide(&G.conf.policy, &G.table, &G.bstate, &d);
			if (ret > 0) {
				int r = apply(&d, &ev);

				G.moves++;
				if (r < 0) {
					G.failures++;
					SVC_LOG(WARNING, "%s of service %u failed: %s",
						hp_svc_action_name(d.action), d.service,
						strerror(-r));
				}
				if (G.ev_cb != NULL)
					G.ev_cb(&ev, G.ev_arg);
				G.settle = true;
				ret = 1;
			}
		} else {
			G.settle = false;
		}
	}
	pthread_mutex_unlock(&G.lock);
	if (G.period_cb != NULL)
		G.period_cb(now, G.period_arg);
	return ret;
}

static void *
ctl_main(void *arg)
{
	RTE_SET_USED(arg);
	while (!G.ctl_stop) {
		uint64_t now = rte_rdtsc(), wait;
		struct timespec ts;

		hp_svc_tick(now);
		now = rte_rdtsc();
		wait = G.next_period > now ? G.next_period - now : 0;
		wait = wait * 1000000000ull / rte_get_tsc_hz();
		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
		if (wait > 0)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
	return NULL;
}

int
hp_svc_ctl_start(void)
{
	int ret;

	if (!G.started || G.ctl_running)
		return -EINVAL;
	G.ctl_stop = false;
	ret = rte_ctrl_thread_create(&G.ctl, "hp-svc-ctl", NULL, ctl_main, NULL);
	if (ret != 0) {
		SVC_LOG(ERR, "control thread: %s", strerror(ret));
		return -ret;
	}
	G.ctl_running = true;
	return 0;
}

int
hp_svc_ctl_stop(void)
{
	if (!G.ctl_running)
		return 0;
	G.ctl_stop = true;
	pthread_join(G.ctl, NULL);
	G.ctl_running = false;
	return 0;
}

int
hp_svc_stop(void)
{
	uint64_t end;
	uint32_t id;
	unsigned int i;
	int ret = 0;

	if (!G.started)
		return 0;
	hp_svc_ctl_stop();
	pthread_mutex_lock(&G.lock);
	for (id = 0; id < HP_SVC_MAX_SERVICES; id++)
		if (managed(id))
			rte_service_runstate_set(id, 0);
	rte_service_runstate_set(G.sent_lo, 0);
	rte_service_runstate_set(G.sent_hi, 0);
	for (i = 0; i < G.n_lcores; i++) {
		if (!((G.active >> i) & 1u))
			continue;
		rte_service_lcore_stop(G.lcore_id[i]);
		wait_lcore_done(G.lcore_id[i]);
		sentinels_map(G.lcore_id[i], false);
		G.active &= ~(1u << i);
	}
	end = rte_rdtsc() + G.migrate_timeout;
	for (id = 0; id < HP_SVC_MAX_SERVICES; id++) {
		struct waiter w;

		wait_init(&w);
		while (managed(id) && rte_service_may_be_active(id) == 1) {
			if (rte_rdtsc() > end) {
				SVC_LOG(ERR, "service %u still active after stop", id);
				ret = -EBUSY;
				break;
			}
			wait_step(&w);
		}
	}
	G.started = false;
	pthread_mutex_unlock(&G.lock);
	return ret;
}

void
hp_svc_fini(void)
{
	uint32_t id;
	unsigned int i;

	if (!G.inited)
		return;
	hp_svc_stop();
	for (id = 0; id < HP_SVC_MAX_SERVICES; id++) {
		if (!managed(id))
			continue;
		for (i = 0; i < G.n_lcores; i++)
			rte_service_map_lcore_set(id, G.lcore_id[i], 0);
		if ((G.own >> id) & 1u)
			rte_service_component_unregister(id);
		free(G.svc[id]);
		G.svc[id] = NULL;
	}
	for (i = 0; i < G.n_lcores; i++)
		rte_service_lcore_del(G.lcore_id[i]);
	rte_service_component_unregister(G.sent_lo);
	if (G.have_hi)
		rte_service_component_unregister(G.sent_hi);
	G.have_hi = false;
	G.present = G.own = 0;
	G.n_lcores = 0;
	G.inited = false;
}

int
hp_svc_stats_get(uint32_t id, unsigned int lcore_id, enum hp_svc_window w,
		 struct hp_svc_stats *st)
{
	int i = hp_svc_lcore_index(lcore_id);

	if (!managed(id) || i < 0 || st == NULL)
		return -EINVAL;
	switch (w) {
	case HP_SVC_CUMULATIVE:
		slot_read(&G.svc[id]->slot[i], st);
		st->total_cycles = G.started ? rte_rdtsc() - G.t_start : 0;
		return 0;
	case HP_SVC_PERIOD:
		*st = G.snap[id][i].period;
		return 0;
	case HP_SVC_INTERVAL:
		*st = G.snap[id][i].interval;
		return 0;
	}
	return -EINVAL;
}

double
hp_svc_lcore_load(unsigned int lcore_id, enum hp_svc_window w)
{
	uint64_t busy = 0, total = 0;
	uint32_t id;

	for (id = 0; id < HP_SVC_MAX_SERVICES; id++) {
		struct hp_svc_stats st;

		if (!managed(id) || hp_svc_stats_get(id, lcore_id, w, &st) < 0)
			continue;
		busy += st.busy_cycles;
		total = st.total_cycles;
	}
	return total ? (double)busy / (double)total : 0.0;
}

void
hp_svc_set_event_cb(hp_svc_event_cb cb, void *arg)
{
	pthread_mutex_lock(&G.lock);
	G.ev_cb = cb;
	G.ev_arg = arg;
	pthread_mutex_unlock(&G.lock);
}

void
hp_svc_set_period_cb(hp_svc_period_cb cb, void *arg)
{
	pthread_mutex_lock(&G.lock);
	G.period_cb = cb;
	G.period_arg = arg;
	pthread_mutex_unlock(&G.lock);
}

uint64_t
hp_svc_moves(void)
{
	return G.moves;
}

uint64_t
hp_svc_move_failures(void)
{
	return G.failures;
}

const struct hp_svc_table *
hp_svc_last_table(void)
{
	return &G.table;
}
