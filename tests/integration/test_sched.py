# SPDX-License-Identifier: BSD-3-Clause
"""Scheduling through hplane (docs/scheduling.md): every policy at both
granularities on the modeled Jetson platform (no loss, every packet
verified, where each task ran), qlearn training and its Q-table, a profile
written by `hplane profile` that reproduces the transcribed thesis figures
when it measures a modeled device and that the modeled device can read
back, power in the summary, `hplane compare` end to end, and bad input
(one line, exit 2)."""
import json
import re
import sys

import pytest

from conftest import ROOT, assert_invariants, run_hplane, summary

RAN_TYPES = "0,330,1,1,{dl}\n0,330,0,0,0\n331,1100,0,0,0\n331,1100,1,0,0\n1101,65535,0,0,0\n"
F = 4  # modeled time x4: short runs, little real work


def jetson(tmp_path, extra, dl_us=400000):
    types = tmp_path / "types.txt"
    types.write_text(RAN_TYPES.format(dl=dl_us))
    return ["--app", "ran", "--workers", "2", "--cpu-model", f"jetson-thesis,scale={F}",
            "--gpu", f"model:jetson-thesis,scale={F},inflight=2,timeout_us=20000",
            "--types", str(types), "--ring-size", "128", "--capacity", "4000",
            "--verify-every", "2", "--idle", "sleep", "--quiet"] + list(extra)


def one_line(stderr):
    # one line from hplane (DPDK may print its own before it)
    return len([x for x in stderr.splitlines() if x.startswith("hplane")]) == 1


def share(s, task, accel=True):
    return sum(v for k, v in s["task_share"][task].items() if k.startswith("cpu") != accel)


@pytest.mark.parametrize("sched,gran", [("rr", "task"), ("static", "chain"),
                                        ("static", "task"), ("adaptive", "chain"),
                                        ("adaptive", "task")])
def test_policies_no_loss(hplane, tmp_path, sched, gran):
    out = tmp_path / f"{sched}-{gran}"
    run_hplane(["run"] + jetson(tmp_path, ["--sched", sched, "--granularity", gran,
                                            "--scenario", "stress", "--duration", "2",
                                            "--out", str(out)]), timeout=120)
    s = summary(out)
    assert_invariants(s)
    assert s["granularity"] == gran and s["scheduler"] == sched
    assert s["verified"] > 100 and s["task_errors"] == 0
    assert len(s["task_share"]) == 2
    for t in s["task_share"]:
        assert abs(sum(t.values()) - 100) < 0.01, s["task_share"]
    assert all(d["modeled"] for d in s["devices"])
    # order before the window (RFC 4737) and the thesis's failed reorders
    ro = s["reorder"]
    assert 0 <= ro["arrived_out_of_order"] <= ro["packets"], ro
    assert abs(ro["arrived_in_order_pct"] -
               100 * (1 - ro["arrived_out_of_order"] / ro["packets"])) < 0.01, ro
    assert abs(ro["restored_pct"] -
               100 * (ro["packets"] - ro["late"] - ro["drained"]) / ro["packets"]) < 0.01, ro
    assert "arrived_in_order_pct" in (out / "trace.csv").read_text().splitlines()[0]
    if sched == "rr":
        # round robin spreads every flow over devices of different speed
        assert ro["arrived_out_of_order"] > 0, ro
    if sched == "static" and gran == "task":
        # Algorithm 2: every LDPC step on the accelerator
        assert share(s, 0) == 100.0, s["task_share"]
        # at 2x the capacity (> max rate) most AES goes to the CPUs (line 2/4)
        assert share(s, 1, accel=False) > 50, s["task_share"]
    if sched == "adaptive":
        # flows that need order stay on one device while in flight
        assert s["reorder"]["late"] == 0 and s["reorder"]["window_drains"] == 0, s["reorder"]
        assert ro["arrived_out_of_order"] == 0 and ro["drained"] == 0, ro
    # power: every modeled device has a modeled figure between idle and busy
    p = s["power"]
    assert len([x for x in p["sources"] if x["modeled"]]) == 3
    for x in p["sources"]:
        if x["modeled"]:
            # summary.json carries 12 significant digits: a mean of busy
            # watts may read 1.80000000882
            assert 0.9 - 1e-6 <= x["mean_w"] <= 1.8 + 1e-6 and x["joules"] > 0, x
    assert p["measured"] or p["unavailable"].startswith("unavailable")
    rows = (out / "trace.csv").read_text().splitlines()
    assert "mean_us" in rows[0] and "power_w:" in rows[0] and "_share_pct" in rows[0]


