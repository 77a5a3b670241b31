/* SPDX-License-Identifier: BSD-3-Clause
 * A pcap file as the rx side of a ring port: a control thread reads it
 * with libpcap and puts each frame into the port's rx ring at the time its
 * timestamp says (divided by --pcap-speed), pass after pass. Paced, the
 * file is a link: a full rx ring drops the frame, counted as a port drop,
 * like a NIC's queue. At full speed (pcap_speed 0) the thread waits for
 * room instead, so the file is counted whole.
 *
 * net_pcap's own rx was used before: it cannot pace, stops at a cut record
 * without a word and hands jumbo frames over as mbuf chains.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "hp_common.h"
#include "pl_priv.h"

/* A wait longer than this sleeps (with 1 us timer slack); a shorter one
 * spins: a frame is then late by a wake-up at most, tens of us. */
#define REPLAY_SPIN_NS 20000
/* Sleeps are cut in slices this long so that a stop is seen soon. */
#define REPLAY_SLICE_NS 10000000

struct pl_replay {
	struct pl_run *r;
	/* the port's rx rings, one per scheduler lcore: with several, each
	 * frame goes to the one its symmetric RSS hash picks (hp_rss.h) */
	unsigned int n_ring;
	struct rte_ring *ring[HP_MAX_SCHED_LCORES];
	struct hp_rss rss;
	struct pl_pcap_info info;
	pthread_t tid;
	uint64_t drops;            /* written by the thread, read by others */
	int quit;
	bool joined;
	struct rte_mbuf *burst[HP_BURST];
	unsigned int n;
};

/* Opens a capture of Ethernet frames, timestamps in nanoseconds whatever
 * the file holds (pacing needs no rounding). A Linux cooked capture
 * (tcpdump -i any) has no MAC addresses and its protocol elsewhere: it is
 * refused rather than sent on with an invented Ethernet header. */
static pcap_t *
replay_open(const char *path, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	const char *nm;
	pcap_t *p;
	int lt;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (p == NULL) {
		snprintf(err, errlen, "cannot read pcap %s: %s", path, ebuf);
		return NULL;
	}
	lt = pcap_datalink(p);
	if (lt != DLT_EN10MB) {
		nm = pcap_datalink_val_to_name(lt);
		snprintf(err, errlen, "pcap %s: link type %s (%s) is not Ethernet; capture on one interface (tcpdump -i IFACE, not -i any) or rewrite it, e.g. tcprewrite --dlt=enet",
			 path, nm ? nm : "?", pcap_datalink_val_to_description_or_dlt(lt));
		pcap_close(p);
		return NULL;
	}
	return p;
}

int
pl_pcap_check(const char *path, char *err, size_t errlen)
{
	pcap_t *p = replay_open(path, err, errlen);
	struct pcap_pkthdr *h;
	const u_char *data;
	int ret = 0;

	if (p == NULL)
		return -EINVAL;
	/* cut before its first record: nothing to replay (an empty file
	 * is a run of nothing, as asked) */
	if (pcap_next_ex(p, &h, &data) == PCAP_ERROR) {
		snprintf(err, errlen, "pcap %s: no whole record: %s", path, pcap_geterr(p));
		ret = -EINVAL;
	}
	pcap_close(p);
	return ret;
}

