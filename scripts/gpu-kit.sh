#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Packs what a GPU machine needs to run heteroplane's GPU checks
# (scripts/gpu-validate.sh) when it has CUDA's driver but no DPDK, no
# Debian packages and no network (the workplace's lent H100/H200 machines:
# an Ubuntu image with newer glibc, so binaries built here run there):
#   .gpukit/build/...  the GPU tests and benches, the CUDA plugin, hplane
#                      (the build tree's layout, so bench/*/run.py --build
#                      .gpukit/build finds them)
#   .gpukit/lib/       every shared library they load beyond glibc,
#                      libstdc++ and the CUDA driver (DPDK, OpenSSL,
#                      Hyperscan, intel-ipsec-mb, libpcap, ...)
#   .gpukit/pmds/      the DPDK drivers hplane loads (vdev bus, ring
#                      mempools, null/ring/pcap/af_packet ports)
# Usage: scripts/gpu-kit.sh [BUILD_DIR]   (default build; needs the CUDA
# parts built, i.e. nvcc found at set-up: `make build` does that). The kit
# goes to $GPUKIT_DIR if set, else .gpukit (ignored by git: the device
# tool takes it with carry: [".gpukit"]).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
K=${GPUKIT_DIR:-.gpukit}
BINS="apps/hplane/hplane gpu/libhp_cuda.so gpu/test_cuda_gpu gpu/test_cuda_nf_gpu
      gpu/bench_gpu gpu/bench_gpu_nf smpp/gpu/test_smpp_gpu smpp/gpu/bench_smpp_gpu"
PMDS="bus_vdev mempool_ring mempool_stack net_null net_ring net_pcap net_af_packet"

case "$K" in
""|/|.|..) echo "gpu-kit: refusing to write the kit into '$K'" >&2; exit 2 ;;
esac
for f in $BINS; do
	if [ ! -e "$B/$f" ]; then
		echo "gpu-kit: $B/$f is missing: build with the CUDA parts first (make build)" >&2
		exit 1
	fi
done
pmd_dir=$(sed -n 's/^#define RTE_EAL_PMD_PATH "\(.*\)"$/\1/p' \
	/usr/include/x86_64-linux-gnu/dpdk/rte_build_config.h 2>/dev/null || true)
if [ -z "$pmd_dir" ] || [ ! -d "$pmd_dir" ]; then
	echo "gpu-kit: DPDK's driver folder (RTE_EAL_PMD_PATH) not found: is libdpdk-dev installed?" >&2
	exit 1
fi

rm -rf "$K"
mkdir -p "$K/lib" "$K/pmds"
for f in $BINS; do
	mkdir -p "$K/build/$(dirname "$f")"
	cp "$B/$f" "$K/build/$f"
done
# named *.so: EAL loads only *.so and *.so.<ABI>.0 from its driver folder
for p in $PMDS; do
	cp -L "$pmd_dir/librte_$p.so.23" "$K/pmds/librte_$p.so"
done
echo "$pmd_dir" > "$K/pmd_dir"

# The shared libraries of everything above, by soname, but the C library,
# the C++ runtime (the GPU machine's are newer) and the CUDA driver's.
for f in $K/build/apps/hplane/hplane $K/build/gpu/* $K/build/smpp/gpu/* $K/pmds/*; do
	ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
done | sort -u | while read -r name path; do
	case "$name" in
	libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|\
	libstdc++.so.*|libgcc_s.so.*|libcuda.so.*|libnvidia-*)
		continue ;;
	esac
	cp -L "$path" "$K/lib/$name"
done

# Every library is found inside the kit (checked here, where the same
# libraries are also installed: the kit's copies must come first).
klib=$(cd "$K/lib" && pwd)
missing=$(for f in $K/build/apps/hplane/hplane $K/pmds/*; do
	LD_LIBRARY_PATH="$klib" ldd "$f"
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
	grep -v -E "^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so|^ld-linux| $klib/" || true)
if [ -n "$missing" ]; then
	echo "gpu-kit: not taken from the kit: $missing" >&2
	exit 1
fi
echo "gpu-kit: $K ($(du -sh "$K" | cut -f1)): $(ls "$K/lib" | wc -l) libraries, $(ls "$K/pmds" | wc -l) DPDK drivers, from $B"
