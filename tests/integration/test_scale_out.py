# SPDX-License-Identifier: BSD-3-Clause
# Several scheduler lcores (issue 27, --sched-lcores): the generator and a
# pcap source spread their frames over one rx ring per scheduler lcore by
# symmetric RSS (Toeplitz, key 0x6d5a repeated, RETA of 128 entries round
# robin), each lcore owns the flows that hash to it, the devices are
# shared and return each packet to its owner. Checked here against a
# Python model of the same RSS: which lcore got how many frames, both
# directions of a connection on one lcore, every flow's frames decrypt
# under that lcore's sequence numbers and leave in order, every invariant
# holds and the per-lcore counters add up to the run's totals. Bad input
# is refused in one line, exit 2.
import random
import struct
import subprocess

import dpkt
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scapy.all import IP, TCP, UDP, Ether, Raw, wrpcap

from conftest import (assert_invariants, assert_one_line, hplane_live, run_hplane,
                      summary, veth_namespaces)

KEY = bytes(range(16))          # the crypto app's default key
RSS_KEY = bytes([0x6d, 0x5a] * 20)
RETA = 128
MACS = dict(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")
T0 = 1_700_000_000


def toeplitz(data, key=RSS_KEY):
    """The Toeplitz hash (Microsoft's RSS; DPDK's rte_softrss)."""
    k, kl, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (kl - 32 - (i * 8 + b))) & 0xFFFFFFFF
    return h


def rss_queue(ip, l4, n):
    """The queue (scheduler lcore) of an IPv4 frame: its 5-tuple's hash
    through the default RETA (entry i -> queue i % n)."""
    h = toeplitz(ip.src + ip.dst + struct.pack("!HH", l4.sport, l4.dport))
    return (h % RETA) % n


def test_rss_model_is_symmetric():
    """The key makes the hash symmetric: swapped addresses and ports hash
    alike (the C helper's own test is tests/unit/test_rss.c)."""
    for i in range(200):
        a, b = bytes([10, 0, i, 1]), bytes([192, 168, 255 - i, 7])
        sp, dp = struct.pack("!H", 1000 + 7 * i), struct.pack("!H", 443)
        assert toeplitz(a + b + sp + dp) == toeplitz(b + a + dp + sp)


def lcores_add_up(s):
    """The run's totals are the sums of its scheduler lcores'."""
    lc = s["sched_lcores"]
    assert sum(l["received"] for l in lc) == s["packets_received"], lc
    assert sum(l["bytes_received"] for l in lc) == s["bytes_received"], lc
    assert sum(l["delivered"] for l in lc) == s["packets_delivered"], lc
    assert sum(l["bytes_delivered"] for l in lc) == s["bytes_delivered"], lc
    drops = sum(s["dropped_invalid"].values()) + s["task_errors"] + s["dropped_admission"]
    assert sum(l["dropped"] for l in lc) == drops, lc
    assert sum(l["flows_created"] for l in lc) == s["flows"]["created"], lc
    assert sum(l["order_packets"] for l in lc) == s["reorder"]["out_packets"], lc
    assert sum(l["latency_count"] for l in lc) == s["packets_delivered"], lc
    assert [l["queue"] for l in lc] == list(range(len(lc)))
    return lc


# ---- the generator ----

GEN = ["--duration", "2", "--capacity", "40000", "--quiet"]


@pytest.fixture(scope="module")
def one_lcore(hplane, tmp_path_factory):
    """The same generated traffic on one scheduler lcore: its flows."""
    out = tmp_path_factory.mktemp("one") / "run"
    run_hplane(["run", "--app", "crypto", "--out", str(out)] + GEN)
    return summary(out)


@pytest.mark.parametrize("n", [2, 4])
def test_generator_flows_stay_on_one_lcore(hplane, tmp_path, one_lcore, n):
    """2 and 4 scheduler lcores (sharing this machine's 2 CPUs), crypto:
    nothing lost, every frame verified (decrypted at the sink), in order;
    each lcore received and delivered; and every flow is on one lcore: a
    flow split over two would be created in both tables, so the tables'
    flows add up to the generator's flows (those one lcore sees) only if
    none is."""
    out = tmp_path / "run"
    run_hplane(["run", "--app", "crypto", "--sched-lcores", str(n), "--out", str(out)] + GEN)
    s = summary(out)
    assert_invariants(s)
    # lcores sharing 2 CPUs with other work may leave a ring full a moment:
    # a port drop, counted at its queue (nothing is lost inside)
    assert s["packets_delivered"] > 0 and s["verified"] == s["packets_delivered"]
    lc = lcores_add_up(s)
    assert sum(l["queue_dropped"] for l in lc) == s["dropped_port"], lc
    assert len(lc) == n and all(l["received"] > 0 and l["delivered"] > 0 for l in lc), lc
    assert sum(l["queue_offered"] for l in lc) == s["packets_offered"], lc
    assert s["flows"]["created"] == one_lcore["flows"]["created"] > 0
    ro = s["reorder"]
    assert ro["out_in_order"] == ro["out_packets"] > 0, ro
    assert s["flows"]["out_of_order_packets"] == 0


