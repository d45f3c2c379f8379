"""Build the model service's candidate pools: for every problem, the reference, the hand-written alternatives and
mutants of the reference, each labelled by running it against the problem's tests.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

Labels (the service's odds are per label, see grader/rcc_policy.py):
  correct        passes every test, with generated tests drawn from three different seeds
  wrong_public   fails an example (public test)
  wrong_hidden   passes the examples, fails a private or generated test (a subtle or edge-case bug)
  too_slow       passes the examples, exceeds the time limit on a hidden test
  compile_error  does not compile; `parent` names the candidate it was broken from (what a repair returns)
Candidates whose verdict depends on the seed of the generated tests are dropped, so the labels hold for any
re-randomized test set the grader draws. Run at authoring time; the result goes into the source archive:

    python assets/build_pools.py --src src-unpacked [--only ID,...] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "grader"))
sys.path.insert(0, str(HERE))

import mutate  # noqa: E402
import rcc_problems as rp  # noqa: E402
import rust_codecontests_utils as rcu  # noqa: E402

SEEDS = ("pool-a", "pool-b", "pool-c")
CAPS = {"correct": 3, "wrong_hidden": 7, "wrong_public": 4, "too_slow": 3, "compile_error": 6}


def normalized(code: str) -> str:
    return re.sub(r"\s+", " ", code).strip()


def label(code: str, problems: list[dict[str, Any]]) -> dict[str, Any]:
    """Run ``code`` on the problem instances (one per seed) and label it; `flaky` when seeds disagree."""
    work = tempfile.mkdtemp(prefix="rcc-pool-")
    try:
        compiled = rcu.compile_rust(code, work)
        if not compiled.ok:
            return {"label": "compile_error", "stderr": compiled.stderr[-600:]}
        assert compiled.exe is not None
        first = rcu.evaluate_exe(compiled.exe, problems[0], rcu.Evaluation("solved", compiled=True))
        if first.failed_set == "public_tests":
            return {"label": "wrong_public", "status": first.status}
        if first.failed_set == "private_tests":
            return {"label": "too_slow" if first.status == "timeout" else "wrong_hidden",
                    "status": first.status, "failed_set": "private_tests"}
        outcomes = [first] + [rcu.evaluate_exe(compiled.exe, p, rcu.Evaluation("solved", compiled=True),
                                               sets=("generated_tests",)) for p in problems[1:]]
        if all(o.solved for o in outcomes):
            return {"label": "correct", "max_test_seconds": max(o.max_test_seconds for o in outcomes)}
        if any(o.solved for o in outcomes):
            return {"label": "flaky"}
        return {"label": "too_slow" if first.status == "timeout" else "wrong_hidden", "status": first.status,
                "failed_set": "generated_tests"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_pool(src: rp.ProblemSource, exe: Path, workers: int) -> dict[str, Any]:
    rng = random.Random(f"pools/{src.id}")
    problems = [rp.build_problem(src, exe, seed) for seed in SEEDS]
    raw: list[dict[str, Any]] = [{"op": "reference", "code": src.clean_solution, "line": 0}]
    raw += [{"op": f"alt:{name}", "code": mutate.clean(code), "line": 0} for name, code in sorted(src.alts.items())]
    raw += [{"op": m.op, "code": m.code, "line": m.line} for m in mutate.mutants(src.solution, rng)]
    seen: set[str] = set()
    unique = []
    for cand in raw:
        key = normalized(cand["code"])
        if key not in seen:
            seen.add(key)
            unique.append(cand)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        verdicts = list(pool.map(lambda c: label(c["code"], problems), unique))
    labelled = [dict(c, **v) for c, v in zip(unique, verdicts)]
    if labelled[0]["label"] != "correct":
        raise RuntimeError(f"{src.id}: the reference is labelled {labelled[0]['label']}")
    # Broken copies of the reference and of two wrong candidates: what the model writes when it slips.
    parents = [c for c in labelled if c["label"] == "correct"][:1]
    wrong = [c for c in labelled if c["label"] in ("wrong_hidden", "too_slow")]
    rng.shuffle(wrong)
    parents += wrong[:2]
    broken = []
    for parent in parents:
        for m in mutate.syntax_breaks(parent["code"], rng, count=3 if parent is parents[0] else 2):
            if normalized(m.code) not in seen:
                seen.add(normalized(m.code))
                broken.append({"op": m.op, "code": m.code, "line": m.line, "parent_code": parent["code"]})
    with ThreadPoolExecutor(max_workers=workers) as pool:
        verdicts = list(pool.map(lambda c: label(c["code"], problems), broken))
    # A "break" that still compiles is only a duplicate of its parent's behaviour: drop it.
    labelled += [dict(c, **v) for c, v in zip(broken, verdicts) if v["label"] == "compile_error"]
    return select(src, labelled)


def select(src: rp.ProblemSource, labelled: list[dict[str, Any]]) -> dict[str, Any]:
    """Keep a varied pool: every alternative, then mutants spread over operators, up to CAPS per label."""
    kept: list[dict[str, Any]] = []
    for lab, cap in CAPS.items():
        group = [c for c in labelled if c["label"] == lab]
        group.sort(key=lambda c: (c["op"] != "reference", not c["op"].startswith("alt:")))
        picked, ops_used = [], set()
        for c in group:  # first pass: one per operator
            if c["op"] not in ops_used and len(picked) < cap:
                picked.append(c)
                ops_used.add(c["op"])
        for c in group:
            if c not in picked and len(picked) < cap:
                picked.append(c)
        kept += picked
    ids = {normalized(c["code"]): f"{src.id}/{k}" for k, c in enumerate(kept)}
    candidates = []
    for c in kept:
        entry = {"id": ids[normalized(c["code"])], "label": c["label"], "op": c["op"], "code": c["code"]}
        if "parent_code" in c:
            entry["parent"] = ids.get(normalized(c["parent_code"]))
        if c.get("failed_set"):
            entry["failed_set"] = c["failed_set"]
        candidates.append(entry)
    stats: dict[str, int] = {}
    for c in labelled:
        stats[c["label"]] = stats.get(c["label"], 0) + 1
    return {"name": src.name, "rating": src.rating, "split": src.split, "candidates": candidates,
            "tried": stats}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", type=Path, required=True)
    parser.add_argument("--only", default="")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "rebench" / "rust_codecontests" / "bin")
    args = parser.parse_args(argv)
    out_path = args.src / "pools.json"
    pools: dict[str, Any] = json.loads(out_path.read_text()) if out_path.exists() else {}
    only = set(args.only.split(",")) if args.only else None
    sources = [s for s in rp.load_sources(args.src) if only is None or s.id in only]
    exes = rp.compile_references(sources, args.cache, args.workers)
    for src in sources:
        start = time.time()
        pools[src.id] = build_pool(src, exes[src.id], args.workers)
        counts = {}
        for c in pools[src.id]["candidates"]:
            counts[c["label"]] = counts.get(c["label"], 0) + 1
        print(f"{src.id:<30} {time.time() - start:5.1f}s kept {counts} tried {pools[src.id]['tried']}", flush=True)
        out_path.write_text(json.dumps(pools, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
