#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pipeline: framework overhead, measured side by side in one run.

1. AES-CTR pipeline throughput with one CPU worker (offered far above
   capacity, sink verification off) vs. a bare OpenSSL loop over the same
   IMIX payloads, both on the same CPU (the worker's), alternated
   `--rounds` times; the ratio of medians is the share of the bare loop the
   pipeline keeps (the issue's measure).
2. The same per packet on the worker's core, from CPU time: the worker
   thread's CPU time (/proc/PID/task/TID/schedstat, which leaves out the
   time other tenants of a shared machine took) x the share of its loop
   time that found work x the TSC rate / packets,
   against the bare loop's CPU time per packet. On a 2-CPU machine the
   scheduler and the generator share the other CPU and may limit (1); (2)
   is the framework's cost where the task runs.
3. Dispatch cost with the null task: the scheduler thread's CPU time x the
   share of its loop time that found work / packets (hplane's summary,
   sched_cycles_per_packet), at the highest rate the run reaches.
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
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def thread_cpu_ns(pid):
    """{thread name: CPU ns so far} for a running process (schedstat's first
    field is the time on a CPU, in ns)."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        out[name] = max(ns, out.get(name, 0))
    return out


def hplane_run(hplane, app, secs, extra=()):
    """Runs hplane; returns its summary with the last CPU time seen per
    thread (sampled every 50 ms while it runs) under "_cpu_ns"."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [hplane, "run", "--app", app, "--scenario", "stress", "--duration", str(secs),
               "--verify-every", "0", "--quiet", "--out", d] + list(extra)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cpu = {}
        while p.poll() is None:
            for k, v in thread_cpu_ns(p.pid).items():
                cpu[k] = max(v, cpu.get(k, 0))
            time.sleep(0.05)
        out, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"bench/pipeline: {' '.join(cmd)} failed: {err.strip() or out.strip()}")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        s["_cpu_ns"] = cpu
        return s


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
    rows = {k: [] for k in ("bare_pps", "pipe_pps", "bare_cyc", "work_cyc", "disp", "disp_pps")}
    load0 = os.getloadavg()[0]
    for _ in range(a.rounds):
        p = subprocess.run(["taskset", "-c", cpu, bare, str(a.seconds)], check=True,
                           capture_output=True, text=True)
        b = json.loads(p.stdout)
        hz = b["tsc_cycles_per_pkt"] * b["pps"]  # TSC ticks per second
        rows["bare_pps"].append(b["pps"])
        rows["bare_cyc"].append(b["cpu_cycles_per_pkt"])
        # Offered far above what one worker can do (no calibration:
        # the capacity is the bare loop's rate, stress offers twice it).
        s = hplane_run(hplane, "crypto", a.seconds, ["--capacity", str(int(b["pps"]))])
        assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
        rows["pipe_pps"].append(s["throughput_mpps"] * 1e6)
        # EAL names the worker lcore's thread rte-worker-1 (lcore 1 = device 0)
        # x the share of its loop time that had work: its idle polls are
        # not a cost of the packets (the scheduler's figure does the same)
        wns = s["_cpu_ns"].get("rte-worker-1", 0) * s["devices"][0]["busy_pct"] / 100
        rows["work_cyc"].append(wns * 1e-9 * hz / s["packets_delivered"]
                                if s["packets_delivered"] else 0)
        n = hplane_run(hplane, "null", a.seconds)
        rows["disp"].append(n["sched_cycles_per_packet"])
        rows["disp_pps"].append(n["throughput_mpps"] * 1e6)
    med = {k: statistics.median(v) for k, v in rows.items()}
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")

    def cells(k, fmt="{:,.0f}"):
        return ", ".join(fmt.format(x) for x in rows[k])

    lines = [
        f"# bench/pipeline — {date}",
        "",
        f"machine: {platform.node()} ({os.cpu_count()} CPUs, {platform.processor() or platform.machine()}), "
        f"load average {load0:.1f} at the start, "
        f"command: `python3 bench/pipeline/run.py --seconds {a.seconds} --rounds {a.rounds}`",
        "",
        "| measure | median | rounds |",
        "|---|---|---|",
        f"| bare OpenSSL AES-128-CTR loop, IMIX, CPU {cpu} (pps) | {med['bare_pps']:,.0f} | {cells('bare_pps')} |",
        f"| hplane crypto, 1 CPU worker on CPU {cpu}, offered 2x the bare rate (pps delivered) | {med['pipe_pps']:,.0f} | {cells('pipe_pps')} |",
        f"| **pipeline / bare** (goal >= 0.90) | **{med['pipe_pps'] / med['bare_pps']:.3f}** | |",
        f"| bare loop, cycles/packet of its CPU time | {med['bare_cyc']:,.0f} | {cells('bare_cyc')} |",
        f"| worker thread, cycles/packet of its CPU time | {med['work_cyc']:,.0f} | {cells('work_cyc')} |",
        f"| **bare / worker cycles**: the pipeline on the worker's core | **{med['bare_cyc'] / med['work_cyc'] if med['work_cyc'] else 0:.3f}** | |",
        f"| scheduler lcore, null task: cycles/packet of its CPU time while busy (goal <= 100) | {med['disp']:.0f} | {cells('disp')} |",
        f"| ... at this rate (pps delivered) | {med['disp_pps']:,.0f} | {cells('disp_pps')} |",
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
