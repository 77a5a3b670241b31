/* SPDX-License-Identifier: BSD-3-Clause
 * The run's counters on DPDK telemetry (docs/operations.md): /heteroplane/
 * stats, devices, device, apps, drops, latency, batches, power, flows. They
 * read what summary.json reads, live: the counters the stages own, loaded
 * relaxed from the telemetry thread (no lock and no store on the packet
 * path), and latency from the copy the scheduler makes once a trace row
 * (pl_lat_snap: its histograms are merged then). Counters are cumulative
 * from the start of the measured phase (`phase` says which), so a reader
 * computes rates from differences; before it they count the capacity
 * calibration, and they restart at 0 when it begins.
 *
 * DPDK 22.11's telemetry carries integers and strings, and a dict's value
 * is a scalar or an array, never a dict: times are integer nanoseconds,
 * watts milliwatts, and a table keyed by name (devices, apps, batches,
 * power) is a dict of arrays, "fields" naming the columns, "names" the
 * rows' names as given and each row under its name made a telemetry key.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "hp_batch.h"
#include "pl_priv.h"

#define RD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* The run the commands read; taken by the telemetry thread for a whole
 * answer and by attach/detach, never by a stage. */
static struct pl_run *cur;
static rte_spinlock_t cur_lock = RTE_SPINLOCK_INITIALIZER;
static bool registered;

const double pl_tel_q[PL_TEL_NQ] = { 0.5, 0.9, 0.99, 0.999 };
static const char *const q_name[PL_TEL_NQ] = { "p50", "p90", "p99", "p999" };

/* ---- the scheduler's side: once a trace row ---- */

void
pl_tel_lat_publish(struct pl_run *r, const struct pl_sched *sc, uint64_t t, double dt)
{
	struct pl_lat_snap *s = &r->lat_snap;
	double ns = 1e9 / (double)r->hz;
	unsigned int i;

	/* ~10 quantile scans of a histogram a second: microseconds */
	rte_seqlock_write_lock(&r->lat_lock);
	if (t == 0) { /* the measured phase begins: everything restarts */
		memset(s, 0, sizeof(*s));
		rte_seqlock_write_unlock(&r->lat_lock);
		return;
	}
	s->rows++;
	s->t_ns = t > r->t0 ? (uint64_t)((double)(t - r->t0) * ns) : 0;
	s->w_ns = (uint64_t)(dt * 1e9);
	s->w_count = sc->ilat.count;
	s->w_sum = sc->ilat.sum;
	s->w_max = sc->ilat.count ? sc->ilat.max : 0;
	/* lat has the window merged in already */
	s->count = sc->lat.count;
	s->sum = sc->lat.sum;
	s->min = sc->lat.count ? sc->lat.min : 0;
	s->max = sc->lat.count ? sc->lat.max : 0;
	for (i = 0; i < PL_TEL_NQ; i++) {
		s->w_q[i] = sc->ilat.count ? hp_hist_quantile(&sc->ilat, pl_tel_q[i]) : 0;
		s->q[i] = sc->lat.count ? hp_hist_quantile(&sc->lat, pl_tel_q[i]) : 0;
	}
	for (i = 0; i < r->n_dev; i++) {
		s->d_count[i] = sc->dlat[i].count;
		s->d_sum[i] = sc->dlat[i].sum;
		s->d_p99[i] = sc->dlat[i].count ? hp_hist_quantile(&sc->dlat[i], 0.99) : 0;
	}
	rte_seqlock_write_unlock(&r->lat_lock);
}

static void
lat_read(struct pl_run *r, struct pl_lat_snap *s)
{
	uint32_t sn;

	do {
		sn = rte_seqlock_read_begin(&r->lat_lock);
		memcpy(s, &r->lat_snap, sizeof(*s));
	} while (rte_seqlock_read_retry(&r->lat_lock, sn));
}

/* ---- helpers ---- */

