# SPDX-License-Identifier: BSD-3-Clause
"""The attacks of issue 25 on hp-smppd, each run with the server's default
limits (the flags the server had before the issue, so the same test runs
against the old binary: BUILD_DIR=<old build> shows each one failing).
Timed bounds are the issue's (1 s, 50 ms p99, 10 % of a CPU); the loaded
2-vCPU VM gets a second try where a single slow moment could spoil a
measurement, never a looser bound."""
import os
import re
import resource
import socket
import struct
import subprocess
import sys
import threading
import time

import pytest

smpplib_client = pytest.importorskip("smpplib.client")

from smppd_util import Server, bind, closed_within, connect, read_pdu, submit  # noqa: E402


def smpplib_bind(port, timeout=5):
    c = smpplib_client.Client("127.0.0.1", port, timeout=timeout, allow_unknown_opt_params=True)
    c.connect()
    c.bind_transmitter(system_id="esme1", password="secret1")
    return c


def test_idle_sockets_do_not_lock_out_a_client(tmp_path):
    """200 connections that send nothing, then a good client binds within
    1 s (before: 64 idle connections locked everyone out)."""
    srv = Server(tmp_path)
    idle = []
    try:
        for _ in range(200):
            idle.append(connect(srv.port))
        time.sleep(0.2)     # the server has seen them
        took = []
        for attempt in range(2):
            t0 = time.monotonic()
            c = smpplib_bind(srv.port, timeout=3)
            took.append(time.monotonic() - t0)
            c.unbind()
            c.disconnect()
            if took[-1] <= 1.0:
                break
        print("bind behind 200 idle connections: %.3f s" % took[-1])
        assert took[-1] <= 1.0, took
    finally:
        for s in idle:
            s.close()
        srv.stop()


def test_stalled_half_pdu_is_closed(tmp_path):
    """A session that sends half a PDU and stops is closed after the
    inter-PDU timeout (default 5 s); before, it stayed forever."""
    srv = Server(tmp_path)
    try:
        s = connect(srv.port)
        s.sendall(bind("esme1", "secret1"))
        assert read_pdu(s)[0][2] == 0
        s.sendall(submit(seq=2)[:10])            # command_length says more
        t0 = time.monotonic()
        assert closed_within(s, 15), "still open after 15 s"
        assert 4.5 <= time.monotonic() - t0 <= 15
        # a whole PDU arriving slowly is not a stall: 10 octets a second
        # over 3 s is well within 5 s
        s2 = connect(srv.port)
        s2.sendall(bind("esme1", "secret1"))
        assert read_pdu(s2)[0][2] == 0
        p = submit(seq=3, text=b"slow but whole")
        for i in range(0, len(p), 30):
            s2.sendall(p[i:i + 30])
            time.sleep(1)
        s2.settimeout(5)
        assert read_pdu(s2)[0][1:] == (0x80000004, 0, 3)
        s2.close()
    finally:
        srv.stop()


FLOOD = r"""
import socket, struct, sys, threading
port, secs = int(sys.argv[1]), float(sys.argv[2])
s = socket.create_connection(("127.0.0.1", port))
cs = lambda x: x + b"\0"
b = cs(b"esme2") + cs(b"pw2") + cs(b"") + bytes([0x34, 0, 0]) + cs(b"")
s.sendall(struct.pack(">IIII", 16 + len(b), 2, 0, 1) + b)
def sub(i):
    body = cs(b"") + bytes([1, 1]) + cs(b"4670001") + bytes([1, 1]) + cs(b"4670002") + bytes([0, 0, 0]) + cs(b"") + cs(b"") + bytes([0, 0, 0, 0, 20]) + b"flooding the server!"
    return struct.pack(">IIII", 16 + len(body), 4, 0, i) + body
buf = b"".join(sub(i + 2) for i in range(20000))
def drain():
    while s.recv(1 << 20):
        pass
threading.Thread(target=drain, daemon=True).start()
import time
end = time.time() + secs
while time.time() < end:
    s.sendall(buf)
"""


