#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reruns the four hplane commands of bench/results/pythia-fig5-DATE.md
(Pythia's Fig. 5 a-d on the modeled pythia-8700k) with their lcore threads
SCHED_FIFO (bench/rtrun.py): on the shared 2-vCPU VM a run without it had the
generator and the modeled devices starved for seconds, which no plot survives.
Writes OUT/{A,B,C,D}/ (summary.json, trace.csv) and OUT/fig5-{a,b,c,d}.png.

usage: fig5.py --hplane build/apps/hplane/hplane --rates DIR --out DIR"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rtrun import ROOT, run_rt  # noqa: E402

DEVS = ["--gpu", "model:pythia-8700k@igpu,scale=100", "--gpu", "model:pythia-8700k@dgpu,scale=100",
        "--sched-param", "platform=pythia-8700k", "--sched-param", "scale=100",
        "--sched-param", "devices=igpu+dgpu", "--imix-sizes", "1500", "--imix-shares", "1",
        "--idle", "sleep"]
# (name, apps, goal args, rate trace, capacity pps, seconds): the record's (a)-(d)
RUNS = [
    ("a", ["--app", "vpn"], ["--goal", "min-energy"], "rate_a.txt", 20000, 15),
    ("c", ["--app", "vpn"], ["--goal", "max-throughput", "--goal-at", "10:min-power"],
     "rate_c.txt", 30000, 20),
    ("b", ["--apps", "vpn:0.5,ids:0.5"], ["--goal", "min-energy"], "rate_a.txt", 20000, 15),
    ("d", ["--apps", "vpn:0.5,ids:0.5"], ["--goal", "max-throughput", "--goal-at", "10:min-power"],
     "rate_c.txt", 30000, 20),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hplane", default=os.path.join(ROOT, "build/apps/hplane/hplane"))
    ap.add_argument("--rates", required=True, help="folder with rate_a.txt and rate_c.txt")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="abcd", help="which of a-d to run")
    ap.add_argument("--no-rt", action="store_true", help="leave the lcores SCHED_OTHER")
    args = ap.parse_args()
    if not args.only or set(args.only) - set("abcd"):
        ap.error(f"--only {args.only!r}: letters of abcd")
    for rate in ("rate_a.txt", "rate_c.txt"):
        if not os.path.isfile(os.path.join(args.rates, rate)):
            ap.error(f"--rates {args.rates!r}: no {rate}")
    os.makedirs(args.out, exist_ok=True)
    for name, apps, goal, rate, cap, dur in RUNS:
        if name not in args.only:
            continue
        out = os.path.join(args.out, name.upper())
        cmd = [args.hplane, "run"] + apps + DEVS + goal + [
            "--trace", os.path.join(args.rates, rate), "--capacity", str(cap),
            "--duration", str(dur), "--out", out]
        try:
            _, note = run_rt(cmd, dur + 120, rt=not args.no_rt,
                             log=os.path.join(args.out, f"{name}.log"))
        except RuntimeError as e:
            sys.exit(f"fig5 {name}: {e}")
        print(f"({name}) {note}: {' '.join(cmd[1:])}")
        plot = [sys.executable, os.path.join(ROOT, "tools/pythia_fig5_plot.py"),
                os.path.join(out, "trace.csv"), os.path.join(args.out, f"fig5-{name}.png"),
                "--scale", "100"]
        subprocess.run(plot, check=True)


if __name__ == "__main__":
    main()
