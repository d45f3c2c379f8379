"""Measure the judge's noise: the same pair judged repeatedly, in both orders, and the spread of a win rate.

    python environments/finetune_gpt2_qa/bench/judge_noise.py --state PROTECTED/state --assets PROTECTED/assets \
        [--lm mini-small --tokenizer tokenizer-bpe4k] [--repeats 20] [--out noise.json]

Reads a set-up run's hidden tasks and its two references' responses (``state/references``) and judges each
base response against the supervised response to the same prompt ``--repeats`` times with the first shown
first and as many times swapped (the judge's own random order still applies on top). Prints and writes:

- ``self_agreement``: the mean share of repeats of a pair that agree with that pair's majority verdict;
- ``order_consistency``: P(verdict(a, b) != verdict(b, a)) over all repeats (1.0 = no position effect);
- ``flippable``: the share of pairs whose verdict is not the same in every repeat;
- ``win_rate_std``: the standard deviation over repeats of the base's win rate on the whole set (the judge's
  part of a score's noise, with the responses held fixed).

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grader"))
from judge import load_judge  # noqa: E402
from tasks import read_tasks  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--state", required=True, type=Path)
    p.add_argument("--assets", required=True, type=Path)
    p.add_argument("--lm", default="mini-small")
    p.add_argument("--tokenizer", default="tokenizer-bpe4k")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    tasks = list(read_tasks(args.state / "hidden_tasks.jsonl"))
    refs = {}
    for name in ("base", "supervised"):
        refs[name] = {json.loads(line)["id"]: json.loads(line)["response"] for line in (args.state / "references" / f"{name}.jsonl").read_text().splitlines()}
    visible = list(read_tasks(args.state / "visible_tasks.jsonl"))
    judge = load_judge(args.assets / args.lm / "model.pt", args.assets / args.tokenizer, {t.prompt: t for t in tasks}, visible=visible)
    forward = [[judge.first_preferred(t.prompt, refs["base"][t.id], refs["supervised"][t.id]) for _ in range(args.repeats)] for t in tasks]
    backward = [[not judge.first_preferred(t.prompt, refs["supervised"][t.id], refs["base"][t.id]) for _ in range(args.repeats)] for t in tasks]
    both = [f + b for f, b in zip(forward, backward)]
    agreement = statistics.mean(max(sum(v), len(v) - sum(v)) / len(v) for v in both)
    consistent = statistics.mean(f == b for fs, bs in zip(forward, backward) for f, b in zip(fs, bs))
    flippable = statistics.mean(0 < sum(v) < len(v) for v in both)
    rates = [statistics.mean(v[r] for v in both) for r in range(2 * args.repeats)]
    out = {"pairs": len(tasks), "repeats_each_order": args.repeats, "self_agreement": round(agreement, 4), "order_consistency": round(consistent, 4),
           "flippable": round(flippable, 4), "base_win_rate_mean": round(statistics.mean(rates), 4), "win_rate_std": round(statistics.pstdev(rates), 4)}  # fmt: skip
    print(json.dumps(out, indent=1))
    if args.out:
        args.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
