"""Shared helpers for the optimize_llm_foundry tests: the tiny assets, a protected directory and workspace set
up as rebench would, and the grader and set-up loaded under unique module names (other environments have a
score.py too). Scoring calls run finetune.sh in the jail through ``REBENCH_AS_AGENT_UNSANDBOXED=1`` (the
same bubblewrap jail as in a sandbox, as the current user).

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ENV_DIR = Path(__file__).resolve().parents[1]
GRADER_DIR = ENV_DIR / "grader"
TINY_ASSETS = ["corpus-tiny-keyed", "tokenizer-bpe512-tiny", "tiny"]


def profile_assets(profile: dict[str, Any]) -> list[str]:
    """The assets a profile's set-up reads (family.ts's profileAssets; none for paper)."""
    return [name for name in (profile.get("corpus"), profile.get("tokenizer"), profile["model"].get("asset")) if name is not None]


def write_environment_secret(protected: Path, secret: str | None = None) -> str:
    secret = secret or os.urandom(32).hex()
    folder = protected / ".rebench"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    (folder / "secret.json").write_text(json.dumps({"environment": "optimize_llm_foundry", "variant": "mini", "secret": secret}) + "\n")
    return secret


def build_tiny_assets(home: Path) -> Path:
    from rebench_env.assets.build import BuildOptions, build

    build(TINY_ASSETS, BuildOptions(home=home))
    return home


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(GRADER_DIR))
env_setup = load("foundry_setup", GRADER_DIR / "setup.py")
env_score = load("foundry_score", GRADER_DIR / "score.py")
pipeline = load("foundry_pipeline", GRADER_DIR / "pipeline.py")
rows = load("foundry_rows", GRADER_DIR / "rows.py")


class Sandbox:
    """A protected directory and a workspace laid out as rebench lays them out, then set up (tiny profile).

    ``workers`` rewrites finetune.yaml's ``num_workers`` before the set-up (0 keeps the tests quick; the
    behaviour is the same; None keeps the starting pipeline's 4). The profile's assets come from ``assets_home``/assets.
    """

    def __init__(self, root: Path, assets_home: Path, secret: str | None = None, workers: int | None = 0, profile: str = "tiny") -> None:
        self.protected = root / "protected"
        self.workspace = root / "workspace"
        self.secret = write_environment_secret(self.protected, secret)
        shutil.copytree(GRADER_DIR, self.protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace", self.workspace, ignore=shutil.ignore_patterns("__pycache__"))
        if workers is not None:
            yaml = self.workspace / "solution" / "finetune.yaml"
            yaml.write_text(yaml.read_text().replace("num_workers: 4", f"num_workers: {workers}"))
        loaded = pipeline.load_profile(GRADER_DIR, profile)
        for name in profile_assets(loaded):
            shutil.copytree(assets_home / "assets" / name, self.protected / "assets" / name, symlinks=False)
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        self.report = env_setup.setup(loaded, self.protected, self.workspace)

    def score(self, task: str = "main") -> dict[str, Any]:
        """One grader call in this process (finetune.sh itself runs in the jail): {outcome, message, details}."""
        os.environ["REBENCH_AS_AGENT_UNSANDBOXED"] = "1"
        os.environ["REBENCH_WORKSPACE"] = str(self.workspace)
        outcome, message, details = env_score.score(self.workspace, self.protected, task == "hidden_score")
        return {"outcome": outcome, "message": message, "details": details}
