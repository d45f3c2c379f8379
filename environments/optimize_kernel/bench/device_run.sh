#!/usr/bin/env bash
# Everything the gpu variant needs measured on a GPU machine, in one go:
#   environments/optimize_kernel/bench/device_run.sh OUTDIR [quick] [COMMIT]
# 1. calibrate.py: the gpu grader end to end, 5 runs on start and 5 on the reference, plus 3 reference runs at
#    n = 1024 (the protocol's fixed overhead); OUTDIR/gpu-entry.json is calibration.json's `gpu` entry;
# 2. gpu_bench.py: every gpu solution checked at N = 10^8, then timed against the device copy;
# 3. unless `quick`: the grader with the agent's code as user `nobody` (both CUDA IPC modes), when run as
#    root, and the GPU tests (tests/test_gpu.py).
# About 2.5 minutes quick, 5 in full on an H200. Each step has its own time limit and writes its log under
# OUTDIR; a failing step does not stop the rest.
# Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
set -uo pipefail
env_dir=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: device_run.sh OUTDIR [quick] [COMMIT]}
mode=${2:-full}
commit=${3:-}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
mkdir -p -m 1777 /tmp/triton-shared && export TRITON_CACHE_DIR=/tmp/triton-shared
step() { local name=$1 limit=$2; shift 2; echo "== $name (limit ${limit}s)"; local t=$SECONDS
  timeout -s KILL "$limit" "$@" >"$out/$name.log" 2>&1; echo "   exit $? after $((SECONDS - t)) s"; }

nvidia-smi -L; $py -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
$py "$env_dir/reference/unpack.py" /tmp/kernel-ref >/dev/null && chmod -R a+rX /tmp/kernel-ref

step calibrate 150 $py "$env_dir/bench/calibrate.py" --variant gpu --runs 5 --overhead-runs 3 \
  --reference-dir /tmp/kernel-ref --json "$out/calibration_gpu.json" --entry "$out/gpu-entry.json" \
  ${commit:+--rebench-commit "$commit"}
step bench 90 $py "$env_dir/bench/gpu_bench.py" --reference-dir /tmp/kernel-ref --reps 100 --json "$out/bench.json"
if [ "$mode" != quick ] && [ "$(id -u)" = 0 ]; then
  step as_nobody 45 $py -m pytest -q -p no:cacheprovider "$env_dir/tests/test_gpu.py" -k another_user
  mkdir -p -m 755 /tmp/kernel-start/solution && cp "$env_dir/workspace/gpu/solution/solution.py" /tmp/kernel-start/solution/
  chmod -R a+rwX /tmp/kernel-start
  step legacy_as_nobody 35 env REBENCH_AS_AGENT="$env_dir/tests/as_agent_nobody.sh" $py "$env_dir/grader/score.py" \
    --variant gpu --n 1000000 --ipc legacy --solution /tmp/kernel-start/solution/solution.py \
    --result "$out/legacy_as_nobody.json"
fi
[ "$mode" != quick ] && step tests 110 $py -m pytest -q -p no:cacheprovider "$env_dir/tests/test_gpu.py" -k "not another_user"
tail -n 16 "$out/bench.log"; tail -n 7 "$out/calibrate.log"
for f in as_nobody tests; do [ -f "$out/$f.log" ] && { echo "-- $f"; tail -n 4 "$out/$f.log"; }; done
[ -f "$out/legacy_as_nobody.json" ] && head -c 400 "$out/legacy_as_nobody.json"; echo
