#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SMPP decoder bench, side by side in one run:

* heteroplane's C batch decoder (bench_smpp: bare per-PDU decoder, batch
  sizes x thread counts, plain and element input forms);
* the peer: Python smpplib's decoder (smpplib.smpp.parse_pdu) on the very
  same PDUs (bench_smpp -w writes them; one core, plain loop).

Writes the tables to stdout and, with --out, to a markdown results file.
Usage: python3 bench/smpp/run_bench.py [--build build-smpp] [--sizes 1000,...]
       [--peer-pdus 20000] [--secs 1] [--out bench/results/smpp-DATE.md]
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from rtrun import cpu_model  # noqa: E402


def peer_smpplib(path, n):
    import smpplib.smpp as smpp
    data = open(path, "rb").read()
    pdus, off = [], 0
    while off < len(data) and len(pdus) < n:
        cl = int.from_bytes(data[off:off + 4], "big")
        pdus.append(data[off:off + cl])
        off += cl
    # check once that smpplib reads what we generated, then time it
    p = smpp.parse_pdu(pdus[0], sequence=0)
    assert p.command == "submit_sm" and len(p.short_message) == 20
    t0 = time.perf_counter()
    for d in pdus:
        smpp.parse_pdu(d, sequence=0)
    t = time.perf_counter() - t0
    return len(pdus), len(pdus) / t, sum(map(len, pdus)) / t / 1e6


def emit(text, out):
    """Print a results text and, when out is set, write it there."""
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--peer-pdus", type=int, default=20000)
    ap.add_argument("--secs", default="1")
    ap.add_argument("--out")
    a = ap.parse_args()
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load = "?"
    bench = os.path.join(a.build, "bench", "smpp", "bench_smpp")
    if not os.access(bench, os.X_OK):
        sys.exit("run_bench: %s not built" % bench)
    cmd = [bench, "-b", a.sizes, "-t", str(a.threads), "-s", a.secs]
    c_table = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as td:
        f = os.path.join(td, "pdus.bin")
        subprocess.run([bench, "-w", f, "-n", str(a.peer_pdus)], check=True)
        n, pps, mbs = peer_smpplib(f, a.peer_pdus)
    bare = [line for line in c_table.splitlines() if line.startswith("| bare")][0]
    c_pps = float(bare.split("|")[4])
    peer = ("| decoder | PDUs | PDUs/s (1 core) | MB/s |\n|---|---:|---:|---:|\n"
            "| heteroplane C (bare smpp_decode_pdu, median pass) | 100000 | %.0f | %s |\n"
            "| python smpplib 2.x parse_pdu | %d | %.0f | %.1f |\n"
            "| ratio C / smpplib | | %.0fx | |\n"
            % (c_pps, bare.split("|")[5].strip(), n, pps, mbs, c_pps / pps))
    now = datetime.datetime.now(datetime.timezone.utc)
    head = ("# SMPP decoder bench, %s\n\n"
            "- machine: %s, %d CPUs online (a shared VM: other engineers' builds and "
            "tests ran alongside; load average at the start %s), %s\n"
            "- command: `python3 bench/smpp/run_bench.py --build %s --sizes %s "
            "--threads %d --peer-pdus %d --secs %s`\n"
            "- workload: SUBMIT_SM, distinct addresses, 20-octet message, 5 TLVs "
            "(Weerasinghe 4.1), ~103 octets per PDU\n"
            "- C side: `%s`; per configuration, smpp_decode_batch calls repeated for "
            "--secs: PDUs/s and MB/s from the median call (the mean beside it: on a shared "
            "VM preemptions drag it down), best ms = fastest call\n"
            % (now.strftime("%Y-%m-%d %H:%M UTC"), cpu_model(), os.cpu_count(), load,
               platform.platform(), a.build, a.sizes, a.threads, a.peer_pdus, a.secs,
               " ".join(os.path.relpath(c, ROOT) if c.startswith("/") else c for c in cmd)))
    text = (head + "\n## Peer: same PDUs, one core\n\n" + peer +
            "\n## Batch decoder: batch size x threads x input form\n\n" + c_table)
    emit(text, a.out)


if __name__ == "__main__":
    main()
