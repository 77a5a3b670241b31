#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Simulates a fleet of heteroplane nodes behind a switch's ECMP group
(docs/scale-out.md): which node and which rx queue each flow lands on, how
even the load is, what a node failure or a new node moves, and what the
moved flows lose.

The switch hashes the 5-tuple symmetrically (both directions of a flow on one
node) with either plain modulo ECMP (a member change remaps about
(N-1)/N of the flows) or resilient hashing (a table of --buckets buckets, each
naming a node; a failed node's buckets go to the others, an added node takes
an even share of buckets, and no other flow moves), as switch ASICs offer.
Inside a node the NIC's RSS spreads flows over --queues queues with the
symmetric Toeplitz key (0x6d5a repeated) that hplane configures, so one
scheduler lcore owns a flow. Every flow carries per-node state (flow-table
entry, sequence numbers, reorder window, crypto sequence base): a flow that
moves starts afresh on its new node, which the report counts.
"""
import argparse
import ipaddress
import json
import random
import sys
import zlib

RSS_KEY = bytes([0x6D, 0x5A] * 20)


def fail(msg):
    print(f"fleet_sim: {msg}", file=sys.stderr)
    sys.exit(2)


def toeplitz(data, key=RSS_KEY):
    """The Toeplitz hash of DPDK's rte_softrss / a NIC's RSS, 32 bits."""
    kint = int.from_bytes(key, "big")
    klen = len(key) * 8
    h = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (kint >> (klen - 32 - (i * 8 + b))) & 0xFFFFFFFF
    return h


def rss_input(flow):
    src, dst, sport, dport, _proto = flow
    return (ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed +
            sport.to_bytes(2, "big") + dport.to_bytes(2, "big"))


def ecmp_hash(flow):
    """A switch's symmetric 5-tuple hash: endpoints in a canonical order."""
    src, dst, sport, dport, proto = flow
    a, b = (src, sport), (dst, dport)
    lo, hi = (a, b) if a <= b else (b, a)
    return zlib.crc32(f"{lo[0]}|{lo[1]}|{hi[0]}|{hi[1]}|{proto}".encode())


class Ecmp:
    def __init__(self, mode, members, buckets):
        self.mode = mode
        self.members = list(members)
        self.table = [self.members[i % len(self.members)] for i in range(buckets)]

    def node(self, h):
        if self.mode == "modulo":
            return self.members[h % len(self.members)]
        return self.table[h % len(self.table)]

    def remove(self, node):
        self.members.remove(node)
        if not self.members:
            fail("every node failed")
        # The failed node's buckets go round-robin to the least-loaded others.
        counts = {m: self.table.count(m) for m in self.members}
        for i, m in enumerate(self.table):
            if m == node:
                tgt = min(self.members, key=lambda x: (counts[x], x))
                self.table[i] = tgt
                counts[tgt] += 1

    def add(self, node):
        self.members.append(node)
        share = len(self.table) // len(self.members)
        counts = {m: self.table.count(m) for m in self.members}
        for i, m in enumerate(self.table):
            if counts[node] >= share:
                break
            if counts[m] > share:
                counts[m] -= 1
                self.table[i] = node
                counts[node] += 1


def gen_flows(n, zipf_s, seed):
    rnd = random.Random(seed)
    flows = []
    for i in range(n):
        src = f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"
        dst = f"192.168.{rnd.randrange(256)}.{rnd.randrange(1, 255)}"
        flows.append((src, dst, rnd.randrange(1024, 65536),
                      rnd.choice((80, 443, 2152, 4789)), rnd.choice((6, 17))))
    weights = [1.0 / (r + 1) ** zipf_s for r in range(n)]
    rnd.shuffle(weights)
    return flows, weights


def pcap_flows(path):
    try:
        from scapy.all import PcapReader, IP, IPv6, TCP, UDP
    except ImportError:
        fail("--pcap needs scapy (.venv)")
    counts = {}
    try:
        with PcapReader(path) as rd:
            for p in rd:
                ip = p.getlayer(IP) or p.getlayer(IPv6)
                l4 = p.getlayer(TCP) or p.getlayer(UDP)
                if ip is None or l4 is None:
                    continue
                proto = 6 if p.haslayer(TCP) else 17
                k = (ip.src, ip.dst, l4.sport, l4.dport, proto)
                counts[k] = counts.get(k, 0) + 1
    except (OSError, ValueError) as e:
        fail(f"cannot read {path!r}: {e}")
    if not counts:
        fail(f"{path!r} holds no TCP/UDP flows")
    return list(counts), list(counts.values())