def test_one_lcore_is_the_single_path(one_lcore):
    """Without --sched-lcores the run has one scheduler lcore, queue 0,
    and its counters are the run's."""
    lc = lcores_add_up(one_lcore)
    assert len(lc) == 1 and lc[0]["queue_offered"] == one_lcore["packets_offered"]


def test_telemetry_per_lcore(hplane, tmp_path):
    """/heteroplane/lcores: a row per scheduler lcore, each within a
    second's traffic of its final counts; /heteroplane/stats says how
    many and its totals are their sums."""
    from test_telemetry import rows, run_and_poll, within_last_second
    out = tmp_path / "tel"
    _, L, _ = run_and_poll(hplane, out, ["--scenario", "low", "--duration", "5",
                                         "--sched-lcores", "2", "--idle", "sleep"])
    F = summary(out)
    pps = max(float(r["offered_pps"]) for r in rows(out))
    lc, st = L["lcores"], L["stats"]
    assert lc["names"] == ["sched0", "sched1"] and st["sched_lcores"] == 2
    got = [dict(zip(lc["fields"], lc[n])) for n in lc["names"]]
    for g, f in zip(got, lcores_add_up(F)):
        assert g["queue"] == f["queue"]
        for k, fk in (("packets_received", "received"), ("packets_delivered", "delivered"),
                      ("queue_offered", "queue_offered")):
            within_last_second(f[fk], g[k], pps, k)
    # the readings are one instant's, each lcore's read after stats'
    assert sum(g["packets_received"] for g in got) >= st["packets_received"]


# ---- a pcap source: both directions, crypto, order ----

def two_way_capture(path, n_conn=24, per_dir=lambda c: 20 + c):
    """n_conn UDP conversations, each with per_dir(c) frames a way, both
    ways interleaved, 10 us apart. A payload starts with (conversation,
    direction, place in its direction). Returns the frames' (ip, l4,
    payload) in file order."""
    rnd = random.Random(27)
    ends = [(f"10.{rnd.randrange(256)}.{rnd.randrange(256)}.{rnd.randrange(1, 255)}",
             f"172.16.{rnd.randrange(256)}.{rnd.randrange(1, 255)}",
             rnd.randrange(1024, 65536), rnd.choice([53, 443, 5000])) for _ in range(n_conn)]
    pkts = []
    for k in range(max(per_dir(c) for c in range(n_conn))):
        for c in range(n_conn):
            if k >= per_dir(c):
                continue
            for d in (0, 1):
                a, b, sp, dp = ends[c]
                if d:
                    a, b, sp, dp = b, a, dp, sp
                body = struct.pack("!HBH", c, d, k) + bytes(40 + (c * 7 + k) % 300)
                pkts.append(Ether(**MACS) / IP(src=a, dst=b) / UDP(sport=sp, dport=dp) /
                            Raw(body))
    for j, p in enumerate(pkts):
        p.time = T0 + j * 1e-5
    wrpcap(str(path), pkts)
    out = []
    for _, buf in dpkt.pcap.Reader(open(path, "rb")):
        ip = dpkt.ethernet.Ethernet(buf).data
        out.append((ip, ip.data, bytes(ip.data.data)))
    return out


def flow_material(ip, l4):
    """AES-CTR flow key and nonce (docs/packet-format.md)."""
    blk = ip.src + ip.dst + struct.pack("!HHB", l4.sport, l4.dport, 17) + b"\0\0"
    ecb = Cipher(algorithms.AES(KEY), modes.ECB()).encryptor()
    return ecb.update(blk + b"\x01"), ecb.update(blk + b"\x02")[:8]


def ctr(key, nonce, seq, data):
    d = Cipher(algorithms.AES(key), modes.CTR(nonce + struct.pack("!II", seq, 0))).decryptor()
    return d.update(data) + d.finalize()