/* A name as a telemetry key: letters, digits, '_' and '/' only. */
static const char *
tel_key(char *out, size_t len, const char *name)
{
	size_t i;

	for (i = 0; i + 1 < len && name[i] != '\0'; i++)
		out[i] = isalnum((unsigned char)name[i]) || name[i] == '/' ? name[i] : '_';
	out[i] = '\0';
	if (i == 0)
		snprintf(out, len, "_");
	return out;
}

/* A table keyed by name (see the header comment). */
struct ktab {
	struct rte_tel_data *d, *names;
	unsigned int nf;
	int err;
};

static int
ktab_start(struct ktab *t, struct rte_tel_data *d, const char *const *fields, unsigned int nf)
{
	struct rte_tel_data *f = rte_tel_data_alloc();
	unsigned int i;

	t->d = d;
	t->nf = nf;
	t->err = 0;
	t->names = rte_tel_data_alloc();
	if (f == NULL || t->names == NULL) {
		rte_tel_data_free(f);
		rte_tel_data_free(t->names);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_start_array(f, RTE_TEL_STRING_VAL);
	rte_tel_data_start_array(t->names, RTE_TEL_STRING_VAL);
	for (i = 0; i < nf; i++)
		rte_tel_data_add_array_string(f, fields[i]);
	rte_tel_data_add_dict_container(d, "fields", f, 0);
	return 0;
}

static void
ktab_row(struct ktab *t, const char *name, const uint64_t *v)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	char key[64];
	unsigned int i;

	if (a == NULL) {
		t->err = -ENOMEM;
		return;
	}
	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (i = 0; i < t->nf; i++)
		rte_tel_data_add_array_u64(a, v[i]);
	if (rte_tel_data_add_dict_container(t->d, tel_key(key, sizeof(key), name), a, 0) < 0) {
		rte_tel_data_free(a);
		t->err = -ENOSPC;
		return;
	}
	rte_tel_data_add_array_string(t->names, name);
}

static int
ktab_end(struct ktab *t)
{
	rte_tel_data_add_dict_container(t->d, "names", t->names, 0);
	return t->err;
}

static void
flat(struct rte_tel_data *d, const char *const *fields, const uint64_t *v, unsigned int nf)
{
	unsigned int i;

	for (i = 0; i < nf; i++)
		rte_tel_data_add_dict_u64(d, fields[i], v[i]);
}

/* ---- totals ---- */

static uint64_t
delivered(struct pl_run *r)
{
	return r->cfg->src == HP_SRC_GEN ? RD(r->tr->sink) : PL_SUM(r, tx);
}

static uint64_t
bytes_delivered(struct pl_run *r)
{
	return r->cfg->src == HP_SRC_GEN ? RD(r->tr->sink_bytes) : PL_SUM(r, bytes_tx);
}

static uint64_t
invalid_sum(const struct pl_run *r)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 1; i < HP_DROP_REASONS; i++)
		n += PL_SUM(r, invalid[i]);
	return n;
}

enum {
	S_OFFERED, S_RECEIVED, S_DELIVERED, S_BYTES_RX, S_BYTES_TX, S_BYTES_L1, S_DROP_PORT,
	S_DROP_INVALID, S_TASK_ERR, S_IN_FLIGHT, S_DL_PKTS, S_DL_MET, S_ORDER_PKTS,
	S_ORDER_IN, S_OOO_ALL, S_VERIFIED, S_VERIFY_FAIL, S_SCHED_BUSY, S_SCHED_TOTAL,
	S_ETH_IPKTS, S_ETH_OPKTS, S_ETH_IBYTES, S_ETH_OBYTES, S_ETH_IMISSED, S_ETH_IERR,
	S_ETH_OERR, S_ETH_NOMBUF, S_N
};
static const char *const stats_field[S_N] = {
	[S_OFFERED] = "packets_offered", [S_RECEIVED] = "packets_received",
	[S_DELIVERED] = "packets_delivered", [S_BYTES_RX] = "bytes_received",
	[S_BYTES_TX] = "bytes_delivered", [S_BYTES_L1] = "bytes_delivered_l1",
	[S_DROP_PORT] = "dropped_port", [S_DROP_INVALID] = "dropped_invalid",
	[S_TASK_ERR] = "task_errors", [S_IN_FLIGHT] = "in_flight",
	[S_DL_PKTS] = "deadline_packets", [S_DL_MET] = "deadline_met",
	[S_ORDER_PKTS] = "order_packets", [S_ORDER_IN] = "order_in_order",
	[S_OOO_ALL] = "out_of_order_packets", [S_VERIFIED] = "verified",
	[S_VERIFY_FAIL] = "verify_failures", [S_SCHED_BUSY] = "sched_busy_cycles",
	[S_SCHED_TOTAL] = "sched_total_cycles",
	/* the port as ethdev counts it (docs/operations.md: what each
	 * source's port sees) */
	[S_ETH_IPKTS] = "ethdev_ipackets", [S_ETH_OPKTS] = "ethdev_opackets",
	[S_ETH_IBYTES] = "ethdev_ibytes", [S_ETH_OBYTES] = "ethdev_obytes",
	[S_ETH_IMISSED] = "ethdev_imissed", [S_ETH_IERR] = "ethdev_ierrors",
	[S_ETH_OERR] = "ethdev_oerrors", [S_ETH_NOMBUF] = "ethdev_rx_nombuf",
};

