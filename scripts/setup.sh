#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what heteroplane needs on a fresh Debian machine: the apt packages
# listed in scripts/apt-packages.txt and a Python venv (.venv) from
# requirements.txt. Idempotent and quiet when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "setup: $*" >&2; }

mapfile -t want < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' scripts/apt-packages.txt | grep -v '^$')
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    log "installing apt packages: ${missing[*]}"
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

# Python venv: rebuilt only when requirements.txt changed.
stamp=.venv/.req-stamp
if [ ! -x .venv/bin/python ] || ! cmp -s requirements.txt "$stamp" 2>/dev/null; then
    log "creating Python venv in .venv"
    py=python3
    [ -x /usr/bin/python3 ] && py=/usr/bin/python3
    [ -x .venv/bin/python ] || "$py" -m venv .venv
    .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
    cp requirements.txt "$stamp"
fi

# --with-cuda-compiler: nvcc and the CUDA runtime headers from PyPI into
# the venv (compile only; no GPU or driver needed), linked as .venv/cuda so
# meson finds .venv/cuda/bin/nvcc. Pinned: the CUDA 13 wheels are the
# first with nvcc itself in them.
if [ "${1:-}" = "--with-cuda-compiler" ] || [ "${HP_WITH_CUDA:-0}" = 1 ]; then
    cuda_pkgs="nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96"
    if [ ! -x .venv/cuda/bin/nvcc ] || [ "$(cat .venv/.cuda-stamp 2>/dev/null)" != "$cuda_pkgs" ]; then
        log "installing the CUDA compiler into .venv ($cuda_pkgs)"
        # shellcheck disable=SC2086
        .venv/bin/python -m pip install -q --disable-pip-version-check $cuda_pkgs
        root=$(.venv/bin/python -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')
        ln -sfn "$root" .venv/cuda
        echo "$cuda_pkgs" > .venv/.cuda-stamp
    fi
fi

# Extra set-up steps that blocks add (e.g. Maven for the SMPP Java binding).
for s in scripts/setup.d/*.sh; do
    [ -e "$s" ] || continue
    bash "$s"
done
exit 0
