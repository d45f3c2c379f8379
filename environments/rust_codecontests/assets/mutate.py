"""Program mutation operators: plausible wrong, slow or broken variants of a reference Rust solution.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The model service answers from pools of candidate programs; most candidates come from here. Each operator
enumerates its mutation sites in a program and yields one mutant per site: the kind of slip a model makes
(an off-by-one, a flipped comparison, 32-bit arithmetic, a dropped special case, a missing semicolon). Whether a
mutant is actually wrong, slow or broken is decided by running it, never assumed (see build_pools.py).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable, Iterator

EDGE_MARKER = re.compile(r"//\s*@edge\s*$")
MARKER = re.compile(r"[ \t]*// @[a-z-]+[ \t]*$")


@dataclass(frozen=True)
class Mutant:
    op: str
    code: str
    line: int  # 1-based line of the change, 0 for whole-program changes


def _lines(code: str) -> list[str]:
    return code.split("\n")


def _body_lines(lines: list[str]) -> Iterator[int]:
    """Lines that are program logic: not `use`, not comments, not the stdin boilerplate."""
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith(("use ", "//", "let mut input", "io::stdin()", "fn main")):
            continue
        yield i


def _site_mutants(op: str, code: str, pattern: str, replace: Callable[[re.Match[str]], str | None]) -> Iterator[Mutant]:
    lines = _lines(code)
    rx = re.compile(pattern)
    for i in _body_lines(lines):
        for m in rx.finditer(lines[i]):
            new = replace(m)
            if new is None:
                continue
            changed = lines[i][: m.start()] + new + lines[i][m.end():]
            yield Mutant(op, "\n".join(lines[:i] + [changed] + lines[i + 1:]), i + 1)


_CMP_FLIP = {" < ": " <= ", " <= ": " < ", " > ": " >= ", " >= ": " > ", " == ": " != ", " != ": " == "}


def flip_comparison(code: str) -> Iterator[Mutant]:
    yield from _site_mutants("flip_comparison", code, r" (<=|>=|<|>|==|!=) ", lambda m: _CMP_FLIP[m.group(0)])


def off_by_one(code: str) -> Iterator[Mutant]:
    yield from _site_mutants("off_by_one", code, r" ([+-]) 1\b(?!\.)", lambda m: f" {m.group(1)} 2")
    yield from _site_mutants("off_by_one", code, r" [+-] 1\b(?!\.)", lambda m: "")
    yield from _site_mutants("off_by_one", code, r"\.\.=", lambda m: "..")
    yield from _site_mutants("off_by_one", code, r"\b0\.\.", lambda m: "1..")


def swap_arithmetic(code: str) -> Iterator[Mutant]:
    yield from _site_mutants("swap_arithmetic", code, r" ([+-]) (?!1\b)", lambda m: " - " if m.group(1) == "+" else " + ")
    yield from _site_mutants("swap_arithmetic", code, r" \* ", lambda m: " + ")


def swap_min_max(code: str) -> Iterator[Mutant]:
    yield from _site_mutants("swap_min_max", code, r"\.(max|min)\(", lambda m: ".min(" if m.group(1) == "max" else ".max(")


def narrow_integers(code: str) -> Iterator[Mutant]:
    """32-bit arithmetic everywhere: overflows (a panic in a debug build) or misparses on large inputs."""
    for wide, narrow in (("i64", "i32"), ("u64", "u32"), ("i128", "i64")):
        if re.search(rf"\b{wide}\b", code):
            yield Mutant("narrow_integers", re.sub(rf"\b{wide}\b", narrow, code), 0)


def drop_edge_case(code: str) -> Iterator[Mutant]:
    """Remove the lines the author marked as edge-case handling (`// @edge`)."""
    lines = _lines(code)
    kept = [line for line in lines if not EDGE_MARKER.search(line)]
    if len(kept) < len(lines):
        yield Mutant("drop_edge_case", "\n".join(kept), 0)


def tweak_constant(code: str) -> Iterator[Mutant]:
    yield from _site_mutants("tweak_constant", code, r"\b1_000_000_007\b", lambda m: "1_000_000_009")
    yield from _site_mutants("tweak_constant", code, r"i64::MIN|i64::MAX|usize::MAX",
                             lambda m: {"i64::MIN": "0", "i64::MAX": "1_000_000_000", "usize::MAX": "1_000_000"}[m.group(0)])


SEMANTIC_OPERATORS = (flip_comparison, off_by_one, swap_arithmetic, swap_min_max, narrow_integers, drop_edge_case,
                      tweak_constant)


def break_syntax(code: str) -> Iterator[Mutant]:
    """Slips that usually stop the program from compiling."""
    yield from _site_mutants("missing_semicolon", code, r";\s*$", lambda m: "")
    yield from _site_mutants("immutable_binding", code, r"\blet mut\b", lambda m: "let")
    yield from _site_mutants("missing_cast", code, r" as (usize|i64|u64|u8|char)\b", lambda m: "")
    yield from _site_mutants("missing_unwrap", code, r"\.unwrap\(\)", lambda m: "")
    lines = _lines(code)
    closers = [i for i, line in enumerate(lines) if line.strip() == "}"]
    for i in closers:
        yield Mutant("missing_brace", "\n".join(lines[:i] + lines[i + 1:]), i + 1)


def clean(code: str) -> str:
    return "\n".join(MARKER.sub("", line) for line in _lines(code)).strip() + "\n"


def mutants(code: str, rng: random.Random, per_operator: int = 6) -> list[Mutant]:
    """Semantic mutants of ``code`` (with `// @edge` markers), at most ``per_operator`` sites per operator,
    markers removed from the results."""
    out: list[Mutant] = []
    for op in SEMANTIC_OPERATORS:
        found = list(op(code))
        rng.shuffle(found)
        out += [Mutant(m.op, clean(m.code), m.line) for m in found[:per_operator]]
    return out


def syntax_breaks(code: str, rng: random.Random, count: int = 4) -> list[Mutant]:
    """Up to ``count`` syntax-breaking mutants of a clean program, one per kind of slip first."""
    by_kind: dict[str, list[Mutant]] = {}
    for m in break_syntax(code):
        by_kind.setdefault(m.op, []).append(m)
    picks: list[Mutant] = []
    kinds = sorted(by_kind)
    rng.shuffle(kinds)
    while len(picks) < count and any(by_kind.values()):
        for kind in kinds:
            if by_kind[kind] and len(picks) < count:
                options = by_kind[kind]
                picks.append(options.pop(rng.randrange(len(options))))
    return picks
