# SPDX-License-Identifier: BSD-3-Clause
"""Per-app backpressure (issue 21 part 1, pl_apps.c pl_apps_in/pl_apps_place):
apps share the devices, and one app's overload never drops another app's
packets. vpn and ids under pythia's min-latency within the two modeled GPUs
keep to their own devices (vpn on the GTX, ids on the UHD 630, see
test_pythia_goal.py); the GTX is made 1000x slower (scale=) than the
profile pythia plans with, so vpn's share of the offered rate overloads it
and only it. ids then loses nothing: every packet of it received,
delivered, verified at the sink and in order; vpn's excess is dropped at
the scheduler's rx as vpn's port drops, and the per-app counters add up
to the run's. With the GTX at its profile's speed neither app drops. trace.csv's
per-app drop columns (app:NAME_dropped_port, _dropped_admission: each
row its own second's) add up to summary.json's per-app drops.
Modeled time: nothing here depends on the host's speed but the generator's
pacing (a run is ~2 s plus vpn's drain)."""
import csv
import json

from conftest import assert_invariants, run_hplane

APPS = ["--apps", "vpn:0.5,ids:0.5", "--sched-param", "platform=pythia-8700k",
        "--goal", "min-latency", "--sched-param", "devices=igpu+dgpu",
        "--gpu", "model:pythia-8700k@igpu"]
# 10k pps offered, 5k pps each app (scenario medium: half the capacity)
RATE = ["--scenario", "medium", "--capacity", "20000", "--duration", "2", "--quiet"]


def run(tmp_path, dgpu):
    out = tmp_path / "run"
    run_hplane(["run"] + APPS + ["--gpu", dgpu] + RATE + ["--out", str(out)], timeout=120)
    s = json.loads((out / "summary.json").read_text())
    assert_invariants(s)
    assert s["flows"]["out_of_order_packets"] == 0, s["flows"]
    apps = {a["name"]: a for a in s["apps"]}
    # the apps' counters are the run's: port drops too (no drop at the
    # shared port before the app is known: rx never stops while ids has room)
    for k in ("packets_received", "packets_delivered", "dropped_port", "dropped_admission",
              "task_errors"):
        assert sum(a[k] for a in apps.values()) == s[k], (k, s)
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"], s
    for a in apps.values():
        assert a["packets_delivered"] == a["packets_received"] == a["verified"] > 0, a
        assert a["verify_failures"] == 0, a
        assert a["order"]["in_order"] == a["order"]["packets"] > 0, a
    with open(out / "trace.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows, "trace.csv has no rows"
    for name, a in apps.items():
        for col, key in (("dropped_port", "dropped_port"),
                         ("dropped_admission", "dropped_admission")):
            got = [int(r[f"app:{name}_{col}"]) for r in rows]
            assert sum(got) == a[key], (name, col, got, a)
    # and the apps' port drops are the run's, row by row
    for r in rows:
        assert sum(int(r[f"app:{n}_dropped_port"]) for n in apps) == int(r["dropped_port"]), r
    return s, apps


def test_one_app_overloaded_other_untouched(hplane, tmp_path):
    s, apps = run(tmp_path, "model:pythia-8700k@dgpu,scale=1000")
    ids, vpn = apps["ids"], apps["vpn"]
    # vpn ran on the slow GTX only, ids on the UHD 630 only
    assert vpn["device_share_pct"]["model:pythia-8700k@dgpu"] > 50, vpn
    assert ids["device_share_pct"]["model:pythia-8700k@igpu"] == 100, ids
    assert ids["dropped_port"] == 0, ids
    assert vpn["dropped_port"] > 0 and vpn["dropped_port"] == s["dropped_port"], s
    # trace.csv says which app lost packets: vpn, in some second
    with open(tmp_path / "run" / "trace.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert any(int(r["app:vpn_dropped_port"]) > 0 for r in rows), rows
    assert all(int(r["app:ids_dropped_port"]) == 0 for r in rows), rows
    # ids got its whole share of the offered traffic (its flows' share,
    # near half: the generator's flows hash unevenly)
    assert ids["packets_received"] > 0.3 * s["packets_offered"], s


def test_both_under_capacity_no_drops(hplane, tmp_path):
    s, apps = run(tmp_path, "model:pythia-8700k@dgpu")
    assert s["dropped_port"] == 0, s
    assert all(a["dropped_port"] == 0 for a in apps.values()), apps


def test_lossless_source_never_drops(hplane, tmp_path):
    """A capture at --pcap-speed max waits for room instead of dropping: the
    apps share its one queue, so rx waits until every app has room and
    the overloaded vpn drops nothing (it only takes longer)."""
    src = tmp_path / "in.pcap"
    run_hplane(["gen", "--pcap", str(src), "--count", "3000", "--seed", "5", "--flows", "64"])
    out = tmp_path / "run"
    run_hplane(["run"] + APPS + ["--gpu", "model:pythia-8700k@dgpu,scale=1000",
                                 "--source", f"pcap:{src}", "--pcap-speed", "max", "--quiet",
                                 "--out", str(out)], timeout=120)
    s = json.loads((out / "summary.json").read_text())
    assert_invariants(s)
    assert s["packets_offered"] == s["packets_received"] == s["packets_delivered"] == 3000, s
    assert all(a["dropped_port"] == 0 and a["packets_delivered"] == a["verified"] > 0
               for a in s["apps"]), s["apps"]
