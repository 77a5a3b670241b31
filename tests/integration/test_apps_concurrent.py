# SPDX-License-Identifier: BSD-3-Clause
"""Several apps at once (`hplane run --apps`, issue 21 part 1): ids, dedup
and vpn share a CPU worker and the cuda plugin's emulation (no GPU needed),
each app a share of the flows. Every output frame (--tx pcap, read back
with scapy) carries its app and task results in the --tx-results trailer
and is checked here with nothing of hplane's: dedup's digest against
hashlib's MD5, ids' match count and first id against pyahocorasick over the
default pattern set, vpn's ciphertext decrypted with `cryptography` from
the master key and the headers (as test_nf_hplane.py's receiver). Per-app
counters add up to the totals and the shares are near the asked ones;
bad --apps values are refused in one line."""
import csv
import hashlib
import json
import os
import struct
import subprocess
from collections import defaultdict
from pathlib import Path

import ahocorasick
import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scapy.all import IP, TCP, UDP, Ether, rdpcap

from conftest import assert_one_line, pattern_bytes, run_hplane

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BUILD_DIR", ROOT / "build"))
HPLANE = Path(os.environ.get("HPLANE", BUILD / "apps" / "hplane" / "hplane"))
HPNF = BUILD / "lib" / "nf" / "tools" / "hp-nf"
MASTER = bytes(range(16))  # hplane's default --key 000102..0f
APPS = ["ids", "dedup", "vpn"]
SHARES = [0.3, 0.3, 0.4]
SPEC = ",".join(f"{a}:{s}" for a, s in zip(APPS, SHARES))
NO_MATCH = 0xffffffff

pytestmark = pytest.mark.skipif(not HPLANE.exists() or not HPNF.exists(),
                                reason="hplane or hp-nf not built")


def hplane(args, timeout=180):
    p = subprocess.run([str(HPLANE)] + args, capture_output=True, timeout=timeout)
    assert p.returncode == 0, p.stdout.decode()[-3000:] + p.stderr.decode()[-3000:]
    return p


def automaton():
    """The dpi task's default set (--gen 10000 --seed 1), ids in file order."""
    pats = subprocess.run([str(HPNF), "gen-patterns", "--gen", "10000", "--seed", "1"],
                          capture_output=True, check=True).stdout
    ids = defaultdict(list)
    n = 0
    for line in pats.split(b"\n"):
        line = line.rstrip(b"\r")
        if not line or line.startswith(b"#"):
            continue
        ids[pattern_bytes(line)].append(n)
        n += 1
    a = ahocorasick.Automaton()
    for p, l in ids.items():
        a.add_word(p.decode("latin-1"), l)
    a.make_automaton()
    return a


def dpi_ref(a, data):
    """(count, first) as docs/nf.md defines them: (id, end) pairs; the
    first is the smallest end, then the smallest id."""
    count, first = 0, None
    for end, l in a.iter(data.decode("latin-1")):
        count += len(l)
        cand = (end, min(l))
        first = cand if first is None or cand < first else first
    return count, (first[1] if first else NO_MATCH)


def ecb(key, block):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


def vpn_decrypt(ip, l4, hdr, ct):
    seq = struct.unpack(">I", hdr[4:8])[0]
    flow_block = (b"CB1" + bytes(map(int, ip.src.split("."))) +
                  bytes(map(int, ip.dst.split("."))) +
                  struct.pack(">HH", l4.sport, l4.dport) + bytes([ip.proto]))
    k_flow = ecb(MASTER, flow_block)
    iv = ecb(k_flow, b"CBIV" + b"\0" * 8 + struct.pack(">I", seq))
    d = Cipher(algorithms.AES(k_flow), modes.CBC(iv)).decryptor()
    u = padding.PKCS7(128).unpadder()
    return u.update(d.update(ct) + d.finalize()) + u.finalize()