def place(flows, weights, ecmp, queues, rate, caps):
    """Per node: offered Mpps, delivered, drops; per node's queues: share."""
    total = sum(weights)
    nodes = {m: {"offered_mpps": 0.0, "flows": 0, "queues": [0.0] * queues}
             for m in ecmp.members}
    where = []
    for f, w in zip(flows, weights):
        n = ecmp.node(ecmp_hash(f))
        q = toeplitz(rss_input(f)) % queues
        load = rate * w / total
        nodes[n]["offered_mpps"] += load
        nodes[n]["flows"] += 1
        nodes[n]["queues"][q] += load
        where.append((n, q))
    for n, s in nodes.items():
        s["capacity_mpps"] = caps[n]
        s["delivered_mpps"] = min(s["offered_mpps"], caps[n])
        s["dropped_mpps"] = s["offered_mpps"] - s["delivered_mpps"]
        qmean = sum(s["queues"]) / queues
        s["queue_imbalance"] = max(s["queues"]) / qmean if qmean else 0.0
    return nodes, where


def summarise(name, nodes, where, prev, weights):
    loads = [s["offered_mpps"] for s in nodes.values()]
    mean = sum(loads) / len(loads)
    out = {
        "phase": name,
        "nodes": nodes,
        "node_imbalance": max(loads) / mean if mean else 0.0,
        "delivered_mpps": sum(s["delivered_mpps"] for s in nodes.values()),
        "dropped_mpps": sum(s["dropped_mpps"] for s in nodes.values()),
    }
    if prev is not None:
        moved = [i for i, (a, b) in enumerate(zip(prev, where)) if a[0] != b[0]]
        out["flows_moved"] = len(moved)
        out["flows_moved_pct"] = 100.0 * len(moved) / len(where)
        out["traffic_moved_pct"] = 100.0 * sum(weights[i] for i in moved) / sum(weights)
    return out


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        fail(message)


def parse_args(argv):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--queues", type=int, default=4, help="RSS queues per node")
    ap.add_argument("--flows", type=int, default=20000)
    ap.add_argument("--zipf", type=float, default=1.0, help="flow rate skew")
    ap.add_argument("--pcap", help="take flows and their weights from a capture")
    ap.add_argument("--rate", type=float, default=20.0, help="offered Mpps in all")
    ap.add_argument("--capacity", default="10",
                    help="Mpps a node delivers (one value, or one per node, comma separated)")
    ap.add_argument("--ecmp", choices=("modulo", "resilient"), default="resilient")
    ap.add_argument("--buckets", type=int, default=4096)
    ap.add_argument("--event", action="append", default=[],
                    help="fail:NODE or add, applied in order, one phase each")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the phases here")
    a = ap.parse_args(argv)
    if not 1 <= a.nodes <= 4096 or not 1 <= a.queues <= 512:
        fail("--nodes must be 1..4096 and --queues 1..512")
    if not 1 <= a.flows <= 10_000_000 or a.rate <= 0 or a.zipf < 0:
        fail("--flows must be 1..10M, --rate > 0, --zipf >= 0")
    if a.buckets < a.nodes:
        fail("--buckets must be at least --nodes")
    try:
        caps = [float(x) for x in a.capacity.split(",")]
    except ValueError:
        fail(f"--capacity {a.capacity!r}: numbers, comma separated")
    if any(c <= 0 for c in caps) or len(caps) not in (1, a.nodes):
        fail("--capacity: one positive value, or one per node")
    a.caps = caps
    for ev in a.event:
        if ev != "add" and not (ev.startswith("fail:") and ev[5:].isdigit()):
            fail(f"--event {ev!r}: fail:NODE or add")
    return a


def main(argv):
    a = parse_args(argv)
    flows, weights = pcap_flows(a.pcap) if a.pcap else gen_flows(a.flows, a.zipf, a.seed)
    caps = {i: a.caps[i] if len(a.caps) > 1 else a.caps[0] for i in range(a.nodes)}
    ecmp = Ecmp(a.ecmp, range(a.nodes), a.buckets)
    nodes, where = place(flows, weights, ecmp, a.queues, a.rate, caps)
    phases = [summarise("start", nodes, where, None, weights)]
    nxt = a.nodes
    for ev in a.event:
        if ev == "add":
            caps[nxt] = caps[0]
            ecmp.add(nxt)
            nxt += 1
        else:
            node = int(ev[5:])
            if node not in ecmp.members:
                fail(f"--event {ev!r}: no node {node} in the group")
            ecmp.remove(node)
        prev = where
        nodes, where = place(flows, weights, ecmp, a.queues, a.rate, caps)
        phases.append(summarise(ev, nodes, where, prev, weights))
    for p in phases:
        line = (f"{p['phase']:>8}: {len(p['nodes'])} nodes, imbalance {p['node_imbalance']:.3f}, "
                f"delivered {p['delivered_mpps']:.2f} of {a.rate:.2f} Mpps")
        if "flows_moved" in p:
            line += (f", flows moved {p['flows_moved']} ({p['flows_moved_pct']:.1f} %,"
                     f" {p['traffic_moved_pct']:.1f} % of the traffic)")
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"args": {k: v for k, v in vars(a).items() if k != "caps"},
                       "phases": phases}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
