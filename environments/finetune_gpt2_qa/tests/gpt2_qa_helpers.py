"""Shared helpers of the finetune_gpt2_qa tests: the tiny assets, a protected directory and workspace laid
out as rebench lays them out, and the grader's modules on the path. A module of its own name (not
conftest.py): other environments' tests have a conftest too.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ENV_DIR = Path(__file__).resolve().parents[1]
GRADER_DIR = ENV_DIR / "grader"
TINY_ASSETS = ["tiny", "tokenizer-bpe512-tiny", "corpus-tiny"]
sys.path.insert(0, str(GRADER_DIR))


def build_tiny_assets(home: Path) -> Path:
    from rebench_env.assets.build import BuildOptions, build

    build(TINY_ASSETS, BuildOptions(home=home))
    return home


class Sandbox:
    """A protected directory and a workspace as rebench lays them out; ``setup()`` runs the set-up in a process."""

    def __init__(self, root: Path, assets_home: Path) -> None:
        self.root = root
        self.protected = root / "protected"
        self.workspace = root / "workspace"
        (self.protected / ".rebench").mkdir(parents=True)
        (self.protected / ".rebench" / "secret.json").write_text(json.dumps({"secret": os.urandom(32).hex()}))
        shutil.copytree(GRADER_DIR, self.protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ENV_DIR / "workspace", self.workspace, ignore=shutil.ignore_patterns("__pycache__"))
        for name in TINY_ASSETS:
            shutil.copytree(assets_home / "assets" / name, self.protected / "assets" / name, symlinks=False)
        self.socket = str(root / "judge.sock")
        self.env = {**os.environ, "REBENCH_GPT2_QA_JUDGE": self.socket, "REBENCH_AS_AGENT_UNSANDBOXED": "1", "REBENCH_PROTECTED": str(self.protected)}
        self.calls = 0

    def setup(self, start: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "grader/setup.py", "--profile", "tiny", "--workspace", str(self.workspace)] + ([] if start else ["--no-start"])
        return subprocess.run(argv, cwd=self.protected, env=self.env, capture_output=True, text=True, timeout=600)

    def score(self, task: str = "main") -> dict[str, Any]:
        result = self.root / f"result-{self.calls}.json"
        self.calls += 1
        env = {**self.env, "REBENCH_WORKSPACE": str(self.workspace), "REBENCH_TASK": task, "REBENCH_RESULT": str(result)}
        run = subprocess.run([sys.executable, "grader/score.py"], cwd=self.protected, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        return json.loads(result.read_text())

    def stop_judge(self) -> None:
        for line in (self.protected / "judge" / "calls.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event.get("event") == "started":
                try:
                    os.kill(int(event["pid"]), 15)
                except ProcessLookupError:
                    pass
