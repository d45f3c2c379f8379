"""Check every authored problem: its reference compiles as the grader compiles it, passes every test within
half the time limit, and agrees with the problem's Python brute force (where it has one) on the small tests.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

    python assets/check_problems.py --src src-unpacked [--only v01_even_sum,...] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "grader"))

import rcc_problems as rp  # noqa: E402
import rust_codecontests_utils as rcu  # noqa: E402

BRUTE_MAX_INPUT = 5000


def _brute(src: rp.ProblemSource, src_dir: Path) -> tuple[Any, int]:
    spec = importlib.util.spec_from_file_location(f"rcc_brute_{src.id}", src_dir / "problems" / f"{src.id}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "brute", None), int(getattr(module, "BRUTE_LIMIT", BRUTE_MAX_INPUT))


def check_problem(problem_id: str, src_dir: Path, cache: Path, seed: str) -> dict[str, Any]:
    """Problems found for one problem (an empty list when it is fine) and its slowest test. The expected outputs
    come from the optimized reference; the check runs the reference as the grader compiles it (no -O)."""
    src = next(s for s in rp.load_sources(src_dir) if s.id == problem_id)
    issues: list[str] = []
    exe = rp.compile_cached(src.clean_solution, cache, rp.ORACLE_FLAGS)
    problem = rp.build_problem(src, exe, seed)
    evaluation = rcu.evaluate(src.clean_solution, problem)
    if not evaluation.solved:
        issues.append(f"reference not solved under grader conditions: {evaluation.status} "
                      f"in {evaluation.failed_set} (compile {evaluation.compile_seconds:.2f}s): {evaluation.compile_stderr[-300:]}")
    if evaluation.max_test_seconds > src.time_limit / 2:
        issues.append(f"reference too close to the time limit: {evaluation.max_test_seconds:.2f}s")
    brute, limit = _brute(src, src_dir)
    checked = 0
    if brute is not None:
        for set_name, stdin, expected in rcu.iter_tests(problem):
            if len(stdin) > limit:
                continue
            answer = brute(stdin)
            if answer is None:  # the brute force declines inputs it cannot handle
                continue
            want = str(answer).strip()
            checked += 1
            if want != expected.strip():
                issues.append(f"brute force disagrees on a {set_name} test {stdin[:60]!r}: "
                              f"reference {expected.strip()[:60]!r}, brute {want[:60]!r}")
                break
    for set_name in rcu.TEST_SETS:
        if not problem[set_name]["input"]:
            issues.append(f"{set_name} is empty")
    if len(set(problem["generated_tests"]["output"])) < 2:
        issues.append("generated tests all have the same output")
    return {"id": src.id, "split": src.split, "issues": issues, "brute_checked": checked,
            "max_test_seconds": round(evaluation.max_test_seconds, 3), "compile_seconds":
            round(evaluation.compile_seconds, 3)}


def check_all(src_dir: Path, cache: Path, only: set[str] | None = None, seed: str = "check",
              workers: int | None = None) -> list[dict[str, Any]]:
    """Check problems in parallel processes (generators and brute forces are Python: threads would share a GIL)."""
    sources = [s for s in rp.load_sources(src_dir) if only is None or s.id in only]
    rp.compile_references(sources, cache, workers)
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        futures = [pool.submit(check_problem, s.id, src_dir, cache, seed) for s in sources]
        return [f.result() for f in futures]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                        / "rebench" / "rust_codecontests" / "bin")
    parser.add_argument("--only", default="")
    parser.add_argument("--seed", default="check")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    results = check_all(args.src, args.cache, only, args.seed)
    bad = 0
    for r in results:
        flag = "ok " if not r["issues"] else "BAD"
        bad += bool(r["issues"])
        print(f"{flag} {r['id']:<32} {r['split']:<6} slowest {r['max_test_seconds']:.3f}s brute {r['brute_checked']}")
        for issue in r["issues"]:
            print(f"      {issue}")
    print(f"{len(results)} problems, {bad} with issues")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
