#!/usr/bin/env bash
# finetune_gpt2_qa's gpu profile end to end on a GPU machine, outside the sandbox (Python only, no Node):
# the gpu assets, the set-up (tasks, references, judge service, starting solution), a scoring call of the
# start, how often the base is on the topic (bench/on_topic.py), a shortened reference
# (best_of_k.py), its scoring call and its on-topic rate, each step timed. A smoke test and a
# measurement of the stages' times before `rebench calibrate finetune_gpt2_qa --variant gpu`.
#   the device tool's run: command "bash scripts/device/finetune-smoke.sh [ROUNDS [BEST_OF_K_ARGS...]]",
#   carry [".gpu/main", ".gpu/assets"] (setup.sh: bubblewrap for the grader's jail from scripts/device/bundle's
#   archive; corpus-keyed and tokenizer-gpt2 built here)
DEVICE_LOG=finetune-smoke source "$(dirname "$0")/setup.sh"
rounds=${1:-2}
shift || true
# best_of_k.py's settings (the rest of the arguments); the default is mini's recipe with gpu's learning rate
reference_args=("$@")
[ ${#reference_args[@]} -gt 0 ] || reference_args=(--prompts 512 --k 8 --temperature 1.0 --top-k 40 --max-new-tokens 16 --score-temperature 0.3 --score-min-new-tokens 4 --lr 1e-4)
export PYTHONPATH=$PWD/python
root=/tmp/ft
# The grader as rebench runs it, on $root's protected directory and workspace (REBENCH_RESULT: $root/$1.json).
score() {
  REBENCH_GPT2_QA_JUDGE=$root/judge.sock REBENCH_AS_AGENT_UNSANDBOXED=1 REBENCH_PROTECTED=$root/protected \
    REBENCH_WORKSPACE=$root/workspace REBENCH_TASK=main REBENCH_RESULT=$root/$1.json \
    bash -c "cd $root/protected && python3 grader/score.py" || return 1
  head -c 4000 "$root/$1.json"; echo
}
python3 -c "from rebench_env.assets.build import BuildOptions, build; build(['gpu-small', 'gpu-chat'], BuildOptions())" || exit 1
el "assets built"
rm -rf $root
python3 - "$root" <<'PY' || exit 1
import subprocess, sys
from pathlib import Path
sys.path.insert(0, "environments/finetune_gpt2_qa/tests")
import gpt2_qa_helpers as h
h.TINY_ASSETS[:] = ["gpu-chat", "gpu-small", "tokenizer-gpt2", "corpus-keyed"]
sb = h.Sandbox(Path(sys.argv[1]), Path("/tmp/rh"))
r = subprocess.run([sys.executable, "grader/setup.py", "--profile", "gpu", "--workspace", str(sb.workspace)], cwd=sb.protected, env=sb.env)
print("setup exit", r.returncode)
raise SystemExit(r.returncode)
PY
el "set-up"
# How often a model is on the topic (bench/on_topic.py): single responses and any of 8, per kind of task.
on_topic() {
  python3 environments/finetune_gpt2_qa/bench/on_topic.py --state $root/protected/state --assets $root/protected/assets \
    --model "$2" --lm gpu-small --tokenizer tokenizer-gpt2 --prompts 256 --out "$OUT/on_topic_$1.json" | head -1
}
score start || exit 1
el "the start scored"
on_topic base $root/workspace/base_model/model.pt
el "on-topic rates"
python3 environments/finetune_gpt2_qa/reference/unpack.py $root/workspace >/dev/null
(cd $root/workspace && REBENCH_GPT2_QA_JUDGE=$root/judge.sock REBENCH_AS_AGENT_UNSANDBOXED=1 python3 best_of_k.py --rounds "$rounds" "${reference_args[@]}") || exit 1
el "reference, $rounds rounds"
score reference || exit 1
el "reference scored"
on_topic reference $root/workspace/finetuned_model/model.pt
cp -r $root/protected/judge "$OUT/" 2>/dev/null; el done
