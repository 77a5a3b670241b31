# SPDX-License-Identifier: BSD-3-Clause
"""Network functions checked against implementations we did not write:
AES-128-CBC (key/IV derivation, PKCS#7) against Python `cryptography`,
MD5 against `hashlib`, DPI match counts and first ids against
`pyahocorasick`, all through the hp-nf tool (records on stdin/stdout,
docs/nf.md). Also the error paths of pattern and key files, and a fuzz run
of the pattern parser."""
import hashlib
import os
import random
import struct
import subprocess
from pathlib import Path

import ahocorasick
import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from conftest import pattern_bytes

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("BUILD_DIR", ROOT / "build"))
IMIX = [243, 486, 1458]


@pytest.fixture(scope="module")
def tool():
    t = BUILD / "lib" / "nf" / "tools" / "hp-nf"
    assert t.exists(), f"{t} not built (set BUILD_DIR to the meson build dir)"
    return str(t)


def run(tool, args, data=b"", check=True):
    p = subprocess.run([tool] + args, input=data, capture_output=True, timeout=120)
    if check:
        assert p.returncode == 0, p.stderr.decode()
    return p


def recs(payloads):
    return b"".join(struct.pack("<I", len(p)) + p for p in payloads)


def read_recs(out):
    res, o = [], 0
    while o < len(out):
        (n,) = struct.unpack_from("<I", out, o)
        res.append(out[o + 4:o + 4 + n])
        o += 4 + n
    return res


# ---------------------------------------------------------------- AES-CBC

def ecb(key, block):
    e = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return e.update(block) + e.finalize()


def cbc_expected(master, sip, dip, sport, dport, proto, seq, pt):
    """The receiver's definition from docs/nf.md, written independently."""
    flow_block = b"CB1" + sip + dip + sport + dport + bytes([proto])
    k_flow = ecb(master, flow_block)
    iv = ecb(k_flow, b"CBIV" + b"\0" * 8 + struct.pack(">I", seq))
    pad = padding.PKCS7(128).padder()
    padded = pad.update(pt) + pad.finalize()
    e = Cipher(algorithms.AES(k_flow), modes.CBC(iv)).encryptor()
    return e.update(padded) + e.finalize(), k_flow, iv


@pytest.mark.parametrize("impl", ["mb", "evp"])
def test_cbc_against_cryptography(tool, impl):
    rng = random.Random(3)
    master = bytes(rng.randrange(256) for _ in range(16))
    sizes = IMIX * 40 + [0, 1, 15, 16, 17, 31, 32, 64]
    inp, want = b"", []
    for n in sizes:
        sip, dip = rng.randbytes(4), rng.randbytes(4)
        sport, dport = rng.randbytes(2), rng.randbytes(2)
        proto = rng.choice([6, 17])
        seq = rng.randrange(1 << 32)
        pt = rng.randbytes(n)
        inp += sip + dip + sport + dport + bytes([proto]) + struct.pack(">I", seq)
        inp += struct.pack("<I", n) + pt
        ct, k, iv = cbc_expected(master, sip, dip, sport, dport, proto, seq, pt)
        want.append((ct, k, iv, pt))
    out = read_recs(run(tool, ["cbc", "--impl", impl, "--key", master.hex()], inp).stdout)
    assert len(out) == len(want)
    for got, (ct, k, iv, pt) in zip(out, want):
        assert got == ct
        # and a receiver recovers the payload
        d = Cipher(algorithms.AES(k), modes.CBC(iv)).decryptor()
        u = padding.PKCS7(128).unpadder()
        assert u.update(d.update(got) + d.finalize()) + u.finalize() == pt


