#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Cloudhopper's PduTranscoder, its own DefaultPduTranscoder against our
JniPduTranscoder (the JNI batch decoder behind Cloudhopper's interface), in
one JVM on the same PDUs, both producing Cloudhopper's PDU objects
(TranscoderBench.java): the decode throughput ratio, and where the JNI
transcoder's time goes (the JNI call alone, the records read without
objects, the objects built without decoding).

Usage: python3 bench/smpp/run_transcoder_bench.py [--build build]
       [--pdus 100000] [--per-buffer 1,64,1000] [--secs 3] [--warm 2]
       [--reps 7] [--out FILE [--append]]
"""
import argparse
import datetime
import os
import platform
import subprocess
import tempfile

from run_bench import cpu_model  # same folder
from run_java_bench import JVM_FLAGS, ROOT, classpath, java_version, loadavg

LABEL = {
    "cloudhopper": "Cloudhopper `DefaultPduTranscoder`",
    "jni-transcoder": "`JniPduTranscoder`",
    "jni-call": "JNI call alone",
    "jni-views": "JNI call + record reads",
    "objects-only": "Cloudhopper objects only",
}


def parse(text):
    rows, calls = [], {}
    for line in text.splitlines():
        if line.startswith("#jni-calls"):
            _, pb, n = line.split("\t")
            calls[int(pb)] = int(n)
        if not line or line.startswith("#"):
            continue
        path, pb, pdus, rounds, med, best, ratio, cmed, cratio = line.split("\t")
        rows.append(dict(path=path, pb=int(pb), pdus=int(pdus), rounds=int(rounds),
                         med=float(med), best=float(best), ratio=float(ratio),
                         cmed=float(cmed), cratio=float(cratio)))
    return rows, calls


def ns(rate):
    return 1e9 / rate if rate > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--pdus", default="100000")
    ap.add_argument("--per-buffer", default="1,64,1000")
    ap.add_argument("--secs", default="3")
    ap.add_argument("--warm", default="2")
    ap.add_argument("--reps", default="7")
    ap.add_argument("--out")
    ap.add_argument("--append", action="store_true", help="add to --out instead of replacing it")
    a = ap.parse_args()
    load0 = loadavg()
    build = os.path.abspath(a.build)
    lib = os.path.join(build, "smpp", "java", "libhpsmppjni.so")
    if not os.path.exists(lib):
        raise SystemExit("run_transcoder_bench: %s not built" % lib)
    with tempfile.TemporaryDirectory() as work:
        cp = classpath(build, work)
        src = os.path.join(ROOT, "bench", "smpp", "TranscoderBench.java")
        subprocess.run(["javac", "-d", work, "-cp", cp, src], check=True)
        cmd = (["java"] + JVM_FLAGS + ["-Dhp.smpp.lib=" + lib, "-cp", work + os.pathsep + cp,
               "TranscoderBench", "--pdus", a.pdus, "--per-buffer", a.per_buffer,
               "--secs", a.secs, "--warm", a.warm, "--reps", a.reps])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows, calls = parse(out)
    by = {(r["path"], r["pb"]): r for r in rows}
    pbs = sorted({r["pb"] for r in rows})
    paths = [p for p in LABEL if any((p, pb) in by for pb in pbs)]

    t1 = ["| PDUs per buffer | " + " | ".join(LABEL[p] for p in paths)
          + " | **JNI transcoder / Cloudhopper** (wall) | (CPU time) | JNI calls per round |",
          "|---:|" + "---:|" * (len(paths) + 3)]
    for pb in pbs:
        cells = ["%.2f M/s (%.0f ns)" % (by[(p, pb)]["med"] / 1e6, ns(by[(p, pb)]["med"]))
                 for p in paths]
        jt = by[("jni-transcoder", pb)]
        t1.append("| %d | %s | **%.2fx** | %.2fx | %d |" % (
            pb, " | ".join(cells), jt["ratio"], jt["cratio"], calls.get(pb, 0)))

    where = ["| PDUs per buffer | Cloudhopper | JNI transcoder | of which: C decode + JNI call | "
             "record reads | building the objects (objects-only) | rest: per-call checks, "
             "buffer and thread-local access | 2x needs |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for pb in pbs:
        chn = ns(by[("cloudhopper", pb)]["cmed"])
        jt = ns(by[("jni-transcoder", pb)]["cmed"])
        call = ns(by[("jni-call", pb)]["cmed"])
        views = ns(by[("jni-views", pb)]["cmed"])
        obj = ns(by[("objects-only", pb)]["cmed"])
        where.append("| %d | %.0f ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns | <= %.0f ns |" % (
            pb, chn, jt, call, views - call, obj, jt - views - obj, chn / 2))

    detail = ["| path | PDUs per buffer | rounds | median PDUs/s | best PDUs/s | median ratio to "
              "Cloudhopper (same round) | median PDUs per CPU-s | median CPU-time ratio |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        detail.append("| %s | %d | %d | %.0f | %.0f | %.3f | %.0f | %.3f |" % (
            r["path"], r["pb"], r["rounds"], r["med"], r["best"], r["ratio"], r["cmed"], r["cratio"]))

    now = datetime.datetime.now(datetime.timezone.utc)
    text = "\n".join([
        "# Cloudhopper's PduTranscoder: DefaultPduTranscoder against JniPduTranscoder, %s"
        % now.strftime("%Y-%m-%d %H:%M UTC"),
        "",
        "- machine: %s, %d CPUs online (a 2-core shared VM: other engineers' builds ran "
        "alongside), %s; load average %s at the start, %s at the end" % (
            cpu_model(), os.cpu_count(), platform.platform(), load0, loadavg()),
        "- JVM: %s, flags `%s`" % (java_version(), " ".join(JVM_FLAGS)),
        "- command: `python3 bench/smpp/run_transcoder_bench.py --build %s --pdus %s "
        "--per-buffer %s --secs %s --warm %s --reps %s`" % (
            os.path.relpath(build, ROOT), a.pdus, a.per_buffer, a.secs, a.warm, a.reps),
        "- workload: %s SUBMIT_SM of the thesis mix (distinct addresses, 20-octet message, "
        "5 TLVs, ~103 octets; C generator), cut into Netty buffers of N PDUs (N = 1: one PDU "
        "per socket read); a round decodes them all, PDU by PDU through "
        "`PduTranscoder.decode(ChannelBuffer)` as Cloudhopper's `SmppSessionPduDecoder` "
        "calls it; both produce Cloudhopper's `SubmitSm` (Address, Tlv, byte[]), checked equal "
        "field for field by `CloudhopperTranscoderTest`" % a.pdus,
        "- timing: the five paths in rounds (A B C D E A B ...), %s s warm-up, >= %s rounds "
        "and >= %s s; medians over rounds; ratios are medians of per-round ratios; ns per PDU "
        "from the calling thread's CPU time (ThreadMXBean: other processes and the JVM's GC "
        "threads left out)" % (a.warm, a.reps, a.secs),
        "",
        "## Decode throughput, both producing Cloudhopper's objects (goal: JNI >= 2x)",
        "",
    ] + t1 + [
        "",
        "Paths: %s" % "; ".join("%s = `%s`" % (LABEL[p], p) for p in paths),
        "",
        "## Where the JNI transcoder's time goes (ns per PDU, CPU time, medians)",
        "",
    ] + where + [
        "",
        "`record reads` = (JNI call + record reads) - (JNI call); `rest` = JNI transcoder - "
        "(JNI call + record reads) - objects-only.  These are differences of medians of "
        "separate paths, so small ones are within the noise.",
        "",
        "## Detail",
        "",
    ] + detail + [""])
    print(text)
    if a.out:
        with open(a.out, "a" if a.append else "w") as f:
            if a.append:
                f.write("\n")
            f.write(text)


if __name__ == "__main__":
    main()
