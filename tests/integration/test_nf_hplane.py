# SPDX-License-Identifier: BSD-3-Clause
"""The vpn, dedup, ids and ids_ac apps end to end through hplane: the
foundation invariants (no internal drop, no leak, every packet verified at
the sink), and, for vpn, a receiver written here with Python
`cryptography` and `dpkt` that decrypts hplane's output pcap with nothing
but the master key and the headers (docs/nf.md)."""
import json
import os
import struct
import subprocess
from pathlib import Path

import ahocorasick
import dpkt
import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BUILD_DIR", ROOT / "build"))
HPLANE = Path(os.environ.get("HPLANE", BUILD / "apps" / "hplane" / "hplane"))
MASTER = bytes(range(16))  # hplane's default --key 000102..0f

pytestmark = pytest.mark.skipif(not HPLANE.exists(),
                                reason=f"{HPLANE} not built (core=false build)")


def hplane(args, timeout=90):
    p = subprocess.run([str(HPLANE)] + args, capture_output=True, timeout=timeout)
    assert p.returncode == 0, p.stdout.decode()[-3000:] + p.stderr.decode()[-3000:]
    return p


# vpn and dedup in every scenario; ids and ids_ac at the two extremes here
# (all five scenarios with planted bodies: test_gen_bodies.py).
CASES = [(a, s) for a in ("vpn", "dedup")
         for s in ("low", "medium", "stress", "standard", "random")] + \
        [(a, s) for a in ("ids", "ids_ac") for s in ("low", "stress")]


@pytest.mark.parametrize("app,scenario", CASES)
def test_app_invariants(app, scenario, tmp_path):
    hplane(["run", "--app", app, "--scenario", scenario, "--duration", "1.5",
            "--calib", "0.5", "--quiet", "--out", str(tmp_path)])
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["packets_delivered"] == s["packets_received"] > 0
    assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
    assert s["verify_failures"] == 0 and s["task_errors"] == 0
    assert s["verified"] == s["packets_delivered"]


def ecb(key, block):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


def l4_of(frame):
    eth = dpkt.ethernet.Ethernet(frame)
    ip = eth.data
    assert isinstance(ip, dpkt.ip.IP)
    return eth, ip, ip.data


def test_vpn_receiver_decrypts_pcap(tmp_path):
    src, out = tmp_path / "in.pcap", tmp_path / "out.pcap"
    hplane(["gen", "--pcap", str(src), "--count", "400", "--seed", "5"])
    hplane(["run", "--app", "vpn", "--source", f"pcap:{src}", "--tx", str(out),
            "--quiet", "--out", str(tmp_path / "run")])
    sent = {}
    for _, frame in dpkt.pcap.Reader(open(src, "rb")):
        _, ip, l4 = l4_of(frame)
        body = bytes(l4.data)
        sent[body[:16]] = body[16:]  # hp header (in the clear) -> body
    got = 0
    for _, frame in dpkt.pcap.Reader(open(out, "rb")):
        eth, ip, l4 = l4_of(frame)
        raw_ip = bytes(eth.data)
        # IPv4 header checksum and lengths were fixed after padding
        ihl = (raw_ip[0] & 0xf) * 4
        assert dpkt.in_cksum(raw_ip[:ihl]) == 0
        assert ip.len <= len(raw_ip)
        if isinstance(l4, dpkt.udp.UDP):
            assert l4.ulen == ip.len - ihl
        body = bytes(l4.data)
        hdr, ct = body[:16], body[16:]
        assert len(ct) % 16 == 0
        seq = struct.unpack(">I", hdr[4:8])[0]
        ports = struct.pack(">HH", l4.sport, l4.dport)
        flow_block = b"CB1" + ip.src + ip.dst + ports + bytes([ip.p])
        k_flow = ecb(MASTER, flow_block)
        iv = ecb(k_flow, b"CBIV" + b"\0" * 8 + struct.pack(">I", seq))
        d = Cipher(algorithms.AES(k_flow), modes.CBC(iv)).decryptor()
        u = padding.PKCS7(128).unpadder()
        pt = u.update(d.update(ct) + d.finalize()) + u.finalize()
        assert sent[hdr] == pt
        got += 1
    assert got == 400


def test_ids_on_traffic_with_planted_patterns(tmp_path):
    """About 30 % of the frames carry one of the 10k generated patterns
    (the set the dpi task builds by default: --gen 10000 --seed 1); both
    engines run in hplane and the sink checks each packet's match count
    and first id against the other engine."""
    tool = str(BUILD / "lib" / "nf" / "tools" / "hp-nf")
    src, planted = tmp_path / "in.pcap", tmp_path / "planted.pcap"
    hplane(["gen", "--pcap", str(src), "--count", "1500", "--seed", "8"])
    p = subprocess.run([tool, "plant-pcap", "--in", str(src), "--out", str(planted),
                        "--gen", "10000", "--seed", "1", "--p", "0.3"],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    pats = subprocess.run([tool, "gen-patterns", "--gen", "10000", "--seed", "1"],
                          capture_output=True, check=True).stdout
    a = ahocorasick.Automaton()
    for line in pats.split(b"\n"):
        if line:
            out, i = bytearray(), 0
            while i < len(line):
                if line[i:i + 1] == b"|":
                    j = line.index(b"|", i + 1)
                    out += bytes.fromhex(line[i + 1:j].decode())
                    i = j + 1
                else:
                    out += line[i:i + 1]
                    i += 1
            a.add_word(bytes(out).decode("latin-1"), 1)
    a.make_automaton()
    hits = n = 0
    for _, frame in dpkt.pcap.Reader(open(planted, "rb")):
        _, ip, l4 = l4_of(frame)
        body = bytes(l4.data)[16:]
        n += 1
        hits += any(True for _ in a.iter(body.decode("latin-1")))
    assert n == 1500 and 0.2 * n <= hits <= 0.4 * n, hits
    for app in ("ids", "ids_ac"):
        out = tmp_path / app
        hplane(["run", "--app", app, "--source", f"pcap:{planted}", "--quiet",
                "--pcap-speed", "max", "--out", str(out), "--tx",
                str(tmp_path / f"{app}.pcap")])
        s = json.loads((out / "summary.json").read_text())
        assert s["packets_delivered"] == n
        assert s["verified"] == n and s["verify_failures"] == 0