def test_cbc_key_file(tool, tmp_path):
    rng = random.Random(4)
    master = rng.randbytes(16)
    rec = bytes(17) + struct.pack("<I", 5) + b"hello"
    raw = tmp_path / "k.bin"
    raw.write_bytes(master)
    hexf = tmp_path / "k.hex"
    hexf.write_text(master.hex() + "\n")
    a = run(tool, ["cbc", "--key-file", str(raw)], rec).stdout
    b = run(tool, ["cbc", "--key-file", str(hexf)], rec).stdout
    assert a == b and len(a) == 4 + 16
    bad = tmp_path / "short.bin"
    bad.write_bytes(master[:15])
    for args in (["--key-file", str(bad)], ["--key-file", str(tmp_path / "none")],
                 ["--key", "00" * 15]):
        p = run(tool, ["cbc"] + args, rec, check=False)
        assert p.returncode == 1
        lines = p.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and "key" in lines[0], p.stderr


# -------------------------------------------------------------------- MD5

@pytest.mark.parametrize("impl", ["mb", "mb-gather", "mb-nogather", "ref"])
def test_md5_against_hashlib(tool, impl):
    rng = random.Random(5)
    sizes = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 64, 243, 486, 1458] + \
        [rng.randrange(3000) for _ in range(300)]
    payloads = [rng.randbytes(n) for n in sizes]
    out = run(tool, ["md5", "--impl", impl], recs(payloads)).stdout.decode().split()
    assert out == [hashlib.md5(p).hexdigest() for p in payloads]


def test_md5_bad_impl(tool):
    r = run(tool, ["md5", "--impl", "gather"], recs([b"x"]), check=False)
    assert r.returncode == 2 and b"--impl must be" in r.stderr


# -------------------------------------------------------------------- DPI

def parse_patterns(text):
    """Independent reader of the pattern format (docs/nf.md)."""
    pats = []
    for line in text.split(b"\n"):
        line = line.rstrip(b"\r")
        if not line or line.startswith(b"#"):
            continue
        pats.append(pattern_bytes(line))
    return pats


def expected_matches(pats, payloads):
    a = ahocorasick.Automaton()
    ids = {}
    for i, p in enumerate(pats):
        ids.setdefault(p, []).append(i)
    for p, v in ids.items():
        a.add_word(p.decode("latin-1"), (len(p), v))
    a.make_automaton()
    res = []
    for d in payloads:
        count, first = 0, None
        for end, (_, v) in a.iter(d.decode("latin-1")):
            count += len(v)
            cand = (end, min(v))
            first = cand if first is None or cand < first else first
        res.append(f"{count} {first[1] if first else -1}")
    return res


ENGINES = ["batch", "ac", "nfa", "hs"]


def test_dpi_generated_set_and_traffic(tool, tmp_path):
    pf = tmp_path / "p.txt"
    pf.write_bytes(run(tool, ["gen-patterns", "--gen", "10000", "--seed", "7"]).stdout)
    pats = parse_patterns(pf.read_bytes())
    assert len(pats) == 10000 and len(set(pats)) == 10000
    payloads = []
    for size in IMIX + [64]:
        t = run(tool, ["gen-traffic", "--patterns", str(pf), "--count", "150",
                       "--size", str(size), "--seed", str(size), "--p", "0.3"]).stdout
        payloads += read_recs(t)
    want = expected_matches(pats, payloads)
    hit = sum(1 for w in want if not w.startswith("0 "))
    assert 0.2 * len(want) <= hit <= 0.42 * len(want), hit
    for eng in ENGINES:
        got = run(tool, ["dpi", "--patterns", str(pf), "--engine", eng],
                  recs(payloads)).stdout.decode().splitlines()
        assert got == want, eng


