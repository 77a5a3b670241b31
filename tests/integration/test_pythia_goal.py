# SPDX-License-Identifier: BSD-3-Clause
# Pythia's monitor live (issue 21 parts 4-5, lib/sched/sched_pythia.c):
# `hplane run --goal` on the modeled pythia-8700k platform starts in the
# configuration the goal picks, switches when the goal changes (--goal-at,
# `hplane ctl goal` through the telemetry socket) without losing or
# reordering a packet, a goal library (--goal-lib, the example in
# examples/) is loaded and used, two apps (--apps) each keep to their own
# devices of the configuration, min-latency switches when the rate steps
# up (rate-triggered, not on its timer), --goal-inner adaptive places
# packets inside the configuration, and bad input is one line and exit 2.
# Each run is a few seconds at a low rate: modeled time, not CPU speed.
import csv
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import (HPLANE, HPLANE_RUNS, assert_invariants, assert_one_line, dpdk_runtime_dir,
                      run_hplane, summary)

BASE = ["--app", "vpn", "--platform", "pythia-8700k", "--scenario", "medium",
        "--capacity", "20000", "--quiet"]
GOAL_LIB = Path(os.environ.get("BUILD_DIR", "build")) / "examples" / "goal_fewest_devices.so"


def trace_rows(out):
    with open(Path(out) / "trace.csv") as f:
        return list(csv.DictReader(f))


def power_col(rows, dev):
    return next(k for k in rows[0] if k.startswith("power_w:") and dev in k)


def assert_no_reorder(s):
    assert s["flows"]["out_of_order_packets"] == 0, s["flows"]
    assert s["dropped_internal"] == 0, s


