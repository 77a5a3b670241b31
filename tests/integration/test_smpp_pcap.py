# SPDX-License-Identifier: BSD-3-Clause
"""hp-smppdump on pcap/pcapng captures of SMPP over TCP. The captures are
written here with dpkt from PDUs that Python smpplib encoded (independent
of our encoder), cut into TCP segments of random sizes (PDUs straddle
segments, several share one), with reordered and retransmitted segments,
sequence numbers wrapping past 2^32, both directions interleaved. Checked:
every PDU comes out once, in stream order, with the fields smpplib was
given; a missing segment or an unframeable command_length gives one
stream_error line for that direction only; IPv6, VLAN, Linux cooked and
pcapng are read; a truncated or foreign file gives one error line and exit 1."""
import json
import os
import random
import struct
import subprocess

import pytest

dpkt = pytest.importorskip("dpkt")
smpp = pytest.importorskip("smpplib.smpp")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD_DIR", os.path.join(ROOT, "build"))
CLI = ("10.1.2.3", 40001)
SRV = ("10.9.8.7", 2775)


def dump_tool():
    path = os.path.join(BUILD, "smpp", "tools", "hp-smppdump")
    assert os.access(path, os.X_OK), "%s not built (BUILD_DIR=%s)" % (path, BUILD)
    return path


def pdu(name, seq, **kw):
    p = smpp.make_pdu(name, sequence=seq, **kw)
    p.sequence = seq
    return p.generate()


def conversation(n=40):
    """(client stream PDUs, server stream PDUs, what each submit was given)."""
    cli = [pdu("bind_transmitter", 1, system_id="esme1", password="secret1")]
    srv = [pdu("bind_transmitter_resp", 1, system_id="smsc")]
    given = []
    for i in range(n):
        kw = dict(source_addr_ton=1, source_addr="4670%07d" % i, dest_addr_ton=1,
                  destination_addr="4671%07d" % (i * 31), esm_class=0x40 * (i % 2),
                  data_coding=8 if i % 3 == 0 else 0, registered_delivery=1,
                  short_message=("msg %d " % i + "x" * (i * 5 % 150)).encode())
        if i % 4 == 0:
            kw.update(sar_msg_ref_num=i, sar_total_segments=2, sar_segment_seqnum=1)
        given.append(kw)
        cli.append(pdu("submit_sm", 2 + i, **kw))
        srv.append(pdu("submit_sm_resp", 2 + i, message_id="id%05d" % i))
    cli.append(pdu("enquire_link", 2 + n))
    srv.append(pdu("enquire_link_resp", 2 + n))
    cli.append(pdu("unbind", 3 + n))
    srv.append(pdu("unbind_resp", 3 + n))
    return cli, srv, given


def segments(data, isn, rng, reorder=True, dup=True):
    """Cut a byte stream into (seq, payload) TCP segments, some swapped with
    their neighbour and some sent twice (also overlapping), as on a real link."""
    segs, off = [], 0
    while off < len(data):
        n = rng.randint(1, 300)
        segs.append([(isn + 1 + off) & 0xffffffff, data[off:off + n]])
        off += n
    out = []
    for i, s in enumerate(segs):
        out.append(s)
        if dup and i % 7 == 3:
            out.append(s)                                   # plain retransmission
        if dup and i % 11 == 5 and i + 1 < len(segs):     # overlapping resend
            nxt = segs[i + 1]
            out.append([s[0], s[1] + nxt[1][:5]])
    if reorder:
        for i in range(2, len(out) - 1, 9):
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def tcp_packet(src, dst, seq, flags, payload, v6=False, vlan=False):
    t = dpkt.tcp.TCP(sport=src[1], dport=dst[1], seq=seq, flags=flags, data=payload)
    if v6:
        import ipaddress
        ip = dpkt.ip6.IP6(src=ipaddress.ip_address(src[0]).packed,
                          dst=ipaddress.ip_address(dst[0]).packed, nxt=6, hlim=64, data=t)
        ip.plen = len(bytes(t))
        et = dpkt.ethernet.ETH_TYPE_IP6
    else:
        ip = dpkt.ip.IP(src=bytes(map(int, src[0].split("."))),
                        dst=bytes(map(int, dst[0].split("."))), p=6, data=t)
        ip.len = 20 + len(bytes(t))
        et = dpkt.ethernet.ETH_TYPE_IP
    raw = bytes(ip)
    if vlan:
        return (b"\x02" * 6 + b"\x04" * 6 + struct.pack(">HH", 0x8100, 7) +
                struct.pack(">H", et) + raw)
    return bytes(dpkt.ethernet.Ethernet(src=b"\x02" * 6, dst=b"\x04" * 6, type=et, data=ip))


def capture(path, drop=None, garbage=False, v6=False, vlan=False, ng=False, seed=1,
            cli_addr=CLI, srv_addr=SRV):
    rng = random.Random(seed)
    cli, srv, given = conversation()
    cstream, sstream = b"".join(cli), b"".join(srv)
    if garbage:   # a bogus command_length in the middle of the server's stream
        cut = sum(map(len, srv[:10]))
        sstream = sstream[:cut] + struct.pack(">I", 7) + b"\0" * 12 + sstream[cut:]
    cisn, sisn = 0xfffff000, 0x7ffffff0         # client's sequence numbers wrap
    pkts = [(cli_addr, srv_addr, cisn, dpkt.tcp.TH_SYN, b""),
            (srv_addr, cli_addr, sisn, dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK, b"")]
    cs = segments(cstream, cisn, rng)
    ss = segments(sstream, sisn, rng)
    if drop is not None:
        del cs[drop]
    while cs or ss:     # interleave the directions
        for lst, a, b in ((cs, cli_addr, srv_addr), (ss, srv_addr, cli_addr)):
            for _ in range(rng.randint(0, 3)):
                if lst:
                    seq, data = lst.pop(0)
                    pkts.append((a, b, seq, dpkt.tcp.TH_ACK | dpkt.tcp.TH_PUSH, data))
    with open(path, "wb") as f:
        w = (dpkt.pcapng.Writer(f) if ng else dpkt.pcap.Writer(f))
        for i, (a, b, seq, fl, data) in enumerate(pkts):
            w.writepkt(tcp_packet(a, b, seq, fl, data, v6=v6, vlan=vlan), ts=1700000000 + i * 1e-3)
    return cli, srv, given