def test_dpi_edges_overlaps_binary(tool, tmp_path):
    rng = random.Random(9)
    # overlapping and nested patterns over a small alphabet, binary bytes,
    # a duplicate, patterns that fill a whole packet
    pats = [b"aa", b"aaa", b"ab", b"ba", b"abab", b"\x00", b"\x00\xff", b"\xff\x00\xff",
            b"a|b", b"\\", b"#x", b"aa"]
    pf = tmp_path / "p.txt"
    pf.write_bytes(b"".join(
        b"".join(b"|%02X|" % c if c < 0x20 or c >= 0x7f or c in b"|\\#" else bytes([c])
                 for c in p) + b"\n" for p in pats))
    assert parse_patterns(pf.read_bytes()) == pats
    payloads = [b"", b"a", b"aa", b"abab", b"\x00", b"\xff\x00\xff", b"a|b\\#x"]
    payloads += [bytes(rng.choice(b"ab\x00\xff|\\#x") for _ in range(rng.randrange(200)))
                 for _ in range(300)]
    want = expected_matches(pats, payloads)
    for eng in ENGINES:
        got = run(tool, ["dpi", "--patterns", str(pf), "--engine", eng],
                  recs(payloads)).stdout.decode().splitlines()
        assert got == want, eng


@pytest.mark.parametrize("content,needle", [
    (b"", "no patterns"),
    (b"# just a comment\n\n", "no patterns"),
    (b"ok\nab|4G|\n", ":2: invalid character 'G'"),
    (b"ok\nok2\n|414|\n", ":3: odd number of hex digits"),
    (b"x|41\n", ":1: unterminated |hex| escape"),
    (b"a" * 256 + b"\n", ":1: pattern longer than 255 bytes"),
    (b"fine\nbad\\q\n", ":2: invalid escape"),
])
def test_pattern_file_errors(tool, tmp_path, content, needle):
    pf = tmp_path / "bad.txt"
    pf.write_bytes(content)
    for cmd in (["check-patterns"], ["dpi"]):
        p = run(tool, cmd + ["--patterns", str(pf)], b"", check=False)
        assert p.returncode == 1
        lines = p.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], p.stderr


def test_pattern_file_unreadable(tool, tmp_path):
    p = run(tool, ["check-patterns", "--patterns", str(tmp_path / "missing.txt")],
            check=False)
    assert p.returncode == 1
    lines = p.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot open pattern file" in lines[0]


@pytest.mark.parametrize("args,rc,needle", [
    (["dpi", "--gen", "-1"], 2, "--gen: expected a number 1..1000000"),
    (["gen-traffic", "--gen", "10", "--count", "-1", "--size", "100"], 2,
     "--count: expected a number 1..4294967295"),
    (["gen-traffic", "--gen", "10", "--count", "5", "--size", "100", "--p", "7"], 2,
     "--p: expected a number 0..1"),
    (["dpi", "--bogus"], 2, "unknown option --bogus"),
    (["dpi", "--patterns"], 2, "--patterns needs a value"),
    (["frob"], 2, "unknown command 'frob'"),
    (["check-patterns", "--patterns", "/"], 1, "cannot read pattern file: Is a directory"),
])
def test_bad_flags(tool, args, rc, needle):
    # strtoul once made --count -1 four billion records and --gen -1 a
    # request for 4294967295 patterns; an unknown option printed the usage
    p = run(tool, args, b"", check=False)
    lines = p.stderr.decode().strip().splitlines()
    assert p.returncode == rc and len(lines) == 1 and needle in lines[0], p.stderr


def test_pattern_parser_fuzz(tool, tmp_path):
    """Hostile pattern files: exit 0 with a count, or exit 1 with one
    line naming the file and line; never a crash."""
    rng = random.Random(11)
    alpha = b"||\\ 0123456789abcdefABCDEFG#\n\r\"; xyz\x00\x01\xff"
    pf = tmp_path / "f.txt"
    ok = bad = 0
    for _ in range(200):
        doc = bytes(rng.choice(alpha) if rng.random() < 0.8 else rng.randrange(256)
                    for _ in range(rng.randrange(1, 40)))
        pf.write_bytes(doc)
        p = run(tool, ["check-patterns", "--patterns", str(pf)], check=False)
        assert p.returncode in (0, 1), (doc, p.returncode)
        if p.returncode == 0:
            ok += 1
            assert p.stdout.decode().endswith("patterns\n")
        else:
            bad += 1
            lines = p.stderr.decode().strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith(f"hp-nf: {pf}:"), p.stderr
    assert ok > 10 and bad > 10