static void
stats_values(struct pl_run *r, uint64_t *v)
{
	struct hp_eth_view e;
	uint64_t tx_pkts = PL_SUM(r, tx);

	/* the sums over the scheduler lcores (one: its own) */
	v[S_RECEIVED] = PL_SUM(r, rx);
	v[S_DROP_PORT] = pl_port_drops(r);
	v[S_OFFERED] = r->cfg->src == HP_SRC_GEN ? RD(r->tr->offered) :
		       v[S_RECEIVED] + v[S_DROP_PORT];
	v[S_DELIVERED] = delivered(r);
	v[S_BYTES_RX] = PL_SUM(r, bytes_rx);
	v[S_BYTES_TX] = bytes_delivered(r);
	v[S_BYTES_L1] = PL_SUM(r, bytes_tx) + PL_SUM(r, l1_pad) + HP_L1_OVERHEAD * tx_pkts;
	v[S_DROP_INVALID] = invalid_sum(r);
	v[S_TASK_ERR] = PL_SUM(r, task_err);
	v[S_IN_FLIGHT] = PL_SUM(r, in_flight);
	v[S_DL_PKTS] = PL_SUM(r, dl_pkts);
	v[S_DL_MET] = PL_SUM(r, dl_met);
	v[S_ORDER_PKTS] = PL_SUM(r, order_out);
	v[S_ORDER_IN] = PL_SUM(r, order_out_in_order);
	v[S_OOO_ALL] = PL_SUM(r, out_of_order_all);
	v[S_VERIFIED] = RD(r->tr->ver.verified);
	v[S_VERIFY_FAIL] = RD(r->tr->ver.fail);
	v[S_SCHED_BUSY] = PL_SUM(r, busy_cycles);
	v[S_SCHED_TOTAL] = PL_SUM(r, total_cycles);
	pl_port_ethdev(r, &e, false);
	v[S_ETH_IPKTS] = e.ipackets;
	v[S_ETH_IBYTES] = e.ibytes;
	v[S_ETH_IMISSED] = e.imissed;
	v[S_ETH_IERR] = e.ierrors;
	v[S_ETH_NOMBUF] = e.rx_nombuf;
	v[S_ETH_OPKTS] = e.opackets;
	v[S_ETH_OBYTES] = e.obytes;
	v[S_ETH_OERR] = e.oerrors;
}

static const char *
src_name(const struct hp_run_cfg *cfg)
{
	return cfg->src == HP_SRC_GEN ? "generator" : cfg->src == HP_SRC_PCAP ? "pcap" :
	       "af_packet";
}

