"""bench/yardstick.py (issue 39): full scoring calls of the start and the reference in turn, and their differences.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import ENV_DIR


def test_yardstick_scores_both_solutions_and_their_pair_differences(tmp_path: Path) -> None:
    out = tmp_path / "yardstick.json"
    env = {**os.environ, "PYTHONPATH": str(ENV_DIR.parents[1] / "python")}
    proc = subprocess.run([sys.executable, str(ENV_DIR / "bench" / "yardstick.py"), "--pairs", "2", "--json", str(out)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert len(data["start"]) == len(data["reference"]) == 2
    diffs = [r - s for s, r in zip(data["start"], data["reference"])]
    summary = data["summary"]["reference_minus_start"]
    assert summary["n"] == 2 and abs(summary["mean"] - sum(diffs) / 2) < 1e-12
    # The single-pass C reference is many times faster than the torch start on any CPU (about e^2 on the 2-core VM).
    assert all(d < -0.5 for d in diffs), diffs
    assert "| reference_minus_start |" in proc.stdout
