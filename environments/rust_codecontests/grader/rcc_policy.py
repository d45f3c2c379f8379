"""The model's odds: which candidate program and which answer format a chat request gets.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

Every problem has a pool of labelled candidates (see assets/build_pools.py). A request's weight for each label
follows the problem's rating and what the prompt contains:

    skill = (SKILL_CENTER - rating) / SKILL_SCALE
            + REASONING_BONUS if asked to reason first
            - EXAMPLES_PENALTY * (1 - fraction of examples present)
            - COVERAGE_PENALTY * (1 - fraction of the statement present)
    P(correct) = CORRECT_CAP * sigmoid(skill); the rest is shared by the wrong labels (WRONG_SHARES).

Inside a label, candidates get Zipf weights (one dominant misconception per problem). Temperature T reshapes the
candidate weights as w^(1/T) (T = 0: always the single most likely candidate), and above 1 it also corrupts
programs (a syntax slip) with probability CORRUPTION_PER_UNIT * (T - 1). A previous attempt quoted with feedback
is repaired with the odds in REPAIR. Formats follow the requests for a code block and for code only (FORMATS).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rcc_prompt import PromptFeatures

SKILL_CENTER = 1200.0
SKILL_SCALE = 150.0
REASONING_BONUS = 0.8
EXAMPLES_PENALTY = 1.2
COVERAGE_PENALTY = 4.0
CORRECT_CAP = 0.7
WRONG_SHARES = {"wrong_hidden": 0.40, "wrong_public": 0.25, "compile_error": 0.25, "too_slow": 0.10}
CORRECT_VARIANT_WEIGHT = 0.5
CORRUPTION_PER_UNIT = 0.5
# Repair of a quoted previous attempt: P(the fixed program) by the quoted candidate's label and the feedback.
REPAIR = {
    "compile_error": {"compiler": 0.9, "test": 0.6, "generic": 0.6},
    "wrong_public": {"compiler": 0.15, "test": 0.45, "generic": 0.25},
    "wrong_hidden": {"compiler": 0.15, "test": 0.45, "generic": 0.25},
    "too_slow": {"compiler": 0.15, "test": 0.45, "generic": 0.3},
    "correct": {"compiler": 0.85, "test": 0.85, "generic": 0.85},  # keeps the (already correct) program
}
FORMATS = {
    # (fence requested, code only requested) -> weights
    (False, False): {"prose_fenced": 0.55, "fence_nolang": 0.10, "multi_fence": 0.15, "prose_raw": 0.20},
    (True, False): {"prose_fenced": 0.55, "fenced_only": 0.15, "multi_fence": 0.20, "fence_nolang": 0.05,
                    "prose_raw": 0.05},
    (False, True): {"raw": 0.45, "fenced_only": 0.35, "prose_fenced": 0.15, "prose_raw": 0.05},
    (True, True): {"fenced_only": 0.70, "raw": 0.10, "prose_fenced": 0.15, "multi_fence": 0.05},
}
WITH_REASONING = {"raw": "prose_raw", "fenced_only": "prose_fenced"}


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def skill(rating: float, features: PromptFeatures) -> float:
    s = (SKILL_CENTER - rating) / SKILL_SCALE
    s += REASONING_BONUS if features.reasoning else 0.0
    s -= EXAMPLES_PENALTY * (1.0 - features.examples)
    s -= COVERAGE_PENALTY * (1.0 - min(1.0, features.coverage))
    return s


def label_masses(rating: float, features: PromptFeatures, available: set[str]) -> dict[str, float]:
    """Probability mass per label for a fresh attempt, over the labels the pool has."""
    p_correct = CORRECT_CAP * sigmoid(skill(rating, features))
    masses = {"correct": p_correct}
    for lab, share in WRONG_SHARES.items():
        masses[lab] = (1.0 - p_correct) * share
    masses = {k: v for k, v in masses.items() if k in available}
    total = sum(masses.values())
    return {k: v / total for k, v in masses.items()}


def candidate_weights(candidates: Sequence[Mapping[str, Any]], masses: Mapping[str, float]) -> list[float]:
    """Split each label's mass over its candidates: the reference first, Zipf weights among the rest (in pool
    order, which the builder shuffled per problem)."""
    by_label: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        by_label.setdefault(c["label"], []).append(i)
    weights = [0.0] * len(candidates)
    for lab, idx in by_label.items():
        if lab == "correct":
            raw = [1.0 if candidates[i]["op"] == "reference" else CORRECT_VARIANT_WEIGHT for i in idx]
        else:
            raw = [1.0 / (rank + 1) for rank in range(len(idx))]
        total = sum(raw)
        for i, r in zip(idx, raw):
            weights[i] = masses.get(lab, 0.0) * r / total
    return weights


def sharpen(weights: Sequence[float], temperature: float) -> list[float]:
    """w^(1/T), normalized; T <= 0 puts all mass on the largest weight (the first one on ties)."""
    if temperature <= 1e-6:
        top = max(range(len(weights)), key=lambda i: weights[i])
        return [1.0 if i == top else 0.0 for i in range(len(weights))]
    powered = [w ** (1.0 / temperature) if w > 0 else 0.0 for w in weights]
    total = sum(powered)
    return [w / total for w in powered]


def draw(rng: random.Random, probs: Sequence[float]) -> int:
    x = rng.random()
    acc = 0.0
    for i, p in enumerate(probs):
        acc += p
        if x < acc:
            return i
    return max(range(len(probs)), key=lambda i: probs[i])


@dataclass
class Choice:
    candidate: Mapping[str, Any] | None  # None: the model did not recognise the problem
    format: str
    corrupted: bool
    repaired: bool


def choose(problem: Mapping[str, Any] | None, features: PromptFeatures, temperature: float,
           rng: random.Random) -> Choice:
    """One completion's program and format."""
    fmt_weights = FORMATS[(features.fence_request, features.code_only)]
    names = sorted(fmt_weights)
    fmt = names[draw(rng, sharpen([fmt_weights[n] for n in names], temperature))]
    if features.reasoning:
        fmt = WITH_REASONING.get(fmt, fmt)
    corrupted = temperature > 1.0 and rng.random() < CORRUPTION_PER_UNIT * (temperature - 1.0)
    if problem is None:
        return Choice(None, fmt, corrupted, False)
    candidates = problem["candidates"]
    by_id = {c["id"]: c for c in candidates}
    if features.previous is not None and features.feedback is not None:
        prev = by_id[features.previous]
        p_fix = REPAIR[prev["label"]][features.feedback]
        if features.reasoning:
            p_fix = min(0.95, p_fix + 0.1)
        if rng.random() < p_fix:
            fixed = _fixed(prev, candidates, by_id)
            if fixed is not None:
                return Choice(fixed, fmt, corrupted, True)
    masses = label_masses(problem["rating"], features, {c["label"] for c in candidates})
    weights = candidate_weights(candidates, masses)
    if features.previous is not None and features.feedback is not None:
        weights = [0.0 if c["id"] == features.previous else w for c, w in zip(candidates, weights)]
        if not any(weights):
            weights = candidate_weights(candidates, masses)
    probs = sharpen(weights, temperature)
    return Choice(candidates[draw(rng, probs)], fmt, corrupted, False)


def _fixed(prev: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]],
           by_id: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """What a successful repair returns: a broken program's parent, otherwise the reference."""
    if prev["label"] == "compile_error" and prev.get("parent") in by_id:
        return by_id[prev["parent"]]
    if prev["label"] == "correct":
        return prev
    return next((c for c in candidates if c["op"] == "reference"), None)
