"""Shared helpers for the optimize_kernel tests: run the real grader on a solution file.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

ENV_DIR = Path(__file__).resolve().parents[1]
GRADER = ENV_DIR / "grader" / "score.py"
AS_NOBODY = Path(__file__).resolve().parent / "as_agent_nobody.sh"
START = {v: ENV_DIR / "workspace" / v / "solution" / "solution.py" for v in ("mini", "gpu")}
sys.path.insert(0, str(ENV_DIR / "grader"))
sys.path.insert(0, str(ENV_DIR / "reference"))


def can_run_as_nobody() -> bool:
    """Root with setpriv, and `nobody` can start this Python with torch (the checkout may be private)."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = subprocess.run([str(AS_NOBODY), "--cwd", "/", "--", sys.executable, "-c", "import torch, numpy"],
                           capture_output=True, timeout=120)
    return probe.returncode == 0


needs_nobody = pytest.mark.skipif(not can_run_as_nobody(),
                                  reason="running as another user needs root, setpriv, and a Python `nobody` can run")


@pytest.fixture(scope="session")
def reference_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference solutions, unpacked from the encrypted archive."""
    import unpack

    return unpack.unpack(tmp_path_factory.mktemp("reference"))


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A fresh directory every user can read (pytest's own temporary directories are private)."""
    path = Path(tempfile.mkdtemp(prefix="kernel-test-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def install_solution(folder: Path, source: Path | None = None, text: str | None = None) -> Path:
    """Write folder/solution/solution.py from a file or a text; a solution.py brings its C sources along."""
    target = folder / "solution"
    target.mkdir(exist_ok=True)
    os.chmod(target, 0o777)  # the agent's process may build a native library here
    if text is not None:
        (target / "solution.py").write_text(text)
    else:
        assert source is not None
        shutil.copyfile(source, target / "solution.py")
        if source.name == "solution.py":
            for item in source.parent.glob("*.c"):
                shutil.copyfile(item, target / item.name)
    for item in target.iterdir():
        os.chmod(item, 0o644)
    return target / "solution.py"


def grade(solution: Path, *, variant: str = "mini", n: int | None = 20_000, task: str = "main",
          as_agent: Path | None = None, extra: tuple[str, ...] = (), result: Path | None = None,
          cwd: Path | None = None, grader: Path = GRADER) -> dict[str, Any]:
    """Run the grader in its own process; returns its result file plus its stdout."""
    result = result or solution.parent.parent / "result.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBENCH_")}
    if as_agent is not None:
        env["REBENCH_AS_AGENT"] = str(as_agent)
    argv = [sys.executable, str(grader), "--variant", variant, "--task", task, "--solution", str(solution),
            "--result", str(result), *extra]
    if n is not None:
        argv += ["--n", str(n)]
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(result.read_text())
    data["stdout"] = proc.stdout
    return data
