#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""hp-smppd soak and throughput (issue 25): hp-smppsim with many sessions at
a fixed rate for a minute against this build's server, its RSS sampled every
second (it must stay flat: the store is a bounded ring, sessions are
recycled); then unpaced throughput against this build's server and, when
--old names another build, against that one's, alternated (A B A B ...) in
one run, so the ratio says what the new checks cost.

Usage: python3 bench/smpp/run_soak.py [--build build] [--old OLD_BUILD]
       [--sessions 50] [--rate 20000] [--secs 60] [--tp-secs 10]
       [--tp-sessions 4] [--rounds 3] [--out FILE]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

from run_bench import cpu_model  # same folder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Smppd:
    """hp-smppd of a build on a free port, with the flags both the old and
    the new server take."""

    def __init__(self, build, work, tag):
        exe = os.path.join(build, "smpp", "tools", "hp-smppd")
        if not os.access(exe, os.X_OK):
            sys.exit("run_soak: %s not built" % exe)
        users = os.path.join(work, "users.conf")
        with open(users, "w") as f:
            f.write("user esme1 secret1\n")
        self.err = open(os.path.join(work, tag + ".stderr"), "w")
        self.p = subprocess.Popen([exe, "-c", users, "-a", "127.0.0.1", "-p", "0", "-b", "256",
                                   "-T", "1"], stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.p.stdout.readline()
        if "listening on " not in line:
            sys.exit("run_soak: %s did not start: %s" % (exe, line))
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self):
        self.p.terminate()
        rc = self.p.wait(timeout=15)
        self.err.close()
        return rc


def sim(build, port, sessions, rate, secs):
    exe = os.path.join(build, "smpp", "tools", "hp-smppsim")
    r = subprocess.run([exe, "-a", "127.0.0.1", "-p", str(port), "-u", "esme1", "-w", "secret1",
                        "-n", str(sessions), "-r", str(rate), "-d", str(secs), "-W", "64", "-j"],
                       capture_output=True, text=True, timeout=secs + 120)
    try:
        return r.returncode, json.loads(r.stdout)
    except ValueError:
        sys.exit("run_soak: hp-smppsim gave no JSON (exit %d): %s" % (r.returncode, r.stderr))


def soak(a, build, work):
    srv = Smppd(build, work, "soak")
    samples = []
    sp = subprocess.Popen([sys.executable, __file__, "--_sim", build, str(srv.port),
                           str(a.sessions), str(a.rate), str(a.secs)],
                          stdout=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    while sp.poll() is None:
        samples.append((time.monotonic() - t0, rss_kib(srv.p.pid)))
        time.sleep(1.0)
    rc_sim, j = sp.returncode, json.loads(sp.stdout.read())
    rc_srv = srv.stop()
    return rc_sim, j, samples, rc_srv


def throughput(a, builds, work):
    rows = {tag: [] for tag in builds}
    for rnd in range(a.rounds):
        for tag, build in builds.items():
            srv = Smppd(build, work, "%s-%d" % (tag, rnd))
            rc, j = sim(a.build, srv.port, a.tp_sessions, 10000000, a.tp_secs)
            srv.stop()
            rows[tag].append((rc, j))
    return rows


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--_sim":
        build, port, n, rate, secs = sys.argv[2:7]
        rc, j = sim(build, int(port), int(n), float(rate), float(secs))
        print(json.dumps(j))
        return rc
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--old", help="another build's hp-smppd to compare throughput with")
    ap.add_argument("--sessions", type=int, default=50)
    ap.add_argument("--rate", type=float, default=20000)
    ap.add_argument("--secs", type=float, default=60)
    ap.add_argument("--tp-secs", type=float, default=10)
    ap.add_argument("--tp-sessions", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    load0 = loadavg()
    with tempfile.TemporaryDirectory() as work:
        rc_sim, j, samples, rc_srv = soak(a, a.build, work)
        builds = {"new": a.build}
        if a.old:
            builds["old"] = os.path.abspath(a.old)
        tp = throughput(a, builds, work)
    load1 = loadavg()

    rss = [r for t, r in samples if t >= 5]          # after the sessions are up
    rss = rss or [r for _, r in samples]
    half = len(rss) // 2
    lines = [
        "# hp-smppd soak and throughput, %s" % datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "",
        "- machine: %s, %d CPUs online (a shared VM: other builds ran alongside), %s; "
        "load average %s at the start, %s at the end" % (
            cpu_model(), os.cpu_count(), platform.platform(), load0, load1),
        "- command: `python3 bench/smpp/run_soak.py --build %s%s --sessions %d --rate %g "
        "--secs %g --tp-secs %g --tp-sessions %d --rounds %d`" % (
            os.path.relpath(a.build, ROOT), " --old " + a.old if a.old else "", a.sessions,
            a.rate, a.secs, a.tp_secs, a.tp_sessions, a.rounds),
        "- server: `hp-smppd -b 256 -T 1` (defaults otherwise); client: hp-smppsim, window 64, "
        "the thesis-mix submit_sm; both on this machine over loopback",
        "",
        "## Soak: %d sessions at %g submit_sm/s for %g s" % (a.sessions, a.rate, a.secs),
        "",
        "| bound | sent | answered | ESME_ROK | errors | unanswered | sent/s | answered/s | "
        "p50 ms | p99 ms | max ms | sim exit | server exit |",
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        "| %d | %d | %d | %d | %s | %d | %.0f | %.0f | %.2f | %.2f | %.2f | %d | %d |" % (
            j["bound"], j["sent"], j["answered"], j["ok"], json.dumps(j["errors"]),
            j["unanswered"], j["sent_tps"], j["answered_tps"], j["latency_ms"]["p50"],
            j["latency_ms"]["p99"], j["latency_ms"]["max"], rc_sim, rc_srv),
        "",
        "Server RSS (KiB, sampled every second from 5 s on, %d samples): first %d, "
        "last %d, min %d, max %d; median of the first half %d, of the second half %d." % (
            len(rss), rss[0], rss[-1], min(rss), max(rss),
            statistics.median(rss[:half] or rss), statistics.median(rss[half:])),
        "",
        "## Throughput, unpaced, %d sessions, %g s a run, alternated" % (
            a.tp_sessions, a.tp_secs),
        "",
        "| server | runs: answered submit_sm/s | median | errors + unanswered |",
        "|---|---|---:|---:|",
    ]
    med = {}
    for tag, rows in tp.items():
        rates = [r[1]["answered_tps"] for r in rows]
        bad = sum(sum(r[1]["errors"].values()) + r[1]["unanswered"] for r in rows)
        med[tag] = statistics.median(rates)
        lines.append("| %s (%s) | %s | %.0f | %d |" % (
            tag, os.path.relpath(a.build, ROOT) if tag == "new" else a.old,
            ", ".join("%.0f" % x for x in rates), med[tag], bad))
    if "old" in med:
        ratio = [n[1]["answered_tps"] / o[1]["answered_tps"] for n, o in zip(tp["new"], tp["old"])]
        lines += ["", "new / old: %s per round, median **%.3f**" % (
            ", ".join("%.3f" % r for r in ratio), statistics.median(ratio))]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0 if rc_sim == 0 and rc_srv == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
