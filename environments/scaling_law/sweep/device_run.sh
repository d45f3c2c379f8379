#!/usr/bin/env bash
# The gpu sweep and the gpu reference on a machine of several GPUs, in one go (about 7 minutes on 4 H200s):
#   environments/scaling_law/sweep/device_run.sh OUTDIR TOKENS [BUDGET_SECONDS]
# TOKENS: the tokens-gpt2 asset's folder (train.bin, val.bin). Needs python/rebench_env beside environments/
# (the repository's layout) and python3 with torch.
# 1. build_sweep.py --variant gpu on every visible GPU, longest points first; no point starts after
#    BUDGET_SECONDS (default 400). OUTDIR/sweep.json is rewritten after every point (a build stopped from
#    outside keeps what finished).
# 2. At the same time the reference: the grader's set-up starts the real launcher on GPUs 1.. (GPU 0 takes
#    the sweep's longest point alone), and fit_scaling.py runs its grid through train.py as in a run;
#    OUTDIR/reference-answer.json is its answer, reference.log its fit, experiments.jsonl the launcher's log.
# 3. With MINI_TOKENS (the tokens-bpe1k folder): the mini sweep's rows 1/4 and 1 on the last two GPUs, in fp32 (the
#    same code and seed as on the CPU; mini-gpu.json), to compare with the CPU-built points.
# 4. nvidia-smi dmon samples GPU use every 10 s (gpu-use.log).
# A smoke test on a CPU: VARIANT=mini DEVICES=cpu,cpu REF_DEVICES=cpu SWEEP_ARGS='--widths 48,64 --fractions 1/4096'
#   REF_ARGS='--widths 16,24 --budgets 0.5,1 --min-iters 10' device_run.sh OUT ~/.rebench/assets/tokens-bpe1k
# Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
set -uo pipefail
env_dir=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$env_dir/../.." && pwd)
out=${1:?usage: device_run.sh OUTDIR TOKENS [BUDGET_SECONDS]}
tokens=$(cd "${2:?usage: device_run.sh OUTDIR TOKENS [BUDGET_SECONDS]}" && pwd)
budget=${3:-400}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
py=${PYTHON:-python3}
variant=${VARIANT:-gpu}
start=$SECONDS
nvidia-smi -L; nproc; $py -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count())'
gpus=$($py -c 'import torch; print(torch.cuda.device_count())')
ref_devices=${REF_DEVICES:-$( [ "$gpus" -gt 1 ] && seq -s, -f 'cuda:%g' 1 $((gpus - 1)) )}
data_name=$($py -c "import sys; sys.path.insert(0, '$env_dir/grader'); import train; print(train.SETTINGS['$variant'].data)")

nvidia-smi dmon -s u -d 10 >"$out/gpu-use.log" 2>&1 &
dmon=$!
rm -rf /tmp/sweep-gpu
# shellcheck disable=SC2086  # SWEEP_ARGS is a list of arguments
$py "$env_dir/sweep/build_sweep.py" --variant "$variant" --data "$tokens" --out /tmp/sweep-gpu --devices "${DEVICES:-all}" \
  --longest-first --budget-seconds "$budget" ${SWEEP_ARGS:-} >"$out/sweep.log" 2>&1 &
sweep=$!
(while kill -0 $sweep 2>/dev/null; do cp /tmp/sweep-gpu/sweep.json "$out/" 2>/dev/null; sleep 5; done) &
mini=
if [ -n "${MINI_TOKENS:-}" ] && [ "$gpus" -gt 0 ]; then
  rm -rf /tmp/sweep-mini-gpu
  $py "$env_dir/sweep/build_sweep.py" --variant mini --data "$MINI_TOKENS" --out /tmp/sweep-mini-gpu --fractions 1/4,1 \
    --devices "${MINI_DEVICES:-cuda:$((gpus > 1 ? gpus - 2 : 0)),cuda:$((gpus - 1))}" --longest-first >"$out/mini-gpu.log" 2>&1 &
  mini=$!
fi

if [ -n "$ref_devices" ]; then
  prot=/tmp/sl-protected ws=/tmp/sl-workspace
  rm -rf $prot $ws && mkdir -p $prot/assets $ws
  cp -r "$env_dir/grader" $prot/grader && ln -s "$tokens" "$prot/assets/$data_name"
  cp "$env_dir/workspace/$variant"/* $ws/
  $py "$env_dir/reference/unpack.py" $ws >/dev/null  # fit_scaling.py beside train.py, as the replay agent uploads it
  export REBENCH_SCALING_LAUNCHER=/tmp/sl-launcher.sock
  $py $prot/grader/setup.py --variant "$variant" --workspace $ws --protected $prot --devices "$ref_devices" >"$out/reference.log" 2>&1
  # shellcheck disable=SC2086  # REF_ARGS is a list of arguments
  (cd $ws && $py fit_scaling.py --parallel "$(echo "$ref_devices" | tr , '\n' | wc -l)" ${REF_ARGS:-} >>"$out/reference.log" 2>&1)
  echo "reference exit $? after $((SECONDS - start)) s" | tee -a "$out/reference.log"
  kill "$($py -c "import json; print(json.loads(open('$prot/launcher/experiments.jsonl').readline())['pid'])")" 2>/dev/null
  cp $ws/answer.json "$out/reference-answer.json"
  cp $prot/launcher/experiments.jsonl "$out/experiments.jsonl"
fi

wait $sweep
echo "sweep exit $? after $((SECONDS - start)) s"
cp /tmp/sweep-gpu/sweep.json "$out/"
if [ -n "$mini" ]; then
  wait $mini
  echo "mini on the GPU exit $? after $((SECONDS - start)) s"
  cp /tmp/sweep-mini-gpu/sweep.json "$out/mini-gpu.json"
  tail -n 12 "$out/mini-gpu.log"
fi
kill $dmon 2>/dev/null
tail -n 30 "$out/sweep.log"; tail -n 16 "$out/reference.log" 2>/dev/null; cat "$out/reference-answer.json" 2>/dev/null