def test_goal_at_switches(hplane, tmp_path):
    # min-energy at a low rate: the integrated GPU alone (the GTX off);
    # at 1.5 s min-latency: the GTX at 1K (docs/scheduling.md), at once
    out = tmp_path / "run"
    run_hplane(["run"] + BASE + ["--duration", "3", "--goal", "min-energy",
                                 "--goal-at", "1.5:min-latency", "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert_no_reorder(s)
    g = s["goal"]
    assert g["active"] == "min-latency", g
    assert g["goal_changes"] == 1 and g["switches"] >= 1, g
    assert "dgpu" in g["configuration"], g
    rows = [r for r in trace_rows(out) if float(r["t_s"]) > 0.9]
    assert rows[0]["goal"] == "min-energy" and rows[0]["configuration"] == "aes_cbc=igpu@1024"
    assert rows[-1]["goal"] == "min-latency" and "dgpu" in rows[-1]["configuration"]
    assert int(rows[-1]["switches"]) >= 1
    # the GTX is switched off (power.off_w 0) until the switch
    pc = power_col(rows, "dgpu")
    assert float(rows[0][pc]) == 0.0
    assert float(rows[-1][pc]) > 0.0


def app_sets(label):
    """'vpn=dgpu,ids=igpu@1024' -> {'vpn': {'dgpu'}, 'ids': {'igpu'}}"""
    return {a: set(devs.split("+")) for a, devs in
            (item.split("=") for item in label.split("@")[0].split(","))}


def test_two_apps_goal_at(hplane, tmp_path):
    # --apps AES+DPI (vpn, ids), configurations within the two GPUs: at a
    # low rate min-energy puts both apps on the integrated GPU; min-latency
    # at 1.5 s moves AES to the GTX and keeps DPI on the integrated GPU
    # (docs/scheduling.md): each app's packets only on its own devices
    out = tmp_path / "run"
    run_hplane(["run", "--apps", "vpn:0.5,ids:0.5"] + BASE[2:] +
               ["--duration", "3", "--goal", "min-energy", "--goal-at", "1.5:min-latency",
                "--sched-param", "devices=igpu+dgpu", "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert_no_reorder(s)
    g = s["goal"]
    assert g["goal_changes"] == 1 and g["switches"] >= 1, g
    rows = [r for r in trace_rows(out) if float(r["t_s"]) > 0.9]
    assert rows[0]["goal"] == "min-energy"
    assert rows[0]["configuration"] == "vpn=igpu,ids=igpu@1024", rows[0]["configuration"]
    assert rows[-1]["goal"] == "min-latency"
    assert rows[-1]["configuration"] == "vpn=dgpu,ids=igpu@1024", rows[-1]["configuration"]
    pc = power_col(rows, "dgpu")
    assert float(rows[0][pc]) == 0.0 and float(rows[-1][pc]) > 0.0
    # each app's device share within the union of its sets over the run's
    # configurations (the idle start is one of them: restricted to the
    # GPUs too, so the CPU worker carries nothing)
    allowed = {"vpn": set(), "ids": set()}
    for r in rows:
        for a, devs in app_sets(r["configuration"]).items():
            allowed[a] |= devs
    apps = {a["name"]: a for a in s["apps"]}
    for name, a in apps.items():
        assert a["packets_delivered"] == a["packets_received"] > 0, a
        assert a["verify_failures"] == 0, a
        for dev, pct in a["device_share_pct"].items():
            plat = "cpu" if dev.startswith("cpu") else dev.rsplit("@", 1)[1]
            if pct > 0:
                assert plat in allowed[name], (name, dev, pct, allowed)
    assert apps["ids"]["device_share_pct"]["model:pythia-8700k@dgpu"] == 0.0
    assert apps["vpn"]["device_share_pct"]["model:pythia-8700k@dgpu"] > 0.0
    assert all(v == 0.0 for a in apps.values() for k, v in a["device_share_pct"].items()
               if k.startswith("cpu"))


def test_ctl_goal_while_running(hplane, tmp_path):
    out = tmp_path / "run"
    t0 = time.time()
    proc = subprocess.Popen([str(HPLANE), "run"] + BASE + ["--duration", "5", "--goal", "min-energy",
                                                           "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        sock = dpdk_runtime_dir(proc.pid) / "dpdk_telemetry.v2"
        for _ in range(200):              # EAL and the calibration-free start
            if sock.exists():
                break
            time.sleep(0.05)
        assert sock.exists(), "no telemetry socket"
        time.sleep(1.5)                   # the run is in its measured phase
        r = subprocess.run([str(HPLANE), "ctl", "goal", "min-latency", "--pid", str(proc.pid)],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        reply = json.loads(r.stdout)["/heteroplane/goal"]
        assert reply["requested"] == "min-latency", reply
        bad = subprocess.run([str(HPLANE), "ctl", "goal", "no-such-goal", "--pid", str(proc.pid)],
                             capture_output=True, text=True, timeout=30)
        assert bad.returncode == 2 and "no-such-goal" in bad.stderr, bad
        read = subprocess.run([str(HPLANE), "ctl", "goal", "--pid", str(proc.pid)],
                              capture_output=True, text=True, timeout=30)
        assert read.returncode == 0, read.stderr
        assert json.loads(read.stdout)["/heteroplane/goal"]["goal"] in ("min-energy", "min-latency")
        o, e = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        HPLANE_RUNS.append((proc.pid, t0, time.time()))
    assert proc.returncode == 0, e
    s = summary(out)
    assert_invariants(s)
    assert_no_reorder(s)
    assert s["goal"]["active"] == "min-latency" and s["goal"]["goal_changes"] == 1, s["goal"]
    rows = trace_rows(out)
    assert rows[-1]["goal"] == "min-latency"
    assert any(r["goal"] == "min-energy" for r in rows)


def test_goal_lib_example(hplane, tmp_path):
    assert GOAL_LIB.exists(), GOAL_LIB
    out = tmp_path / "run"
    run_hplane(["run"] + BASE + ["--duration", "2", "--goal-lib", str(GOAL_LIB),
                                 "--goal", "fewest-devices", "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert s["goal"]["active"] == "fewest-devices"
    # one device carries 20 kpps: the configuration names one
    assert "+" not in s["goal"]["configuration"], s["goal"]


@pytest.mark.parametrize("args,what", [
    (["--goal", "no-such-goal"], "unknown goal"),
    (["--goal", "min-energy", "--goal-at", "9:min-latency"], "past the run"),
    (["--goal", "min-energy", "--goal-at", "1:nope"], "nope"),
    (["--goal", "min-energy", "--goal-at", "x"], "T:GOAL"),
    (["--goal", "min-energy", "--goal-lib", "/nonexistent/goal.so"], "cannot load"),
    (["--goal", "min-energy", "--goal-lib", "libm.so.6"], "hp_goal_ops_v1"),
    (["--goal", "min-energy", "--sched", "rr"], "not with --sched"),
    (["--goal-at", "1:min-energy"], "need --goal"),
    (["--goal", "min-energy", "--goal-period", "1"], "--goal-period"),
    (["--goal", "min-energy", "--goal-inner", "deadline"], "--goal-inner"),
    (["--goal-inner", "adaptive"], "need --goal"),
])
def test_bad_input(hplane, args, what):
    p = run_hplane(["run"] + BASE + ["--duration", "3"] + args, check=False)
    assert p.returncode == 2, p.stderr
    assert what in assert_one_line(p, what), p.stderr


def test_goal_needs_platform(hplane):
    p = run_hplane(["run", "--app", "vpn", "--goal", "min-energy", "--duration", "1"], check=False)
    assert p.returncode == 2
    assert "--platform" in assert_one_line(p, "--platform")


def test_ctl_bad_input(hplane):
    for args, what in ((["ctl"], "usage"), (["ctl", "goal", "--pid", "x"], "--pid"),
                       (["ctl", "goal", "a,b", "--pid", "1"], "NAME"),
                       (["ctl", "goal", "min-energy", "--file-prefix", "hplane_none"],
                        "no running instance")):
        p = run_hplane(args, check=False)
        assert p.returncode == 2, (args, p.stderr)
        assert what in p.stderr, (args, p.stderr)


def test_two_apps_chain_refused(hplane):
    # a configuration is one kernel per app: ran (ldpc -> aes_ctr) is not
    p = run_hplane(["run", "--apps", "ran:0.5,vpn:0.5"] + BASE[2:] +
                   ["--duration", "3", "--goal", "min-energy"], check=False)
    assert p.returncode == 2, p.stderr
    assert "app ran is a chain of 2 tasks" in assert_one_line(p, "chain")


def test_target_rate_admission(hplane, tmp_path):
    # target-rate:15 with 35 Gbit/s offered (platform units: 1500-byte
    # frames, scale 100): the admission's token bucket passes 15 Gbit/s,
    # the rest is dropped with reason admission, none lost or sent on
    trace = tmp_path / "rate.txt"
    pps = round(35 * 6800 / 8.0)
    trace.write_text(f"0 {pps}\n3 {pps}\n")
    out = tmp_path / "run"
    run_hplane(["run", "--app", "vpn", "--gpu", "model:pythia-8700k@igpu,scale=100",
                "--gpu", "model:pythia-8700k@dgpu,scale=100",
                "--sched-param", "platform=pythia-8700k", "--sched-param", "scale=100",
                "--sched-param", "devices=igpu+dgpu", "--goal", "target-rate:15",
                "--imix-sizes", "1500", "--imix-shares", "1", "--trace", str(trace),
                "--capacity", "30000", "--duration", "3", "--quiet", "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert_no_reorder(s)
    gbps = s["bytes_delivered"] * 8 / 1e9 * 100 / s["duration_s"]
    assert abs(gbps - 15) <= 0.05 * 15, (gbps, s)
    assert s["dropped_admission"] > 0.4 * s["packets_received"], s
    assert s["packets_received"] == (s["packets_delivered"] + s["dropped_admission"]
                                     + sum(s["dropped_invalid"].values()) + s["task_errors"])


# The Fig. 5 set-up (AES on the two modeled GPUs, x100) on a rate that steps
# from 8 to 20 Gbit/s of the platform at 2 s: more than the GTX alone
# carries with headroom.
FIG5 = ["--app", "vpn", "--gpu", "model:pythia-8700k@igpu,scale=100",
        "--gpu", "model:pythia-8700k@dgpu,scale=100",
        "--sched-param", "platform=pythia-8700k", "--sched-param", "scale=100",
        "--sched-param", "devices=igpu+dgpu", "--imix-sizes", "1500", "--imix-shares", "1",
        "--capacity", "30000", "--quiet"]


def step_trace(tmp_path):
    trace = tmp_path / "rate.txt"
    trace.write_text("0 6800\n1.99 6800\n2 17000\n4 17000\n")
    return trace


def test_min_latency_rate_triggered_switch(hplane, tmp_path):
    # min-latency with a monitor period (20 s) far past the run: the timer
    # never evaluates, so every switch is the rate's. 8 Gbit/s: the GTX
    # alone (least latency with headroom); after the step the GTX alone
    # lacks headroom and both GPUs come in, in the first trace row after
    # the step; no packet lost inside or reordered by either switch
    out = tmp_path / "run"
    run_hplane(["run"] + FIG5 + ["--trace", str(step_trace(tmp_path)), "--duration", "4",
                                 "--goal", "min-latency", "--goal-period", "20000",
                                 "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert_no_reorder(s)
    g = s["goal"]
    assert g["configuration"] == "aes_cbc=igpu+dgpu@1024", g
    rows = trace_rows(out)
    low = [r for r in rows if float(r["offered_pps"]) < 8000]
    high = [i for i, r in enumerate(rows) if float(r["offered_pps"]) > 15000]
    assert low and high, [(r["t_s"], r["offered_pps"]) for r in rows]
    # before the step: the GTX alone (the first traffic decided, at once)
    assert all(r["configuration"] == "aes_cbc=dgpu@1024" for r in rows[:high[0]]), rows
    # the first row at the high rate already shows the switch, and the
    # configuration stays through the rest of the run
    assert all(rows[i]["configuration"] == "aes_cbc=igpu+dgpu@1024" for i in high), \
        [(r["t_s"], r["configuration"]) for r in rows]
    assert int(rows[high[0]]["switches"]) == int(rows[high[0] - 1]["switches"]) + 1
    assert g["switches"] == int(rows[-1]["switches"]), g


@pytest.mark.parametrize("inner", ["fixed", "adaptive"])
def test_goal_inner(hplane, tmp_path, inner):
    # --goal-inner: inside the configuration the packets go to the least
    # queued device (fixed) or per deadline (adaptive); either way each
    # packet only on the configuration's devices, and a switch loses and
    # reorders nothing. Every packet has a deadline and an order here.
    types = tmp_path / "types.txt"
    types.write_text("0,65535,1,1,2000\n")
    out = tmp_path / "run"
    run_hplane(["run"] + FIG5 + ["--trace", str(step_trace(tmp_path)), "--duration", "4",
                                 "--types", str(types), "--goal", "min-latency",
                                 "--goal-inner", inner, "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert_no_reorder(s)
    assert s["deadline"]["packets"] > 0, s["deadline"]
    share = {d["name"]: d["packets"] for d in s["devices"]}
    assert share["cpu0"] == 0, share     # the CPU is in no configuration here
    assert s["goal"]["switches"] >= 2, s["goal"]
