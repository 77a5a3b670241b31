#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/tasks (issue 3) for `make bench`: runs nf-bench (AES-128-CBC, MD5 and DPI per
core at 64/243/486/594/1458 B and IMIX, each beside its peer measured in the
same run: OpenSSL EVP loops, ipsec-mb HMAC-MD5, Hyperscan, a direct hs_scan
loop; columns name the library) and, with --record, writes the
table to bench/results/nf-<date>.md. Usage:
  python3 bench/tasks/run.py [--build build] [--seconds 1] [--cpu-time] [--record]"""
import argparse
import datetime
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", default="1")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time slices by the thread's CPU time (a loaded machine)")
    a = ap.parse_args()
    tool = os.path.join(a.build, "bench", "tasks", "nf-bench")
    if not os.path.exists(tool):
        sys.exit(f"bench/tasks: {tool} not built (lib/nf skipped?)")
    cmd = [tool, "--seconds", a.seconds] + (["--cpu-time"] if a.cpu_time else [])
    if a.record:
        cmd += ["--out", os.path.join(ROOT, "bench", "results",
                                      f"nf-{datetime.date.today().isoformat()}.md")]
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
