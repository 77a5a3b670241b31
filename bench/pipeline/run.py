#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pipeline: framework overhead, measured side by side in one run.

1. AES-CTR pipeline throughput with one CPU worker (stress load, sink
   verification off) vs. a bare OpenSSL loop over the same IMIX payloads,
   both on the same CPU (the worker's), alternated `--rounds` times; the
   ratio of medians is the share of the bare loop the pipeline keeps.
   Also TSC cycles per packet of the bare loop against the worker loop's
   (lib/load counters in trace.csv): the framework cost on the worker's
   core, apart from the scheduler and generator that share the other core
   on a 2-CPU machine.
2. Dispatch cost: scheduler-lcore busy cycles per packet with the null task.
Writes a markdown table to stdout and, with --record, to bench/results/.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def hplane_run(hplane, app, secs, extra=()):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([hplane, "run", "--app", app, "--scenario", "stress", "--duration",
                        str(secs), "--verify-every", "0", "--quiet", "--out", d] + list(extra),
                       check=True, capture_output=True, text=True)
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        with open(os.path.join(d, "trace.csv")) as f:
            s["_trace"] = list(csv.DictReader(f))
        return s


def worker_cycles(s):
    """TSC cycles per packet on the worker's loop (lib/load's counters in
    trace.csv: busy cycles / packets, per second, median): the framework
    + task cost on the worker's own core, free of what limits the whole
    pipeline on a small machine (the scheduler and the generator sharing
    the other core)."""
    vals = [float(r["cpu0_cyc_per_item"]) for r in s["_trace"]
            if float(r.get("cpu0_cyc_per_item") or 0) > 0]
    return statistics.median(vals) if vals else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    hplane = os.path.join(a.build, "apps/hplane/hplane")
    bare = os.path.join(a.build, "bench/bare_ctr")
    cpu = "1" if os.cpu_count() > 1 else "0"  # hplane puts worker 0 there
    bare_pps, pipe_pps, cyc, wcyc, bcyc = [], [], [], [], []
    for _ in range(a.rounds):
        p = subprocess.run(["taskset", "-c", cpu, bare, str(a.seconds)], check=True,
                           capture_output=True, text=True)
        bare_pps.append(json.loads(p.stdout)["pps"])
        bcyc.append(json.loads(p.stdout)["tsc_cycles_per_pkt"])
        s = hplane_run(hplane, "crypto", a.seconds)
        assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
        pipe_pps.append(s["throughput_mpps"] * 1e6)
        wcyc.append(worker_cycles(s))
        n = hplane_run(hplane, "null", a.seconds)
        cyc.append(n["sched_cycles_per_packet"])
    b, p, c = statistics.median(bare_pps), statistics.median(pipe_pps), statistics.median(cyc)
    w, bc = statistics.median(wcyc), statistics.median(bcyc)
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    lines = [
        f"# bench/pipeline — {date}",
        "",
        f"machine: {platform.node()} ({os.cpu_count()} CPUs, {platform.processor() or platform.machine()}), "
        f"command: `python3 bench/pipeline/run.py --seconds {a.seconds} --rounds {a.rounds}`",
        "",
        "| measure | median | rounds |",
        "|---|---|---|",
        f"| bare OpenSSL AES-128-CTR loop, IMIX, 1 core (pps) | {b:,.0f} | {', '.join(f'{x:,.0f}' for x in bare_pps)} |",
        f"| hplane crypto, 1 CPU worker, stress (pps delivered) | {p:,.0f} | {', '.join(f'{x:,.0f}' for x in pipe_pps)} |",
        f"| **pipeline / bare** (goal >= 0.90) | **{p / b:.3f}** | |",
        f"| bare loop, TSC cycles/packet | {bc:,.0f} | {', '.join(f'{x:,.0f}' for x in bcyc)} |",
        f"| pipeline worker loop, TSC cycles/packet (trace.csv cpu0_cyc_per_item) | {w:,.0f} | {', '.join(f'{x:,.0f}' for x in wcyc)} |",
        f"| **bare / worker cycles**: share of the worker's core the task gets | **{bc / w if w else 0:.3f}** | |",
        f"| scheduler lcore cycles/packet, null task (goal <= 100) | {c:.0f} | {', '.join(f'{x:.0f}' for x in cyc)} |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if a.record:
        path = os.path.join(ROOT, "bench/results",
                            f"pipeline-{datetime.date.today().isoformat()}.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"recorded in {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
