#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/scale: scheduler lcores (--sched-lcores N, issue 27) side by side
in one run. For the null and crypto apps and each N (--lcores-list, 1 2 4
by default), hplane run over the generator at the stress scenario (offered
above the calibrated capacity), the generator sending delivered frames
again (--gen-recycle) so that building frames does not take the CPUs the
schedulers need; rounds interleaved ABBA over the N so that a noisy host's
slow spells fall on all of them. Per N: delivered Mpps (median over the
rounds), its ratio to N = 1, and per scheduler lcore the received packets'
share, busy share and cycles a packet (the run's dispatch cost, from the
lcore thread's CPU time: summary.json sched_lcores) with the way in (rx
poll to the device rings). Where the machine has fewer CPUs than polling
lcores, lcores share CPUs (the default --lcores map puts the schedulers
with main and traffic on CPU 0 there, yielding when idle): then N > 1 only
adds lcores to one CPU and the ratio says what that costs, not what a
core each would give. No real-time threads (SCHED_FIFO lcores that share
a CPU with a spinning one would starve it). Writes a markdown table to
stdout and, with --record, to bench/results/scale-<date>.md.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rtrun import run_summary  # noqa: E402


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for ln in out.splitlines():
            if ln.startswith("Model name:"):
                return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--apps", default="null,crypto")
    ap.add_argument("--lcores-list", default="1,2,4")
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    if a.rounds < 1 or not 0 < a.seconds <= 600:
        sys.exit("bench/scale: --rounds >= 1, --seconds in (0, 600]")
    try:
        ns = [int(x) for x in a.lcores_list.split(",")]
        assert ns and all(1 <= n <= 8 for n in ns)
    except (ValueError, AssertionError):
        sys.exit("bench/scale: --lcores-list: scheduler lcore counts 1..8, e.g. 1,2,4")
    apps = a.apps.split(",")
    hplane = os.path.join(a.build, "apps/hplane/hplane")
    res = {(app, n): [] for app in apps for n in ns}
    for r in range(a.rounds):
        for app in apps:
            for n in (ns if r % 2 == 0 else ns[::-1]):
                cmd = [hplane, "run", "--app", app, "--scenario", "stress",
                       "--duration", str(a.seconds), "--verify-every", "0", "--quiet",
                       "--gen-recycle", "--idle", "yield", "--sched-lcores", str(n)]
                s = run_summary(cmd, a.seconds, False, "bench/scale")
                assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0, s
                res[(app, n)].append(s)
    lines = [f"# bench/scale: scheduler lcores, {datetime.datetime.now():%Y-%m-%d %H:%M}", "",
             f"Machine: {cpu_model()}, {os.cpu_count()} CPUs (shared with other work: "
             "numbers are noisy, read the ratios).", "",
             f"Command: `python3 bench/scale/run.py --apps {a.apps} --lcores-list "
             f"{a.lcores_list} --seconds {a.seconds} --rounds {a.rounds}`", "",
             "| app | sched lcores | Mpps (median) | vs 1 | per lcore: rx share, busy, "
             "cycles/pkt (way in) |",
             "|---|---|---|---|---|"]
    for app in apps:
        base = None
        for n in ns:
            runs = res[(app, n)]
            mpps = statistics.median(s["throughput_mpps"] for s in runs)
            if n == ns[0]:
                base = mpps
            last = runs[-1]["sched_lcores"]
            rx = sum(l["received"] for l in last) or 1
            per = "; ".join(
                f"{100 * l['received'] / rx:.0f} %, {l['busy_pct'] or 0:.0f} %, "
                f"{l['cycles_per_packet'] or 0:.0f} ({l['in_cycles_per_packet'] or 0:.0f})"
                for l in last)
            lines.append(f"| {app} | {n} | {mpps:.3f} | {mpps / base if base else 0:.2f} | "
                         f"{per} |")
    lines += ["", "Per lcore: the last round's run. Mpps: delivered over the measured "
              "phase, median over the rounds."]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.record:
        path = os.path.join(ROOT, "bench/results", f"scale-{datetime.date.today()}.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"written {path}")


if __name__ == "__main__":
    main()
