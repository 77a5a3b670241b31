# SPDX-License-Identifier: BSD-3-Clause
# scripts/gpu-kit.sh and scripts/gpu-validate.sh: the kit that carries the
# GPU checks to a machine with CUDA's driver but no DPDK (the workplace's
# lent GPUs). Here, without a GPU: the kit's hplane runs with only the
# kit's libraries and DPDK drivers (the system's driver folder hidden in a
# mount namespace), and gpu-validate runs every step and reports the GPU
# ones as skipped (77), so the kit cannot rot between GPU sessions.
import json
import os
import shutil
import subprocess
import tarfile

import pytest

from conftest import BUILD, ROOT, assert_invariants, summary


def kit_or_skip(tmp_path):
    if not (BUILD / "gpu/test_cuda_gpu").exists():
        pytest.skip("CUDA parts not built (no nvcc)")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare for a mount namespace")
    kit = tmp_path / "kit"
    p = subprocess.run(["bash", str(ROOT / "scripts/gpu-kit.sh"), str(BUILD)], cwd=ROOT,
                       env=dict(os.environ, GPUKIT_DIR=str(kit)), capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert "DPDK drivers" in p.stdout
    return kit


def in_ns(kit, script, timeout):
    """Runs a bash script in a mount namespace where DPDK's driver folder
    holds only the kit's drivers (on the GPU machine it holds nothing)."""
    pmd = (kit / "pmd_dir").read_text().strip()
    return subprocess.run(["unshare", "-m", "bash", "-c", f"mount -t tmpfs -o mode=755 none {pmd} && {script}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_kit_hplane_runs_alone(tmp_path):
    kit = kit_or_skip(tmp_path)
    out = tmp_path / "run"
    pmd = (kit / "pmd_dir").read_text().strip()
    p = in_ns(kit, f"cp {kit}/pmds/* {pmd}/ && LD_LIBRARY_PATH={kit}/lib HP_PROFILE_DIR={ROOT}/profiles "
              f"{kit}/build/apps/hplane/hplane run --app crypto --duration 2 --quiet --out {out}", 120)
    assert p.returncode == 0, p.stderr
    assert_invariants(summary(out))
    # the CUDA plugin is found in the kit: without a GPU it says so in one line
    p = in_ns(kit, f"cp {kit}/pmds/* {pmd}/ && LD_LIBRARY_PATH={kit}/lib HP_PLUGIN_DIR={kit}/build/gpu "
              f"{kit}/build/apps/hplane/hplane run --app crypto --gpu cuda --duration 1 --out {tmp_path}/g", 60)
    assert p.returncode == 2 and "device cuda" in p.stderr, p.stderr


def test_validate_without_gpu(tmp_path):
    if shutil.which("nvidia-smi"):
        pytest.skip("a GPU machine: run scripts/gpu-validate.sh itself")
    kit = kit_or_skip(tmp_path)
    dest = tmp_path / "dest"
    p = in_ns(kit, f"GPUKIT_DIR={kit} OUT={dest} bash scripts/gpu-validate.sh checks", 300)
    assert p.returncode == 1, p.stdout + p.stderr
    lines = (dest / "summary.txt").read_text().splitlines()
    steps = {l.split()[0]: int(l.split()[2]) for l in lines}
    for t in ("test_cuda_gpu", "test_cuda_nf_gpu", "test_cuda_nf_gpu_global", "test_smpp_gpu",
              "bench_gpu", "bench_smpp_gpu"):
        assert steps[t] == 77, lines
    # hplane --gpu cuda refuses with a usage error (2), it does not crash
    for r in ("run_vpn", "run_ran", "run_crypto", "run_dedup", "run_fault"):
        assert steps[r] == 2, lines
    with tarfile.open(dest / "gpu-validate-checks.tar.gz") as t:
        names = t.getnames()
        log = t.extractfile("./run_vpn.log").read().decode()
    assert "./machine.txt" in names
    # EAL came up with the kit's drivers; the plugin loaded and found no GPU
    assert "device cuda: no usable GPU" in log, log
    assert (kit / "pmds/librte_mempool_ring.so").exists()


def test_validate_quick_emulated(tmp_path):
    # gpu-validate quick rehearsed with cuda:emul: the GPU tests skip (77),
    # every app's point runs through the kit's plugin, in place and staged,
    # with the pipeline's invariants kept (its 4-minute budget is
    # GV_DEADLINE's, not asserted here: no timed assertions)
    if shutil.which("nvidia-smi"):
        pytest.skip("a GPU machine: run scripts/gpu-validate.sh itself")
    kit = kit_or_skip(tmp_path)
    dest = tmp_path / "dest"
    p = in_ns(kit, f"GPUKIT_DIR={kit} OUT={dest} GV_GPU=cuda:emul bash scripts/gpu-validate.sh quick",
              300)
    assert p.returncode == 1, p.stdout + p.stderr  # the 77s count as not passed
    lines = (dest / "summary.txt").read_text().splitlines()
    steps = {l.split()[0]: int(l.split()[2]) for l in lines}
    for t in ("test_cuda_gpu", "test_cuda_nf_gpu", "test_smpp_gpu"):
        assert steps[t] == 77, lines
    for app in ("vpn", "ran", "crypto", "ids", "dedup", "crypto_staged"):
        assert steps[f"point_{app}"] == 0, lines
    with tarfile.open(dest / "gpu-validate-quick.tar.gz") as t:
        for app in ("crypto", "crypto_staged"):
            s = json.load(t.extractfile(f"./point_{app}/summary.json"))
            assert_invariants(s)
            g = next(d for d in s["devices"] if d["name"] == "cuda-emul")
            assert (g["scattered_packets"] > 0) == (app == "crypto"), g
