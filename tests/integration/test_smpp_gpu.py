# SPDX-License-Identifier: BSD-3-Clause
"""The SMPP GPU modes through the tools (issue 9): hp-smppdump -M gpu and
-M gpu-fused print exactly what -M cpu prints (the backend's host emulation,
HP_SMPP_GPU_EMUL=1: no GPU needed), on generated PDUs in both framings and on
the fuzz corpus's malformed PDUs; without a GPU both tools say so (dump:
exit 1, tuner: exit 77); hp-smpptune sweeps grid x block x streams;
bench_smpp_gpu --emul runs every configuration (copy-out threads, pinned
input: issue 22), each first checked against the CPU decoder."""
import csv
import io
import os
import subprocess

import pytest

from conftest import BUILD, ROOT

DUMP = BUILD / "smpp/tools/hp-smppdump"
TUNE = BUILD / "smpp/tools/hp-smpptune"
BENCH = BUILD / "bench/smpp/bench_smpp"
GBENCH = BUILD / "smpp/gpu/bench_smpp_gpu"
CORPUS = ROOT / "smpp/fuzz/corpus"
MARKER = bytes.fromhex("feedface")
EMUL = dict(os.environ, HP_SMPP_GPU_EMUL="1")
NOEMUL = {k: v for k, v in os.environ.items() if k != "HP_SMPP_GPU_EMUL"}


