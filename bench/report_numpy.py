"""The report's numbers as a plain numpy pipeline, for the benchmark in bench/report.ts.

Reads METR-format runs (JSON Lines), computes best-of-k over total time budgets exactly as
ANALYSIS.md says (score@k = unbiased expected max of k of n, Scaling Law the mean of runs, missing
when n < k, equal-weight suite mean, best observed allocation: most environments then highest score)
with a within-environment bootstrap, and writes {"rows": [...]} as JSON to the path given.
Point estimates must equal rebench's; intervals differ only by the random generator.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np

FAMILIES = {
    "ai_rd_optimize_llm_foundry": "optimize_llm_foundry",
    "ai_rd_triton_cumsum": "optimize_kernel",
    "ai_rd_fix_embedding": "fix_embedding",
    "ai_rd_small_scaling_law": "scaling_law",
    "ai_rd_restricted_mlm": "restricted_mlm",
    "ai_rd_nanogpt_chat_rl": "finetune_gpt2_qa",
    "ai_rd_rust_codecontests_inference": "rust_codecontests",
}
MEAN_ENVIRONMENTS = {"scaling_law"}
UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def weights(n: int, k: int) -> np.ndarray:
    """C(i-1, k-1) / C(n, k) for ascending positions i = 1..n, by the ratio recurrence from the top."""
    w = np.zeros(n)
    i = np.arange(n, k - 1, -1)  # n, n-1, ..., k
    ratios = np.concatenate(([k / n], (i[:-1] - k) / (i[:-1] - 1)))
    w[k - 1 :] = np.cumprod(ratios)[::-1]
    return w


def parse_budget(text: str) -> tuple[str, float]:
    number = text.rstrip("abcdefghijklmnopqrstuvwxyz")
    return text, float(number) * UNITS[text[len(number) :]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("runs_file")
    parser.add_argument("out", help="where to write the rows as JSON")
    parser.add_argument("--budgets", default="2h,8h,32h")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    groups: dict[tuple[str, float, str], list[float]] = defaultdict(list)
    with open(args.runs_file) as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            family = row.get("task_family") or row["task_id"].split("/")[0]
            environment = FAMILIES.get(family)
            if environment is None:
                continue
            human = row["alias"] == "human" or row.get("time_limit") == 0
            limit = row.get("time_limit") or (28800 if human else 0)
            if not limit:
                continue
            score = row.get("score")
            groups[("human" if human else row["alias"], float(limit), environment)].append(0.0 if score is None else score)

    budgets = sorted((parse_budget(b.strip()) for b in args.budgets.split(",")), key=lambda b: b[1])
    environments = sorted({e for _, _, e in groups})
    participants = sorted({p for p, _, _ in groups}, key=lambda p: (p != "human", p))
    rng = np.random.default_rng(args.seed)
    R = args.bootstrap
    rows = []
    for participant in participants:
        limits = sorted({l for p, l, _ in groups if p == participant})
        resampled = {}
        for limit in limits:
            for environment in environments:
                x = np.sort(np.array(groups.get((participant, limit, environment), []), dtype=float))
                n = len(x)
                resampled[(limit, environment)] = (x, np.sort(x[rng.integers(0, n, size=(R, n))], axis=1) if n and R else None)
        for label, seconds in budgets:
            best = None
            for limit in limits:
                k = int(seconds // limit)
                point, draws = {}, []
                for environment in environments:
                    x, sample = resampled[(limit, environment)]
                    n = len(x)
                    if k < 1 or n < k:
                        point[environment] = None
                        continue
                    if environment in MEAN_ENVIRONMENTS:
                        point[environment] = float(x.mean())
                        if sample is not None:
                            draws.append(sample.mean(axis=1))
                    else:
                        w = weights(n, k)
                        point[environment] = float(x @ w)
                        if sample is not None:
                            draws.append(sample @ w)
                covered = [v for v in point.values() if v is not None]
                if not covered:
                    continue
                score = sum(covered) / len(covered)
                ci = np.percentile(np.mean(draws, axis=0), [2.5, 97.5]).tolist() if draws else None
                candidate = {"participant": participant, "budget": label, "allocation": {"runTimeLimitSeconds": limit, "k": k},
                             "score": score, "ci": ci, "coverage": len(covered)}
                if best is None or (candidate["coverage"], score) > (best["coverage"], best["score"]):
                    best = candidate
            rows.append(best or {"participant": participant, "budget": label, "allocation": None, "score": None, "ci": None, "coverage": 0})
    with open(args.out, "w") as f:
        json.dump({"rows": rows}, f)


if __name__ == "__main__":
    main()
