# SPDX-License-Identifier: BSD-3-Clause
# svc-bench (apps/svc-bench, docs/svc.md) as a whole program: its outputs
# agree with each other and with the definitions (delay = start - deadline,
# jobs offered by the load profile), the balancer moves what it must on the
# dedicated-core model, a real run on service lcores keeps every job on the
# lcore it was mapped to when nothing may move, and bad input gives one line
# and exit 2. No timing is asserted: this machine's CPUs are shared.
import csv
import json
import subprocess

import pytest

from conftest import BUILD, assert_every_flag_refused

SVC_BENCH = BUILD / "apps/svc-bench/svc-bench"
EAL = ["--", "--no-huge", "--no-pci", "--no-shconf", "-m", "128",
       "--log-level=lib.eal:error", "--lcores=0@(0-1),1@(0-1),2@(0-1)"]


@pytest.fixture(scope="module")
def bench():
    if not SVC_BENCH.exists():
        pytest.fail(f"{SVC_BENCH} not built (run make build)")
    return SVC_BENCH


def run(bench, args, tmp_path, eal=False):
    files = {k: tmp_path / f"{k}" for k in ("jobs.csv", "loads.csv", "events.csv", "s.json")}
    cmd = [str(bench)] + args + ["--csv", str(files["jobs.csv"]), "--loads-csv",
                                 str(files["loads.csv"]), "--events-csv",
                                 str(files["events.csv"]), "--json", str(files["s.json"])]
    p = subprocess.run(cmd + (EAL if eal else []), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(files["s.json"]) as f:
        js = json.load(f)
    with open(files["jobs.csv"]) as f:
        jobs = list(csv.DictReader(f))
    with open(files["events.csv"]) as f:
        events = list(csv.DictReader(f))
    return js, jobs, events


def check_consistent(js, jobs):
    assert sum(s["jobs"] for s in js["services"]) == len(jobs)
    for r in jobs:
        assert int(r["delay"]) == int(r["start"]) - int(r["deadline"]) >= 0
    for s in js["services"]:
        mine = [int(r["delay"]) for r in jobs if int(r["service"]) == s["service"]]
        assert s["delay_sum"] == pytest.approx(sum(mine), rel=1e-9, abs=1)


def test_model_moves_one_service_at_40_percent(bench, tmp_path):
    js, jobs, events = run(bench, ["deadline", "--model", "--services", "2", "--map", "0,0",
                                   "--load", "0.4", "--duration", "0.5"], tmp_path)
    check_consistent(js, jobs)
    assert js["modeled"] is True
    # 0.4 x 0.5 s / 10 us per service, within the random phase and jitter
    for s in js["services"]:
        assert abs(s["jobs"] - 20000) <= 2
    # 80 % on one core: exactly one service moves to the other, once
    assert len(events) == 1 and events[0]["action"] == "move"
    assert events[0]["reason"] == "threshold" and events[0]["from"] == "1"
    assert events[0]["to"] == "2"
    assert sorted(s["running"] for s in js["services"]) == [1, 2]
    moved = int(events[0]["service"])
    t_move = int(events[0]["t"])
    after = [r for r in jobs if int(r["service"]) == moved and int(r["start"]) > t_move]
    assert after and all(r["core"] == "2" for r in after)


def test_model_balance_off_and_under_threshold(bench, tmp_path):
    for args in (["--load", "0.4", "--balance", "off"], ["--load", "0.3"]):
        js, jobs, events = run(bench, ["deadline", "--model", "--services", "2", "--map", "0,0",
                                       "--duration", "0.3"] + args, tmp_path)
        check_consistent(js, jobs)
        assert events == [] and js["moves"] == 0
        assert {r["core"] for r in jobs} == {"1"}


def test_model_scale_down_guard(bench, tmp_path):
    base = ["deadline", "--model", "--services", "3", "--map", "0,0,1", "--load",
            "0.02,0.02,0.03", "--duration", "0.5", "--scale-down"]
    # bounding the wait alone: merging lengthens the runner's loop, refused
    js, _, events = run(bench, base + ["--scale-down-measure", "wait"], tmp_path)
    assert events == [] and js["mean_active_cores"] == pytest.approx(2.0)
    off, _, _ = run(bench, base[:-1], tmp_path)
    for extra in (["--scale-down-max-delay", "-1"], []):  # forced; response guard
        js, jobs, events = run(bench, base + extra, tmp_path)
        check_consistent(js, jobs)
        assert [e["action"] for e in events] == ["move", "park"]
        assert js["mean_active_cores"] < 1.9
        assert js["services"][0]["running"] in (1, 2)
        assert len({s["running"] for s in js["services"]}) == 1
    # response = wait + the job's 10 us (23,000 modeled cycles) and a call

    def resp(j):
        return sum(s["response_mean"] * s["jobs"] for s in j["services"]) / \
            sum(s["jobs"] for s in j["services"])
    for j in (off, js):
        for s in j["services"]:
            assert s["response_mean"] >= s["delay_mean"] + 23000
    assert resp(js) <= 1.10 * resp(off)


def test_real_run_stays_where_mapped(bench, tmp_path):
    js, jobs, events = run(bench, ["deadline", "--services", "2", "--map", "0,1", "--load",
                                   "0.05", "--balance", "off", "--duration", "0.3"],
                           tmp_path, eal=True)
    check_consistent(js, jobs)
    assert js["modeled"] is False and events == []
    assert len(js["lcore_cpu_share"]) == 2
    assert all(0.0 < x <= 1.05 for x in js["lcore_cpu_share"])
    # run + runnable-not-running cannot exceed the wall time; stalls are
    # counted per lcore and a stalled job is one of the service's jobs
    assert all(0.0 <= w and c + w <= 1.05
               for c, w in zip(js["lcore_cpu_share"], js["lcore_wait_share"]))
    assert js["rt"] is False and len(js["lcore_stalls"]) == 2
    for s in js["services"]:
        assert 0 <= s["stalled_jobs"] <= s["jobs"]
        assert 0 <= s["stalled_delay_sum"] <= s["delay_sum"] + 1
    for s, core in ((0, "1"), (1, "2")):
        mine = [r for r in jobs if int(r["service"]) == s]
        assert mine and all(r["core"] == core for r in mine)


@pytest.mark.parametrize("args,msg", [
    (["nope"], "unknown mode"),
    (["deadline", "--map", "0,5"], "only 2 cores"),
    (["deadline", "--load", "1.5"], "bad value '1.5' for --load"),
    (["deadline", "--load", "0.1,,"], "bad value"),
    (["deadline", "--services", "3", "--load", "0.1,0.2"], "2 profiles for 3 services"),
    (["deadline", "--work-us", "1,2,3"], "3 sizes for 2 services"),
    (["deadline", "--balance", "sideways"], "bad value 'sideways' for --balance"),
    (["deadline", "--scale-down-measure", "both"], "bad value 'both' for --scale-down-measure"),
    (["token", "--model"], "deadline application only"),
    (["deadline", "--model", "--rt"], "--rt is for deadline and token runs on real lcores"),
    (["overhead", "--rt"], "--rt is for deadline and token runs on real lcores"),
    (["deadline", "--period-us", "300", "--interval-us", "1000"], "multiple of --period-us"),
    (["deadline", "--duration"], "needs a value"),
    (["deadline", "--cores", "2\nx"], "bad value '2\\nx' for --cores"),
])
def test_bad_input(bench, args, msg):
    p = subprocess.run([str(bench)] + args, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0], p.stderr



def test_every_flag_hostile_values(bench):
    """Every svc-bench flag (from its --help) with hostile values, ahead of
    a bad --services so that no run starts: exit 2 and one line each."""
    h = subprocess.run([str(bench), "--help"], capture_output=True, text=True, timeout=30)
    assert_every_flag_refused(
        lambda a: subprocess.run([str(bench)] + a, capture_output=True, text=True, timeout=30),
        h.stdout + h.stderr, ["deadline"], ["--services", "0"])
