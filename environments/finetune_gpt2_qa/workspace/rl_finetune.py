"""The starting solution (upstream's shape): sample two responses, ask the judge, fine-tune on the winner.

    python rl_finetune.py [--steps 4] [--prompts 32] [--lr 1e-4]

Each step draws prompts from prompts.jsonl, samples two responses to each, asks the judge which is
better, drops winners with at most two letters, and takes one pass of supervised fine-tuning on
prompt + winner (loss on the response tokens only). Writes finetuned_model/model.pt.
"""

from __future__ import annotations

import argparse
import json
import random
import re

import torch

import model as policy
from evaluation import evaluate_sync
from rebench_env.chat import sft


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--prompts", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    prompts = [json.loads(line)["prompt"] for line in open(policy.HERE / "prompts.jsonl", encoding="utf-8")]
    tok = policy.tokenizer()
    model = policy.load_policy()
    for step in range(args.steps):
        batch = rng.sample(prompts, args.prompts)
        first = policy.generate(model, tok, batch, seed=2 * step + args.seed * 1000)
        second = policy.generate(model, tok, batch, seed=2 * step + 1 + args.seed * 1000)
        wins = evaluate_sync(batch, list(zip(first, second)))
        winners = [(q, a if w else b) for q, a, b, w in zip(batch, first, second, wins)]
        winners = [(q, r) for q, r in winners if len(re.findall(r"[A-Za-z]", r)) > 2]
        updates = max(1, len(winners) // args.batch_size)
        losses = sft(model, tok, [q for q, _ in winners], [r for _, r in winners], updates, lr=args.lr, batch_size=args.batch_size, seed=step)
        print(f"step {step}: {sum(wins)}/{len(wins)} first preferred, {len(winners)} winners kept, loss {sum(losses) / max(1, len(losses)):.3f}", flush=True)
    print("saved", policy.save_policy(model))


if __name__ == "__main__":
    main()
