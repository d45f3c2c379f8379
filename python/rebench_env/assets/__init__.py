"""Finding built assets: corpus, tokenizers, token files and pretrained models under ``$REBENCH_HOME/assets``.

Graders and environment set-up call :func:`require_asset` with an asset name from the catalog
(``rebench_env.assets.catalog``); it returns the asset's folder or raises :class:`AssetMissingError` whose
message gives the command that builds it. Builders live in the sibling modules; this module imports
nothing heavy.

Layout: ``assets/<name>`` is a symbolic link to ``assets/.store/<name>-<key>/``, swapped atomically when a
build finishes, so a reader never sees half an asset. Each asset folder has ``asset.json`` (its record:
key, inputs, files with sizes and sha256, build time, a kind-specific summary).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

RECORD_FILE = "asset.json"


class AssetMissingError(FileNotFoundError):
    """An asset is not built; the message says how to build it."""


def rebench_home(home: str | os.PathLike[str] | None = None) -> Path:
    """``home``, else ``$REBENCH_HOME``, else ``~/.rebench``."""
    if home is not None:
        return Path(home)
    return Path(os.environ.get("REBENCH_HOME") or Path.home() / ".rebench")


def assets_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The assets folder: ``<rebench home>/assets``."""
    return rebench_home(home) / "assets"


def asset_path(name: str, home: str | os.PathLike[str] | None = None) -> Path:
    """Where asset ``name`` lives (whether or not it is built)."""
    return assets_home(home) / name


def read_record(name: str, home: str | os.PathLike[str] | None = None) -> dict[str, Any] | None:
    """The asset's ``asset.json``, or None when it is not built."""
    path = asset_path(name, home) / RECORD_FILE
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return None


def require_asset(name: str, home: str | os.PathLike[str] | None = None) -> Path:
    """The folder of a built asset; raises :class:`AssetMissingError` with the build command if missing."""
    if read_record(name, home) is None:
        raise AssetMissingError(
            f"asset {name!r} is not built in {assets_home(home)}: run `rebench assets build --only {name}`"
        )
    return asset_path(name, home)


__all__ = ["AssetMissingError", "asset_path", "assets_home", "read_record", "rebench_home", "require_asset"]
