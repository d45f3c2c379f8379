"""Fixtures of the restricted_mlm tests (helpers in rmlm_helpers.py).

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rmlm_helpers import Sandbox, build_tiny_assets


@pytest.fixture(scope="session")
def assets_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("rebench-home"))


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory, assets_home: Path) -> Sandbox:
    return Sandbox(tmp_path_factory.mktemp("rmlm"), assets_home)
