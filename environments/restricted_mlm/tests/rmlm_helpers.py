"""Shared helpers of the restricted_mlm tests: the tiny token asset, a protected directory and workspace set up
as rebench would, models written into the workspace, and the grader loaded under unique module names.

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

ENV_DIR = Path(__file__).resolve().parents[1]
GRADER_DIR = ENV_DIR / "grader"
TINY_ASSETS = ["tokens-bpe512-tiny"]


def load(name: str, path: Path) -> ModuleType:
    """Import an environment script under a unique module name (other environments have a score.py too)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


env_setup = load("restricted_mlm_setup", GRADER_DIR / "setup.py")
env_score = load("restricted_mlm_score", GRADER_DIR / "score.py")
env_graph = sys.modules["graph"]


def build_tiny_assets(home: Path) -> Path:
    from rebench_env.assets.build import BuildOptions, build

    build(TINY_ASSETS, BuildOptions(home=home))
    return home


def write_environment_secret(protected: Path, secret: str | None = None) -> str:
    secret = secret or os.urandom(32).hex()
    folder = protected / ".rebench"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    (folder / "secret.json").write_text(json.dumps({"environment": "restricted_mlm", "variant": "mini", "secret": secret}) + "\n")
    return secret


class Sandbox:
    """A protected directory and a workspace laid out as rebench lays them out, then set up (profile tiny)."""

    def __init__(self, root: Path, assets_home: Path, profile: str = "tiny") -> None:
        self.protected = root / "protected"
        self.workspace = root / "workspace"
        self.secret = write_environment_secret(self.protected)
        shutil.copytree(GRADER_DIR, self.protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace", self.workspace, ignore=shutil.ignore_patterns("__pycache__"))
        for name in TINY_ASSETS:
            shutil.copytree(assets_home / "assets" / name, self.protected / "assets" / name)
        os.environ["REBENCH_AS_AGENT_UNSANDBOXED"] = "1"
        self.report = env_setup.setup(env_setup.load_profile(GRADER_DIR / "profiles.json", profile), self.protected, self.workspace)
        self.grading = json.loads((self.protected / "state" / "grading.json").read_text())
        self.start_model = (self.workspace / "solution" / "model.py").read_text()
        """solution/model.py as the set-up left it (the starting solution): tests of one module share the sandbox."""

    def score(self, task: str = "main") -> dict[str, Any]:
        outcome, message, details = env_score.score(self.workspace, self.protected, task == "hidden_score")
        return {"outcome": outcome, "message": message, "details": details}

    def write_model(self, body: str) -> None:
        """Replace solution/model.py by a module whose ``get_trained_model()`` is defined in ``body``."""
        header = "import os, json, math\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport numpy as np\n"
        header += f"VOCAB = {self.grading['vocab_size']}\nSEQ = {self.grading['seq_len']}\n"
        (self.workspace / "solution" / "model.py").write_text(header + textwrap.dedent(body))