static uint64_t
ts_ns(const struct pcap_pkthdr *h)
{
	return (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
}

int
pl_pcap_scan(const char *path, struct pl_pcap_info *info, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t first = 0, last = 0;
	pcap_t *p;
	int ret;

	memset(info, 0, sizeof(*info));
	p = replay_open(path, err, errlen);
	if (p == NULL)
		return -EINVAL;
	while ((ret = pcap_next_ex(p, &h, &data)) == 1) {
		if (info->records == 0)
			first = ts_ns(h);
		last = RTE_MAX(last, ts_ns(h));
		info->caplen_max = RTE_MAX(info->caplen_max, h->caplen);
		info->records++;
	}
	if (ret == PCAP_ERROR) {
		/* a cut file (copied while written, a full disk): what came
		 * before the cut is replayed, with a warning */
		info->cut = true;
		snprintf(info->cut_why, sizeof(info->cut_why), "%s", pcap_geterr(p));
	}
	pcap_close(p);
	if (info->records == 0 && info->cut) {
		snprintf(err, errlen, "pcap %s: no whole record: %s", path, info->cut_why);
		return -EINVAL;
	}
	info->span_ns = last > first ? last - first : 0;
	return 0;
}

uint64_t
pl_replay_drops(const struct pl_replay *rp)
{
	return LOAD(rp->drops);
}

/* Puts n frames into one ring. Paced, what does not fit is dropped, as
 * a NIC drops on a full queue; at full speed it waits for room. */
static void
ring_put(struct pl_replay *rp, struct rte_ring *ring, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int k = 0;

	while (n > k) {
		k += rte_ring_sp_enqueue_burst(ring, (void **)pkts + k, n - k, NULL);
		if (k == n)
			break;
		if (rp->r->cfg->pcap_speed > 0) {
			rte_pktmbuf_free_bulk(pkts + k, n - k);
			PUB(rp->drops, rp->drops + n - k);
			break;
		}
		if (LOAD(rp->quit)) {
			/* the run is over: these were never offered */
			rte_pktmbuf_free_bulk(pkts + k, n - k);
			break;
		}
		rte_delay_us_sleep(20);
	}
}

/* The burst into the ring, or with several rings each frame into its
 * RSS queue's (in file order within a queue, so a flow's order stays). */
static void
replay_flush(struct pl_replay *rp)
{
	struct rte_mbuf *qb[HP_MAX_SCHED_LCORES][HP_BURST];
	unsigned int qn[HP_MAX_SCHED_LCORES] = { 0 }, i, q;

	if (rp->n_ring <= 1) {
		ring_put(rp, rp->ring[0], rp->burst, rp->n);
		rp->n = 0;
		return;
	}
	for (i = 0; i < rp->n; i++) {
		q = hp_rss_queue(&rp->rss, hp_rss_hash_frame(
			rte_pktmbuf_mtod(rp->burst[i], const uint8_t *),
			rte_pktmbuf_data_len(rp->burst[i])));
		qb[q][qn[q]++] = rp->burst[i];
	}
	for (q = 0; q < rp->n_ring; q++)
		if (qn[q])
			ring_put(rp, rp->ring[q], qb[q], qn[q]);
	rp->n = 0;
}

/* Waits until TSC due (or a stop). */
static void
replay_wait(struct pl_replay *rp, uint64_t due)
{
	const uint64_t hz = rp->r->hz;
	uint64_t now;

	while (!LOAD(rp->quit) && (now = rte_rdtsc()) < due) {
		uint64_t left = (due - now) * 1000000000ull / hz;

		if (left > REPLAY_SPIN_NS) {
			struct timespec ts = { 0, (long)RTE_MIN(left - REPLAY_SPIN_NS / 2,
							       (uint64_t)REPLAY_SLICE_NS) };

			nanosleep(&ts, NULL);
		} else {
			rte_pause();
		}
	}
}

/* One frame in one mbuf, or a chain where it is longer than the longest
 * mbuf can be (the scheduler drops it as segmented, with that reason). */
static struct rte_mbuf *
replay_mbuf(struct rte_mempool *mp, const u_char *data, uint32_t len)
{
	struct rte_mbuf *head, *seg;
	uint32_t off = 0, k;

	head = rte_pktmbuf_alloc(mp);
	if (head == NULL)
		return NULL;
	for (;;) {
		/* append() fills the last segment and counts it in the head */
		k = RTE_MIN(len - off, (uint32_t)rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(head)));
		memcpy(rte_pktmbuf_append(head, (uint16_t)k), data + off, k);
		off += k;
		if (off == len)
			return head;
		seg = rte_pktmbuf_alloc(mp);
		if (seg == NULL || rte_pktmbuf_chain(head, seg) < 0) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
}

/* An mbuf for the frame. Paced, an empty pool is a drop (the NIC had no
 * buffer); at full speed the thread waits for the pipeline to free some. */
static struct rte_mbuf *
replay_frame(struct pl_replay *rp, const u_char *data, uint32_t len)
{
	struct rte_mbuf *m;

	while ((m = replay_mbuf(rp->r->pool, data, len)) == NULL) {
		if (rp->r->cfg->pcap_speed > 0) {
			PUB(rp->drops, rp->drops + 1);
			return NULL;
		}
		replay_flush(rp);
		if (LOAD(rp->quit))
			return NULL;
		rte_delay_us_sleep(50);
	}
	return m;
}

/* One pass over the file: frames at base_ns + their offset in it. Returns
 * the offset of the pass's last frame from the replay's start. */
static uint64_t
replay_pass(struct pl_replay *rp, uint64_t t_start, uint64_t base_ns)
{
	const struct hp_run_cfg *cfg = rp->r->cfg;
	char err[256];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t k, first = 0, rel = base_ns;
	pcap_t *p;

	p = replay_open(cfg->src_arg, err, sizeof(err));
	if (p == NULL) {
		HP_LOG(ERR, "%s", err);
		return rel;
	}
	for (k = 0; k < rp->info.records && !LOAD(rp->quit); k++) {
		struct rte_mbuf *m;

		if (pcap_next_ex(p, &h, &data) != 1)
			break;
		if (k == 0)
			first = ts_ns(h);
		/* a capture's clock may step back (merged files): never earlier
		 * than the frame before */
		rel = RTE_MAX(rel, base_ns + (ts_ns(h) > first ? ts_ns(h) - first : 0));
		if (cfg->pcap_speed > 0) {
			uint64_t due = t_start + (uint64_t)((double)rel / cfg->pcap_speed *
							    (double)rp->r->hz / 1e9);

			if (rte_rdtsc() < due) {
				replay_flush(rp);
				replay_wait(rp, due);
			}
			/* stopped while waiting: the frame was never due */
			if (LOAD(rp->quit))
				break;
		}
		m = replay_frame(rp, data, h->caplen);
		if (m == NULL)
			continue;
		rp->burst[rp->n++] = m;
		if (rp->n == RTE_DIM(rp->burst))
			replay_flush(rp);
	}
	replay_flush(rp);
	pcap_close(p);
	return rel;
}

static void *
replay_main(void *arg)
{
	struct pl_replay *rp = arg;
	const struct hp_run_cfg *cfg = rp->r->cfg;
	uint64_t t_start, base = 0;
	unsigned int pass;

	/* sleeps as short as asked: the pacing's error is a wake-up */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	/* the file is offered in the measured phase only, like any port's
	 * traffic is read then */
	while (!LOAD(rp->quit) && LOAD(rp->r->t0) == 0)
		rte_delay_us_sleep(200);
	t_start = rte_rdtsc();
	for (pass = 0; rp->info.records != 0 && !LOAD(rp->quit) &&
	     (cfg->pcap_loops == HP_PCAP_FOREVER || pass < RTE_MAX(cfg->pcap_loops, 1u)); pass++)
		base = replay_pass(rp, t_start, base);
	return NULL;
}

int
pl_replay_start(struct pl_run *r, struct rte_ring *const *ring, unsigned int n_ring,
		const struct pl_pcap_info *info, struct pl_replay **out, char *err, size_t errlen)
{
	struct pl_replay *rp;
	int ret;

	rp = calloc(1, sizeof(*rp));
	if (rp == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rp->r = r;
	rp->n_ring = n_ring;
	memcpy(rp->ring, ring, n_ring * sizeof(ring[0]));
	hp_rss_init(&rp->rss, n_ring);
	rp->info = *info;
	ret = rte_ctrl_thread_create(&rp->tid, "hp-pcap", NULL, replay_main, rp);
	if (ret != 0) {
		snprintf(err, errlen, "cannot start the pcap replay thread: %s",
			 strerror(ret < 0 ? -ret : ret));
		free(rp);
		return -EIO;
	}
	*out = rp;
	return 0;
}

void
pl_replay_stop(struct pl_replay *rp)
{
	if (rp == NULL || rp->joined)
		return;
	STORE(rp->quit, 1);
	pthread_join(rp->tid, NULL);
	rp->joined = true;
}

void
pl_replay_free(struct pl_replay *rp)
{
	pl_replay_stop(rp);
	free(rp);
}
