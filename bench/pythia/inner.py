#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Inside the configuration: adaptive against the fixed mapping (issue 21 part 7).

Pythia switches whole configurations; inside the active one `--goal-inner fixed` (the
default) sends each packet to the least queued of its app's devices, `--goal-inner adaptive`
lets the adaptive policy place it per deadline among them (docs/scheduling.md). On the Fig. 5
set-up of bench/pythia/goals.py (AES, the modeled UHD 630 and GTX 1080 Ti x100, 1500-byte
frames) with every packet latency-sensitive and ordered (a type table with one type, deadline
--deadline-us in real, dilated microseconds), per rate trace and goal, both inner policies
side by side (interleaved): deadline met %, p99, J/Gbit, delivered, drops, reordering.

  .venv/bin/python bench/pythia/inner.py --hplane build/apps/hplane/hplane --out DIR
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from goals import SCALE, hplane_run, write_trace  # noqa: E402  (the same set-up)

GOALS = ["min-latency", "min-energy", "all-devices"]   # all-devices: igpu+dgpu fixed
INNER = ["fixed", "adaptive"]


def run_one(a, name, trace, dur, goal, inner):
    out = os.path.join(a.out, "runs", name)
    cmd = [a.hplane, "run", "--app", "vpn",
           "--gpu", f"model:pythia-8700k@igpu,scale={SCALE}",
           "--gpu", f"model:pythia-8700k@dgpu,scale={SCALE}",
           "--sched-param", "platform=pythia-8700k", "--sched-param", f"scale={SCALE}",
           "--sched-param", "devices=igpu+dgpu", "--imix-sizes", "1500", "--imix-shares", "1",
           "--types", a.types, "--idle", "sleep", "--trace", trace, "--capacity", "30000",
           "--duration", str(dur), "--goal", goal, "--goal-inner", inner, "--out", out]
    if goal == "all-devices":
        cmd += ["--goal-lib", a.goal_lib]
    note = hplane_run(a, name, cmd, dur)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    gbit = s["bytes_delivered"] * 8 / 1e9 * SCALE
    joules = sum(x["joules"] for x in s["power"]["sources"])
    share = {d["name"].split("@")[-1]: d["share_pct"] for d in s["devices"]}
    return {
        "name": name, "goal": goal, "inner": inner, "cmd": " ".join(cmd[1:]),
        "gbps": gbit / s["duration_s"], "drop_port": s["dropped_port"],
        "drop_internal": s["dropped_internal"],
        "out_of_order": s["flows"]["out_of_order_packets"],
        "met_pct": s["deadline"]["success_pct"], "p99_us": s["latency_us"]["p99"],
        "p50_us": s["latency_us"]["p50"], "j_per_gbit": joules / gbit if gbit else float("inf"),
        "switches": s["goal"]["switches"], "igpu_pct": share.get("igpu", 0),
        "dgpu_pct": share.get("dgpu", 0), "rt": note,
    }


def table(rows):
    print("| run | inner | Gbit/s | port drops | internal | out of order | deadline met % "
          "| p50 ms | p99 ms | J/Gbit | switches | igpu / dgpu % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['goal']} | {r['inner']} | {r['gbps']:.2f} | {r['drop_port']} | "
              f"{r['drop_internal']} | {r['out_of_order']} | {r['met_pct']:.1f} | "
              f"{r['p50_us'] / 1e3:.2f} | {r['p99_us'] / 1e3:.2f} | {r['j_per_gbit']:.3f} | "
              f"{r['switches']} | {r['igpu_pct']:.0f} / {r['dgpu_pct']:.0f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hplane", default="build/apps/hplane/hplane")
    ap.add_argument("--goal-lib", default="build/examples/goal_all_devices.so")
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline-us", type=float, default=2000,
                    help="every packet's deadline, real (dilated) microseconds")
    ap.add_argument("--fluct-s", type=float, default=15)
    ap.add_argument("--no-rt", action="store_true",
                    help="leave hplane's lcore threads in normal scheduling")
    ap.add_argument("--rt-prio", type=int, default=1, help="their SCHED_FIFO priority")
    ap.add_argument("--const-s", type=float, default=10)
    a = ap.parse_args()
    a.goal_lib = os.path.abspath(a.goal_lib)
    os.makedirs(os.path.join(a.out, "runs"), exist_ok=True)
    a.types = os.path.join(a.out, "types.txt")
    with open(a.types, "w") as f:   # one type: every frame ordered and latency-sensitive
        f.write(f"0,65535,1,1,{a.deadline_us:g}\n")
    f = a.fluct_s
    fl = os.path.join(a.out, "rate_fluct.txt")   # Fig. 5(a): 8 -> 20 -> 8 Gbit/s
    write_trace(fl, [(0, "6.8k"), (f / 3 - 0.01, "6.8k"), (f / 3, "17k"),
                     (2 * f / 3 - 0.01, "17k"), (2 * f / 3, "6.8k"), (f, "6.8k")])
    co = os.path.join(a.out, "rate_const8.txt")
    write_trace(co, [(0, "6.8k"), (a.const_s, "6.8k")])
    res = {"args": vars(a), "traces": {}}
    bad = []
    for tname, tr, dur in (("fluct", fl, f), ("const8", co, a.const_s)):
        rows = []
        for g in GOALS:
            for inner in INNER:   # side by side
                rows.append(run_one(a, f"{tname}-{g}-{inner}", tr, dur, g, inner))
        print(f"\n### trace {tname}, deadline {a.deadline_us:g} us\n")
        table(rows)
        res["traces"][tname] = rows
        bad += [r["name"] for r in rows if r["drop_internal"] or r["out_of_order"]]
    with open(os.path.join(a.out, "inner.json"), "w") as fo:
        json.dump(res, fo, indent=1)
    if bad:
        print("invariants broken (internal drops or reordering):", bad)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
