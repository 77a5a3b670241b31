#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/ldpc for `make bench`: FER/BER of hp-ldpc against the `ldpc`
package's sum-product decoder and the scalar/AVX2/AVX-512 throughput
(compare.py). With --record the report goes to
bench/results/ldpc-<date>.md; without it, a quick run is printed only.
Usage: python3 bench/ldpc/run.py [--build build] [--frames N] [--record]"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--frames", default="1000")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    cmd = [sys.executable, os.path.join(HERE, "compare.py"), "--build", a.build]
    cmd += ["--frames", a.frames, "--record"] if a.record else ["--quick", "--frames", "200"]
    return subprocess.run(cmd).returncode


if __name__ == "__main__":
    sys.exit(main())
