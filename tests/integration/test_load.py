# SPDX-License-Identifier: BSD-3-Clause
# Load estimation end to end (issue 6, docs/load.md): per-loop estimates in
# trace.csv and the progress lines, the /heteroplane/lcore/load telemetry
# command read over DPDK's telemetry socket while hplane runs, hplane ramp
# (ramp.csv, ramp.png) with bad input, and tools/load_plot.py's scoring on a
# hand-made ramp. No timed assertions: accuracy is the unit test's (simulated
# clock) and bench/load's business.
import csv
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, assert_invariants, run_hplane, summary

FAST = ["--calib", "0.3"]
EST = ("a_polls", "b_busy", "c_load", "headroom", "cyc_per_item")


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def test_trace_and_progress_have_estimates(hplane, tmp_path):
    out = tmp_path / "run"
    p = run_hplane(["run", "--app", "crypto", "--scenario", "medium", "--duration", "3",
                    "--load-interval", "0.05", "--out", str(out)] + FAST)
    assert_invariants(summary(out))
    rows = read_csv(out / "trace.csv")
    assert len(rows) >= 2
    for loop in ("cpu0", "sched", "traffic"):
        for e in EST:
            assert f"{loop}_{e}" in rows[0], (loop, e)
        for r in rows:
            for e in ("a_polls", "b_busy"):
                assert 0.0 <= float(r[f"{loop}_{e}"]) <= 1.0 + 1e-3, (loop, e, r)
            # (c) is at most the busy time over the time the loop had
            # (stolen time is taken off for loops alone on their CPU)
            c, b = float(r[f"{loop}_c_load"]), float(r[f"{loop}_b_busy"])
            stolen = min(float(r[f"{loop}_stolen"]), 0.9)
            assert 0.0 <= c <= b / (1 - stolen) + 1e-3, (loop, r)
            assert abs(float(r[f"{loop}_headroom"]) -
                       max(0.0, 1 - float(r[f"{loop}_c_load"]))) < 1e-3
    # the worker did work every second, so it has a cost per item
    assert all(float(r["cpu0_cyc_per_item"]) > 0 for r in rows)
    lines = [l for l in p.stdout.splitlines() if l.strip().startswith("load ")]
    assert any(l.split()[1] == "cpu0" and "busy" in l and "cyc/item" in l for l in lines)


def _telemetry(sock, cmd):
    sock.send(cmd.encode())
    return json.loads(sock.recv(1 << 16).decode())


