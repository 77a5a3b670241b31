#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`make bench`: runs every benchmark that has a run.py under bench/ and
records the results in bench/results/."""
import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
a = ap.parse_args()
rc = 0
for script in sorted(glob.glob(os.path.join(ROOT, "bench/*/run.py"))):
    print(f"== {os.path.relpath(script, ROOT)}", flush=True)
    r = subprocess.run([sys.executable, script, "--build", os.path.abspath(a.build), "--record"])
    if r.returncode == 77:  # needs hardware this machine lacks (a GPU): skipped
        print(f"   skipped: {os.path.relpath(script, ROOT)}", flush=True)
        continue
    rc |= r.returncode
sys.exit(rc)
