/* SPDX-License-Identifier: BSD-3-Clause
 * The run's port: for generated traffic a DPDK ring port between the
 * traffic stage and the scheduler (rte_eth_from_rings), else a net_pcap or
 * net_af_packet vdev made at run time; and what the port dropped.
 */
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "pl_priv.h"

static int
port_setup(struct pl_run *r, uint16_t port, char *err, size_t errlen)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	uint16_t nrx = (uint16_t)r->cfg->ring_size, ntx = (uint16_t)r->cfg->ring_size;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	/* the checksums the port can put right itself (hp_pkt_l4_fixup) */
	conf.txmode.offloads = ret == 0 ? info.tx_offload_capa & HP_PKT_TX_CKSUM_OFFLOADS : 0;
	if (port == r->tx_port)
		r->tx_offload = conf.txmode.offloads;
	if (ret == 0)
		ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nrx, rte_eth_dev_socket_id(port),
					     NULL, r->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, ntx, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0) {
		snprintf(err, errlen, "cannot set up port %u (%s): %s", port,
			 info.driver_name ? info.driver_name : "?", strerror(-ret));
		return ret;
	}
	rte_eth_promiscuous_enable(port);
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

static int
pcap_count(const char *path, uint64_t *count, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *hdr;
	const u_char *data;
	pcap_t *p;
	int ret;

	p = pcap_open_offline(path, ebuf);
	if (p == NULL) {
		snprintf(err, errlen, "cannot read pcap %s: %s", path, ebuf);
		return -EINVAL;
	}
	*count = 0;
	while ((ret = pcap_next_ex(p, &hdr, &data)) == 1)
		(*count)++;
	if (ret == -1) {
		snprintf(err, errlen, "cannot read pcap %s: %s", path, pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
	return 0;
}

int
pl_ports_setup(struct pl_run *r, char *err, size_t errlen)
{
	const struct hp_run_cfg *cfg = r->cfg;
	char args[2200], tx[1024];
	int ret;

	switch (cfg->src) {
	case HP_SRC_GEN: {
		struct rte_ring *rxr[1], *txr[1];

		rxr[0] = rte_ring_create("hp_port_rx", cfg->ring_size, rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		txr[0] = rte_ring_create("hp_port_tx", cfg->ring_size, rte_socket_id(),
					 RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rxr[0] == NULL || txr[0] == NULL) {
			snprintf(err, errlen, "cannot create port rings: %s",
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
		r->tr->rx_ring = rxr[0];
		r->tr->tx_ring = txr[0];
		ret = rte_eth_from_rings("hp_gen", rxr, 1, txr, 1, rte_socket_id());
		if (ret < 0) {
			snprintf(err, errlen, "cannot create ring port: %s",
				 rte_strerror(rte_errno));
			return -EIO;
		}
		r->rx_port = r->tx_port = (uint16_t)ret;
		break;
	}
	case HP_SRC_PCAP:
		ret = pcap_count(cfg->src_arg, &r->pcap_count, err, errlen);
		if (ret < 0)
			return ret;
		if (cfg->tx_arg != NULL)
			snprintf(tx, sizeof(tx), "%s", cfg->tx_arg);
		else
			snprintf(tx, sizeof(tx), "%s/out.pcap", cfg->out_dir);
		snprintf(args, sizeof(args), "rx_pcap=%s,tx_pcap=%s", cfg->src_arg, tx);
		ret = vdev_port("net_pcap_hp", args, &r->rx_port, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port = r->rx_port;
		break;
	case HP_SRC_AF_PACKET:
		if (if_nametoindex(cfg->src_arg) == 0) {
			snprintf(err, errlen, "interface %s does not exist", cfg->src_arg);
			return -ENODEV;
		}
		snprintf(args, sizeof(args), "iface=%s,qpairs=1", cfg->src_arg);
		ret = vdev_port("net_af_packet_hp", args, &r->rx_port, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port = r->rx_port;
		if (cfg->tx_arg != NULL && strcmp(cfg->tx_arg, cfg->src_arg) != 0) {
			if (if_nametoindex(cfg->tx_arg) == 0) {
				snprintf(err, errlen, "interface %s does not exist",
					 cfg->tx_arg);
				return -ENODEV;
			}
			snprintf(args, sizeof(args), "iface=%s,qpairs=1", cfg->tx_arg);
			ret = vdev_port("net_af_packet_hptx", args, &r->tx_port, err,
					errlen);
			if (ret < 0)
				return ret;
		}
		break;
	}
	ret = port_setup(r, r->rx_port, err, errlen);
	if (ret < 0)
		return ret;
	r->rx_port_ok = 1;
	if (r->tx_port != r->rx_port) {
		ret = port_setup(r, r->tx_port, err, errlen);
		if (ret < 0)
			return ret;
		r->tx_port_ok = 1;
	}
	return 0;
}

void
pl_ports_close(struct pl_run *r)
{
	if (r->rx_port_ok) {
		rte_eth_dev_stop(r->rx_port);
		rte_eth_dev_close(r->rx_port);
	}
	if (r->tx_port_ok) {
		rte_eth_dev_stop(r->tx_port);
		rte_eth_dev_close(r->tx_port);
	}
	r->rx_port_ok = r->tx_port_ok = 0;
}

uint64_t
pl_port_drops(struct pl_run *r)
{
	struct rte_eth_stats st;

	if (r->cfg->src == HP_SRC_GEN)
		return LOAD(r->tr->dropped_port);
	if (rte_eth_stats_get(r->rx_port, &st) != 0)
		return 0;
	return st.imissed + st.rx_nombuf + st.ierrors;
}

uint64_t
pl_offered_now(struct pl_run *r)
{
	if (r->cfg->src == HP_SRC_GEN)
		return LOAD(r->tr->offered);
	return r->sc->rx + pl_port_drops(r);
}
