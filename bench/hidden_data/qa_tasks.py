"""Does the shipped ``mini-chat`` answer finetune_gpt2_qa's hidden prompts better because it trained on them?

finetune_gpt2_qa mini hands ``mini-chat`` to the agent as its starting policy and draws its hidden prompts
(``define``: a GCIDE headword's gloss; ``verse``: a KJV verse's next words) from the keyed test split, 96%
of whose documents mini-chat trained on. This makes the two kinds from documents mini-chat trained on and
from documents it never saw (``common.py``), answers them greedily with mini-chat as shipped and after the
supervised reference's recipe (``sft``: 150 steps at 3e-4 on visible tasks' true answers, visible tasks made
from keyed train documents outside both groups), and scores them with the judge's own ``correctness``.

    .venv/bin/python bench/hidden_data/qa_tasks.py [--tasks 300] [--out FILE]

On the 2-core machine under other work (load average 10 to 17, 2026-12-06) it took 46 minutes, 15 of CPU;
the output is ``results-2026-12-06/qa.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from common import ROOT, SEEN, UNSEEN, key, load_corpus, load_policy

from rebench_env.assets.qa_text import elements, read_sources
from rebench_env.chat import ALPACA, GenerationSettings, sample, sft

sys.path.insert(0, str(ROOT / "environments" / "finetune_gpt2_qa" / "grader"))
import tasks as taskgen  # noqa: E402  (finetune_gpt2_qa's generator and correctness)


def sources_of(docs: list[dict[str, Any]], limit: int) -> dict[str, list[Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        with open(Path(tmp) / "test.jsonl", "w", encoding="utf-8") as f:
            for d in docs:
                f.write(json.dumps(d) + "\n")
        return read_sources(Path(tmp), "test", limit_words=limit, limit_verses=limit)


def hidden_kind_tasks(docs: list[dict[str, Any]], n: int, seed: int) -> list[Any]:
    """``n`` define and ``n`` verse tasks (fewer where the documents have fewer), no instruction twice."""
    src = sources_of(docs, 100000)
    rng = random.Random(seed)
    out, seen = [], set()
    for kind, make, pool in (("define", taskgen._define, src["definitions"]), ("verse", taskgen._verse, src["verses"])):
        misses = 0
        count = 0
        while count < n and pool and misses < 200:
            instruction, answer, lo, hi = make(rng, pool)
            if instruction in seen:
                misses += 1
                continue
            misses = 0
            seen.add(instruction)
            out.append(taskgen.Task(f"{kind[0]}{count}", kind, instruction, answer, lo, hi))
            count += 1
    return out


def correctness(model: torch.nn.Module, tok: Any, tasks: list[Any]) -> dict[str, Any]:
    settings = GenerationSettings(temperature=0.0, max_new_tokens=32)
    responses = sample(model, tok, [ALPACA.format(instruction=t.instruction) for t in tasks], settings, seed=0)
    out: dict[str, Any] = {}
    for kind in ("define", "verse"):
        values = [taskgen.correctness(t, r) for t, r in zip(tasks, responses) if t.kind == kind]
        if values:
            mean = sum(values) / len(values)
            var = sum((v - mean) ** 2 for v in values) / max(1, len(values) - 1)
            out[kind] = {"n": len(values), "mean": mean, "se": (var / len(values)) ** 0.5, "any": sum(v > 0 for v in values) / len(values)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home")
    parser.add_argument("--tasks", type=int, default=300, help="tasks per kind and group (default 300)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    corpus = load_corpus(args.home)
    model, tok = load_policy(args.home)
    groups = {g: hidden_kind_tasks(docs, args.tasks, seed=7) for g, docs in corpus.groups.items()}
    excluded = {key(d) for docs in corpus.groups.values() for d in docs}
    visible_docs = [d for d in corpus.keyed["train"] if key(d) in corpus.trained and key(d) not in excluded]
    visible = taskgen.generate(20000, 11, sources_of(visible_docs, 4000), elements(), "v")
    result: dict[str, Any] = {}
    t = time.time()
    result["base"] = {g: correctness(model, tok, ts) for g, ts in groups.items()}
    sft(model, tok, [v.prompt for v in visible], [v.answer for v in visible], 150, lr=3e-4, seed=5)
    result["sft"] = {g: correctness(model, tok, ts) for g, ts in groups.items()}
    print(f"finetune_gpt2_qa's hidden kinds, greedy, correctness ± s.e. (share with any credit) ({time.time() - t:.0f} s)")
    print(f"  {'policy':<6} {'kind':<7} {'trained on':>24} {'never saw':>24}")
    for policy in ("base", "sft"):
        for kind in ("define", "verse"):
            cells = []
            for g in (SEEN, UNSEEN):
                c = result[policy][g].get(kind)
                cells.append(f"{c['mean']:.3f}±{c['se']:.3f} ({c['any']:.0%}, {c['n']})" if c else "-")
            print(f"  {policy:<6} {kind:<7} {cells[0]:>24} {cells[1]:>24}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
