# SPDX-License-Identifier: BSD-3-Clause
# A run as a user of TRex or pktgen expects it (issue 20, parts 4, 6, 7):
# a signal stops it cleanly (outputs written, marked interrupted, exit
# 130/143, nothing leaked, no DPDK runtime directory left); outputs go to
# a temporary name and are renamed, a write error says so in one line;
# --out is checked before the run; --packets is exact; the trace has the
# last partial second; summary.json is JSON whatever a path holds; the
# metrics a user reads (bytes, L1/L2, per type, null for a share of
# nothing, calibration kept out); and bad numbers in files and flags are
# refused in one line with exit 2.
import json
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import dpkt
import pytest

from conftest import (HPLANE, HPLANE_RUNS, ROOT, assert_invariants, dpdk_runtime_dir,
                      run_hplane, runtime_dirs_left, summary)

FAST = ["--capacity", "20000", "--quiet"]


def start(args):
    """hplane run in the background, once it has begun the measured phase
    (its 'running:' line)."""
    p = subprocess.Popen([str(HPLANE), "run"] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("running"), (line, p.stderr.read() if p.poll() is not None else "")
    return p


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_mid_run(hplane, tmp_path, sig, code):
    """A signal mid-run stops the traffic, drains what is in flight and
    writes summary.json (marked interrupted), trace.csv; every mbuf is
    back; the exit status is the shell's for the signal; DPDK's runtime
    directory is gone."""
    out = tmp_path / "o"
    t0 = time.time()
    p = start(["--duration", "60", "--out", str(out)] + FAST)
    time.sleep(1.2)
    p.send_signal(sig)
    so, se = p.communicate(timeout=60)
    HPLANE_RUNS.append((p.pid, t0, time.time()))
    assert p.returncode == code, se
    s = summary(out)
    assert s["interrupted"] is True and s["signal"] == signal.Signals(sig).name
    assert_invariants(s)
    assert 0 < s["duration_s"] < 30
    assert s["packets_delivered"] > 0 and s["verified"] == s["packets_delivered"]
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"]
    rows = (out / "trace.csv").read_text().splitlines()
    assert rows[0].startswith("t_s,") and len(rows) >= 2
    assert "interrupted" in so
    assert not runtime_dirs_left([(p.pid, t0, time.time())])
    assert not [f for f in os.listdir(out) if f.startswith(".")], os.listdir(out)


def test_signal_mid_pcap_replay(hplane, tmp_path):
    """The same with a capture replayed at its timestamps (1 ms apart,
    looped until --duration): SIGINT stops the replay, what was taken in is
    delivered and written to out.pcap, renamed into place whole."""
    gen = tmp_path / "g.pcap"
    run_hplane(["gen", "--pcap", str(gen), "--count", "200", "--seed", "3"])
    src = tmp_path / "slow.pcap"
    with open(gen, "rb") as fi, open(src, "wb") as fo:
        w = dpkt.pcap.Writer(fo)
        for i, (_, frame) in enumerate(dpkt.pcap.Reader(fi)):
            w.writepkt(frame, ts=1000.0 + i / 1000)
    out = tmp_path / "o"
    t0 = time.time()
    p = start(["--source", f"pcap:{src}", "--pcap-loop", "0", "--duration", "60",
               "--out", str(out), "--quiet"])
    time.sleep(1.2)
    p.send_signal(signal.SIGINT)
    so, se = p.communicate(timeout=60)
    HPLANE_RUNS.append((p.pid, t0, time.time()))
    assert p.returncode == 130, se
    s = summary(out)
    assert s["interrupted"] is True and s["signal"] == "SIGINT"
    assert_invariants(s)
    assert 0 < s["duration_s"] < 30 and s["packets_received"] > 200  # looped
    assert s["verified"] == s["packets_delivered"]
    frames = list(dpkt.pcap.Reader(open(out / "out.pcap", "rb")))
    assert len(frames) == s["packets_delivered"]
    assert sorted(os.listdir(out)) == ["out.pcap", "report.html", "summary.json", "trace.csv"]
    assert not runtime_dirs_left([(p.pid, t0, time.time())])


def test_second_signal_exits_at_once(hplane, tmp_path):
    """The first signal drains and writes; a second one exits at once with
    its own status, nothing written, still leaving no runtime directory.
    Two SIGINTs sent back to back may arrive as one (they do not queue), so
    the process is stopped while SIGINT and SIGTERM are sent: it resumes
    with both pending and takes them one after the other, in an order of
    the kernel's choosing (threads); had the second been taken as a first,
    the drain would have written summary.json."""
    out = tmp_path / "o"
    t0 = time.time()
    p = start(["--duration", "60", "--out", str(out)] + FAST)
    p.send_signal(signal.SIGSTOP)
    p.send_signal(signal.SIGINT)
    p.send_signal(signal.SIGTERM)
    p.send_signal(signal.SIGCONT)
    _, se = p.communicate(timeout=60)
    HPLANE_RUNS.append((p.pid, t0, time.time()))
    assert p.returncode in (130, 143), se
    assert se.count("stopping") == 1, se
    assert not (out / "summary.json").exists() and not os.listdir(out)
    assert not runtime_dirs_left([(p.pid, t0, time.time())])


def test_no_runtime_dir_left(hplane, tmp_path):
    """Every run used to leave an empty /var/run/dpdk/hplane<pid>; a run
    with the user's own EAL arguments removes its directory when empty."""
    run_hplane(["run", "--duration", "0.5", "--out", str(tmp_path / "a")] + FAST)
    assert not runtime_dirs_left(HPLANE_RUNS[-1:])
    prefix = f"hpt{os.getpid()}"
    run_hplane(["run", "--duration", "0.5", "--out", str(tmp_path / "b")] + FAST +
               ["--", "--no-huge", "--no-pci", "-m", "512", "--no-shconf",
                f"--file-prefix={prefix}", "--lcores=0@0,1@(0-1),2@(0-1),3@(0-1)"])
    assert not (dpdk_runtime_dir(0).parent / prefix).exists()


def test_packets_exact(hplane, tmp_path):
    """--packets N receives exactly N, from the generator (at twice the
    capacity) and from a file (at full speed: paced, gen's 1 us-spaced
    records would overflow the port's queue and count as port drops)."""
    out = tmp_path / "gen"
    run_hplane(["run", "--packets", "12345", "--scenario", "stress", "--duration", "30",
                "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert s["packets_received"] == 12345 == s["packets_delivered"]
    assert s["packets_offered"] == s["packets_received"] + s["dropped_port"]
    src = tmp_path / "g.pcap"
    run_hplane(["gen", "--pcap", str(src), "--count", "2000", "--seed", "4"])
    out = tmp_path / "pcap"
    run_hplane(["run", "--source", f"pcap:{src}", "--packets", "1234", "--pcap-speed", "max",
                "--out", str(out), "--quiet"])
    s = summary(out)
    assert_invariants(s)
    assert s["packets_received"] == 1234 == s["packets_delivered"] == s["verified"]
    assert len(list(dpkt.pcap.Reader(open(out / "out.pcap", "rb")))) == 1234


def udp_frame(i, size, sport=1000):
    """An EF-marked (latency-sensitive) UDP frame of size bytes, payload
    from i."""
    u = dpkt.udp.UDP(sport=sport, dport=2000, data=bytes((i + k) & 0xff for k in range(size - 42)))
    u.ulen = len(u)
    ip = dpkt.ip.IP(src=bytes([10, 0, 0, 1]), dst=bytes([10, 0, 0, 2]), p=17, tos=0xb8, data=u)
    ip.len = len(ip)
    return bytes(dpkt.ethernet.Ethernet(src=b"\x02" * 6, dst=b"\x04" * 6, type=0x0800, data=ip))


def test_every_delivered_packet_verified_or_counted(hplane, tmp_path):
    """Packets flushed from the reorder window at the end were delivered
    without passing verification (196 of 200 counted): one flow whose
    frames alternate 1,400 and 100 B, so that order-needing ones may wait
    in the window to the end; verified + not checkable + failed =
    delivered."""
    src = tmp_path / "alt.pcap"
    with open(src, "wb") as f:
        w = dpkt.pcap.Writer(f)
        for i in range(200):
            w.writepkt(udp_frame(i, 1400 if i % 2 == 0 else 100), ts=1 + i * 1e-4)
    out = tmp_path / "o"
    run_hplane(["run", "--source", f"pcap:{src}", "--pcap-speed", "max", "--out", str(out),
                "--quiet"])
    s = summary(out)
    assert_invariants(s)
    assert s["packets_delivered"] == 200
    assert s["verified"] + s["unverified"] + s["verify_failures"] == 200, s


def test_trace_last_partial_second(hplane, tmp_path):
    """A 2.5 s run's trace reaches its end: a row for the last, partial
    second (it was lost: a 4 s stress run gave 3 rows), unless the row
    before came less than 50 ms from the end with nothing delivered after
    it; the rows add up to what was delivered (a late scheduler may
    deliver thousands in those 50 ms)."""
    out = tmp_path / "o"
    run_hplane(["run", "--duration", "2.5", "--scenario", "medium", "--out", str(out)] + FAST)
    s = summary(out)
    rows = [r.split(",") for r in (out / "trace.csv").read_text().splitlines()]
    head, rows = rows[0], rows[1:]
    t = [float(r[0]) for r in rows]
    assert len(rows) >= 2 and t[-1] >= s["duration_s"] - 0.05, (t, s["duration_s"])
    pps = head.index("delivered_pps")
    dts = [b - a for a, b in zip([0.0] + t, t)]
    got = sum(float(r[pps]) * dt for r, dt in zip(rows, dts))
    n = s["packets_delivered"]
    assert abs(got - n) <= 0.001 * n + 5, (got, n, t)
    assert "l1_gbps" in head


def test_metrics(hplane, tmp_path):
    """Bytes and L1/L2 rates (L1 = L2 + 24 B a frame), counters per type
    and per app that add up, latency from port arrival."""
    out = tmp_path / "o"
    run_hplane(["run", "--duration", "1", "--scenario", "medium", "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    n, b = s["packets_delivered"], s["bytes_delivered"]
    assert b == s["bytes_received"] and b > 60 * n
    assert s["bytes_delivered_l1"] == b + 24 * n  # generated frames are >= 60 B
    assert s["throughput_gbps"] == s["throughput_l2_gbps"]
    assert abs(s["throughput_l1_gbps"] / s["throughput_l2_gbps"] - (b + 24 * n) / b) < 1e-6
    types = s["types"]
    assert sum(t["packets_delivered"] for t in types) == n
    assert sum(t["bytes_delivered"] for t in types) == b
    assert sum(t["deadline_packets"] for t in types) == s["deadline"]["packets"]
    assert sum(t["packets_received"] for t in types) == s["packets_received"]
    assert [a["name"] for a in s["apps"]] == ["crypto"] and s["apps"][0]["packets_delivered"] == n
    assert s["latency_us"]["from"] == "port arrival"


def test_null_not_percent_of_nothing(hplane, tmp_path):
    """No latency-sensitive and no order-needing packet: their shares are
    null, not "100 % of 0"; the text says '-'."""
    types = tmp_path / "types.txt"
    types.write_text("0,65535,no,no,0\n")
    out = tmp_path / "o"
    p = run_hplane(["run", "--types", str(types), "--duration", "1", "--out", str(out)] + FAST)
    s = summary(out)
    assert s["deadline"]["packets"] == 0 and s["deadline"]["success_pct"] is None
    assert s["reorder"]["packets"] == 0 and s["reorder"]["success_pct"] is None
    assert s["reorder"]["arrived_in_order_pct"] is None
    line = [l for l in p.stdout.splitlines() if "deadlines met" in l][0]
    assert "- of 0" in line and "100" not in line
    rows = (out / "trace.csv").read_text().splitlines()
    i = rows[0].split(",").index("deadline_pct")
    assert all(r.split(",")[i] == "" for r in rows[1:])


def test_calibration_not_counted(hplane, tmp_path):
    """The task's own 'verified' log line counts the measured phase only,
    as summary.json does (it counted the capacity calibration too)."""
    out = tmp_path / "o"
    p = run_hplane(["run", "--app", "ids", "--duration", "1", "--calib", "0.4",
                    "--scenario", "low", "--out", str(out), "--quiet"], timeout=180)
    s = summary(out)
    line = [l for l in p.stderr.splitlines() if "dpi: verified" in l][0]
    assert int(line.split("verified ")[1].split()[0]) == s["verified"] == s["packets_delivered"]


def test_hostile_paths_make_valid_json(hplane, tmp_path):
    """A --gpu profile path and an --out folder with a quote, a backslash
    and a tab: summary.json is still JSON (it was written with fprintf),
    and trace.csv's header quotes the device's name."""
    # short: a device's name keeps the spec's first 47 bytes
    d = Path(tempfile.mkdtemp(prefix='q"\\\t', dir="/tmp"))
    try:
        prof = d / 'p"q.json'
        shutil.copy(ROOT / "profiles/jetson-thesis.json", prof)
        out = d / 'o"ut'
        run_hplane(["run", "--gpu", f"model:{prof}", "--duration", "1", "--out", str(out),
                    "--capacity", "5000", "--quiet"])
        s = summary(out)
        head = (out / "trace.csv").read_text().splitlines()[0]
    finally:
        shutil.rmtree(d)
    assert_invariants(s)
    names = [x["name"] for x in s["devices"]]
    assert names[1].startswith("model:") and '"' in names[1], names
    assert set(s["device_share"]) == set(names)
    assert '""' in head


def test_unwritable_out_refused_before_run(hplane, tmp_path):
    """An --out that cannot take files is refused before EAL starts (it
    failed only after the run); so is one whose summary.json is a folder."""
    busy = tmp_path / "busy"
    (busy / "summary.json").mkdir(parents=True)
    cases = [busy]
    if os.geteuid() == 0:
        cases.append("/proc")  # root writes anywhere else
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        cases.append(ro)
    for out in cases:
        p = run_hplane(["run", "--duration", "1", "--out", str(out)] + FAST, check=False,
                       timeout=30)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        assert p.returncode == 2 and len(lines) == 1, p.stderr
        assert "cannot write into output directory" in lines[0]
        assert "running" not in p.stdout


def small_files(limit):
    """A child whose files cannot grow past limit bytes: a full disk as a
    write sees it (EFBIG instead of ENOSPC)."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_write_error_one_line(hplane, tmp_path):
    """A write that fails (a full disk) gives one line and exit 1; the
    outputs are written under a temporary name, so none is left half
    written: an earlier summary.json stays whole, a pcap output cut short
    is not left under its name."""
    out = tmp_path / "o"
    out.mkdir()
    (out / "summary.json").write_text('{"old": true}\n')
    p = run_hplane(["run", "--duration", "0.5", "--out", str(out)] + FAST, check=False,
                   preexec_fn=small_files(2000))
    lines = [l for l in p.stderr.splitlines() if l.startswith("hplane:")]
    assert p.returncode == 1 and len(lines) == 1, p.stderr
    assert "cannot write" in lines[0] and "summary.json" in lines[0]
    assert json.loads((out / "summary.json").read_text()) == {"old": True}
    assert sorted(os.listdir(out)) == ["summary.json"]
    src = tmp_path / "g.pcap"
    run_hplane(["gen", "--pcap", str(src), "--count", "500", "--seed", "2"])
    out = tmp_path / "p"
    p = run_hplane(["run", "--source", f"pcap:{src}", "--out", str(out), "--quiet"],
                   check=False, preexec_fn=small_files(src.stat().st_size // 2))
    lines = [l for l in p.stderr.splitlines() if l.startswith("hplane:")]
    assert p.returncode == 1 and len(lines) == 1 and "out.pcap" in lines[0], p.stderr
    assert not (out / "out.pcap").exists()
    assert not [f for f in os.listdir(out) if "tmp" in f], os.listdir(out)


def test_gen_write_error_one_line(hplane, tmp_path):
    """hplane gen's capture cut short by a full disk: one line, exit 1, no
    short file under its name (pcap_dump reports nothing: it exited 0)."""
    out = tmp_path / "g.pcap"
    p = run_hplane(["gen", "--pcap", str(out), "--count", "5000"], check=False,
                   preexec_fn=small_files(100000))
    lines = [l for l in p.stderr.splitlines() if l.startswith("hplane:")]
    assert p.returncode == 1 and len(lines) == 1 and "g.pcap" in lines[0], p.stderr
    assert os.listdir(tmp_path) == []
    run_hplane(["gen", "--pcap", str(out), "--count", "50"])
    assert len(list(dpkt.pcap.Reader(open(out, "rb")))) == 50
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())


def current_umask():
    u = os.umask(0)
    os.umask(u)
    return u


@pytest.mark.parametrize("kind,text,needle", [
    ("types", "0,4294967551,yes,yes,100\n", ":1: bad value"),   # %u wrapped to 255
    ("types", "0,100,yes,yes,nan\n", ":1: bad value"),
    ("types", "0,100,yes,yes,1e400\n", ":1: bad value"),
    ("types", "0,100,yes,yes,inf\n", ":1: bad value"),
    ("types", " 0x10,100,no,no,0\n", ":1: bad value"),
    ("types", "0,100,no,no,0,7\n", ":1: expected"),
    ("trace", "0 1e30\n", ":1: bad rate"),
    ("trace", "0 2000x\n", ":1: bad rate"),
    ("trace", "0 1e6M\n", ":1: bad rate"),
    ("trace", "0 nan\n", ":1: bad rate"),
    ("trace", "1e400 10k\n", ":1: expected"),
    ("trace", "0x10 10k\n", ":1: expected"),
])
def test_bad_numbers_in_files(hplane, tmp_path, kind, text, needle):
    f = tmp_path / "in.txt"
    f.write_text(text)
    p = run_hplane(["run", f"--{kind}", str(f), "--out", str(tmp_path / "o")], check=False,
                   timeout=30)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1 and needle in lines[0], p.stderr


@pytest.mark.parametrize("args,needle", [
    (["--capacity", "1e30"], "bad value '1e30' for --capacity"),
    (["--capacity", "inf"], "bad value 'inf' for --capacity"),
    (["--deadline-us", "nan"], "for --deadline-us"),
    (["--deadline-us", "1e400"], "for --deadline-us"),
    (["--packets", "0"], "for --packets"),
    (["--workers", " -1"], "for --workers"),     # strtoull wrapped it
    (["--app", "null", "--app", "crypto"], "--app given twice"),
    (["--out", "a", "--out", "b"], "--out given twice"),
    (["--sched-param", "foo=1"], "unknown option 'foo=1'"),
    (["--sched", "pin", "--sched-param", "dev=0", "--sched-param", "dev=1"],
     "dev given twice"),
    (["--sched", "qlearn", "--qtable", "q.json", "--sched-param", "qtable=r.json"],
     "qtable given twice"),
    # the options of policies, tasks and devices: whole decimals too
    (["--sched", "pin", "--sched-param", "dev=+0"], "dev=+0: expected"),
    (["--sched", "static", "--gpu", "model:jetson-thesis", "--sched-param", "util=nan"],
     "util=nan: expected"),
    (["--app", "ran", "--param", "iters=0x10"], "bad iters '0x10'"),
    (["--app", "ran", "--param", "code=wifi:4294967944:1/2"], "bad code"),  # %u wrapped
    (["--app", "ran", "--param", "code=wifi: 648:1/2"], "bad code"),
    (["--app", "ids", "--param", "gen= 5"], "bad gen"),
    (["--app", "ids", "--param", "plant=inf"], "bad plant"),
    (["--gpu", "model:jetson-thesis,scale=1e400"], "scale=1e400: expected"),
    (["--gpu", "model:jetson-thesis,inflight=0x2"], "inflight=0x2: expected"),
])
def test_bad_flags(hplane, tmp_path, args, needle):
    out = [] if "--out" in args else ["--out", str(tmp_path / "o")]
    p = run_hplane(["run"] + args + out, check=False, timeout=30, cwd=tmp_path)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1 and needle in lines[0], p.stderr


def test_good_files_still_read(hplane, tmp_path):
    """The stricter parsers take what the formats always allowed: blanks
    around fields, comments, k/M/x rates."""
    types = tmp_path / "t.txt"
    types.write_text("# min,max,reorder,latency,deadline_us\n 0 , 300 ,yes, yes , 500.5\n"
                     "301,65535,no,no,0\n")
    trace = tmp_path / "r.txt"
    trace.write_text("# s rate\n0 5k\n0.5, 0.5x\n")
    out = tmp_path / "o"
    run_hplane(["run", "--types", str(types), "--trace", str(trace), "--duration", "1",
                "--out", str(out)] + FAST)
    s = summary(out)
    assert_invariants(s)
    assert s["types"][1]["deadline_us"] == 500.5 and s["types"][2]["max_len"] == 65535