def test_telemetry_command(hplane, tmp_path):
    out = tmp_path / "tel"
    proc = subprocess.Popen([str(hplane), "run", "--app", "null", "--scenario", "low",
                             "--duration", "6", "--load-interval", "0.1", "--quiet",
                             "--out", str(out)] + FAST,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    path = Path(f"/var/run/dpdk/hplane{proc.pid}/dpdk_telemetry.v2")
    try:
        for _ in range(100):
            if path.exists():
                break
            time.sleep(0.05)
        else:
            pytest.skip("no DPDK telemetry socket (telemetry disabled here)")
        time.sleep(2.0)  # past the calibration: every loop closed windows
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect(str(path))
        hello = json.loads(s.recv(1 << 16).decode())
        assert "pid" in hello
        cmds = _telemetry(s, "/")["/"]
        assert "/heteroplane/lcore/load" in cmds
        allv = _telemetry(s, "/heteroplane/lcore/load")["/heteroplane/lcore/load"]
        assert allv["counters"] == 1
        assert sorted(allv["name"]) == ["cpu0", "sched", "traffic"]
        n = len(allv["name"])
        for col in ("lcore", "polls_bp", "busy_bp", "load_bp", "headroom_bp",
                    "projected_bp", "warn", "cycles_per_pkt", "capacity_pps"):
            assert len(allv[col]) == n, col
        for v in allv["load_bp"] + allv["busy_bp"] + allv["polls_bp"]:
            assert 0 <= v <= 15000
        lc = allv["lcore"][allv["name"].index("cpu0")]
        one = _telemetry(s, f"/heteroplane/lcore/load,{lc}")["/heteroplane/lcore/load"]
        assert one["name"] == "cpu0" and one["lcore"] == lc and one["valid"] == 1
        assert one["total_cycles"] >= one["busy_cycles"] > 0
        assert one["polls"] >= one["empty_polls"] and one["packets"] > 0
        assert one["headroom_bp"] == max(0, 10000 - one["load_bp"])
        bad = _telemetry(s, "/heteroplane/lcore/load,notanumber")
        assert bad["/heteroplane/lcore/load"] is None
        s.close()
    finally:
        o, e = proc.communicate(timeout=60)
    assert proc.returncode == 0, e


def test_ramp_writes_csv_and_plot(hplane, tmp_path):
    out = tmp_path / "ramp"
    # hold 3: two settled rows per step, so one late row cannot empty a step
    # finer steps from 0.5 on: 0.2, 0.4 (0.6 would pass 0.5), then 0.5, 0.6
    p = run_hplane(["ramp", "--app", "null", "--from", "0.2", "--to", "0.6", "--step", "0.2",
                    "--fine-from", "0.5", "--fine-step", "0.1",
                    "--hold", "3", "--quiet", "--burst", "16", "--ring-size", "512",
                    "--mbufs", "8191", "--out", str(out)] + FAST, timeout=120)
    assert_invariants(summary(out))
    assert "=== ramp" in p.stdout
    steps = read_csv(out / "ramp.csv")
    assert [float(r["target"]) for r in steps] == pytest.approx([0.2, 0.4, 0.5, 0.6])
    prof = [l.split() for l in (out / "ramp_profile.txt").read_text().splitlines() if not l.startswith("#")]
    assert [float(t) for t, _ in prof] == [0, 3, 6, 9]
    assert all(int(r["rows"]) >= 1 for r in steps)
    off = [float(r["offered_pps"]) for r in steps]
    # offered is what the generator achieved: on a loaded 2-CPU machine a
    # higher step can fall short of the one before (seen: 0.6 below 0.4)
    assert all(o > 0 for o in off) and off[0] < max(off[2:])
    head = (out / "ramp.csv").read_text().splitlines()[0]
    assert "burst 16, ring 512, mbufs 8191" in head
    for col in ("cpu0_c_load", "sched_b_busy", "traffic_a_polls", "drop_ratio"):
        assert col in steps[0]
    assert any(k.startswith("core") and k.endswith("_c_load") for k in steps[0])
    assert (out / "ramp_profile.txt").exists()
    # hplane draws the plot with the project's venv; without one it says how
    if not (out / "ramp.png").exists():
        assert "plot: python3 tools/load_plot.py" in p.stdout
        q = subprocess.run([sys.executable, str(ROOT / "tools/load_plot.py"), str(out / "ramp.csv"),
                            "-o", str(out / "ramp.png")], capture_output=True, text=True, timeout=120)
        assert q.returncode == 0, q.stderr
    assert (out / "ramp.png").stat().st_size > 1000


@pytest.mark.parametrize("args,msg", [
    (["--from", "0.6", "--to", "0.2", "--step", "0.1"], "ramp needs"),
    (["--from", "0.1", "--to", "50k", "--step", "0.1"], "--to"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.1", "--hold", "1"], "--hold"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.0001"], "steps"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.1", "--trace", "x.txt"], "no --source or --trace"),
    (["--from", "abc", "--to", "0.5", "--step", "0.1"], "--from"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.1", "--fine-from", "0.6", "--fine-step", "0.01"],
     "--fine-from"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.1", "--fine-from", "0.3"], "--fine-step"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.1", "--fine-step", "0.01"], "--fine-from"),
    (["--from", "0.1", "--to", "0.5", "--step", "0.1", "--fine-from", "40k", "--fine-step", "1k"],
     "--fine-from"),
])
def test_ramp_bad_input(hplane, tmp_path, args, msg):
    p = run_hplane(["ramp", "--out", str(tmp_path / "bad")] + args, check=False)
    assert p.returncode == 2
    assert msg in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_load_interval_bad(hplane, tmp_path):
    p = run_hplane(["run", "--load-interval", "0.001", "--out", str(tmp_path)], check=False)
    assert p.returncode == 2 and "--load-interval" in p.stderr