static int
cmd_stats(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	uint64_t v[S_N], t0 = RD(r->t0);

	RTE_SET_USED(params);
	stats_values(r, v);
	rte_tel_data_add_dict_string(d, "app", r->cfg->app);
	rte_tel_data_add_dict_string(d, "scheduler", r->cfg->sched);
	rte_tel_data_add_dict_string(d, "source", src_name(r->cfg));
	rte_tel_data_add_dict_string(d, "phase", t0 ? "measuring" : "calibrating");
	rte_tel_data_add_dict_u64(d, "t_ns", t0 ? (uint64_t)((double)(rte_rdtsc() - t0) *
							     1e9 / (double)r->hz) : 0);
	rte_tel_data_add_dict_u64(d, "hz", r->hz);
	rte_tel_data_add_dict_int(d, "devices", (int)r->n_dev);
	rte_tel_data_add_dict_int(d, "sched_lcores", (int)r->n_sc);
	flat(d, stats_field, v, S_N);
	return 0;
}

/* ---- scheduler lcores (--sched-lcores): each one's queue and cost ---- */

enum {
	L_QUEUE, L_RX, L_TX, L_BYTES_RX, L_BYTES_TX, L_DROPPED, L_IN_FLIGHT, L_BUSY, L_TOTAL,
	L_Q_OFFERED, L_Q_DROPPED, L_N
};
static const char *const lcore_field[L_N] = {
	[L_QUEUE] = "queue", [L_RX] = "packets_received", [L_TX] = "packets_delivered",
	[L_BYTES_RX] = "bytes_received", [L_BYTES_TX] = "bytes_delivered",
	[L_DROPPED] = "dropped", [L_IN_FLIGHT] = "in_flight",
	[L_BUSY] = "busy_cycles", [L_TOTAL] = "total_cycles",
	[L_Q_OFFERED] = "queue_offered", [L_Q_DROPPED] = "queue_dropped",
};

static int
cmd_lcores(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	uint64_t v[L_N];
	struct ktab t;
	char name[16];
	unsigned int i, k;
	int ret;

	RTE_SET_USED(params);
	ret = ktab_start(&t, d, lcore_field, L_N);
	for (i = 0; i < r->n_sc && ret == 0; i++) {
		const struct pl_sched *sc = &r->sc[i];

		v[L_QUEUE] = sc->q;
		v[L_RX] = RD(sc->rx);
		v[L_TX] = RD(sc->tx);
		v[L_BYTES_RX] = RD(sc->bytes_rx);
		v[L_BYTES_TX] = RD(sc->bytes_tx);
		v[L_DROPPED] = RD(sc->task_err) + RD(sc->admission);
		for (k = 0; k < HP_DROP_REASONS; k++)
			v[L_DROPPED] += RD(sc->invalid[k]);
		v[L_IN_FLIGHT] = RD(sc->in_flight);
		v[L_BUSY] = RD(sc->busy_cycles);
		v[L_TOTAL] = RD(sc->total_cycles);
		v[L_Q_OFFERED] = r->cfg->src != HP_SRC_GEN ? 0 : r->n_sc > 1 ?
				 RD(r->tr->q_offered[i]) : RD(r->tr->offered);
		v[L_Q_DROPPED] = r->cfg->src != HP_SRC_GEN ? 0 : r->n_sc > 1 ?
				 RD(r->tr->q_dropped[i]) : RD(r->tr->dropped_port);
		snprintf(name, sizeof(name), "sched%u", i);
		ktab_row(&t, name, v);
	}
	return ret < 0 ? ret : ktab_end(&t);
}

/* ---- devices, batches ---- */

enum {
	D_PACKETS, D_LAT_COUNT, D_LAT_SUM, D_LAT_P99, D_BUSY, D_TOTAL, D_MODEL,
	D_BATCHES, D_BATCH_PKTS, D_FALLBACK, D_FAILED, D_N
};
static const char *const dev_field[D_N] = {
	[D_PACKETS] = "packets", [D_LAT_COUNT] = "latency_count",
	[D_LAT_SUM] = "latency_sum_ns", [D_LAT_P99] = "latency_p99_ns",
	[D_BUSY] = "busy_cycles", [D_TOTAL] = "total_cycles",
	[D_MODEL] = "modeled_busy_cycles", [D_BATCHES] = "batches",
	[D_BATCH_PKTS] = "batch_packets", [D_FALLBACK] = "fallback_packets",
	[D_FAILED] = "failed",
};

