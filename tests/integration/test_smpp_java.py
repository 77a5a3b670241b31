# SPDX-License-Identifier: BSD-3-Clause
"""The SMPP Java binding's JUnit tests (smpp/java), run by Maven against the
JNI library of BUILD_DIR: the binding on its own, field-for-field agreement
with Cloudhopper (com.cloudhopper:ch-smpp) on one corpus, a Cloudhopper
client against hp-smppd, hp-smppsim against a Cloudhopper server.
Maven's dependencies come from the project's .m2/repository, filled once by
scripts/setup.d/50-java.sh; Maven's output goes under BUILD_DIR."""
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))


def test_smpp_java_junit():
    mvn = shutil.which("mvn")
    assert mvn, "mvn not found: scripts/setup.sh installs maven (scripts/apt-packages.txt)"
    lib = os.path.join(BUILD, "smpp", "java", "libhpsmppjni.so")
    assert os.path.exists(lib), "%s not built: meson found no JDK (jni.h)" % lib
    cmd = [mvn, "-B", "-q", "-f", os.path.join(ROOT, "smpp", "java", "pom.xml"),
           "-Dmaven.repo.local=" + os.path.join(ROOT, ".m2", "repository"),
           "-Dhp.build=" + BUILD,
           "-Dhp.target=" + os.path.join(BUILD, "smpp", "java", "target"),
           "test"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, "mvn test failed:\n" + (p.stdout + p.stderr)[-6000:]
