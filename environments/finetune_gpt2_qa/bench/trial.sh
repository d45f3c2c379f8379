#!/usr/bin/env bash
# One finetune_gpt2_qa run outside the sandbox, each stage timed: the set-up (tasks, references, judge service,
# starting solution), the start's scoring call, how often the base is on the topic (on_topic.py), the
# reference (best_of_k.py with the given arguments), its scoring call and its on-topic rate. A measure of a
# profile's start and reference before `rebench calibrate`, which runs the same through the sandbox.
#
#   environments/finetune_gpt2_qa/bench/trial.sh PROFILE ROOT [BEST_OF_K_ARGS...]
#
# TRIAL_SCORE_AFTER="2 4 6" (it overrides a --rounds among the arguments) runs the reference in segments and scores after each
# of those rounds (ROOT/reference_roundR.json), as the reference's actions do. TRIAL_ON_TOPIC=0 skips the on-topic rates.
# PROFILE: mini or gpu (grader/settings.py); ROOT: an empty folder for the protected directory, workspace,
# judge socket and results (each score's JSON as ROOT/start.json, ROOT/reference.json). The profile's assets
# must be built in $REBENCH_HOME (`rebench assets build --variant mini`); python3 must import rebench_env
# (PYTHONPATH=python). scripts/device/finetune-smoke.sh runs it on a GPU machine.
# Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
set -uo pipefail
profile=${1:?usage: trial.sh PROFILE ROOT [BEST_OF_K_ARGS...]}
root=${2:?usage: trial.sh PROFILE ROOT [BEST_OF_K_ARGS...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
t0=$(date +%s); el() { echo "[$(($(date +%s) - t0)) s] $*"; }
export PYTHONUNBUFFERED=1
read -r policy_tok lm lm_tok < <(python3 -c "
import sys; sys.path.insert(0, '$here/../grader')
from settings import PROFILES; p = PROFILES['$profile']; print(p.tokenizer, p.lm, p.judge_tokenizer)")
score() {
  REBENCH_GPT2_QA_JUDGE=$root/judge.sock REBENCH_AS_AGENT_UNSANDBOXED=1 REBENCH_PROTECTED=$root/protected \
    REBENCH_WORKSPACE=$root/workspace REBENCH_TASK=main REBENCH_RESULT=$root/$1.json \
    bash -c "cd $root/protected && python3 grader/score.py" || return 1
  python3 -c "import json, sys; r = json.load(open(sys.argv[1])); print('SCORE', sys.argv[2], r.get('outcome'), r.get('message'))" "$root/$1.json" "$1"
}
on_topic() {
  [ "${TRIAL_ON_TOPIC:-1}" = 1 ] || return 0
  python3 "$here/on_topic.py" --state "$root/protected/state" --assets "$root/protected/assets" --model "$2" \
    --tokenizer "$policy_tok" --lm "$lm" --lm-tokenizer "$lm_tok" --prompts 256 --out "$root/on_topic_$1.json" | head -1
}
rm -rf "$root" && mkdir -p "$root"
python3 - "$root" "$profile" "$here/../tests" <<'PY' || exit 1
import subprocess, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
import gpt2_qa_helpers as h
from settings import PROFILES
from rebench_env.assets import assets_home
h.TINY_ASSETS[:] = PROFILES[sys.argv[2]].assets
sb = h.Sandbox(Path(sys.argv[1]), assets_home().parent)
r = subprocess.run([sys.executable, "grader/setup.py", "--profile", sys.argv[2], "--workspace", str(sb.workspace)], cwd=sb.protected, env=sb.env)
raise SystemExit(r.returncode)
PY
el "set-up"
score start || exit 1
el "the start scored"
on_topic base "$root/workspace/base_model/model.pt"
el "on-topic rate of the base"
python3 "$here/../reference/unpack.py" "$root/workspace" >/dev/null
reference() { (cd "$root/workspace" && REBENCH_GPT2_QA_JUDGE=$root/judge.sock REBENCH_AS_AGENT_UNSANDBOXED=1 python3 best_of_k.py "$@"); }
if [ -n "${TRIAL_SCORE_AFTER:-}" ]; then
  # the reference in segments, scored after each round in TRIAL_SCORE_AFTER (e.g. "2 4 6"), as the reference's
  # actions do (best_of_k.py --first-round continues from finetuned_model/)
  done_rounds=0
  for r in $TRIAL_SCORE_AFTER; do
    if [ "$done_rounds" -eq 0 ]; then reference "$@" --rounds "$r" || exit 1
    else reference "$@" --rounds $((r - done_rounds)) --first-round "$done_rounds" || exit 1; fi
    done_rounds=$r
    el "reference, round $r"
    score "reference_round$r" || exit 1
    cp "$root/reference_round$r.json" "$root/reference.json"
  done
else
  reference "$@" || exit 1
  el "reference"
  score reference || exit 1
fi
el "the reference scored"
on_topic reference "$root/workspace/finetuned_model/model.pt"
el done
