#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Pythia's Tables I-III against `hplane profile --configs` on the modeled
platform: each printed row (tests/integration/data/pythia-tables.json)
beside the co-worker run the configurations file computed for it, with the
relative differences of per-kernel and aggregated Mpps and Gbps.
Usage: tools/pythia_tables.py CONFIGS.json [--markdown]   (exit 1 if a
value is more than 5 % off)"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPER = ROOT / "tests/integration/data/pythia-tables.json"
TOL = 0.05
DEV = {"dgpu": "GTX 1080 Ti", "cpu": "i7-8700K", "igpu": "UHD 630"}
NAME = {"dpi": "DPI", "aes_cbc": "AES", "md5": "MD5"}


def pairs(configs_path, paper_path=PAPER):
    """(paper row, our co-worker run) for every printed row."""
    cfg = json.loads(Path(configs_path).read_text())
    paper = json.loads(Path(paper_path).read_text())["rows"]
    app_of = {a["task"]: a["name"] for a in cfg["apps"]}
    ours = {(c["device"], c["app"], c["co"], c["k"], c["batch"]): c for c in cfg["coworkers"]}
    out = []
    for r in paper:
        key = (r["device"], app_of.get(r["app"]), app_of.get(r["co"]), r["k"], r["batch"])
        out.append((r, ours.get(key)))
    return out


def errors(r, o):
    """Relative differences of the four compared values (None: not computed)."""
    if o is None:
        return None
    return {"mpps": abs(o["kernel"]["mpps"] - r["mpps"]) / r["mpps"],
            "gbps": abs(o["kernel"]["gbps"] - r["gbps"]) / r["gbps"],
            "agg_mpps": abs(o["aggregated"]["mpps"] - r["agg_mpps"]) / r["agg_mpps"],
            "agg_gbps": abs(o["aggregated"]["gbps"] - r["agg_gbps"]) / r["agg_gbps"]}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    md = "--markdown" in sys.argv
    rows = pairs(sys.argv[1])
    worst, bad = 0.0, 0
    if md:
        print("| table | device | app | co-worker | k | batch | paper Mpps | ours | paper Gbps | ours "
              "| paper aggr. Mpps | ours | paper aggr. Gbps | ours | paper ms | ours | worst diff |")
        print("|" + "---|" * 17)
    for r, o in rows:
        e = errors(r, o)
        w = max(e.values()) if e else float("inf")
        worst = max(worst, w)
        bad += w > TOL
        if md and o is not None:
            print("| %s | %s | %s | %s | %d | %d | %.3f | %.3f | %.1f | %.1f | %.3f | %.3f | %.1f | %.1f "
                  "| %.1f | %.1f | %.1f %% |" % (
                      r["table"], DEV[r["device"]], NAME[r["app"]], NAME[r["co"]], r["k"], r["batch"],
                      r["mpps"], o["kernel"]["mpps"], r["gbps"], o["kernel"]["gbps"], r["agg_mpps"],
                      o["aggregated"]["mpps"], r["agg_gbps"], o["aggregated"]["gbps"], r["ms"],
                      o["kernel"]["ms"], w * 100))
        elif o is None:
            print("not computed: %s" % r)
    print("%s%d rows, worst difference %.2f %%, %d beyond %.0f %%" % (
        "\n" if md else "", len(rows), worst * 100, bad, TOL * 100))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
