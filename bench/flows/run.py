#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/flows: the scheduler's cost per packet against the number of live
flows (issue 20: the flow table on rte_hash must stay flat, 100k live flows
within 1.5x of 1k; the linear-probing table it replaced cost 7,651 instead
of 473 cycles a packet once full).

Two captures of the same 100,000 64-byte UDP frames, one spread round robin
over 1,000 flows (100 packets each), one over 100,000 (one each, so every
packet's flow is a different one and the table's buckets and states do not
stay in cache). hplane replays each in a loop at full speed for --seconds
(`--app null`, one CPU worker, verification off, output to /dev/null), so
every flow stays live (--flow-idle 10 s is far longer than a pass), and
reports the scheduler lcore's cycles per packet (summary.json
sched_cycles_per_packet: its CPU time x the share of its loop time that
found work, per packet) and, of them, the way in (rx, classify, the flow
lookup, the policy, the ring to the worker: sched_in_cycles_per_packet).
The two alternate (ABAB...) --rounds times; the verdict is the median of
the rounds' ratios, over the rounds where both runs replayed the whole file
at least once (flows.peak = its flows: on a loaded machine a run may crawl
and see a few thousand), beside the ratio of the medians. Writes a markdown table to stdout and, with --record, to
bench/results/flows-DATE.md.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rtrun import run_rt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAMES = 100_000


