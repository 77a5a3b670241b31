#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Java objects at speed (issue 28, part 4): Cloudhopper's own decoder
(DefaultPduTranscoder) against LazyPduDecoder (one JNI call per batch,
Cloudhopper's classes decoded on first access), both handing out
Cloudhopper's SubmitSm, in one JVM on the same PDUs (ObjectsBench.java),
with the consumer reading the header, a submit handler's fields, or every
field.  --runs starts that many JVMs one after another; the table gives
the median over runs of each run's median per-round ratio, and the spread
(lowest and highest run, and the lowest and highest single round).

Usage: python3 bench/smpp/run_objects_bench.py [--build build]
       [--pdus 65536] [--batch 1000,8000,64000] [--secs 3] [--warm 2]
       [--reps 9] [--runs 3] [--out FILE]
"""
import argparse
import datetime
import os
import platform
import statistics

from run_bench import cpu_model  # same folder
from run_java_bench import JVM_FLAGS, ROOT, java_args, java_version, loadavg, run_java

LEVELS = ("header", "typical", "all")
WHAT = {
    "header": "command id + sequence number",
    "typical": "+ both address strings, short_message, data_coding, registered_delivery, "
               "esm_class, one TLV by tag",
    "all": "every getter and every TLV's value",
}


def parse(text):
    rows = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        c = line.split("\t")
        rows.append(dict(path=c[0], batch=int(c[1]), pdus=int(c[2]), rounds=int(c[3]),
                         med=float(c[4]), lo=float(c[5]), hi=float(c[6]),
                         rlo=float(c[7]), rmed=float(c[8]), rhi=float(c[9]),
                         cmed=float(c[10]), cratio=float(c[11])))
    return rows


def main():
    ap = argparse.ArgumentParser()
    java_args(ap, secs="3", warm="2", reps="9")
    ap.add_argument("--pdus", default="65536")
    ap.add_argument("--batch", default="1000,8000,64000")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    load0 = loadavg()
    build = os.path.abspath(a.build)
    lib = os.path.join(build, "smpp", "java", "libhpsmppjni.so")
    if not os.path.exists(lib):
        raise SystemExit("run_objects_bench: %s not built" % lib)
    runs = []
    for _ in range(a.runs):
        out = run_java(build, lib, "ObjectsBench",
                       ["--pdus", a.pdus, "--batch", a.batch, "--secs", a.secs,
                        "--warm", a.warm, "--reps", a.reps])
        runs.append({(r["path"], r["batch"]): r for r in parse(out)})
    batches = sorted({k[1] for k in runs[0]})

    def over(path, b, key):
        return [r[(path, b)][key] for r in runs]

    t = ["| batch | consumer reads | Cloudhopper, PDU/s (ns/PDU, CPU) | LazyPduDecoder, PDU/s "
         "(ns/PDU, CPU) | **ratio, wall** (median of runs) | runs' lowest-highest | single "
         "rounds' lowest-highest | ratio, CPU time (median of runs) |",
         "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for b in batches:
        for lv in LEVELS:
            ch, lz = "cloudhopper-" + lv, "lazy-" + lv
            r = over(lz, b, "rmed")
            t.append("| %d | %s | %.2f M (%.0f ns) | %.2f M (%.0f ns) | **%.2fx** | %.2f-%.2fx | "
                     "%.2f-%.2fx | %.2fx |" % (
                         b, lv, statistics.median(over(ch, b, "med")) / 1e6,
                         1e9 / statistics.median(over(ch, b, "cmed")),
                         statistics.median(over(lz, b, "med")) / 1e6,
                         1e9 / statistics.median(over(lz, b, "cmed")),
                         statistics.median(r), min(r), max(r),
                         min(over(lz, b, "rlo")), max(over(lz, b, "rhi")),
                         statistics.median(over(lz, b, "cratio"))))
    where = ["| batch | C decode + JNI call (`slab`) | LazyPduDecoder, header only | of which "
             "framing, copy, objects | + a handler's fields (typical) | + the rest (all) | "
             "Cloudhopper (header; its objects are all made) | 2x needs (typical) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for b in batches:
        def ns(p):
            return 1e9 / statistics.median(over(p, b, "cmed"))
        sl, h, ty, al = ns("slab"), ns("lazy-header"), ns("lazy-typical"), ns("lazy-all")
        where.append("| %d | %.0f ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns | <= %.0f ns |" % (
            b, sl, h, h - sl, ty - h, al - ty, ns("cloudhopper-header"),
            ns("cloudhopper-typical") / 2))
    detail = ["| run | path | batch | rounds | median PDU/s | lowest-highest round PDU/s | "
              "median round ratio (lowest-highest) | PDU per CPU-s | CPU ratio |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for i, r in enumerate(runs):
        for (p, b), x in sorted(r.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            detail.append("| %d | %s | %d | %d | %.0f | %.0f-%.0f | %.3f (%.3f-%.3f) | %.0f | %.3f |" % (
                i + 1, p, b, x["rounds"], x["med"], x["lo"], x["hi"], x["rmed"], x["rlo"], x["rhi"],
                x["cmed"], x["cratio"]))
    now = datetime.datetime.now(datetime.timezone.utc)
    text = "\n".join([
        "# Java objects at speed: Cloudhopper's decoder against LazyPduDecoder, %s"
        % now.strftime("%Y-%m-%d %H:%M UTC"),
        "",
        "- machine: %s, %d CPUs online (a 2-vCPU VM shared with ~5 other engineers' builds "
        "and tests), %s; load average %s at the start, %s at the end" % (
            cpu_model(), os.cpu_count(), platform.platform(), load0, loadavg()),
        "- JVM: %s, flags `%s`" % (java_version(), " ".join(JVM_FLAGS)),
        "- command: `python3 bench/smpp/run_objects_bench.py --build %s --pdus %s --batch %s "
        "--secs %s --warm %s --reps %s --runs %d`" % (
            os.path.relpath(build, ROOT), a.pdus, a.batch, a.secs, a.warm, a.reps, a.runs),
        "- workload: %s SUBMIT_SM of the thesis mix (distinct addresses, 20-octet message, "
        "5 TLVs, ~103 octets; C generator) in one byte[], cut into batches; Cloudhopper decodes "
        "a batch PDU by PDU from a Netty buffer over it (as its SmppSessionPduDecoder calls "
        "`DefaultPduTranscoder.decode`), LazyPduDecoder with one `decode(byte[], off, len)` "
        "(one copy of the octets, one JNI call); both hand out Cloudhopper's `SubmitSm`, "
        "checked equal accessor by accessor and by reflection (`LazyPduDecoderTest`), and "
        "the bench checks both consumers read the same sums before timing" % a.pdus,
        "- timing: in each JVM the 7 paths run in rounds (A B C ... A B C), %s s warm-up, "
        ">= %s rounds and >= %s s; a ratio is lazy / Cloudhopper in the same round (wall "
        "clock), its median over rounds per run, then the median over %d JVM runs; CPU "
        "time is the calling thread's (ThreadMXBean: other processes and the JVM's GC threads "
        "left out)" % (a.warm, a.reps, a.secs, a.runs),
        "",
        "Consumer levels: " + "; ".join("**%s**: %s" % (k, v) for k, v in WHAT.items()),
        "",
        "## Objects a Cloudhopper user reads: LazyPduDecoder / Cloudhopper (goal >= 2x)",
        "",
    ] + t + [
        "",
        "## Where the lazy path's time goes (ns per PDU, calling thread's CPU time, medians over runs)",
        "",
    ] + where + [
        "",
        "Differences of medians of separate paths: small ones are within the noise.",
        "",
        "## Detail, per run",
        "",
    ] + detail + [""])
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
