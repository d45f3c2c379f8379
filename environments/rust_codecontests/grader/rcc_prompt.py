"""What the model service reads from a chat request: which problem it is about and what the scaffold asked for.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The service has no language model. It recognises the problem by overlapping word 5-grams with the statements it
knows, and reads the scaffold's choices from the prompt with plain patterns: the statement (how much of it), the
examples, a request for a fenced code block, a request for code only, a request to reason first, and a previous
attempt sent back with feedback (a compiler error, a failing test, or only "this is wrong").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

WORD = re.compile(r"[a-z0-9]+")
SHINGLE = 5
MIN_COVERAGE = 0.35

FENCE_REQUEST = re.compile(r"```|code ?block|markdown|fenced|backticks", re.I)
CODE_ONLY = re.compile(r"only (output |return |give |write |print )?(the )?(rust )?(code|program|source)|"
                       r"no (explanation|prose|comments|text)|without (any )?(explanation|prose|text)|"
                       r"just (the )?(rust )?(code|program)|nothing (else|but the code)", re.I)
REASONING = re.compile(r"step[- ]by[- ]step|think (carefully|first|about)|reason(ing)? (first|before|about)|"
                       r"explain (your|the) (approach|reasoning|idea)|chain[- ]of[- ]thought|"
                       r"plan (first|before)|analy[sz]e the problem|before (writing|coding|you write)", re.I)
COMPILER_FEEDBACK = re.compile(r"error\[E\d{4}\]|error: |cannot find|mismatched types|expected `|"
                               r"failed to compile|compil(e|ation) error|does not compile", re.I)
TEST_FEEDBACK = re.compile(r"expected( output)?\s*[:=]|wrong answer|got\s*[:=]|your output|actual( output)?\s*[:=]|"
                           r"failed (on )?(the )?(test|example)|time limit|timed out|too slow|runtime error|panicked",
                           re.I)
FIX_REQUEST = re.compile(r"\b(fix|wrong|incorrect|bug|error|mistake|doesn'?t work|not work|fails?|failed|"
                         r"improve|correct it|try again)\b", re.I)


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def shingles(text: str) -> set[str]:
    w = words(text)
    return {" ".join(w[i:i + SHINGLE]) for i in range(max(0, len(w) - SHINGLE + 1))}


def squash(text: str) -> str:
    return " ".join(text.split())


def statement_body(description: str) -> str:
    """The description without its examples (CodeContests descriptions append them after 'Example(s)')."""
    cut = re.split(r"\n\s*Examples?\s*\n", description, maxsplit=1)
    return cut[0]


@dataclass
class ProblemIndex:
    """Shingle index over the statements of the problems one API key may ask about."""

    statements: dict[str, set[str]]
    postings: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def build(cls, descriptions: Mapping[str, str]) -> "ProblemIndex":
        statements = {name: shingles(statement_body(text)) for name, text in descriptions.items()}
        postings: dict[str, list[str]] = {}
        for name, grams in statements.items():
            for g in grams:
                postings.setdefault(g, []).append(name)
        return cls(statements, postings)

    def identify(self, text: str) -> tuple[str | None, float]:
        """The best-covered problem and the fraction of its statement's 5-grams present in ``text``."""
        hits: dict[str, int] = {}
        for g in shingles(text):
            for name in self.postings.get(g, ()):
                hits[name] = hits.get(name, 0) + 1
        best, coverage = None, 0.0
        for name, count in hits.items():
            c = count / max(1, len(self.statements[name]))
            if c > coverage:
                best, coverage = name, c
        return (best, coverage) if coverage >= MIN_COVERAGE else (None, coverage)


@dataclass
class PromptFeatures:
    problem: str | None
    coverage: float
    examples: float  # fraction of the public tests whose input and output both appear
    fence_request: bool
    code_only: bool
    reasoning: bool
    previous: str | None = None  # id of a pool candidate quoted in the prompt
    feedback: str | None = None  # compiler | test | generic

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def message_text(messages: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(all message text, the text of system and user messages only)."""
    parts, asked = [], []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):  # the multi-part form: [{"type": "text", "text": ...}]
            content = "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        text = str(content or "")
        parts.append(text)
        if m.get("role") in ("system", "user", "developer"):
            asked.append(text)
    return "\n".join(parts), "\n".join(asked)


def examples_present(text: str, public_tests: Mapping[str, Sequence[str]]) -> float:
    pairs = list(zip(public_tests.get("input") or [], public_tests.get("output") or []))
    if not pairs:
        return 1.0
    flat = squash(text)
    return sum(1 for i, o in pairs if squash(i) in flat and squash(o) in flat) / len(pairs)


def quoted_candidate(text: str, candidates: Sequence[Mapping[str, Any]]) -> str | None:
    """The pool candidate whose code the prompt quotes: at least 80% of its non-trivial lines present, the
    highest fraction winning, then the most lines (a mutant differs from its siblings in a line or two)."""
    present = {line.strip() for line in text.split("\n")}
    best, best_key = None, (0.8, 0)
    for cand in candidates:
        lines = [ln.strip() for ln in cand["code"].split("\n") if len(ln.strip()) > 3]
        matched = sum(1 for ln in lines if ln in present)
        key = (matched / len(lines) if lines else 0.0, matched)
        if key >= best_key:
            best, best_key = cand["id"], key
    return best


def read_prompt(messages: Sequence[Mapping[str, Any]], index: ProblemIndex,
                problems: Mapping[str, Mapping[str, Any]]) -> PromptFeatures:
    text, asked = message_text(messages)
    name, coverage = index.identify(text)
    features = PromptFeatures(name, round(coverage, 3), 0.0, bool(FENCE_REQUEST.search(asked)),
                              bool(CODE_ONLY.search(asked)), bool(REASONING.search(asked)))
    if name is None:
        return features
    problem = problems[name]
    features.examples = examples_present(text, problem["public_tests"])
    features.previous = quoted_candidate(text, problem["candidates"])
    if features.previous is not None:
        if COMPILER_FEEDBACK.search(asked):
            features.feedback = "compiler"
        elif TEST_FEEDBACK.search(asked):
            features.feedback = "test"
        elif FIX_REQUEST.search(asked):
            features.feedback = "generic"
    return features
