"""Could a fix_embedding or restricted_mlm agent lower its hidden-window loss by distilling ``mini-chat``?

Their graders score loss on windows of the keyed val split, 96% of whose documents mini-chat trained on. An
agent cannot see those windows, but it can prompt mini-chat with every title it can name (a KJV chapter, a
dictionary headword, a Jargon File term, a documentation heading; the hidden ones are among them) and train
its own model on what mini-chat writes. This measures that attack at its most favourable, where the agent
prompts with exactly the hidden documents' first lines:

- the student is ``mini-large`` (fix_embedding mini's large model, which a fix_embedding agent has once the
  embedding is fixed; its tokenizer ``tokenizer-bpe4k``); it never saw any keyed hidden document;
- the documents are keyed hidden ones mini-chat trained on and keyed hidden ones it never saw (the unkeyed
  val and test splits), as many of each and source by source;
- ``teacher``: the student trains on mini-chat's continuations of each document's first line (one greedy,
  ``--samples`` at temperature 1, 96 tokens), re-tokenized;
- ``oracle``: the student trains on the documents themselves (training on the test set), as many steps.

The leak is how much more the student's loss falls on documents mini-chat trained on than on those it never
saw (per document, nats a token on its first 128 tokens); the oracle's fall says what the whole test set is
worth.

    .venv/bin/python bench/hidden_data/distill.py [--samples 3] [--steps 240] [--out FILE]

On the 2-core machine under other work (load average 10 to 17, 2026-12-06) it took 111 minutes, 34 of CPU;
the output is ``results-2026-12-06/distill.json``.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from common import SEEN, SOURCES, UNSEEN, doc_losses, first_line_prompt, key, load_corpus, load_policy, pick

from rebench_env.assets import require_asset
from rebench_env.chat import GenerationSettings, sample
from rebench_env.gpt import load_gpt
from rebench_env.tokenizer import load_tokenizer


def documents(corpus: Any) -> dict[str, list[dict[str, Any]]]:
    """Keyed hidden documents mini-chat never saw, and as many it trained on, source by source."""
    never = [d for d in corpus.hidden if key(d) not in corpus.trained]
    seen = []
    for source in SOURCES:
        n = sum(d["source"] == source for d in never)
        seen += pick([d for d in corpus.groups[SEEN] if d["source"] == source], n)
    return {SEEN: seen, UNSEEN: never}


def teacher_texts(model: torch.nn.Module, tok: Any, docs: list[dict[str, Any]], samples: int) -> list[str]:
    prompts = [first_line_prompt(tok, d) for d in docs]
    texts = []
    greedy = GenerationSettings(temperature=0.0, max_new_tokens=96, min_new_tokens=96)
    hot = GenerationSettings(temperature=1.0, max_new_tokens=96, min_new_tokens=96)
    texts += [p + o for p, o in zip(prompts, sample(model, tok, prompts, greedy, seed=0))]
    for s in range(samples):
        texts += [p + o for p, o in zip(prompts, sample(model, tok, prompts, hot, seed=1 + s))]
    return texts


def finetune(student: torch.nn.Module, tok: Any, texts: list[str], steps: int, lr: float = 1e-3, batch_size: int = 16) -> list[float]:
    block = student.config.block_size
    rows = [([tok.eot_id] + tok.encode(t))[: block + 1] for t in texts]
    rows = [r for r in rows if len(r) > 1]
    rng = random.Random(0)
    optimizer = torch.optim.AdamW(student.parameters(), lr=lr, weight_decay=0.0)
    student.train()
    losses = []
    for _ in range(steps):
        batch = [rows[rng.randrange(len(rows))] for _ in range(batch_size)]
        width = max(len(r) for r in batch) - 1
        x = torch.full((len(batch), width), tok.eot_id, dtype=torch.long)
        y = torch.full((len(batch), width), -1, dtype=torch.long)
        for b, r in enumerate(batch):
            x[b, : len(r) - 1] = torch.tensor(r[:-1])
            y[b, : len(r) - 1] = torch.tensor(r[1:])
        logits = student(x)[0]
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), y.reshape(-1), ignore_index=-1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    student.eval()
    return losses


def per_doc(student: torch.nn.Module, tok: Any, docs: list[dict[str, Any]]) -> list[float]:
    return [nats / tokens for nats, tokens, _ in doc_losses(student, tok, docs, max_tokens=127)]


def mean_se(values: list[float]) -> tuple[float, float]:
    m = sum(values) / len(values)
    var = sum((v - m) ** 2 for v in values) / max(1, len(values) - 1)
    return m, (var / len(values)) ** 0.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home")
    parser.add_argument("--samples", type=int, default=3, help="continuations at temperature 1 per document, besides the greedy one (default 3)")
    parser.add_argument("--steps", type=int, default=240, help="fine-tuning steps of 16 sequences, teacher and oracle alike (default 240)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    corpus = load_corpus(args.home)
    teacher, ttok = load_policy(args.home)
    base = load_gpt(require_asset("mini-large", args.home) / "model.pt").eval()
    stok = load_tokenizer(require_asset("tokenizer-bpe4k", args.home))
    docs = documents(corpus)
    everything = docs[SEEN] + docs[UNSEEN]
    t = time.time()
    before = {g: per_doc(base, stok, d) for g, d in docs.items()}
    texts = teacher_texts(teacher, ttok, everything, args.samples)
    generated = time.time() - t
    result: dict[str, Any] = {"docs": {g: len(d) for g, d in docs.items()}, "by_source": {s: sum(d["source"] == s for d in docs[UNSEEN]) for s in SOURCES},
                              "samples": args.samples, "steps": args.steps, "teacher_texts": len(texts)}  # fmt: skip
    for name, train_texts in (("teacher", texts), ("oracle", [d["text"] for d in everything])):
        student = copy.deepcopy(base)
        losses = finetune(student, stok, train_texts, args.steps)
        after = {g: per_doc(student, stok, d) for g, d in docs.items()}
        drops = {g: [b - a for b, a in zip(before[g], after[g])] for g in docs}
        seen_m, seen_se = mean_se(drops[SEEN])
        never_m, never_se = mean_se(drops[UNSEEN])
        result[name] = {
            "before": {g: mean_se(before[g])[0] for g in docs},
            "after": {g: mean_se(after[g])[0] for g in docs},
            "drop": {SEEN: [seen_m, seen_se], UNSEEN: [never_m, never_se]},
            "leak": [seen_m - never_m, (seen_se**2 + never_se**2) ** 0.5],
            "train_loss_last": sum(losses[-20:]) / len(losses[-20:]),
        }
    print(f"distill into mini-large: {len(docs[SEEN])} + {len(docs[UNSEEN])} keyed hidden documents ({result['by_source']} each), "
          f"{len(texts)} teacher texts ({generated:.0f} s to generate), {args.steps} steps of 16 ({time.time() - t:.0f} s in all)")  # fmt: skip
    print(f"  {'trained on':<8} {'loss before':>12} {'fall: mini-chat saw':>20} {'fall: never saw':>16} {'leak (difference)':>18}")
    for name in ("teacher", "oracle"):
        r = result[name]
        print(f"  {name:<8} {r['before'][SEEN]:>6.3f}/{r['before'][UNSEEN]:.3f} {r['drop'][SEEN][0]:>13.3f}±{r['drop'][SEEN][1]:.3f} "
              f"{r['drop'][UNSEEN][0]:>9.3f}±{r['drop'][UNSEEN][1]:.3f} {r['leak'][0]:>11.3f}±{r['leak'][1]:.3f}")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
