"""The reference solution (from the encrypted archive) runs on the workspace it is given and beats the start.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import subprocess
import sys

from fix_embedding_helpers import ENV_DIR, load


def test_the_reference_fixes_the_tiny_model_through_the_workspace_files_only(sandbox, tmp_path):
    unpack = load("fix_embedding_unpack", ENV_DIR / "reference" / "unpack.py")
    source = unpack.unpack(tmp_path / "reference")
    start = sandbox.score()
    script = sandbox.workspace / "solution" / "reference_fix.py"
    script.write_bytes((source / "fix.py").read_bytes())
    run = subprocess.run(
        [sys.executable, str(script), "--adapter-steps", "30", "--adapter-target", "0", "--finetune-steps", "30", "--batch-size", "8"],
        cwd=sandbox.workspace, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "folded the adapter" in run.stdout and "saved fixed_model.pth" in run.stdout
    fixed = sandbox.score()
    assert fixed["outcome"]["kind"] == "scored", fixed
    assert fixed["outcome"]["value"] < start["outcome"]["value"] - 0.1
