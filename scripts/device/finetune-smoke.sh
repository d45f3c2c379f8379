#!/usr/bin/env bash
# finetune_gpt2_qa's gpu profile end to end on a GPU machine, outside the sandbox (Python only, no Node):
# the gpu assets, the set-up (tasks, references, judge service, starting solution), a scoring call of the
# start, a shortened reference (best_of_k.py) and its scoring call, each step timed. A smoke test and a
# measurement of the stages' times before `rebench calibrate finetune_gpt2_qa --variant gpu`.
#   the device tool's run: command "REBENCH_INSTALLATION_KEY=... bash scripts/device/finetune-smoke.sh [ROUNDS]",
#   carry [".gpu/main", ".gpu/assets"] (bubblewrap from scripts/device/bundle's archive, for the grader's
#   jail; corpus-keyed and tokenizer-gpt2 built here)
set -u
exec > >(tee "$OUT/finetune-smoke.log") 2>&1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
rounds=${1:-2}
export REBENCH_HOME=/tmp/rh PYTHONPATH=$PWD/python
mkdir -p /tmp/b && tar -xJf .gpu/main/bundle.tar.xz -C /tmp/b pkg && export PATH=/tmp/b/pkg/bin:$PATH
bwrap --version >/dev/null 2>&1 || export LD_LIBRARY_PATH=/tmp/b/pkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bwrap --version || exit 1
source "$(dirname "$0")/stage-assets.sh"
stage_assets "$REBENCH_HOME/assets"
nvidia-smi -L
python3 -c "from rebench_env.assets.build import BuildOptions, build; build(['gpu-small', 'gpu-large'], BuildOptions())" || exit 1
el "assets built"
root=/tmp/ft; rm -rf $root
python3 - "$root" <<'PY' || exit 1
import json, subprocess, sys
from pathlib import Path
sys.path.insert(0, "environments/finetune_gpt2_qa/tests")
import gpt2_qa_helpers as h
h.TINY_ASSETS[:] = ["gpu-large", "gpu-small", "tokenizer-gpt2", "corpus-keyed"]
sb = h.Sandbox(Path(sys.argv[1]), Path("/tmp/rh"))
r = subprocess.run([sys.executable, "grader/setup.py", "--profile", "gpu", "--workspace", str(sb.workspace)], cwd=sb.protected, env=sb.env)
print("setup exit", r.returncode)
if r.returncode:
    raise SystemExit(1)
PY
el "set-up"
python3 - "$root" <<'PY' || exit 1
import json, sys
from pathlib import Path
sys.path.insert(0, "environments/finetune_gpt2_qa/tests")
import gpt2_qa_helpers as h
sb = h.Sandbox.__new__(h.Sandbox)
root = Path(sys.argv[1])
sb.root, sb.protected, sb.workspace, sb.socket, sb.calls = root, root / "protected", root / "workspace", str(root / "judge.sock"), 0
import os
sb.env = {**os.environ, "REBENCH_GPT2_QA_JUDGE": sb.socket, "REBENCH_AS_AGENT_UNSANDBOXED": "1", "REBENCH_PROTECTED": str(sb.protected)}
r = sb.score()
print(json.dumps({k: r[k] for k in ("outcome", "message")}), json.dumps(r["details"])[:2500])
PY
el "the start scored"
python3 environments/finetune_gpt2_qa/reference/unpack.py $root/workspace >/dev/null
(cd $root/workspace && REBENCH_GPT2_QA_JUDGE=$root/judge.sock REBENCH_AS_AGENT_UNSANDBOXED=1 python3 best_of_k.py --rounds "$rounds" --prompts 512 --k 4 --max-new-tokens 24) || exit 1
el "reference, $rounds rounds"
python3 - "$root" <<'PY'
import json, os, subprocess, sys
root = sys.argv[1]
env = {**os.environ, "REBENCH_GPT2_QA_JUDGE": f"{root}/judge.sock", "REBENCH_AS_AGENT_UNSANDBOXED": "1", "REBENCH_PROTECTED": f"{root}/protected",
       "REBENCH_WORKSPACE": f"{root}/workspace", "REBENCH_TASK": "main", "REBENCH_RESULT": f"{root}/ref-result.json"}
subprocess.run([sys.executable, "grader/score.py"], cwd=f"{root}/protected", env=env, check=True)
print(open(f"{root}/ref-result.json").read()[:4000])
PY
el "reference scored"
cp -r $root/protected/judge "$OUT/" 2>/dev/null; el done
