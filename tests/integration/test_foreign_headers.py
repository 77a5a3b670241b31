# SPDX-License-Identifier: BSD-3-Clause
# Headers of traffic hplane did not make (issue 20, part 3): captures built
# with scapy of IPv4/IPv6 (with extension headers), UDP/TCP, untagged,
# 802.1Q and QinQ, 60..1518-byte frames, through `hplane run --source
# pcap:IN --tx OUT` with the apps that encrypt (crypto, vpn) and those that
# do not (null, dedup). The output is read back: every frame's IPv4 and
# UDP/TCP checksums are right (scapy recomputes them; tshark's checksum
# checks find none bad), the VLAN tags are kept, IPv6 frames are processed
# (decrypted here with Python's `cryptography`, the key derivation of
# docs/packet-format.md), and what hplane still refuses is counted under
# its drop reason. `hplane gen` and the in-process generator make valid
# checksums, 60- and 64-byte frames included.
import random
import shutil
import struct
import subprocess

import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scapy.all import (ARP, IP, TCP, UDP, Dot1AD, Dot1Q, Ether, IPv6, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, Raw,
                       ICMPv6EchoRequest, rdpcap, wrpcap)

from conftest import BUILD, assert_invariants, run_hplane, summary

KEY = bytes(range(16))  # hplane's default --key
SIZES = [60, 64, 65, 128, 511, 1024, 1518]  # frame bytes without the FCS
L2 = dict(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")

# ---- the capture ----


def tags(n):
    """Ethernet with n VLAN tags (2: 802.1ad outer, 802.1Q inner)."""
    if n == 0:
        return Ether(**L2)
    if n == 1:
        return Ether(**L2) / Dot1Q(vlan=100, prio=5)
    return Ether(**L2) / Dot1AD(vlan=300) / Dot1Q(vlan=100)


def l3(kind, flow):
    if kind == "v4":
        return IP(src=f"10.0.{flow}.1", dst="10.9.0.2", tos=0xb8 if flow % 2 else 0)
    v6 = IPv6(src=f"2001:db8:{flow}::1", dst=f"2001:db8:ffff:{flow}::2", tc=0xb8)
    if kind == "v6ext":
        return v6 / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt()
    return v6


def l4(proto, flow, seq, udp_cksum_none=False):
    if proto == "udp":
        return UDP(sport=40000 + flow, dport=50000, chksum=0 if udp_cksum_none else None)
    return TCP(sport=40000 + flow, dport=50001, seq=1000 * seq, flags="PA")


def frame(ntags, kind, proto, flow, seq, size, rnd, none=False):
    """One frame of size bytes (or the least its headers allow, +1)."""
    head = tags(ntags) / l3(kind, flow) / l4(proto, flow, seq, none)
    n = max(size - len(head), 1)
    return bytes(head / Raw(bytes(rnd.getrandbits(8) for _ in range(n))))


def good_frames():
    """Every combination as its own flow (5-tuple), each frame size in
    turn, plus IPv4/UDP without a checksum (0: none)."""
    rnd = random.Random(20)
    out, flow = [], 0
    for ntags in (0, 1, 2):
        for kind in ("v4", "v6", "v6ext"):
            for proto in ("udp", "tcp"):
                flow += 1
                out += [frame(ntags, kind, proto, flow, i, s, rnd)
                        for i, s in enumerate(SIZES)]
    flow += 1
    out += [frame(1, "v4", "udp", flow, i, s, rnd, none=True) for i, s in enumerate(SIZES)]
    return out


def refused_frames():
    """What hplane still refuses, by the drop reason it counts."""
    v6 = IPv6(src="2001:db8::1", dst="2001:db8::2")
    cut = bytearray(bytes(Ether(**L2) / v6 / UDP() / Raw(b"x" * 40)))
    cut[18:20] = (400).to_bytes(2, "big")  # payload length beyond the frame
    return {
        "not_ip": [bytes(Ether(**L2) / ARP(pdst="10.0.0.1"))],
        "vlan_depth": [bytes(Ether(**L2) / Dot1AD(vlan=1) / Dot1Q(vlan=2) / Dot1Q(vlan=3) /
                             IP() / UDP() / Raw(b"x" * 20))],
        "ipv6_ext_header": [bytes(Ether(**L2) / v6 / IPv6ExtHdrRouting(addresses=["2001:db8::9"]) /
                                  UDP() / Raw(b"x" * 20))],
        "ip_fragment": [bytes(Ether(**L2) / v6 / IPv6ExtHdrFragment(m=1) / UDP() / Raw(b"x" * 24))],
        "not_udp_tcp": [bytes(Ether(**L2) / v6 / ICMPv6EchoRequest())],
        "truncated_ipv6": [bytes(cut)],
    }


def write(path, frames):
    wrpcap(str(path), [Ether(f) for f in frames])


# ---- reading the output back ----


def cksums_ok(raw):
    """Recomputed by scapy: the IPv4 header and UDP/TCP checksums are those
    in the frame (a UDP/IPv4 checksum of 0 is "none")."""
    p = Ether(raw)
    if IP in p:
        q = p.copy()
        del q[IP].chksum
        if Ether(bytes(q))[IP].chksum != p[IP].chksum:
            return False
    for L in (UDP, TCP):
        if L not in p:
            continue
        if L is UDP and IP in p and p[UDP].chksum == 0:
            continue
        q = p.copy()
        del q[L].chksum
        if Ether(bytes(q))[L].chksum != p[L].chksum:
            return False
    return True


def tshark_bad_checksums(path):
    """tshark's expert info with its IPv4/UDP/TCP checksum checks on."""
    if shutil.which("tshark") is None:
        pytest.skip("tshark not installed")
    p = subprocess.run(["tshark", "-r", str(path), "-o", "ip.check_checksum:TRUE",
                        "-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                        "-q", "-z", "expert"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return [l for l in p.stdout.splitlines() if "Bad checksum" in l]


def split(raw):
    """(tags bytes, IP-and-L4 facts, L4 payload) of a frame."""
    p = Ether(raw)
    n = 0
    layer = p.payload
    while isinstance(layer, (Dot1Q, Dot1AD)):
        n += 1
        layer = layer.payload
    ip = p[IP] if IP in p else p[IPv6]
    t = p[UDP] if UDP in p else p[TCP]
    if UDP in p:
        pay = bytes(t.payload)[:t.len - 8]
    elif IP in p:
        pay = bytes(t.payload)[:ip.len - ip.ihl * 4 - t.dataofs * 4]
    else:
        pay = bytes(t.payload)
    return raw[:14 + 4 * n], ip, t, pay


def flow_of(raw):
    _, ip, t, _ = split(raw)
    return (ip.src, ip.dst, t.sport, t.dport, ip.proto if IP in Ether(raw) else t.name)


def by_flow(frames):
    """Frames per 5-tuple, in order."""
    flows = {}
    for f in frames:
        flows.setdefault(flow_of(f), []).append(f)
    return flows


def seq_base(good):
    """The sequence of a flow's first packet, which a foreign packet's
    counter or IV comes from (docs/packet-format.md): the packets the run
    had classified (the capture's valid frames before it) when the flow
    entered the table; its i-th packet has that + i."""
    base = {}
    for i, f in enumerate(good):
        base.setdefault(flow_of(f), i)
    return base


def run_app(tmp_path, app, frames, extra=()):
    src, out = tmp_path / f"{app}-in.pcap", tmp_path / f"{app}-out.pcap"
    write(src, frames)
    run_hplane(["run", "--source", f"pcap:{src}", "--tx", str(out), "--app", app,
                "--out", str(tmp_path / app), "--quiet", *extra], timeout=60)
    return summary(tmp_path / app), [bytes(p) for p in rdpcap(str(out))], out


def addr(ip):
    return bytes(ip)[12:20] if isinstance(ip, IP) else bytes(ip)[8:40]


def cbc_mac(msg):
    c = Cipher(algorithms.AES(KEY), modes.CBC(b"\0" * 16)).encryptor()
    return (c.update(msg) + c.finalize())[-16:]


def ctr_material(ip, t):
    """aes_ctr's flow key and nonce: CBC-MAC under the master key of the
    flow message (one block for IPv4: its ECB encryption)."""
    ports = struct.pack("!HHB", t.sport, t.dport, 17 if isinstance(t, UDP) else 6)
    if isinstance(ip, IP):
        msgs = [addr(ip) + ports + b"\0\0" + bytes([d]) for d in (1, 2)]
    else:
        msgs = [addr(ip) + ports + b"\0" * 10 + bytes([d]) for d in (1, 2)]
    return cbc_mac(msgs[0]), cbc_mac(msgs[1])[:8]


def cbc_material(ip, t, seq):
    """aes_cbc's flow key and IV (docs/nf.md; IPv6: CBC-MAC of src6 | dst6 |
    "CB6" | ports | proto | 0 x 8)."""
    ports = struct.pack("!HH", t.sport, t.dport)
    proto = bytes([17 if isinstance(t, UDP) else 6])
    if isinstance(ip, IP):
        e = Cipher(algorithms.AES(KEY), modes.ECB()).encryptor()
        k = e.update(b"CB1" + addr(ip) + ports + proto)
    else:
        k = cbc_mac(addr(ip) + b"CB6" + ports + proto + b"\0" * 8)
    e = Cipher(algorithms.AES(k), modes.ECB()).encryptor()
    return k, e.update(b"CBIV" + b"\0" * 8 + struct.pack("!I", seq))


# ---- the tests ----


@pytest.fixture(scope="module")
def frames():
    good = good_frames()
    refused = refused_frames()
    mixed = list(good)
    for i, fs in enumerate(refused.values()):
        mixed[3 + 7 * i:3 + 7 * i] = fs
    return good, refused, mixed


def check_common(s, outs, out_path, good, refused):
    assert_invariants(s)
    assert s["packets_delivered"] == len(good) == len(outs)
    assert s["task_errors"] == 0
    for reason, fs in refused.items():
        assert s["dropped_invalid"][reason] == len(fs), (reason, s["dropped_invalid"])
    bad = [i for i, f in enumerate(outs) if not cksums_ok(f)]
    assert not bad, f"{len(bad)} frames with a wrong checksum, first {bad[:5]}"
    assert tshark_bad_checksums(out_path) == []
    ins, got = by_flow(good), by_flow(outs)
    assert set(ins) == set(got)
    for fl in ins:
        assert len(ins[fl]) == len(got[fl])
        for a, b in zip(ins[fl], got[fl]):
            assert split(a)[0] == split(b)[0]  # the VLAN tags, as they came
    return ins, got


@pytest.mark.parametrize("app", ["null", "dedup"])
def test_untouched_apps_keep_frames(hplane, tmp_path, frames, app):
    good, refused, mixed = frames
    s, outs, path = run_app(tmp_path, app, mixed)
    ins, got = check_common(s, outs, path, good, refused)
    for fl in ins:
        assert ins[fl] == got[fl]  # byte for byte


# cuda:emul with every packet on it: the GPU path commits the ciphertext
# in place and the checksum from the scatter's sum of the new bytes, at
# every payload offset these headers give (odd ones included)
GPU_PIN = ["--gpu", "cuda:emul", "--sched", "pin", "--sched-param", "dev=1"]


@pytest.mark.parametrize("extra", [(), GPU_PIN], ids=["cpu", "cuda-emul"])
def test_crypto_encrypts_ipv6_and_tagged(hplane, tmp_path, frames, extra):
    if extra and not (BUILD / "gpu" / "libhp_cuda.so").exists():
        pytest.skip("CUDA plugin not built (no nvcc)")
    good, refused, mixed = frames
    s, outs, path = run_app(tmp_path, "crypto", mixed, extra)
    if extra:
        g = next(d for d in s["devices"] if d["name"] == "cuda-emul")
        assert g["scattered_packets"] > 0, g
    ins, got = check_common(s, outs, path, good, refused)
    base = seq_base(good)
    v6 = 0
    for fl in ins:
        for i, (a, b) in enumerate(zip(ins[fl], got[fl])):
            seq = base[fl] + i
            ta, ipa, la, pa = split(a)
            tb, ipb, lb, pb = split(b)
            # (a 1-byte payload may encrypt to itself; the decryption
            # below is the proof)
            assert len(a) == len(b) and (pa != pb or len(pa) < 4)
            # headers as they came, but the L4 checksum
            ck = len(a) - len(bytes(la)) + (6 if isinstance(la, UDP) else 16)
            assert a[:ck] == b[:ck]
            key, nonce = ctr_material(ipb, lb)
            d = Cipher(algorithms.AES(key), modes.CTR(nonce + struct.pack("!II", seq, 0)))
            dec = d.decryptor()
            assert dec.update(pb) + dec.finalize() == pa
            v6 += isinstance(ipb, IPv6)
    assert v6 == 4 * 3 * len(SIZES)


def test_vpn_pads_and_fixes_ipv6_and_tagged(hplane, tmp_path, frames):
    good, refused, mixed = frames
    s, outs, path = run_app(tmp_path, "vpn", mixed)
    ins, got = check_common(s, outs, path, good, refused)
    base = seq_base(good)
    for fl in ins:
        for i, (a, b) in enumerate(zip(ins[fl], got[fl])):
            seq = base[fl] + i
            _, ipa, la, pa = split(a)
            _, ipb, lb, pb = split(b)
            assert len(pb) % 16 == 0 and len(pb) > len(pa)
            if isinstance(ipb, IP):
                assert ipb.len == ipa.len + len(pb) - len(pa)
            else:
                assert ipb.plen == ipa.plen + len(pb) - len(pa)
            if isinstance(lb, UDP):
                assert lb.len == la.len + len(pb) - len(pa)
            key, iv = cbc_material(ipb, lb, seq)
            d = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
            u = padding.PKCS7(128).unpadder()
            assert u.update(d.update(pb) + d.finalize()) + u.finalize() == pa


def test_gen_writes_valid_checksums(hplane, tmp_path):
    path = tmp_path / "gen.pcap"
    run_hplane(["gen", "--pcap", str(path), "--count", "300", "--seed", "4",
                "--imix-sizes", "60,64,243,486,1458,1518", "--imix-shares", "1,1,1,1,1,1"])
    outs = [bytes(p) for p in rdpcap(str(path))]
    assert len(outs) == 300 and {60, 64} <= {len(f) for f in outs}
    assert all(cksums_ok(f) for f in outs)
    assert tshark_bad_checksums(path) == []
    l4s = [Ether(f)[TCP] if TCP in Ether(f) else Ether(f)[UDP] for f in outs]
    assert all(t.chksum != 0 for t in l4s)
    assert {type(t) for t in l4s} == {TCP, UDP}


def test_generator_64_byte_frames(hplane, tmp_path):
    """The in-process generator at 60 and 64 bytes through crypto: UDP
    frames carry the hp header and are verified at the sink; TCP ones
    below 70 bytes have no room for it and are counted as not checkable."""
    out = tmp_path / "small"
    run_hplane(["run", "--app", "crypto", "--imix-sizes", "60,64", "--imix-shares", "1,1",
                "--scenario", "low", "--duration", "1", "--capacity", "20000", "--calib", "0.3",
                "--quiet", "--out", str(out)])
    s = summary(out)
    assert_invariants(s)
    assert s["packets_delivered"] > 100 and s["task_errors"] == 0
    assert 0 < s["verified"] < s["packets_delivered"]


def test_planted_frames_keep_valid_checksums(hplane, tmp_path):
    """hp-nf plant-pcap writes patterns into gen's frames, which now carry
    UDP and TCP checksums: it redoes them."""
    from conftest import BUILD
    src, planted = tmp_path / "gen.pcap", tmp_path / "planted.pcap"
    run_hplane(["gen", "--pcap", str(src), "--count", "400", "--seed", "5"])
    p = subprocess.run([str(BUILD / "lib/nf/tools/hp-nf"), "plant-pcap", "--in", str(src),
                        "--out", str(planted), "--gen", "1000", "--seed", "1", "--p", "0.5"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    ins = [bytes(f) for f in rdpcap(str(src))]
    outs = [bytes(f) for f in rdpcap(str(planted))]
    changed = sum(a != b for a, b in zip(ins, outs))
    assert len(outs) == 400 and changed > 100
    assert all(cksums_ok(f) for f in outs)
    assert tshark_bad_checksums(planted) == []
