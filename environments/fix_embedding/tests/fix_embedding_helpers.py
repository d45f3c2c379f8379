"""Shared helpers for the fix_embedding tests: the tiny assets, a protected directory and workspace set up
as rebench would, and the grader and set-up loaded under unique module names. A module of its own name
(not conftest.py): other environments' tests have a conftest too, and `from conftest import ...` would
find theirs.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


ENV_DIR = Path(__file__).resolve().parents[1]
GRADER_DIR = ENV_DIR / "grader"
TINY_ASSETS = ["tokens-bpe512-tiny", "tiny-small", "tiny"]


def write_environment_secret(protected: Path, secret: str | None = None) -> str:
    """``.rebench/secret.json`` as rebench writes it into every run's protected directory; returns the secret."""
    secret = secret or os.urandom(32).hex()
    folder = protected / ".rebench"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    (folder / "secret.json").write_text(json.dumps({"environment": "fix_embedding", "variant": "mini", "secret": secret}) + "\n")
    os.chmod(folder / "secret.json", 0o600)
    return secret


def build_tiny_assets(home: Path) -> Path:
    from rebench_env.assets.build import BuildOptions, build

    build(TINY_ASSETS, BuildOptions(home=home))
    return home


def load(name: str, path: Path) -> ModuleType:
    """Import an environment script under a unique module name (other environments have a score.py too)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


env_setup = load("fix_embedding_setup", GRADER_DIR / "setup.py")
env_score = load("fix_embedding_score", GRADER_DIR / "score.py")


class Sandbox:
    """A protected directory and a workspace laid out as rebench lays them out, then set up."""

    def __init__(self, root: Path, assets_home: Path, profile: str = "tiny", seed: int | None = None, secret: str | None = None) -> None:
        self.protected = root / "protected"
        self.workspace = root / "workspace"
        self.secret = write_environment_secret(self.protected, secret)
        shutil.copytree(GRADER_DIR, self.protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace", self.workspace)
        for name in TINY_ASSETS:
            shutil.copytree(assets_home / "assets" / name, self.protected / "assets" / name, symlinks=False)
        self.report = env_setup.setup(env_setup.load_profile(GRADER_DIR / "profiles.json", profile), self.protected, self.workspace, seed=seed)
        self.calls = 0

    def score(self, task: str = "main") -> dict[str, Any]:
        """One grader call in this process: {outcome, message, details}."""
        outcome, message, details = env_score.score(self.workspace, self.protected, task == "hidden_score")
        self.calls += 1
        return {"outcome": outcome, "message": message, "details": details}

    def score_process(self, task: str = "main") -> dict[str, Any]:
        """One grader call as rebench makes it: a process, REBENCH_* variables, a result file."""
        result = self.protected / f"result-{self.calls}.json"
        env = {**os.environ, "REBENCH_WORKSPACE": str(self.workspace), "REBENCH_PROTECTED": str(self.protected),
               "REBENCH_TASK": task, "REBENCH_RESULT": str(result), "REBENCH_VARIANT": "mini"}
        run = subprocess.run([sys.executable, "grader/score.py"], cwd=self.protected, env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        self.calls += 1
        return json.loads(result.read_text())
