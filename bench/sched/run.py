#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The scheduler comparison (docs/scheduling.md): `hplane compare` on the
modeled Jetson platform, every scenario x scheduler x granularity, ~17 min
on a 2-core machine (more with --repeat N --repeat-scenarios stress=5,...,
which the recorded runs use: medians of repeated runs). hplane's lcores run
SCHED_FIFO (bench/rtrun.py; compare --no-rt or --rt-prio N); hold
/work/notes/bench.lock (flock) around it on a shared machine, one scenario
at a time with --reuse (docs/scheduling.md). --record writes
bench/results/sched-DATE<tag>.md and its plots
(bench/results/sched-DATE<tag>-<scenario>-latency.png, -share.png); it refuses
to overwrite an existing record (give another --tag)."""
import argparse
import datetime
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(ROOT, "build"))
ap.add_argument("--record", action="store_true")
ap.add_argument("--tag", default="", help="suffix of the record's name (sched-DATE<tag>.md)")
ap.add_argument("--out", help="keep the runs here [a temporary directory]")
ap.add_argument("--quick", action="store_true", help="3-second runs (a smoke test)")
a, rest = ap.parse_known_args()
hplane = os.path.join(a.build, "apps/hplane/hplane")
if not os.path.exists(hplane):
    print(f"bench/sched: {hplane} not built", file=sys.stderr)
    sys.exit(1)
out = a.out or tempfile.mkdtemp(prefix="hp-sched-")
cmd = [hplane, "compare", "--out", out] + (["--quick"] if a.quick else []) + rest
if a.record:
    date = datetime.date.today().isoformat()
    rec = os.path.join(ROOT, "bench/results", f"sched-{date}{a.tag}.md")
    if os.path.exists(rec):
        print(f"bench/sched: {rec} exists; give another --tag", file=sys.stderr)
        sys.exit(2)
    cmd += ["--record", rec]
print(" ".join(cmd), flush=True)
sys.exit(subprocess.run(cmd).returncode)
