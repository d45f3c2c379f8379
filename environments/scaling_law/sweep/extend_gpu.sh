#!/usr/bin/env bash
# Extend the shipped gpu sweep by more widths (default n_embd 256 at its three budgets: about 8 minutes of
# one H200 for the longest point), resuming from the points already in sweep.zip:
#   environments/scaling_law/sweep/extend_gpu.sh OUTDIR TOKENS [POINTS] [WIDTHS]
# TOKENS: the tokens-gpt2 folder (train.bin or train.bin.xz, val.bin). OUTDIR/sweep.json is rewritten after
# every point; repack with pack_sweep.py --gpu OUTDIR/sweep.json once the new column is complete.
# BUDGET_SECONDS (default 60): no point starts after that many seconds (one point a GPU: 60; a queue: more).
# Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
set -uo pipefail
env_dir=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$env_dir/../.." && pwd)
out=$(mkdir -p "${1:?usage: extend_gpu.sh OUTDIR TOKENS [POINTS] [WIDTHS]}" && cd "$1" && pwd)
tokens=$(cd "${2:?usage: extend_gpu.sh OUTDIR TOKENS [POINTS] [WIDTHS]}" && pwd)
points=${3:-d256_f1-1,d256_f1-4,d256_f1-16}
widths=${4:-256,320,384,512,768,1024,1536,2048}
export PYTHONUNBUFFERED=1 PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
[ -f "$tokens/train.bin" ] || python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1] + '.xz'), open(sys.argv[1], 'wb'))" "$tokens/train.bin"
work=/tmp/sweep-extend && rm -rf $work && mkdir -p $work/points
python3 "$env_dir/sweep/pack_sweep.py" --unpack $work/shipped >/dev/null
python3 -c "
import json, sys
for p in json.load(open(sys.argv[1]))['points']: open(sys.argv[2] + '/' + p['name'] + '.json', 'w').write(json.dumps(p))
" $work/shipped/gpu.json $work/points
python3 "$env_dir/sweep/build_sweep.py" --variant gpu --data "$tokens" --out $work --widths "$widths" --only "$points" \
  --devices all --longest-first --budget-seconds "${BUDGET_SECONDS:-60}" &
build=$!
while kill -0 $build 2>/dev/null; do cp $work/sweep.json "$out/" 2>/dev/null; sleep 10; done
wait $build; echo "build exit $?"
cp $work/sweep.json "$out/"
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(d['widths']); [print(r) for r in d['losses']]" "$out/sweep.json"
