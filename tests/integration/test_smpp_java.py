# SPDX-License-Identifier: BSD-3-Clause
"""The SMPP Java binding's JUnit tests (smpp/java), run by Maven against the
JNI library of BUILD_DIR: the binding on its own, field-for-field agreement
with Cloudhopper (com.cloudhopper:ch-smpp) on one corpus, a Cloudhopper
client against hp-smppd, hp-smppsim against a Cloudhopper server, the
example server's framing, and the JNI decoder as Cloudhopper's
PduTranscoder (CloudhopperTranscoderTest: Cloudhopper's DefaultSmppServer
and DefaultSmppClient with it, and a differential test against
Cloudhopper's own decoder, which gets smpplib-made PDUs from here), and
LazyPduDecoder's lazy Cloudhopper objects accessor by accessor against
Cloudhopper's decoder (LazyPduDecoderTest, the same smpplib corpus too).
Maven's dependencies come from the project's .m2/repository, filled once by
scripts/setup.d/50-java.sh; Maven's output goes under BUILD_DIR."""
import os
import random
import shutil
import subprocess

try:
    import smpplib.smpp as smpp
    from smpplib.ptypes import flag
except ImportError:     # requirements.txt has it; without it the JUnit tests run without that corpus
    smpp = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")))

# Every PDU type smpplib has, each parameter at random within smpplib's
# limits, optional ones (TLVs) three times in ten.  smpplib's quirks stay
# (a 2-octet integer TLV of value 0 comes out as one octet, v3.4 wants 2):
# our decoder refuses those, and the transcoder must then give Cloudhopper's
# answer, which the differential checks too.
SMPPLIB_PDUS = ["submit_sm", "deliver_sm", "data_sm", "submit_sm_resp", "deliver_sm_resp",
                "data_sm_resp", "bind_transmitter", "bind_receiver", "bind_transceiver",
                "bind_transmitter_resp", "bind_receiver_resp", "bind_transceiver_resp",
                "query_sm", "query_sm_resp", "unbind", "unbind_resp", "enquire_link",
                "enquire_link_resp", "generic_nack", "alert_notification"]
TIMES = ("schedule_delivery_time", "validity_period", "final_date")


def smpplib_value(r, name, p):
    if name in TIMES:
        return r.choice(["", "%012d000R" % r.randrange(10 ** 8),
                         "2611%02d%02d%02d%02d%d04+" % (r.randrange(1, 29), r.randrange(24),
                                                        r.randrange(60), r.randrange(60),
                                                        r.randrange(10))])
    if p.type is int:
        return r.randrange(256 ** p.size)
    if p.type is str:
        hi = max(0, (p.max or 17) - 1)
        n = r.randint(min(getattr(p, "min", 0) or 0, hi), min(hi, 64))
        pool = "0123456789" if "addr" in name else "".join(map(chr, range(0x20, 0x7f)))
        return "".join(r.choice(pool) for _ in range(n))
    size = getattr(p, "size", None)
    n = size if size else r.randint(getattr(p, "min", 0) or 0, min(p.max or 254, 254))
    return bytes(r.randrange(256) for _ in range(n))


def smpplib_corpus(n, seed):
    """n PDUs encoded by smpplib, concatenated."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        name = SMPPLIB_PDUS[i % len(SMPPLIB_PDUS)]
        probe = smpp.make_pdu(name, sequence=1)
        while True:     # smpplib refuses some combinations (an empty message_id)
            kw = {}
            for f in probe.params_order:
                p = probe.params[f]
                if f == "sm_length" or p.type is flag:
                    continue
                if probe.field_is_optional(f) and r.random() > 0.3:
                    continue
                kw[f] = smpplib_value(r, f, p)
            if "message_payload" in kw:
                kw["short_message"] = b""     # smpplib takes one or the other
            pdu = smpp.make_pdu(name, sequence=1, **kw)
            pdu.sequence = r.randrange(1, 0x7fffffff)
            if name.endswith("_resp") or name == "generic_nack":
                pdu.status = r.choice([0, 0, 0, r.randrange(1, 0x100)])
            try:
                out.append(pdu.generate())
                break
            except ValueError:
                continue
    return b"".join(out)


def test_smpp_java_junit(tmp_path):
    mvn = shutil.which("mvn")
    assert mvn, "mvn not found: scripts/setup.sh installs maven (scripts/apt-packages.txt)"
    lib = os.path.join(BUILD, "smpp", "java", "libhpsmppjni.so")
    assert os.path.exists(lib), "%s not built: meson found no JDK (jni.h)" % lib
    corpus = ""
    if smpp is not None:
        corpus = tmp_path / "smpplib.bin"
        corpus.write_bytes(smpplib_corpus(3000, 25))
    cmd = [mvn, "-B", "-q", "-f", os.path.join(ROOT, "smpp", "java", "pom.xml"),
           "-Dmaven.repo.local=" + os.path.join(ROOT, ".m2", "repository"),
           "-Dhp.build=" + BUILD,
           "-Dhp.target=" + os.path.join(BUILD, "smpp", "java", "target"),
           "-Dhp.smpplib.corpus=" + str(corpus),
           "test"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, "mvn test failed:\n" + (p.stdout + p.stderr)[-6000:]
