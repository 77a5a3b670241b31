# SPDX-License-Identifier: BSD-3-Clause
"""hp-smppd as an SMSC simulator, with independent clients: Python smpplib
binds (plain, TLS and IPv6), submits with registered_delivery=1 and gets a
delivery receipt that its own PDU parser reads (receipted_message_id,
message_state) and whose text a plain regex reads; query_sm, cancel_sm and
replace_sm on the stored message; submit_multi and data_sm; time fields;
refusals answered before the close (wrong password, over a limit); the
window and the store's bound; the server's enquire_link and unbind on
silence; users-file hashes made by Python's hashlib and by -H; the stats
socket. Raw PDUs are built with struct from the v3.4 layouts."""
import hashlib
import json
import os
import re
import socket
import ssl
import struct
import subprocess
import time

import pytest

smpplib_client = pytest.importorskip("smpplib.client")
from smpplib import exceptions, smpp  # noqa: E402

from smppd_util import (Server, bind, closed_within, connect, cs, cstr_at,  # noqa: E402
                        pbkdf2_line, pdu, read_pdu, submit, tool)

RECEIPT = re.compile(r"id:(\S+) sub:(\d{3}) dlvrd:(\d{3}) submit date:(\d{10}) "
                     r"done date:(\d{10}) stat:(\w{7}) err:(\d{3}) text:(.*)", re.S)
USERS = pbkdf2_line("esme1", "secret1") + "\nuser esme2 pw2\n"


@pytest.fixture
def servers(tmp_path):
    started = []

    def start(*args, **kw):
        s = Server(tmp_path, args, name="smppd%d" % len(started), **kw)
        started.append(s)
        return s
    yield start
    for s in started:
        s.stop()


def client(port, host="127.0.0.1", ssl_context=None):
    c = smpplib_client.Client(host, port, timeout=10, allow_unknown_opt_params=True,
                              ssl_context=ssl_context)
    c.connect()
    return c


def ack(c, d):
    r = smpp.make_pdu("deliver_sm_resp", client=c)
    r.sequence = d.sequence          # make_pdu does not keep a sequence= argument
    c.send_pdu(r)


def receipt_roundtrip(c):
    """submit with registered_delivery=1 on a transceiver, read the receipt,
    query the message; returns the message id."""
    c.send_message(source_addr_ton=1, source_addr="46700001", dest_addr_ton=1,
                   destination_addr="46700002", short_message=b"hello receipt",
                   registered_delivery=1)
    r = c.read_pdu()
    assert (r.command, r.status) == ("submit_sm_resp", 0)
    mid = r.message_id.decode()
    assert re.fullmatch("[0-9a-f]{16}", mid)
    d = c.read_pdu()
    assert d.command == "deliver_sm"
    assert d.esm_class & 0x3C == 0x04                 # SMSC delivery receipt (5.2.12)
    assert d.receipted_message_id.decode() == mid     # 5.3.2.12
    assert d.message_state == 2                       # DELIVERED (5.2.28)
    assert d.source_addr == b"46700002" and d.destination_addr == b"46700001"
    m = RECEIPT.fullmatch(d.short_message.decode())
    assert m, d.short_message
    assert (m.group(1), m.group(2), m.group(3), m.group(6), m.group(7), m.group(8)) == (
        mid, "001", "001", "DELIVRD", "000", "hello receipt")
    ack(c, d)
    c.query_message(message_id=mid, source_addr_ton=1, source_addr="46700001")
    q = c.read_pdu()
    assert (q.command, q.status, q.message_id.decode(), q.message_state) == (
        "query_sm_resp", 0, mid, 2)
    assert re.fullmatch(rb"\d{12}\d00\+", q.final_date), q.final_date
    return mid


def test_receipt_and_query_plain(servers):
    srv = servers(users=USERS)
    c = client(srv.port)
    r = c.bind_transceiver(system_id="esme1", password="secret1")   # hashlib's hash
    assert r.status == 0 and r.sc_interface_version == 0x34          # 5.3.2.25
    receipt_roundtrip(c)
    c.unbind()
    c.disconnect()


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(d / "key.pem"),
                    "-out", str(d / "cert.pem"), "-days", "2", "-subj", "/CN=localhost"],
                   check=True, capture_output=True, timeout=60)
    return d / "cert.pem", d / "key.pem"


