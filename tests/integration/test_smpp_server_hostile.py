# SPDX-License-Identifier: BSD-3-Clause
"""Hostile input to hp-smppd, before and after a bind, on the plain and the
TLS port: broken framing, half PDUs, bodies that do not fit, PDUs a client
should not send, seeded random streams and mutants of a good session. Each
gets the v3.4 answer (generic_nack or the response with an error status)
or a clean close, the server never dies, and a good client is served
afterwards. Every stream ends with the client's FIN: whatever whole PDUs
it held are still answered before the close."""
import random
import socket
import ssl
import struct
import subprocess

import pytest

from smppd_util import Server, bind, connect, cs, pdu, read_pdu, submit

RINVCMDLEN, RINVCMDID, RINVBNDSTS, RINVTLVSTREAM = 0x02, 0x03, 0x04, 0xC0
NACK, BIND_TX_RESP, SUBMIT_RESP, ENQ_RESP = 0x80000000, 0x80000002, 0x80000004, 0x80000015


def hdr(length, cmd, seq=5):
    return struct.pack(">IIII", length, cmd, 0, seq)


def enquire(seq):
    return hdr(16, 0x15, seq)


def exchange(port, data, bound=False, ctx=None, timeout=5):
    """Send data (after a bind when bound), then FIN; the PDUs the server
    sent back up to its close, as (command_id, status, sequence). None
    when the server did not close within timeout."""
    s = connect(port, timeout=timeout)
    if ctx is not None:
        s = ctx.wrap_socket(s, server_hostname="localhost")
    if bound:
        s.sendall(bind("esme1", "secret1"))
        assert read_pdu(s)[0][1:3] == (BIND_TX_RESP, 0)
    if data:
        s.sendall(data)
    if ctx is None:
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:         # the server was quicker: closed already
            pass
    got = []
    try:
        while True:
            r = read_pdu(s)
            if r is None:
                return got
            (length, cmd, st, seq), _ = r
            assert 16 <= length <= 4096, length
            got.append((cmd, st, seq))
    except socket.timeout:
        return None
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
        return got
    finally:
        s.close()


def tlv_past_end():
    body = submit(seq=6)[16:] + struct.pack(">HH", 0x0204, 10) + b"ab"
    return pdu(4, body, 6)


# (name, octets, the answers bound or not; None: see BOUND)
CASES = [
    ("half header", hdr(40, 4)[:8], []),
    ("half PDU", submit(seq=5)[:20], []),
    ("command_length 0", hdr(0, 4) + b"x" * 20, [(NACK, RINVCMDLEN, 5)]),
    ("command_length 15", hdr(15, 4) + b"x" * 20, [(NACK, RINVCMDLEN, 5)]),
    ("command_length 0xffffffff", hdr(0xffffffff, 4), [(NACK, RINVCMDLEN, 5)]),
    ("command_length 4097", hdr(4097, 4), [(NACK, RINVCMDLEN, 5)]),
    ("command_length 4 (header cut)", struct.pack(">I", 4), [(NACK, RINVCMDLEN, 0)]),
    ("bind without body", hdr(16, 2), [(BIND_TX_RESP, RINVCMDLEN, 5)]),
    ("enquire_link with a body", pdu(0x15, b"junk", 13) + enquire(14),
     [(ENQ_RESP, RINVTLVSTREAM, 13), (ENQ_RESP, 0, 14)]),
    ("unknown command id", hdr(16, 0x12345, 11) + enquire(12),
     [(NACK, RINVCMDID, 11), (ENQ_RESP, 0, 12)]),
    ("response never asked for", pdu(0x80000004, cs("x"), 7) + enquire(8), [(ENQ_RESP, 0, 8)]),
    ("generic_nack in", pdu(0x80000000, b"", 9) + enquire(10), [(ENQ_RESP, 0, 10)]),
    ("outbind from an ESME", pdu(0xB, cs("a") + cs("b"), 15), [(NACK, RINVBNDSTS, 15)]),
    ("submit_sm without body", hdr(16, 4), [(SUBMIT_RESP, RINVCMDLEN, 5)]),
    # decoded before the state is checked, so the same answer unbound
    ("TLV past the end", tlv_past_end(), [(SUBMIT_RESP, RINVTLVSTREAM, 6)]),
    ("submit_sm before a bind", submit(seq=8), None),
    ("good PDUs, then half of one", enquire(1) + enquire(2) + submit(seq=3)[:30],
     [(ENQ_RESP, 0, 1), (ENQ_RESP, 0, 2)]),
]
# (unbound, bound) where the state decides
BOUND = {"submit_sm before a bind": ([(SUBMIT_RESP, RINVBNDSTS, 8)], [(SUBMIT_RESP, 0, 8)])}


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(d / "key.pem"),
                    "-out", str(d / "cert.pem"), "-days", "2", "-subj", "/CN=localhost"],
                   check=True, capture_output=True, timeout=60)
    return d / "cert.pem", d / "key.pem"