def polite_rtts(port, n):
    """Round trips of bind, n x (submit, enquire_link), unbind (ms)."""
    rtt = []
    s = connect(port, timeout=10)

    def rt(p):
        t0 = time.perf_counter()
        s.sendall(p)
        r = read_pdu(s)
        rtt.append((time.perf_counter() - t0) * 1e3)
        return r
    assert rt(bind("esme1", "secret1"))[0][2] == 0
    for i in range(n):
        assert rt(submit(seq=10 + 2 * i))[0][1:3] == (0x80000004, 0)
        assert rt(struct.pack(">IIII", 16, 0x15, 0, 11 + 2 * i))[0][1] == 0x80000015
        time.sleep(0.005)
    assert rt(struct.pack(">IIII", 16, 6, 0, 9))[0][1] == 0x80000006
    s.close()
    return sorted(rtt)


def test_flooding_session_does_not_starve_a_polite_one(tmp_path):
    """One session pipelines submits as fast as it can; another does its
    round trips: p99 <= 50 ms (before: over 3 s)."""
    srv = Server(tmp_path)
    fl = subprocess.Popen([sys.executable, "-c", FLOOD, str(srv.port), "30"])
    try:
        time.sleep(1.0)        # the flood is on
        assert fl.poll() is None
        for attempt in range(2):
            rtt = polite_rtts(srv.port, 100)
            p99 = rtt[int(0.99 * len(rtt)) - 1]
            if p99 <= 50:
                break
        print("polite round trips: p50 %.2f ms, p99 %.2f ms, max %.2f ms"
              % (rtt[len(rtt) // 2], p99, rtt[-1]))
        assert p99 <= 50, (p99, rtt[-5:])
        assert fl.poll() is None, "the flooder was cut off"
    finally:
        fl.kill()
        fl.wait()
        srv.stop()


def test_out_of_descriptors_costs_no_cpu_and_serves(tmp_path):
    """ulimit -n 32 and 64 connections: accept4 fails with EMFILE. The
    server uses < 10 % of a CPU meanwhile (before: a busy loop, 2.15 s of
    CPU in 3 s), a bound session keeps working, and a new client still
    binds while the 64 are open."""
    def low_fds():
        resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))
    srv = Server(tmp_path, preexec_fn=low_fds)
    conns = []
    try:
        good = smpplib_bind(srv.port)
        for _ in range(64):
            try:
                conns.append(connect(srv.port, timeout=2))
            except OSError:
                pass
        time.sleep(0.5)
        for attempt in range(2):
            cpu0, t0 = srv.cpu_seconds(), time.monotonic()
            for i in range(20):
                seq = good.send_message(source_addr="1", destination_addr="2",
                                        short_message=b"still here").sequence
                r = good.read_pdu()
                assert (r.command, r.status, r.sequence) == ("submit_sm_resp", 0, seq)
                time.sleep(0.15)
            share = (srv.cpu_seconds() - cpu0) / (time.monotonic() - t0)
            if share < 0.10:
                break
        print("server CPU while out of descriptors: %.1f %%" % (100 * share))
        assert share < 0.10, share
        t0 = time.monotonic()
        c = smpplib_bind(srv.port)
        assert time.monotonic() - t0 < 5
        c.unbind()
        c.disconnect()
        good.unbind()
        good.disconnect()
    finally:
        for s in conns:
            s.close()
        srv.stop()


def test_message_ids_unique_across_restarts(tmp_path):
    """Start, submit, stop, three times: no message id repeats (before:
    every run counted from 0000000000000001)."""
    ids = []
    for run in range(3):
        srv = Server(tmp_path, name="run%d" % run)
        try:
            c = smpplib_bind(srv.port)
            for i in range(50):
                c.send_message(source_addr="1", destination_addr="2", short_message=b"x")
                r = c.read_pdu()
                assert r.status == 0
                ids.append(r.message_id.decode())
            c.unbind()
            c.disconnect()
        finally:
            srv.stop()
    assert len(set(ids)) == 150, [i for i in ids if ids.count(i) > 1][:5]
    assert all(re.fullmatch("[0-9a-f]{16}", i) for i in ids)
