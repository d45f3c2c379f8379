"""Reading the built corpus: documents of one split as ``{"id", "source", "text"}`` dicts.

The corpus asset (``rebench assets build --only corpus``) holds ``train.jsonl``, ``val.jsonl`` and
``test.jsonl`` (the hidden split) plus ``manifest.json``; see ``rebench_env.assets.corpus_builder``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterator

from rebench_env.assets import require_asset

SPLITS = ("train", "val", "test")


def corpus_dir(name: str = "corpus", home: str | os.PathLike[str] | None = None) -> Path:
    """The folder of a built corpus asset (raises with the build command when it is missing)."""
    return require_asset(name, home)


def read_documents(split: str, directory: str | os.PathLike[str] | None = None) -> Iterator[dict[str, Any]]:
    """The documents of ``split`` (train, val or test) in file order; ``directory`` defaults to the asset."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    folder = Path(directory) if directory is not None else corpus_dir()
    with open(folder / f"{split}.jsonl", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def read_manifest(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    folder = Path(directory) if directory is not None else corpus_dir()
    return json.loads((folder / "manifest.json").read_text())
