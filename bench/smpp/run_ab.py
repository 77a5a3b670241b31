#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Interleaved A/B runs of bench_smpp (one thread) over several builds.

On a shared machine one run of each build says little: the load moves
between runs by more than the builds differ. This runs them round by
round, the order rotated each round, and reports per configuration the
median over the rounds with its range and, against the first build, the
median of the per-round ratios with their range (the run-to-run spread):

  python3 bench/smpp/run_ab.py --builds before=build-a,after=build-b \\
      --rounds 10 --secs 0.5 [--sizes 1000,10000] [--out FILE]

Three figures per configuration: PDUs/s of the median call, PDUs per
CPU-second of the median call (leaves out time other processes held the
core) and PDUs/s of the fastest call (the least disturbed; the bare
decoder's fastest 100k-PDU pass).
"""
import argparse
import os
import statistics as st
import subprocess
import sys


def run(exe, sizes, secs):
    out = subprocess.run([exe, "-b", sizes, "-t", "1", "-s", secs], check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) < 9 or not c[1].isdigit():
            continue
        n = int(c[1])
        rows.append(dict(key=(c[0], n), med=float(c[3]),
                         cpu=None if c[8] == "-" else float(c[8]),
                         best=None if c[7] == "-" else n / (float(c[7]) / 1e3)))
    return rows


def table(res, labels, field, title):
    ref = labels[0]
    keys = []
    for r in res:
        if r["key"] not in keys:
            keys.append(r["key"])
    lines = ["### %s" % title, "",
             "| form | batch | " + " | ".join(labels) + " | " +
             " | ".join("%s / %s" % (b, ref) for b in labels[1:]) + " |",
             "|---|---:|" + "---:|" * (2 * len(labels) - 1)]
    for k in keys:
        v = {b: {r["round"]: r[field] for r in res
                 if r["build"] == b and r["key"] == k and r[field] is not None}
             for b in labels}
        if not v[ref]:
            continue
        cells = []
        for b in labels:
            x = sorted(v[b].values())
            cells.append("%.2f [%.2f-%.2f]" % (st.median(x) / 1e6, x[0] / 1e6, x[-1] / 1e6))
        for b in labels[1:]:
            q = sorted(v[b][i] / v[ref][i] for i in v[b] if i in v[ref])
            cells.append("%.2f [%.2f-%.2f]" % (st.median(q), q[0], q[-1]))
        lines.append("| %s | %d | " % k + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builds", required=True,
                    help="LABEL=BUILD_DIR,... (the first is the reference)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--secs", default="0.5")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--out")
    a = ap.parse_args()
    builds = []
    for item in a.builds.split(","):
        label, _, path = item.rpartition("=")
        builds.append((label or os.path.basename(path.rstrip("/")),
                       os.path.join(path, "bench", "smpp", "bench_smpp")))
    for _, exe in builds:
        if not os.access(exe, os.X_OK):
            sys.exit("run_ab: %s not built" % exe)
    labels = [b for b, _ in builds]
    res, loads = [], []
    for r in range(a.rounds):
        k = r % len(builds)
        for label, exe in builds[k:] + builds[:k]:
            loads.append(os.getloadavg()[0])
            for row in run(exe, a.sizes, a.secs):
                res.append(dict(row, round=r, build=label))
            print("round %d: %s" % (r, label), file=sys.stderr, flush=True)
    text = ("%d rounds, `bench_smpp -b %s -t 1 -s %s` per build and round, the order "
            "rotated each round; load average %.1f-%.1f. M PDUs/s: median over the rounds "
            "[min-max]; against %s: median of the per-round ratios [min-max].\n\n"
            % (a.rounds, a.sizes, a.secs, min(loads), max(loads), labels[0]))
    text += table(res, labels, "best", "Fastest call (bare: fastest pass)") + "\n"
    text += table(res, labels, "med", "Median call") + "\n"
    text += table(res, labels, "cpu", "Median call, PDUs per CPU-second")
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