def test_tls_bind_receipt_query(servers, cert):
    srv = servers("-s", str(cert[0].parent / "st.sock"), users=USERS, tls=cert)
    ctx = ssl.create_default_context(cafile=str(cert[0]))
    ctx.check_hostname = False      # the certificate names localhost, we dial 127.0.0.1
    c = client(srv.tls_port, ssl_context=ctx)
    assert c.bind_transceiver(system_id="esme1", password="secret1").status == 0
    receipt_roundtrip(c)
    st = json.loads(subprocess.run([tool("hp-smppd"), "-q", str(cert[0].parent / "st.sock")],
                                   capture_output=True, text=True, timeout=10,
                                   check=True).stdout)
    (sess,) = st["session_list"]
    assert sess["tls"] is True and sess["state"] == "trx" and sess["system_id"] == "esme1"
    c.unbind()
    c.disconnect()
    # plain text on the TLS port is not SMPP: the handshake fails, closed
    s = connect(srv.tls_port)
    s.sendall(bind("esme1", "secret1"))
    assert closed_within(s, 5)
    # and the plain port still serves
    c = client(srv.port)
    assert c.bind_transmitter(system_id="esme2", password="pw2").status == 0
    c.unbind()
    c.disconnect()


def test_ipv6(servers):
    try:
        socket.create_server(("::1", 0), family=socket.AF_INET6).close()
    except OSError:
        pytest.skip("no IPv6 loopback")
    srv = servers("-a", "::1", users=USERS)
    s = socket.create_connection(("::1", srv.port), timeout=5)
    s.sendall(bind("esme2", "pw2"))
    assert read_pdu(s)[0][1:3] == (0x80000002, 0)
    s.close()


def refused_then_closed(port, pdu_bytes, cmd, status):
    s = connect(port)
    s.sendall(pdu_bytes)
    (_, cid, st, _), _ = read_pdu(s)
    assert (cid, st) == (cmd, status)
    assert closed_within(s, 5), "not closed after the refusal"


def test_refusals_before_the_close(servers):
    srv = servers("-m", "3", users=pbkdf2_line("esme1", "secret1") + " binds=2\nuser esme2 pw2\n")
    # wrong password: hashed (first check on the worker), then plain
    refused_then_closed(srv.port, bind("esme1", "nope"), 0x80000002, 0x0E)
    refused_then_closed(srv.port, bind("esme2", "nope"), 0x80000002, 0x0E)
    refused_then_closed(srv.port, bind("nobody", "x"), 0x80000002, 0x0F)
    # esme1 may bind twice (binds=2): the third gets ESME_RTHROTTLED; in
    # between, a wrong password once the right one is known (the cached
    # check, no PBKDF2)
    held = []
    for cmd in (2, 1):
        s = connect(srv.port)
        s.sendall(bind("esme1", "secret1", cmd=cmd))
        assert read_pdu(s)[0][1:3] == (0x80000000 | cmd, 0)
        held.append(s)
        if cmd == 2:
            refused_then_closed(srv.port, bind("esme1", "secret2"), 0x80000002, 0x0E)
    refused_then_closed(srv.port, bind("esme1", "secret1", cmd=9), 0x80000009, 0x58)
    # server-wide -m 3: one more session, then ESME_RBINDFAIL
    s = connect(srv.port)
    s.sendall(bind("esme2", "pw2"))
    assert read_pdu(s)[0][2] == 0
    held.append(s)
    refused_then_closed(srv.port, bind("esme2", "pw2"), 0x80000002, 0x0D)
    # smpplib sees the same statuses
    c = client(srv.port)
    with pytest.raises(exceptions.PDUError) as e:
        c.bind_transmitter(system_id="esme2", password="pw2")
    assert e.value.args[1] == 0x0D
    c.disconnect()
    for s in held:
        s.close()


def resp_status(s, seq):
    (_, cid, st, sq), whole = read_pdu(s)
    assert sq == seq, (cid, st, sq)
    return cid, st, whole


