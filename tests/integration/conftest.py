# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers for the integration tests: where the binaries are and how
# to run hplane and read its summary.
import contextlib
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BUILD_DIR", ROOT / "build"))
HPLANE = Path(os.environ.get("HPLANE", BUILD / "apps/hplane/hplane"))


# Every hplane this session started (pid, start, end): none may leave
# DPDK's runtime directory behind (dpdk_runtime_dirs_left, at the end).
HPLANE_RUNS = []


def dpdk_runtime_dir(pid):
    """Where DPDK 22.11 puts the runtime directory of an hplane run with
    the default EAL arguments (file prefix hplane<pid>)."""
    base = "/var/run" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return Path(base) / "dpdk" / f"hplane{pid}"


def run_hplane(args, timeout=120, check=True, **kw):
    t0 = time.time()
    with subprocess.Popen([str(HPLANE)] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, **kw) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    HPLANE_RUNS.append((proc.pid, t0, time.time()))
    p = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if check and p.returncode != 0:
        raise AssertionError(f"hplane {' '.join(args)} exited {p.returncode}\n"
                             f"stdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}")
    return p


@contextlib.contextmanager
def hplane_live(args, netns=None):
    """`hplane run ARGS` in the background (inside netns when given),
    handed to the block once it has begun the measured phase (its
    'running' line). Leaving the block waits for it (60 s), and it must
    have exited 0; a block that fails kills it instead."""
    cmd = (["ip", "netns", "exec", netns] if netns else []) + [str(HPLANE), "run"] + list(args)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = ""
    try:
        for line in proc.stdout:
            if line.startswith("running"):
                break
        else:
            pytest.fail(f"hplane did not start: {proc.stderr.read()}")
        yield proc
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err


def summary(out_dir):
    with open(Path(out_dir) / "summary.json") as f:
        return json.load(f)


def assert_invariants(s):
    assert s["dropped_internal"] == 0, s
    assert s["verify_failures"] == 0, s
    assert s["mbufs_leaked"] == 0, s
    invalid = sum(s["dropped_invalid"].values())
    # a packet a task refused is dropped (task_error), one the policy's
    # admission refused (pythia target-rate) too (admission): never sent on
    assert s["packets_received"] == (s["packets_delivered"] + invalid + s["task_errors"]
                                     + s.get("dropped_admission", 0)), s
    apps = s.get("apps", [])
    if len(apps) == 1:  # the run's one app: its counters are the run's
        for k in ("packets_delivered", "dropped_port", "dropped_admission"):
            assert apps[0].get(k) == s.get(k, 0), (k, apps[0], s.get(k))


@pytest.fixture(scope="session", autouse=True)
def dpdk_runtime_dirs_left():
    """No /var/run/dpdk/hplane<pid> left behind by the suite's runs (each
    run used to leave one; hundreds after a suite)."""
    yield
    left = runtime_dirs_left(HPLANE_RUNS)
    assert not left, f"DPDK runtime directories left behind: {left[:5]}"


def runtime_dirs_left(runs):
    """The runtime directories of runs [(pid, start, end)] still there. A
    directory made outside a run's time belongs to a later process that
    got the same pid (other programs use DPDK on this machine too)."""
    left = []
    for pid, t0, t1 in runs:
        try:
            ct = dpdk_runtime_dir(pid).stat().st_ctime
        except FileNotFoundError:
            continue
        if t0 - 1 <= ct <= t1 + 1:
            left.append(str(dpdk_runtime_dir(pid)))
    return left


@pytest.fixture(scope="session")
def hplane():
    if not HPLANE.exists():
        pytest.fail(f"{HPLANE} not built (run make build)")
    return HPLANE


# Values no flag should take quietly: empty, junk, negative, huge, NaN,
# infinities, what wraps a 32-bit parse (4294967551 is 255 + 2^32), blanks
# around a number, an empty list item, a newline and a terminal escape.
HOSTILE = ["", "x", "-1", "0", "1e99", "99999999999999999999", "nan", "inf", "1e400",
           "4294967551", " 1", "1 ", "1,,2", "a\nb", "\x1b[2J"]
# Not a number at all, or not a finite one, or not whole: a flag whose
# value is a number must refuse each itself (its name in the line).
NOT_NUMBERS = ["", "x", "-1", "nan", "inf", "-inf", "1e400", " 1", "1 ", "0x10", "1y",
               "99999999999999999999"]
NUMBER_ARGS = {"N", "S", "PPS", "US", "T", "A", "X", "HEX"}