def run(path, *args):
    r = subprocess.run([dump_tool()] + list(args) + [str(path)], capture_output=True,
                       text=True, timeout=60)
    return r, [json.loads(x) for x in r.stdout.splitlines()]


def flow_name(a, b, v6=False):
    return ("[%s]:%d>[%s]:%d" if v6 else "%s:%d>%s:%d") % (a[0], a[1], b[0], b[1])


def check_flow(lines, name, pdus):
    mine = [x for x in lines if x["flow"] == name]
    assert [x.get("stream_error") for x in mine] == [None] * len(mine), mine
    assert len(mine) == len(pdus)
    off = 0
    for x, raw in zip(mine, pdus):
        cl, cid, st, seq = struct.unpack(">IIII", raw[:16])
        assert (x["stream_off"], x["command_length"], x["command_id"], x["sequence_number"],
                x["error"]) == (off, cl, cid, seq, "ESME_ROK")
        off += cl
    return mine


@pytest.mark.parametrize("variant", [dict(), dict(v6=True), dict(vlan=True), dict(ng=True)],
                         ids=["ipv4", "ipv6", "vlan", "pcapng"])
def test_reassembled_pdus_match_what_smpplib_sent(tmp_path, variant):
    f = tmp_path / "smpp.pcap"
    v6 = variant.get("v6", False)
    ca, sa = (("2001:db8::1", 40001), ("2001:db8::2", 2775)) if v6 else (CLI, SRV)
    cli, srv, given = capture(f, cli_addr=ca, srv_addr=sa, **variant)
    r, lines = run(f)
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("hp-smppdump: ") and " 0 with errors, 0 stream faults" in r.stderr
    mine = check_flow(lines, flow_name(ca, sa, v6), cli)
    check_flow(lines, flow_name(sa, ca, v6), srv)
    subs = [x for x in mine if x["name"] == "submit_sm"]
    assert len(subs) == len(given)
    for x, kw in zip(subs, given):
        fl = x["fields"]
        assert fl["source_addr"] == kw["source_addr"]
        assert fl["destination_addr"] == kw["destination_addr"]
        assert fl["esm_class"] == kw["esm_class"] and fl["data_coding"] == kw["data_coding"]
        assert bytes.fromhex(fl["short_message"]) == kw["short_message"]
        tl = {t["name"]: t for t in x["tlvs"]}
        assert ("sar_msg_ref_num" in tl) == ("sar_msg_ref_num" in kw)


def test_missing_segment_is_one_stream_error(tmp_path):
    f = tmp_path / "gap.pcap"
    cli, srv, _ = capture(f, drop=12, seed=3)
    r, lines = run(f)
    assert r.returncode == 0, r.stderr
    c = [x for x in lines if x["flow"] == flow_name(CLI, SRV)]
    errs = [x for x in c if "stream_error" in x]
    assert len(errs) == 1 and "missing before stream offset" in errs[0]["stream_error"]
    good = [x for x in c if "stream_error" not in x]
    assert 0 < len(good) < len(cli)
    assert all(x["error"] == "ESME_ROK" for x in good)
    check_flow(lines, flow_name(SRV, CLI), srv)      # the other direction is whole


def test_unframeable_length_skips_that_direction_only(tmp_path):
    f = tmp_path / "garbage.pcap"
    cli, srv, _ = capture(f, garbage=True)
    r, lines = run(f)
    assert r.returncode == 0
    s = [x for x in lines if x["flow"] == flow_name(SRV, CLI)]
    assert len(s) == 11 and "cannot be framed" in s[-1]["stream_error"]
    assert s[-1]["stream_off"] == sum(map(len, srv[:10]))
    check_flow(lines, flow_name(CLI, SRV), cli)


def test_port_filter(tmp_path):
    f = tmp_path / "p.pcap"
    capture(f)
    r, lines = run(f, "-p", "2775")
    assert r.returncode == 0 and len(lines) > 80
    r, lines = run(f, "-p", "2776")
    assert r.returncode == 0 and lines == []


def test_bad_captures_one_error_line(tmp_path):
    f = tmp_path / "ok.pcap"
    capture(f)
    data = f.read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[:len(data) // 2 + 3])
    r, lines = run(cut)
    assert r.returncode == 1 and len(lines) > 0
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hp-smppdump: %s: packet " % cut), err
    hdr = tmp_path / "hdr.pcap"
    hdr.write_bytes(data[:10])
    r, _ = run(hdr)
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1 and "not a readable capture" in r.stderr
    wifi = tmp_path / "wifi.pcap"
    wifi.write_bytes(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 105))
    r, _ = run(wifi)
    assert r.returncode == 1 and "not supported" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r, _ = run(f, "-e")
    assert r.returncode == 2 and "not to pcap input" in r.stderr