def bound(port, system_id="esme2", password="pw2", cmd=2):
    s = connect(port)
    s.sendall(bind(system_id, password, cmd=cmd))
    assert read_pdu(s)[0][2] == 0
    return s


def query(s, mid, src="4670001", seq=50):
    s.sendall(pdu(3, cs(mid) + bytes([1, 1]) + cs(src), seq))
    cid, st, whole = resp_status(s, seq)
    assert cid == 0x80000003
    if st != 0:
        return st, None, None
    m, o = cstr_at(whole, 16)
    fin, o = cstr_at(whole, o)
    return st, whole[o], fin


def test_query_cancel_replace(servers):
    """Scheduled a day ahead, so both stay pending; replace_sm brings one
    forward and changes its text, which its receipt then quotes; cancel_sm
    deletes the other (no receipt for it)."""
    srv = servers(users=USERS)
    s = bound(srv.port, cmd=9)
    ids = []
    for seq, text in ((2, b"first text"), (3, b"other text")):
        s.sendall(submit(seq=seq, text=text, reg=1, sched=b"000001000000000R"))
        cid, st, whole = resp_status(s, seq)
        assert (cid, st) == (0x80000004, 0)
        ids.append(cstr_at(whole, 16)[0].decode())
    assert query(s, ids[0]) == (0, 1, b"")                       # ENROUTE, no final_date
    assert query(s, ids[0], src="999")[0] == 0x67                 # not this source: RQUERYFAIL
    assert query(s, "ffffffffffffffff")[0] == 0x67
    assert query(s, "not-an-id")[0] == 0x0C                       # ESME_RINVMSGID
    # replace_sm (4.10.1): message_id, source, schedule in 1 s, validity
    # kept, registered_delivery, sm_default_msg_id, the new text
    new = b"replaced text"
    s.sendall(pdu(7, cs(ids[0]) + bytes([1, 1]) + cs("4670001") + cs("000000000001000R") +
                  cs("") + bytes([1, 0, len(new)]) + new, 60))
    assert resp_status(s, 60)[:2] == (0x80000007, 0)
    # cancel_sm (4.9.1): service_type, message_id, source, destination
    s.sendall(pdu(8, cs("") + cs(ids[1]) + bytes([1, 1]) + cs("4670001") + bytes([1, 1]) +
                  cs(""), 61))
    assert resp_status(s, 61)[:2] == (0x80000008, 0)
    st, state, fin = query(s, ids[1])
    assert (st, state) == (0, 4) and len(fin) == 16                # DELETED, final_date
    s.sendall(pdu(8, cs("") + cs(ids[1]) + bytes([1, 1]) + cs("4670001") + bytes([1, 1]) +
                  cs(""), 62))
    assert resp_status(s, 62)[:2] == (0x80000008, 0x11)           # ESME_RCANCELFAIL
    s.sendall(pdu(7, cs(ids[1]) + bytes([1, 1]) + cs("4670001") + cs("") + cs("") +
                  bytes([0, 0, 1]) + b"x", 63))
    assert resp_status(s, 63)[:2] == (0x80000007, 0x13)           # ESME_RREPLACEFAIL
    # the receipt of the replaced one, about a second later (smpplib's parser)
    s.settimeout(15)
    (_, cid, _, seq), whole = read_pdu(s)
    assert cid == 0x00000005
    d = smpp.parse_pdu(whole, sequence=0, allow_unknown_opt_params=True)
    assert d.receipted_message_id.decode() == ids[0] and d.message_state == 2
    m = RECEIPT.fullmatch(d.short_message.decode())
    assert m and m.group(1) == ids[0] and m.group(6) == "DELIVRD" and m.group(8) == new.decode()
    s.sendall(pdu(0x80000005, cs(""), seq))
    assert query(s, ids[0])[1] == 2
    s.settimeout(1.5)                   # nothing for the cancelled one
    with pytest.raises(socket.timeout):
        read_pdu(s)
    s.close()


