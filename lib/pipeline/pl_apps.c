/* SPDX-License-Identifier: BSD-3-Clause
 * Several apps at once (hplane run --apps): the joint chain the devices
 * run, the rule that gives a packet its app, the per-app counters and the
 * generator's per-app bodies.
 *
 * A packet's app is decided by its flow: the upper 32 bits of the flow id
 * (hp_flow_hash of the 5-tuple, computed at classify anyway) fall into
 * one app's slice of [0, 2^32), slices as wide as the shares. The same
 * rule serves the generator (it hashes its flows' keys the same way, to
 * write each frame's body for its app), a capture and af_packet, so the
 * shares are shares of flows, and a flow's packets all go to one app (its
 * order and its per-flow sequence stay one app's). With flows of equal
 * rates, the shares of packets follow.
 *
 * Also the scheduler's --apps part of the way in (per-app backpressure:
 * each app's FIFO, its drops, the placement in turns) and each app's
 * input rate; pl_sched.c calls them only in --apps runs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hp_common.h"
#include "pl_priv.h"

const struct hp_app *
pl_apps_chain(struct pl_run *r)
{
	const struct hp_app_mix *mx = &r->cfg->mix;
	struct hp_app *j = &r->mix_app;
	unsigned int a, k;

	memset(j, 0, sizeof(*j));
	j->name = mx->name;
	j->desc = "several apps at once (--apps)";
	for (a = 0; a < mx->n; a++)
		for (k = 0; k < mx->app[a]->n_tasks && j->n_tasks < HP_MAX_TASKS; k++)
			j->tasks[j->n_tasks++] = mx->app[a]->tasks[k];
	return j;
}

/* Cumulative shares as bounds on the hash's upper 32 bits; the last app
 * takes whatever rounding leaves. */
static void
apps_bounds(const struct hp_app_mix *mx, uint32_t *bound)
{
	double cum = 0;
	unsigned int a;

	for (a = 0; a < mx->n; a++) {
		cum += mx->share[a];
		bound[a] = a + 1 == mx->n || cum >= 1.0 ? UINT32_MAX :
			   (uint32_t)(cum * 4294967296.0);
	}
}

void
pl_apps_reset(struct pl_apps *ap)
{
	unsigned int a;

	for (a = 0; a < ap->n; a++) {
		memset(&ap->c[a], 0, offsetof(struct pl_app_cnt, lat));
		hp_hist_reset(&ap->c[a].lat);
		hp_hist_reset(&ap->c[a].ilat);
	}
}

int
pl_apps_setup(struct pl_run *r, struct pl_sched *sc)
{
	const struct hp_app_mix *mx = &r->cfg->mix;
	struct pl_apps *ap;
	unsigned int a;

	sc->apps = NULL;
	if (mx->n <= 1)
		return 0;
	ap = calloc(1, sizeof(*ap));
	if (ap == NULL)
		return -ENOMEM;
	ap->n = mx->n;
	apps_bounds(mx, ap->bound);
	ap->cap = r->cfg->ring_size;
	ap->lossless = r->cfg->src == HP_SRC_PCAP && !(r->cfg->pcap_speed > 0);
	for (a = 0; a < mx->n; a++) {
		ap->first[a] = (uint8_t)mx->first[a];
		ap->q[a] = calloc(ap->cap, sizeof(ap->q[a][0]));
		if (ap->q[a] == NULL) {
			pl_apps_free(ap);
			return -ENOMEM;
		}
	}
	pl_apps_reset(ap);
	sc->apps = ap;
	return 0;
}

void
pl_apps_free(struct pl_apps *ap)
{
	unsigned int a;

	if (ap == NULL)
		return;
	for (a = 0; a < HP_MAX_APPS; a++)
		free(ap->q[a]);
	free(ap);
}

void
pl_apps_tx(struct pl_apps *ap, const struct hp_meta *md, uint64_t ns, uint32_t len,
	   uint64_t now, int order)
{
	struct pl_app_cnt *c = &ap->c[md->app];

	c->tx++;
	c->bytes += len;
	c->dev[md->device]++;
	hp_hist_add(&c->ilat, ns);
	if (md->flags & HP_MF_LATENCY) {
		c->dl_pkts++;
		c->dl_met += now <= md->t_deadline;
	}
	if (order >= 0) {
		c->order_out++;
		c->order_in += (uint64_t)order;
	}
}

