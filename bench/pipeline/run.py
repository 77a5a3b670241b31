#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pipeline: framework overhead, measured side by side in one run.

1. AES-CTR pipeline throughput with one CPU worker (stress load, sink
   verification off) vs. a bare OpenSSL loop over the same IMIX payloads,
   both on the same CPU (the worker's), alternated `--rounds` times; the
   ratio of medians is the share of the bare loop the pipeline keeps.
2. Dispatch cost: scheduler-lcore busy cycles per packet with the null task.
Writes a markdown table to stdout and, with --record, to bench/results/.
"""
import argparse
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
            return json.load(f)


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
    bare_pps, pipe_pps, cyc = [], [], []
    for _ in range(a.rounds):
        p = subprocess.run(["taskset", "-c", cpu, bare, str(a.seconds)], check=True,
                           capture_output=True, text=True)
        bare_pps.append(json.loads(p.stdout)["pps"])
        s = hplane_run(hplane, "crypto", a.seconds)
        assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
        pipe_pps.append(s["throughput_mpps"] * 1e6)
        n = hplane_run(hplane, "null", a.seconds)
        cyc.append(n["sched_cycles_per_packet"])
    b, p, c = statistics.median(bare_pps), statistics.median(pipe_pps), statistics.median(cyc)
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
