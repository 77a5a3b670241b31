#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""SMPP decoders side by side in one run, on the same PDUs (the thesis's
SUBMIT_SM mix, Weerasinghe 4.1):

* the C batch decoder (bench_smpp: bare per-PDU decoder on one core, batch
  sizes x threads);
* in one JVM (SmppJavaBench.java): Cloudhopper's own decoder
  (com.cloudhopper:ch-smpp 5.0.9), and our JNI path: the JNI call alone,
  end to end with views (from a direct buffer filled by a copy, and from
  the byte[] itself), end to end with the Java objects Cloudhopper makes.

Reports the issue's ratios: C per core / Cloudhopper per core (goal >= 5x)
and JNI end to end / Cloudhopper (goal >= 3x), per batch size and threads.
Needs the meson build (bench_smpp, libhpsmppjni.so) and Maven with the
project's .m2 (scripts/setup.d/50-java.sh).

Usage: python3 bench/smpp/run_java_bench.py [--build build] [--sizes ...]
       [--threads 1,2] [--secs 2] [--warm 1] [--out bench/results/smpp-java-DATE.md]
"""
import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile

from run_bench import cpu_model, emit  # same folder

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A fixed, pre-touched heap: without AlwaysPreTouch the first use of each
# heap page (kernel zeroing, on a shared VM) made the allocating paths run
# up to 20x slower for seconds at a time.
JVM_FLAGS = ["-Xms3g", "-Xmx3g", "-XX:+AlwaysPreTouch", "-XX:MaxDirectMemorySize=2g"]


def java_version():
    p = subprocess.run(["java", "-version"], capture_output=True, text=True)
    return (p.stderr or p.stdout).splitlines()[0].strip()


def classpath(build, work):
    """Compiles the binding with Maven (offline-capable with .m2) and returns
    the classpath of its classes and Cloudhopper's jars."""
    mvn = shutil.which("mvn")
    if mvn is None:
        sys.exit("run_java_bench: mvn not found (scripts/setup.sh installs maven)")
    target = os.path.join(build, "smpp", "java", "target")
    cpfile = os.path.join(work, "cp.txt")
    cmd = [mvn, "-B", "-q", "-f", os.path.join(ROOT, "smpp", "java", "pom.xml"),
           "-Dmaven.repo.local=" + os.path.join(ROOT, ".m2", "repository"),
           "-Dhp.build=" + build, "-Dhp.target=" + target,
           "compile", "dependency:build-classpath", "-Dmdep.includeScope=runtime",
           "-Dmdep.outputFile=" + cpfile]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("run_java_bench: maven failed:\n" + (p.stdout + p.stderr)[-3000:])
    with open(cpfile) as f:
        deps = f.read().strip()
    return os.path.join(target, "classes") + os.pathsep + deps


def run_java(build, lib, main, args):
    """Compiles bench/smpp/MAIN.java with the timing loop it shares
    (BenchRounds.java) against the binding and runs it in a JVM with
    JVM_FLAGS and the JNI library lib; returns its stdout."""
    with tempfile.TemporaryDirectory() as work:
        cp = classpath(build, work)
        src = [os.path.join(ROOT, "bench", "smpp", f) for f in (main + ".java", "BenchRounds.java")]
        subprocess.run(["javac", "-d", work, "-cp", cp] + src, check=True)
        cmd = (["java"] + JVM_FLAGS + ["-Dhp.smpp.lib=" + lib, "-cp", work + os.pathsep + cp, main]
               + list(args))
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def java_args(ap, secs, warm, reps):
    """The flags both Java benches take: --build, the timing of BenchRounds
    (--secs, --warm, --reps) and --out."""
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--secs", default=secs)
    ap.add_argument("--warm", default=warm)
    ap.add_argument("--reps", default=reps)
    ap.add_argument("--out")


def loadavg():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


def parse_tsv(text):
    rows = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        impl, batch, thr, rounds, med, best, mbs, ratio, cmed, cratio = line.split("\t")
        rows.append(dict(impl=impl, batch=int(batch), threads=int(thr), rounds=int(rounds),
                         med=float(med), best=float(best), mbs=float(mbs),
                         ratio=float(ratio), cmed=float(cmed), cratio=float(cratio)))
    return rows


def parse_c(text):
    """bench_smpp table -> {(form, batch, threads): pdus_s}."""
    out = {}
    for line in text.splitlines():
        c = [x.strip() for x in line.split("|")]
        if len(c) > 5 and c[1] in ("bare", "plain", "element", "rec", "rec-el") and c[2].isdigit():
            out[(c[1], int(c[2]), int(c[3]))] = float(c[4])
    return out


