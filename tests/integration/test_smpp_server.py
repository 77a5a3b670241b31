# SPDX-License-Identifier: BSD-3-Clause
"""hp-smppd with real SMPP clients over loopback (127.0.0.1 only): Python
smpplib binds, submits and gets submit_sm_resp with message ids; wrong
credentials and PDUs before bind are refused with the right status; a
session sending garbage is cut off without disturbing another one; the
session limit holds (and answers the bind over it). The SMSC side (store,
receipts, TLS, timeouts, attacks) is in test_smpp_server_ops.py."""
import os
import socket
import struct
import subprocess
import time

import pytest

smpplib_client = pytest.importorskip("smpplib.client")
from smpplib import exceptions, smpp  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))


@pytest.fixture
def server(tmp_path):
    exe = os.path.join(BUILD, "smpp", "tools", "hp-smppd")
    assert os.access(exe, os.X_OK), "%s not built (BUILD_DIR=%s)" % (exe, BUILD)
    users = tmp_path / "users.conf"
    users.write_text("# system_id password\nuser esme1 secret1\nuser esme2 pw2\n")
    p = subprocess.Popen([exe, "-c", str(users), "-a", "127.0.0.1", "-p", "0",
                          "-b", "16", "-T", "5", "-m", "4"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert "listening on 127.0.0.1:" in line, line + p.stderr.read()
    port = int(line.rsplit(":", 1)[1])
    yield port
    p.terminate()
    assert p.wait(timeout=10) == 0


def client(port):
    c = smpplib_client.Client("127.0.0.1", port, timeout=5, allow_unknown_opt_params=True)
    c.connect()
    return c


def raw(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s


def gen(name, seq, **kw):
    p = smpp.make_pdu(name, sequence=seq, **kw)
    p.sequence = seq        # make_pdu does not keep a sequence= argument
    return p.generate()


def read_pdu(s):
    hdr = b""
    while len(hdr) < 4:
        chunk = s.recv(4 - len(hdr))
        if not chunk:
            return None
        hdr += chunk
    n = struct.unpack(">I", hdr)[0]
    body = b""
    while len(body) < n - 4:
        chunk = s.recv(n - 4 - len(body))
        if not chunk:
            return None
        body += chunk
    return struct.unpack(">IIII", (hdr + body)[:16]), hdr + body


def test_bind_submit_enquire_unbind(server):
    c = client(server)
    resp = c.bind_transmitter(system_id="esme1", password="secret1")
    assert resp.status == 0 and resp.system_id == b"hp-smppd"
    sent = []
    for i in range(40):   # more than one batch (16) and a partial one
        sent.append(c.send_message(source_addr_ton=1, source_addr="4670000%04d" % i,
                                   dest_addr_ton=1, destination_addr="4671111%04d" % i,
                                   short_message=("message %02d" % i).encode(),
                                   sar_msg_ref_num=9, sar_total_segments=1,
                                   sar_segment_seqnum=1).sequence)
    got = {}
    for _ in range(40):
        r = c.read_pdu()
        assert r.command == "submit_sm_resp" and r.status == 0
        got[r.sequence] = r.message_id
    assert sorted(got) == sorted(sent)
    assert len(set(got.values())) == 40           # distinct message ids
    c.send_pdu(smpp.make_pdu("enquire_link", client=c))
    assert c.read_pdu().command == "enquire_link_resp"
    assert c.unbind().command == "unbind_resp"
    c.disconnect()


def test_wrong_credentials(server):
    c = client(server)
    with pytest.raises(exceptions.PDUError) as e:
        c.bind_transceiver(system_id="esme1", password="nope")
    assert e.value.args[1] == 0x0E                 # ESME_RINVPASWD
    c.disconnect()
    c = client(server)
    with pytest.raises(exceptions.PDUError) as e:
        c.bind_transmitter(system_id="nobody", password="x")
    assert e.value.args[1] == 0x0F                 # ESME_RINVSYSID
    c.disconnect()


def test_refused_before_bind_and_on_receiver(server):
    sub = gen("submit_sm", 7, source_addr="1", destination_addr="2", short_message=b"hi")
    s = raw(server)
    s.sendall(sub)
    (cl, cid, st, seq), _ = read_pdu(s)
    assert (cid, st, seq) == (0x80000004, 0x04, 7)  # ESME_RINVBNDSTS
    # enquire_link is fine in any state
    s.sendall(struct.pack(">IIII", 16, 0x15, 0, 8))
    assert read_pdu(s)[0][1:] == (0x80000015, 0, 8)
    # a receiver bind may not submit
    s.sendall(gen("bind_receiver", 9, system_id="esme2", password="pw2"))
    assert read_pdu(s)[0][1:] == (0x80000001, 0, 9)
    s.sendall(sub)
    assert read_pdu(s)[0][1:] == (0x80000004, 0x04, 7)
    # unknown command id: generic_nack ESME_RINVCMDID, session stays
    s.sendall(struct.pack(">IIII", 16, 0x77, 0, 10))
    assert read_pdu(s)[0][1:] == (0x80000000, 0x03, 10)
    s.close()


def test_garbage_session_isolated(server):
    good = client(server)
    good.bind_transmitter(system_id="esme2", password="pw2")
    bad = raw(server)
    bad.sendall(gen("bind_transmitter", 1, system_id="esme1", password="secret1"))
    assert read_pdu(bad)[0][2] == 0
    # a decodable-length PDU with a broken body: per-PDU error, session lives
    broken = bytearray(gen("submit_sm", 5, source_addr="1", destination_addr="2",
                           short_message=b"abc"))
    broken[-4] = 99                                # sm_length past the PDU
    bad.sendall(bytes(broken))
    assert read_pdu(bad)[0][1:] == (0x80000004, 0x01, 5)   # ESME_RINVMSGLEN
    # garbage framing: generic_nack ESME_RINVCMDLEN, then closed
    bad.sendall(struct.pack(">IIII", 5, 4, 0, 6) + b"\xff" * 40)
    assert read_pdu(bad)[0][1:] == (0x80000000, 0x02, 6)
    assert read_pdu(bad) is None
    # too long a PDU (limit 4096): same
    bad2 = raw(server)
    bad2.sendall(struct.pack(">IIII", 100000, 4, 0, 3))
    assert read_pdu(bad2)[0][1:] == (0x80000000, 0x02, 3)
    assert read_pdu(bad2) is None
    # the other session did not notice
    seq = good.send_message(source_addr="1", destination_addr="2", short_message=b"ok").sequence
    r = good.read_pdu()
    assert (r.command, r.status, r.sequence) == ("submit_sm_resp", 0, seq)
    good.unbind()
    good.disconnect()


def test_session_limit(server):
    """-m 4 bounds bound sessions: unbound connections do not count (they
    have their own pool), a fifth bind gets ESME_RBINDFAIL before the
    close, and a slot freed by an unbind is taken again."""
    idle = [raw(server) for _ in range(6)]        # connected, never bound
    socks = [raw(server) for _ in range(4)]
    for i, s in enumerate(socks):
        s.sendall(gen("bind_transmitter", 1, system_id="esme1", password="secret1"))
        assert read_pdu(s)[0][1:3] == (0x80000002, 0), i
    extra = raw(server)
    extra.sendall(gen("bind_transmitter", 7, system_id="esme2", password="pw2"))
    assert read_pdu(extra)[0][1:] == (0x80000002, 0x0D, 7)   # ESME_RBINDFAIL
    try:
        assert read_pdu(extra) is None            # then closed
    except ConnectionResetError:
        pass
    socks[0].sendall(struct.pack(">IIII", 16, 6, 0, 2))      # unbind
    assert read_pdu(socks[0])[0][1:] == (0x80000006, 0, 2)
    again = raw(server)
    deadline = time.time() + 5
    while True:   # the server closes the unbound slot right after unbind_resp
        again.sendall(gen("bind_transmitter", 3, system_id="esme2", password="pw2"))
        st = read_pdu(again)[0][2]
        if st == 0 or time.time() > deadline:
            break
        again = raw(server)
        time.sleep(0.05)
    assert st == 0
    for s in socks + idle + [again, extra]:
        s.close()
