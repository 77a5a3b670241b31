/* SPDX-License-Identifier: BSD-3-Clause
 * The run's ports and the pool their frames come in: for generated
 * traffic a DPDK ring port between the traffic stage and the scheduler
 * (rte_eth_from_rings); for a pcap a ring port the replay fills
 * (pl_replay.c) and a net_pcap vdev that writes the output; for an
 * interface net_af_packet vdevs whose frames are as long as its MTU. And
 * what each port dropped, the kernel's part included.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "hp_common.h"
#include "pl_priv.h"

/* Where the kernel puts a frame in a TPACKET_V2 ring slot: after the
 * header and sockaddr_ll, aligned with room for a 16-byte MAC header
 * (net/packet/af_packet.c, tpacket_rcv), so a slot of framesz bytes holds
 * a frame of framesz - AFP_MAC_OFF. */
#define AFP_MAC_OFF (TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - RTE_ETHER_HDR_LEN)
/* net_af_packet refuses an rx queue whose mbufs hold less than this
 * much under a slot (eth_rx_queue_setup). */
#define AFP_PMD_HDR (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
#define AFP_MAX_FDS 64

struct pl_afp {
	unsigned int ifindex, mtu, framesz, blocksz, framecnt;
	bool promisc_was;          /* IFF_PROMISC before the run */
	bool promisc_set;          /* the run turned it on */
	/* the PMD's sockets (rx port), one per queue pair, else -1; the
	 * run's drops are the kernel's drop counts of them all */
	int fd[HP_MAX_SCHED_LCORES];
	unsigned int n_fd;
};

struct pl_ports {
	struct pl_afp afp[2];      /* af_packet: rx, and tx where it differs */
	uint64_t kdrops;           /* kernel ring drops read so far */
	uint64_t reasm0[3];        /* namespace's ReasmReqds/OKs/Fails at set-up */
	bool reasm_ok;
	struct pl_pcap_info pcap;
	/* pcap: the ring port's rings, a pair per scheduler lcore; with
	 * several the schedulers send into txr and the traffic stage
	 * passes what they sent on to net_pcap (pl_traffic.c) */
	struct rte_ring *rxr[HP_MAX_SCHED_LCORES], *txr[HP_MAX_SCHED_LCORES];
	struct pl_replay *replay;
	unsigned int frame_max;    /* the pool's longest frame in one mbuf */
};

static void
pcap_tx_path(const struct hp_run_cfg *cfg, char *buf, size_t len)
{
	if (cfg->tx_arg != NULL)
		snprintf(buf, len, "%s", cfg->tx_arg);
	else
		snprintf(buf, len, "%s/out.pcap", cfg->out_dir);
}

/* Same path, or another name for the same file (a link). */
static bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int
hp_run_source_check(const struct hp_run_cfg *cfg, char *err, size_t errlen)
{
	char tx[4200];
	int ret;

	switch (cfg->src) {
	case HP_SRC_GEN:
		break;
	case HP_SRC_PCAP:
		ret = pl_pcap_check(cfg->src_arg, err, errlen);
		if (ret < 0)
			return ret;
		pcap_tx_path(cfg, tx, sizeof(tx));
		/* net_pcap truncates its output when it opens it: the
		 * user's capture would be gone before the first frame */
		if (same_file(tx, cfg->src_arg)) {
			snprintf(err, errlen, "the output %s is the source capture %s: name another file (--tx FILE, or --out DIR)",
				 tx, cfg->src_arg);
			return -EINVAL;
		}
		/* DPDK device arguments end at a comma */
		if (strchr(tx, ',') != NULL) {
			snprintf(err, errlen, "the output pcap %s: a name with a comma cannot be given to net_pcap",
				 tx);
			return -EINVAL;
		}
		break;
	case HP_SRC_AF_PACKET:
		if (if_nametoindex(cfg->src_arg) == 0) {
			snprintf(err, errlen, "interface %s does not exist", cfg->src_arg);
			return -ENODEV;
		}
		if (cfg->tx_arg != NULL && if_nametoindex(cfg->tx_arg) == 0) {
			snprintf(err, errlen, "interface %s does not exist", cfg->tx_arg);
			return -ENODEV;
		}
		break;
	}
	return 0;
}

