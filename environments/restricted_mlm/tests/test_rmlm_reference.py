"""The encrypted reference (a residual 1-D conv net from as_strided and allowed operations) unpacks, trains
(a few steps, scaled down) and is scored through the real export and the grader's checks.

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from rmlm_helpers import ENV_DIR, Sandbox, load

unpack = load("restricted_mlm_unpack", ENV_DIR / "reference" / "unpack.py")


def test_reference_is_allowed_and_beats_the_untrained_start(sandbox: Sandbox, tmp_path: Path) -> None:
    files = unpack.unpack(tmp_path / "ref")
    assert sorted(p.name for p in files.iterdir()) == ["model.py", "train.py"]
    solution = sandbox.workspace / "solution"
    shutil.copyfile(files / "model.py", solution / "model.py")
    shutil.copyfile(files / "train.py", solution / "train_reference.py")
    args = ["--minutes", "2", "--max-steps", "60", "--d", "16", "--hidden", "32", "--layers", "2", "--batch-size", "8", "--threads", "1"]
    done = subprocess.run([sys.executable, "solution/train_reference.py", *args], cwd=sandbox.workspace, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = sandbox.score()
    assert result["outcome"]["kind"] == "scored", result
    ops = result["details"]["operations"]
    assert "aten.as_strided.default" in ops and "aten.relu.default" in ops
    assert json.loads((solution / "reference_config.json").read_text())["layers"] == 2
    assert result["details"]["loss"] < 6.3  # an untrained model is at about ln(512) = 6.24