/* Latency per device is the run's up to the last trace row. */
static void
dev_values(struct pl_run *r, const struct pl_lat_snap *ls, unsigned int i, uint64_t *v)
{
	const struct hp_device *dv = &r->dev[i];
	v[D_PACKETS] = PL_SUM(r, back_w[i]) - PL_SUM(r, back_base[i]);
	v[D_LAT_COUNT] = ls->d_count[i];
	v[D_LAT_SUM] = ls->d_sum[i];
	v[D_LAT_P99] = ls->d_p99[i];
	v[D_BUSY] = RD(dv->st.busy_cycles);
	v[D_TOTAL] = RD(dv->st.total_cycles);
	v[D_MODEL] = RD(dv->st.model_cycles);
	v[D_BATCHES] = RD(dv->st.batches);
	v[D_BATCH_PKTS] = RD(dv->st.batch_pkts);
	v[D_FALLBACK] = RD(dv->st.fallback_pkts);
	v[D_FAILED] = hp_device_failed(dv) != 0;
}

static int
dev_find(struct pl_run *r, const char *name)
{
	char key[64];
	unsigned int i;

	for (i = 0; i < r->n_dev; i++)
		if (strcmp(r->dev[i].name, name) == 0 ||
		    strcmp(tel_key(key, sizeof(key), r->dev[i].name), name) == 0)
			return (int)i;
	return -ENOENT;
}

static int
cmd_devices(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	struct pl_lat_snap ls;
	uint64_t v[D_N];
	struct ktab t;
	unsigned int i;
	int ret;

	RTE_SET_USED(params);
	lat_read(r, &ls);
	ret = ktab_start(&t, d, dev_field, D_N);
	for (i = 0; i < r->n_dev && ret == 0; i++) {
		dev_values(r, &ls, i, v);
		ktab_row(&t, r->dev[i].name, v);
	}
	return ret < 0 ? ret : ktab_end(&t);
}

/* /heteroplane/device,<name>: one device as a flat dict, its batches too. */
static int
cmd_device(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	struct pl_lat_snap ls;
	uint64_t v[D_N];
	char key[64];
	unsigned int k;
	int i;

	if (params == NULL || *params == '\0')
		return -EINVAL;
	i = dev_find(r, params);
	if (i < 0)
		return i;
	lat_read(r, &ls);
	dev_values(r, &ls, (unsigned int)i, v);
	rte_tel_data_add_dict_string(d, "name", r->dev[i].name);
	flat(d, dev_field, v, D_N);
	for (k = 1; k < HP_FLUSH_REASONS; k++) {
		snprintf(key, sizeof(key), "flush_%s", hp_flush_reason_names[k]);
		rte_tel_data_add_dict_u64(d, key, RD(r->dev[i].st.flush[k]));
	}
	return 0;
}

/* Batching devices: batch sizes (batch_packets / batches) and why each
 * batch left (enum hp_flush_reason). */
static int
cmd_batches(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	static char fname[HP_FLUSH_REASONS + 1][32];
	static const char *fields[HP_FLUSH_REASONS + 1];
	uint64_t v[HP_FLUSH_REASONS + 1];
	struct hp_dev_info info;
	unsigned int i, k, nf = 0;
	struct ktab t;
	int ret;

	RTE_SET_USED(params);
	/* under cur_lock: one answer at a time */
	fields[nf++] = "batches";
	fields[nf++] = "batch_packets";
	for (k = 1; k < HP_FLUSH_REASONS; k++) {
		snprintf(fname[nf], sizeof(fname[nf]), "flush_%s", hp_flush_reason_names[k]);
		fields[nf] = fname[nf];
		nf++;
	}
	ret = ktab_start(&t, d, fields, nf);
	for (i = 0; i < r->n_dev && ret == 0; i++) {
		const struct hp_device *dv = &r->dev[i];

		hp_device_info(dv, &info);
		if (!info.batch)
			continue;
		v[0] = RD(dv->st.batches);
		v[1] = RD(dv->st.batch_pkts);
		for (k = 1; k < HP_FLUSH_REASONS; k++)
			v[k + 1] = RD(dv->st.flush[k]);
		ktab_row(&t, dv->name, v);
	}
	return ret < 0 ? ret : ktab_end(&t);
}

