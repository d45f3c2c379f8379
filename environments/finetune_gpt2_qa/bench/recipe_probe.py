"""Probe a reference recipe outside the rules: rounds of best-of-8 and SFT on a set-up's visible prompts, with the
judge in this process (no budget) and the grader's score on the hidden prompts after every round.

    PYTHONPATH=python python environments/finetune_gpt2_qa/bench/recipe_probe.py ROOT [--lr 3e-5] [--rounds 4]
        [--prompts 360] [--epochs 2] [--select exact|noisy] [--final-temperatures 0.5,0.7,1.0] [--save PATH]
        [--k 8] [--replay] [--kinds element,arithmetic] [--device cuda]

ROOT is a folder that ``bench/trial.sh`` made (ROOT/protected: the set-up's state, assets and grader;
ROOT/workspace/base_model). Each round samples 8 responses (temperature 1.0, top-k 40, 16 new tokens) for
--prompts visible prompts drawn evenly over the five kinds, keeps one per prompt, and fine-tunes on the kept
ones; then it samples the hidden prompts at the reference's scoring settings (0.3, top-k 40, 4 to 16 tokens)
and prints the score against the set-up's references, by kind. ``--select exact`` keeps the sample with the
highest rubric total if its win probability over "Hello." is above 0.8 (what a noiseless judge allows);
``--select noisy`` does what the reference can do through ``evaluate``: a bracket of noisy verdicts, then 3
verdicts against "Hello.". It reads the hidden set and the rubric, which no solution may: a design tool only.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

from rebench_env.chat import GenerationSettings, sample, sft
from rebench_env.gpt import load_gpt
from rebench_env.tokenizer import load_tokenizer

EXPLORE = {"temperature": 1.0, "top_k": 40, "max_new_tokens": 16}
SCORING = {"temperature": 0.3, "top_k": 40, "max_new_tokens": 16, "min_new_tokens": 4}
BASELINE = "Hello."


def bracket(judge, prompts: list[str], candidates: list[list[str]]) -> list[str]:
    """Single elimination by noisy verdicts, one list of candidates per prompt."""
    alive = [list(c) for c in candidates]
    while any(len(a) > 1 for a in alive):
        asks = [(i, j) for i, a in enumerate(alive) for j in range(0, len(a) - 1, 2)]
        wins = judge.judge([prompts[i] for i, _ in asks], [(alive[i][j], alive[i][j + 1]) for i, j in asks])
        nxt: list[list[str]] = [[] for _ in alive]
        for (i, j), w in zip(asks, wins):
            nxt[i].append(alive[i][j] if w else alive[i][j + 1])
        for i, a in enumerate(alive):
            if len(a) == 1:
                nxt[i] = a
            elif len(a) % 2 == 1:
                nxt[i].append(a[-1])
        alive = nxt
    return [a[0] for a in alive]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("root", type=Path)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--prompts", type=int, default=360)
    p.add_argument("--epochs", type=float, default=2.0)
    p.add_argument("--select", choices=["exact", "noisy"], default="exact")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--final-temperatures", default="", help="comma-separated temperatures to score the last model at as well (top-k 40, 4 to 16 tokens)")
    p.add_argument("--save", type=Path, help="save the last model here")
    p.add_argument("--k", type=int, default=8, help="samples per prompt")
    p.add_argument("--replay", action="store_true", help="train each round on every winner kept so far (the latest per prompt), not this round's alone")
    p.add_argument("--kinds", default="", help="comma-separated kinds to draw prompts from, evenly (default: all five; 'product': arithmetic with *)")
    p.add_argument("--score-min-new-tokens", type=int, default=4, help="min_new_tokens of the scoring settings (the reference's --score-min-new-tokens)")
    p.add_argument("--device", default="cpu", help="where the policy samples and trains (cuda on a GPU machine; the judge stays on the CPU)")
    args = p.parse_args()
    protected = args.root / "protected"
    sys.path.insert(0, str(protected / "grader"))
    from judge import load_judge
    from settings import PROFILES
    from tasks import read_tasks

    torch.set_num_threads(args.threads)
    profile = PROFILES[json.loads((protected / "state" / "grading.json").read_text())["profile"]]
    visible = list(read_tasks(protected / "state" / "visible_tasks.jsonl"))
    hidden = list(read_tasks(protected / "state" / "hidden_tasks.jsonl"))
    assets = protected / "assets"
    tok = load_tokenizer(assets / profile.tokenizer)
    judge = load_judge(assets / profile.lm / "model.pt", assets / profile.judge_tokenizer, {t.prompt: t for t in visible + hidden}, visible=visible)
    judge.rng = random.Random(1)
    references = {}
    for name in ("base", "supervised"):
        rows = [json.loads(line) for line in (protected / "state" / "references" / f"{name}.jsonl").read_text().splitlines()]
        references[name] = {r["id"]: r["response"] for r in rows}
    model = load_gpt(args.root / "workspace" / "base_model" / "model.pt").to(args.device)
    hidden_prompts = [t.prompt for t in hidden]

    scoring = {**SCORING, "min_new_tokens": args.score_min_new_tokens}

    def score(tag: str, settings: dict = scoring) -> None:
        model.eval()
        responses = sample(model, tok, hidden_prompts, GenerationSettings.parse(settings), seed=99, batch_size=profile.batch_size)
        out: dict[str, float] = {}
        for name, reference in references.items():
            wins = judge.win_probabilities(hidden_prompts, [(r, reference[t.id]) for t, r in zip(hidden, responses)])
            kinds: dict[str, list[float]] = defaultdict(list)
            for t, w in zip(hidden, wins):
                kinds[t.kind].append(w)
            out[name] = round(sum(wins) / len(wins), 4)
            out.update({f"{name}.{k}": round(sum(v) / len(v), 3) for k, v in sorted(kinds.items())})
        print(json.dumps({"at": tag, "score": round((out["base"] + out["supervised"]) / 2, 4), **out}), flush=True)

    rng = random.Random(0)
    by_kind: dict[str, list] = defaultdict(list)
    for t in visible:
        kind = "product" if t.kind == "arithmetic" and "*" in t.instruction else t.kind
        wanted = args.kinds.split(",") if args.kinds else []
        if not wanted or kind in wanted or t.kind in wanted:
            by_kind[t.kind if t.kind in wanted else kind].append(t)
    replayed: dict[str, tuple] = {}
    score("base")
    for r in range(args.rounds):
        started = time.time()
        batch = [t for k in sorted(by_kind) for t in rng.sample(by_kind[k], min(len(by_kind[k]), args.prompts // len(by_kind)))]
        prompts = [t.prompt for t in batch]
        model.eval()
        samples = [sample(model, tok, prompts, GenerationSettings.parse(EXPLORE), seed=1000 * r + i, batch_size=profile.batch_size) for i in range(args.k)]
        candidates = [[s[i] for s in samples if re.search(r"\w", s[i])] or [s[i] for s in samples] for i in range(len(batch))]
        if args.select == "noisy":
            kept = [(t, b) for t, b in zip(batch, bracket(judge, prompts, candidates)) if re.search(r"\w", b)]
            for _ in range(3):
                wins = judge.judge([t.prompt for t, _ in kept], [(b, BASELINE) for _, b in kept]) if kept else []
                kept = [pair for pair, w in zip(kept, wins) if w]
        else:
            best = [max(c, key=lambda x, q=t.prompt: judge.total(q, x)) for t, c in zip(batch, candidates)]
            kept = [(t, b) for t, b in zip(batch, best) if re.search(r"\w", b) and judge.win_probability(t.prompt, b, BASELINE) > 0.8]
        kinds: dict[str, int] = defaultdict(int)
        for t, _ in kept:
            kinds[t.kind] += 1
        if args.replay:
            replayed.update({t.prompt: (t, b) for t, b in kept})
            kept = list(replayed.values())
        steps = max(1, int(args.epochs * len(kept) // 16))
        model.train()
        losses = sft(model, tok, [t.prompt for t, _ in kept], [b for _, b in kept], steps, lr=args.lr, batch_size=16, seed=r) if kept else [float("nan")]
        print(json.dumps({"round": r, "kept": len(kept), "by_kind": dict(kinds), "steps": steps, "loss": round(losses[-1], 3),
                          "seconds": round(time.time() - started)}), flush=True)  # fmt: skip
        score(f"round {r}")
    for temperature in [float(t) for t in args.final_temperatures.split(",") if t]:
        score(f"last round at temperature {temperature}", {**scoring, "temperature": temperature})
    if args.save:
        from rebench_env.gpt import save_gpt

        save_gpt(model, args.save)


if __name__ == "__main__":
    main()
