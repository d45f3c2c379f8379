"""Fixtures of the finetune_gpt2_qa tests: the tiny assets (built once) and a set-up sandbox.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from gpt2_qa_helpers import Sandbox, build_tiny_assets


@pytest.fixture(scope="session")
def assets_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_assets(tmp_path_factory.mktemp("rebench-home"))


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory, assets_home: Path) -> Iterator[Sandbox]:
    box = Sandbox(tmp_path_factory.mktemp("gpt2qa"), assets_home)
    done = box.setup()
    assert done.returncode == 0, done.stderr[-3000:]
    yield box
    box.stop_judge()
