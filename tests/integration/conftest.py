# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers for the integration tests: where the binaries are and how
# to run hplane and read its summary.
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BUILD_DIR", ROOT / "build"))
HPLANE = Path(os.environ.get("HPLANE", BUILD / "apps/hplane/hplane"))


def run_hplane(args, timeout=120, check=True):
    p = subprocess.run([str(HPLANE)] + list(args), capture_output=True, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"hplane {' '.join(args)} exited {p.returncode}\n"
                             f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}")
    return p


def summary(out_dir):
    with open(Path(out_dir) / "summary.json") as f:
        return json.load(f)


def assert_invariants(s):
    assert s["dropped_internal"] == 0, s
    assert s["verify_failures"] == 0, s
    assert s["mbufs_leaked"] == 0, s
    invalid = sum(s["dropped_invalid"].values())
    assert s["packets_received"] == s["packets_delivered"] + invalid, s


@pytest.fixture(scope="session")
def hplane():
    if not HPLANE.exists():
        pytest.fail(f"{HPLANE} not built (run make build)")
    return HPLANE


# Values no flag should take quietly: empty, junk, negative, huge, NaN,
# an empty list item, a newline and a terminal escape.
HOSTILE = ["", "x", "-1", "0", "1e99", "99999999999999999999", "nan", "1,,2", "a\nb", "\x1b[2J"]


def assert_every_flag_refused(run, help_text, head, tail, values=HOSTILE, only=None):
    """Every `  --flag [ARG]` of help_text (or those of it named in only),
    with each hostile value, between head and tail (tail is an argument the
    program refuses, so no run starts): run(args) must exit 2 with one line
    on stderr and no raw control character in it. Returns the number of
    runs."""
    flags = re.findall(r"^  (--[a-z0-9-]+)( [A-Z]+)?", help_text, re.M)
    assert len(flags) > 15, flags
    if only is not None:
        flags = [f for f in flags if f[0] in only]
        assert {f[0] for f in flags} == set(only), (flags, only)
    n = 0
    for flag, arg in flags:
        if flag == "--help":
            continue
        for v in (values if arg else [None]):
            p = run(head + [flag] + ([v] if v is not None else []) + tail)
            lines = [l for l in p.stderr.splitlines() if l.strip()]
            assert p.returncode == 2 and len(lines) == 1, (flag, v, p.returncode, p.stderr)
            assert not any(c in lines[0] for c in "\x1b\r"), (flag, v, lines[0])
            n += 1
    return n