def parts(frame):
    """IP, L4, the L4 payload and the 32-byte results trailer after the
    IP packet (its length does not count it)."""
    eth = Ether(frame)
    ip = eth[IP]
    l4 = ip[UDP] if UDP in ip else ip[TCP]
    raw_ip = frame[14:]
    ihl = ip.ihl * 4
    l4hl = 8 if UDP in ip else l4.dataofs * 4
    payload = raw_ip[ihl + l4hl:ip.len]
    trailer = frame[14 + ip.len:][-32:]
    assert len(trailer) == 32 and trailer[:4] == b"HPR1", trailer
    return ip, l4, payload, trailer


@pytest.fixture(scope="module")
def concurrent_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("apps")
    src, planted, out = d / "in.pcap", d / "planted.pcap", d / "out.pcap"
    hplane(["gen", "--pcap", str(src), "--count", "3000", "--seed", "5", "--flows", "64"])
    p = subprocess.run([str(HPNF), "plant-pcap", "--in", str(src), "--out", str(planted),
                        "--gen", "10000", "--seed", "1", "--p", "0.3"],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    hplane(["run", "--apps", SPEC, "--workers", "1", "--gpu", "cuda:emul",
            "--source", f"pcap:{planted}", "--pcap-speed", "max", "--tx", str(out),
            "--tx-results", "--quiet", "--out", str(d / "run")])
    s = json.loads((d / "run" / "summary.json").read_text())
    return planted, out, s


def test_every_frame_checked_outside(concurrent_run):
    planted, out, s = concurrent_run
    sent = {}
    for f in rdpcap(str(planted)):
        raw = bytes(f)
        ip = Ether(raw)[IP]
        l4hl = 8 if UDP in ip else ip[TCP].dataofs * 4
        body = raw[14 + ip.ihl * 4 + l4hl:14 + ip.len]
        sent[body[:16]] = body[16:]
    a = automaton()
    n = [0, 0, 0]
    matched = 0
    app_of_flow = {}
    for f in rdpcap(str(out)):
        ip, l4, payload, t = parts(bytes(f))
        app, status = t[4], t[5]
        res32, res32b = struct.unpack(">II", t[8:16])
        digest = t[16:32]
        assert status == 0 and app < 3
        flow = (ip.src, ip.dst, l4.sport, l4.dport, ip.proto)
        # a flow belongs to one app
        assert app_of_flow.setdefault(flow, app) == app
        hdr, data = payload[:16], payload[16:]
        assert hdr in sent
        if APPS[app] == "vpn":
            assert len(data) % 16 == 0
            assert vpn_decrypt(ip, l4, hdr, data) == sent[hdr]
        else:
            assert data == sent[hdr]  # ids and dedup leave the payload alone
        if APPS[app] == "dedup":
            assert digest == hashlib.md5(data).digest()
        if APPS[app] == "ids":
            assert (res32, res32b) == dpi_ref(a, data), (res32, res32b)
            matched += res32 > 0
        n[app] += 1
    total = sum(n)
    assert total == 3000 == s["packets_delivered"] == s["verified"]
    assert s["tx_results"] == {"written": 3000, "no_room": 0}
    # planted patterns reached the ids packets (about 30 % of frames)
    assert matched > 0.15 * n[0]
    assert [x["packets_delivered"] for x in s["apps"]] == n


def test_counters_add_up(concurrent_run):
    _, _, s = concurrent_run
    assert s["app"] == "ids+dedup+vpn"
    apps = s["apps"]
    assert [x["name"] for x in apps] == APPS
    assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
    assert s["task_errors"] == 0 and s["verify_failures"] == 0
    for key, tot in (("packets_received", "packets_received"),
                     ("packets_delivered", "packets_delivered"),
                     ("verified", "verified"), ("task_errors", "task_errors")):
        assert sum(x[key] for x in apps) == s[tot], key
    assert sum(x["latency_us"]["count"] for x in apps) == s["packets_delivered"]
    assert sum(x["deadline"]["packets"] for x in apps) == s["deadline"]["packets"]
    assert sum(x["deadline"]["met"] for x in apps) == s["deadline"]["met"]
    for x, want in zip(apps, SHARES):
        assert x["share"] == want
        assert abs(x["share_received"] - want) < 0.06, x
        # the CPU worker and the emulated GPU both ran each app
        assert set(x["device_share_pct"]) == {"cpu0", "cuda-emul"}
        assert abs(sum(x["device_share_pct"].values()) - 100) < 1e-6
        assert all(v > 0 for v in x["device_share_pct"].values()), x


def test_generator_shares_and_totals(tmp_path):
    """The generator: every app's frames verified at the sink, shares of
    the flows near the asked ones, counters adding up."""
    hplane(["run", "--apps", "ids:0.2,dedup:0.5,vpn:0.3", "--workers", "1", "--gpu",
            "cuda:emul", "--flows", "64", "--duration", "1.5", "--calib", "0.5",
            "--quiet", "--out", str(tmp_path)])
    s = json.loads((tmp_path / "summary.json").read_text())
    apps = s["apps"]
    assert s["packets_delivered"] == s["packets_received"] == s["verified"] > 0
    assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
    assert sum(x["packets_delivered"] for x in apps) == s["packets_delivered"]
    assert sum(x["verified"] for x in apps) == s["verified"]
    for x, want in zip(apps, (0.2, 0.5, 0.3)):
        assert abs(x["share_received"] - want) < 0.06, x
        assert x["verify_failures"] == 0
        assert x["joules_modeled_dynamic"] is None  # no device models power
    # trace.csv: four columns an app after the run's; the apps' delivered
    # rates add up to the run's each second
    rows = list(csv.DictReader(open(tmp_path / "trace.csv")))
    assert rows
    for r in rows:
        got = sum(float(r[f"app:{a}_delivered_pps"]) for a in APPS)
        assert abs(got - float(r["delivered_pps"])) <= 0.5 + 1e-6 * got, r
        for a in APPS:
            assert f"app:{a}_p99_us" in r and f"app:{a}_deadline_pct" in r


def test_modeled_platform_joules(tmp_path):
    """Modeled CPU worker and GPU (the Jetson profile models ldpc and
    aes_ctr: apps ran and crypto): both apps verified, and each app's
    dynamic joules (its batches' modeled busy time x (busy - idle) W) is
    positive and the two stay within the devices' modeled energy."""
    hplane(["run", "--apps", "ran:0.5,crypto:0.5", "--workers", "1", "--cpu-model",
            "jetson-thesis,scale=20", "--gpu",
            "model:jetson-thesis,scale=20,inflight=2,timeout_us=100000", "--idle", "sleep",
            "--sched", "adaptive", "--duration", "2", "--calib", "0.5", "--quiet",
            "--out", str(tmp_path)])
    s = json.loads((tmp_path / "summary.json").read_text())
    apps = s["apps"]
    assert s["packets_delivered"] == s["verified"] > 0 and s["dropped_internal"] == 0
    assert [x["verified"] for x in apps] == [x["packets_delivered"] for x in apps]
    total = sum(src["joules"] for src in s["power"]["sources"] if src["modeled"])
    dyn = [x["joules_modeled_dynamic"] for x in apps]
    assert all(j is not None and j > 0 for j in dyn), dyn
    assert sum(dyn) < total, (dyn, total)


def test_one_app_unchanged(tmp_path):
    """--app keeps its summary: one apps entry with the old fields, and the
    run's received and drops, which are all its own."""
    hplane(["run", "--app", "dedup", "--duration", "1", "--calib", "0.3", "--quiet",
            "--out", str(tmp_path)])
    s = json.loads((tmp_path / "summary.json").read_text())
    assert [set(x) for x in s["apps"]] == [{"name", "tasks", "packets_delivered",
                                            "bytes_delivered", "task_errors", "verified",
                                            "verify_failures", "packets_received",
                                            "dropped_port", "dropped_admission"}]
    for k in ("packets_received", "dropped_port", "dropped_admission"):
        assert s["apps"][0][k] == s[k]
    assert "tx_results" not in s
    head = open(tmp_path / "trace.csv").readline()
    assert "app:" not in head


@pytest.mark.parametrize("args,needle", [
    (["--apps", "ids:0.5,ids:0.5"], "named twice"),
    (["--apps", "nope:0.5,ids:0.5"], "unknown app 'nope'"),
    (["--apps", "ids:0.5,dedup:0.4"], "sum to 0.9, not 1"),
    (["--apps", "ids:x,dedup:1"], "share 'x' of ids"),
    (["--apps", "ids:nan,dedup:0.5"], "share 'nan'"),
    (["--apps", "ids:0,dedup:1"], "share '0'"),
    (["--apps", "ids:-0.5,dedup:1.5"], "share '-0.5'"),
    (["--apps", "ids,dedup"], "has no share"),
    (["--apps", "ids:0.5,,dedup:0.5"], "empty item"),
    (["--apps", ""], "expected NAME:SHARE"),
    (["--apps", "ids:0.5,dedup:0.5\n\x1b[2J"], "share '0.5\\n\\x1b[2J'"),
    (["--apps", "ids:0.2,dedup:0.2,vpn:0.2,crypto:0.2,null:0.2"], "more than 4 apps"),
    (["--apps", "ran:0.5,ids:0.25,dedup:0.25,vpn:0"], "share '0'"),
    (["--apps", "ids:0.5,dedup:0.5", "--app", "ids"], "--app and --apps together"),
    (["--app", "ids", "--apps", "ids:0.5,dedup:0.5"], "--app and --apps together"),
    (["--apps", "ids:0.5,dedup:0.5", "--apps", "ids:0.5,dedup:0.5"], "given twice"),
    (["--apps", "ids:0.5,dedup:0.5", "--granularity", "task"], "whole chains only"),
])
def test_bad_apps(hplane, tmp_path, args, needle):
    p = run_hplane(["run"] + args + ["--out", str(tmp_path / "o")], check=False, timeout=30)
    line = assert_one_line(p, args)
    assert needle in line, line


def test_apps_only_for_run(hplane, tmp_path):
    p = run_hplane(["ramp", "--apps", "ids:0.5,dedup:0.5", "--from", "1", "--to", "2",
                    "--step", "1", "--out", str(tmp_path / "o")], check=False, timeout=30)
    assert "applies to hplane run only" in assert_one_line(p, "ramp")


def test_telemetry_per_app(hplane, tmp_path):
    """/heteroplane/apps answers a row per app of --apps and one for the
    run while it goes on; the apps' rows stay within the last second of
    summary.json's per-app counters."""
    from test_telemetry import key, run_and_poll
    _, L, bad = run_and_poll(hplane, tmp_path, ["--apps", SPEC, "--workers", "1",
                                                "--duration", "3", "--calib", "0.5"])
    F = json.loads((tmp_path / "summary.json").read_text())
    ap = L["apps"]
    assert ap["names"] == APPS + ["ids+dedup+vpn"]
    pps = max(float(r["delivered_pps"])
              for r in csv.DictReader(open(tmp_path / "trace.csv")))
    for a in F["apps"]:
        row = dict(zip(ap["fields"], ap[key(a["name"])]))
        assert row["packets_delivered"] <= a["packets_delivered"]
        assert a["packets_delivered"] - row["packets_delivered"] <= pps + 64
        assert row["verify_failures"] == 0 and row["task_errors"] == 0
        # per-app backpressure's drops, per app (counters: never above the end's)
        assert row["dropped_port"] <= a["dropped_port"]
        assert row["dropped_admission"] <= a["dropped_admission"]
    assert L["app"]["name"] == "ids+dedup+vpn"
    assert bad["app"] is None