/* ---- apps: keyed by name, each app of --apps and the run ---- */

enum { A_RX, A_TX, A_BYTES, A_TASK_ERR, A_TASK_ERR_SEC, A_VERIFIED, A_VFAIL, A_UNVER,
       A_DROP_PORT, A_DROP_ADM, A_N };
static const char *const app_field[A_N] = {
	[A_RX] = "packets_received", [A_TX] = "packets_delivered",
	[A_BYTES] = "bytes_delivered", [A_TASK_ERR] = "task_errors",
	[A_TASK_ERR_SEC] = "task_errors_security", [A_VERIFIED] = "verified",
	[A_VFAIL] = "verify_failures", [A_UNVER] = "unverified",
	[A_DROP_PORT] = "dropped_port", [A_DROP_ADM] = "dropped_admission",
};

static void
app_values(struct pl_run *r, uint64_t *v)
{
	v[A_RX] = PL_SUM(r, rx);
	v[A_TX] = delivered(r);
	v[A_BYTES] = bytes_delivered(r);
	v[A_TASK_ERR] = PL_SUM(r, task_err);
	v[A_TASK_ERR_SEC] = PL_SUM(r, task_err_sec);
	v[A_VERIFIED] = RD(r->tr->ver.verified);
	v[A_VFAIL] = RD(r->tr->ver.fail);
	v[A_UNVER] = RD(r->tr->ver.unverified);
	v[A_DROP_PORT] = pl_port_drops(r);
	v[A_DROP_ADM] = PL_SUM(r, admission);
}

/* --apps: app a's own counters (the scheduler's per-app ones; delivered
 * counted at the scheduler's tx) */
static void
app_values_of(struct pl_run *r, unsigned int a, uint64_t *v)
{
	const struct pl_app_cnt *c = &r->sc->apps->c[a];

	v[A_RX] = RD(c->rx);
	v[A_TX] = RD(c->tx);
	v[A_BYTES] = RD(c->bytes);
	v[A_TASK_ERR] = RD(c->task_err);
	v[A_TASK_ERR_SEC] = RD(c->task_err_sec);
	v[A_VERIFIED] = RD(r->tr->ver.app_ok[a]);
	v[A_VFAIL] = RD(r->tr->ver.app_fail[a]);
	v[A_UNVER] = RD(r->tr->ver.app_unver[a]);
	/* its own rx drops (per-app backpressure, pl_sched.c); the port's
	 * drops before the app is known are the run's only */
	v[A_DROP_PORT] = RD(c->port_drop);
	v[A_DROP_ADM] = RD(c->admission);
}

/* One row per app of --apps, then the run's (named as summary.json's
 * "app": "ids+dedup+vpn"); one row with one app. */
static int
cmd_apps(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	const struct hp_app_mix *mx = &r->cfg->mix;
	unsigned int a, n = r->sc->apps != NULL ? mx->n : 0;
	uint64_t v[A_N];
	struct ktab t;
	int ret;

	if (params != NULL && *params != '\0') {
		for (a = 0; a < n && strcmp(params, mx->app[a]->name) != 0; a++)
			;
		if (a < n)
			app_values_of(r, a, v);
		else if (strcmp(params, r->cfg->app) == 0)
			app_values(r, v);
		else
			return -ENOENT;
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "name", params);
		flat(d, app_field, v, A_N);
		return 0;
	}
	ret = ktab_start(&t, d, app_field, A_N);
	if (ret < 0)
		return ret;
	for (a = 0; a < n; a++) {
		app_values_of(r, a, v);
		ktab_row(&t, mx->app[a]->name, v);
	}
	app_values(r, v);
	ktab_row(&t, r->cfg->app, v);
	return ktab_end(&t);
}