def test_task_granularity_fallback(hplane, tmp_path):
    # the accelerator fails mid-run with packets between tasks: nothing lost
    out = tmp_path / "fail"
    args = jetson(tmp_path, ["--sched", "adaptive", "--granularity", "task",
                             "--scenario", "medium", "--duration", "2.5", "--out", str(out)])
    i = args.index("--gpu")
    args[i + 1] += ",fail_after=800"
    run_hplane(["run"] + args, timeout=120)
    s = summary(out)
    assert_invariants(s)
    gpu = [d for d in s["devices"] if not d["name"].startswith("cpu")][0]
    assert gpu["failed"] and gpu["fallback_packets"] > 0
    assert s["verified"] > 100


def test_train_then_qlearn(hplane, tmp_path):
    qt = tmp_path / "q.json"
    p = run_hplane(["train", "--qtable", str(qt), "--duration", "3",
                    "--out", str(tmp_path / "train")] + jetson(tmp_path, []), timeout=120)
    assert "qlearn: wrote" in p.stdout, p.stdout[-2000:]
    t = json.loads(qt.read_text())
    assert t["format"] == "heteroplane-qtable-1" and t["granularity"] == "chain"
    assert t["roles"] == "cca" and t["actions"] == 2
    assert len(t["q"]) == t["states"] * t["actions"] == 5 * 8 * 6 * 2
    assert sum(t["visits"]) > 100 and any(q is not None for q in t["q"])
    out = tmp_path / "ql"
    run_hplane(["run", "--sched", "qlearn", "--qtable", str(qt), "--scenario", "medium",
                "--duration", "1.5", "--out", str(out)] + jetson(tmp_path, []), timeout=120)
    s = summary(out)
    assert_invariants(s)
    assert s["scheduler"] == "qlearn" and s["verified"] > 50
    # a table trained for chain does not run with task granularity
    p = run_hplane(["run", "--sched", "qlearn", "--qtable", str(qt), "--granularity", "task",
                    "--duration", "1", "--out", str(tmp_path / "x")] + jetson(tmp_path, []),
                   check=False)
    assert p.returncode == 2, p.stderr
    assert "trained for granularity chain" in p.stderr
    assert one_line(p.stderr)


def test_profile_reproduces_model(hplane, tmp_path):
    # Profiling the modeled Jetson GPU must give back the thesis's lines
    # (fitted by least squares from submit-to-completion times), and the
    # file must load as a modeled device again.
    out = tmp_path / "p.json"
    p = run_hplane(["profile", "--app", "crypto", "--gpu", "model:jetson-thesis",
                    "--batches", "1,16,128", "--reps", "3", "--imix-sizes", "243,1458",
                    "--imix-shares", "1,1", "--duration", "1", "--calib", "0.3",
                    "--out", str(out)], timeout=180)
    assert "profile: wrote" in p.stdout, p.stdout[-2000:]
    prof = json.loads(out.read_text())
    assert prof["format"] == "heteroplane-profile-1" and prof["modeled"]
    gpu, cpu = prof["devices"]["gpu"], prof["devices"]["cpu"]
    rows = gpu["tasks"]["aes_ctr"]
    assert [r["batch"] for r in rows] == [1, 16, 128]
    r128 = rows[-1]
    # thesis Table 4.4 line: 714.6 us a batch + 4.88 ns a byte
    assert abs(r128["fixed_us"] + 128 * r128["per_pkt_us"] - 714.6) < 0.05 * 714.6, r128
    assert abs(r128["per_byte_ns"] - 4.88) < 0.05 * 4.88, r128
    m = [x for x in gpu["measurements"] if x["batch"] == 128 and x["size"] == 1458][0]
    assert m["median_ms"] > 0 and m["std_ms"] >= 0 and m["pps"] > 0
    assert abs(m["median_ms"] - (714.6 + 4.88e-3 * 128 * m["frame_bytes"]) / 1e3) < 0.1
    # the CPU (real, this machine) has rows and measurements too
    assert [r["batch"] for r in cpu["tasks"]["aes_ctr"]] == [1, 16]
    assert len(cpu["measurements"]) == 4
    # with the pipeline around it: each device, each size
    assert len(gpu["pipeline"]) == 2 and all(x["pps"] > 0 for x in gpu["pipeline"])
    # the modeled device reads the measured file
    run_hplane(["run", "--app", "crypto", "--gpu", f"model:{out}", "--scenario", "low",
                "--duration", "1", "--calib", "0.3", "--quiet", "--out", str(tmp_path / "r")])
    assert_invariants(summary(tmp_path / "r"))


