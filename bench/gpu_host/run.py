#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/gpu_host: what the CUDA device's lcore does per packet in place
(descriptors and completion: the GPU gathers the payload from the mbuf and
writes the result back into it) against the staged path (memcpy into the
pinned staging, memcpy of the result out), side by side in one process,
for crypto (aes_ctr), dedup (md5) and ids (dpi) at 1458-byte frames and
the IMIX (243/486/1458, shares 2/1/2). Runs build/bench/bench_gpu_host
(bench/gpu_host/gpu_host.c says how and why it is fair) with the plugin
of the same build; TSC cycles of this CPU, not a GPU measurement. With
--record, writes bench/results/gpu-host-DATE.md.

    python3 bench/gpu_host/run.py [--rounds 40] [--record]
"""
import argparse
import datetime
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from rtrun import cpu_model  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--apps", default="crypto,dedup,ids")
    ap.add_argument("--flows", type=int, default=16, help="flows per packet type [16]")
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    exe = os.path.join(a.build, "bench/bench_gpu_host")
    plug = os.path.join(a.build, "gpu")
    if not os.path.exists(exe) or not os.path.exists(os.path.join(plug, "libhp_cuda.so")):
        print("bench/gpu_host: bench_gpu_host or the CUDA plugin is not built "
              "(no nvcc: scripts/setup.sh --with-cuda-compiler)")
        return 77
    env = dict(os.environ, HP_PLUGIN_DIR=plug)
    cmd = [exe, str(a.rounds), a.apps, str(a.flows)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        return p.returncode
    table = "\n".join(l for l in p.stdout.splitlines() if l.startswith("|"))
    print(table)
    if a.record:
        day = datetime.date.today().isoformat()
        path = os.path.join(ROOT, "bench/results/gpu-host-%s.md" % day)
        try:
            load = open("/proc/loadavg").read().split()[:3]
        except OSError:
            load = ["?"]
        with open(path, "w") as f:
            f.write("# The CUDA device lcore's work per packet: in place vs staged (%s)\n\n" % day)
            f.write("CPU: %s, %d online CPUs, load average %s at the end of the run; "
                    "`cuda:emul` (no GPU).\n" % (cpu_model(), os.cpu_count(), " ".join(load)))
            f.write("Command: `python3 bench/gpu_host/run.py --rounds %d --record` "
                    "(runs `build/bench/bench_gpu_host %d %s`).\n\n" % (a.rounds, a.rounds, a.apps))
            f.write(table + "\n\n")
            f.write("Medians over %d batches of 256 packets per mode, frame set and app "
                    "(TSC cycles per packet).\n" % (a.rounds * 32))
        print("recorded " + os.path.relpath(path, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