def dump(args, env):
    return subprocess.run([str(DUMP)] + args, capture_output=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def gpu_build():
    for p in (DUMP, TUNE, BENCH):
        if not p.exists():
            pytest.fail(f"{p} not built (BUILD_DIR={BUILD})")
    probe = dump(["-M", "gpu", os.devnull], EMUL)
    if b"built without nvcc" in probe.stderr:
        pytest.skip("built without nvcc: no GPU backend")
    return True


@pytest.fixture(scope="module")
def pdus(tmp_path_factory):
    """5000 thesis-mix PDUs (plain) and the same as elements."""
    d = tmp_path_factory.mktemp("smppgpu")
    plain = d / "plain.bin"
    subprocess.run([str(BENCH), "-w", str(plain), "-n", "5000"], check=True, timeout=60)
    data, out, i, n = plain.read_bytes(), bytearray(), 0, 0
    while i < len(data):
        cl = int.from_bytes(data[i:i + 4], "big")
        out += n.to_bytes(8, "big") + data[i:i + cl] + MARKER
        i, n = i + cl, n + 1
    element = d / "element.bin"
    element.write_bytes(bytes(out))
    return plain, element


def same_as_cpu(path, extra, env=EMUL):
    cpu = dump(extra + ["-M", "cpu", str(path)], env)
    assert cpu.returncode == 0, cpu.stderr
    for mode in ("gpu", "gpu-fused"):
        g = dump(extra + ["-M", mode, str(path)], env)
        assert g.returncode == 0, g.stderr
        assert b"emulation" in g.stderr
        assert g.stdout == cpu.stdout, f"{mode} differs from cpu on {path}"
    return cpu.stdout.count(b"\n")


def test_dump_gpu_modes_match_cpu(gpu_build, pdus):
    plain, element = pdus
    assert same_as_cpu(plain, []) == 5000
    assert same_as_cpu(element, ["-e", "-c", "8", "-m", "feedface"]) == 5000
    assert same_as_cpu(plain, ["-s", "-L", "120"]) == 5000  # strict, a low max length


def test_dump_gpu_modes_malformed(gpu_build, tmp_path):
    seeds = sorted(CORPUS.iterdir())
    assert len(seeds) >= 20
    errors = 0
    for s in seeds:
        out = same_as_cpu(s, [])
        assert out >= 1
        errors += b'"error"' in dump(["-M", "gpu-fused", str(s)], EMUL).stdout
    # every seed as one element, the lot in one file: bad elements resync
    blob = b"".join(i.to_bytes(8, "big") + s.read_bytes() + MARKER for i, s in enumerate(seeds))
    f = tmp_path / "corpus_elements.bin"
    f.write_bytes(blob)
    # (an element that is not well formed is resynchronised over, with the
    # next ones that are not either: fewer PDUs than seeds, on both paths)
    assert len(seeds) // 2 <= same_as_cpu(f, ["-e", "-c", "8", "-m", "feedface"]) <= len(seeds)
    assert errors >= len(seeds) // 2


def test_dump_without_gpu_says_so(gpu_build, pdus):
    plain, _ = pdus
    r = dump(["-M", "gpu-fused", str(plain)], NOEMUL)
    if r.returncode == 0:
        pytest.skip("this machine has a GPU")
    assert r.returncode == 1 and b"no usable GPU" in r.stderr and r.stdout == b""
    r = dump(["-M", "auto", str(plain)], NOEMUL)  # auto stays on the CPU
    assert r.returncode == 0 and b"stays on the CPU" in r.stderr
    assert r.stdout.count(b"\n") == 5000


def tune(conf, tmp_path, env):
    c = tmp_path / "t.conf"
    c.write_text(conf)
    out = tmp_path / "t.csv"
    r = subprocess.run([str(TUNE), "-c", str(c), "-o", str(out)], capture_output=True,
                       text=True, timeout=120, env=env)
    rows = list(csv.DictReader(io.StringIO(out.read_text()))) if out.exists() else []
    return r, rows


def test_tuner_sweeps_gpu_shapes(gpu_build, tmp_path):
    conf = ("batch_sizes = 300,1200\nforms = plain,element\nrepeats = 2\nthreads = 1,2\n"
            "modes = cpu,gpu,gpu-fused\ngrid = 0,2\nblock = 32,256\nstreams = 1,3\n")
    r, rows = tune(conf, tmp_path, EMUL)
    assert r.returncode == 0, r.stderr
    shapes = [(g, b, s) for g in ("0", "2") for b in ("32", "256") for s in ("1", "3")]
    for form in ("plain", "element"):
        for batch in ("300", "1200"):
            sel = [x for x in rows if x["form"] == form and x["batch"] == batch]
            cpu = [x["threads"] for x in sel if x["mode"] == "cpu"]
            gpu = [(x["threads"], x["grid"], x["block"], x["streams"]) for x in sel
                   if x["mode"] == "gpu"]
            fused = [(x["grid"], x["block"], x["streams"]) for x in sel
                     if x["mode"] == "gpu-fused"]
            assert cpu == ["1", "2"]
            assert gpu == [(t,) + s for t in ("1", "2") for s in shapes]
            assert fused == shapes
    for x in rows:
        assert x["errors"] == "0" and float(x["pdus_per_s"]) > 0
        assert x["device"] == ("cpu" if x["mode"] == "cpu" else "emulated")


def test_tuner_without_gpu(gpu_build, tmp_path):
    r, rows = tune("batch_sizes = 300\nmodes = gpu-fused\nblock = 64\n", tmp_path, NOEMUL)
    if r.returncode == 0:
        pytest.skip("this machine has a GPU")
    assert r.returncode == 77 and "no GPU" in r.stderr and rows == []
    r, _ = tune("modes = cpu\nstreams = 2\n", tmp_path, EMUL)
    assert r.returncode == 2 and "GPU modes" in r.stderr
    r, _ = tune("modes = gpu\nblock = 100\n", tmp_path, EMUL)
    assert r.returncode == 2 and "multiple of 32" in r.stderr


def test_gpu_bench_configs_under_emulation(gpu_build):
    """Every row of bench_smpp_gpu (launch shapes, copy=1 and auto, staged
    and caller-pinned input) in both modes; the bench compares each
    configuration's records with the CPU's before timing it (exit 1 on a
    difference). Emulated: the rows are not GPU figures."""
    if not GBENCH.exists():
        pytest.fail(f"{GBENCH} not built (BUILD_DIR={BUILD})")
    r = subprocess.run([str(GBENCH), "--emul", "-n", "20000", "-i", "1", "-t", "1",
                        "-f", "plain"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "emulated: not a GPU measurement" in r.stdout
    rows = list(csv.DictReader(io.StringIO(
        "\n".join(l for l in r.stdout.splitlines() if not l.startswith("#")))))
    confs = {(x["mode"], x["config"]) for x in rows}
    for mode in ("gpu", "gpu-fused"):
        for conf in ("grid=0 block=128 streams=4 copy=auto input=staged",
                     "grid=0 block=128 streams=4 copy=1 input=staged",
                     "grid=0 block=128 streams=4 copy=auto input=pinned",
                     "grid=0 block=128 streams=4 copy=1 input=pinned"):
            assert (mode, conf) in confs, (mode, conf, sorted(confs))
    assert all(int(x["pdus"]) == 20000 for x in rows)

