# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers for the integration tests: where the binaries are and how
# to run hplane and read its summary.
import json
import os
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