/* ---- drops by reason ---- */

static int
cmd_drops(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	unsigned int i;

	RTE_SET_USED(params);
	rte_tel_data_add_dict_u64(d, "port", pl_port_drops(r));
	for (i = 1; i < HP_DROP_REASONS; i++)
		rte_tel_data_add_dict_u64(d, hp_drop_reason_names[i], PL_SUM(r, invalid[i]));
	rte_tel_data_add_dict_u64(d, "task_error", PL_SUM(r, task_err));
	rte_tel_data_add_dict_u64(d, "task_error_security", PL_SUM(r, task_err_sec));
	rte_tel_data_add_dict_u64(d, "admission", PL_SUM(r, admission));
	return 0;
}

/* ---- latency: the last window and since the start, ns ---- */

static int
cmd_latency(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	struct pl_lat_snap s;
	char key[32];
	unsigned int i;

	RTE_SET_USED(params);
	lat_read(r, &s);
	rte_tel_data_add_dict_u64(d, "rows", s.rows);
	rte_tel_data_add_dict_u64(d, "window_end_ns", s.t_ns);
	rte_tel_data_add_dict_u64(d, "window_ns", s.w_ns);
	rte_tel_data_add_dict_u64(d, "window_count", s.w_count);
	rte_tel_data_add_dict_u64(d, "window_sum_ns", s.w_sum);
	rte_tel_data_add_dict_u64(d, "window_max_ns", s.w_max);
	for (i = 0; i < PL_TEL_NQ; i++) {
		snprintf(key, sizeof(key), "window_%s_ns", q_name[i]);
		rte_tel_data_add_dict_u64(d, key, s.w_q[i]);
	}
	rte_tel_data_add_dict_u64(d, "count", s.count);
	rte_tel_data_add_dict_u64(d, "sum_ns", s.sum);
	rte_tel_data_add_dict_u64(d, "min_ns", s.min);
	rte_tel_data_add_dict_u64(d, "max_ns", s.max);
	for (i = 0; i < PL_TEL_NQ; i++) {
		snprintf(key, sizeof(key), "%s_ns", q_name[i]);
		rte_tel_data_add_dict_u64(d, key, s.q[i]);
	}
	return 0;
}

/* ---- power per source ---- */

enum { P_MW, P_MJ, P_MODELED, P_N };
static const char *const pow_field[P_N] = {
	[P_MW] = "milliwatts", [P_MJ] = "millijoules", [P_MODELED] = "modeled",
};

static int
cmd_power(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	unsigned int i, n = __atomic_load_n(&r->power.n, __ATOMIC_ACQUIRE);
	uint64_t v[P_N];
	struct ktab t;
	int ret;

	RTE_SET_USED(params);
	ret = ktab_start(&t, d, pow_field, P_N);
	for (i = 0; i < n && i < HP_POWER_MAX && ret == 0; i++) {
		double w, j;

		__atomic_load(&r->power_w[i], &w, __ATOMIC_RELAXED);
		__atomic_load(&r->power.joules[i], &j, __ATOMIC_RELAXED);
		v[P_MW] = w > 0 ? (uint64_t)(w * 1e3 + 0.5) : 0;
		v[P_MJ] = j > 0 ? (uint64_t)(j * 1e3 + 0.5) : 0;
		v[P_MODELED] = r->power.modeled[i];
		ktab_row(&t, r->power.name[i], v);
	}
	return ret < 0 ? ret : ktab_end(&t);
}

/* ---- the flow table ---- */

