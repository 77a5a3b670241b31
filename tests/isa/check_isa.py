#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Portable-binary check: disassembles every object the build compiled
(the "output" of each entry in BUILD/compile_commands.json) and fails when
an instruction above the x86-64-v2 baseline (AVX, AVX2, AVX-512, AES-NI,
PCLMUL, SHA, GFNI, BMI1/2, LZCNT, MOVBE, ADX) appears outside a function
that is only reached after a run-time CPU check.

Such a function says so in its name: one of its '_'/'.'-separated words is
an ISA tag (avx2_run, md5_mb_avx512, scan_avx512bw, aes_block_aesni, and the
clones GCC makes of them: avx2_run.constprop.0, foo.avx2.0 from
target_clones). A tag
allows only the instructions of its ISA, so an AVX-512 instruction in an
"_avx2" function fails too. Third-party libraries (DPDK, intel-ipsec-mb,
Hyperscan, OpenSSL) are shared objects that pick their code at run time
themselves and are not checked here.

Usage: check_isa.py BUILD_DIR   (exit 0 clean, 1 violations, 77 skipped)
"""
import json
import os
import re
import shutil
import subprocess
import sys

# Instruction classes above x86-64-v2, and the classes each name tag allows.
TAGS = {
    "avx": {"avx"},
    "avx2": {"avx"},
    "avx512": {"avx", "avx512"},
    "aesni": {"aes"},
    "vaes": {"aes", "avx"},
    "pclmul": {"pclmul"},
    "sha": {"sha"},
    "gfni": {"gfni"},
    "bmi": {"bmi"},
    "bmi2": {"bmi"},
    "lzcnt": {"lzcnt"},
    "movbe": {"movbe"},
    "adx": {"adx"},
}

# Mnemonics starting with 'v' that are not VEX/EVEX SIMD instructions.
NOT_VEX = {"verr", "verw", "vmcall", "vmlaunch", "vmresume", "vmxoff",
           "vmxon", "vmread", "vmwrite", "vmptrld", "vmptrst", "vmclear",
           "vmfunc", "vmrun", "vmload", "vmsave", "vmmcall"}
PREFIXES = {"rep", "repz", "repnz", "repe", "repne", "lock", "notrack", "bnd",
            "data16", "addr32", "cs", "ds", "es", "fs", "gs", "ss", "{vex}",
            "{vex3}", "{evex}"}
SCALAR = {
    "andn": "bmi", "bextr": "bmi", "blsi": "bmi", "blsmsk": "bmi",
    "blsr": "bmi", "bzhi": "bmi", "mulx": "bmi", "pdep": "bmi", "pext": "bmi",
    "rorx": "bmi", "sarx": "bmi", "shlx": "bmi", "shrx": "bmi",
    "lzcnt": "lzcnt", "movbe": "movbe", "adcx": "adx", "adox": "adx",
}
# tzcnt is not listed: GCC writes __builtin_ctz as "rep bsf" for generic
# tuning, which objdump shows as tzcnt and which older CPUs run as bsf.
EVEX_REG = re.compile(r"%zmm|%k[0-7]\b|%[xy]mm(1[6-9]|2[0-9]|3[01])\b|\{%k")
FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN = re.compile(r"^\s*[0-9a-f]+:\s+(.*)$")


def classify(text):
    """Class of an above-baseline instruction, or None."""
    words = text.split()
    while words and (words[0] in PREFIXES or words[0].startswith("rex")):
        words = words[1:]
    if not words:
        return None
    mn = words[0]
    if EVEX_REG.search(text):
        return "avx512"
    if "%ymm" in text or (mn.startswith("v") and mn not in NOT_VEX):
        return "avx"
    if mn.startswith("aes"):
        return "aes"
    if mn.startswith("pclmul"):
        return "pclmul"
    if mn.startswith("sha1") or mn.startswith("sha256"):
        return "sha"
    if mn.startswith("gf2p8"):
        return "gfni"
    return SCALAR.get(mn)


def allowed(func):
    ok = set()
    for w in re.split(r"[_.]", func):
        # avx512bw, avx512vl, ...: AVX-512 subsets count as avx512
        ok |= TAGS.get("avx512" if w.startswith("avx512") else w, set())
    return ok


def check_object(objdump, path):
    """Violations {(function, class): first instruction}, and how many
    above-baseline instructions tagged functions hold."""
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", path],
                         check=True, capture_output=True, text=True).stdout
    bad = {}
    tagged = 0
    func = "?"
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            func = m.group(1)
            continue
        m = INSN.match(line)
        if not m:
            continue
        cls = classify(m.group(1))
        if cls is None:
            continue
        if cls in allowed(func):
            tagged += 1
        elif (func, cls) not in bad:
            bad[(func, cls)] = m.group(1).strip()
    return bad, tagged


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    build = sys.argv[1]
    objdump = shutil.which("objdump")
    if objdump is None:
        print("check_isa: objdump not found, skipped")
        return 77
    with open(os.path.join(build, "compile_commands.json")) as f:
        cmds = json.load(f)
    objs = sorted({os.path.join(c["directory"], c["output"]) for c in cmds
                   if c.get("output", "").endswith(".o")})
    n_bad = n_seen = n_tagged = 0
    n_variant_files = 0
    for o in objs:
        if not os.path.exists(o):  # not built (a target left out)
            continue
        n_seen += 1
        bad, tagged = check_object(objdump, o)
        n_tagged += tagged
        n_variant_files += bool(re.search(r"avx2|avx512", os.path.basename(o)))
        for (func, cls), insn in sorted(bad.items()):
            rel = os.path.relpath(o, build)
            print(f"check_isa: {rel}: {func}: {cls} instruction '{insn}' "
                  f"in a function without a run-time dispatch tag")
        n_bad += len({func for func, _ in bad})
    print(f"check_isa: {n_seen} objects, {n_tagged} instructions above "
          f"x86-64-v2 in dispatched variants, {n_bad} functions with such "
          f"instructions outside one")
    if n_variant_files and not n_tagged:
        # The kernel variants must show up, or this check reads nothing
        # (objdump's output changed, or the variants lost their names).
        print("check_isa: no AVX2/AVX-512 instruction found in the kernel "
              "variants: the check itself is broken")
        return 1
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
