# SPDX-License-Identifier: BSD-3-Clause
"""hp-smpptune (thesis 3.3.1 tuner): sweeps batch sizes x threads x forms
from a config file into CSV, from the generator or from a file of PDUs,
and refuses the GPU keys of a later issue."""
import csv
import io
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))


def prog(*p):
    path = os.path.join(BUILD, "smpp", *p)
    assert os.access(path, os.X_OK), "%s not built (BUILD_DIR=%s)" % (path, BUILD)
    return path


def tune(conf_text, tmp_path):
    conf = tmp_path / "tune.conf"
    conf.write_text(conf_text)
    out = tmp_path / "out.csv"
    r = subprocess.run([prog("tools", "hp-smpptune"), "-c", str(conf), "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    return r, (list(csv.DictReader(io.StringIO(out.read_text()))) if out.exists() else [])


def test_tuner_sweep_generator(tmp_path):
    r, rows = tune("# sweep\nbatch_sizes = 500,2000\nthreads = 1,2\n"
                   "forms = plain,element\nrepeats = 3\nmsg_len = 40\ntlvs = 3\n", tmp_path)
    assert r.returncode == 0, r.stderr
    assert [(x["form"], x["batch"], x["threads"]) for x in rows] == [
        (f, b, t) for f in ("plain", "element") for b in ("500", "2000") for t in ("1", "2")]
    for x in rows:
        assert x["errors"] == "0"
        assert float(x["pdus_per_s"]) > 0
        assert float(x["min_latency_ms"]) <= float(x["mean_latency_ms"]) <= float(x["max_latency_ms"])


def test_tuner_input_file_and_refusals(tmp_path):
    pdus = tmp_path / "pdus.bin"
    subprocess.run([os.path.join(BUILD, "bench", "smpp", "bench_smpp"), "-w", str(pdus), "-n", "300"], check=True, timeout=60)
    r, rows = tune("input = %s\nbatch_sizes = 1000\nthreads = 2\nrepeats = 2\n" % pdus, tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(rows) == 1 and rows[0]["errors"] == "0"
    r, _ = tune("batch_sizes = 1000\ngrid = 64\n", tmp_path)
    assert r.returncode == 2 and "GPU" in r.stderr
    r, _ = tune("bogus = 1\n", tmp_path)
    assert r.returncode == 2 and "unknown key" in r.stderr
    pdus.write_bytes(b"\x00\x00\x00\x05garbage")
    r, _ = tune("input = %s\nbatch_sizes = 10\n" % pdus, tmp_path)
    assert r.returncode != 0


# Bad flags of every SMPP tool: one line naming the flag, exit 2; -h the
# usage on stdout, exit 0. (A count of -1 once became 4 billion threads
# through atoi; a bad flag printed the whole usage.)
@pytest.mark.parametrize("tool,args,needle", [
    ("hp-smppdump", ["-t", "-1", "x"], "-t: expected a number 1..256"),
    ("hp-smppdump", ["-L", "99999999999", "x"], "-L: expected a number"),
    ("hp-smppdump", ["-c", "300", "x"], "-c: expected a number 0..255"),
    ("hp-smppdump", ["-M", "fast", "x"], "-M: expected cpu, auto, gpu or gpu-fused"),
    ("hp-smppdump", ["-m", "zz", "x"], "-m: expected 1..16 octets in hex"),
    ("hp-smppdump", ["-c"], "-c needs a value"),
    ("hp-smppdump", ["-Q", "x"], "unknown flag -Q"),
    ("hp-smppdump", [], "no input FILE"),
    ("hp-smppdump", ["a", "b"], "one input FILE only"),
    ("hp-smppd", ["-p", "70000"], "-p: expected a number 0..65535"),
    ("hp-smppd", ["-t", "abc"], "-t: expected a number 1..256"),
    ("hp-smppd", ["--help"], "-h gives the usage"),
    ("hp-smppsim", ["-B", "rx"], "-B: expected tx or trx"),
    ("hp-smppsim", ["-r", "nan"], "-r: expected a number"),
    ("hp-smppsim", ["extra"], "unexpected argument"),
    ("hp-smpptune", ["-x"], "unknown flag -x"),
    ("hp-smpptune", [], "need -c CONFIG"),
])
def test_bad_flags_one_line(tool, args, needle):
    r = subprocess.run([prog("tools", tool)] + args, capture_output=True, text=True,
                       timeout=30, stdin=subprocess.DEVNULL)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], (r.returncode, r.stderr)
    assert lines[0].startswith(tool + ": ")


@pytest.mark.parametrize("tool", ["hp-smppdump", "hp-smppd", "hp-smppsim", "hp-smpptune"])
def test_help_on_stdout(tool):
    r = subprocess.run([prog("tools", tool), "-h"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and r.stdout.startswith("usage: " + tool) and r.stderr == ""