static int
cmd_flows(struct pl_run *r, const char *params, struct rte_tel_data *d)
{
	uint64_t max = 0, live = 0, peak = 0;
	unsigned int i;

	RTE_SET_USED(params);
	/* one table per scheduler lcore: the sums (peak: of their peaks) */
	for (i = 0; i < r->n_sc; i++) {
		max += RD(r->sc[i].ft.max);
		live += RD(r->sc[i].ft.live);
		peak += RD(r->sc[i].ft.st.peak);
	}
	rte_tel_data_add_dict_u64(d, "max", max);
	rte_tel_data_add_dict_u64(d, "live", live);
	rte_tel_data_add_dict_u64(d, "peak", peak);
	rte_tel_data_add_dict_u64(d, "created", PL_SUM(r, ft.st.created));
	rte_tel_data_add_dict_u64(d, "expired", PL_SUM(r, ft.st.expired));
	rte_tel_data_add_dict_u64(d, "refused_packets", PL_SUM(r, ft.st.refused));
	rte_tel_data_add_dict_u64(d, "out_of_order_packets", PL_SUM(r, out_of_order_all));
	return 0;
}

/* ---- registration ---- */

typedef int (*pl_tel_fn)(struct pl_run *r, const char *params, struct rte_tel_data *d);

static const struct {
	const char *cmd;
	pl_tel_fn fn;
	bool starts;      /* fn starts its own dict */
	const char *help; /* under RTE_TEL_MAX_STRING_LEN (128) */
} cmds[] = {
	{ "/heteroplane/stats", cmd_stats, false,
	  "Run totals: packets, bytes, drops, deadlines, order, ethdev's view. Cumulative." },
	{ "/heteroplane/devices", cmd_devices, true,
	  "Per device: packets, latency, busy cycles, batches. Dict of arrays, 'fields' names columns." },
	{ "/heteroplane/device", cmd_device, false,
	  "One device as a dict, with flush reasons. Parameter: device name" },
	{ "/heteroplane/apps", cmd_apps, true,
	  "Per app, keyed by name. Parameter: none, or an app name (a flat dict)" },
	{ "/heteroplane/drops", cmd_drops, false,
	  "Drops by reason: port, each classification reason, task errors. Cumulative." },
	{ "/heteroplane/latency", cmd_latency, false,
	  "Latency in ns: quantiles of the last trace window and since the start, count, sum." },
	{ "/heteroplane/batches", cmd_batches, true,
	  "Batching devices: batches, packets in them, flushes by reason. Cumulative." },
	{ "/heteroplane/power", cmd_power, true,
	  "Power per source: last sample (mW), energy since the start (mJ), modeled or not." },
	{ "/heteroplane/lcores", cmd_lcores, true,
	  "Per scheduler lcore: its queue, packets, drops, busy cycles. Dict of arrays, 'fields' names columns." },
	{ "/heteroplane/flows", cmd_flows, false,
	  "Flow table: size, live, peak, created, expired, packets of refused flows." },
};

static int
tel_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;
	int ret = -ENOENT;

	for (i = 0; i < RTE_DIM(cmds); i++)
		if (strcmp(cmd, cmds[i].cmd) == 0)
			break;
	if (i == RTE_DIM(cmds))
		return -EINVAL;
	rte_spinlock_lock(&cur_lock);
	if (cur == NULL) {
		/* between runs (or before one): nothing to read */
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_int(d, "running", 0);
		ret = 0;
	} else {
		if (!cmds[i].starts)
			rte_tel_data_start_dict(d);
		ret = cmds[i].fn(cur, params, d);
	}
	rte_spinlock_unlock(&cur_lock);
	return ret;
}

int
pl_tel_attach(struct pl_run *r, char *err, size_t errlen)
{
	unsigned int i;
	int ret = 0;

	rte_seqlock_init(&r->lat_lock);
	rte_spinlock_lock(&cur_lock);
	for (i = 0; !registered && i < RTE_DIM(cmds) && ret == 0; i++)
		ret = rte_telemetry_register_cmd(cmds[i].cmd, tel_cb, cmds[i].help);
	registered = true; /* a failure is said once */
	if (ret == 0)
		cur = r;
	rte_spinlock_unlock(&cur_lock);
	if (ret < 0)
		snprintf(err, errlen, "telemetry: cannot register %s: %s", cmds[i - 1].cmd,
			 strerror(-ret));
	return ret;
}

void
pl_tel_detach(struct pl_run *r)
{
	rte_spinlock_lock(&cur_lock);
	if (cur == r)
		cur = NULL;
	rte_spinlock_unlock(&cur_lock);
}
