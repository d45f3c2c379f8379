#!/usr/bin/env bash
# Stage what environments/finetune_gpt2_qa/bench/policy_sim.py reads on a GPU machine into .gpu/sim (about
# 23 MB): corpus-keyed (train.jsonl xz'd), tokenizer-bpe4k and mini-small (the judge's reference LM), from this
# machine's built assets (rebench assets build --only mini-small,tokenizer-bpe4k,corpus-keyed).
set -euo pipefail
cd "$(dirname "$0")/../.."
assets=${REBENCH_HOME:-$HOME/.rebench}/assets
rm -rf .gpu/sim && mkdir -p .gpu/sim/corpus
cp -L "$assets/corpus-keyed/"{val.jsonl,test.jsonl} .gpu/sim/corpus/
xz -T2 -3 -c "$assets/corpus-keyed/train.jsonl" > .gpu/sim/corpus/train.jsonl.xz
cp -rL "$assets/tokenizer-bpe4k" .gpu/sim/tok
cp -L "$assets/mini-small/model.pt" .gpu/sim/lm.pt
du -sh .gpu/sim
