#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs heteroplane's GPU checks on a machine with an NVIDIA GPU, from the
# kit scripts/gpu-kit.sh packs (no build, no DPDK or network needed there;
# the kit is .gpukit, or $GPUKIT_DIR).
# Every step's output goes to a log; a step that fails is reported and the
# others still run. At the end everything is packed into one tarball.
#
#   scripts/gpu-validate.sh checks    GPU vs CPU byte-identity tests (AES,
#       MD5, LDPC with its messages in shared and in global memory,
#       Aho-Corasick, AES-CBC, SMPP), bench/gpu and
#       bench/smpp_gpu with --record, hplane runs with --gpu cuda (vpn, ran,
#       crypto with a fault injected mid-run): issues 8 and 9 (~5 min)
#   scripts/gpu-validate.sh quick     byte identity of every kernel (the
#       three tests of checks: with issue 22 part 4's kernels they also
#       cover aes_ctr's 4-block items and per-block packet map on small
#       and empty packets, the DFA's chunks with patterns planted across
#       every chunk boundary, and LDPC's messages in shared memory at NR
#       BG1 Z=384, which test_cuda_nf_gpu's log names), the sm_90
#       resource figures of the kit's kernels where cuobjdump is
#       installed, and one bench point per app: an hplane run
#       of vpn, ran, crypto, ids and dedup on the GPU at the stress rate,
#       and crypto's staged path beside its in-place one (issue 22); fits
#       4 minutes (GV_DEADLINE defaults to 235 s from the start)
#   scripts/gpu-validate.sh compare [SECONDS [APP [GRANULARITIES]]]   the
#       scheduler comparison on real CPU workers and the GPU (hplane
#       compare --gpu cuda, SECONDS per run [8], APP [ran], granularities
#       [chain,task]; a chain-only device refuses task with a multi-task
#       app, so ran on cuda takes chain): issue 24
#
# Results: DEST/summary.txt (one line per step: name, exit status,
# seconds) and DEST/gpu-validate-<stage>.tar.gz (logs, summaries, the
# bench records), both rewritten after every step so that a call killed
# at its limit keeps what finished; DEST is $OUT where set (the device
# tool), else out/gpu-validate. GV_DEADLINE (seconds since the epoch), if
# set, caps every step's timeout at the time left and skips (exit 124)
# the steps that no longer fit. Exit status: 0 if every step passed, 1
# otherwise. GV_GPU names the device [cuda]; cuda:emul rehearses the
# steps here without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
K=$(cd "${GPUKIT_DIR:-.gpukit}" 2>/dev/null && pwd || echo "$PWD/.gpukit")
stage=${1:-checks}
secs=${2:-8}
capp=${3:-ran}
grans=${4:-chain,task}
deadline=${GV_DEADLINE:-0}
# the accelerator (GV_GPU=cuda:emul rehearses the steps without a GPU)
gpu=${GV_GPU:-cuda}
DEST=${OUT:-out/gpu-validate}
fails=0

if [ ! -x "$K/build/apps/hplane/hplane" ]; then
	echo "gpu-validate: no kit in $K: run scripts/gpu-kit.sh where heteroplane is built, and carry .gpukit" >&2
	exit 2
fi
case "$stage" in
checks|compare) ;;
quick) [ "$deadline" -gt 0 ] || deadline=$(($(date +%s) + 235)) ;;
*) echo "gpu-validate: stage must be checks, quick or compare, not '$stage'" >&2; exit 2 ;;
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

# The logs so far into DEST (after every step: a kill loses only the
# step it interrupts).
publish() {
	cp "$W/summary.txt" "$DEST/summary.txt" 2>/dev/null
	tar -C "$W" -czf "$DEST/gpu-validate-$stage.tar.gz.tmp" . &&
		mv "$DEST/gpu-validate-$stage.tar.gz.tmp" "$DEST/gpu-validate-$stage.tar.gz"
}

