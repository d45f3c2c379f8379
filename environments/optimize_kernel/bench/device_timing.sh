#!/usr/bin/env bash
# optimize_kernel/gpu on a bare GPU machine (torch + Triton, no Node needed), issue 18's measurements in one go:
#   bash environments/optimize_kernel/bench/device_timing.sh OUTDIR        (the device tool: OUTDIR=$OUT/kernel)
# 1. preflight: the GPU, torch, Triton, free memory, pytest; stops with exit 3 when torch sees no CUDA GPU;
# 2. tests/test_gpu.py: the solutions exact on the device, the grader with rounds of 64 (fd and legacy IPC, as
#    `nobody` when root), regenerated inputs, side streams waited for, the exploits (OUTDIR/tests.log, tests.xml);
# 3. bench/timing_bench.py graded: full scoring calls of the start, the reference, gpu_twopass and gpu_lookback
#    (rounds of 64; the reference and gpu_twopass also one call per round; the reference at n = 1024 for the
#    protocol's overhead) -> OUTDIR/graded.json;
# 4. bench/timing_bench.py inprocess: the same solutions in one process: CUDA events, time.time + synchronize,
#    the runner's loop, no per-call synchronize, K streams -> OUTDIR/inprocess.json;
# 5. report: OUTDIR/timing.md (the table for the README) and timing.json; then a summary of everything.
# Each step has a time limit inside an overall budget of ${KERNEL_TIMING_BUDGET_S:-470} s and its own log under
# OUTDIR; a failing step does not stop the others, and its last lines are printed. About 6 minutes on an H200.
# KERNEL_TIMING_DRY_RUN=1 goes on past a failed preflight (to check the script on a machine without a GPU).
# Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
set -uo pipefail
env_dir=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: device_timing.sh OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
exec > >(tee "$out/device_timing.log") 2>&1
export PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
budget=${KERNEL_TIMING_BUDGET_S:-470}
t0=$SECONDS
mkdir -p /tmp/triton-shared && chmod 1777 /tmp/triton-shared && export TRITON_CACHE_DIR=/tmp/triton-shared
: > "$out/steps.txt"

step() {  # step NAME CAP_SECONDS RESERVE_SECONDS command...: run with min(CAP, budget left - RESERVE)
  local name=$1 cap=$2 reserve=$3; shift 3
  local left=$(( budget - (SECONDS - t0) - reserve )) limit=$cap
  [ "$limit" -gt "$left" ] && limit=$left
  if [ "$limit" -lt 15 ]; then
    echo "== $name SKIPPED: only ${left} s of the budget left"; echo "$name skipped" >> "$out/steps.txt"; return
  fi
  echo "== $name (limit ${limit} s, at $((SECONDS - t0)) s)"
  local t=$SECONDS
  timeout -s KILL "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "   $name: exit $rc after $((SECONDS - t)) s$([ $rc = 137 ] && echo ' (KILLED at its time limit)')"
  echo "$name exit $rc after $((SECONDS - t)) s" >> "$out/steps.txt"
  if [ $rc -ne 0 ]; then echo "   ---- last lines of $name.log:"; tail -n 40 "$out/$name.log" | sed 's/^/   | /'; fi
}

echo "== preflight ($(date -u +%FT%TZ))"
nvidia-smi -L
nvidia-smi --query-gpu=name,memory.used,memory.total,driver_version,clocks.max.sm --format=csv
echo "cores: $(nproc), uid: $(id -u), $(uptime)"
if ! $py - <<'EOF'
import sys
import torch, triton
print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__, "cuda", torch.version.cuda)
if not torch.cuda.is_available():
    raise SystemExit("PREFLIGHT FAILED: torch sees no CUDA GPU")
free, total = torch.cuda.mem_get_info()
print(f"GPU 0: {torch.cuda.get_device_name(0)}, {free / 2**30:.1f} of {total / 2**30:.1f} GiB free")
if free < 60 * 2**30:
    print("WARNING: rounds of 64 at n = 10^8 need about 58 GiB (grader and solution); the bench needs 52 GiB")
EOF
then
  if [ "${KERNEL_TIMING_DRY_RUN:-}" != 1 ]; then
    echo "PREFLIGHT FAILED: no usable torch with CUDA as $py; nothing else run"; exit 3
  fi
  echo "KERNEL_TIMING_DRY_RUN=1: going on without a GPU (to check this script; every GPU step fails)"
fi
have_pytest=1
$py -c "import pytest" 2>/dev/null || { have_pytest=0; echo "WARNING: pytest is not installed for $py: step 2 (the GPU tests) cannot run"; }
echo "grader files: $(cd "$env_dir" && cat grader/*.py | sha256sum | cut -c1-16) (sha256 of grader/*.py)"
(cd "$env_dir" && git rev-parse --short=12 HEAD 2>/dev/null) || echo "commit: no .git here"
if ! $py "$env_dir/reference/unpack.py" /tmp/kernel-ref > /dev/null; then
  echo "FAILED to unpack the reference archive: the bench and several tests need it"
fi
chmod -R a+rX /tmp/kernel-ref 2>/dev/null

# -v: one line per test as it ends, so a step cut at its limit still says which tests passed
[ $have_pytest = 1 ] && step tests 200 250 $py -m pytest -v -p no:cacheprovider -rfEs --junitxml "$out/tests.xml" \
  "$env_dir/tests/test_gpu.py"
step graded 170 80 $py "$env_dir/bench/timing_bench.py" graded --reference-dir /tmp/kernel-ref --json "$out/graded.json"
step inprocess 75 5 $py "$env_dir/bench/timing_bench.py" inprocess --reference-dir /tmp/kernel-ref \
  --json "$out/inprocess.json"
step report 15 0 $py "$env_dir/bench/timing_bench.py" report --dir "$out"

echo
echo "================ summary ($((SECONDS - t0)) s in all) ================"
cat "$out/steps.txt"
echo "-- tests (tests.log)"; [ -f "$out/tests.log" ] && grep -E "PASSED|FAILED|ERROR|SKIPPED|passed|failed" "$out/tests.log" \
  | sed 's/^environments\/optimize_kernel\/tests\///' | cut -c1-200 | tail -n 60
echo "-- graded scoring calls (graded.log)"; [ -f "$out/graded.log" ] && grep -E "run [0-9]+:|FAILED" "$out/graded.log" | cut -c1-400
echo "-- in-process (inprocess.log)"; [ -f "$out/inprocess.log" ] && cut -c1-600 "$out/inprocess.log"
echo "-- timing.md"; [ -f "$out/timing.md" ] && cat "$out/timing.md"
echo "files: $(cd "$out" && ls | tr '\n' ' ')"
