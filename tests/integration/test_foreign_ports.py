# SPDX-License-Identifier: BSD-3-Clause
# Traffic hplane did not make (issue 20, part 5): captures built with
# scapy, sent live by tcpreplay over a veth pair whose two ends live in
# network namespaces this module creates (hplane's end in its own, so the
# kernel's counters it reads are this test's alone), or replayed from the
# file. What the port counts (tcpreplay's sent = offered + port drops),
# what it takes whole (jumbo frames), what it refuses (a cooked capture,
# an output that is the source, flags that do not apply) and how a file
# is paced.
import hashlib
import os
import re
import signal
import subprocess
import time

import pytest
from scapy.all import IP, TCP, UDP, CookedLinux, Ether, Raw, fragment, rdpcap, wrpcap

from conftest import (veth_namespaces, HOSTILE, HPLANE, NOT_NUMBERS, assert_every_flag_refused,
                      assert_invariants, hplane_live, run_hplane, runtime_dirs_left,
                      summary)

MACS = dict(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")


def udp(i, body, sport=50000):
    return (Ether(**MACS) / IP(src=f"10.1.0.{1 + i % 20}", dst="10.2.0.1", id=i) /
            UDP(sport=sport + i % 20, dport=53) / Raw(bytes(body)))


def mixed(n):
    """TCP and UDP flows, 60 to 1454 B frames."""
    out = []
    for i in range(n):
        size = (46, 200, 600, 1400)[i % 4]
        l4 = TCP(sport=40000 + i % 20, dport=80, seq=i) if i % 2 else UDP(sport=50000 + i % 20, dport=53)
        out.append(Ether(**MACS) / IP(src=f"10.1.0.{1 + i % 20}", dst="10.2.0.1") / l4 / Raw(bytes(size)))
    return out


def jumbo(n):
    """UDP frames of 8,000 to 9,014 B (an MTU-9000 link's longest)."""
    return [udp(i, (9014 if i == 0 else 8000 + (i * 53) % 1014) - 42) for i in range(n)]


def paced(n, span, path):
    frames = [udp(i, 100) for i in range(n)]
    for i, f in enumerate(frames):
        f.time = 1_700_000_000 + span * i / (n - 1)
    wrpcap(str(path), frames)
    return frames


def one_line_refusal(p, needle):
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1, (p.returncode, p.stderr)
    assert needle in lines[0], lines[0]
    return lines[0]


# ---- live: tcpreplay -> veth -> hplane (net_af_packet) ----

def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def link():
    # MTU 9000: the jumbo-frame tests
    for nh, ns, (a, b) in veth_namespaces("hf", 1, mtu=9000):
        yield nh, ns, a, b


def promisc(link):
    nh, _, a, _ = link
    return "PROMISC" in sh("ip", "netns", "exec", nh, "ip", "-o", "link", "show", a).stdout


def live_run(link, args, captures, tmp_path):
    """hplane on the near end; once it reads the port, tcpreplay sends each
    capture at top speed from the far end. Returns tcpreplay's sent count
    and hplane's summary."""
    nh, ns, a, b = link
    out = tmp_path / "live"
    sent = 0
    with hplane_live(["--source", f"af_packet:{a}", "--out", str(out), "--quiet"] + args,
                     netns=nh):
        for cap, extra in captures:
            r = subprocess.run(["ip", "netns", "exec", ns, "tcpreplay", "-i", b, "--topspeed"] +
                               extra + [str(cap)], capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            sent += int(re.search(r"Successful packets:\s+(\d+)", r.stdout).group(1))
    return sent, summary(out)


def test_tcpreplay_sent_is_offered_plus_port_drops(link, tmp_path):
    """A kernel ring of 64 frames before a modeled CPU (~40 kpps) while
    tcpreplay sends 10,000 at top speed: the kernel drops, and every drop
    is in dropped_port, so that nothing sent is unaccounted."""
    cap = tmp_path / "mix.pcap"
    wrpcap(str(cap), mixed(200))
    assert not promisc(link)
    sent, s = live_run(link, ["--ring-size", "64", "--cpu-model", "jetson-thesis",
                              "--duration", "5"], [(cap, ["--loop", "50"])], tmp_path)
    assert sent == 10000
    assert_invariants(s)
    assert s["packets_offered"] == sent
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"]
    assert s["dropped_port"] > 0 and s["port"]["kernel_drops"] == s["dropped_port"], s["port"]
    # promiscuous mode is off again, as it was found
    assert not promisc(link)


def test_jumbo_frames_and_fragments_on_mtu_9000(link, tmp_path):
    """Frames up to 9,014 B on an MTU-9000 link arrive whole; fragments
    are reassembled by the kernel (net_af_packet's fanout defragments) and
    the summary says how many."""
    nh, _, a, _ = link
    big, frags = tmp_path / "jumbo.pcap", tmp_path / "frags.pcap"
    frames = jumbo(200)
    wrpcap(str(big), frames)
    wrpcap(str(frags), [f for i in range(10) for f in
                        fragment(udp(1000 + i, 3000, sport=7000), fragsize=1400)])
    sh("ip", "netns", "exec", nh, "ip", "link", "set", a, "promisc", "on")
    try:
        sent, s = live_run(link, ["--app", "null", "--packets", "210", "--duration", "20"],
                           [(big, []), (frags, [])], tmp_path)
        # promiscuous mode is left on, as it was found
        assert promisc(link)
    finally:
        sh("ip", "netns", "exec", nh, "ip", "link", "set", a, "promisc", "off")
    assert sent == 230
    assert_invariants(s)
    assert s["packets_received"] == s["packets_delivered"] == 210
    assert sum(s["dropped_invalid"].values()) == 0 and s["dropped_port"] == 0
    port = s["port"]
    assert port["mtu"] == 9000 and port["frame_max"] >= 9014 + 8, port
    assert port["reassembled"] == {"datagrams": 10, "fragments": 30, "failed": 0}, port
    # every frame sent is accounted for: whole, or a fragment of a datagram
    assert sent == (s["packets_offered"] + port["reassembled"]["fragments"] -
                    port["reassembled"]["datagrams"])


def test_sigint_mid_live_run(link, tmp_path):
    """SIGINT while a live port has taken tcpreplay's traffic: the run
    stops, drains and writes summary.json marked interrupted with every
    frame sent accounted for (kernel drops included, read before the socket
    closes), nothing leaked, exit 130; promiscuous mode is restored and no
    runtime directory is left."""
    nh, ns, a, b = link
    cap = tmp_path / "mix.pcap"
    wrpcap(str(cap), mixed(200))
    out = tmp_path / "o"
    assert not promisc(link)
    t0 = time.time()
    proc = subprocess.Popen(["ip", "netns", "exec", nh, str(HPLANE), "run", "--source",
                             f"af_packet:{a}", "--ring-size", "64", "--cpu-model", "jetson-thesis",
                             "--duration", "60", "--out", str(out), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("running"), proc.stderr.read()
        r = subprocess.run(["ip", "netns", "exec", ns, "tcpreplay", "-i", b, "--topspeed",
                            "--loop", "25", str(cap)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        sent = int(re.search(r"Successful packets:\s+(\d+)", r.stdout).group(1))
        proc.send_signal(signal.SIGINT)
        _, se = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, se
    s = summary(out)
    assert s["interrupted"] is True and s["signal"] == "SIGINT"
    assert_invariants(s)
    # a stop while the scheduler is backed up leaves what the kernel ring
    # holds unread (at most its 64 slots); usually all of it was read
    assert sent == 5000 and sent - 64 <= s["packets_offered"] <= sent
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"]
    assert s["port"]["kernel_drops"] == s["dropped_port"]
    assert not promisc(link)
    assert not runtime_dirs_left([(proc.pid, t0, time.time())])


# ---- pcap files ----

def test_pcap_jumbo_frames_whole(hplane, tmp_path):
    src, outp, o = tmp_path / "jumbo.pcap", tmp_path / "out.pcap", tmp_path / "o"
    frames = jumbo(100)
    wrpcap(str(src), frames)
    run_hplane(["run", "--app", "null", "--source", f"pcap:{src}", "--pcap-speed", "max",
                "--tx", str(outp), "--out", str(o), "--quiet"])
    s = summary(o)
    assert_invariants(s)
    assert s["packets_delivered"] == 100 and sum(s["dropped_invalid"].values()) == 0
    assert s["port"]["frame_max"] >= 9014
    assert sorted(bytes(p) for p in rdpcap(str(outp))) == sorted(bytes(f) for f in frames)


def test_cooked_capture_refused(hplane, tmp_path):
    """tcpdump -i any writes LINKTYPE_LINUX_SLL: no MAC addresses to send
    on, so the file is refused before anything is opened for writing."""
    src = tmp_path / "any.pcap"
    wrpcap(str(src), [CookedLinux(pkttype=0, lladdrtype=1, lladdrlen=6, proto=0x800) /
                      IP(src="10.0.0.1", dst="10.0.0.2") / UDP() / Raw(bytes(100))] * 5)
    p = run_hplane(["run", "--source", f"pcap:{src}", "--out", str(tmp_path / "o")],
                   check=False, timeout=30)
    line = one_line_refusal(p, "is not Ethernet")
    assert "LINUX_SLL" in line
    assert not (tmp_path / "o" / "out.pcap").exists()


def test_truncated_pcap_processed_up_to_the_cut(hplane, tmp_path):
    full, cut, outp, o = (tmp_path / n for n in ("full.pcap", "cut.pcap", "out.pcap", "o"))
    wrpcap(str(full), [udp(i, 200) for i in range(100)])
    data = full.read_bytes()
    cut.write_bytes(data[:-50])     # the 100th record loses its last 50 bytes
    p = run_hplane(["run", "--app", "null", "--source", f"pcap:{cut}", "--pcap-speed", "max",
                    "--tx", str(outp), "--out", str(o), "--quiet"])
    assert "is cut after 99 whole records" in p.stdout + p.stderr
    s = summary(o)
    assert_invariants(s)
    assert s["packets_received"] == s["packets_delivered"] == 99
    assert s["port"]["pcap_records"] == 99 and s["port"]["pcap_cut"] is True
    assert len(rdpcap(str(outp))) == 99
    # a file with no whole record at all is refused
    cut.write_bytes(data[:24 + 16 + 10])
    p = run_hplane(["run", "--source", f"pcap:{cut}", "--out", str(o)], check=False, timeout=30)
    one_line_refusal(p, "no whole record")


def test_pcap_paced_by_its_timestamps(hplane, tmp_path):
    """51 frames over 1 s of capture time. Paced, the last one is due 1 s
    (speed 1) or 0.25 s a pass (speed 4) after the start, so the run cannot
    end sooner; at full speed a capture of 1,000 s is consumed long before
    --duration 20 ends."""
    cap, slow = tmp_path / "1s.pcap", tmp_path / "1000s.pcap"
    paced(51, 1.0, cap)
    paced(20, 1000.0, slow)
    runs = {}
    for name, src, args in (("x1", cap, ["--pcap-speed", "1"]),
                            ("x4", cap, ["--pcap-speed", "4", "--pcap-loop", "2"]),
                            ("max", slow, ["--pcap-speed", "max", "--duration", "20"]),
                            ("cut", slow, ["--duration", "1"]),
                            ("forever", cap, ["--pcap-speed", "max", "--pcap-loop", "0",
                                              "--packets", "120"])):
        o = tmp_path / name
        p = run_hplane(["run", "--app", "null", "--source", f"pcap:{src}", "--out", str(o),
                        "--quiet"] + args)
        runs[name] = (summary(o), p.stdout + p.stderr)
        assert_invariants(runs[name][0])
    s = runs["x1"][0]
    assert s["packets_received"] == 51 and s["dropped_port"] == 0
    assert s["duration_s"] >= 0.99
    s = runs["x4"][0]
    assert s["packets_received"] == 102 and s["duration_s"] >= 0.49
    s = runs["max"][0]
    assert s["packets_received"] == 20 and s["duration_s"] < 20
    # paced, the second frame is 52 s in: a 1 s run sees the first, and says why
    s, text = runs["cut"]
    assert s["packets_received"] == 1
    assert "more than --duration 1.0 s: the run ends first" in text
    assert runs["forever"][0]["packets_received"] >= 120


@pytest.mark.parametrize("how", ["same", "dotted", "hardlink", "symlink", "default"])
def test_tx_that_is_the_source_refused(hplane, tmp_path, how):
    """net_pcap truncates its output when it opens it: an output that is
    the source (by name, path or inode) is refused before, file intact."""
    o = tmp_path / "o"
    src = (o if how == "default" else tmp_path) / ("out.pcap" if how == "default" else "in.pcap")
    src.parent.mkdir(exist_ok=True)
    wrpcap(str(src), [udp(i, 100) for i in range(20)])
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    tx = {"same": str(src), "dotted": f"{tmp_path}/./in.pcap",
          "hardlink": str(tmp_path / "hard.pcap"), "symlink": str(tmp_path / "soft.pcap"),
          "default": None}[how]
    if how == "hardlink":
        os.link(src, tx)
    if how == "symlink":
        os.symlink(src, tx)
    p = run_hplane(["run", "--source", f"pcap:{src}", "--out", str(o)] +
                   (["--tx", tx] if tx else []), check=False, timeout=30)
    one_line_refusal(p, "is the source capture")
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before


# ---- flags that cannot apply to the source ----

@pytest.mark.parametrize("src,flag", [
    ("pcap", ["--scenario", "low"]), ("pcap", ["--trace", "TRACE"]),
    ("pcap", ["--calib", "2"]), ("pcap", ["--flows", "4"]),
    ("af_packet", ["--scenario", "stress"]), ("af_packet", ["--trace", "TRACE"]),
    ("gen", ["--pcap-speed", "2"]), ("gen", ["--pcap-loop", "3"]),
    ("af_packet", ["--pcap-speed", "max"]),
])
def test_flag_that_does_not_apply_refused(hplane, tmp_path, src, flag):
    cap, trace = tmp_path / "in.pcap", tmp_path / "t.txt"
    wrpcap(str(cap), [udp(0, 100)])
    trace.write_text("0 10k\n1 20k\n")
    source = {"pcap": f"pcap:{cap}", "af_packet": "af_packet:lo", "gen": "gen"}[src]
    args = ["run", "--source", source] + [str(trace) if a == "TRACE" else a for a in flag]
    p = run_hplane(args + ["--out", str(tmp_path / "o")], check=False, timeout=30)
    one_line_refusal(p, flag[0])


def test_new_flags_hostile_values(hplane, tmp_path):
    cap = tmp_path / "in.pcap"
    wrpcap(str(cap), [udp(0, 100)])
    h = run_hplane(["run", "--help"], check=False, timeout=30)
    n = assert_every_flag_refused(lambda a: run_hplane(a, check=False, timeout=30),
                                  h.stdout + h.stderr, ["run", "--source", f"pcap:{cap}"],
                                  ["--workers", "0"], only={"--pcap-speed", "--pcap-loop"},
                                  numbers=True, repeats=True)
    # each hostile value, each non-number (naming the flag) and a repeat
    assert n == 2 * (len(HOSTILE) + len(NOT_NUMBERS) + 1)