# step NAME TIMEOUT CMD...: runs CMD with its output in W/NAME.log
step() {
	local name=$1 limit=$2 t0 rc left
	shift 2
	t0=$(date +%s)
	if [ "$deadline" -gt 0 ]; then
		left=$((deadline - t0))
		[ "$left" -lt "$limit" ] && limit=$left
	fi
	echo "== $name: $*" | tee -a "$W/steps.log"
	if [ "$limit" -lt 5 ]; then
		echo "skipped: past GV_DEADLINE" > "$W/$name.log"
		rc=124
	else
		timeout "$limit" "$@" > "$W/$name.log" 2>&1
		rc=$?
	fi
	printf '%-22s exit %3d  %4d s\n' "$name" "$rc" $(($(date +%s) - t0)) | tee -a "$W/summary.txt"
	tail -n 3 "$W/$name.log" | sed 's/^/    /'
	[ "$rc" -eq 0 ] || fails=$((fails + 1))
	publish
}

{ date -u; uname -a; nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } \
	> "$W/machine.txt" 2>&1
cat "$W/machine.txt"
if [ "$stage" = checks ] || [ "$stage" = quick ]; then
	# byte identity first, then the pipeline's invariants, then the speed
	step test_cuda_gpu 120 "$K/build/gpu/test_cuda_gpu"
	step test_cuda_nf_gpu 120 "$K/build/gpu/test_cuda_nf_gpu"
	step test_smpp_gpu 120 "$K/build/smpp/gpu/test_smpp_gpu" smpp/fuzz/corpus
fi
if [ "$stage" = quick ] && command -v cuobjdump > /dev/null; then
	# registers, stack and shared memory of the kernels as built into the
	# kit, beside bench/results/gpu-kernels-sm90-*.md (compiled here)
	step kernel_resources 20 cuobjdump --dump-resource-usage "$K/build/gpu/libhp_cuda.so"
	# the SMPP kernels are linked statically into their test
	step kernel_resources_smpp 20 cuobjdump --dump-resource-usage \
		"$K/build/smpp/gpu/test_smpp_gpu"
fi
if [ "$stage" = quick ]; then
	# one point per app: every packet the scheduler can give the GPU
	# at twice the CPU worker's capacity; crypto staged beside it
	for app in vpn ran crypto ids dedup; do
		step "point_$app" 45 "$H" run --app "$app" --gpu "$gpu" --workers 1 --scenario stress \
			--duration 3 --calib 0.5 --no-report --out "$W/point_$app"
	done
	step point_crypto_staged 45 "$H" run --app crypto --gpu "$gpu:staged" --workers 1 \
		--scenario stress --duration 3 --calib 0.5 --no-report --out "$W/point_crypto_staged"
elif [ "$stage" = checks ]; then
	# LDPC's other path: the messages in global memory (the fallback for
	# GPUs whose shared memory does not hold them), byte-identical too
	step test_cuda_nf_gpu_global 120 env HPK_LDPC_MSGS=global "$K/build/gpu/test_cuda_nf_gpu"
	for app in vpn ran crypto ids dedup; do
		step "run_$app" 60 "$H" run --app "$app" --gpu "$gpu" --workers 2 --scenario standard \
			--duration 6 --out "$W/run_$app"
	done
	# a device failure mid-run: zero loss, the fallback reported
	step run_fault 60 "$H" run --app crypto --gpu "$gpu,fail_after=2000" --workers 2 \
		--duration 6 --out "$W/run_fault"
	step bench_gpu 150 "$PY" bench/gpu/run.py --build "$K/build" --record
	step bench_smpp_gpu 150 "$PY" bench/smpp_gpu/run.py --build "$K/build" --record
	cp bench/results/gpu-*.md bench/results/smpp_gpu-*.md "$W/" 2>/dev/null
	publish
else
	# 4 scenarios x 4 schedulers x the granularities, a training per
	# granularity and the profile of the real devices, SECONDS a run
	step "compare_$capp" 560 "$PY" tools/sched_compare.py --hplane "$H" --gpu "$gpu" \
		--train "$((secs * 3))" --app "$capp" --duration "$secs" --granularities "$grans" \
		--scenarios low,medium,stress,standard --out "$W/compare-$capp" \
		--record "$W/compare-$capp-report.md"
fi
publish
echo "gpu-validate: $fails step(s) failed; $DEST/summary.txt, $DEST/gpu-validate-$stage.tar.gz"
rm -rf "$W"
[ "$fails" -eq 0 ]
