# SPDX-License-Identifier: BSD-3-Clause
"""hp-smppsim (thesis 4.1 simulator) over 127.0.0.1 against hp-smppd: N
sessions bind and submit the thesis workload at a target TPS; the report
counts every submit answered ESME_ROK, latency percentiles are ordered,
pacing never runs ahead of the target; wrong credentials and a server's
session limit are reported as errors with a non-zero exit. File mode
writes PDUs that hp-smppdump and Python smpplib both read back. (The
simulator against a Cloudhopper server is a JUnit test in smpp/java.)"""
import json
import subprocess

import pytest

from smppd_util import tool


@pytest.fixture
def smppd(tmp_path):
    """hp-smppd on a free port; returns a function starting one with extra args."""
    users = tmp_path / "users.conf"
    users.write_text("user esme1 secret1\nuser esme2 pw2\n")
    procs = []

    def start(*extra):
        p = subprocess.Popen([tool("hp-smppd"), "-c", str(users), "-a", "127.0.0.1",
                              "-p", "0"] + list(extra),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(p)
        line = p.stdout.readline()
        assert "listening on 127.0.0.1:" in line, line + p.stderr.read()
        return line.rsplit(":", 1)[1].strip()

    yield start
    for p in procs:
        p.terminate()
        assert p.wait(timeout=10) == 0


def sim(port, *args, user="esme1", pw="secret1"):
    r = subprocess.run([tool("hp-smppsim"), "-a", "127.0.0.1", "-p", port, "-u", user,
                        "-w", pw, "-j"] + list(args),
                       capture_output=True, text=True, timeout=60)
    return r, json.loads(r.stdout)


def test_sessions_at_target_tps(smppd):
    port = smppd("-b", "32", "-T", "2")
    r, j = sim(port, "-n", "4", "-r", "2000", "-c", "250", "-W", "32")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (j["sessions"], j["bound"], j["failed_sessions"]) == (4, 4, 0)
    assert j["sent"] == j["answered"] == j["ok"] == 1000
    assert j["errors"] == {} and j["unanswered"] == 0 and j["unexpected_responses"] == 0
    lat = j["latency_ms"]
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p999"] <= lat["max"]
    # pacing: the last of 250 submits per session is due at 250 / 500 s, so
    # the send phase cannot be shorter (a slow machine only makes it longer)
    assert j["send_s"] >= 0.5 - 1e-3
    assert j["sent_tps"] <= 2000 * 1.002


def test_transceiver_many_sessions_duration(smppd):
    port = smppd()
    r, j = sim(port, "-n", "12", "-B", "trx", "-r", "600", "-d", "0.5", "-l", "60", "-k", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert j["bound"] == 12 and j["sent"] > 0
    assert j["sent"] == j["ok"] and j["unanswered"] == 0


def test_wrong_password_is_reported(smppd):
    port = smppd()
    r, j = sim(port, "-n", "2", "-d", "0.2", pw="nope")
    assert r.returncode == 1
    assert j["bound"] == 0 and j["sent"] == 0
    assert "ESME_RINVPASWD" in j["first_failure"]
    assert r.stderr.strip().splitlines() == ["hp-smppsim: no session bound (bind refused: ESME_RINVPASWD)"]


def test_session_limit_counts_failed_sessions(smppd):
    port = smppd("-m", "3")
    r, j = sim(port, "-n", "5", "-r", "500", "-c", "20", "-T", "2")
    assert r.returncode == 1
    assert j["bound"] == 3 and j["failed_sessions"] == 2
    assert j["sent"] == j["ok"] == 60 and j["unanswered"] == 0


def test_no_server_and_bad_arguments():
    r = subprocess.run([tool("hp-smppsim"), "-a", "127.0.0.1", "-p", "1", "-u", "a",
                        "-w", "b", "-d", "0.1"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "no session bound (connect 127.0.0.1:1" in r.stderr
    r = subprocess.run([tool("hp-smppsim"), "-n", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == "hp-smppsim: -n: expected a number 1..1024"


def test_file_mode_read_back(tmp_path):
    import smpplib.smpp as smpp
    plain, elem = tmp_path / "plain.bin", tmp_path / "elem.bin"
    subprocess.run([tool("hp-smppsim"), "-o", str(plain), "-N", "300"], check=True)
    subprocess.run([tool("hp-smppsim"), "-o", str(elem), "-N", "300", "-e", "-C", "8",
                    "-l", "100", "-k", "7"], check=True)
    for args, f in (([], plain), (["-e", "-c", "8"], elem)):
        r = subprocess.run([tool("hp-smppdump")] + args + [str(f)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0
        lines = [json.loads(x) for x in r.stdout.splitlines()]
        assert len(lines) == 300 and all(x["error"] == "ESME_ROK" for x in lines), lines[0]
    data, off = plain.read_bytes(), 0
    for i in range(300):
        n = int.from_bytes(data[off:off + 4], "big")
        p = smpp.parse_pdu(data[off:off + n], sequence=0, allow_unknown_opt_params=True)
        assert p.command == "submit_sm"
        assert p.source_addr == ("9477%07d" % i).encode()
        assert p.destination_addr == ("9471%07d" % (i * 7919 % 10000000)).encode()
        assert len(p.short_message) == 20
        off += n
    assert off == len(data)
