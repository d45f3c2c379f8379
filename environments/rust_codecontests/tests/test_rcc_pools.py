"""The model's candidate pools: every problem has one, labels are verified by running the candidates.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

A deterministic sample of candidates is re-labelled here (compiled and run against tests from the builder's
three seeds); REBENCH_SLOW=1 re-labels every candidate (several minutes).
"""

import json
import os
import random
from collections import Counter

import pytest

import rcc_testkit
import build
import build_pools
import rcc_problems as rp

LABELS = {"correct", "wrong_public", "wrong_hidden", "too_slow", "compile_error"}


@pytest.fixture(scope="module")
def pools() -> dict:
    return json.loads((rcc_testkit.sources_dir() / "pools.json").read_text())


@pytest.fixture(scope="module")
def sources() -> dict:
    return {s.id: s for s in rp.load_sources(rcc_testkit.sources_dir())}


def test_every_problem_has_a_varied_pool_headed_by_its_reference(pools, sources) -> None:
    assert set(pools) == set(sources)
    totals = Counter()
    for pid, pool in pools.items():
        cands = pool["candidates"]
        labels = Counter(c["label"] for c in cands)
        totals.update(labels)
        assert set(labels) <= LABELS
        assert cands[0]["op"] == "reference" and cands[0]["label"] == "correct"
        assert cands[0]["code"] == sources[pid].clean_solution
        assert labels["compile_error"] >= 1 and labels["wrong_public"] + labels["wrong_hidden"] >= 1, pid
        ids = {c["id"] for c in cands}
        assert all(c["parent"] in ids for c in cands if c.get("parent"))
        assert all("@edge" not in c["code"] for c in cands)
    assert totals["wrong_hidden"] >= 80 and totals["too_slow"] >= 20 and totals["correct"] >= 80


def _sample(pools: dict) -> list[tuple[str, dict]]:
    every = [(pid, c) for pid, pool in sorted(pools.items()) for c in pool["candidates"]]
    if os.environ.get("REBENCH_SLOW"):
        return every
    rng = random.Random(7)
    picked = []
    for label in ("correct", "wrong_public", "wrong_hidden", "compile_error", "too_slow"):
        group = [x for x in every if x[1]["label"] == label and x[1]["op"] != "reference"]
        picked += rng.sample(group, 2 if label != "too_slow" else 1)
    return picked


def test_a_sample_of_candidates_keeps_its_label_when_run_again(pools, sources) -> None:
    cache = build.default_cache()
    wrong = []
    for pid, cand in _sample(pools):
        src = sources[pid]
        exe = rp.compile_cached(src.clean_solution, cache, rp.ORACLE_FLAGS)
        problems = [rp.build_problem(src, exe, seed) for seed in build_pools.SEEDS]
        got = build_pools.label(cand["code"], problems)["label"]
        if got != cand["label"]:
            wrong.append((cand["id"], cand["label"], got))
    assert not wrong
