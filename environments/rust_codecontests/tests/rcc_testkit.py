"""Shared helpers for rust_codecontests' tests: the mini build (once per test process), a scratch task
directory, and a stand-in for the sandbox's "run as the agent user".

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The build unpacks the encrypted sources into a temporary directory (removed at exit); compiled references are
cached by hash in ~/.cache/rebench/rust_codecontests.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV_DIR = Path(__file__).resolve().parent.parent
REPO = ENV_DIR.parents[1]
for sub in ("grader", "assets"):
    if str(ENV_DIR / sub) not in sys.path:
        sys.path.insert(0, str(ENV_DIR / sub))

PYTHON = str(REPO / ".venv" / "bin" / "python") if (REPO / ".venv" / "bin" / "python").exists() else sys.executable


def _tempdir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path


@functools.lru_cache(maxsize=None)
def mini_build() -> Path:
    import build

    out = _tempdir("rcc-test-build-") / "mini"
    build.build("mini", out)
    return out


@functools.lru_cache(maxsize=None)
def sources_dir() -> Path:
    import archive

    out = _tempdir("rcc-test-src-")
    archive.unpack(out)
    return out


def hidden_tables() -> dict[str, Any]:
    from rcc_model_service import load_tables

    return load_tables(mini_build() / "protected" / "model" / "hidden.json.gz")


def make_task(root: Path, module_source: str | None = None) -> tuple[Path, Path]:
    """A workspace and a protected dir laid out as the sandbox lays them out; returns (workspace, protected)."""
    workspace, protected = root / "workspace", root / "protected"
    shutil.copytree(ENV_DIR / "workspace", workspace)
    shutil.copytree(mini_build() / "workspace", workspace, dirs_exist_ok=True)
    shutil.copytree(ENV_DIR / "grader", protected / "grader")
    shutil.copytree(mini_build() / "protected", protected, dirs_exist_ok=True)
    if module_source is not None:
        (workspace / "solution" / "solve_code_contests_rust.py").write_text(module_source)
    return workspace, protected


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def reference_module_source() -> str:
    return (mini_build() / "reference" / "solve_code_contests_rust.py").read_text()


def run_grader(workspace: Path, protected: Path, result: Path, task: str = "main",
               extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run the grader as a separate process, the way the harness does; returns the result file."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBENCH_")}
    env.update({"REBENCH_RESULT": str(result), "REBENCH_WORKSPACE": str(workspace),
                "REBENCH_PROTECTED": str(protected), "REBENCH_TASK": task, "REBENCH_VARIANT": "mini",
                "PYTHONPATH": str(REPO / "python"), "REBENCH_AS_AGENT_UNSANDBOXED": "1"})
    env.update(extra_env or {})
    subprocess.run([PYTHON, str(protected / "grader" / "rcc_grade.py")], cwd=protected, env=env, check=True,
                   timeout=600)
    return json.loads(result.read_text())


def subset_task(root: Path, count: int, module_source: str | None = None, every: int = 1) -> tuple[Path, Path]:
    """A task whose hidden split is only `count` problems (quick scoring calls for tests): the easiest ones, or
    with `every` = k every k-th problem in order of rating (a spread of difficulties)."""
    workspace, protected = make_task(root, module_source)
    ordered = sorted(load_jsonl(protected / "test.jsonl"), key=lambda p: (p["cf_rating"], p["name"]))
    problems = ordered[::every][:count]
    (protected / "test.jsonl").write_text("".join(json.dumps(p) + "\n" for p in problems))
    return workspace, protected
