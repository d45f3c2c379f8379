#!/usr/bin/env bash
# finetune_gpt2_qa's gpu profile end to end on a GPU machine, outside the sandbox (bench/trial.sh after the gpu assets):
# the gpu assets, the set-up (tasks, references, judge service, starting solution), a scoring call of the
# start, how often the base is on the topic (bench/on_topic.py), a shortened reference
# (best_of_k.py), its scoring call and its on-topic rate, each step timed. A smoke test and a
# measurement of the stages' times before `rebench calibrate finetune_gpt2_qa --variant gpu`.
#   the device tool's run: command "bash scripts/device/finetune-smoke.sh [ROUNDS [BEST_OF_K_ARGS...]]",
#   carry [".gpu/main", ".gpu/assets"] (setup.sh: bubblewrap for the grader's jail from `scripts/device/bundle --bwrap-only`'s
#   archive; corpus-keyed and tokenizer-gpt2 built here)
DEVICE_LOG=finetune-smoke source "$(dirname "$0")/setup.sh"
rounds=${1:-2}
shift || true
# best_of_k.py's settings (the rest of the arguments); the default is mini's recipe with gpu's learning rate
reference_args=("$@")
[ ${#reference_args[@]} -gt 0 ] || reference_args=(--prompts 512 --k 8 --temperature 1.0 --top-k 40 --max-new-tokens 16 --score-temperature 0.3 --score-min-new-tokens 4 --lr 1e-4)
export PYTHONPATH=$PWD/python
# SMOKE_PROFILE=tiny (or another profile) of grader/settings.py (default gpu); its assets are built here
profile=${SMOKE_PROFILE:-gpu}
python3 -c "
import sys; sys.path.insert(0, 'environments/finetune_gpt2_qa/grader')
from settings import PROFILES
from rebench_env.assets.build import BuildOptions, build
build(PROFILES['$profile'].assets, BuildOptions())" || exit 1
el "assets built ($profile)"
environments/finetune_gpt2_qa/bench/trial.sh "$profile" /tmp/ft --rounds "$rounds" "${reference_args[@]}"
cp /tmp/ft/*.json "$OUT/" 2>/dev/null; cp -r /tmp/ft/protected/judge "$OUT/" 2>/dev/null; el done
