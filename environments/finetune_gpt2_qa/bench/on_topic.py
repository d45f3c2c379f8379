"""How often a policy says something about the prompt: the signal best-of-k and the judge can work with.

    python environments/finetune_gpt2_qa/bench/on_topic.py --state PROTECTED/state --assets PROTECTED/assets \
        --model MODEL.pt [--tokenizer mini-chat --lm mini-small --lm-tokenizer tokenizer-bpe4k] [--k 8] [--prompts 500] [--out on_topic.json]

Samples ``--k`` responses (temperature 1.0, top-k 40, 16 new tokens) to each of the first ``--prompts``
hidden prompts of a set-up run and prints, per kind of task, how many single responses and how many
best-of-k groups have a response the judge counts as on the topic (correct, or sharing a word of the
task's subject): ``single/any/prompts``. Where ``any`` is near zero, no best-of-k selection has anything
to prefer, whatever the recipe; the scores of every model are then about 0.5 (README, Status item 0).

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grader"))
from judge import load_judge  # noqa: E402
from tasks import read_tasks  # noqa: E402

from rebench_env.chat import GenerationSettings, sample  # noqa: E402
from rebench_env.gpt import load_gpt  # noqa: E402
from rebench_env.tokenizer import load_tokenizer  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--state", required=True, type=Path)
    p.add_argument("--assets", required=True, type=Path)
    p.add_argument("--model", required=True, type=Path)
    p.add_argument("--lm", default="mini-small")
    p.add_argument("--tokenizer", default="mini-chat", help="the policy's tokenizer")
    p.add_argument("--lm-tokenizer", help="the reference LM's tokenizer (default: --tokenizer)")
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--prompts", type=int, default=500)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    torch.set_num_threads(2)
    tasks = list(read_tasks(args.state / "hidden_tasks.jsonl"))[: args.prompts]
    tok = load_tokenizer(args.assets / args.tokenizer)
    model = load_gpt(args.model).to("cuda" if torch.cuda.is_available() else "cpu")
    visible = list(read_tasks(args.state / "visible_tasks.jsonl"))
    judge = load_judge(args.assets / args.lm / "model.pt", args.assets / (args.lm_tokenizer or args.tokenizer), {t.prompt: t for t in tasks}, visible=visible)
    settings = GenerationSettings.parse({"temperature": 1.0, "top_k": 40, "max_new_tokens": 16})
    draws = [sample(model, tok, [t.prompt for t in tasks], settings, seed=i) for i in range(args.k)]
    single, any_of_k, prompts = collections.Counter(), collections.Counter(), collections.Counter()
    examples: dict[str, list[str]] = {}
    for i, t in enumerate(tasks):
        on = [judge.parts(t.prompt, d[i])["on_topic"] > 0 for d in draws]
        prompts[t.kind] += 1
        single[t.kind] += on[0]
        any_of_k[t.kind] += any(on)
        if any(on) and t.kind not in examples:
            examples[t.kind] = [t.instruction, draws[on.index(True)][i]]
    result = {
        "model": str(args.model),
        "k": args.k,
        "by_kind": {k: {"single": single[k], "any_of_k": any_of_k[k], "prompts": prompts[k]} for k in prompts},
        "single_rate": round(sum(single.values()) / len(tasks), 4),
        "any_of_k_rate": round(sum(any_of_k.values()) / len(tasks), 4),
        "examples": examples,
    }
    if args.out:  # before printing: a reader of the first line only (| head -1) may close the pipe
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(" ".join(f"{k} {v['single']}/{v['any_of_k']}/{v['prompts']}" for k, v in result["by_kind"].items()), flush=True)
    if not args.out:
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