def test_time_fields_refused(servers):
    srv = servers(users=USERS)
    c = client(srv.port)
    c.bind_transmitter(system_id="esme2", password="pw2")
    cases = [({"validity_period": "garbage_garbage1"}, 0x62),
             ({"validity_period": "261301000000000+"}, 0x62),       # month 13
             ({"validity_period": "000101000000000+"}, 0x62),       # 2000: long over
             ({"schedule_delivery_time": "260431000000000+"}, 0x61),  # 31 April
             ({"schedule_delivery_time": "000001000000100R"}, 0x61),  # relative, tnn 100
             ({"schedule_delivery_time": "000000010000000R",
               "validity_period": "000000000010000R"}, 0x62),       # over before it is due
             ({"validity_period": "000001000000000R"}, 0),
             ({"schedule_delivery_time": "991231235959948-"}, 0)]
    for kw, want in cases:
        c.send_message(source_addr="1", destination_addr="2", short_message=b"t", **kw)
        assert c.read_pdu().status == want, kw
    c.unbind()
    c.disconnect()


def test_submit_multi_data_sm_and_dump(servers, tmp_path):
    srv = servers(users=USERS)
    s = bound(srv.port, "esme1", "secret1", cmd=9)
    dests = (bytes([1, 1, 1]) + cs("46711") + bytes([1, 1, 1]) + cs("46722") +
             bytes([2]) + cs("friends"))
    body = (cs("") + bytes([1, 1]) + cs("4670001") + bytes([3]) + dests + bytes([0, 0, 0]) +
            cs("") + cs("") + bytes([1, 0, 0, 0, 5]) + b"multi")
    s.sendall(pdu(0x21, body, 5))
    cid, st, whole = resp_status(s, 5)
    assert (cid, st) == (0x80000021, 0)
    mid, o = cstr_at(whole, 16)
    assert re.fullmatch(rb"[0-9a-f]{16}", mid)
    # no_unsuccess 1: the distribution list (ton, npi, address, status; v3.4 4.5.2)
    assert whole[o] == 1
    assert whole[o + 1:o + 3] == b"\0\0"
    dl, o2 = cstr_at(whole, o + 3)
    assert dl == b"friends" and struct.unpack(">I", whole[o2:o2 + 4])[0] == 0x34
    # hp-smppdump prints that entry without a dest_flag
    (tmp_path / "resp.bin").write_bytes(whole)
    j = json.loads(subprocess.run([tool("hp-smppdump"), str(tmp_path / "resp.bin")],
                                  capture_output=True, text=True, check=True).stdout)
    assert j["fields"]["unsuccess_sme"] == [{"ton": 0, "npi": 0, "addr": "friends",
                                             "error_status_code": 0x34}]
    # a receipt per SME address, both for the one id
    got = set()
    s.settimeout(10)
    for _ in range(2):
        (_, cid, _, seq), whole = read_pdu(s)
        assert cid == 5
        src, _ = cstr_at(whole, 16 + 1 + 2)
        assert mid in whole
        got.add(src)
        s.sendall(pdu(0x80000005, cs(""), seq))
    assert got == {b"46711", b"46722"}
    # data_sm: message_payload, no receipt asked
    payload = struct.pack(">HH", 0x0424, 7) + b"payload"
    s.sendall(pdu(0x103, cs("") + bytes([1, 1]) + cs("4670001") + bytes([1, 1]) +
                  cs("4670003") + bytes([0, 0, 0]) + payload, 6))
    cid, st, whole = resp_status(s, 6)
    assert (cid, st) == (0x80000103, 0) and re.fullmatch(rb"[0-9a-f]{16}", cstr_at(whole, 16)[0])
    assert query(s, cstr_at(whole, 16)[0].decode(), seq=7)[0] == 0
    # a receiver may not submit (v3.4 2.3)
    r = bound(srv.port, "esme2", "pw2", cmd=1)
    r.sendall(pdu(0x21, body, 8))
    assert resp_status(r, 8)[:2] == (0x80000021, 0x04)
    s.close()
    r.close()