/* The pool, its mbufs room enough for `frame` bytes after the headroom
 * (DPDK's default at least), each with an hp_meta (HP_META_PRIV_SIZE). */
static int
ports_pool(struct pl_run *r, unsigned int frame, char *err, size_t errlen)
{
	unsigned int room = RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_BUF_SIZE,
				    RTE_MIN(frame + RTE_PKTMBUF_HEADROOM, (unsigned int)UINT16_MAX));
	unsigned int n = r->cfg->mbufs;

	r->pool = rte_pktmbuf_pool_create("hp_mbufs", n, RTE_MIN(256u, n / 8), HP_META_PRIV_SIZE,
					  (uint16_t)room, (int)rte_socket_id());
	if (r->pool == NULL) {
		snprintf(err, errlen, "cannot create %u mbufs of %u bytes: %s", n, room,
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	r->ports->frame_max = room - RTE_PKTMBUF_HEADROOM;
	return 0;
}

/* The port with nq rx and nq tx queues (one pair per scheduler lcore);
 * a port that has fewer is refused with one line. */
static int
port_setup(struct pl_run *r, uint16_t port, uint16_t nq, bool promisc, bool *promisc_set,
	   char *err, size_t errlen)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nrx = (uint16_t)r->cfg->ring_size, ntx = (uint16_t)r->cfg->ring_size, q;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret == 0 && (info.max_rx_queues < nq || info.max_tx_queues < nq)) {
		snprintf(err, errlen, "--sched-lcores %u: port %u (%s) has %u rx and %u tx queues",
			 nq, port, info.driver_name ? info.driver_name : "?", info.max_rx_queues,
			 info.max_tx_queues);
		return -EINVAL;
	}
	/* the checksums the port can put right itself (hp_pkt_l4_fixup) */
	conf.txmode.offloads = ret == 0 ? info.tx_offload_capa & HP_PKT_TX_CKSUM_OFFLOADS : 0;
	if (port == r->tx_port)
		r->tx_offload = conf.txmode.offloads;
	if (ret == 0)
		ret = rte_eth_dev_configure(port, nq, nq, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	for (q = 0; q < nq && ret == 0; q++) {
		ret = rte_eth_rx_queue_setup(port, q, nrx, rte_eth_dev_socket_id(port),
					     NULL, r->pool);
		if (ret == 0)
			ret = rte_eth_tx_queue_setup(port, q, ntx, rte_eth_dev_socket_id(port), NULL);
	}
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0) {
		snprintf(err, errlen, "cannot set up port %u (%s): %s", port,
			 info.driver_name ? info.driver_name : "?", strerror(-ret));
		return ret;
	}
	if (promisc && rte_eth_promiscuous_enable(port) == 0 && promisc_set != NULL)
		*promisc_set = true;
	return 0;
}

static int
vdev_port(const char *name, const char *args, uint16_t *port, char *err,
	  size_t errlen)
{
	int ret = rte_vdev_init(name, args);

	if (ret == 0)
		ret = rte_eth_dev_get_port_by_name(name, port);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create %s (%s): %s", name, args,
			 strerror(-ret));
		return ret;
	}
	return 0;
}

/* ---- generated traffic ---- */

