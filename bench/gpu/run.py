#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/gpu: AES-128-CTR and MD5 on the GPU, kernel only (data resident)
and end to end (pinned H2D + kernel + D2H overlapped over 4 streams), for
batches of 1k-64k IMIX packets, with the pinned PCIe bandwidth measured in
the same run (gpu/bench_gpu.c); then LDPC, the Aho-Corasick DFA and
AES-128-CBC kernel only with one CPU core on the same inputs
(gpu/bench_gpu_nf.c). Needs a GPU: without one it says so and
exits 77 (skipped) without writing a result. With --record, writes
bench/results/gpu-DATE.md with the device's preflight line.
"""
import argparse
import datetime
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    exe = os.path.join(a.build, "gpu/bench_gpu")
    if not os.path.exists(exe):
        print("bench/gpu: gpu/bench_gpu not built (no nvcc: scripts/setup.sh --with-cuda-compiler)")
        return 77
    p = subprocess.run([exe, str(a.iters)], capture_output=True, text=True)
    if p.returncode == 77:
        print("bench/gpu: " + p.stdout.strip())
        return 77
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        return 1
    lines = p.stdout.strip().splitlines()
    dev = next((l[2:] for l in lines if l.startswith("# ")), "?")
    kv = dict(l.split() for l in lines if l.startswith("pcie_"))
    rows = [l.split(",") for l in lines if l and l[0].isalpha() and "," in l]
    head, rows = rows[0], rows[1:]
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    out = [f"# bench/gpu — {date}", "", f"device: {dev}",
           f"command: `python3 bench/gpu/run.py --iters {a.iters}`", "",
           f"pinned PCIe bandwidth (same run): H2D {kv.get('pcie_h2d_GBps', '?')} GB/s, "
           f"D2H {kv.get('pcie_d2h_GBps', '?')} GB/s", "",
           "| task | batch (packets) | payload bytes | kernel only Gbit/s | end to end Gbit/s | end to end / PCIe |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        d = dict(zip(head, r))
        out.append(f"| {d['op']} | {d['batch']} | {d['bytes']} | {float(d['kernel_Gbps']):.1f} | "
                   f"{float(d['e2e_Gbps']):.1f} | {100 * float(d['e2e_over_pcie']):.0f} % |")
    nf = os.path.join(a.build, "gpu/bench_gpu_nf")
    if os.path.exists(nf):
        q = subprocess.run([nf, str(a.iters)], capture_output=True, text=True)
        if q.returncode != 0:
            sys.stderr.write(q.stdout + q.stderr)
            return 1
        out += ["", "Heavy functions, kernel only, one CPU core on the same inputs in the same run:", "",
                "| task | config | batch | GPU Gbit/s | CPU 1 core Gbit/s | GPU / CPU |",
                "|---|---|---|---|---|---|"]
        for l in q.stdout.strip().splitlines():
            f = l.split(",")
            if len(f) != 5 or f[0] == "task" or l.startswith("#"):
                continue
            g, c = float(f[3]), float(f[4])
            out.append(f"| {f[0]} | {f[1]} | {f[2]} | {g:.1f} | {c:.2f} | {g / c if c else 0:.0f}x |")
    text = "\n".join(out) + "\n"
    print(text)
    if a.record:
        path = os.path.join(ROOT, "bench/results", f"gpu-{datetime.date.today()}.md")
        with open(path, "w") as f:
            f.write(text)
        print("recorded", os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
