#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds and runs the two checksum micro-benchmarks beside this script
# against the release build in ../../../build (the tree's flags: -O3
# -march=x86-64-v2).
set -e
W=$(cd "$(dirname "$0")/../../.." && pwd)
D=$(dirname "$0")
F="-O3 -march=x86-64-v2 -include rte_config.h $(pkg-config --cflags libdpdk)"
cc $F -I"$W/lib/pkt" -I"$W/lib/common" -I"$W/lib/gen" "$D/fixup_cost.c" "$W/lib/pkt/hp_pkt.c" \
   "$W/build/lib/libhp_common.a" $(pkg-config --libs libdpdk) -o /tmp/fixup_cost
cc $F "$D/raw_cksum_cost.c" -o /tmp/raw_cksum_cost
/tmp/fixup_cost
/tmp/raw_cksum_cost
