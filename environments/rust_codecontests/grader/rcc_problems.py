"""Problem sources -> problems in CodeContests' JSON shape, with tests generated from a seed.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

Each problem is one Python file (``problems/<id>.py`` in the unpacked sources) defining::

    NAME = "9001_A. Title"          # CodeContests style
    SPLIT = "valid" | "test" | "extra"   # extra: only in the gpu variant's larger hidden split
    RATING = 800                    # Codeforces-like rating, drives the model's odds
    TAGS = ["math"]
    TIME_LIMIT = 2                  # seconds
    STATEMENT = "legend, Input, Output (and Note) sections"
    PUBLIC = ["input", ...]         # the examples; outputs come from the reference
    PRIVATE = ["input", ...]        # hand-written edge cases
    N_GENERATED = 8                 # optional
    def generate(rng, i): ...       # the i-th generated input (the last ones at full size)
    SOLUTION = "reference Rust program"   # lines ending in `// @edge` handle edge cases (mutation sites)
    ALTS = {"slow": "...", ...}     # optional hand-written candidate programs for the model's pool

Expected outputs always come from running the compiled reference, so the reference is the oracle.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import random
import re
import shutil
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping

from rust_codecontests_utils import RUSTC_FLAGS, run_process, rustc_command

DIFFICULTY_BY_INDEX = {"A": 7, "B": 8, "C": 9, "D": 10, "E": 11, "F": 12}
STRIPPED_FIELDS = ("generated_tests", "incorrect_solutions", "private_tests", "solutions", "generator")
MARKER = re.compile(r"[ \t]*// @[a-z-]+[ \t]*$", re.MULTILINE)


@dataclass
class ProblemSource:
    id: str
    name: str
    split: str
    rating: int
    tags: list[str]
    time_limit: float
    statement: str
    public: list[str]
    private: list[str]
    n_generated: int
    generate: Callable[[random.Random, int], str]
    solution: str
    alts: dict[str, str] = field(default_factory=dict)

    @property
    def clean_solution(self) -> str:
        return clean_code(self.solution)


def clean_code(code: str) -> str:
    """The program without mutation markers (`// @edge` comments)."""
    return MARKER.sub("", code).strip() + "\n"


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"rcc_problem_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_sources(src_dir: Path, splits: tuple[str, ...] | None = None) -> list[ProblemSource]:
    """Every problem file under ``src_dir/problems``, sorted by id, optionally only some splits."""
    out = []
    for path in sorted((src_dir / "problems").glob("*.py")):
        m = _load_module(path)
        src = ProblemSource(
            id=path.stem, name=m.NAME, split=m.SPLIT, rating=int(m.RATING), tags=list(m.TAGS),
            time_limit=float(getattr(m, "TIME_LIMIT", 2)), statement=m.STATEMENT.strip(),
            public=list(m.PUBLIC), private=list(getattr(m, "PRIVATE", [])),
            n_generated=int(getattr(m, "N_GENERATED", 8)), generate=m.generate, solution=m.SOLUTION,
            alts=dict(getattr(m, "ALTS", {})),
        )
        if splits is None or src.split in splits:
            out.append(src)
    return out


def rustc_version() -> str:
    return subprocess.run([rustc_command(), "--version"], capture_output=True, text=True, check=True).stdout.strip()


def compile_cached(code: str, cache_dir: Path, flags: tuple[str, ...] = RUSTC_FLAGS) -> Path:
    """Compile once per (code, rustc version, flags); returns the executable's path in ``cache_dir``."""
    key = hashlib.sha256("\0".join([code, rustc_version(), *flags]).encode()).hexdigest()[:24]
    exe = cache_dir / key / "main"
    if exe.exists():
        return exe
    cache_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rcc-build-", dir=cache_dir))
    try:
        (work / "main.rs").write_text(code)
        res = subprocess.run([rustc_command(), "main.rs", "-o", "main", *flags], cwd=work,
                             capture_output=True, text=True, timeout=120)
        if res.returncode != 0:
            raise RuntimeError(f"reference does not compile:\n{res.stderr[-3000:]}")
        try:
            os.rename(work, cache_dir / key)
        except OSError:  # another process won the race
            pass
        return exe
    finally:
        shutil.rmtree(work, ignore_errors=True)


ORACLE_FLAGS = (*RUSTC_FLAGS, "-O", "-C", "strip=symbols")


def compile_references(sources: list[ProblemSource], cache_dir: Path, workers: int | None = None,
                       flags: tuple[str, ...] = ORACLE_FLAGS) -> dict[str, Path]:
    """Problem id -> compiled reference (optimized: it is the oracle for expected outputs), compiled in parallel
    and cached by hash."""
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        exes = list(pool.map(lambda s: compile_cached(s.clean_solution, cache_dir, flags), sources))
    return {s.id: exe for s, exe in zip(sources, exes)}


