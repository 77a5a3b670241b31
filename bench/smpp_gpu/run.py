#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/smpp_gpu: SMPP batch decoding, gpu and gpu-fused modes against the
multi-threaded CPU decoder on the same 1M thesis-mix SUBMIT_SMs (Weerasinghe
4.1), end to end through smpp_decode_batch (bench/smpp_gpu/bench_smpp_gpu.c;
every GPU configuration is first checked field for field against the CPU).
Issue 9's goal: gpu-fused >= 5x the best multi-threaded CPU row at 1M PDUs.

Needs a GPU: without one it says so and exits 77 (make bench: skipped).
--emul runs the host emulation of the kernels instead, to check this
harness; its numbers are not GPU measurements and are never recorded.
With --record (GPU only), writes bench/results/smpp_gpu-DATE.md.
"""
import argparse
import datetime
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def table(rows, framing, emulated):
    sel = [r for r in rows if r["framing"] == framing]
    if not sel:
        return []
    cpu = [r for r in sel if r["mode"] == "cpu"]
    best_cpu = max(cpu, key=lambda r: float(r["pdus_per_s"]))
    out = [f"### {framing} framing, {sel[0]['pdus']} PDUs ({int(sel[0]['bytes']) / 1e6:.1f} MB)", "",
           "| mode | config | best s | mean s | M PDUs/s | MB/s | vs best CPU |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for r in sel:
        ratio = float(r["pdus_per_s"]) / float(best_cpu["pdus_per_s"])
        out.append(f"| {r['mode']} | {r['config']} | {float(r['best_s']):.4f} | "
                   f"{float(r['mean_s']):.4f} | {float(r['pdus_per_s']) / 1e6:.2f} | "
                   f"{float(r['mb_per_s']):.0f} | {ratio:.2f}x |")
    fused = [r for r in sel if r["mode"] == "gpu-fused"]
    if fused:
        bf = max(fused, key=lambda r: float(r["pdus_per_s"]))
        ratio = float(bf["pdus_per_s"]) / float(best_cpu["pdus_per_s"])
        verdict = ("emulated: not a GPU measurement" if emulated
                   else f"goal >= 5x: {'met' if ratio >= 5 else 'not met'}")
        out += ["", f"best gpu-fused ({bf['config']}) / best CPU ({best_cpu['config']}): "
                f"**{ratio:.2f}x** ({verdict})"]
    return out + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--pdus", type=int, default=1000000)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--emul", action="store_true", help="host emulation (harness check only)")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    exe = os.path.join(a.build, "smpp/gpu/bench_smpp_gpu")
    if not os.path.exists(exe):
        print("bench/smpp_gpu: smpp/gpu/bench_smpp_gpu not built "
              "(no nvcc: scripts/setup.sh --with-cuda-compiler)")
        return 77
    cmd = [exe, "-n", str(a.pdus), "-i", str(a.iters), "-t", str(a.threads)]
    if a.emul:
        cmd.append("--emul")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 77:
        print("bench/smpp_gpu: needs a GPU: " + p.stdout.strip())
        return 77
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        return 1
    lines = p.stdout.strip().splitlines()
    dev = next((l[2:] for l in lines if l.startswith("# ")), "?")
    body = [l for l in lines if l and not l.startswith("#")]
    head = body[0].split(",")
    rows = [dict(zip(head, l.split(","))) for l in body[1:]]
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    cmdline = "python3 bench/smpp_gpu/run.py" + (" --emul" if a.emul else "") + \
        f" --pdus {a.pdus} --iters {a.iters} --threads {a.threads}"
    out = [f"# bench/smpp_gpu — {date}", "", f"device: {dev}", f"host CPUs: {os.cpu_count()}",
           f"command: `{cmdline}`", "",
           "End to end through smpp_decode_batch (input and decoded records in host memory); "
           "best of the calls after one warm-up; every GPU configuration checked field for field "
           "against the CPU decoder first.", ""]
    for fr in ("plain", "element"):
        out += table(rows, fr, "emulated" in dev)
    text = "\n".join(out)
    print(text)
    if a.record:
        if a.emul:
            print("not recorded: emulated runs are not GPU measurements")
            return 0
        path = os.path.join(ROOT, "bench/results", f"smpp_gpu-{datetime.date.today()}.md")
        with open(path, "w") as f:
            f.write(text)
        print("recorded", os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