void
pl_apps_row(struct pl_apps *ap, struct hp_trace_row *row, double dt)
{
	unsigned int a;

	for (a = 0; a < ap->n; a++) {
		struct pl_app_cnt *c = &ap->c[a];

		row->app_rx_pps[a] = (double)(c->rx - c->row_rx) / dt;
		row->app_pps[a] = (double)(c->tx - c->row_tx) / dt;
		row->app_p99_us[a] = c->ilat.count ?
			(double)hp_hist_quantile(&c->ilat, 0.99) / 1e3 : NAN;
		row->app_deadline_pct[a] = c->dl_pkts > c->row_dl ?
			100.0 * (double)(c->dl_met - c->row_dlmet) / (double)(c->dl_pkts - c->row_dl) :
			NAN;
		row->app_drop_port[a] = c->port_drop - c->row_port;
		row->app_drop_adm[a] = c->admission - c->row_adm;
		c->row_rx = c->rx;
		c->row_port = c->port_drop;
		c->row_adm = c->admission;
		c->row_tx = c->tx;
		c->row_dl = c->dl_pkts;
		c->row_dlmet = c->dl_met;
		hp_hist_merge(&c->lat, &c->ilat);
		hp_hist_reset(&c->ilat);
	}
}

void
pl_apps_collect(struct pl_run *r, struct hp_run_result *res)
{
	const struct hp_app_mix *mx = &r->cfg->mix;
	const struct pl_apps *ap = r->sc->apps;
	const struct pl_verify *v = r->tr != NULL ? &r->tr->ver : NULL;
	unsigned int a, d;

	res->n_apps = 0;
	if (ap == NULL)
		return;
	res->n_apps = ap->n;
	for (a = 0; a < ap->n; a++) {
		struct pl_app_cnt *c = &r->sc->apps->c[a];
		struct hp_app_report *o = &res->apps[a];

		o->name = mx->app[a]->name;
		o->share = mx->share[a];
		o->received = c->rx;
		o->delivered = c->tx;
		o->bytes_delivered = c->bytes;
		o->task_errors = c->task_err;
		o->dropped_admission = c->admission;
		o->dropped_port = c->port_drop;
		o->deadline_pkts = c->dl_pkts;
		o->deadline_met = c->dl_met;
		o->order_out = c->order_out;
		o->order_out_in_order = c->order_in;
		memcpy(o->dev_pkts, c->dev, sizeof(o->dev_pkts));
		/* what came after the last row */
		hp_hist_merge(&c->lat, &c->ilat);
		hp_hist_reset(&c->ilat);
		o->lat = c->lat;
		o->joules_dynamic = NAN;
		for (d = 0; d < r->n_dev; d++) {
			const struct hp_device *dv = &r->dev[d];

			if (!dv->caps.modeled || !(dv->caps.power_busy_w > 0))
				continue;
			o->joules_dynamic = (isnan(o->joules_dynamic) ? 0 : o->joules_dynamic) +
				(dv->caps.power_busy_w - dv->caps.power_idle_w) *
				(double)dv->st.app_model_cycles[a] / (double)r->hz;
		}
		o->verified = v != NULL ? v->app_ok[a] : 0;
		o->verify_failures = v != NULL ? v->app_fail[a] : 0;
	}
}

/* --apps: each app's input rate, the offered rate split by the apps'
 * shares of this tick's received packets and their own drops at rx (the
 * port's drops come before a packet's app is known); a tick that
 * received nothing keeps them. */
_Static_assert(HP_SCHED_MAX_APPS >= HP_MAX_APPS, "hp_sched's per-app rates hold every app");

