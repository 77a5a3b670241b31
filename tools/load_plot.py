#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots and scores `hplane ramp` output (ramp.csv), the linearity
experiment of Rydén & Näslund §3.1 / §4.4.

The drop onset is the first step from which every step drops at least
--drop-ratio of its offered packets ("continuously drops"); its offered rate
is tvd. The ideal load of a step is its offered rate over the unit's
saturation capacity C, which is measured without any estimator:

  --capacity cpu (default): C = median, over the steps from the onset on
      (the unit is saturated there), of delivered pps / the share of wall
      time the kernel ran the unit's threads (ramp.csv's <unit>_os_cpu,
      from schedstat): packets per CPU-second of the saturated unit. A
      unit that loses CPU time to other threads, or to the kernel's
      real-time throttling, is judged against the CPU it would have had.
      Falls back to `delivered` where the kernel's view is missing.
  --capacity delivered: C = median delivered pps of those steps.
  --capacity onset: C = tvd (thesis eq. 4.4: ideal = tvp / tvd).

For the bottleneck unit (the CPU, or loop, that is busiest at the onset;
--unit to choose) each estimator is scored by its mean absolute error
against the ideal over the steps whose ideal is 10..90 % (also against
offered / (C x the share of the step the kernel let the unit run), the
load on the CPU time it had), and by the offered rate at which it first
reads 95 % (interpolated between steps) against tvd. The onset is only
known to a step: the last step before it (tvd_lo) did not drop
continuously, so the rate where drops really begin lies in (tvd_lo, tvd];
the crossing is also given against tvd_lo, and against the median
delivered rate of the saturated steps (sat_delivered: in steady state
drops begin where the offered load exceeds it; a step's drops come only
once the rings are full, so tvd is late by up to a step or two with a
large ring). The steady-state onset is the first step from which every
step drops or leaves >= 0.5 % of its offered load unserved (the drops a
ring defers). An estimator that follows tvp / tvd exactly reads 95 % at
0.95 tvd, i.e. -5 % of tvd: the issue's "within 5 % of the onset" has
no margin left for it; the predicted onset, crossing / 0.95, is the same
measurement without that offset (0 for an exact estimator), given against
tvd and the steady-state onset. The held crossing is the rate from which
the estimate stays >= 95 % (the counterpart of tvd's "every step from it
drops"); bench/load's verdict on the crossing goal is the held crossing's
predicted onset against the steady-state onset, within 5 % (docs/load.md
says why the goal as written cannot be met by an exact estimator).

usage: load_plot.py ramp.csv [-o ramp.png] [--unit core1|cpu0|...]
                    [--capacity cpu|delivered|onset] [--json F]
"""
import statistics
import argparse
import csv
import json
import math
import sys

EST = [("a_polls", "(a) polls, eq. 4.2"), ("b_busy", "(b) busy, eq. 4.3"),
       ("c_load", "(c) load, ours")]


def read(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    if not rows:
        raise ValueError(f"{path}: no steps")
    for r in rows:
        for k, v in r.items():
            try:
                r[k] = float(v)
            except (TypeError, ValueError):
                pass
    return [r for r in rows if r["rows"] > 0]


def units(rows):
    cols = rows[0].keys()
    names = [c[: -len("_c_load")] for c in cols if c.endswith("_c_load")]
    cores = [n for n in names if n.startswith("core")]
    return cores, [n for n in names if not n.startswith("core")]


def from_on(rows, pred):
    """Index of the first step from which every step satisfies pred; None
    if the last one does not."""
    i = len(rows)
    while i > 0 and pred(rows[i - 1]):
        i -= 1
    return i if i < len(rows) else None


def onset(rows, ratio):
    """Index of the first step from which every step drops >= ratio."""
    return from_on(rows, lambda r: r["drop_ratio"] >= ratio)


def onset_ss(rows, ratio, unserved=0.005):
    """Index of the first step from which every step either drops >= ratio
    or delivers at least `unserved` (0.5 %) less than was offered to it: the
    steady-state onset. A step just above the capacity fills the rings
    before it drops (a 2048-entry ring takes 2048 / (0.01 x 28 kpps) = 7 s
    at 1 % over), so with holds of a few seconds tvd comes a step or two
    late; the packets it did not serve are those drops, deferred."""
    def over(r):
        off = r["offered_pps"]
        return r["drop_ratio"] >= ratio or (off > 0 and (off - r["delivered_pps"]) / off >= unserved)
    return from_on(rows, over)


def reaches_at(rows, j, key, level):
    """Offered rate where rows[key] reaches level on its way into step j
    (linear from step j - 1; step j's own rate if it is the first step
    or the step before already reads level)."""
    r = rows[j]
    if j == 0 or rows[j - 1][key] >= level:
        return r["offered_pps"]
    p = rows[j - 1]
    f = (level - p[key]) / (r[key] - p[key])
    return p["offered_pps"] + f * (r["offered_pps"] - p["offered_pps"])


def crossing(rows, key, level=0.95):
    """Offered rate where rows[key] first reaches level (linear between
    steps); None if it never does."""
    j = next((i for i, r in enumerate(rows) if r[key] >= level), None)
    return None if j is None else reaches_at(rows, j, key, level)


def crossing_held(rows, key, level=0.95):
    """Offered rate from which rows[key] stays at or above level to the end
    of the ramp (linear between the last step under it and the first one
    of the run); None if the last step is under it. The counterpart of
    tvd, the first step from which every step drops: a single step that
    reads high while the host slows the worker for a second or two is a
    right reading of that step, not of the load at which the loop stays
    near saturation."""
    j = from_on(rows, lambda r: r[key] >= level)
    return None if j is None else reaches_at(rows, j, key, level)


def capacity(rows, on, unit, method):
    """Saturation capacity of the unit (pps) and how it was found."""
    sat = rows[on:]
    dl = statistics.median(r["delivered_pps"] for r in sat)
    if method == "onset":
        return rows[on]["offered_pps"], "onset: offered rate of the drop onset (thesis eq. 4.4)"
    col = f"{unit}_os_cpu"
    if method == "cpu" and col in rows[0] and all(r[col] > 0 for r in sat):
        return (statistics.median(r["delivered_pps"] / r[col] for r in sat),
                f"cpu: median over the {len(sat)} steps from the onset of delivered pps / "
                f"the kernel's CPU share of {unit} (median share "
                f"{statistics.median(r[col] for r in sat):.3f}, delivered {dl:.1f} pps)")
    return dl, f"delivered: median delivered pps over the {len(sat)} steps from the onset"


def avail(r, unit):
    """Share of the step's time the unit's CPU was there for it, by the
    kernel's schedstat (1 - time its loops waited runnable); 1 if unknown."""
    w = r.get(f"{unit}_os_wait", -1)
    return 1 - w if isinstance(w, float) and 0 <= w < 1 else 1.0


def score(rows, unit, tvd, cap, tvd_lo=None, sat_dl=None, ss=None):
    out = {}
    for key, label in EST:
        col = f"{unit}_{key}"
        steps = [r for r in rows if 0.1 - 1e-9 <= r["offered_pps"] / cap <= 0.9 + 1e-9]
        errs = [abs(r[col] - r["offered_pps"] / cap) for r in steps]
        # the same against the thesis's own line, tvp / tvd (eq. 4.4)
        st_on = [r for r in rows if 0.1 - 1e-9 <= r["offered_pps"] / tvd <= 0.9 + 1e-9]
        errs_on = [abs(r[col] - r["offered_pps"] / tvd) for r in st_on]
        # the same against the load on the CPU time the unit had (a loop
        # that lost 5 % of a step to other threads was that much busier)
        errs_av = [abs(r[col] - r["offered_pps"] / (cap * avail(r, unit))) for r in steps]
        x = crossing(rows, col)
        xh = crossing_held(rows, col)
        out[key] = {
            "label": label,
            "mae_points": 100 * sum(errs) / len(errs) if errs else None,
            "mae_avail_points": 100 * sum(errs_av) / len(errs_av) if errs_av else None,
            "mae_onset_points": 100 * sum(errs_on) / len(errs_on) if errs_on else None,
            "steps": len(errs),
            "cross95_pps": x,
            "cross95_vs_onset": (x - tvd) / tvd if x is not None else None,
            # against the last step that did not drop continuously
            "cross95_vs_onset_lo": (x - tvd_lo) / tvd_lo if x is not None and tvd_lo else None,
            "cross95_vs_sat_delivered": (x - sat_dl) / sat_dl if x is not None and sat_dl else None,
            "cross95_vs_onset_ss": (x - ss) / ss if x is not None and ss else None,
            # the onset the estimator predicts, if it is linear and reads
            # 100 % where the loop saturates (an exact estimator: 0)
            "pred_onset_vs_onset": (x / 0.95 - tvd) / tvd if x is not None else None,
            "pred_onset_vs_onset_ss": (x / 0.95 - ss) / ss if x is not None and ss else None,
            # the same from the rate from which the estimate stays >= 95 %
            "cross95h_pps": xh,
            "cross95h_vs_onset": (xh - tvd) / tvd if xh is not None else None,
            "pred_h_onset_vs_onset_ss": (xh / 0.95 - ss) / ss if xh is not None and ss else None,
        }
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--out", help="PNG to write")
    ap.add_argument("--unit", default="auto", help="core<N> or a loop name [auto]")
    ap.add_argument("--drop-ratio", type=float, default=0.001,
                    help="share of dropped packets that counts as dropping [0.001]")
    ap.add_argument("--capacity", choices=("cpu", "delivered", "onset"), default="cpu",
                    help="how the saturation capacity of the ideal line is measured [cpu]")
    ap.add_argument("--json", help="write the scores as JSON here")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    try:
        rows = read(a.csv)
    except (OSError, ValueError, KeyError) as e:
        print(f"load_plot: {e}", file=sys.stderr)
        return 2
    cores, loops = units(rows)
    on = onset(rows, a.drop_ratio)
    tvd = rows[on]["offered_pps"] if on is not None else None
    if a.unit == "auto":
        cand = cores or loops
        at = rows[on] if on is not None else rows[-1]
        unit = max(cand, key=lambda u: at[f"{u}_b_busy"])
    else:
        unit = a.unit
        if f"{unit}_c_load" not in rows[0]:
            print(f"load_plot: no unit {unit} in {a.csv} (have {', '.join(cores + loops)})",
                  file=sys.stderr)
            return 2
    res = {"unit": unit, "onset_pps": tvd,
           "onset_lo_pps": rows[on - 1]["offered_pps"] if on else None,
           "onset_step": int(rows[on]["step"]) if on is not None else None,
           "sporadic_drop_steps": [int(r["step"]) for i, r in enumerate(rows)
                                   if r["drops"] > 0 and (on is None or i < on)]}
    cap = None
    if tvd is not None:
        cap, how = capacity(rows, on, unit, a.capacity)
        res["capacity_pps"], res["capacity_method"] = cap, how
        res["sat_delivered_pps"] = statistics.median(r["delivered_pps"] for r in rows[on:])
        ss = onset_ss(rows, a.drop_ratio)
        res["onset_ss_pps"] = rows[ss]["offered_pps"] if ss is not None else None
        res["onset_ss_step"] = int(rows[ss]["step"]) if ss is not None else None
        res["scores"] = score(rows, unit, tvd, cap, res["onset_lo_pps"], res["sat_delivered_pps"],
                              res["onset_ss_pps"])
    print(f"unit {unit}; drop onset: " +
          (f"{tvd / 1e6:.4f} Mpps (step {res['onset_step']})" if tvd else "none (no step drops continuously)")
          + (f", the step before it {res['onset_lo_pps'] / 1e6:.4f} Mpps" if res["onset_lo_pps"] else ""))
    if cap:
        print(f"  capacity {cap / 1e6:.4f} Mpps ({how}); delivered when saturated "
              f"{res['sat_delivered_pps'] / 1e6:.4f} Mpps; steady-state onset "
              + (f"{res['onset_ss_pps'] / 1e6:.4f} Mpps (step {res['onset_ss_step']})"
                 if res["onset_ss_pps"] else "none"))
    if tvd is not None:
        print(f"  {'estimator':22s} {'MAE 10-90 %':>12s} {'(CPU had)':>10s} {'(tvp/tvd)':>10s} "
              f"{'95 % at':>12s} {'vs onset':>9s} {'vs step before':>14s} {'vs delivered':>12s} "
              f"{'vs ss onset':>11s} {'predicted onset vs onset / ss':>29s} "
              f"{'stays >= 95 % from':>18s} {'its predicted onset vs ss':>25s}")
        for key, s in res["scores"].items():
            mae, mav, mon = (f"{s[k]:.1f} pts" if s[k] is not None else "n/a"
                             for k in ("mae_points", "mae_avail_points", "mae_onset_points"))
            x = f"{s['cross95_pps'] / 1e6:.4f} M" if s["cross95_pps"] else "never"
            d = f"{100 * s['cross95_vs_onset']:+.1f} %" if s["cross95_vs_onset"] is not None else ""
            dl, dd, dss, po, pss = (f"{100 * s[k]:+.1f} %" if s[k] is not None else ""
                                    for k in ("cross95_vs_onset_lo", "cross95_vs_sat_delivered",
                                              "cross95_vs_onset_ss", "pred_onset_vs_onset",
                                              "pred_onset_vs_onset_ss"))
            xh = f"{s['cross95h_pps'] / 1e6:.4f} M" if s["cross95h_pps"] else "never"
            ph = (f"{100 * s['pred_h_onset_vs_onset_ss']:+.1f} %"
                  if s["pred_h_onset_vs_onset_ss"] is not None else "")
            print(f"  {s['label']:22s} {mae:>12s} {mav:>10s} {mon:>10s} {x:>12s} {d:>9s} {dl:>14s} {dd:>12s} "
                  f"{dss:>11s} {po + ' / ' + pss:>29s} {xh:>18s} {ph:>25s}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if a.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        x = [r["offered_pps"] / 1e6 for r in rows]
        fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True,
                                       gridspec_kw={"height_ratios": [3, 1.4]})
        for (key, label), style in zip(EST, ["s-", "^-", "o-"]):
            ax1.plot(x, [100 * r[f"{unit}_{key}"] for r in rows], style, label=label)
        if tvd:
            ax1.plot(x, [100 * r["offered_pps"] / cap for r in rows], "k--",
                     label=f"ideal: offered / capacity {cap / 1e6:.4f} Mpps ({a.capacity})")
            if a.capacity != "onset":
                ax1.plot(x, [100 * r["offered_pps"] / tvd for r in rows], "k:",
                         label=f"tvp / tvd (eq. 4.4), tvd {tvd / 1e6:.4f} Mpps")
            for ax in (ax1, ax2):
                ax.axvline(tvd / 1e6, color="red", lw=0.8, ls=":")
        ax1.axhline(95, color="grey", lw=0.6, ls=":")
        ax1.set_ylim(0, 130)
        ax1.set_ylabel(f"load of {unit} (%)")
        ax1.legend(loc="upper left", fontsize=8)
        ax1.set_title(a.title or f"hplane ramp: {a.csv}", fontsize=9)
        ax2.bar(x, [r["drops"] for r in rows], width=(x[1] - x[0]) * 0.6 if len(x) > 1 else 0.01,
                color="tab:red")
        ax2.set_ylabel("dropped packets")
        ax2.set_xlabel("offered load (Mpps)")
        fig.tight_layout()
        fig.savefig(a.out, dpi=110)
        print(f"  plot: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
