#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/pipeline: framework overhead, measured side by side in one run.

1. AES-CTR pipeline throughput with one CPU worker (offered far above
   capacity, sink verification off) vs. a bare loop of the same kernel over
   the same IMIX payloads, both on the same CPU (the worker's), per kernel
   (--kernels): `evp`, OpenSSL a packet (aes_ctr --param impl=evp, issue
   20's measure), `mb`, intel-ipsec-mb's burst API (the task's default,
   issue 28's), and `base`, another build's hplane and bare loop
   (--base-build, e.g. main before a change: "today's"). The kernels run
   interleaved ABBA (round r takes them in order, round r+1 reversed) so
   that a noisy host's slow spells fall on all of them; per kernel the
   ratio of each round's pair, and its distribution over the rounds
   (min/median/max, spread = (max - min) / median, rounds in a slow mode:
   the worker's cycles a packet above 1.4x its fastest round). The
   generator sends delivered frames again (--gen-recycle), like a NIC that
   costs the host nothing: on a 2-CPU machine building every frame (~500
   cycles) on the CPU the scheduler shares would limit the pipeline
   instead of the worker; that run is reported with --with-gen.
2. The same per packet on the worker's core, from CPU time: per trace row,
   the share of the second the worker thread ran and had work (os_cpu from
   the kernel's accounting, b_busy from its own counters) x the TSC rate /
   packets delivered, median over rows,
   against the bare loop's CPU time per packet. On a 2-CPU machine the
   scheduler and the generator share the other CPU and may limit (1); (2)
   is the framework's cost where the task runs.
3. Dispatch cost with the null task: the same for the scheduler lcore, at
   the highest rate the run reaches; dispatch is the way in (rx poll,
   classify, policy, ring to the device), reported beside the lcore's
   whole cost, which also carries the way back (completions, reorder,
   latency metrics, tx).
The timed threads (the bare loop; hplane's lcores) run SCHED_FIFO so other
tenants of a shared machine do not take their CPUs (bench/rtrun.py;
--no-rt to not); hplane's lcores that share a CPU yield when idle.
Writes a markdown table to stdout and, with --record, to bench/results/.

--telemetry-ab measures instead what reading the run's telemetry costs the
data path: (1) and (3) with no reader, with a reader that asks every
/heteroplane/ command every 100 ms (what tools/hp_exporter.py asks at each
scrape, ten scrapes a second) and with a control reader that asks DPDK's
/info as often, the three in a rotated order each round; ratios of medians.
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
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rtrun import report, run_summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tel_reader(full, period=0.1):
    """on_start for run_summary: a thread that, from the socket's appearance
    to the run's end, every period seconds opens a connection and asks
    every /heteroplane/ command (full) or, for the control arm, DPDK's own
    /info as many times (the same socket and thread work, no pipeline
    counter read); the count of complete readings per run is kept."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from hp_exporter import Telemetry, read_instance, runtime_dir

    def control(path):
        tel = Telemetry(path)
        try:
            return [tel.ask("/info") for _ in range(9)]
        finally:
            tel.close()

    def start(pid):
        path = os.path.join(runtime_dir(), f"hplane{pid}", "dpdk_telemetry.v2")
        stop, got = threading.Event(), []

        def loop():
            while not stop.is_set():
                t = time.monotonic()
                try:
                    if os.path.exists(path) and (read_instance(path) if full else control(path)):
                        got.append(t)
                except (OSError, ValueError):
                    pass
                stop.wait(max(0.0, period - (time.monotonic() - t)))
        th = threading.Thread(target=loop, daemon=True)
        th.start()

        def end():
            stop.set()
            th.join()
            start.readings.append(len(got))
        return end
    start.readings = []
    return start


def hplane_run(hplane, app, secs, extra=(), rt=True, on_start=None):
    """Runs hplane (lcore threads in SCHED_FIFO unless rt is False, see
    bench/rtrun.py); returns its summary with the trace rows under "_trace"
    and the real-time note under "_rt"."""
    def trace(d, s):
        with open(os.path.join(d, "trace.csv")) as f:
            s["_trace"] = list(csv.DictReader(f))

    cmd = [hplane, "run", "--app", app, "--scenario", "stress", "--duration", str(secs),
           "--verify-every", "0", "--quiet"] + list(extra)
    return run_summary(cmd, secs, rt, "bench/pipeline", also=trace, on_start=on_start)


def loop_cycles(s, loop, hz):
    """Cycles per delivered packet a loop spent, per trace row (one a
    second, measured phase only), median: the share of the row its thread
    ran (os_cpu, the kernel's accounting) and had work (b_busy, its own
    TSC count; the smaller of the two) x TSC rate / packets delivered."""
    vals = []
    for r in s["_trace"]:
        pps = float(r["delivered_pps"])
        busy = min(float(r[f"{loop}_os_cpu"]), float(r[f"{loop}_b_busy"]))
        if pps > 0 and busy >= 0:  # os_cpu is -1 where unknown (first row)
            vals.append(busy * hz / pps)
    return statistics.median(vals) if vals else 0.0


def in_share(s):
    """The scheduler's way-in share of its busy time (trace column
    sched_in_pct: rx poll to the device rings), median over the rows."""
    vals = [float(r["sched_in_pct"]) / 100 for r in s["_trace"]
            if "sched_in_pct" in r and float(r["delivered_pps"]) > 0]
    return statistics.median(vals) if vals else 0.0


def spread(v):
    """(max - min) / median of v."""
    m = statistics.median(v)
    return (max(v) - min(v)) / m if m else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--base-build", default="",
                    help="build folder of the `base` kernel (another checkout's hplane and bare_ctr)")
    ap.add_argument("--kernels", default="evp,mb",
                    help="comma-separated: evp, mb, base (needs --base-build)")
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--slow", type=float, default=1.4,
                    help="a round is in a slow mode when the worker's cycles a packet exceed this x its fastest")
    ap.add_argument("--with-gen", action="store_true",
                    help="also run each kernel with the generator building every frame")
    ap.add_argument("--no-null", action="store_true", help="leave out the dispatch (null task) runs")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--tag", default="",
                    help="suffix of the record's name (bench/results/pipeline-DATE<tag>.md)")
    ap.add_argument("--no-rt", action="store_true",
                    help="normal scheduling (default: SCHED_FIFO for the timed threads)")
    ap.add_argument("--hplane-args", default="",
                    help="more `hplane run` options for both pipeline runs, e.g. '--ring-size 256'")
    ap.add_argument("--telemetry-ab", action="store_true",
                    help="the cost of a telemetry reader polling every 100 ms: runs with and "
                         "without it, interleaved")
    a = ap.parse_args()
    if a.telemetry_ab:
        return telemetry_ab(a)
    kernels = [k for k in a.kernels.split(",") if k]
    for k in kernels:
        if k not in ("evp", "mb", "base") or (k == "base" and not a.base_build):
            sys.exit(f"bench/pipeline: unknown kernel {k!r} (evp, mb, base with --base-build)")
    if a.rounds < 1 or not 0 < a.seconds <= 600:
        sys.exit("bench/pipeline: --rounds >= 1, --seconds in (0, 600]")

    def binaries(k):
        b = a.base_build if k == "base" else a.build
        return (os.path.join(b, "apps/hplane/hplane"), os.path.join(b, "bench/bare_ctr"),
                [] if k == "base" else ["--param", f"impl={k}"], "mb" if k == "mb" else "evp")

    cpu = "1" if os.cpu_count() > 1 else "0"  # hplane puts worker 0 there
    keys = ("bare_pps", "pipe_pps", "gen_pps", "bare_cyc", "work_cyc", "ratio", "cyc_ratio")
    rows = {k: {key: [] for key in keys} for k in kernels}
    disp = {key: [] for key in ("disp", "disp_sum", "disp_pps", "disp_in")}
    load0 = os.getloadavg()[0]
    loads = []
    rtnote = ""
    order_log = []
    for r in range(a.rounds):
        order = kernels if r % 2 == 0 else kernels[::-1]
        order_log.append("".join(k[0].upper() for k in order))
        loads.append(os.getloadavg()[0])
        for k in order:
            hplane, bare, param, bk = binaries(k)
            row = rows[k]
            pre = ["taskset", "-c", cpu] + ([] if a.no_rt else ["chrt", "-f", "1"])
            p = subprocess.run(pre + [bare, str(a.seconds)] + ([bk] if k != "base" else []),
                               check=True, capture_output=True, text=True)
            b = json.loads(p.stdout)
            hz = b["tsc_cycles_per_pkt"] * b["pps"]  # TSC ticks per second
            row["bare_pps"].append(b["pps"])
            row["bare_cyc"].append(b["cpu_cycles_per_pkt"])
            # Offered far above what one worker can do (no calibration:
            # the capacity is the bare loop's rate, stress offers twice it).
            common = ["--capacity", str(int(b["pps"])), "--idle", "yield"] + param \
                + a.hplane_args.split()
            s = hplane_run(hplane, "crypto", a.seconds, common + ["--gen-recycle"],
                           rt=not a.no_rt)
            assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
            row["pipe_pps"].append(s["throughput_mpps"] * 1e6)
            # EAL names the worker lcore's thread rte-worker-1 (lcore 1 = device 0)
            row["work_cyc"].append(loop_cycles(s, "cpu0", hz))
            row["ratio"].append(row["pipe_pps"][-1] / row["bare_pps"][-1])
            row["cyc_ratio"].append(row["bare_cyc"][-1] / row["work_cyc"][-1]
                                    if row["work_cyc"][-1] else 0.0)
            rtnote = s["_rt"]
            if a.with_gen:
                g = hplane_run(hplane, "crypto", a.seconds, common, rt=not a.no_rt)
                assert g["dropped_internal"] == 0 and g["mbufs_leaked"] == 0
                row["gen_pps"].append(g["throughput_mpps"] * 1e6)
        if not a.no_null:
            n = hplane_run(binaries(kernels[0])[0], "null", a.seconds,
                           ["--idle", "yield", "--gen-recycle"] + a.hplane_args.split(),
                           rt=not a.no_rt)
            disp["disp"].append(loop_cycles(n, "sched", hz))
            disp["disp_in"].append(disp["disp"][-1] * in_share(n))
            disp["disp_sum"].append(n["sched_cycles_per_packet"])
            disp["disp_pps"].append(n["throughput_mpps"] * 1e6)
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    cpu_model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu_model = next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        pass

    def cells(v, fmt="{:,.0f}"):
        return ", ".join(fmt.format(x) for x in v)

    def dist(v, fmt="{:,.0f}"):
        return (f"{fmt.format(min(v))} / {fmt.format(statistics.median(v))} / "
                f"{fmt.format(max(v))} | {spread(v):.1%}")

    name = {"evp": "OpenSSL EVP (impl=evp)", "mb": "intel-ipsec-mb burst (impl=mb)",
            "base": f"base build {a.base_build} (OpenSSL)"}
    cmd = (f"python3 bench/pipeline/run.py --seconds {a.seconds} --rounds {a.rounds} "
           f"--kernels {a.kernels}" + (f" --base-build {a.base_build}" if a.base_build else "")
           + (f" --tag {a.tag}" if a.tag else "") + (" --no-rt" if a.no_rt else "")
           + (" --with-gen" if a.with_gen else "") + (" --no-null" if a.no_null else "")
           + (f" --hplane-args '{a.hplane_args}'" if a.hplane_args else ""))
    lines = [
        f"# bench/pipeline — {date}",
        "",
        f"machine: {platform.node()} ({os.cpu_count()} CPUs, {cpu_model}), "
        f"load average {load0:.1f} at the start ({cells(loads, '{:.1f}')} at each round), "
        f"command: `{cmd}`; "
        + ("normal scheduling" if a.no_rt else
           f"bare loop and hplane lcores SCHED_FIFO ({rtnote})")
        + f"; kernels interleaved ABBA, round orders {' '.join(order_log)}.",
        "",
        f"Per kernel, each round's pair (the bare loop of that kernel on CPU {cpu}, then hplane "
        "crypto with one CPU worker there, offered 2x the bare rate, the generator recycling "
        f"frames). A slow round: worker cycles/packet > {a.slow}x the kernel's fastest round.",
        "",
        "| kernel | measure | min / median / max | spread | rounds |",
        "|---|---|---|---|---|",
    ]
    for k in kernels:
        v = rows[k]
        fast = min(x for x in v["work_cyc"] if x > 0) if any(v["work_cyc"]) else 0
        slow = sum(1 for x in v["work_cyc"] if fast and x > a.slow * fast)
        lines += [
            f"| {name[k]} | bare loop (pps) | {dist(v['bare_pps'])} | {cells(v['bare_pps'])} |",
            f"| | hplane crypto (pps delivered) | {dist(v['pipe_pps'])} | {cells(v['pipe_pps'])} |",
            f"| | **pipeline / bare**, each round's pair | **{dist(v['ratio'], '{:.3f}')}** | "
            f"{cells(v['ratio'], '{:.3f}')} |",
            f"| | bare loop, cycles/packet of its CPU time | {dist(v['bare_cyc'])} | {cells(v['bare_cyc'])} |",
            f"| | worker thread, cycles/packet of its CPU time | {dist(v['work_cyc'])} | "
            f"{cells(v['work_cyc'])} |",
            f"| | **bare / worker cycles**, each round's pair | **{dist(v['cyc_ratio'], '{:.3f}')}** | "
            f"{cells(v['cyc_ratio'], '{:.3f}')} |",
            f"| | rounds in a slow mode | {slow} of {len(v['work_cyc'])} | | |",
        ]
        if a.with_gen:
            lines.append(f"| | the generator building every frame (pps delivered) | "
                         f"{dist(v['gen_pps'])} | {cells(v['gen_pps'])} |")
    for k in kernels:
        for j in kernels:
            if k != j and (j == "base" or (j == "evp" and k == "mb")):
                lines.append(f"| {k} vs {j} | hplane crypto pps, median {k} / median {j} | "
                             f"{statistics.median(rows[k]['pipe_pps']) / statistics.median(rows[j]['pipe_pps']):.2f}x"
                             f" | | |")
                lines.append(f"| {k} vs {j} | worker cycles/packet, median {j} / median {k} | "
                             f"{statistics.median(rows[j]['work_cyc']) / statistics.median(rows[k]['work_cyc']):.2f}x"
                             f" | | |")
    if disp["disp"]:
        lines += [
            f"| null task | scheduler lcore: cycles/packet of its CPU time while busy, way in and way back | "
            f"{dist(disp['disp'])} | {cells(disp['disp'])} |",
            f"| | ... of it the way in = **dispatch**: rx poll, classify, policy, rings (goal <= 100) | "
            f"{dist(disp['disp_in'])} | {cells(disp['disp_in'])} |",
            f"| | ... the same over the whole run (summary.json sched_cycles_per_packet) | "
            f"{dist(disp['disp_sum'])} | {cells(disp['disp_sum'])} |",
            f"| | ... at this rate (pps delivered) | {dist(disp['disp_pps'])} | {cells(disp['disp_pps'])} |",
        ]
    lines.append("")
    report("\n".join(lines), "pipeline", a.tag, a.record)


def telemetry_ab(a):
    """The pipeline runs of (1) and (3) with no reader, with a control
    reader (DPDK's /info at the same pace: the socket, the telemetry thread
    and the reader's own CPU, no pipeline counter read) and with the full
    reader, the arms in a rotated order each round so that a drift of the
    machine's load falls on all alike."""
    hplane = os.path.join(a.build, "apps/hplane/hplane")
    bare = os.path.join(a.build, "bench/bare_ctr")
    cpu = "1" if os.cpu_count() > 1 else "0"
    arms = ("none", "info", "full")
    rows = {(k, arm): [] for k in ("pipe_pps", "work_cyc", "disp", "disp_pps") for arm in arms}
    readers = {"none": None, "info": tel_reader(False), "full": tel_reader(True)}
    load0 = os.getloadavg()[0]
    pre = ["taskset", "-c", cpu] + ([] if a.no_rt else ["chrt", "-f", "1"])
    p = subprocess.run(pre + [bare, "1"], check=True, capture_output=True, text=True)
    b = json.loads(p.stdout)
    hz = b["tsc_cycles_per_pkt"] * b["pps"]
    common = ["--capacity", str(int(b["pps"])), "--idle", "yield"] + a.hplane_args.split()
    for rnd in range(a.rounds):
        for arm in arms[rnd % 3:] + arms[:rnd % 3]:
            hook = readers[arm]
            s = hplane_run(hplane, "crypto", a.seconds, common + ["--gen-recycle"],
                           rt=not a.no_rt, on_start=hook)
            assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0
            rows["pipe_pps", arm].append(s["throughput_mpps"] * 1e6)
            rows["work_cyc", arm].append(loop_cycles(s, "cpu0", hz))
            n = hplane_run(hplane, "null", a.seconds,
                           ["--idle", "yield", "--gen-recycle"] + a.hplane_args.split(),
                           rt=not a.no_rt, on_start=hook)
            rows["disp", arm].append(loop_cycles(n, "sched", hz))
            rows["disp_pps", arm].append(n["throughput_mpps"] * 1e6)
    med = {k: statistics.median(v) for k, v in rows.items()}
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")

    def line(what, k, fmt="{:,.0f}", better="higher"):
        def cell(arm):
            return f"{fmt.format(med[k, arm])} ({', '.join(fmt.format(x) for x in rows[k, arm])})"

        def ratio(x, y):
            return f"{med[k, x] / med[k, y]:.3f}" if med[k, y] else "-"
        return (f"| {what} ({better} is better) | {cell('none')} | {cell('info')} | {cell('full')} "
                f"| **{ratio('full', 'info')}** | {ratio('full', 'none')} |")

    cmd = (f"python3 bench/pipeline/run.py --telemetry-ab --seconds {a.seconds} --rounds {a.rounds}"
           + (" --no-rt" if a.no_rt else "")
           + (f" --hplane-args '{a.hplane_args}'" if a.hplane_args else ""))
    text = "\n".join([
        f"# bench/pipeline --telemetry-ab — {date}",
        "",
        f"machine: {platform.node()} ({os.cpu_count()} CPUs, {platform.processor() or platform.machine()}), "
        f"load average {load0:.1f} at the start; command: `{cmd}`; "
        + ("normal scheduling" if a.no_rt else "hplane lcores SCHED_FIFO") + ".",
        "Readers, every 100 ms over a fresh connection: *full* asks every /heteroplane/ "
        "command and /heteroplane/lcore/load (tools/hp_exporter.py's read_instance, what a "
        "scrape asks), *info* asks DPDK's /info as many times (control: the same socket, "
        "telemetry thread and reader CPU, no pipeline counter read). Complete readings per "
        f"run: info {', '.join(map(str, readers['info'].readings))}; "
        f"full {', '.join(map(str, readers['full'].readings))}.",
        "",
        "| measure, median (rounds) | no reader | info reader | full reader | **full / info**: reading the counters | full / none: everything, the reader's CPU too |",
        "|---|---|---|---|---|---|",
        line("crypto, 1 CPU worker, offered 2x, generator recycling: pps delivered", "pipe_pps"),
        line("... worker thread cycles/packet", "work_cyc", better="lower"),
        line("null: scheduler lcore cycles/packet (busy CPU time)", "disp", better="lower"),
        line("null: pps delivered", "disp_pps"),
        "",
    ])
    report(text, "telemetry-cost", a.tag, a.record)

if __name__ == "__main__":
    main()