void
pl_apps_rate(struct pl_sched *sc, double off_pps, double a)
{
	uint64_t rx[HP_MAX_APPS], all = 0;
	unsigned int i;

	for (i = 0; i < sc->apps->n; i++) {
		/* a counter reset (end of warm-up) reads as nothing received */
		uint64_t in = sc->apps->c[i].rx + sc->apps->c[i].port_drop;

		rx[i] = in >= sc->tick_app_rx[i] ? in - sc->tick_app_rx[i] : 0;
		all += rx[i];
	}
	if (all == 0) {
		if (off_pps == 0)
			for (i = 0; i < sc->apps->n; i++)
				sc->s.app_rate_pps[i] -= a * sc->s.app_rate_pps[i];
		return;
	}
	for (i = 0; i < sc->apps->n; i++)
		sc->s.app_rate_pps[i] += a * (off_pps * (double)rx[i] / (double)all -
					      sc->s.app_rate_pps[i]);
}

void
pl_apps_tick_mark(struct pl_sched *sc)
{
	unsigned int i;

	for (i = 0; i < sc->apps->n; i++)
		sc->tick_app_rx[i] = sc->apps->c[i].rx + sc->apps->c[i].port_drop;
}

/* --apps, per-app backpressure: each app's received packets wait in its
 * own FIFO (pl_apps.q), so a packet of an app whose devices are full
 * holds back only its own app. rx goes on while some app has room for a
 * burst; a packet whose app's FIFO is full is dropped here, before its
 * flow gives it a sequence, and counted as that app's port drop: exactly
 * what an rx queue of its own would have done when it overflowed (it is
 * not received: the counters classify() moved go back). A source that
 * waits for room (lossless) is one queue for all apps whatever is done
 * here: rx waits until every app has room, so nothing drops. Only --apps
 * runs come here; one app keeps pl_sched.c's single pend. start: each
 * FIFO's length before, for pl_sched.c to run the new packets' flows. */
void
pl_apps_in(struct pl_sched *sc, struct rte_mbuf **pkts, unsigned int n, uint32_t *start)
{
	struct pl_apps *ap = sc->apps;
	unsigned int a, i, total = 0;

	memcpy(start, ap->qn, sizeof(ap->qn));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct hp_meta *md = hp_meta(m);

		a = md->app;
		if (likely(ap->qn[a] < ap->cap)) {
			ap->q[a][ap->qn[a]++] = m;
			continue;
		}
		/* its rx queue overflowed: not received, a port drop */
		sc->rx--;
		sc->bytes_rx -= rte_pktmbuf_pkt_len(m);
		sc->tcnt[md->type].rx--;
		ap->c[a].rx--;
		ap->c[a].port_drop++;
		PUB(sc->app_port_drops, sc->app_port_drops + 1);
		PUB(sc->freed, sc->freed + 1);
		rte_pktmbuf_free(m);
	}
	for (a = 0; a < ap->n; a++)
		total += ap->qn[a];
	sc->pend_n = total;
}

/* --apps: one packet's placement, the pick d: onto device d's staging
 * (d >= 0) or dropped by admission (true), or left where it is (false).
 * pl_sched.c's one-app loops keep their own copy of it, as measured. */
static inline bool
apps_put(struct pl_run *r, struct pl_sched *sc, struct rte_mbuf *m, int d, uint64_t now)
{
	if (unlikely(d == HP_SCHED_DROP)) {
		pl_sched_admit_drop(r, sc, m, now);
		return true;
	}
	if (d < 0)
		return false;
	hp_meta(m)->t_sched = now;
	hp_staging_put(sc->wst[d], m);
	sc->room[d]--;
	sc->sdev[d].queued++;
	return true;
}

/* --apps: every app's FIFO as pend is below (in order, a skipped packet
 * stays, -1 stops), but stopping only that app, the apps taking a packet
 * each in turn (the first turn moves on a pass), so that apps backlogged
 * together share what the devices take. Cost, apps runs only: one pick
 * per app and pass beyond the packets placed. */
