#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The layers of lib/ run one way: a block includes only its own headers
and those of the blocks it declares (deps in lib/<block>/meson.build,
transitively), and never one of a block later in lib/meson.build's order.
Reads the #include "..." lines of every .c, .h and .cu under lib/; one line
per violation, exit 1 if any. (The build enforces the same through each
block's include folders; this says it plainly and also covers headers no
.c of the block happens to include.)"""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
LIB = ROOT / "lib"


def blocks():
    text = (LIB / "meson.build").read_text()
    m = re.search(r"hp_blocks\s*=\s*\[([^\]]*)\]", text)
    return re.findall(r"'([a-z0-9_]+)'", m.group(1))


def declared(b):
    """The blocks b names in deps (its meson.build and its subfolders')."""
    out = set()
    for mb in (LIB / b).rglob("meson.build"):
        text = mb.read_text()
        for m in re.finditer(r"^\s*deps\s*(\+?=)\s*(\[[^\]]*\]|'[^']*')", text, re.M):
            out |= set(re.findall(r"'([a-z0-9_]+)'", m.group(2)))
    return out


def main():
    order = blocks()
    rank = {b: i for i, b in enumerate(order)}
    deps = {b: declared(b) for b in order}
    closure = {}
    for b in order:                      # in order: deps come first
        c = set()
        for d in deps[b]:
            c |= {d} | closure.get(d, set())
        closure[b] = c
    home = {}
    for b in order:
        for h in (LIB / b).rglob("*.h"):
            home.setdefault(h.name, set()).add(b)
    bad = []
    for b in order:
        for f in sorted((LIB / b).rglob("*")):
            if f.suffix not in (".c", ".h", ".cu"):
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if not m:
                    continue
                owners = home.get(Path(m.group(1)).name, set())
                if not owners or b in owners:
                    continue
                where = f"{f.relative_to(ROOT)}:{n}: {b} includes {m.group(1)}"
                for o in sorted(owners):
                    if rank[o] > rank[b]:
                        bad.append(f"{where} of {o}, a higher layer")
                    elif o not in closure[b]:
                        bad.append(f"{where} of {o}, which it does not declare in deps")
    for line in bad:
        print("check_layers: " + line)
    print(f"check_layers: {len(order)} blocks, {len(bad)} upward or undeclared includes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
