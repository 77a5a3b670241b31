# SPDX-License-Identifier: BSD-3-Clause
# The /heteroplane/ telemetry commands (lib/pipeline/pl_tel.c) read with
# DPDK's own client, dpdk-telemetry.py (Debian: dpdk-dev), against a
# running `hplane run`: every command answers while the run goes on, and
# the last answers before the run ends agree with the final summary.json
# within the last second's traffic (docs/operations.md).
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import HPLANE_RUNS, dpdk_runtime_dir, summary

CMDS = ["stats", "devices", "apps", "drops", "latency", "batches", "power", "flows",
        "lcores"]


def dpdk_telemetry_py():
    return shutil.which("dpdk-telemetry.py") or (
        "/usr/bin/dpdk-telemetry.py" if os.path.exists("/usr/bin/dpdk-telemetry.py") else None)


class Client:
    """One dpdk-telemetry.py session, fed a command a line on stdin; it
    prints each reply as one JSON line (stdin is not a terminal)."""

    def __init__(self, tool, prefix):
        self.p = subprocess.Popen(["python3", tool, "-f", prefix], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=dict(os.environ, PYTHONUNBUFFERED="1"))

    GONE = object()

    def ask(self, cmd):
        """The reply's value (None: an unknown command or a refusal), or
        GONE once the instance is."""
        try:
            self.p.stdin.write(cmd + "\n")
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            return self.GONE
        line = self.p.stdout.readline()
        if not line.startswith("{"):
            return self.GONE
        return json.loads(line)[cmd.split(",")[0]]

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        self.p.kill()
        self.p.wait()


