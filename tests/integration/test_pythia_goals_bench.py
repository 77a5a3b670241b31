# SPDX-License-Identifier: BSD-3-Clause
# The fixed configurations bench/pythia/goals.py compares the goals with
# (issue 21, "Goals beat single configurations"): `--sched-param
# devices=igpu` leaves the monitor one configuration, so it never switches
# and the GTX stays off; the example goal library goal_all_devices.so
# (`--goal all-devices`) keeps igpu+dgpu with both GPUs at work at every
# load. A few seconds each at a low rate on the modeled platform.
import csv
import os
from pathlib import Path

from conftest import assert_invariants, run_hplane, summary

BASE = ["--app", "vpn", "--platform", "pythia-8700k", "--scenario", "medium",
        "--capacity", "20000", "--quiet", "--duration", "3"]
ALL_LIB = Path(os.environ.get("BUILD_DIR", "build")) / "examples" / "goal_all_devices.so"


def trace_rows(out):
    with open(Path(out) / "trace.csv") as f:
        return list(csv.DictReader(f))


def power_col(rows, dev):
    return next(k for k in rows[0] if k.startswith("power_w:") and dev in k)


def test_fixed_single_device_never_switches(hplane, tmp_path):
    out = tmp_path / "igpu"
    run_hplane(["run"] + BASE + ["--goal", "max-throughput", "--sched-param", "devices=igpu",
                                 "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert s["dropped_internal"] == 0 and s["flows"]["out_of_order_packets"] == 0
    assert s["goal"]["switches"] == 0 and s["goal"]["configuration"] == "aes_cbc=igpu@1024"
    rows = trace_rows(out)
    assert all(r["configuration"] == "aes_cbc=igpu@1024" for r in rows)
    assert all(float(r[power_col(rows, "dgpu")]) == 0.0 for r in rows)


def test_all_devices_goal_keeps_both(hplane, tmp_path):
    out = tmp_path / "both"
    run_hplane(["run"] + BASE + ["--goal-lib", str(ALL_LIB), "--goal", "all-devices",
                                 "--sched-param", "devices=igpu+dgpu", "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert s["dropped_internal"] == 0 and s["flows"]["out_of_order_packets"] == 0
    g = s["goal"]
    assert g["active"] == "all-devices" and g["configuration"] == "aes_cbc=igpu+dgpu@1024", g
    # at an idle port every configuration has no device at work, so the
    # start pick is the least power (igpu); the monitor switches after its
    # first two evaluations (~0.6 s) and then stays: the first second may
    # still show the GTX off
    assert g["switches"] <= 1, g
    rows = [r for r in trace_rows(out) if float(r["t_s"]) > 1.5]
    assert rows and all(r["configuration"] == "aes_cbc=igpu+dgpu@1024" for r in rows)
    pc = power_col(rows, "dgpu")
    assert all(float(r[pc]) > 0.0 for r in rows), [(r["t_s"], r[pc]) for r in rows]
    share = s["device_share"]
    assert share["model:pythia-8700k@igpu"] > 5 and share["model:pythia-8700k@dgpu"] > 5, share