def test_profile_chain_only_device(hplane, tmp_path):
    # The CUDA plugin runs a packet from its step to the chain's end, so a
    # two-task app (ran: ldpc then aes_ctr) is timed on the suffixes, last
    # task first, and each task is charged what its suffix adds. hplane
    # profile refused such a device, which made `hplane compare --gpu cuda
    # --app ran` (issue 24) fail before its first run.
    from conftest import BUILD
    if not (BUILD / "gpu" / "libhp_cuda.so").exists():
        pytest.skip("CUDA plugin not built (no nvcc)")
    out = tmp_path / "p.json"
    p = run_hplane(["profile", "--app", "ran", "--gpu", "cuda:emul", "--workers", "1",
                    "--batches", "1,16", "--reps", "3", "--imix-sizes", "243,1458",
                    "--imix-shares", "1,1", "--duration", "1", "--out", str(out)], timeout=240)
    assert "profile: wrote" in p.stdout, p.stdout[-2000:]
    gpu = json.loads(out.read_text())["devices"]["gpu"]
    assert gpu["chain_only"] is True
    assert list(gpu["tasks"]) == ["ldpc", "aes_ctr"]
    for t in ("ldpc", "aes_ctr"):
        assert [r["batch"] for r in gpu["tasks"][t]] == [1, 16], gpu["tasks"][t]
    starts = {(m["task"], m["chain_from"]) for m in gpu["measurements"]}
    assert starts == {("ldpc", 0), ("aes_ctr", 1)}, starts
    assert len(gpu["measurements"]) == 8
    # the one-task CPU worker is timed task by task, with no chain marks
    cpu = json.loads(out.read_text())["devices"]["cpu"]
    assert "chain_only" not in cpu and all("chain_from" not in m for m in cpu["measurements"])
    assert len(gpu["pipeline"]) == 2 and all(x["pps"] > 0 for x in gpu["pipeline"])


def test_compare_quick(hplane, tmp_path):
    out = tmp_path / "cmp"
    # --no-rt: a test must not take the CPUs from a benchmark running beside it
    p = run_hplane(["compare", "--quick", "--scenarios", "stress", "--scheds", "static,adaptive",
                    "--granularities", "task", "--no-rt", "--out", str(out)], timeout=240)
    rep = (out / "report.md").read_text()
    assert "lcore threads ran in normal scheduling (no real-time threads)" in rep
    assert "(modeled)" in rep and "| C2 Static |" in rep and "| C2 Adaptive |" in rep
    assert "The issue's bar for adaptive" in rep
    assert (out / "stress-latency.png").stat().st_size > 1000
    assert (out / "stress-share.png").stat().st_size > 1000
    assert summary(out / "stress-static-task")["granularity"] == "task"
    assert "compare: report" in p.stdout
    # the page of the runs side by side (tests/integration/test_report.py)
    assert "<td>stress-adaptive-task</td>" in (out / "report.html").read_text()


def test_compare_real_devices_emulated(hplane, tmp_path):
    # The path issue 10's real-GPU comparison takes (`--gpu cuda`): hplane
    # profile measures the CPU worker and the accelerator, the policies
    # read that profile, the grid runs on the devices. Here the accelerator
    # is the CUDA plugin with its kernels' code on the CPU, and the report
    # says so.
    from conftest import BUILD
    if not (BUILD / "gpu" / "libhp_cuda.so").exists():
        pytest.skip("CUDA plugin not built (no nvcc)")
    out = tmp_path / "cmp"
    p = run_hplane(["compare", "--gpu", "cuda:emul", "--app", "vpn", "--workers", "1", "--quick",
                    "--scenarios", "stress", "--scheds", "rr,adaptive", "--granularities", "chain",
                    "--no-rt", "--out", str(out)], timeout=300)
    prof = json.loads((out / "profile.json").read_text())
    assert set(prof["devices"]) >= {"cpu", "gpu"}
    rep = (out / "report.md").read_text()
    assert "(emulated: the kernels' code run on the CPU, not a GPU measurement)" in rep
    assert "| C1 Round-robin |" in rep and "| C1 Adaptive |" in rep
    for sched in ("rr", "adaptive"):
        s = summary(out / f"stress-{sched}-chain")
        assert_invariants(s)
        assert s["device_share"].get("cuda-emul", 0) > 0, s["device_share"]
    assert "compare: report" in p.stdout


def compare_tool():
    sys.path.insert(0, str(ROOT / "tools"))
    import sched_compare
    return sched_compare