void
pl_apps_place(struct pl_run *r, struct pl_sched *sc, uint64_t now)
{
	struct pl_apps *ap = sc->apps;
	uint32_t i[HP_MAX_APPS] = { 0 }, e[HP_MAX_APPS] = { 0 };
	bool live[HP_MAX_APPS];
	unsigned int a, k, n_live = 0, total = 0;

	for (a = 0; a < ap->n; a++) {
		live[a] = ap->qn[a] != 0;
		n_live += live[a];
	}
	while (n_live != 0) {
		for (k = 0; k < ap->n; k++) {
			struct rte_mbuf *m;
			bool stop;
			int d;

			a = (ap->rr + k) % ap->n;
			if (!live[a])
				continue;
			m = ap->q[a][i[a]++];
			d = sc->s.ops->pick(&sc->s, m);
			stop = false;
			if (!apps_put(r, sc, m, d, now)) {
				ap->q[a][e[a]++] = m;
				stop = d != HP_SCHED_SKIP;
			}
			if (!stop && i[a] < ap->qn[a])
				continue;
			/* what it did not reach stays, behind what it kept */
			memmove(&ap->q[a][e[a]], &ap->q[a][i[a]],
				(ap->qn[a] - i[a]) * sizeof(ap->q[a][0]));
			ap->qn[a] = e[a] + ap->qn[a] - i[a];
			live[a] = false;
			n_live--;
		}
	}
	ap->rr = ap->rr + 1 < ap->n ? ap->rr + 1 : 0;
	for (a = 0; a < ap->n; a++)
		total += ap->qn[a];
	sc->pend_n = total;
}

/* The generator's body hook with --apps: the body the frame's app's first
 * task writes (ids: planted patterns; ran: codewords), else random bytes
 * (the pool's are the generator's own, static). */
static uint32_t
apps_body(void *arg, uint64_t gen_id, uint32_t size, uint32_t hdr_len, uint8_t *body,
	  uint32_t room)
{
	struct pl_traffic *tr = arg;
	unsigned int a = tr->flow_app[tr->gen.body_flow];
	uint32_t n, i;

	if (tr->body_ctx[a] != NULL)
		return hp_task_gen_body(tr->body_ctx[a], gen_id, size, hdr_len, body, room);
	n = size > hdr_len ? RTE_MIN(size - hdr_len, room) : 0;
	for (i = 0; i < n; i += 8) {
		uint64_t v = hp_rand64(&tr->body_rng);

		memcpy(body + i, &v, RTE_MIN(8u, n - i));
	}
	return n;
}

int
pl_apps_gen_setup(struct pl_run *r, struct pl_traffic *tr, char *err, size_t errlen)
{
	const struct hp_app_mix *mx = &r->cfg->mix;
	uint32_t bound[HP_MAX_APPS];
	unsigned int a, f;

	tr->flow_app = calloc(tr->gen.n_flows ? tr->gen.n_flows : 1, 1);
	if (tr->flow_app == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	apps_bounds(mx, bound);
	for (f = 0; f < tr->gen.n_flows; f++)
		tr->flow_app[f] = (uint8_t)pl_app_of(bound, mx->n,
						     hp_flow_hash(&tr->gen.flows[f].key));
	for (a = 0; a < mx->n; a++)
		tr->body_ctx[a] = hp_app_body_ctx(mx->app[a], &tr->gctx[mx->first[a]]);
	tr->body_rng = r->cfg->seed ^ 0x9e3779b97f4a7c15ull;
	hp_gen_set_body(&tr->gen, apps_body, tr);
	return 0;
}

void
pl_tx_results(struct pl_sched *sc, struct rte_mbuf *m)
{
	const struct hp_meta *md = hp_meta(m);
	uint8_t *t;
	uint32_t v;
	uint16_t e;

	/* after the tasks' own trailer bytes, if any: the frame as it is */
	t = (uint8_t *)rte_pktmbuf_append(m, HP_RESULTS_LEN);
	if (t == NULL) {
		sc->results_no_room++;
		return;
	}
	v = rte_cpu_to_be_32(HP_RESULTS_MAGIC);
	memcpy(t, &v, 4);
	t[4] = md->app;
	t[5] = md->status;
	e = rte_cpu_to_be_16(md->task_err);
	memcpy(t + 6, &e, 2);
	v = rte_cpu_to_be_32(md->res32);
	memcpy(t + 8, &v, 4);
	v = rte_cpu_to_be_32(md->res32b);
	memcpy(t + 12, &v, 4);
	memcpy(t + 16, md->digest, 16);
	sc->results_written++;
}
