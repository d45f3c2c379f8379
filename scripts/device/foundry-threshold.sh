#!/usr/bin/env bash
# optimize_llm_foundry's gpu set-up and threshold cases on a GPU machine, outside rebench (Python only):
#   the device tool's run: command "bash scripts/device/foundry-threshold.sh [CASE ...]", carry [".gpu/assets"]
# .gpu/assets/<name>/ holds the built assets corpus-keyed and tokenizer-gpt2 (train.jsonl as .xz). Writes under
# $OUT: setup.json (bench/setup_protected.py's report: reference_run_seconds is one run of the starting
# pipeline), threshold-gpu.json (bench/threshold.py, rewritten after each case) and foundry-threshold.log.
set -u
exec > >(tee "$OUT/foundry-threshold.log") 2>&1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi -L
source "$(dirname "${BASH_SOURCE[0]}")/stage-assets.sh"
stage_assets /tmp/rh/assets
el assets
env=environments/optimize_llm_foundry
python3 $env/bench/setup_protected.py --profile gpu --root /tmp/fg --assets /tmp/rh/assets | tee "$OUT/setup.json"
el "set-up done"
only=(); for c in "${@:-rerun}"; do only+=(--only "$c"); done
python3 $env/bench/threshold.py --protected /tmp/fg/protected --solution $env/workspace/solution --out "$OUT/threshold-gpu.json" "${only[@]}"
el done