def help_flags(help_text):
    """(flag, ARG or '', the flag's help text) for every `  --flag [ARG]`
    line of help_text."""
    found = list(re.finditer(r"^  (--[a-z0-9-]+)( [A-Z]+)?", help_text, re.M))
    return [(m.group(1), (m.group(2) or "").strip(),
             help_text[m.start():found[i + 1].start() if i + 1 < len(found) else None])
            for i, m in enumerate(found)]


def assert_one_line(p, what):
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1, (what, p.returncode, p.stderr)
    assert not any(c in lines[0] for c in "\x1b\r"), (what, lines[0])
    return lines[0]


def assert_every_flag_refused(run, help_text, head, tail, values=HOSTILE, numbers=False,
                              repeats=False, repeatable=(), only=None):
    """Every `  --flag [ARG]` of help_text (or those of it named in only),
    with each hostile value, between head and tail (tail is an argument
    the program refuses, so no run starts): run(args) must exit 2 with one
    line on stderr and no raw control character in it. numbers: a flag whose ARG is a number
    (NUMBER_ARGS) refuses each of NOT_NUMBERS in a line naming it.
    repeats: a flag with a value, given twice (with its default from the
    help, or a value its parser takes), is refused in a line that says so,
    but those in repeatable. Returns the number of runs."""
    flags = help_flags(help_text)
    assert len(flags) > 15, flags
    if only is not None:
        flags = [f for f in flags if f[0] in only]
        assert {f[0] for f in flags} == set(only), (flags, only)
    n = 0
    for flag, arg, text in flags:
        if flag == "--help":
            continue
        for v in (values if arg else [None]):
            assert_one_line(run(head + [flag] + ([v] if v is not None else []) + tail),
                            (flag, v))
            n += 1
        if numbers and arg in NUMBER_ARGS:
            for v in NOT_NUMBERS:
                line = assert_one_line(run(head + [flag, v] + tail), (flag, v))
                assert flag in line, (flag, v, line)
                n += 1
        if repeats and arg and flag not in repeatable:
            d = re.search(r"\[([0-9.]+|[a-z]+)\]", text)
            v = "0" * 32 if arg == "HEX" else d.group(1) if d else "1"
            line = assert_one_line(run(head + [flag, v, flag, v] + tail), (flag, "twice"))
            assert flag in line and "twice" in line, (flag, v, line)
            n += 1
    return n


def veth_namespaces(prefix, pairs, tools=("ip", "tcpreplay"), mtu=None):
    """Two network namespaces (host side, sender side) and `pairs` veth
    pairs between them, each pair's first end in the host namespace, up,
    IPv6 off (every frame on a link is the test's), removed at the end.
    A generator for a module fixture: yields (host_ns, sender_ns, ends)
    with ends = [a0, b0, a1, b1, ...]; skips without root or the tools."""
    import shutil
    import uuid
    if os.geteuid() != 0 or not all(shutil.which(t) for t in tools):
        pytest.skip("needs root and " + ", ".join(tools))
    tag = uuid.uuid4().hex[:6]
    nh, ns = f"{prefix}h{tag}", f"{prefix}s{tag}"
    ends = [f"{prefix}{i}{tag}" for i in range(2 * pairs)]

    def sh(*cmd):
        return subprocess.run(cmd, check=True, capture_output=True, text=True)
    try:
        sh("ip", "netns", "add", nh)
        sh("ip", "netns", "add", ns)
    except subprocess.CalledProcessError as e:
        subprocess.run(["ip", "netns", "del", nh], capture_output=True)
        pytest.skip(f"cannot create a network namespace here: {e.stderr!r}")
    try:
        for k in range(pairs):
            sh("ip", "link", "add", ends[2 * k], "type", "veth", "peer", "name", ends[2 * k + 1])
        for k, i in enumerate(ends):
            n = nh if k % 2 == 0 else ns
            sh("ip", "link", "set", i, "netns", n)
            subprocess.run(["ip", "netns", "exec", n, "sysctl", "-qw",
                            f"net.ipv6.conf.{i}.disable_ipv6=1"], capture_output=True)
            sh("ip", "netns", "exec", n, "ip", "link", "set", i,
               *(("mtu", str(mtu)) if mtu else ()), "up")
        yield nh, ns, ends
    finally:
        subprocess.run(["ip", "netns", "del", nh], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def pattern_bytes(line):
    """One line of a pattern file (docs/nf.md), read independently of the C
    code: raw bytes, |hex| (spaces allowed inside) and backslash escapes."""
    out, i = bytearray(), 0
    while i < len(line):
        c = line[i:i + 1]
        if c == b"|":
            j = line.index(b"|", i + 1)
            out += bytes.fromhex(line[i + 1:j].decode().replace(" ", ""))
            i = j + 1
        elif c == b"\\":
            out += line[i + 1:i + 2]
            i += 2
        else:
            out += c
            i += 1
    return bytes(out)
