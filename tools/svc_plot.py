#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the service-core experiments (bench/svc), after Blazevic &
Jansson's Figures 6-8, from the bench's collected results (bench.json) and
the per-run CSVs (deadline,start,delay,service,core in TSC cycles):

  fig6_delay_vs_load.png    mean delay per service vs load per service,
                            balancing off and on (log y)
  fig7_jobs_processed.png   jobs processed in the ramp, off vs on
  fig8_three_services.png   (a) delay over time per service (log y),
                            (b) offered load per service, (c) total delay
                            over time, for off / threshold / delay mode
  fig9_scale_down.png       active service lcores and wait over time,
                            scale-down off, on (guard on response / on the
                            wait only), and on without a guard
  fig10_low_load.png        mean delay vs load per service at low load, off /
                            consolidated / left to the guard, 10 and 1 us jobs
                            (and, modeled, the poll floor: half a runner loop)

Titles say whether the runs were measured (and where) or modeled
(svc-bench --model: dedicated cores in virtual time).

usage: svc_plot.py BENCH_JSON OUT_DIR
"""
import csv
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def tag(b):
    """What the runs are, for every title."""
    return "\n[MODELED dedicated cores]" if b.get("modeled") else \
        "\n[measured on a shared 2-core VM]"


def save(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name + ".png"), dpi=110)
    plt.close(fig)


def read_jobs(path):
    """(deadline, start, delay, service, core) arrays from a per-job CSV."""
    cols = [[] for _ in range(5)]
    with open(path) as f:
        r = csv.reader(f)
        next(r)
        for row in r:
            for i in range(5):
                cols[i].append(int(row[i]))
    return [np.array(c, dtype=np.float64) for c in cols]


def read_loads(path):
    t, lc, load, act = [], [], [], []
    with open(path) as f:
        r = csv.reader(f)
        next(r)
        for row in r:
            t.append(int(row[0]))
            lc.append(int(row[1]))
            load.append(float(row[2]))
            act.append(int(row[3]))
    return np.array(t, float), np.array(lc), np.array(load), np.array(act)


def binned(t, v, edges, how="mean"):
    idx = np.digitize(t, edges) - 1
    out = np.full(len(edges) - 1, np.nan)
    for i in range(len(edges) - 1):
        sel = v[idx == i]
        if len(sel):
            out[i] = sel.mean() if how == "mean" else sel.sum()
    return out


def profile_at(spec, x):
    pts = []
    if ":" not in spec:
        return np.full_like(x, float(spec))
    for p in spec.split("/"):
        a, b = p.split(":")
        pts.append((float(a), float(b)))
    ts, vs = zip(*pts)
    return np.interp(x, ts, vs)


def fig6(b, out):
    e = b["e1"]
    loads = [r["x"] for r in e["rows"]]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for mode, style in (("off", "o-"), ("on", "s-")):
        for s in (0, 1):
            y = [r[mode]["delay_mean_us"][s] for r in e["rows"]]
            ax.plot([x * 100 for x in loads], y, style,
                    label=f"S{s}, balancer {'off' if mode == 'off' else 'on'}",
                    alpha=0.85 if s == 0 else 0.55)
    ax.set_yscale("log")
    ax.set_xlabel("load per service (%)")
    ax.set_ylabel("mean delay, deadline to start (us)")
    ax.set_title("Two services starting on one service core (cf. thesis Fig. 6)" + tag(b),
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "fig6_delay_vs_load")


def fig7(b, out):
    e = b["e2"]
    fig, ax = plt.subplots(figsize=(5.2, 4.0))
    modes = ["off", "load"]
    jobs = [e[m]["jobs_median"] for m in modes]
    bars = ax.bar(["balancer off\n(standard)", "balancer on"], jobs,
                  color=["tab:gray", "tab:blue"])
    for bar, j in zip(bars, jobs):
        ax.text(bar.get_x() + bar.get_width() / 2, j, f"{j:,.0f}", ha="center",
                va="bottom", fontsize=9)
    ax.set_ylabel("jobs processed (two services)")
    ax.set_title(f"Ramping load, {e['duration']:g} s (cf. thesis Fig. 7): "
                 f"{100 * (jobs[1] / jobs[0] - 1):+.0f} %" + tag(b), fontsize=10)
    save(fig, out, "fig7_jobs_processed")


def fig8(b, out):
    e = b["e3"]
    hz = b["tsc_hz"]
    modes = [m for m in ("off", "load", "delay", "oracle") if m in e["runs"]]
    colors = {"off": "tab:gray", "load": "tab:blue", "delay": "tab:green",
              "oracle": "tab:orange"}
    names = {"off": "no balancer", "load": "threshold balancer",
             "delay": "delay-based balancer", "oracle": "best static map (bound)"}
    dur = e["duration"]
    edges = np.linspace(0, dur, 61)
    mid = (edges[:-1] + edges[1:]) / 2
    fig, axs = plt.subplots(3, 1, figsize=(7.5, 9.0), sharex=True)
    for m in modes:
        run = e["runs"][m]
        dl, st, de, sv, co = read_jobs(run["csv"])
        t = st / hz
        for s in range(e["services"]):
            sel = sv == s
            y = binned(t[sel], de[sel] / hz * 1e6, edges)
            axs[0].plot(mid, y, color=colors[m], alpha=0.9 - 0.25 * s,
                        linestyle=["-", "--", ":"][s % 3],
                        label=f"{names[m]}, S{s}")
        tot = binned(t, de / hz * 1e6, edges, how="sum") / 1e3
        axs[2].plot(mid, tot, color=colors[m], label=names[m])
        ev = run.get("events", [])
        for x in ev:
            axs[2].axvline(x / hz, color=colors[m], alpha=0.35, linewidth=0.8)
    axs[0].set_yscale("log")
    axs[0].set_ylabel("mean delay (us)")
    axs[0].set_title("(a) delay per service, 3 services on 2 service cores" + tag(b),
                     fontsize=10)
    axs[0].legend(fontsize=7, ncol=3)
    x = np.linspace(0, 1, 200)
    for s, spec in enumerate(e["profiles"]):
        axs[1].plot(x * dur, profile_at(spec, x) * 100, label=f"S{s}")
    axs[1].set_ylabel("offered load (%)")
    axs[1].set_title("(b) dynamic load (tidal); S0, S1 start on core 0, S2 on core 1")
    axs[1].legend(fontsize=8)
    axs[2].set_yscale("log")
    axs[2].set_ylabel("total delay per bin (ms)")
    axs[2].set_xlabel("time (s); vertical lines: migrations")
    axs[2].set_title("(c) total delay, all services")
    axs[2].legend(fontsize=8)
    for a in axs:
        a.grid(True, which="both", alpha=0.3)
    save(fig, out, "fig8_three_services")


def fig9(b, out):
    e = b["e4"]
    hz = b["tsc_hz"]
    fig, axs = plt.subplots(2, 1, figsize=(7.0, 5.6), sharex=True)
    edges = np.linspace(0, e["duration"], 41)
    mid = (edges[:-1] + edges[1:]) / 2
    # modes that decide alike give identical curves: wide to narrow, so
    # each one still shows under the next
    for (m, color, name), lw in zip((("plain", "tab:gray", "scale-down off"),
                                     ("scale", "tab:orange", "guard on response"),
                                     ("wait", "tab:blue", "guard on wait only"),
                                     ("force", "tab:red", "no guard")), (5, 3.5, 2, 1)):
        if m not in e["runs"]:
            continue
        run = e["runs"][m]
        t, lc, load, act = read_loads(run["loads_csv"])
        ts = np.unique(t)
        active = np.array([act[t == x].sum() for x in ts])
        axs[0].step(ts / hz, active, where="post", color=color, label=name, lw=lw)
        dl, st, de, sv, co = read_jobs(run["csv"])
        axs[1].plot(mid, binned(st / hz, de / hz * 1e6, edges), color=color, label=name,
                    lw=lw)
    axs[0].set_ylabel("active service lcores")
    axs[0].set_ylim(0, 2.5)
    axs[0].set_title("Scale-down at low load (3 services, 2 service lcores)" + tag(b),
                     fontsize=10)
    axs[1].set_ylabel("mean wait (us)")
    axs[1].set_xlabel("time (s)")
    for a in axs:
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8)
    save(fig, out, "fig9_scale_down")


MODEL_LOOP, MODEL_CALL = 0, 130	# the model's runner costs (svc-bench overhead)


def fig10(b, out):
    """Top: the jobs' mean wait (the thesis's delay); bottom: their mean
    response time (wait + service), the measure scale-down is held to."""
    e = b["e5"]
    hz = b["tsc_hz"]
    works = sorted({r["work_us"] for r in e["rows"]}, reverse=True)
    fig, axs = plt.subplots(2, len(works), figsize=(9.0, 7.0), sharex=True, squeeze=False)
    modes = (("plain", "tab:gray", "off (2 cores)", 5),
             ("scale", "tab:orange", "guard on response", 3.5),
             ("wait", "tab:blue", "guard on wait only", 2),
             ("force", "tab:red", "forced onto 1 core", 1))
    for k, w in enumerate(works):
        rows = sorted((r for r in e["rows"] if r["work_us"] == w), key=lambda r: r["load"])
        x = [100 * r["load"] for r in rows]
        for m, color, name, lw in modes:	# wide to narrow: alike curves show
            if m not in rows[0]:
                continue
            y = [float(np.median([v["mean_us"] for v in r[m]])) for r in rows]
            axs[0][k].plot(x, y, "o-", color=color, label=name, lw=lw, ms=2 * lw + 1)
            if "resp_us" in rows[0][m][0]:
                y = [float(np.median([v["resp_us"] for v in r[m]])) for r in rows]
                axs[1][k].plot(x, y, "o-", color=color, label=name, lw=lw, ms=2 * lw + 1)
        if e.get("modeled"):
            # half an idle loop, job-weighted (rates 1 : 1 : 1.5)
            two = (2 * (MODEL_LOOP + 2 * MODEL_CALL) / 2 + 1.5 * (MODEL_LOOP + MODEL_CALL) / 2) / 3.5
            one = (MODEL_LOOP + 3 * MODEL_CALL) / 2
            axs[0][k].axhline(two / hz * 1e6, color="tab:gray", ls="--", lw=0.8,
                              label="poll floor, 2 cores")
            axs[0][k].axhline(one / hz * 1e6, color="tab:red", ls="--", lw=0.8,
                              label="poll floor, 1 core")
        axs[0][k].set_title(f"jobs of {w:g} us", fontsize=9)
        axs[0][k].set_yscale("log")
        axs[1][k].set_xlabel("load per service S0, S1 (%; S2 1.5x)")
        for ax in (axs[0][k], axs[1][k]):
            ax.set_xscale("log")
            ax.grid(True, which="both", alpha=0.3)
    axs[0][0].set_ylabel("mean wait (us)")
    axs[1][0].set_ylabel("mean response: wait + service (us)")
    axs[0][0].legend(fontsize=7)
    fig.suptitle("Consolidating 3 services at low load" + tag(b), fontsize=10)
    save(fig, out, "fig10_low_load")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        b = json.load(f)
    os.makedirs(argv[2], exist_ok=True)
    for fn, key in ((fig6, "e1"), (fig7, "e2"), (fig8, "e3"), (fig9, "e4"), (fig10, "e5")):
        if key in b:
            fn(b, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
