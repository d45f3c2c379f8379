"""Fixtures of the scaling_law tests: random token files and a synthetic sweep's archive (the shared pieces
are in scaling_law_helpers.py, which also puts the grader's modules on the path).

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scaling_law_helpers import SYNTHETIC, pack_archive


@pytest.fixture()
def token_dir(tmp_path: Path) -> Path:
    """train.bin / val.bin of random ids below 1024 (the mini vocabulary): enough for a few steps."""
    rng = np.random.default_rng(0)
    folder = tmp_path / "tokens"
    folder.mkdir()
    rng.integers(0, 1024, 50_000, dtype=np.uint16).tofile(folder / "train.bin")
    rng.integers(0, 1024, 20_000, dtype=np.uint16).tofile(folder / "val.bin")
    return folder


@pytest.fixture()
def synthetic_archive(tmp_path: Path) -> Path:
    return pack_archive(tmp_path / "sweep.zip", {"mini": SYNTHETIC})
