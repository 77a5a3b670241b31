# SPDX-License-Identifier: BSD-3-Clause
# End-to-end runs of hplane: every scenario, stress overload, pcap replay
# with malformed packets, AES-CTR output checked with Python's
# `cryptography` and `crc32c` (independent of our C code), and bad input.
import struct

import crc32c
import dpkt
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from conftest import assert_every_flag_refused, assert_invariants, run_hplane, summary

FAST = ["--calib", "0.3", "--quiet"]


@pytest.mark.parametrize("scenario", ["low", "medium", "standard", "random"])
def test_scenarios(hplane, tmp_path, scenario):
    out = tmp_path / scenario
    # A fixed capacity: the scenario's rates must not hang on a calibration
    # that a busy machine can spoil (the low scenario is 0.1x capacity).
    run_hplane(["run", "--scenario", scenario, "--duration", "2", "--capacity", "50000",
                "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert s["scenario"] == scenario
    assert s["packets_delivered"] > 1000
    assert s["verified"] == s["packets_delivered"]
    assert s["reorder"]["packets"] > 0 and s["deadline"]["packets"] > 0
    assert abs(sum(s["device_share"].values()) - 100.0) < 0.01
    for k in ("throughput_gbps", "throughput_mpps", "latency_us", "scheduler", "app"):
        assert k in s
    lat = s["latency_us"]
    assert lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"]
    rows = (out / "trace.csv").read_text().splitlines()
    assert rows[0].startswith("t_s,offered_pps") and len(rows) >= 2


def test_stress_only_port_drops(hplane, tmp_path):
    out = tmp_path / "stress"
    run_hplane(["run", "--scenario", "stress", "--duration", "2", "--app", "crypto",
                "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert s["dropped_port"] > 0
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"]


@pytest.mark.parametrize("app", ["crypto", "vpn"])
def test_gen_recycle_stress(hplane, tmp_path, app):
    """--gen-recycle sends delivered frames again: the invariants hold,
    every mbuf comes back (the kept frames are freed at the end), and vpn's
    CBC padding (frames that grew) is not sent again."""
    out = tmp_path / app
    run_hplane(["run", "--scenario", "stress", "--duration", "2", "--app", app,
                "--gen-recycle", "--verify-every", "0", "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert s["packets_delivered"] > 0 and s["task_errors"] == 0
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"]


def test_gen_recycle_needs_verification_off(hplane, tmp_path):
    p = run_hplane(["run", "--gen-recycle", "--duration", "1", "--out", str(tmp_path)],
                   check=False)
    assert p.returncode == 2
    assert "--gen-recycle needs" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_null_app_two_workers(hplane, tmp_path):
    out = tmp_path / "null2"
    run_hplane(["run", "--app", "null", "--workers", "2", "--scenario", "medium",
                "--duration", "2", "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert set(s["device_share"]) == {"cpu0", "cpu1"}
    assert min(s["device_share"].values()) > 10


def test_trace_file(hplane, tmp_path):
    tr = tmp_path / "rate.txt"
    tr.write_text("# seconds rate\n0 20k\n1 0.3x\n")
    out = tmp_path / "trace"
    run_hplane(["run", "--trace", str(tr), "--duration", "2", "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert s["scenario"] == "trace"


# ---- pcap replay, malformed packets, independent AES-CTR check ----

KEY = bytes(range(16))


def flow_material(ip, l4):
    blk = ip.src + ip.dst + struct.pack("!HHB", l4.sport, l4.dport, ip.p) + b"\0\0"
    ecb = Cipher(algorithms.AES(KEY), modes.ECB()).encryptor()
    key = ecb.update(blk + b"\x01")
    nonce = ecb.update(blk + b"\x02")[:8]
    return key, nonce


def decrypt_check(frame):
    """Decrypts one output frame as a receiver would (docs/packet-format.md)
    and returns True when the plaintext matches the sender's CRC32C tag."""
    eth = dpkt.ethernet.Ethernet(frame)
    ip = eth.data
    l4 = ip.data
    payload = bytes(l4.data)
    magic, seq, _gen, tag = struct.unpack("!IIII", payload[:16])
    assert magic == 0x48504C31
    key, nonce = flow_material(ip, l4)
    iv = nonce + struct.pack("!II", seq, 0)
    dec = Cipher(algorithms.AES(key), modes.CTR(iv)).decryptor()
    body = dec.update(payload[16:]) + dec.finalize()
    return crc32c.crc32c(body) == tag


def bad_frames(good):
    """Frames that claim more than they carry, plus a non-IP frame."""
    eth = dpkt.ethernet.Ethernet(good)
    raw = bytes(eth)
    trunc_ip = raw[:len(raw) - 40]            # IPv4 total length beyond frame
    short = raw[:20]                          # not even an IPv4 header
    arp = raw[:12] + b"\x08\x06" + raw[14:60]  # ARP ethertype
    hdr = bytearray(raw[14:34])
    hdr[2:4] = (20).to_bytes(2, "big")  # IP total length leaves no room for L4
    tiny_l4 = raw[:14] + bytes(hdr) + raw[34:38]
    return [trunc_ip, short, arp, tiny_l4]


def test_pcap_replay_with_bad_packets(hplane, tmp_path):
    src = tmp_path / "gen.pcap"
    run_hplane(["gen", "--pcap", str(src), "--count", "3000", "--seed", "5"])
    frames = [buf for _, buf in dpkt.pcap.Reader(open(src, "rb"))]
    bad = bad_frames(frames[0])
    mixed = tmp_path / "in.pcap"
    with open(mixed, "wb") as f:
        w = dpkt.pcap.Writer(f)
        for i, fr in enumerate(frames):
            w.writepkt(fr, ts=i * 1e-6)
            if i % 1000 == 0:
                for b in bad:
                    w.writepkt(b, ts=i * 1e-6)
    out = tmp_path / "pcap"
    outpcap = tmp_path / "out.pcap"
    # the whole file, not its (1 Mpps) pace: --pcap-speed max
    run_hplane(["run", "--source", f"pcap:{mixed}", "--tx", str(outpcap),
                "--pcap-speed", "max", "--duration", "30", "--out", str(out), "--quiet"])
    s = summary(out)
    assert_invariants(s)
    n_bad = 3 * len(bad)
    assert s["packets_received"] == len(frames) + n_bad
    assert s["packets_delivered"] == len(frames)
    inv = s["dropped_invalid"]
    assert inv["truncated_ipv4"] == 6 and inv["truncated_l4"] == 3
    assert inv["not_ip"] == 3
    assert sum(inv.values()) == n_bad
    assert s["verified"] == len(frames)
    outs = [buf for _, buf in dpkt.pcap.Reader(open(outpcap, "rb"))]
    assert len(outs) == len(frames)
    # every output decrypts, with Python's AES, to what the sender tagged
    assert all(decrypt_check(fr) for fr in outs)
    # and it was really encrypted
    assert outs[5] != frames[5] or outs[6] != frames[6]


# ---- bad input: one line, non-zero exit, no crash ----

@pytest.mark.parametrize("args,needle", [
    (["run", "--scenario", "nope"], "unknown scenario"),
    (["run", "--app", "nope"], "unknown app"),
    (["run", "--sched", "nope"], "unknown scheduler"),
    (["run", "--source", "pcap:/nonexistent.pcap"], "cannot read pcap"),
    (["run", "--source", "af_packet:hpnosuch0"], "does not exist"),
    (["run", "--workers", "0"], "bad value"),
    (["run", "--burst", "64"], "bad value"),
    (["run", "--duration", "abc"], "bad value"),
    (["run", "--key", "1234"], "bad value"),
    (["run", "--imix-sizes", "10", "--imix-shares", "1"], "IMIX size"),
    # a value with a newline still gives one line, the newline shown as \n
    (["run", "--duration", "1\nGET /"], "bad value '1\\nGET /'"),
    (["run", "--scenario", "x\x1b[2J\ny"], "'x\\x1b[2J\\ny'"),
    (["run", "--bogus"], "unknown option"),
    (["list", "apps"], "list takes no arguments"),
    (["frobnicate"], "unknown command"),
])
def test_bad_input(hplane, tmp_path, args, needle):
    p = run_hplane(args + ["--out", str(tmp_path / "o")] if args[0] == "run" else args,
                   check=False, timeout=30)
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and needle in lines[0], p.stderr


def test_out_dir_is_not_shell(hplane, tmp_path):
    # --out's parents are created without a shell: a name with quotes and
    # a ';' is a name (hplane once ran `mkdir -p '<name>'` through system()).
    name = "a'; touch " + str(tmp_path / "pwned") + "; 'b"
    out = tmp_path / name / "c"
    p = run_hplane(["run", "--duration", "1", "--capacity", "2000", "--quiet",
                    "--out", str(out)], check=False, timeout=60)
    assert p.returncode == 0, p.stderr
    assert (out / "summary.json").exists()
    assert not (tmp_path / "pwned").exists()
    # a parent that is a file: one line saying why, exit 2
    (tmp_path / "file").write_text("x")
    p = run_hplane(["run", "--out", str(tmp_path / "file" / "o")], check=False, timeout=30)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1
    assert "cannot create output directory" in lines[0] and "Not a directory" in lines[0]


def test_malformed_trace_file(hplane, tmp_path):
    tr = tmp_path / "bad.txt"
    tr.write_text("0 10k\n1 fast\n")
    p = run_hplane(["run", "--trace", str(tr), "--out", str(tmp_path / "o")], check=False)
    assert p.returncode == 2 and ":2:" in p.stderr


def test_garbage_pcap(hplane, tmp_path):
    g = tmp_path / "garbage.pcap"
    g.write_bytes(b"this is not a pcap file at all" * 10)
    p = run_hplane(["run", "--source", f"pcap:{g}", "--out", str(tmp_path / "o")],
                   check=False)
    assert p.returncode == 2 and "cannot read pcap" in p.stderr


def test_more_workers_than_lcores(hplane, tmp_path):
    p = run_hplane(["run", "--workers", "4", "--out", str(tmp_path / "o"), "--",
                    "--no-huge", "--no-pci", "--no-shconf", "-m", "256", "-l", "0-1"],
                   check=False)
    assert p.returncode == 2
    assert "need" in p.stderr and "lcores" in p.stderr



@pytest.mark.parametrize("cmd", ["run", "ramp"])
def test_every_flag_hostile_values(hplane, cmd):
    """Every flag of `hplane run`/`ramp` (from its --help) with hostile
    values, ahead of a bad --workers so that no run starts: the parser
    answers each with exit 2 and one line (a flag value with a newline once
    broke the line). For run (ramp shares the parser): a flag whose value
    is a number refuses everything that is not a whole, finite one in its
    bounds itself (NaN, inf, 1e400, blanks, hex), and a flag with a value
    given twice is refused (a repeated --app ran the last one). What the
    checks after parsing do is tested above and in test_foreign_run."""
    h = run_hplane([cmd, "--help"], check=False, timeout=30)
    n = assert_every_flag_refused(lambda a: run_hplane(a, check=False, timeout=30),
                                  h.stdout + h.stderr, [cmd], ["--workers", "0"],
                                  numbers=cmd == "run", repeats=cmd == "run",
                                  repeatable=("--sched-param", "--goal-at"))
    assert n > (800 if cmd == "run" else 600)
