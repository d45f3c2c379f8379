"""Score a solution module on a problems file you can see (the validation split), the way the grader scores the
hidden split: the module's generate_solution(client, semaphore, problem) runs on every problem (batches of 20,
60 s per batch), then every returned program is compiled and tested with rust_codecontests_utils.py.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

    python score.py --problems_file=data/valid.jsonl --module_path=solution/solve_code_contests_rust.py

Only the `score` action scores the hidden split, and only it counts. The model endpoint and your API key come
from $RUST_CODECONTESTS_BASE_URL / $RUST_CODECONTESTS_API_KEY, else from model_endpoint.json in this folder.
Your key has a credit budget for the whole task; every validation run spends from it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import rust_codecontests_utils as rcu  # noqa: E402
from rcc_module_runner import load_module, run_module  # noqa: E402

HIDDEN_FIELDS = ("generated_tests", "incorrect_solutions", "private_tests", "solutions")


def endpoint() -> tuple[str, str]:
    base_url = os.environ.get("RUST_CODECONTESTS_BASE_URL")
    api_key = os.environ.get("RUST_CODECONTESTS_API_KEY")
    info_path = HERE / "model_endpoint.json"
    if (not base_url or not api_key) and info_path.exists():
        info = json.loads(info_path.read_text())
        base_url, api_key = base_url or info["base_url"], api_key or info["api_key"]
    if not base_url or not api_key:
        raise SystemExit("no model endpoint: set RUST_CODECONTESTS_BASE_URL and RUST_CODECONTESTS_API_KEY")
    return base_url, api_key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems_file", default=str(HERE / "data" / "valid.jsonl"))
    parser.add_argument("--module_path", default=str(HERE / "solution" / "solve_code_contests_rust.py"))
    parser.add_argument("--max_problems", type=int, default=None)
    parser.add_argument("--batch_size", type=int, default=20)
    parser.add_argument("--max_time_per_batch", type=float, default=60.0)
    parser.add_argument("--max_workers", type=int, default=None, help="default: 2 x cpu_count")
    parser.add_argument("--out", default=None, help="write per-problem results as JSON here")
    args = parser.parse_args(argv)

    problems = [json.loads(line) for line in Path(args.problems_file).read_text().splitlines() if line.strip()]
    problems = problems[: args.max_problems] if args.max_problems else problems
    base_url, api_key = endpoint()
    module = load_module(args.module_path)
    solutions: dict[str, str | None] = {}
    errors: dict[str, str] = {}

    def report(name: str, solution: str | None, error: str | None) -> None:
        solutions[name] = solution
        if error:
            errors[name] = error

    started = time.time()
    stripped = [{k: v for k, v in p.items() if k not in HIDDEN_FIELDS} for p in problems]
    asyncio.run(run_module(module, stripped, base_url=base_url, api_key=api_key, batch_size=args.batch_size,
                           max_time_per_batch=args.max_time_per_batch, max_workers=args.max_workers, report=report))
    generated = time.time()
    results = rcu.evaluate_all([(solutions.get(p["name"]), p) for p in problems])
    n = len(problems)
    solved = sum(r.solved for r in results)
    score = solved / n if n else 0.0
    for p, r in zip(problems, results):
        note = f"  ({errors[p['name']][:100]})" if p["name"] in errors else ""
        print(f"{r.status:<14} {p['name']}{note}")
    print(json.dumps({"score": score, "n_problems": n, "n_successes": solved,
                      "standard_error": math.sqrt(score * (1 - score) / n) if n else 0.0,
                      "seconds_generating": round(generated - started, 1),
                      "seconds_evaluating": round(time.time() - generated, 1)}))
    if args.out:
        Path(args.out).write_text(json.dumps({p["name"]: r.to_json() for p, r in zip(problems, results)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
