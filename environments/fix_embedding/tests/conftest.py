"""Fixtures of the fix_embedding tests (helpers in fix_embedding_helpers.py).

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fix_embedding_helpers import Sandbox, build_tiny_assets


@pytest.fixture(scope="session")
def assets_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("rebench-home"))


@pytest.fixture
def sandbox(tmp_path: Path, assets_home: Path) -> Sandbox:
    return Sandbox(tmp_path, assets_home)