@pytest.mark.parametrize("n", [2, 3])
def test_pcap_both_directions_on_one_lcore_crypto(hplane, tmp_path, n):
    """A pcap of two-way UDP conversations through --app crypto on n
    scheduler lcores: each lcore received exactly the frames the Python
    model of the RSS gives its queue, both directions of a conversation
    on one; every output frame decrypts to its input under its lcore's
    sequence (each lcore numbers its own flows: a flow's first sequence
    is how many frames that lcore had received before it, plus its place)
    and every direction's frames leave in order."""
    src, outp, out = tmp_path / "in.pcap", tmp_path / "out.pcap", tmp_path / "run"
    frames = two_way_capture(src)
    run_hplane(["run", "--app", "crypto", "--sched-lcores", str(n), "--source", f"pcap:{src}",
                "--pcap-speed", "max", "--tx", str(outp), "--out", str(out), "--quiet"],
               timeout=120)
    s = summary(out)
    assert_invariants(s)
    assert s["packets_delivered"] == len(frames) and s["dropped_port"] == 0
    lc = lcores_add_up(s)
    # the model: each frame's queue, each flow's first sequence there
    per_q, first, conv_q = [0] * n, {}, {}
    for ip, l4, body in frames:
        q = rss_queue(ip, l4, n)
        c = struct.unpack("!H", body[:2])[0]
        assert conv_q.setdefault(c, q) == q, f"conversation {c}: both ways not on one queue"
        key = (ip.src, ip.dst, l4.sport, l4.dport)
        first.setdefault(key, per_q[q])
        per_q[q] += 1
    assert [l["received"] for l in lc] == per_q, (lc, per_q)
    assert len(set(conv_q.values())) == n, conv_q   # every lcore had work
    # every output frame decrypts under its lcore's numbering, in order
    sent = {}
    for ip, l4, body in frames:
        sent.setdefault((ip.src, ip.dst, l4.sport, l4.dport), []).append(body)
    got = {}
    for _, buf in dpkt.pcap.Reader(open(outp, "rb")):
        ip = dpkt.ethernet.Ethernet(buf).data
        l4 = ip.data
        key = (ip.src, ip.dst, l4.sport, l4.dport)
        k = got.get(key, 0)
        fkey, nonce = flow_material(ip, l4)
        assert ctr(fkey, nonce, first[key] + k, bytes(l4.data)) == sent[key][k], \
            f"flow {key}: frame {k} is not its input's place {k} under its lcore's sequence"
        got[key] = k + 1
    assert got == {k: len(v) for k, v in sent.items()}


# ---- af_packet: two queue pairs, the kernel's fanout hash as RSS ----

@pytest.fixture(scope="module")
def link():
    for nh, ns, (a, b) in veth_namespaces("hs", 1):
        yield nh, ns, a, b


def test_af_packet_two_queue_pairs(link, tmp_path):
    """tcpreplay sends 6 two-way conversations over a veth pair into
    hplane on net_af_packet with 2 queue pairs (PACKET_FANOUT, mode hash:
    the kernel's symmetric flow hash) and 2 scheduler lcores. Conversation
    c has 4^c frames each way, so each lcore's received count, written in
    base 4, has digit c = 2 where both ways of c came to it, 1 where only
    one did: every digit is 0 or 2. Nothing lost, in order, sums add up."""
    nh, ns, a, b = link
    src, out = tmp_path / "in.pcap", tmp_path / "run"
    n_conv = 6
    frames = two_way_capture(src, n_conv, lambda c: 4 ** c)
    with hplane_live(["--app", "crypto", "--sched-lcores", "2", "--source", f"af_packet:{a}",
                      "--duration", "4", "--out", str(out), "--quiet"], netns=nh):
        r = subprocess.run(["ip", "netns", "exec", ns, "tcpreplay", "-i", b, "--pps", "5000",
                            str(src)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    s = summary(out)
    assert_invariants(s)
    assert s["packets_received"] == len(frames) and s["dropped_port"] == 0, s["port"]
    lc = lcores_add_up(s)
    for l in lc:
        rx, digits = l["received"], []
        for _ in range(n_conv):
            digits.append(rx % 4)
            rx //= 4
        assert rx == 0 and set(digits) <= {0, 2}, (l["received"], digits)
    assert s["flows"]["created"] == 2 * n_conv and s["flows"]["out_of_order_packets"] == 0
    ro = s["reorder"]
    assert ro["out_in_order"] == ro["out_packets"], ro


# ---- bad input: one line, exit 2 ----

@pytest.mark.parametrize("args,needle", [
    (["--sched-lcores", "0"], "--sched-lcores"),
    (["--sched-lcores", "9"], "--sched-lcores"),
    (["--sched-lcores", "x"], "--sched-lcores"),
    (["--sched-lcores", "2", "--apps", "null:0.5,crypto:0.5"], "--apps"),
    (["--sched-lcores", "2", "--granularity", "task"], "granularity"),
    (["--sched-lcores", "2", "--tx-results"], "--tx-results"),
    (["--sched-lcores", "2", "--sched", "qlearn"], "qlearn"),
    (["--sched-lcores", "2", "--stages-as-services", "--service-cores", "1"],
     "--stages-as-services"),
    # more scheduler lcores than EAL has lcores
    (["--sched-lcores", "4", "--", "--no-huge", "--no-pci", "-m", "256", "--no-shconf",
      "--log-level=lib.eal:error", "--log-level=lib.telemetry:error",
      "--lcores=0@0,1@0,2@0,3@0"], "4 scheduler lcores"),
])
def test_bad_input_refused(hplane, tmp_path, args, needle):
    p = run_hplane(["run", "--app", "null", "--duration", "1", "--quiet",
                    "--out", str(tmp_path / "o")] + args, check=False, timeout=60)
    line = assert_one_line(p, args)
    assert needle in line, line
