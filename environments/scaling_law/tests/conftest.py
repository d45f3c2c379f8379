"""Fixtures of the scaling_law tests: the grader's modules on the path, random token files, a synthetic sweep.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

GRADER = Path(__file__).resolve().parents[1] / "grader"
sys.path.insert(0, str(GRADER))

import ground_truth  # noqa: E402


@pytest.fixture()
def token_dir(tmp_path: Path) -> Path:
    """train.bin / val.bin of random ids below 1024 (the mini vocabulary): enough for a few steps."""
    rng = np.random.default_rng(0)
    folder = tmp_path / "tokens"
    folder.mkdir()
    rng.integers(0, 1024, 50_000, dtype=np.uint16).tofile(folder / "train.bin")
    rng.integers(0, 1024, 20_000, dtype=np.uint16).tofile(folder / "val.bin")
    return folder


SYNTHETIC = {
    "variant": "mini", "target_flops": 1.5e13, "widths": [48, 96, 192], "fractions": ["1/16", "1/4", "1"],
    "losses": [[4.6, 4.9, 5.6], [4.2, 4.1, 4.5], [4.0, 3.8, 3.9]],
}  # fmt: skip


def pack_archive(path: Path, sweeps: dict[str, dict]) -> Path:
    """An archive like grader/sweep.zip holding ``sweeps`` (``{"mini": {...}}``)."""
    folder = path.parent / "sweeps"
    folder.mkdir(exist_ok=True)
    for name, data in sweeps.items():
        (folder / f"{name}.json").write_text(json.dumps(data))
    subprocess.run(["zip", "-q", "-P", ground_truth.SWEEP_PASSWORD, str(path), *[f"{n}.json" for n in sweeps]], cwd=folder, check=True)
    return path


@pytest.fixture()
def synthetic_archive(tmp_path: Path) -> Path:
    return pack_archive(tmp_path / "sweep.zip", {"mini": SYNTHETIC})
