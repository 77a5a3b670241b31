# SPDX-License-Identifier: BSD-3-Clause
"""tools/fleet_sim.py (docs/scale-out.md): the switch and RSS hashes are
symmetric, resilient ECMP moves only a failed node's flows, modulo ECMP moves
most, overload shows as drops, bad flags answer one line and exit 2."""
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "fleet_sim.py")


def load():
    spec = importlib.util.spec_from_file_location("fleet_sim", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(tmp_path, *args):
    out = tmp_path / "f.json"
    p = subprocess.run([sys.executable, TOOL, "--json", str(out), *args],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(out.read_text())["phases"]


def test_hashes_symmetric_and_toeplitz_known_value():
    fs = load()
    # Microsoft's RSS verification suite, IPv4 with ports, default key:
    # 66.9.149.187:2794 -> 161.142.100.80:1766 hashes to 0x51ccc178.
    ms_key = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                           "6a42b73bbeac01fa")
    data = fs.rss_input(("66.9.149.187", "161.142.100.80", 2794, 1766, 6))
    assert fs.toeplitz(data, ms_key) == 0x51CCC178
    flows, _ = fs.gen_flows(500, 1.0, 7)
    for f in flows:
        r = (f[1], f[0], f[3], f[2], f[4])
        assert fs.ecmp_hash(f) == fs.ecmp_hash(r)
        assert fs.toeplitz(fs.rss_input(f)) == fs.toeplitz(fs.rss_input(r))


def test_resilient_moves_only_the_failed_nodes_flows(tmp_path):
    ph = run(tmp_path, "--nodes", "8", "--flows", "20000", "--zipf", "0",
             "--rate", "40", "--capacity", "10", "--event", "fail:3")
    share3 = ph[0]["nodes"]["3"]["flows"] / 20000
    assert ph[1]["flows_moved"] == ph[0]["nodes"]["3"]["flows"]
    assert abs(ph[1]["flows_moved_pct"] / 100 - share3) < 1e-9
    assert 0.09 < share3 < 0.16
    assert "3" not in ph[1]["nodes"]
    assert ph[1]["dropped_mpps"] == 0


def test_modulo_moves_most_flows(tmp_path):
    ph = run(tmp_path, "--nodes", "8", "--flows", "20000", "--zipf", "0",
             "--ecmp", "modulo", "--event", "fail:3")
    assert ph[1]["flows_moved_pct"] > 70


def test_overload_after_failure_drops(tmp_path):
    ph = run(tmp_path, "--nodes", "4", "--flows", "5000", "--zipf", "0",
             "--rate", "36", "--capacity", "10", "--event", "fail:0")
    assert ph[0]["dropped_mpps"] < 1.0
    assert ph[1]["dropped_mpps"] > 5.0
    tot = sum(n["delivered_mpps"] + n["dropped_mpps"] for n in ph[1]["nodes"].values())
    assert abs(tot - 36) < 1e-6


def test_bad_flags():
    for args in (["--nodes", "0"], ["--capacity", "x"], ["--event", "fail:z"],
                 ["--bogus"], ["--capacity", "1,2"], ["--pcap", "/nonexistent.pcap"]):
        p = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
        assert "Traceback" not in p.stderr