def capture(path, n_flows):
    """FRAMES 60-byte Ethernet/IPv4/UDP frames (64 on the wire), round robin
    over n_flows flows (source address and port), 1 us apart."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for j in range(FRAMES):
            fl = j % n_flows
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, j & 0xFFFF, 0, 64, 17, 0,
                             bytes([10, 16 + (fl >> 16), (fl >> 8) & 255, fl & 255]),
                             bytes([10, 250, 0, 1]))
            s = sum(struct.unpack("!10H", ip))
            s = (s & 0xFFFF) + (s >> 16)
            s = (s & 0xFFFF) + (s >> 16)
            ip = ip[:10] + struct.pack("!H", ~s & 0xFFFF) + ip[12:]
            udp = struct.pack("!HHHH", 1024 + fl % 60000, 4789, 26, 0) + bytes(18)
            frame = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + udp
            f.write(struct.pack("<IIII", j // 1_000_000, j % 1_000_000, len(frame), len(frame)))
            f.write(frame)


def run(hplane, cap, secs, extra, rt):
    """One looped replay (hplane's lcores SCHED_FIFO unless rt is False,
    bench/rtrun.py); its summary, and the real-time note under "_rt"."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [hplane, "run", "--app", "null", "--source", f"pcap:{cap}", "--pcap-speed", "max",
               "--pcap-loop", "0", "--duration", str(secs), "--verify-every", "0",
               "--tx", "/dev/null", "--quiet", "--out", d] + extra
        try:
            _, note = run_rt(cmd, timeout=120 + 4 * secs, rt=rt)
        except RuntimeError as e:
            sys.exit(f"bench/flows: {e}")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        s["_rt"] = note
        return s


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--flows", default="1000,100000", help="the two flow counts, A,B")
    ap.add_argument("--record", action="store_true")
    # Normal scheduling by default: the pcap replay is a control thread of
    # normal priority, and on a 2-CPU machine SCHED_FIFO lcores starve it
    # (tried: 0.00-0.06 Mpps delivered).
    ap.add_argument("--rt", action="store_true",
                    help="hplane's lcores SCHED_FIFO (bench/rtrun.py; needs spare CPUs for the "
                         "replay thread)")
    ap.add_argument("--tag", default="", help="suffix of the record's name")
    ap.add_argument("--hplane-args", default="", help="more `hplane run` options")
    ap.add_argument("--baseline", default="",
                    help="another build folder run in the same rounds (e.g. one before the "
                         "flow table), reported beside")
    a = ap.parse_args()
    hplane = os.path.join(a.build, "apps/hplane/hplane")
    counts = [int(x) for x in a.flows.split(",")]
    load0 = os.getloadavg()[0]
    builds = [("", hplane)] + ([("baseline ", os.path.join(a.baseline, "apps/hplane/hplane"))]
                               if a.baseline else [])
    res = {(b, n): {"all": [], "in": [], "mpps": [], "live": []} for b, _ in builds
           for n in counts}
    with tempfile.TemporaryDirectory() as d:
        caps = {}
        for n in counts:
            caps[n] = os.path.join(d, f"flows{n}.pcap")
            capture(caps[n], n)
        for _ in range(a.rounds):
            for (b, exe), n in [(x, n) for x in builds for n in counts]:
                s = run(exe, caps[n], a.seconds, ["--idle", "yield"] + a.hplane_args.split(),
                        a.rt)
                rtnote = s["_rt"]
                assert s["dropped_internal"] == 0 and s["mbufs_leaked"] == 0, s
                r = res[(b, n)]
                r["all"].append(s["sched_cycles_per_packet"])
                r["in"].append(s["sched_in_cycles_per_packet"])
                r["mpps"].append(s["throughput_mpps"])
                r["live"].append(s.get("flows", {}).get("peak", 0))  # 0: a build before the table
    med = {n: {k: statistics.median(v) for k, v in r.items()} for n, r in res.items()}
    lo, hi = counts

    def cells(n, k, fmt="{:.0f}"):
        return ", ".join(fmt.format(x) for x in res[n][k])

    lines = [
        f"# bench/flows — {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}",
        "",
        f"machine: {platform.node()} ({os.cpu_count()} CPUs, "
        f"{platform.processor() or platform.machine()}), load average {load0:.1f} at the start; "
        f"command: `python3 bench/flows/run.py --seconds {a.seconds} --rounds {a.rounds}"
        + (f" --flows {a.flows}" if a.flows != "1000,100000" else "")
        + (f" --hplane-args '{a.hplane_args}'" if a.hplane_args else "")
        + (f" --baseline {a.baseline}" if a.baseline else "")
        + (" --rt" if a.rt else "") + "`; "
        + (f"hplane's lcores SCHED_FIFO ({rtnote})" if a.rt else "normal scheduling"),
        "",
        "| measure | median | rounds |",
        "|---|---|---|",
    ]
    for b, _ in builds:
        for n in counts:
            k = (b, n)
            lines += [
                f"| {b}{n:,} flows: flows in the table at most (0: not reported) | {med[k]['live']:,.0f} | {cells(k, 'live')} |",
                f"| {b}{n:,} flows: scheduler cycles/packet | {med[k]['all']:.0f} | {cells(k, 'all')} |",
                f"| {b}{n:,} flows: ... of it the way in (classify, flow lookup, policy) | {med[k]['in']:.0f} | {cells(k, 'in')} |",
                f"| {b}{n:,} flows: Mpps delivered | {med[k]['mpps']:.2f} | {cells(k, 'mpps', '{:.2f}')} |",
            ]
        ratio = med[(b, hi)]["all"] / med[(b, lo)]["all"]
        ratio_in = med[(b, hi)]["in"] / med[(b, lo)]["in"]
        goal = " (goal <= 1.5)" if not b else ""
        lines += [
            f"| **{b}{hi:,} / {lo:,} flows, scheduler cycles/packet**{goal} | **{ratio:.2f}** | |",
            f"| {b}{hi:,} / {lo:,} flows, the way in | {ratio_in:.2f} | |",
        ]
    # per round, over the rounds where both runs saw every flow
    ok = [i for i in range(a.rounds)
          if all(res[("", n)]["live"][i] == n for n in counts)]
    if ok:
        rr = [res[("", hi)]["all"][i] / res[("", lo)]["all"][i] for i in ok]
        ri = [res[("", hi)]["in"][i] / res[("", lo)]["in"][i] for i in ok]
        lines += [
            f"| **median of the rounds' {hi:,} / {lo:,} ratios, scheduler cycles/packet** "
            f"({len(ok)} of {a.rounds} rounds saw every flow) | **{statistics.median(rr):.2f}** | "
            + ", ".join(f"{x:.2f}" for x in rr) + " |",
            f"| ... the way in | {statistics.median(ri):.2f} | " + ", ".join(f"{x:.2f}" for x in ri)
            + " |",
        ]
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if a.record:
        path = os.path.join(ROOT, "bench/results",
                            f"flows-{datetime.date.today().isoformat()}{a.tag}.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"recorded in {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