def scored(tmp_path, name, lines, *args):
    """Writes lines as tmp_path/name, scores it with tools/load_plot.py and
    returns its JSON."""
    f, js = tmp_path / name, tmp_path / (name + ".json")
    f.write_text("\n".join(lines) + "\n")
    p = subprocess.run([sys.executable, str(ROOT / "tools/load_plot.py"), str(f), "--json", str(js)]
                       + list(args), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(js.read_text())


def test_plot_tool_scores(tmp_path):
    """A hand-made ramp: drops from 0.8 Mpps on; (c) = ideal + 2 points,
    (b) reads 10 points high, (a) stays low until the end."""
    head = ("step,target,offered_pps,offered_frac,delivered_pps,drops,drop_ratio,rows,"
            "w_a_polls,w_b_busy,w_c_load,core1_a_polls,core1_b_busy,core1_c_load")
    lines = ["# made by test_load.py", head]
    for i in range(10):
        off = 0.1e6 * (i + 1)
        ideal = off / 0.8e6
        drops = 0 if off < 0.8e6 else int(off * 0.05)
        if i == 3:
            drops = 10  # sporadic: not the onset
        c = min(ideal + 0.02, 1.0)
        b = min(ideal + 0.10, 1.0)
        a = 0.01 if off < 0.8e6 else 1.0
        lines.append(f"{i},{i},{off},{off / 1e6},{off},{drops},{drops / off},3,"
                     f"{a},{b},{c},{a},{b},{c}")
    f = tmp_path / "ramp.csv"
    f.write_text("\n".join(lines) + "\n")
    js = tmp_path / "s.json"
    p = subprocess.run([sys.executable, str(ROOT / "tools/load_plot.py"), str(f), "--json",
                        str(js), "-o", str(tmp_path / "r.png"), "--capacity", "onset"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    s = json.loads(js.read_text())
    assert s["unit"] == "core1" and s["onset_pps"] == 0.8e6 and s["onset_step"] == 7
    assert s["sporadic_drop_steps"] == [3]
    # the step before the onset bounds where drops really begin from below
    assert s["onset_lo_pps"] == 0.7e6
    sc = s["scores"]
    assert sc["c_load"]["mae_points"] == pytest.approx(2.0, abs=1e-6)
    assert sc["b_busy"]["mae_points"] == pytest.approx(10.0, abs=1e-6)
    # against tvp / tvd: the same line here (the capacity is the onset)
    assert sc["c_load"]["mae_onset_points"] == pytest.approx(2.0, abs=1e-6)
    # (c) reaches 95 % between 0.7 M (0.895) and 0.8 M (1.0)
    assert sc["c_load"]["cross95_pps"] == pytest.approx(0.7e6 + 0.1e6 * 0.055 / 0.105, rel=1e-6)
    assert sc["b_busy"]["cross95_vs_onset"] < sc["c_load"]["cross95_vs_onset"] < 0
    assert sc["c_load"]["cross95_vs_onset_lo"] == pytest.approx(
        sc["c_load"]["cross95_pps"] / 0.7e6 - 1, rel=1e-9)
    assert sc["a_polls"]["cross95_pps"] == pytest.approx(0.7e6 + 0.1e6 * 0.94 / 0.99, rel=1e-6)
    assert (tmp_path / "r.png").stat().st_size > 1000
    # every step delivered what it was offered: the steady-state onset is tvd
    assert s["onset_ss_pps"] == 0.8e6 and s["onset_ss_step"] == 7
    assert sc["c_load"]["pred_onset_vs_onset"] == pytest.approx(
        sc["c_load"]["cross95_pps"] / 0.95 / 0.8e6 - 1, rel=1e-9)
    # capacity from the kernel's CPU share: the saturated steps (0.8..1.0 M)
    # delivered 0.76 M on 95 % of the CPU -> 0.8 M per CPU-second
    rows = [l.split(",") for l in lines[2:]]
    lines2 = [lines[0], head + ",core1_os_cpu,core1_os_wait"]
    for r in rows:
        off = float(r[2])
        dl = off if off < 0.8e6 else 0.76e6
        lines2.append(",".join(r[:4] + [str(dl)] + r[5:] + [str(0.95 if off >= 0.8e6 else 0.5), "0"]))
    s = scored(tmp_path, "ramp2.csv", lines2)
    assert s["capacity_pps"] == pytest.approx(0.8e6, rel=1e-9) and "cpu:" in s["capacity_method"]
    # tvd is 0.8 M too: the eq. 4.4 score is the same line's
    assert s["scores"]["c_load"]["mae_onset_points"] == pytest.approx(
        s["scores"]["c_load"]["mae_points"], abs=1e-9)
    assert s["scores"]["c_load"]["mae_points"] == pytest.approx(2.0, abs=1e-6)
    # drops begin where the offered load exceeds what the saturated steps delivered
    assert s["sat_delivered_pps"] == pytest.approx(0.76e6, rel=1e-9)
    assert s["scores"]["c_load"]["cross95_vs_sat_delivered"] == pytest.approx(
        s["scores"]["c_load"]["cross95_pps"] / 0.76e6 - 1, rel=1e-9)
    # a step that delivers less than it was offered but has not dropped yet
    # (its rings are filling) starts the steady-state onset: 0.7 M here
    lines3 = list(lines2)
    r6 = lines3[2 + 6].split(",")
    r6[4] = str(0.7e6 * 0.99)
    lines3[2 + 6] = ",".join(r6)
    s3 = scored(tmp_path, "ramp3.csv", lines3)
    assert s3["onset_pps"] == 0.8e6 and s3["onset_ss_pps"] == 0.7e6 and s3["onset_ss_step"] == 6
    c3 = s3["scores"]["c_load"]
    assert c3["cross95_vs_onset_ss"] == pytest.approx(c3["cross95_pps"] / 0.7e6 - 1, rel=1e-9)
    assert c3["pred_onset_vs_onset_ss"] == pytest.approx(c3["cross95_pps"] / 0.95 / 0.7e6 - 1, rel=1e-9)
    # one step that reads high while the rest of the ramp is under 95 %
    # (the host slowed the worker): the first crossing comes there, the
    # held crossing (from which (c) stays >= 95 %) between 0.7 and 0.8 M
    lines4 = list(lines3)
    r4 = lines4[2 + 4].split(",")
    r4[13] = "0.97"
    lines4[2 + 4] = ",".join(r4)
    c4 = scored(tmp_path, "ramp4.csv", lines4)["scores"]["c_load"]
    assert c4["cross95_pps"] == pytest.approx(0.4e6 + 0.1e6 * (0.95 - 0.52) / (0.97 - 0.52), rel=1e-6)
    assert c4["cross95h_pps"] == pytest.approx(c3["cross95_pps"], rel=1e-9)
    assert c4["cross95h_vs_onset"] == pytest.approx(c4["cross95h_pps"] / 0.8e6 - 1, rel=1e-9)
    assert c4["pred_h_onset_vs_onset_ss"] == pytest.approx(c4["cross95h_pps"] / 0.95 / 0.7e6 - 1, rel=1e-9)
    # without that step the two crossings are the same
    assert c3["cross95h_pps"] == pytest.approx(c3["cross95_pps"], rel=1e-9)
    assert scored(tmp_path, "ramp2.csv", lines2, "--capacity", "delivered")["capacity_pps"] == \
        pytest.approx(0.76e6, rel=1e-9)
    bad = subprocess.run([sys.executable, str(ROOT / "tools/load_plot.py"), str(f), "--unit", "nope"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no unit nope" in bad.stderr