def main():
    ap = argparse.ArgumentParser()
    java_args(ap, secs="2", warm="1", reps="5")
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    load0 = loadavg()
    build = os.path.abspath(a.build)
    bench = os.path.join(build, "bench", "smpp", "bench_smpp")
    lib = os.path.join(build, "smpp", "java", "libhpsmppjni.so")
    for f in (bench, lib):
        if not os.path.exists(f):
            sys.exit("run_java_bench: %s not built" % f)
    maxt = max(int(t) for t in a.threads.split(","))
    c_cmd = [bench, "-b", a.sizes, "-t", str(maxt), "-s", a.secs]
    c_out = subprocess.run(c_cmd, check=True, capture_output=True, text=True).stdout
    j_out = run_java(build, lib, "SmppJavaBench",
                     ["--sizes", a.sizes, "--threads", a.threads,
                      "--secs", a.secs, "--warm", a.warm, "--reps", a.reps])
    rows = parse_tsv(j_out)
    c = parse_c(c_out)
    by = {(r["impl"], r["batch"], r["threads"]): r for r in rows}
    sizes = sorted({r["batch"] for r in rows})
    thr = sorted({r["threads"] for r in rows})

    t1 = ["| batch | threads | Cloudhopper | C batch, compact records (bench_smpp) | "
          "JNI decode call | JNI end to end, views | JNI end to end from byte[], views | "
          "JNI end to end, objects | C decode call / CH | JNI views / CH | "
          "JNI views from byte[] / CH | JNI objects / CH |",
          "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sizes:
        for t in thr:
            ch = by[("cloudhopper", s, t)]["med"]
            cb = c.get(("rec", s, t))
            jd, jv, jh, jo = (by[(k, s, t)] for k in ("jni-decode", "jni-views",
                                                       "jni-views-heap", "jni-objects"))
            t1.append("| %d | %d | %.2f M | %s | %.2f M | %.2f M | %.2f M | %.2f M | %.1fx | "
                      "%.1fx | %.1fx | %.1fx |" % (
                          s, t, ch / 1e6, "%.2f M" % (cb / 1e6) if cb else "-",
                          jd["med"] / 1e6, jv["med"] / 1e6, jh["med"] / 1e6, jo["med"] / 1e6,
                          jd["ratio"], jv["ratio"], jh["ratio"], jo["ratio"]))
    detail = ["| impl | batch | threads | rounds | median PDUs/s | best PDUs/s | median MB/s | "
              "median ratio to CH in the same round | median PDUs per CPU-s (1 thread) | "
              "median CPU-time ratio to CH in the same round |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        detail.append("| %s | %d | %d | %d | %.0f | %.0f | %.1f | %.2f | %s | %s |" % (
            r["impl"], r["batch"], r["threads"], r["rounds"], r["med"], r["best"], r["mbs"],
            r["ratio"], "%.0f" % r["cmed"] if r["threads"] == 1 else "-",
            "%.2f" % r["cratio"] if r["threads"] == 1 else "-"))
    cpu_t = []
    if 1 in thr:
        cpu_t = ["| batch | Cloudhopper | JNI decode call | JNI views | JNI views from byte[] | "
                 "JNI objects | C decode call / CH | JNI views / CH | JNI views from byte[] / CH | "
                 "JNI objects / CH |",
                 "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for s in sizes:
            g = {k: by[(k, s, 1)] for k in ("cloudhopper", "jni-decode", "jni-views",
                                              "jni-views-heap", "jni-objects")}
            cpu_t.append("| %d | %.2f M | %.2f M | %.2f M | %.2f M | %.2f M | %.1fx | %.1fx | "
                         "%.1fx | %.1fx |" % (
                             s, g["cloudhopper"]["cmed"] / 1e6, g["jni-decode"]["cmed"] / 1e6,
                             g["jni-views"]["cmed"] / 1e6, g["jni-views-heap"]["cmed"] / 1e6,
                             g["jni-objects"]["cmed"] / 1e6, g["jni-decode"]["cratio"],
                             g["jni-views"]["cratio"], g["jni-views-heap"]["cratio"],
                             g["jni-objects"]["cratio"]))
    goals = []
    if 1 in thr:
        d1 = [by[("jni-decode", s, 1)]["ratio"] for s in sizes]
        c1 = [c[("rec", s, 1)] / by[("cloudhopper", s, 1)]["med"] for s in sizes
              if ("rec", s, 1) in c]
        dc = [by[("jni-decode", s, 1)]["cratio"] for s in sizes]
        line = ("- C decoder vs Cloudhopper's decoder, one core each (goal >= 5x): the C batch "
                "decoder behind one JNI call, paired with Cloudhopper round by round, "
                "wall clock **%s**, CPU time **%s** over batches %s" % (
                    ", ".join("%.1fx" % x for x in d1), ", ".join("%.1fx" % x for x in dc),
                    ",".join(map(str, sizes))))
        if c1:
            line += ("; bench_smpp's median over Cloudhopper's median at the same batch "
                     "(separate processes, not paired) %.1fx-%.1fx" % (min(c1), max(c1)))
        bd = [by[("jni-decode", s, 1)]["best"] / by[("cloudhopper", s, 1)]["best"] for s in sizes]
        line += ("; best round over best round %s" % ", ".join("%.1fx" % x for x in bd))
        goals.append(line + ".")
    for t in thr:
        jv_r = [by[("jni-views", s, t)]["ratio"] for s in sizes]
        jh_r = [by[("jni-views-heap", s, t)]["ratio"] for s in sizes]
        jo_r = [by[("jni-objects", s, t)]["ratio"] for s in sizes]
        goals.append("- JNI end to end in Java vs Cloudhopper, %d thread(s), paired by round, "
                     "wall clock (goal >= 3x), batches %s: views after copying into a direct "
                     "buffer **%s**; views decoding the byte[] in place **%s**; materialising "
                     "Cloudhopper's objects %s." % (
                         t, ",".join(map(str, sizes)), ", ".join("%.1fx" % x for x in jv_r),
                         ", ".join("%.1fx" % x for x in jh_r),
                         ", ".join("%.1fx" % x for x in jo_r)))
        if t == 1:
            goals.append("  CPU time (1 thread): views after the copy **%s**; from byte[] **%s**." % (
                ", ".join("%.1fx" % by[("jni-views", s, 1)]["cratio"] for s in sizes),
                ", ".join("%.1fx" % by[("jni-views-heap", s, 1)]["cratio"] for s in sizes)))
            goals.append("  Best round over Cloudhopper's best round (1 thread): views after the "
                         "copy %s; from byte[] %s." % tuple(
                             ", ".join("%.1fx" % (by[(k, s, 1)]["best"] /
                                                  by[("cloudhopper", s, 1)]["best"])
                                       for s in sizes)
                             for k in ("jni-views", "jni-views-heap")))
    now = datetime.datetime.now(datetime.timezone.utc)
    load = "%s at the start, %s at the end" % (load0, loadavg())
    text = "\n".join([
        "# SMPP decoders in Java and C side by side, %s" % now.strftime("%Y-%m-%d %H:%M UTC"),
        "",
        "- machine: %s, %d CPUs online (a 2-core shared VM: other engineers' builds ran "
        "alongside), %s; load average %s" % (
            cpu_model(), os.cpu_count(), platform.platform(), load),
        "- JVM: %s, flags `%s`" % (java_version(), " ".join(JVM_FLAGS)),
        "- command: `python3 bench/smpp/run_java_bench.py --build %s --sizes %s --threads %s "
        "--secs %s --warm %s --reps %s`" % (os.path.relpath(build, ROOT), a.sizes, a.threads,
                                            a.secs, a.warm, a.reps),
        "- workload: SUBMIT_SM, distinct addresses, 20-octet message, 5 TLVs (Weerasinghe "
        "4.1), ~103 octets per PDU, the same bytes for every decoder (C generator)",
        "- Java timing: per batch and thread count, the five Java paths run in rounds "
        "(A B C D E A B C D E ...), %s s warm-up, then >= %s rounds and >= %s s; median of the "
        "rounds (best in the detail table). C side: `%s`, median call over %s s."
        % (a.warm, a.reps, a.secs, " ".join([os.path.relpath(bench, ROOT)] + c_cmd[1:]),
           a.secs),
        "",
        "## PDUs/s (medians) and ratios to Cloudhopper (medians of per-round ratios)",
        "",
        "- Cloudhopper: `DefaultPduTranscoder.decode` over a Netty buffer of the batch, PDU "
        "by PDU (its server's decoder); with 2 threads each decodes half the batch.",
        "- JNI decode call: `SmppDecoder.decode` of a filled direct buffer (C decoder on T "
        "pthreads behind one JNI call).",
        "- JNI end to end, views: copy the batch from `byte[]` into the direct buffer, decode, "
        "read status, command id, sequence, destination and message views per PDU.",
        "- JNI end to end from byte[], views: `SmppDecoder.decode(byte[])` on the same "
        "`byte[]` Cloudhopper reads (pinned for the call, no copy), then the same views.",
        "- JNI end to end, objects: copy, decode, then per PDU the Java objects Cloudhopper "
        "hands its user (5 Strings, short_message `byte[]`, each TLV value `byte[]`), on T "
        "Java threads.",
        "",
    ] + t1 + ["", "The 2-thread rows need both vCPUs; on this shared VM other work held "
              "them (load average above), so those rows show contention, not scaling.",
              ""] + (["## The same from CPU time, 1 thread (medians; ratios: medians of "
                      "per-round ratios)", "",
                      "The calling thread's CPU time per round (ThreadMXBean): the time other "
                      "processes held the core is left out, and so is the work of the JVM's GC "
                      "and JIT threads, which favours Cloudhopper (the GC pays for its "
                      "allocations).", ""] + cpu_t + [""] if cpu_t else []) + [
              "## Goals (issue 5)", ""] + goals + [
        "", "## Detail (Java)", ""] + detail + ["", "## C bench output", "", c_out])
    emit(text, a.out)


if __name__ == "__main__":
    main()