@pytest.fixture(scope="module")
def srv(tmp_path_factory, cert):
    s = Server(tmp_path_factory.mktemp("hostile"), tls=cert)
    yield s
    assert s.p.poll() is None, "hp-smppd died:\n" + s.stderr()[-3000:]
    s.stop()


def still_serves(srv):
    assert srv.p.poll() is None, "hp-smppd died:\n" + srv.stderr()[-3000:]
    got = exchange(srv.port, submit(seq=77) + enquire(78), bound=True)
    # submits wait for the batch, so the enquire_link_resp may come first
    assert sorted(got, key=lambda g: g[2]) == [(SUBMIT_RESP, 0, 77), (ENQ_RESP, 0, 78)], got


@pytest.mark.parametrize("bound", [False, True], ids=["unbound", "bound"])
@pytest.mark.parametrize("name,data,want", CASES, ids=[c[0] for c in CASES])
def test_hostile_pdu(srv, name, data, want, bound):
    if want is None:
        want = BOUND[name][bound]
    assert exchange(srv.port, data, bound) == want
    still_serves(srv)


def test_hostile_pdu_over_tls(srv, cert):
    ctx = ssl.create_default_context(cafile=str(cert[0]))
    for name, data, want in CASES[2:6]:
        assert exchange(srv.tls_port, data, bound=True, ctx=ctx) == want, name
    # octets that are not TLS at all: the handshake fails, closed
    assert exchange(srv.tls_port, b"\x16\x03\x01\xff\xff" + bytes(300)) == []
    still_serves(srv)


def test_every_prefix_of_a_session(srv):
    """A good session cut after every octet: the whole PDUs before the cut
    are answered (bind_resp, submit_sm_resp, enquire_link_resp), the rest
    is dropped, the connection is closed."""
    stream = [bind("esme1", "secret1", seq=1), submit(seq=2), enquire(3),
              submit(seq=4, text=b"x" * 100)]
    data = b"".join(stream)
    ends = [sum(len(p) for p in stream[:i + 1]) for i in range(len(stream))]
    for cut in range(len(data) + 1):
        got = exchange(srv.port, data[:cut])
        assert got is not None, cut
        whole = sum(1 for e in ends if e <= cut)
        assert sorted(got, key=lambda g: g[2]) == [
            (BIND_TX_RESP, 0, 1), (SUBMIT_RESP, 0, 2), (ENQ_RESP, 0, 3),
            (SUBMIT_RESP, 0, 4)][:whole], cut
    still_serves(srv)


def test_random_and_mutated_streams(srv):
    """300 seeded random streams (some starting with a plausible header)
    and 300 mutants of a bound session (1-4 octets changed anywhere after
    the bind): only responses come back, well framed, and every
    connection is closed after the FIN."""
    rng = random.Random(25)
    good = b"".join([submit(seq=2), enquire(3), pdu(3, cs("0123456789abcdef") + bytes([1, 1]) +
                                                    cs("4670001"), 4),
                     submit(seq=5, reg=1, text=b"mutant"), hdr(16, 6, 6)])
    for i in range(600):
        if i < 300:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 300)))
            if i % 2:
                data = hdr(rng.randrange(16, 200), rng.choice([2, 4, 9, 0x15, 0x103]),
                           i) + data
            bound = False
        else:
            b = bytearray(good)
            for _ in range(rng.randrange(1, 5)):
                b[rng.randrange(len(b))] = rng.getrandbits(8)
            data, bound = bytes(b), True
        got = exchange(srv.port, data, bound)
        assert got is not None, (i, data.hex())
        for cmd, st, seq in got:
            # a receipt may come for a mutant's submit with registered_delivery
            assert cmd & 0x80000000 or cmd in (0x05, 0x15, 0x06), (i, hex(cmd), data.hex())
        if i % 100 == 99:
            still_serves(srv)
    still_serves(srv)