def generated_inputs(src: ProblemSource, seed: str) -> list[str]:
    rng = random.Random(f"{seed}/{src.id}")
    return [src.generate(rng, i) for i in range(src.n_generated)]


def oracle(exe: Path, inputs: list[str], timeout: float = 20.0) -> list[str]:
    outputs = []
    for stdin in inputs:
        res = run_process([str(exe)], stdin.encode(), timeout)
        if res.timed_out or res.returncode != 0:
            raise RuntimeError(f"reference {exe} failed (rc={res.returncode}, timeout={res.timed_out}) "
                               f"on input starting {stdin[:80]!r}: {res.stderr[-500:]!r}")
        outputs.append(res.stdout.decode())
    return outputs


def _index(rating: int) -> str:
    return "A" if rating < 1100 else "B" if rating < 1400 else "C" if rating < 1700 else "D" if rating < 2000 else "E"


def describe(src: ProblemSource, public_outputs: list[str]) -> str:
    """The statement with its examples appended, as CodeContests descriptions have them."""
    parts = [src.statement, "", "Examples" if len(src.public) > 1 else "Example", ""]
    for stdin, out in zip(src.public, public_outputs):
        parts += ["Input", "", stdin.rstrip("\n"), "", "Output", "", out.rstrip("\n"), ""]
    return "\n".join(parts).rstrip() + "\n"


def _tests(inputs: list[str], outputs: list[str]) -> dict[str, list[str]]:
    return {"input": list(inputs), "output": list(outputs)}


def build_problem(src: ProblemSource, exe: Path, seed: str | None) -> dict[str, Any]:
    """One problem in CodeContests' shape, generated tests drawn from ``seed`` (none when ``seed`` is None: the
    grader draws them on every scoring call)."""
    public_out = oracle(exe, src.public)
    generated = generated_inputs(src, seed) if seed is not None else []
    contest, _, _ = src.name.partition("_")
    index = src.name.partition("_")[2][:1] or _index(src.rating)
    seconds = int(src.time_limit)
    return {
        "name": src.name,
        "description": describe(src, public_out),
        "public_tests": _tests(src.public, public_out),
        "private_tests": _tests(src.private, oracle(exe, src.private)),
        "generated_tests": _tests(generated, oracle(exe, generated)),
        "source": 2,
        "difficulty": DIFFICULTY_BY_INDEX.get(index, 0),
        "solutions": {"language": [], "solution": []},
        "incorrect_solutions": {"language": [], "solution": []},
        "cf_contest_id": int(contest) if contest.isdigit() else 0,
        "cf_index": index,
        "cf_points": 0.0,
        "cf_rating": src.rating,
        "cf_tags": list(src.tags),
        "is_description_translated": False,
        "untranslated_description": "",
        "time_limit": {"seconds": seconds, "nanos": int(round((src.time_limit - seconds) * 1e9))},
        "memory_limit_bytes": 256 * 1024 * 1024,
        "input_file": "",
        "output_file": "",
    }


def fresh_generated_tests(src_path: str, exe: str, seed: str) -> dict[str, list[str]]:
    """Draw one problem's generated tests anew (a top-level function, so a process pool can run it)."""
    module = _load_module(Path(src_path))
    rng = random.Random(f"{seed}/{Path(src_path).stem}")
    inputs = [module.generate(rng, i) for i in range(int(getattr(module, "N_GENERATED", 8)))]
    return _tests(inputs, oracle(Path(exe), inputs))


class DrawnTests(Mapping[str, list[str]]):
    """A problem's generated tests ({"input", "output"}), drawn from ``seed`` when first read: programs that fail a
    public or private test never reach them, so a scoring call draws only what it runs (the verdict is the same)."""

    def __init__(self, source: str, oracle_exe: str, seed: str) -> None:
        self.source, self.oracle_exe, self.seed = source, oracle_exe, seed
        self._lock = threading.Lock()
        self._tests: dict[str, list[str]] | None = None

    def _drawn(self) -> dict[str, list[str]]:
        with self._lock:
            if self._tests is None:
                self._tests = fresh_generated_tests(self.source, self.oracle_exe, self.seed)
            return self._tests

    def __getitem__(self, key: str) -> list[str]:
        return self._drawn()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._drawn())

    def __len__(self) -> int:
        return len(self._drawn())


def strip_for_module(problem: dict[str, Any]) -> dict[str, Any]:
    """What the agent's module receives: the problem without hidden tests and solutions (as upstream)."""
    return {k: v for k, v in problem.items() if k not in STRIPPED_FIELDS}