static int
gen_setup(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct pl_traffic *tr = r->tr;
	char nm[RTE_RING_NAMESIZE];
	unsigned int i;
	int ret;

	ret = ports_pool(r, 0, err, errlen);
	if (ret < 0)
		return ret;
	/* a queue pair per scheduler lcore, the generator spreading its
	 * frames over the rx rings as a NIC's RSS would */
	tr->n_q = r->n_sc;
	hp_rss_init(&tr->rss, tr->n_q);
	for (i = 0; i < tr->n_q; i++) {
		snprintf(nm, sizeof(nm), i ? "hp_port_rx%u" : "hp_port_rx", i);
		tr->rx_ring[i] = rte_ring_create(nm, cfg->ring_size, rte_socket_id(),
						 RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(nm, sizeof(nm), i ? "hp_port_tx%u" : "hp_port_tx", i);
		tr->tx_ring[i] = rte_ring_create(nm, cfg->ring_size, rte_socket_id(),
						 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (tr->rx_ring[i] == NULL || tr->tx_ring[i] == NULL) {
			snprintf(err, errlen, "cannot create port rings: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	ret = rte_eth_from_rings("hp_gen", tr->rx_ring, tr->n_q, tr->tx_ring, tr->n_q,
				 rte_socket_id());
	if (ret < 0) {
		snprintf(err, errlen, "cannot create ring port: %s",
			 rte_strerror(rte_errno));
		return -EIO;
	}
	r->rx_port = r->tx_port = (uint16_t)ret;
	return 0;
}

/* ---- pcap: the replay into a ring port, net_pcap for the output ---- */

static int
pcap_setup(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct pl_ports *pp = r->ports;
	char args[4300];
	int ret;

	ret = pl_pcap_scan(cfg->src_arg, &pp->pcap, err, errlen);
	if (ret < 0)
		return ret;
	if (pp->pcap.cut)
		HP_LOG(WARNING, "pcap %s is cut after %" PRIu64 " whole records (%s): replaying those",
		       cfg->src_arg, pp->pcap.records, pp->pcap.cut_why);
	if (cfg->pcap_speed > 0 && cfg->pcap_loops != HP_PCAP_FOREVER &&
	    (double)pp->pcap.span_ns / 1e9 / cfg->pcap_speed * RTE_MAX(cfg->pcap_loops, 1u) >
	    cfg->duration_s)
		HP_LOG(WARNING, "pcap %s spans %.1f s a pass at --pcap-speed %g, more than --duration %.1f s: the run ends first",
		       cfg->src_arg, (double)pp->pcap.span_ns / 1e9, cfg->pcap_speed,
		       cfg->duration_s);
	r->pcap_count = cfg->pcap_loops == HP_PCAP_FOREVER ? UINT64_MAX :
			pp->pcap.records * RTE_MAX(cfg->pcap_loops, 1u);
	/* a jumbo frame in the file fits one mbuf */
	ret = ports_pool(r, pp->pcap.caplen_max, err, errlen);
	if (ret < 0)
		return ret;
	for (unsigned int q = 0; q < r->n_sc; q++) {
		char nm[RTE_RING_NAMESIZE];

		snprintf(nm, sizeof(nm), q ? "hp_pcap_rx%u" : "hp_pcap_rx", q);
		pp->rxr[q] = rte_ring_create(nm, cfg->ring_size, rte_socket_id(),
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(nm, sizeof(nm), q ? "hp_pcap_tx%u" : "hp_pcap_tx", q);
		pp->txr[q] = rte_ring_create(nm, r->n_sc > 1 ? cfg->ring_size : 64,
					     rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (pp->rxr[q] == NULL || pp->txr[q] == NULL) {
			snprintf(err, errlen, "cannot create port rings: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	ret = rte_eth_from_rings("hp_pcap", pp->rxr, r->n_sc, pp->txr, r->n_sc, rte_socket_id());
	if (ret < 0) {
		snprintf(err, errlen, "cannot create ring port: %s", rte_strerror(rte_errno));
		return -EIO;
	}
	r->rx_port = (uint16_t)ret;
	/* without rx_pcap net_pcap's rx queue is a null one; the output is
	 * written under a temporary name, renamed once the port is closed
	 * (hp_run): an interrupted or failed run leaves no half-written
	 * file under the real name */
	pcap_tx_path(cfg, r->tx_pcap, sizeof(r->tx_pcap));
	snprintf(r->tx_pcap_tmp, sizeof(r->tx_pcap_tmp), "%s.%d.tmp", r->tx_pcap, (int)getpid());
	snprintf(args, sizeof(args), "tx_pcap=%s", r->tx_pcap_tmp);
	return vdev_port("net_pcap_hp", args, &r->tx_port, err, errlen);
}

/* ---- af_packet ---- */

/* Ring geometry from the interface's MTU: slots of whole frames (two VLAN
 * tags included), a block a whole number of pages and slots (the PMD
 * finds slot i at i * framesz), --ring-size slots. */
static int
afp_geometry(struct pl_afp *a, const char *ifname, unsigned int ring, char *err,
	     size_t errlen)
{
	const unsigned int page = (unsigned int)sysconf(_SC_PAGESIZE);
	const unsigned int max = RTE_ALIGN_FLOOR(UINT16_MAX - RTE_PKTMBUF_HEADROOM + AFP_PMD_HDR,
						 1024u);
	struct ifreq ifr;
	unsigned int fpb;
	int s, ret = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	for (unsigned int q = 0; q < HP_MAX_SCHED_LCORES; q++)
		a->fd[q] = -1;
	a->n_fd = 0;
	a->ifindex = if_nametoindex(ifname);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || ioctl(s, SIOCGIFMTU, &ifr) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the MTU of %s: %s", ifname, strerror(errno));
		goto out;
	}
	a->mtu = (unsigned int)ifr.ifr_mtu;
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the flags of %s: %s", ifname, strerror(errno));
		goto out;
	}
	a->promisc_was = (ifr.ifr_flags & IFF_PROMISC) != 0;
	a->framesz = RTE_ALIGN_CEIL(AFP_MAC_OFF + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN + a->mtu,
				    1024u);
	if (a->framesz > max) {
		/* an mbuf holds at most 64 KiB (loopback's MTU is 65536) */
		a->framesz = max;
		HP_LOG(WARNING, "%s: MTU %u, but frames longer than %u B do not fit one mbuf: they arrive cut",
		       ifname, a->mtu, (unsigned int)(max - AFP_MAC_OFF));
	}
	for (a->blocksz = a->framesz; a->blocksz % page != 0; a->blocksz += a->framesz)
		;
	fpb = a->blocksz / a->framesz;
	a->framecnt = RTE_ALIGN_CEIL(RTE_MAX(ring, fpb), fpb);
out:
	if (s >= 0)
		close(s);
	return ret;
}

/* This process's AF_PACKET sockets bound to ifindex. net_af_packet keeps
 * its socket to itself; the kernel's drop counter (PACKET_STATISTICS) is
 * per socket, so the socket is found as the one the vdev added. */
static int
afp_sockets(unsigned int ifindex, int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -errno;
	while ((e = readdir(d)) != NULL && n < max) {
		struct sockaddr_ll sll;
		socklen_t len = sizeof(sll), dl = sizeof(int);
		char *end;
		int fd, dom;

		fd = (int)strtol(e->d_name, &end, 10);
		if (*end != '\0' || fd == dirfd(d) ||
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) < 0 || dom != AF_PACKET ||
		    getsockname(fd, (struct sockaddr *)&sll, &len) < 0 ||
		    (unsigned int)sll.sll_ifindex != ifindex)
			continue;
		fds[n++] = fd;
	}
	closedir(d);
	return n;
}

/* A net_af_packet port with nq queue pairs: with several, the PMD joins
 * its sockets in a PACKET_FANOUT group of mode hash, which the kernel
 * computes symmetric (__skb_get_hash_symmetric): both directions of a
 * flow on one queue, the RSS of an interface without one. */
static int
afp_vdev(struct pl_afp *a, const char *name, const char *ifname, bool rx, unsigned int nq,
	 uint16_t *port, char *err, size_t errlen)
{
	int before[AFP_MAX_FDS], after[AFP_MAX_FDS], nb = 0, na, i, k, ret;
	char args[256];

	snprintf(args, sizeof(args), "iface=%s,qpairs=%u,framesz=%u,blocksz=%u,framecnt=%u",
		 ifname, nq, a->framesz, a->blocksz, a->framecnt);
	if (rx)
		nb = afp_sockets(a->ifindex, before, AFP_MAX_FDS);
	ret = vdev_port(name, args, port, err, errlen);
	if (ret < 0 || !rx)
		return ret;
	na = afp_sockets(a->ifindex, after, AFP_MAX_FDS);
	for (i = 0; i < na && a->n_fd < nq; i++) {
		for (k = 0; k < nb && before[k] != after[i]; k++)
			;
		if (k == nb)
			a->fd[a->n_fd++] = after[i];
	}
	if (nb < 0 || a->n_fd < nq) {
		snprintf(err, errlen, "cannot find net_af_packet's socket on %s, whose kernel drops would go uncounted",
			 ifname);
		return -EIO;
	}
	return 0;
}

/* The namespace's IPv4 reassembly counters (/proc/net/snmp, "Ip:"):
 * fragments in, datagrams out, failures. 0 or -errno. */
static int
ip_reasm(uint64_t v[3])
{
	static const char *const want[3] = { "ReasmReqds", "ReasmOKs", "ReasmFails" };
	char names[2048], vals[2048], *sn = NULL, *sv = NULL, *n, *x;
	FILE *f = fopen("/proc/net/snmp", "r");
	int found = 0, i;

	if (f == NULL)
		return -errno;
	while (fgets(names, sizeof(names), f) != NULL && strncmp(names, "Ip: ", 4) != 0)
		;
	if (strncmp(names, "Ip: ", 4) != 0 || fgets(vals, sizeof(vals), f) == NULL) {
		fclose(f);
		return -ENOENT;
	}
	fclose(f);
	for (n = strtok_r(names, " \n", &sn), x = strtok_r(vals, " \n", &sv); n && x;
	     n = strtok_r(NULL, " \n", &sn), x = strtok_r(NULL, " \n", &sv))
		for (i = 0; i < 3; i++)
			if (strcmp(n, want[i]) == 0) {
				v[i] = strtoull(x, NULL, 10);
				found++;
			}
	return found == 3 ? 0 : -ENOENT;
}

static int
afp_setup(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct pl_ports *pp = r->ports;
	bool two = cfg->tx_arg != NULL && strcmp(cfg->tx_arg, cfg->src_arg) != 0;
	int ret;

	ret = afp_geometry(&pp->afp[0], cfg->src_arg, cfg->ring_size, err, errlen);
	if (ret == 0 && two)
		ret = afp_geometry(&pp->afp[1], cfg->tx_arg, cfg->ring_size, err, errlen);
	if (ret < 0)
		return ret;
	/* every queue of a net_af_packet port wants mbufs as long as its
	 * slots, the tx port's (with a null rx) too */
	ret = ports_pool(r, RTE_MAX(pp->afp[0].framesz, two ? pp->afp[1].framesz : 0) -
			    AFP_PMD_HDR, err, errlen);
	if (ret < 0)
		return ret;
	pp->reasm_ok = ip_reasm(pp->reasm0) == 0;
	ret = afp_vdev(&pp->afp[0], "net_af_packet_hp", cfg->src_arg, true, r->n_sc,
		       &r->rx_port, err, errlen);
	r->tx_port = r->rx_port;
	if (ret == 0 && two)
		ret = afp_vdev(&pp->afp[1], "net_af_packet_hptx", cfg->tx_arg, false, r->n_sc,
			       &r->tx_port, err, errlen);
	return ret;
}

static void
afp_kernel_drops(struct pl_ports *pp)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);
	/* the counter restarts at every read; readers add what they took */
	for (unsigned int q = 0; q < pp->afp[0].n_fd; q++) {
		int fd = LOAD(pp->afp[0].fd[q]);

		len = sizeof(st);
		if (fd >= 0 && getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0 &&
		    st.tp_drops != 0)
			__atomic_fetch_add(&pp->kdrops, st.tp_drops, __ATOMIC_RELAXED);
	}
}

/* ---- the run's side ---- */

int
pl_ports_setup(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	struct pl_ports *pp;
	int ret;

	ret = hp_run_source_check(cfg, err, errlen);
	if (ret < 0)
		return ret;
	pp = calloc(1, sizeof(*pp));
	if (pp == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int q = 0; q < HP_MAX_SCHED_LCORES; q++)
		pp->afp[0].fd[q] = pp->afp[1].fd[q] = -1;
	r->ports = pp;
	ret = cfg->src == HP_SRC_GEN ? gen_setup(r, err, errlen) :
	      cfg->src == HP_SRC_PCAP ? pcap_setup(r, err, errlen) : afp_setup(r, err, errlen);
	if (ret < 0)
		return ret;
	ret = port_setup(r, r->rx_port, (uint16_t)r->n_sc, true,
			 cfg->src == HP_SRC_AF_PACKET ? &pp->afp[0].promisc_set : NULL, err, errlen);
	if (ret < 0)
		return ret;
	r->rx_port_ok = 1;
	if (r->tx_port != r->rx_port) {
		/* several schedulers and a pcap output: they send into the
		 * ring port, one queue each; net_pcap gets one writer */
		ret = port_setup(r, r->tx_port, cfg->src == HP_SRC_PCAP && r->n_sc > 1 ? 1 :
				 (uint16_t)r->n_sc, false, NULL, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port_ok = 1;
	}
	r->sched_tx_port = cfg->src == HP_SRC_PCAP && r->n_sc > 1 ? r->rx_port : r->tx_port;
	if (cfg->src == HP_SRC_PCAP)
		ret = pl_replay_start(r, pp->rxr, r->n_sc, &pp->pcap, &pp->replay, err, errlen);
	return ret;
}

void
pl_ports_stop_rx(struct pl_run *r)
{
	if (r->ports != NULL)
		pl_replay_stop(r->ports->replay);
}

void
pl_ports_close(struct pl_run *r)
{
	struct pl_ports *pp = r->ports;
	struct rte_mbuf *m;

	if (pp != NULL) {
		pl_replay_stop(pp->replay);
		/* stop closes the socket: its last drops first */
		afp_kernel_drops(pp);
		for (unsigned int q = 0; q < HP_MAX_SCHED_LCORES; q++)
			STORE(pp->afp[0].fd[q], -1);
		/* the interface as it was found (the PMD leaves it on) */
		if (pp->afp[0].promisc_set && !pp->afp[0].promisc_was)
			rte_eth_promiscuous_disable(r->rx_port);
	}
	if (r->rx_port_ok) {
		rte_eth_dev_stop(r->rx_port);
		rte_eth_dev_close(r->rx_port);
	}
	if (r->tx_port_ok) {
		rte_eth_dev_stop(r->tx_port);
		rte_eth_dev_close(r->tx_port);
	}
	r->rx_port_ok = r->tx_port_ok = 0;
	if (pp == NULL)
		return;
	/* frames the replay queued that no one read (a failed start) */
	for (unsigned int q = 0; q < HP_MAX_SCHED_LCORES; q++) {
		while (pp->rxr[q] != NULL && rte_ring_dequeue(pp->rxr[q], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		while (pp->txr[q] != NULL && rte_ring_dequeue(pp->txr[q], (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(pp->rxr[q]);
		rte_ring_free(pp->txr[q]);
	}
	pl_replay_free(pp->replay);
	free(pp);
	r->ports = NULL;
}

struct rte_ring *
pl_ports_txr(struct pl_run *r, unsigned int q)
{
	return r->ports != NULL && q < HP_MAX_SCHED_LCORES ? r->ports->txr[q] : NULL;
}

uint64_t
pl_port_drops(struct pl_run *r)
{
	struct pl_ports *pp = r->ports;
	struct rte_eth_stats st;
	/* --apps: an app's own drops at the scheduler's rx are port drops */
	uint64_t d = PL_SUM(r, app_port_drops);

	if (r->cfg->src == HP_SRC_GEN)
		return d + LOAD(r->tr->dropped_port);
	if (pp == NULL)
		return d;
	switch (r->cfg->src) {
	case HP_SRC_GEN:
		break;
	case HP_SRC_PCAP:
		return d + (pp->replay != NULL ? pl_replay_drops(pp->replay) : 0);
	case HP_SRC_AF_PACKET:
		afp_kernel_drops(pp);
		if (rte_eth_stats_get(r->rx_port, &st) == 0)
			d += st.imissed + st.rx_nombuf + st.ierrors;
		return d + __atomic_load_n(&pp->kdrops, __ATOMIC_RELAXED);
	}
	return d;
}

uint64_t
pl_offered_now(struct pl_run *r)
{
	if (r->cfg->src == HP_SRC_GEN)
		return LOAD(r->tr->offered);
	return PL_SUM(r, rx) + pl_port_drops(r);
}

void
pl_port_ethdev(struct pl_run *r, struct hp_eth_view *v, bool mark)
{
	struct rte_eth_stats rx = { 0 }, tx = { 0 };
	const struct hp_eth_view *b = &r->eth0;

	if (r->rx_port_ok)
		rte_eth_stats_get(r->rx_port, &rx);
	/* tx_port_ok says whether a tx port of its own is open */
	if (r->tx_port_ok)
		rte_eth_stats_get(r->tx_port, &tx);
	else if (r->rx_port_ok && r->tx_port == r->rx_port)
		tx = rx;
	*v = (struct hp_eth_view){
		.ipackets = rx.ipackets, .ibytes = rx.ibytes, .imissed = rx.imissed,
		.ierrors = rx.ierrors, .rx_nombuf = rx.rx_nombuf,
		.opackets = tx.opackets, .obytes = tx.obytes, .oerrors = tx.oerrors,
	};
	if (mark) {
		r->eth0 = *v;
		return;
	}
	v->ipackets -= b->ipackets;
	v->ibytes -= b->ibytes;
	v->imissed -= b->imissed;
	v->ierrors -= b->ierrors;
	v->rx_nombuf -= b->rx_nombuf;
	v->opackets -= b->opackets;
	v->obytes -= b->obytes;
	v->oerrors -= b->oerrors;
}

void
pl_ports_report(struct pl_run *r, struct hp_port_report *rep)
{
	struct pl_ports *pp = r->ports;
	uint64_t v[3];

	memset(rep, 0, sizeof(*rep));
	pl_port_ethdev(r, &rep->ethdev, false);
	if (pp == NULL)
		return;
	rep->frame_max = pp->frame_max;
	if (r->cfg->src == HP_SRC_PCAP) {
		rep->pcap_records = pp->pcap.records;
		rep->pcap_cut = pp->pcap.cut;
	} else if (r->cfg->src == HP_SRC_AF_PACKET) {
		afp_kernel_drops(pp);
		rep->mtu = pp->afp[0].mtu;
		rep->frame_max = RTE_MIN(rep->frame_max, pp->afp[0].framesz - AFP_MAC_OFF);
		rep->kernel_drops = __atomic_load_n(&pp->kdrops, __ATOMIC_RELAXED);
		if (pp->reasm_ok && ip_reasm(v) == 0) {
			rep->reasm_fragments = v[0] - pp->reasm0[0];
			rep->reasm_datagrams = v[1] - pp->reasm0[1];
			rep->reasm_failed = v[2] - pp->reasm0[2];
		}
	}
}
