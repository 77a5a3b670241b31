#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/smpp for `make bench` (bench/run_all.py): runs both SMPP benches,
each side by side in one run on the same PDUs:

* run_bench.py: the C batch decoder (batch sizes x threads, both input
  forms, bare decoder) and Python smpplib;
* run_java_bench.py: Cloudhopper's decoder and the JNI paths in one JVM,
  with the C decoder beside them; skipped with a note when the JNI library
  or Maven is missing;
* run_transcoder_bench.py: Cloudhopper's PduTranscoder, its own against
  JniPduTranscoder, both producing Cloudhopper's PDU objects.

With --record the tables go to bench/results/smpp-DATE.md and
bench/results/smpp-java-DATE.md (the Java ones, one after the other).
"""
import argparse
import datetime
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"))
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    day = datetime.date.today().isoformat()
    rc = 0
    out = ["--out", os.path.join(ROOT, "bench", "results", "smpp-%s.md" % day)] if a.record else []
    rc |= subprocess.run([sys.executable, os.path.join(HERE, "run_bench.py"), "--build", a.build]
                         + out).returncode
    jni = os.path.join(a.build, "smpp", "java", "libhpsmppjni.so")
    if not os.path.exists(jni) or shutil.which("mvn") is None:
        print("bench/smpp: Java side skipped (%s)" % ("no mvn" if os.path.exists(jni)
                                                      else jni + " not built"))
        return rc
    out = (["--out", os.path.join(ROOT, "bench", "results", "smpp-java-%s.md" % day)]
           if a.record else [])
    rc |= subprocess.run([sys.executable, os.path.join(HERE, "run_java_bench.py"),
                          "--build", a.build] + out).returncode
    rc |= subprocess.run([sys.executable, os.path.join(HERE, "run_transcoder_bench.py"),
                          "--build", a.build] + out + (["--append"] if out else [])).returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
