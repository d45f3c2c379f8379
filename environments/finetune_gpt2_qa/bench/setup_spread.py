"""Where a finetune_gpt2_qa score's spread across set-ups comes from, for fixed models.

    PYTHONPATH=python python environments/finetune_gpt2_qa/bench/setup_spread.py ROOT \
        --model start=START.pt:'{"temperature": 1.0, "max_new_tokens": 32}' \
        --model reference=REF.pt:'{"temperature": 0.3, "top_k": 40, "max_new_tokens": 16, "min_new_tokens": 1}' \
        [--setups 4] [--seeds 4] [--supervised-once] [--out spread.json]

ROOT is a folder that ``bench/trial.sh`` made (ROOT/protected: the set-up's state, assets and grader;
ROOT/workspace/base_model). Each of ``--setups`` virtual set-ups draws what a run's set-up draws from its secret:
the hidden tasks (``tasks.generate`` on the keyed corpus's test split, found in ``$REBENCH_HOME/assets``), the
base reference's responses and the supervised reference (150 SFT steps on ROOT's visible tasks under its own
seed, then its responses). Set-up 0 is ROOT's own (its hidden tasks and references as stored). Each model is then
scored as the grader scores (the mean win probability against both references) under ``--seeds`` sampling seeds.

What it prints, per model: the std across seeds within a set-up (the policy's own sampling: what scoring k samples
a prompt divides by about sqrt(k)), and the std across set-ups of a one-sample score and of a ``--seeds``-sample
score (the hidden set's and the references' draw as well). The spread of a model's own training (the start's
judge calls, the reference's rounds) is not in it: that is what a calibration adds. It reads the hidden set and
the references, which no solution may: a measuring tool only.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("root", type=Path)
    p.add_argument("--model", action="append", required=True, help="NAME=PATH:SETTINGS_JSON (the settings the grader samples it with)")
    p.add_argument("--setups", type=int, default=4)
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--supervised-once", action="store_true", help="train the supervised reference once (set-up 1's) and reuse it: leaves its training draw out")
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    protected = args.root / "protected"
    sys.path.insert(0, str(protected / "grader"))
    import tasks as taskgen
    from judge import load_judge
    from settings import PROFILES

    import torch

    from rebench_env.assets import assets_home
    from rebench_env.chat import GenerationSettings, sample, sft
    from rebench_env.gpt import load_gpt
    from rebench_env.tokenizer import load_tokenizer

    torch.set_num_threads(args.threads)
    state, assets = protected / "state", protected / "assets"
    profile = PROFILES[json.loads((state / "grading.json").read_text())["profile"]]
    visible = list(taskgen.read_tasks(state / "visible_tasks.jsonl"))
    tok = load_tokenizer(assets / profile.tokenizer)
    base = load_gpt(args.root / "workspace" / "base_model" / "model.pt")
    models: dict[str, tuple[Any, GenerationSettings]] = {}
    for spec in args.model:
        name, rest = spec.split("=", 1)
        path, settings = rest.split(":", 1)
        models[name] = (load_gpt(Path(path)).eval(), GenerationSettings.parse(json.loads(settings)))
    sources = None
    supervised = None
    rows: list[dict[str, Any]] = []
    for v in range(args.setups):
        started = time.time()
        if v == 0:
            hidden = list(taskgen.read_tasks(state / "hidden_tasks.jsonl"))
            refs = {}
            for name in ("base", "supervised"):
                by_id = {r["id"]: r["response"] for r in map(json.loads, (state / "references" / f"{name}.jsonl").read_text().splitlines())}
                refs[name] = [by_id[t.id] for t in hidden]
        else:
            if sources is None:
                sources = taskgen.read_sources(assets_home() / profile.corpus, "test")
            hidden = taskgen.generate(profile.hidden, 7919 * v, sources, taskgen.elements(), "h")
            prompts = [t.prompt for t in hidden]
            plain = GenerationSettings(max_new_tokens=profile.max_new_tokens)
            refs = {"base": sample(base, tok, prompts, plain, seed=104729 * v, batch_size=profile.batch_size)}
            if supervised is None or not args.supervised_once:
                supervised = copy.deepcopy(base)
                sft(supervised, tok, [t.prompt for t in visible], [t.answer for t in visible], profile.sft_steps, lr=profile.sft_lr, seed=v)
                supervised.eval()
            refs["supervised"] = sample(supervised, tok, prompts, plain, seed=15485863 * v, batch_size=profile.batch_size)
        judge = load_judge(assets / profile.lm / "model.pt", assets / profile.judge_tokenizer, {t.prompt: t for t in hidden}, visible=visible)
        judge.memo = {}
        prompts = [t.prompt for t in hidden]
        refs_right = {n: sum(taskgen.correctness(t, r, judge.common) > 0 for t, r in zip(hidden, rs)) for n, rs in refs.items()}
        row: dict[str, Any] = {"setup": v, "references_correct": refs_right, "kinds": {k: sum(t.kind == k for t in hidden) for k in taskgen.KINDS}}
        for name, (model, settings) in models.items():
            scores, right = [], []
            for s in range(args.seeds):
                with torch.no_grad():
                    responses = sample(model, tok, prompts, settings, seed=1000 * v + s, batch_size=profile.batch_size)
                wins = [statistics.mean(judge.win_probabilities(prompts, list(zip(responses, rs)))) for rs in refs.values()]
                scores.append(statistics.mean(wins))
                right.append(sum(taskgen.correctness(t, r, judge.common) > 0 for t, r in zip(hidden, responses)))
            row[name] = {"scores": [round(x, 4) for x in scores], "mean": round(statistics.mean(scores), 4), "correct": right}
        row["seconds"] = round(time.time() - started)
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary: dict[str, Any] = {}
    for name in models:
        within = [statistics.stdev(r[name]["scores"]) for r in rows if len(r[name]["scores"]) > 1]
        one = [r[name]["scores"][0] for r in rows]
        many = [r[name]["mean"] for r in rows]
        summary[name] = {
            "std_within_setup_one_sample": round(statistics.mean(within), 4) if within else None,
            "std_across_setups_one_sample": round(statistics.stdev(one), 4) if len(one) > 1 else None,
            f"std_across_setups_{args.seeds}_samples": round(statistics.stdev(many), 4) if len(many) > 1 else None,
            "mean": round(statistics.mean(many), 4),
        }
    print(json.dumps({"summary": summary}, indent=1), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
