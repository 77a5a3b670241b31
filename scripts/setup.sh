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

# Extra set-up steps that blocks add (e.g. Maven for the SMPP Java binding).
for s in scripts/setup.d/*.sh; do
    [ -e "$s" ] || continue
    bash "$s"
done
exit 0
