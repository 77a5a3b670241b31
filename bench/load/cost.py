#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/load/cost.py: what the load counters cost (issue 6: at most 2 % of
throughput against the same run with estimation compiled out).

Paired and interleaved, so that the machine's drift (other tenants' builds,
cache neighbours, the host) falls on both builds alike: every round runs the
same `hplane run` once from a build with the counters (<build>) and once from
one without (-Dload_counters=false, <build>-nocount), in alternating order,
lcore threads SCHED_FIFO (bench/rtrun.py) and each loop on the same CPU in
both (hplane's default lcore map). Per run it reads

  * delivered pps (summary.json), and
  * the bottleneck's CPU time per delivered packet: trace.csv's <loop>_os_cpu
    (the kernel's schedstat accounting of the loop's thread, read the same
    with or without counters) summed over the bottleneck's loops, over
    delivered pps, over the rows that have it but the first (start-up). Time the real-time
    throttling or another thread took is then charged to neither build.

The per-round difference, with / without - 1, is reported as its mean with a
95 % Student-t confidence interval, and its median. Cases:

  crypto (worker-bound, the generator recycles frames): the worker on CPU 1,
      ~550 cycles a packet, full bursts: one hp_load_poll per 32 packets.
  null (CPU 0-bound, recycling): the scheduler and traffic loops on CPU 0,
      ~200 cycles a packet in partial bursts, three hp_load_poll sites per
      pass: where the counters weigh most.

usage: cost.py [--build DIR] [--rounds N] [--seconds S] [--case crypto|null]
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rtrun import run_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# case: hplane run options, the loops that limit, what that is
CASES = {
    "crypto": (["--app", "crypto", "--gen-recycle", "--idle", "yield", "--capacity", "4000000"],
               ["cpu0"], "worker-bound: the worker loop on CPU 1"),
    "null": (["--app", "null", "--gen-recycle", "--idle", "yield"],
             ["sched", "traffic"], "CPU 0-bound: scheduler + traffic loops on CPU 0"),
}

# Student t, two-sided 95 %, by degrees of freedom (1..30; beyond, ~normal)
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def ci95(xs):
    """Mean and half-width of the 95 % t interval of the mean."""
    m = statistics.mean(xs)
    if len(xs) < 2:
        return m, float("inf")
    df = len(xs) - 1
    t = T975[df - 1] if df <= len(T975) else 1.96
    return m, t * statistics.stdev(xs) / math.sqrt(len(xs))


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def nocount_build(build):
    """<build>-nocount: the same configuration with -Dload_counters=false."""
    off = build.rstrip("/") + "-nocount"
    if not os.path.exists(os.path.join(off, "build.ninja")):
        opts = json.loads(sh(["meson", "introspect", "--buildoptions", build]).stdout)
        skip = [o["value"] for o in opts if o["name"] == "skip_blocks"][0]
        sh(["meson", "setup", off, "--buildtype=release", "-Dload_counters=false"] +
           ([f"-Dskip_blocks={','.join(skip)}"] if skip else []), cwd=ROOT)
    sh(["ninja", "-C", off, "-j2", "apps/hplane/hplane"], timeout=1800)
    return os.path.join(off, "apps/hplane/hplane")


def one_run(hplane, case, secs):
    """(delivered pps, CPU ns per delivered packet of the limiting loops)."""
    opts, loops, _ = CASES[case]
    with tempfile.TemporaryDirectory() as d:
        run_rt([hplane, "run", "--scenario", "stress", "--duration", str(secs),
                "--verify-every", "0", "--quiet", "--out", d] + opts, timeout=120 + 4 * secs)
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        with open(os.path.join(d, "trace.csv")) as f:
            rows = list(csv.DictReader(f))
    if s["dropped_internal"] or s["mbufs_leaked"]:
        raise RuntimeError(f"{hplane}: {case}: internal drops or leaked mbufs: {s}")
    # rows with the kernel's accounting (the first has none), less the
    # first of them (start-up)
    ok = [r for r in rows if min(float(r[f"{lp}_os_cpu"]) for lp in loops) >= 0
          and float(r["delivered_pps"]) > 0][1:]
    if not ok:
        raise RuntimeError(f"{case}: no trace row with the kernel's CPU accounting "
                           f"({len(rows)} rows; run longer)")
    cpu = sum(float(r[f"{lp}_os_cpu"]) for r in ok for lp in loops)
    pk = sum(float(r["delivered_pps"]) for r in ok)
    return s["throughput_mpps"] * 1e6, 1e9 * cpu / pk


def measure(build, case, rounds, secs, log=None):
    """Runs the paired rounds; returns a dict of the per-round values."""
    # both builds from the same sources now (the tree may have changed
    # since either was last built)
    sh(["ninja", "-C", build, "-j2", "apps/hplane/hplane"], timeout=1800)
    on = os.path.join(build, "apps/hplane/hplane")
    off = nocount_build(build)
    res = {"case": case, "what": CASES[case][2], "rounds": rounds, "secs": secs,
           "cmd": "hplane run --scenario stress --duration " + f"{secs:g} --verify-every 0 " +
                  " ".join(CASES[case][0]),
           "with": [], "without": []}
    for i in range(rounds):
        order = [("with", on), ("without", off)]
        if i % 2:
            order.reverse()
        for key, exe in order:
            res[key].append(one_run(exe, case, secs))
        if log:
            w, o = res["with"][-1], res["without"][-1]
            print(f"  {case} round {i + 1}: pps {w[0]:.0f} / {o[0]:.0f}, ns/pkt {w[1]:.1f} / {o[1]:.1f}",
                  file=log, flush=True)
    res["d_pps"] = [w[0] / o[0] - 1 for w, o in zip(res["with"], res["without"])]
    res["d_cpu"] = [w[1] / o[1] - 1 for w, o in zip(res["with"], res["without"])]
    return res


def report(res):
    """Markdown lines for one case."""
    def row(label, xs, sign):
        m, h = ci95(xs)
        return (f"| {label} | {100 * m:+.2f} % | {100 * (m - h):+.2f} % … {100 * (m + h):+.2f} % | "
                f"{100 * statistics.median(xs):+.2f} % | {100 * min(xs):+.1f} … {100 * max(xs):+.1f} % | "
                f"{'yes' if sign * (m + sign * h) <= 0.02 else 'no'} |")
    w = [x for x in res["with"]]
    o = [x for x in res["without"]]
    return [
        f"**{res['case']}** ({res['what']}): `{res['cmd']}`, {res['rounds']} rounds of "
        f"{res['secs']:g} s per build.", "",
        f"Medians: with counters {statistics.median(x[0] for x in w):,.0f} pps, "
        f"{statistics.median(x[1] for x in w):.1f} CPU-ns per packet; compiled out "
        f"{statistics.median(x[0] for x in o):,.0f} pps, {statistics.median(x[1] for x in o):.1f} "
        "CPU-ns per packet.", "",
        "| paired difference, with / without − 1 | mean | 95 % CI of the mean | median | range | "
        "≤ 2 % shown (CI's worst end) |",
        "|---|---|---|---|---|---|",
        row("CPU time per packet (cost: + is dearer)", res["d_cpu"], +1),
        row("delivered pps (cost: − is slower)", res["d_pps"], -1),
        "",
        "Per round, CPU time per packet with / without − 1: " +
        ", ".join(f"{100 * x:+.1f}" for x in res["d_cpu"]) + " %; delivered pps: " +
        ", ".join(f"{100 * x:+.1f}" for x in res["d_pps"]) + " %.", ""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--case", choices=sorted(CASES), action="append")
    ap.add_argument("--json", help="write the per-round values here")
    a = ap.parse_args()
    if a.rounds < 2:
        print("cost.py: --rounds must be at least 2 (a confidence interval needs two)",
              file=sys.stderr)
        return 2
    out = []
    for case in a.case or ["crypto", "null"]:
        try:
            r = measure(os.path.abspath(a.build), case, a.rounds, a.seconds, log=sys.stderr)
        except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
            print(f"cost.py: {e}", file=sys.stderr)
            return 1
        out.append(r)
        print("\n".join(report(r)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
