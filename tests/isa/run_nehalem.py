#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs the EAL-free unit tests of the blocks with run-time ISA choice
(hp_nf, hp_ldpc) under `qemu-x86_64 -cpu Nehalem`, an x86-64-v2 CPU
without AES-NI and AVX: what check_isa.py shows from the instructions,
shown here by running them (the dispatch picks the baseline variants and
the fallbacks give the same bytes). The tests are found by name in the
build's meson-info, so moving their sources does not break this.

Usage: run_nehalem.py BUILD_DIR   (exit 0 pass, 1 fail, 77 skipped)
"""
import json
import os
import shutil
import subprocess
import sys

TESTS = ["nf_isa", "nf_cbc", "nf_md5", "nf_patterns", "ldpc_codes",
         "ldpc_codec", "ldpc_units"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    qemu = shutil.which("qemu-x86_64")
    if qemu is None:
        print("run_nehalem: qemu-x86_64 not found (package qemu-user), skipped")
        return 77
    with open(os.path.join(sys.argv[1], "meson-info", "intro-tests.json")) as f:
        tests = {t["name"]: t for t in json.load(f)}
    rc = 0
    ran = 0
    for name in TESTS:
        t = tests.get(name)
        if t is None:  # its block is left out of this build
            continue
        ran += 1
        env = dict(os.environ, **t.get("env", {}))
        r = subprocess.run([qemu, "-cpu", "Nehalem"] + t["cmd"], env=env,
                           cwd=t.get("workdir") or None, capture_output=True,
                           text=True, timeout=300)
        print(f"run_nehalem: {name}: {'ok' if r.returncode == 0 else 'FAILED'}")
        if r.returncode != 0:
            print(r.stdout[-4000:] + r.stderr[-4000:])
            rc = 1
    if ran == 0:
        print("run_nehalem: none of the tests is built, skipped")
        return 77
    return rc


if __name__ == "__main__":
    sys.exit(main())
