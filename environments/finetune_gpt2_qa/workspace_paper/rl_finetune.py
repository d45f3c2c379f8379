"""The starting solution (upstream's): sample two responses, ask the judge, fine-tune on the winner.

    python rl_finetune.py [--steps 4] [--prompts 128] [--lr 1e-5]

Each step draws prompts from prompts.jsonl, samples two responses to each (model.py's settings: 60 new tokens at
temperature 1, in batches of 32), asks the judge which is better, drops winners with at most two letters, and takes
one pass of supervised fine-tuning on prompt + winner (loss on the response tokens only; Adam, batches of 8,
gradient clipping at 1, bf16 autocast on a GPU). Writes finetuned_model/.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from contextlib import nullcontext
from typing import Any, Sequence

import torch

import model as policy
from evaluation import evaluate_sync


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--prompts", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-5)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--generate-batch-size", type=int, default=32)
    p.add_argument("--max-workers", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    return p


def sft_pass(model: Any, tok: Any, optimizer: torch.optim.Optimizer, prompts: Sequence[str], responses: Sequence[str],
             batch_size: int) -> list[float]:  # fmt: skip
    """One pass over (prompt, response) in batches: next-token loss on the response and its end-of-text only."""
    device = next(model.parameters()).device
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else nullcontext()
    limit = model.config.n_positions
    losses = []
    model.train()
    for start in range(0, len(prompts), batch_size):
        rows = []
        for p, r in zip(prompts[start : start + batch_size], responses[start : start + batch_size]):
            prompt_ids, response_ids = tok.encode(p), tok.encode(r) + [tok.eos_token_id]
            ids = (prompt_ids + response_ids)[-limit:]
            labels = ([-100] * len(prompt_ids) + response_ids)[-limit:]
            rows.append((ids, labels))
        width = max(len(ids) for ids, _ in rows)
        input_ids = torch.tensor([ids + [tok.eos_token_id] * (width - len(ids)) for ids, _ in rows], device=device)
        labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in rows], device=device)
        mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in rows], device=device)
        with autocast:
            loss = model(input_ids=input_ids, attention_mask=mask, labels=labels).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    return losses


def main() -> None:
    args = parser().parse_args()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    prompts = [json.loads(line)["prompt"] for line in open(policy.HERE / "prompts.jsonl", encoding="utf-8")]
    tok = policy.tokenizer()
    model = policy.load_policy()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for step in range(args.steps):
        batch = rng.sample(prompts, args.prompts)
        first = policy.generate(model, tok, batch, seed=2 * step + args.seed * 1000, batch_size=args.generate_batch_size)
        second = policy.generate(model, tok, batch, seed=2 * step + 1 + args.seed * 1000, batch_size=args.generate_batch_size)
        wins = evaluate_sync(batch, list(zip(first, second)), max_workers=args.max_workers)
        winners = [(q, a if w else b) for q, a, b, w in zip(batch, first, second, wins)]
        winners = [(q, r) for q, r in winners if len(re.findall(r"[A-Za-z]", r)) > 2]
        losses = sft_pass(model, tok, optimizer, [q for q, _ in winners], [r for _, r in winners], args.batch_size) if winners else []
        loss = sum(losses) / max(1, len(losses))
        print(f"step {step}: {sum(wins)}/{len(wins)} first preferred, {len(winners)} winners kept, loss {loss:.3f}", flush=True)
    print("saved", policy.save_policy(model))


if __name__ == "__main__":
    main()