def test_window_and_store_bounds(servers):
    # window 4, a slow batch flush: 10 pipelined submits, 6 throttled at once
    srv = servers("-b", "64", "-T", "2000", "-o", "window=4", users=USERS)
    s = bound(srv.port)
    s.sendall(b"".join(submit(seq=100 + i) for i in range(10)))
    got = {}
    for _ in range(10):
        (_, cid, st, seq), _ = read_pdu(s)
        got[seq] = st
    assert sorted(got.values()) == [0] * 4 + [0x58] * 6               # ESME_RTHROTTLED
    assert all(got[100 + i] == 0 for i in range(4))
    # store of 16, all pending (due in 10 minutes): the 17th is refused
    srv2 = servers("-o", "store=16", "-o", "dlr_delay=600", users=USERS)
    s2 = bound(srv2.port)
    for i in range(17):
        s2.sendall(submit(seq=200 + i))
        st = read_pdu(s2)[0][2]
        assert st == (0x14 if i == 16 else 0), (i, st)                 # ESME_RMSGQFUL
    s.close()
    s2.close()


def test_enquire_link_then_unbind_on_silence(servers):
    srv = servers("-o", "idle_timeout=0.5", "-o", "resp_timeout=1", "-o", "bind_timeout=1",
                  users=USERS)
    # an answering session stays: 3 s of enquire_links, never an unbind
    a = bound(srv.port)
    a.settimeout(5)
    end, n = time.time() + 3, 0
    while time.time() < end:
        (_, cid, _, seq), _ = read_pdu(a)
        assert cid == 0x15
        a.sendall(pdu(0x80000015, b"", seq))
        n += 1
    assert n >= 3
    a.sendall(pdu(0x15, b"", 99))
    while True:
        (_, cid, _, seq), _ = read_pdu(a)
        if cid == 0x80000015:
            assert seq == 99
            break
        a.sendall(pdu(0x80000015, b"", seq))
    a.close()
    # a silent one gets enquire_link, then unbind, then the close
    b = bound(srv.port, "esme1", "secret1")
    b.settimeout(5)
    assert read_pdu(b)[0][1] == 0x15
    assert read_pdu(b)[0][1] == 0x06
    assert closed_within(b, 5)
    # one that never binds is closed after bind_timeout
    c = connect(srv.port)
    assert closed_within(c, 6)


def test_stats_socket(servers, tmp_path):
    sock = tmp_path / "stats.sock"
    srv = servers("-s", str(sock), "-m", "2", users=USERS)
    c = client(srv.port)
    c.bind_transmitter(system_id="esme2", password="pw2")
    for i in range(5):
        c.send_message(source_addr="1", destination_addr="2", short_message=b"s",
                       validity_period="garbage_garbage1" if i == 4 else None)
        c.read_pdu()
    refused_then_closed(srv.port, bind("esme1", "nope"), 0x80000002, 0x0E)
    st = json.loads(subprocess.run([tool("hp-smppd"), "-q", str(sock)], capture_output=True,
                                   text=True, check=True, timeout=10).stdout)
    e2, e1 = st["system_ids"]["esme2"], st["system_ids"]["esme1"]
    assert e2["binds"] == 1 and e2["bound"] == 1
    assert e2["pdus_in"]["submit_sm"] == 5 and e2["pdus_out"]["submit_sm_resp"] == 5
    assert e2["errors"] == {"ESME_RINVEXPIRY": 1} and e2["window_peak"] >= 1
    assert e1["bind_fails"] == 1
    assert st["sessions"]["bound"] == 1 and st["store"]["messages"] == 4
    (sess,) = st["session_list"]
    assert sess["system_id"] == "esme2" and sess["state"] == "tx" and not sess["tls"]
    assert sess["window"]["limit"] == 256 and sess["pdus_in"]["bind_transmitter"] == 1
    c.unbind()
    c.disconnect()


def test_hash_tool_line_binds(servers, tmp_path):
    r = subprocess.run([tool("hp-smppd"), "-H", "esme7", "-o", "hash_iter=2000"],
                       input="s3cret\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    m = re.fullmatch(r"user esme7 \$pbkdf2-sha256\$2000\$([0-9a-f]{32})\$([0-9a-f]{64})", line)
    assert m, line
    # hashlib agrees that this is PBKDF2-HMAC-SHA256 of the password
    assert hashlib.pbkdf2_hmac("sha256", b"s3cret", bytes.fromhex(m.group(1)),
                               2000).hex() == m.group(2)
    srv = servers(users=line + "\n")
    s = bound(srv.port, "esme7", "s3cret")
    s.close()
    refused_then_closed(srv.port, bind("esme7", "s3cre"), 0x80000002, 0x0E)