def run_and_poll(hplane, out, args):
    """Runs hplane, asks every command over and over until the run ends;
    returns (the command list, the last readings of the measured phase,
    what bad parameters got)."""
    tool = dpdk_telemetry_py()
    if tool is None:
        pytest.skip("dpdk-telemetry.py not found (Debian package dpdk-dev)")
    t0 = time.time()
    proc = subprocess.Popen([str(hplane), "run", "--quiet", "--out", str(out)] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sock = dpdk_runtime_dir(proc.pid) / "dpdk_telemetry.v2"
    last, listed, bad, polls = None, None, {}, 0
    try:
        for _ in range(1200):
            if sock.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert sock.exists(), "no telemetry socket"
        cl = Client(tool, f"hplane{proc.pid}")
        try:
            while proc.poll() is None:
                st = cl.ask("/heteroplane/stats")
                if st is Client.GONE or (st is not None and st.get("running") == 0):
                    break
                if st is None or st.get("phase") != "measuring":  # not yet
                    time.sleep(0.1)
                    continue
                reading = {"stats": st}
                for c in CMDS[1:]:
                    reading[c] = cl.ask(f"/heteroplane/{c}")
                names = (reading["devices"] or {}).get("names", [])
                reading["device"] = {n: cl.ask(f"/heteroplane/device,{n}") for n in names}
                reading["app"] = cl.ask(f"/heteroplane/apps,{st['app']}")
                answers = [v for k, v in reading.items() if k != "device"]
                answers += list(reading["device"].values())
                if any(v is None or v is Client.GONE or v.get("running") == 0
                       for v in answers):
                    break  # the run ended between two answers
                if listed is None:
                    listed = cl.ask("/")
                    bad["device"] = cl.ask("/heteroplane/device,nosuch")
                    bad["app"] = cl.ask("/heteroplane/apps,nosuch")
                    bad["none"] = cl.ask("/heteroplane/device")
                last = reading
                polls += 1
                time.sleep(0.15)
        finally:
            cl.close()
    finally:
        o, e = proc.communicate(timeout=180)
        HPLANE_RUNS.append((proc.pid, t0, time.time()))
    assert proc.returncode == 0, e
    assert last is not None and polls >= 3, f"{polls} readings of the measured phase"
    return listed, last, bad


def rows(out):
    lines = (out / "trace.csv").read_text().splitlines()
    head = lines[0].split(",")
    return [dict(zip(head, l.split(","))) for l in lines[1:]]


def key(name):
    """A name as pl_tel.c makes it a telemetry key."""
    return "".join(c if c.isalnum() or c == "/" else "_" for c in name)


def within_last_second(final, live, per_s, what):
    """live is a reading before the end: at most final, and short of it
    by no more than a second of the busiest second's traffic."""
    assert live <= final, (what, live, final)
    assert final - live <= per_s + 64, (what, live, final, per_s)


def test_every_command_agrees_with_summary(hplane, tmp_path):
    out = tmp_path / "tel"
    # a modeled accelerator beside the CPU worker: batches, flush reasons
    # and modeled power are there to be read
    listed, L, bad = run_and_poll(hplane, out, ["--scenario", "low", "--duration", "7",
                                                "--gpu", "model:jetson-thesis",
                                                "--idle", "sleep"])
    F = summary(out)
    tr = rows(out)
    pps = max(float(r["offered_pps"]) for r in tr)
    mine = sorted(c for c in listed if c.startswith("/heteroplane/"))
    # /heteroplane/goal: the goal of a --goal run (sched pythia; test_pythia_goal.py)
    assert mine == sorted(["/heteroplane/lcore/load", "/heteroplane/device", "/heteroplane/goal"] +
                          [f"/heteroplane/{c}" for c in CMDS])
    # a name nobody has is refused (null), as is /device without one
    assert bad == {"device": None, "app": None, "none": None}

    st = L["stats"]
    assert st["app"] == F["app"] and st["scheduler"] == F["scheduler"]
    assert st["source"] == "generator" and st["devices"] == len(F["devices"])
    assert 0 < st["t_ns"] / 1e9 <= F["duration_s"] + 1
    for k in ("packets_offered", "packets_received", "packets_delivered", "verified",
              "task_errors", "dropped_port"):
        within_last_second(F[k], st[k], pps, k)
    within_last_second(F["bytes_delivered"], st["bytes_delivered"], pps * 1518, "bytes")
    within_last_second(F["deadline"]["packets"], st["deadline_packets"], pps, "deadline")
    within_last_second(F["reorder"]["out_packets"], st["order_packets"], pps, "order")
    assert st["packets_delivered"] > pps, "a reading this late has seen more than a second"
    # the generator's frames go through the ring port: ethdev counts them
    eth = F["port"]["ethdev"]
    assert eth["ipackets"] == F["packets_received"]
    assert eth["opackets"] == F["packets_delivered"]
    within_last_second(eth["ipackets"], st["ethdev_ipackets"], pps, "ethdev rx")
    within_last_second(eth["opackets"], st["ethdev_opackets"], pps, "ethdev tx")

    # per device: the table, and each device on its own
    dv = L["devices"]
    assert dv["names"] == [d["name"] for d in F["devices"]]
    f = dv["fields"]
    for d in F["devices"]:
        row = dict(zip(f, dv[key(d["name"])]))
        one = L["device"][d["name"]]
        assert one["name"] == d["name"]
        within_last_second(d["packets"], row["packets"], pps, d["name"])
        within_last_second(d["packets"], one["packets"], pps, d["name"])
        assert row["failed"] == int(d["failed"])
        if d.get("batches") is not None:
            within_last_second(d["batches"], one["batches"], pps, "batches")
            for reason, n in d["flush"].items():
                within_last_second(n, one[f"flush_{reason}"], pps, reason)
    # batches: the batching devices only, the same counts
    bt = L["batches"]
    batching = [d for d in F["devices"] if d.get("batches") is not None]
    assert bt["names"] == [d["name"] for d in batching] and batching
    for d in batching:
        row = dict(zip(bt["fields"], bt[key(d["name"])]))
        within_last_second(d["batches"], row["batches"], pps, "batches")
        assert row["batch_packets"] <= d["packets"] + pps
        assert row["batches"] <= row["batch_packets"]
        assert sum(row[f"flush_{r}"] for r in d["flush"]) == row["batches"]

    # apps: keyed by name, and one app on its own
    ap = L["apps"]
    assert ap["names"] == [a["name"] for a in F["apps"]]
    for a in F["apps"]:
        row = dict(zip(ap["fields"], ap[a["name"]]))
        within_last_second(a["packets_delivered"], row["packets_delivered"], pps, "app")
        within_last_second(a["verified"], row["verified"], pps, "app verified")
        assert row["verify_failures"] == a["verify_failures"] == 0
    assert L["app"]["name"] == F["app"]
    within_last_second(F["packets_delivered"], L["app"]["packets_delivered"], pps, "app")

    # drops by reason: the same reasons as summary.json
    dr = L["drops"]
    assert set(dr) == set(F["dropped_invalid"]) | {"port", "task_error", "task_error_security",
                                                    "admission"}
    for reason, n in F["dropped_invalid"].items():
        within_last_second(n, dr[reason], pps, reason)
    within_last_second(F["dropped_port"], dr["port"], pps, "port")
    within_last_second(F["dropped_admission"], dr["admission"], pps, "admission")

    # latency since the start: the count, the extremes, and the quantiles
    # of a set that the last second can move only so far: with a share w of
    # the packets added, the final p50 lies at or below the reading's p90
    # and the final p90 at or above its p50 (w <= 0.4)
    # (latency is the copy of the last trace row: up to a second older
    # than the counters, so two seconds' traffic)
    lt, fl = L["latency"], F["latency_us"]
    within_last_second(fl["count"], lt["count"], 2 * pps, "latency count")
    assert 1 - lt["count"] / fl["count"] <= 0.4, "the last reading saw most packets"
    assert lt["rows"] >= 2 and lt["window_count"] > 0
    assert lt["min_ns"] >= fl["min"] * 1e3 - 1 and lt["max_ns"] <= fl["max"] * 1e3 + 1
    assert lt["p50_ns"] <= lt["p90_ns"] <= lt["p99_ns"] <= lt["p999_ns"] <= lt["max_ns"]
    assert fl["p50"] * 1e3 <= lt["p90_ns"] + 1 and fl["p90"] * 1e3 >= lt["p50_ns"] - 1
    assert lt["sum_ns"] <= fl["mean"] * fl["count"] * 1e3 * 1.0001

    # power: the modeled source's energy so far, short of the final by at
    # most two samples' worth (one a second, the last at the end)
    pw = L["power"]
    srcs = F["power"]["sources"]
    assert pw["names"] == [s["name"] for s in srcs] and srcs
    for s in srcs:
        row = dict(zip(pw["fields"], pw[key(s["name"])]))
        assert row["modeled"] == int(s["modeled"])
        assert row["millijoules"] / 1e3 <= s["joules"] + 1e-3
        assert s["joules"] - row["millijoules"] / 1e3 <= 2.5 * s["mean_w"] + 1e-3
        assert row["milliwatts"] > 0

    fw = L["flows"]
    assert fw["max"] == F["flows"]["max"]
    for k in ("peak", "created", "expired", "refused_packets"):
        assert fw[k] <= F["flows"][k], k
    assert fw["live"] <= fw["max"]
