#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Pythia's Fig. 5 from an `hplane run --goal` trace.csv: input rate and
delivered throughput (Gbit/s of the modeled platform: the trace's rates x
--scale, 1500-byte frames counted as the paper's tables do, x 1500 x 8 /
1024), power per modeled device, and the active configuration over time.
With --apps the throughput is drawn per app (the trace's app:NAME_pps
columns), named as the paper names them (vpn: AES, ids: DPI, dedup: MD5).

usage: pythia_fig5_plot.py TRACE.csv OUT.png --scale F --title TEXT
Prints one line per configuration change (t, goal, configuration)."""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GBPS_PER_PPS = 1500 * 8 / 1024 / 1e6   # the paper's Gbit/s (Tables I-III)
PAPER = {"vpn": "AES", "ids": "DPI", "dedup": "MD5"}   # profiles/pythia-8700k.json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    with open(a.trace) as f:
        rows = [r for r in csv.DictReader(f)]
    # the last row is the drain after the measured phase: not a second
    rows = [r for r in rows if float(r["t_s"]) >= 0.99][:-1] or rows
    if "goal" not in rows[0]:
        sys.exit(f"{a.trace}: no goal column (not a --goal run)")
    t = [float(r["t_s"]) for r in rows]
    off = [float(r["offered_pps"]) * a.scale * GBPS_PER_PPS for r in rows]
    dlv = [float(r["delivered_pps"]) * a.scale * GBPS_PER_PPS for r in rows]
    pcols = [k for k in rows[0] if k.startswith("power_w:")]
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    ax1.step(t, off, where="pre", label="input rate")
    apps = [k[len("app:"):-len("_delivered_pps")] for k in rows[0]
            if k.startswith("app:") and k.endswith("_delivered_pps")]
    if apps:
        for n in apps:
            ax1.step(t, [float(r[f"app:{n}_delivered_pps"]) * a.scale * GBPS_PER_PPS for r in rows],
                     where="pre", label=f"throughput ({PAPER.get(n, n)})")
        ax1.step(t, dlv, where="pre", label="throughput (all)", lw=0.8, ls="--")
    else:
        ax1.step(t, dlv, where="pre", label="throughput (AES)")
    ax1.set_ylabel("Gbit/s (platform time)")
    ax1.legend(loc="upper right")
    for k in pcols:
        name = k[len("power_w:"):].replace(" (modeled)", "")
        ax2.step(t, [float(r[k]) for r in rows], where="pre", label=name)
    ax2.set_ylabel("power (W, modeled)")
    ax2.set_xlabel("time (s)")
    ax2.legend(loc="upper right", fontsize=8)
    prev = None
    for r, x in zip(rows, t):
        cur = (r["goal"], r["configuration"])
        if cur != prev:
            print(f"{x:6.1f} s  goal {cur[0]:16s} configuration {cur[1]}")
            ax1.axvline(x, color="grey", lw=0.5, ls=":")
            ax1.annotate(cur[1].split("@")[0], (x, max(off) * 0.95), fontsize=7)
            prev = cur
    fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=90)


if __name__ == "__main__":
    main()
