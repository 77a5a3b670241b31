# SPDX-License-Identifier: BSD-3-Clause
# Live traffic over net_af_packet: a veth pair whose far end lives in a
# network namespace this test creates; a sender in the namespace writes
# generated frames, hplane processes them on the near end and sends them
# back, and the sender decrypts what returns with Python's AES.
import os
import shutil
import subprocess
import sys
import time
import uuid

import dpkt
import pytest

from conftest import assert_invariants, hplane_live, run_hplane, summary
from test_pipeline import decrypt_check

SENDER = r'''
import socket, sys, time, dpkt
iface, src, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
frames = [buf for _, buf in dpkt.pcap.Reader(open(src, "rb"))][:n]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE: hold all replies
s.bind((iface, 0x0800))
s.settimeout(0.2)
got = []
for i, fr in enumerate(frames):
    s.send(fr)
    if i % 50 == 49:
        time.sleep(0.002)
end = time.time() + 15
while len(got) < n and time.time() < end:
    try:
        b, addr = s.recvfrom(4096)
    except socket.timeout:
        continue
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    got.append(b)
w = dpkt.pcap.Writer(open(sys.argv[4], "wb"))
for b in got:
    w.writepkt(b)
print(len(got))
'''


def sh(*cmd):
    subprocess.run(cmd, check=True, capture_output=True)


@pytest.fixture
def veth():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 for a network namespace")
    tag = uuid.uuid4().hex[:6]
    ns, a, b = f"hpt{tag}", f"hpa{tag}", f"hpb{tag}"
    try:
        sh("ip", "netns", "add", ns)
    except subprocess.CalledProcessError as e:
        pytest.skip(f"cannot create a network namespace here: {e.stderr!r}")
    try:
        sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
        sh("ip", "link", "set", b, "netns", ns)
        for cmd in (["sysctl", "-qw", f"net.ipv6.conf.{a}.disable_ipv6=1"],
                    ["ip", "link", "set", a, "up"]):
            subprocess.run(cmd, capture_output=True)
        subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                        f"net.ipv6.conf.{b}.disable_ipv6=1"], capture_output=True)
        sh("ip", "netns", "exec", ns, "ip", "link", "set", b, "up")
        yield ns, a, b
    finally:
        subprocess.run(["ip", "link", "del", a], capture_output=True)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_af_packet_veth(veth, tmp_path):
    ns, a, b = veth
    n = 400
    src = tmp_path / "src.pcap"
    run_hplane(["gen", "--pcap", str(src), "--count", str(n), "--seed", "9"])
    out = tmp_path / "afp"
    script = tmp_path / "sender.py"
    script.write_text(SENDER)
    back = tmp_path / "back.pcap"
    with hplane_live(["--source", f"af_packet:{a}", "--packets", str(n), "--duration", "20",
                      "--out", str(out), "--quiet"]):
        time.sleep(0.3)
        snd = subprocess.run(["ip", "netns", "exec", ns, sys.executable, str(script), b,
                              str(src), str(n), str(back)], capture_output=True, text=True,
                             timeout=60)
        assert snd.returncode == 0, snd.stderr
    s = summary(out)
    assert_invariants(s)
    assert s["packets_delivered"] == n
    assert s["verified"] == n
    frames = [buf for _, buf in dpkt.pcap.Reader(open(back, "rb"))]
    assert len(frames) == n
    assert all(decrypt_check(fr) for fr in frames)