def rows(delivered, offered=100, dropped=0, dl_pct=None, lat_us=None):
    """Per-second trace rows as hplane writes them (one second each)."""
    return [{"t_s": f"{i + 1}.000", "offered_pps": str(offered), "delivered_pps": str(d),
             "gbps": str(d / 100), "dropped_port": str(dropped),
             "deadline_pct": str(dl_pct[i] if dl_pct else 100), "mean_us": str(lat_us[i] if lat_us else 1000)}
            for i, d in enumerate(delivered)]


def test_compare_window_throughput():
    """compare's throughput window (first second left out) counts at most
    what entered it: a backlog from a stall before the window does not
    count as throughput, one built up inside it stays a loss."""
    sc = compare_tool()
    gbps, kpps, drained = sc.window_tput(rows([100] * 5))
    assert (gbps, kpps, drained) == (1.0, 0.1, 0.0)
    # stall in the first (left-out) second, caught up in the second: 450
    # delivered in the window of 400 offered; 50 came from before it
    gbps, kpps, drained = sc.window_tput(rows([50, 150, 100, 100, 100]))
    assert drained == 50 and kpps == pytest.approx(0.1) and gbps == pytest.approx(1.0)
    # a stall at the end: 350 of 400 delivered, a loss as measured
    gbps, kpps, drained = sc.window_tput(rows([100, 100, 100, 100, 50]))
    assert drained == 0 and kpps == pytest.approx(0.0875)
    # port drops do not enter: overload delivers what the devices served
    gbps, kpps, drained = sc.window_tput(rows([100] * 5, offered=200, dropped=100))
    assert drained == 0 and kpps == pytest.approx(0.1)
    # --settle: the window starts later
    gbps, kpps, _ = sc.window_tput(rows([100, 100, 100, 200, 200], offered=200), start=3)
    assert kpps == pytest.approx(0.2)


def test_compare_settled_misses():
    """Misses and latency from the rows after a settling time, each
    second weighted by its deliveries."""
    sc = compare_tool()
    r = rows([100, 100, 300, 100], dl_pct=[100, 100, 0, 50], lat_us=[20, 20, 200, 40])
    miss, lat = sc.settled(r, 20, 2)
    assert miss == pytest.approx((300 * 100 + 100 * 50) / 400)
    assert lat == pytest.approx((300 * 200 + 100 * 40) / 400 / 1e3 / 20)
    assert sc.settled(r, 20, 9) == (None, None)


@pytest.mark.parametrize("args,msg", [
    (["run", "--granularity", "stage"], "bad value 'stage' for --granularity"),
    (["run", "--cpu-model", "no-such-profile"], "--cpu-model: profile"),
    (["run", "--sched", "qlearn"], "needs --qtable FILE"),
    (["run", "--sched", "qlearn", "--qtable", "/nonexistent/q.json"], "Q-table /nonexistent/q.json"),
    (["run", "--profile", "/nonexistent/p.json"], "--profile: profile /nonexistent/p.json"),
    (["train"], "train needs --qtable FILE"),
    (["profile", "--out", "p.txt"], "profile needs --out FILE.json"),
    (["profile", "--out", "p.json", "--batches", "4,2"], "--batches"),
    (["run", "--power-interval", "0"], "bad value '0' for --power-interval"),
    # compare (Python) answers like hplane: one line, not argparse's usage
    (["compare", "--bogus"], "hplane compare: unrecognized arguments: --bogus"),
    (["compare", "--scenarios", "nope"], "unknown scenario nope"),
    (["compare", "--rt-prio", "0"], "expected a priority 1..99"),
])
def test_bad_input(hplane, tmp_path, args, msg):
    p = run_hplane(args, check=False)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert msg in p.stderr, p.stderr
    assert one_line(p.stderr), p.stderr


def test_malformed_files(hplane, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    for args in (["--sched", "qlearn", "--qtable", str(bad)], ["--profile", str(bad)],
                 ["--gpu", f"model:{bad}"]):
        p = run_hplane(["run", "--duration", "1", "--out", str(tmp_path / "o")] + args,
                       check=False)
        assert p.returncode == 2, (args, p.stderr)
        assert re.search(r"(Q-table|profile) .*bad\.json", p.stderr), p.stderr
        assert one_line(p.stderr), p.stderr
    # static without any service-time model for the real CPU workers
    p = run_hplane(["run", "--sched", "static", "--gpu", "model:jetson-thesis", "--duration", "1",
                    "--calib", "0.3", "--out", str(tmp_path / "s")], check=False)
    assert p.returncode == 2 and "service-time models" in p.stderr, p.stderr
