"""Fixtures of the optimize_llm_foundry tests (helpers in foundry_helpers.py).

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from foundry_helpers import Sandbox, build_tiny_assets


@pytest.fixture(scope="session")
def assets_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("rebench-home"))


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory, assets_home: Path) -> Sandbox:
    """One set-up (one reference run) shared by the tests that only read it or score copies of the solution."""
    return Sandbox(tmp_path_factory.mktemp("foundry"), assets_home)
