#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs heteroplane's GPU checks on a machine with an NVIDIA GPU, from the
# kit scripts/gpu-kit.sh packs (no build, no DPDK or network needed there;
# the kit is .gpukit, or $GPUKIT_DIR).
# Every step's output goes to a log; a step that fails is reported and the
# others still run. At the end everything is packed into one tarball.
#
#   scripts/gpu-validate.sh checks    GPU vs CPU byte-identity tests (AES,
#       MD5, LDPC, Aho-Corasick, AES-CBC, SMPP), bench/gpu and
#       bench/smpp_gpu with --record, hplane runs with --gpu cuda (vpn, ran,
#       crypto with a fault injected mid-run): issues 8 and 9 (~5 min)
#   scripts/gpu-validate.sh compare [SECONDS]   the scheduler comparison on
#       real CPU workers and the GPU (hplane compare --gpu cuda, app ran,
#       SECONDS per run [8]): issue 10
#
# Results: DEST/summary.txt (one line per step: name, exit status,
# seconds) and DEST/gpu-validate-<stage>.tar.gz (logs, summaries, the
# bench records); DEST is $OUT where set (the device tool), else
# out/gpu-validate. Exit status: 0 if every step passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
K=$(cd "${GPUKIT_DIR:-.gpukit}" 2>/dev/null && pwd || echo "$PWD/.gpukit")
stage=${1:-checks}
secs=${2:-8}
DEST=${OUT:-out/gpu-validate}
fails=0

if [ ! -x "$K/build/apps/hplane/hplane" ]; then
	echo "gpu-validate: no kit in $K: run scripts/gpu-kit.sh where heteroplane is built, and carry .gpukit" >&2
	exit 2
fi
case "$stage" in
checks|compare) ;;
*) echo "gpu-validate: stage must be checks or compare, not '$stage'" >&2; exit 2 ;;
esac
mkdir -p "$DEST" || exit 2
# the steps' logs, packed into DEST at the end
if ! W=$(mktemp -d /tmp/gpu-validate.XXXXXX); then
	echo "gpu-validate: cannot create a working folder in /tmp" >&2
	exit 2
fi
export LD_LIBRARY_PATH="$K/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HP_PLUGIN_DIR="$K/build/gpu" HP_PROFILE_DIR="$PWD/profiles" PYTHONUNBUFFERED=1
# DPDK's EAL loads its drivers from the folder compiled into it
pmd_dir=$(cat "$K/pmd_dir")
if [ ! -e "$pmd_dir/librte_mempool_ring.so" ]; then
	mkdir -p "$pmd_dir" && cp "$K"/pmds/* "$pmd_dir/" ||
		echo "gpu-validate: cannot install DPDK's drivers into $pmd_dir" >&2
fi
H="$K/build/apps/hplane/hplane"
PY=$(command -v python3)

# step NAME TIMEOUT CMD...: runs CMD with its output in W/NAME.log
step() {
	local name=$1 limit=$2 t0 rc
	shift 2
	t0=$(date +%s)
	echo "== $name: $*" | tee -a "$W/steps.log"
	timeout "$limit" "$@" > "$W/$name.log" 2>&1
	rc=$?
	printf '%-22s exit %3d  %4d s\n' "$name" "$rc" $(($(date +%s) - t0)) | tee -a "$W/summary.txt"
	tail -n 3 "$W/$name.log" | sed 's/^/    /'
	[ "$rc" -eq 0 ] || fails=$((fails + 1))
}

{ date -u; uname -a; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } \
	> "$W/machine.txt" 2>&1
cat "$W/machine.txt"
if [ "$stage" = checks ]; then
	step test_cuda_gpu 300 "$K/build/gpu/test_cuda_gpu"
	step test_cuda_nf_gpu 300 "$K/build/gpu/test_cuda_nf_gpu"
	step test_smpp_gpu 300 "$K/build/smpp/gpu/test_smpp_gpu" smpp/fuzz/corpus
	step bench_gpu 300 "$PY" bench/gpu/run.py --build "$K/build" --record
	step bench_smpp_gpu 300 "$PY" bench/smpp_gpu/run.py --build "$K/build" --record
	for app in vpn ran crypto dedup; do
		step "run_$app" 120 "$H" run --app "$app" --gpu cuda --workers 2 --scenario standard \
			--duration 6 --out "$W/run_$app"
	done
	# a device failure mid-run: zero loss, the fallback reported
	step run_fault 120 "$H" run --app crypto --gpu cuda,fail_after=2000 --workers 2 \
		--duration 6 --out "$W/run_fault"
	cp bench/results/gpu-*.md bench/results/smpp_gpu-*.md "$W/" 2>/dev/null
else
	# 24 runs (3 scenarios x 4 schedulers x 2 granularities), two trainings
	# and the profile: inside the device tool's 10 minutes at 8 s a run
	step compare 560 "$PY" tools/sched_compare.py --hplane "$H" --gpu cuda --train 40 \
		--app ran --duration "$secs" --scenarios low,medium,stress --out "$W/compare" \
		--record "$W/compare-report.md"
fi
cp "$W/summary.txt" "$DEST/summary.txt"
tar -C "$W" -czf "$DEST/gpu-validate-$stage.tar.gz" .
echo "gpu-validate: $fails step(s) failed; $DEST/summary.txt, $DEST/gpu-validate-$stage.tar.gz"
rm -rf "$W"
[ "$fails" -eq 0 ]
