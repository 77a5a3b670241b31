# SPDX-License-Identifier: BSD-3-Clause
"""hp-smpptune (thesis 3.3.1 tuner): sweeps batch sizes x threads x forms
from a config file into CSV, from the generator or from a file of PDUs,
and refuses the GPU keys of a later issue; every SMPP tool's bad flags, and
hp-smppd's bad files (users, TLS certificate and key, stats socket), give
one line and exit 2."""
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
    ("hp-smppd", ["-o", "window=0"], "-o window: expected an integer 1..65535"),
    ("hp-smppd", ["-o", "window=1.5"], "-o window: expected an integer"),
    ("hp-smppd", ["-o", "dlr_delay=-1"], "-o dlr_delay: expected a number 0..86400"),
    ("hp-smppd", ["-o", "bind_timeout=nan"], "-o bind_timeout: expected a number"),
    ("hp-smppd", ["-o", "backlog=70000"], "-o backlog: expected an integer 1..65535"),
    ("hp-smppd", ["-o", "store=1e9"], "-o store: expected an integer 16..1e+07"),
    ("hp-smppd", ["-o", "bogus=1"], "-o: unknown key 'bogus'"),
    ("hp-smppd", ["-o", "window"], "-o: expected KEY=VALUE"),
    ("hp-smppd", ["-o", "final=LOST"], "-o final: expected DELIVRD, EXPIRED"),
    ("hp-smppd", ["-v", "loud"], "-v: expected error, warn, info or debug"),
    ("hp-smppd", ["-a", "300.1.1.1"], "-a: not an IPv4 or IPv6 address"),
    ("hp-smppd", ["-a", "[::1"], "-a: not an IPv4 or IPv6 address"),
    ("hp-smppd", ["-m", "0"], "-m: expected a number 1..65536"),
    ("hp-smppd", ["-S", "99999"], "-S: expected a number 0..65535"),
    ("hp-smppd", ["-S", "0", "-C", "c.pem"], "-S needs -C CERT_PEM and -K KEY_PEM"),
    ("hp-smppd", ["-C", "c.pem", "-K", "k.pem"], "-C and -K go with -S TLS_PORT"),
    ("hp-smppd", ["-c", "/nonexistent/users"], "-c /nonexistent/users: No such file"),
    ("hp-smppd", ["-H", "far_too_long_system_id"], "-H: system_id of 1-15 characters"),
    ("hp-smppd", ["-q", "/nonexistent/stats.sock"], "-q /nonexistent/stats.sock: No such file"),
    ("hp-smppd", ["-q"], "-q needs a value"),
    ("hp-smppd", ["-c", "u", "x"], "unexpected argument 'x'"),
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


# Bad files and file arguments of hp-smppd: the users file line by line, the
# TLS certificate and key, the stats socket path; one line, exit 2. The
# users file of the TLS and stats cases is hashed, so that no warning about
# plain-text passwords comes first.
HASHED = ("user esme1 $pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$"
          "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n")


@pytest.mark.parametrize("users,needle", [
    ("", "no 'user SYSTEM_ID SECRET' line"),
    ("user a\n", "line 1: expected 'user SYSTEM_ID SECRET [binds=N]'"),
    ("# x\nuser abcdefghijklmnop pw\n", "line 2: system_id longer than 15"),
    ("user a 123456789\n", "line 1: password longer than 8"),
    ("user a b\nuser a c\n", "line 2: system_id listed twice"),
    ("user a b binds=0\n", "line 1: binds= expects 1..65536"),
    ("user a b mode=x\n", "line 1: unknown option"),
    ("user a $md5$abc\n", "line 1: unknown hash"),
    ("user a $pbkdf2-sha256$10$00112233445566778899aabbccddeeff$00\n",
     "line 1: hash: iterations must be 1000..10000000"),
    ("user a $pbkdf2-sha256$1000$0011$00\n", "line 1: hash: salt must be 8..64 octets"),
    ("user a $pbkdf2-sha256$1000$00112233445566778899aabbccddeeff$00\n",
     "line 1: hash: PBKDF2-HMAC-SHA256 output must be 32 octets"),
    ("user a b\x00\n", "line 1: a NUL octet"),
])
def test_smppd_bad_users_file(tmp_path, users, needle):
    f = tmp_path / "users"
    f.write_bytes(users.encode())
    r = subprocess.run([prog("tools", "hp-smppd"), "-c", str(f), "-p", "0"],
                       capture_output=True, text=True, timeout=30)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], r.stderr
    assert lines[0].startswith("hp-smppd: -c %s: " % f)


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tlsbad")
    for name in ("a", "b"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                        str(d / (name + "-key.pem")), "-out", str(d / (name + "-cert.pem")),
                        "-days", "2", "-subj", "/CN=x"], check=True, capture_output=True,
                       timeout=60)
    (d / "junk.pem").write_text("not a certificate\n")
    (d / "users").write_text(HASHED)
    (d / "file").write_text("x")
    return d


@pytest.mark.parametrize("args,needle", [
    (["-S", "0", "-C", "{d}/nope.pem", "-K", "{d}/a-key.pem"], "-C {d}/nope.pem: No such file"),
    (["-S", "0", "-C", "{d}/junk.pem", "-K", "{d}/a-key.pem"],
     "-C {d}/junk.pem: not a PEM certificate chain"),
    (["-S", "0", "-C", "{d}/a-cert.pem", "-K", "{d}/junk.pem"],
     "-K {d}/junk.pem: not a PEM private key"),
    (["-S", "0", "-C", "{d}/a-cert.pem", "-K", "{d}/b-key.pem"],
     "-K {d}/b-key.pem: does not match the certificate of -C {d}/a-cert.pem"),
    (["-s", "{d}/file"], "-s {d}/file: exists and is not a socket"),
    (["-s", "{d}/" + "x" * 120], "-s: path longer than 107 characters"),
    (["-s", "{d}/nodir/stats.sock"], "-s {d}/nodir/stats.sock: No such file"),
])
def test_smppd_bad_tls_and_stats_files(tls_files, args, needle):
    d = str(tls_files)
    args = [a.replace("{d}", d) for a in args]
    r = subprocess.run([prog("tools", "hp-smppd"), "-c", d + "/users", "-p", "0"] + args,
                       capture_output=True, text=True, timeout=30)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert needle.replace("{d}", d) in lines[0] and lines[0].startswith("hp-smppd: "), r.stderr


def test_smppd_hash_tool_refusals():
    for pw, needle in (("", "no password on stdin"), ("\n", "1-8 characters"),
                       ("123456789\n", "1-8 characters")):
        r = subprocess.run([prog("tools", "hp-smppd"), "-H", "esme1"], input=pw,
                           capture_output=True, text=True, timeout=30)
        lines = r.stderr.splitlines()
        assert r.returncode == 2 and len(lines) == 1 and needle in lines[0], r.stderr
