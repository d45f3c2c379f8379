#!/usr/bin/env bash
# The gpu variant's calibration and floor on a machine of several GPUs, in one go, inside a time budget:
#   environments/fix_embedding/bench/device_run.sh OUTDIR [RUNS] [SECONDS] [COMMIT]
# $REBENCH_HOME/assets must hold a built tokens-gpt2-keyed (copied from a machine that built it: it is kept as
# built there). On the last GPU: the asset builder builds gpu-small (the runs need it) and gpu-large, then
# bench/floor.py trains gpu-large on at a constant rate until the budget is nearly spent. On GPUs
# 0..RUNS-1 at the same time: one bench/gpu_calibrate.py run each (set-up with its own pretraining, start
# score, the reference, its score). Then bench/calibration_entry.py writes OUTDIR/gpu-entry.json and the
# table. Every step has a time limit inside SECONDS (default 500) and writes under OUTDIR; a failing run
# does not stop the others. Logs end up in OUTDIR/logs.tar.gz (at most 8 files come back from the device).
# FE_PROFILE, FE_SMALL, FE_LARGE, FE_ACTIONS and FE_FLOOR_ARGS change the profile, the two models' assets,
# the reference actions and floor.py's settings: `FE_PROFILE=tiny FE_SMALL=tiny-small FE_LARGE=tiny
# FE_ACTIONS=reference/mini.actions.jsonl FE_FLOOR_ARGS="--steps 40 --eval-every 10"` tries it on a CPU.
# Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
set -uo pipefail
env_dir=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$env_dir/../.." && pwd)
out=${1:?usage: device_run.sh OUTDIR [RUNS] [SECONDS] [COMMIT]}
runs=${2:-3}
budget=${3:-500}
commit=${4:-}
py=${PYTHON:-python3}
profile=${FE_PROFILE:-gpu}
small=${FE_SMALL:-gpu-small}
large=${FE_LARGE:-gpu-large}
floor_args=${FE_FLOOR_ARGS:---steps 4500 --lr 3e-4 --eval-every 250}
mkdir -p "$out" /tmp/fe-logs
logs=/tmp/fe-logs
export PYTHONUNBUFFERED=1 PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}"
export REBENCH_HOME=${REBENCH_HOME:-$HOME/.rebench}
SECONDS=0
left() { echo $((budget - SECONDS)); }
gpus=$($py -c 'import torch; print(torch.cuda.device_count())')
nvidia-smi -L | tee "$logs/gpus.txt"
echo "torch $($py -c 'import torch; print(torch.__version__)'), $gpus GPUs, $runs runs, budget ${budget}s"
device() { [ "$gpus" -gt 0 ] && echo $(($1 % gpus)); }  # nothing: no GPU, a CPU profile
[ "$gpus" -gt "$runs" ] || echo "no GPU to itself for the floor ($gpus GPUs, $runs runs): it shares the last one"

(  # the last GPU: the small model first (the runs wait for it), then the large one and the floor
  export CUDA_VISIBLE_DEVICES=$(device $((gpus - 1)))
  timeout -s KILL "$(left)" $py -m rebench_env.assets build --only "$small" --result "$out/build-small.json" >"$logs/build-small.log" 2>&1
  echo "$small: exit $? after ${SECONDS}s"
  timeout -s KILL "$(left)" $py -m rebench_env.assets build --only "$large" --result "$logs/build-large.json" >"$logs/build-large.log" 2>&1
  echo "$large: exit $? after ${SECONDS}s"
  floor_seconds=$(( $(left) - 60 ))
  if [ "$floor_seconds" -gt 60 ]; then
    timeout -s KILL "$(( $(left) - 10 ))" $py "$env_dir/bench/floor.py" --profile "$profile" $floor_args \
      --max-seconds "$floor_seconds" --out "$out/floor-$profile.json" >"$logs/floor.log" 2>&1
    echo "floor: exit $? after ${SECONDS}s"
  else
    echo "floor: skipped, ${floor_seconds}s left"
  fi
) &
floor_job=$!

pids=()
for ((i = 0; i < runs; i++)); do
  CUDA_VISIBLE_DEVICES=$(device "$i") timeout -s KILL "$(( $(left) - 5 ))" $py "$env_dir/bench/gpu_calibrate.py" --profile "$profile" \
    --assets "$REBENCH_HOME/assets" --work "/tmp/fe-run-$i" --out "$out/run-$i.json" --deadline-seconds "$(( $(left) - 20 ))" \
    --wait-assets 300 ${FE_ACTIONS:+--actions "$env_dir/$FE_ACTIONS"} >"$logs/run-$i.log" 2>&1 &
  pids+=($!)
done
for ((i = 0; i < runs; i++)); do wait "${pids[$i]}"; echo "run $i: exit $? after ${SECONDS}s"; done
wait "$floor_job"

for name in "$small" "$large"; do cp "$REBENCH_HOME/assets/$name/losses.json" "$logs/$name-losses.json" 2>/dev/null; done
$py "$env_dir/bench/calibration_entry.py" "$out"/run-*.json --variant "$profile" ${commit:+--rebench-commit "$commit"} --entry "$out/$profile-entry.json" \
  --note "bench/gpu_calibrate.py on an H200 (Node does not run on the lent GPU machine): each run the set-up (its own pretraining, a hidden-seed permutation), the grader's starting score, the reference replayed from reference/gpu.actions.jsonl as root without rebench's sandbox, and the grader's score; start and reference from one set-up per run, $runs runs on $runs GPUs of one machine at once. Command: environments/fix_embedding/bench/device_run.sh OUT $runs $budget." \
  2>&1 | tee "$logs/entry.log"
tail -n 2 "$logs/floor.log" 2>/dev/null
tar -czf "$out/logs.tar.gz" -C "$logs" . && echo "logs: $out/logs.tar.gz; ${SECONDS}s in all"
