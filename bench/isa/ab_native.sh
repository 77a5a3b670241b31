#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Paired A/B of the hp_nf and hp_ldpc kernels of two builds in one process
# (ab_native.c): this build against BASE, e.g. the same tree with
# -Dnative=true, or an older commit:
#   meson setup build-native -Dnative=true
#   ninja -C build-native lib/libhp_nf.a lib/libhp_ldpc.a
#   bench/isa/ab_native.sh build-native [build] [pairs]
# BASE's objects are linked with every global renamed base_*. Prints a
# markdown table of new/base per kernel. Not run by `make bench` (it needs
# a second build).
set -eu
base=$1
new=${2:-build}
pairs=${3:-40}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs=$(ls "$base"/lib/libhp_nf.a.p/*.o "$base"/lib/libhp_ldpc.a.p/*.o)
nm --defined-only -g $objs | awk 'NF == 3 { print $3 " base_" $3 }' | sort -u > "$tmp/map"
i=0
for o in $objs; do
	i=$((i + 1))
	objcopy --redefine-syms="$tmp/map" "$o" "$tmp/base$i.o"
done
hs=$(pkg-config --libs libhs 2>/dev/null || true)
cc -O2 -std=c11 -D_GNU_SOURCE -I"$root/lib/nf" -I"$root/lib/ldpc" \
	"$root/bench/isa/ab_native.c" "$tmp"/base*.o "$new/lib/libhp_nf.a" \
	"$new/lib/libhp_ldpc.a" $(pkg-config --libs libcrypto) -lIPSec_MB \
	$hs -lm -o "$tmp/ab-native"
"$tmp/ab-native" "$pairs"
