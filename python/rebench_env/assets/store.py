"""The asset store: content-keyed, atomically swapped asset folders under ``$REBENCH_HOME/assets``.

An asset's key is the sha256 of everything it is built from (its spec, its dependencies' keys, the hash of
the code that builds it, and for source assets the hash of the raw inputs). A build writes into a fresh
temporary folder, hashes every file into ``asset.json``, renames the folder to ``.store/<name>-<key>`` and
then replaces the ``<name>`` symlink in one ``rename``: a crash at any point leaves either the old asset or
the new one, never half of one. A per-asset lock file serializes concurrent builders.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from rebench_env.assets import RECORD_FILE

FORMAT_VERSION = 1
STORE_DIR = ".store"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def asset_key(inputs: dict[str, Any]) -> str:
    """The sha256 of the canonical JSON of ``inputs``."""
    text = json.dumps({"format": FORMAT_VERSION, **inputs}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_hash(paths: list[Path]) -> str:
    """One sha256 over the named source files (by file name and content)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class AssetStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, name: str) -> Path:
        return self.root / name

    def record(self, name: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.path(name) / RECORD_FILE).read_text())
        except (FileNotFoundError, NotADirectoryError, json.JSONDecodeError):
            return None

    def is_current(self, name: str, key: str) -> bool:
        record = self.record(name)
        return record is not None and record.get("key") == key

    def records(self) -> list[dict[str, Any]]:
        """Every built asset's record, by name."""
        if not self.root.is_dir():
            return []
        out = []
        for entry in sorted(self.root.iterdir()):
            if entry.name.startswith("."):
                continue
            record = self.record(entry.name)
            if record is not None:
                record["path"] = str(entry)
                out.append(record)
        return out

    @contextmanager
    def lock(self, name: str) -> Iterator[None]:
        locks = self.root / STORE_DIR / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        with open(locks / f"{name}.lock", "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def build(
        self,
        name: str,
        kind: str,
        key: str,
        inputs: dict[str, Any],
        builder: Callable[[Path], dict[str, Any]],
    ) -> tuple[dict[str, Any], bool]:
        """Build ``name`` unless its current key is ``key``; returns (record, built)."""
        with self.lock(name):
            record = self.record(name)
            if record is not None and record.get("key") == key:
                return record, False
            store = self.root / STORE_DIR
            for stale in store.glob(f".tmp-{name}-*"):  # left by a killed build (we hold the lock)
                if _is_version_of(stale.name[len(".tmp-") :], name):
                    shutil.rmtree(stale, ignore_errors=True)
            tmp = store / f".tmp-{name}-{uuid.uuid4().hex[:8]}"
            tmp.mkdir(parents=True)
            try:
                started = time.time()
                summary = builder(tmp)
                record = {
                    "name": name,
                    "kind": kind,
                    "key": key,
                    "inputs": inputs,
                    "summary": summary,
                    "files": _describe_files(tmp),
                    "builtAt": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "buildSeconds": round(time.time() - started, 3),
                    "format": FORMAT_VERSION,
                }
                (tmp / RECORD_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
                _fsync_tree(tmp)
                final = store / f"{name}-{key[:16]}"
                if final.exists():
                    shutil.rmtree(final)
                os.rename(tmp, final)
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            self._point(name, final)
            return record, True

    def _point(self, name: str, target: Path) -> None:
        """Make ``<root>/<name>`` a symlink to ``target`` in one rename, then drop older versions."""
        link = self.path(name)
        if link.exists() and not link.is_symlink():  # a real folder (copied with cp -rL): move it aside
            os.rename(link, self.root / STORE_DIR / f".old-{name}-{uuid.uuid4().hex[:8]}")
        tmp_link = self.root / f".link-{name}-{uuid.uuid4().hex[:8]}"
        os.symlink(os.path.relpath(target, self.root), tmp_link)
        os.replace(tmp_link, link)
        for old in (self.root / STORE_DIR).iterdir():
            aside = old.name.startswith(".old-") and _is_version_of(old.name[len(".old-") :], name)
            if aside or (old != target and _is_version_of(old.name, name)):
                shutil.rmtree(old, ignore_errors=True)


def _is_version_of(folder: str, name: str) -> bool:
    """``<name>-<hex>``: a folder of asset ``name`` (not of ``<name>-tiny``, whose suffix has a dash)."""
    suffix = folder[len(name) + 1 :] if folder.startswith(f"{name}-") else ""
    return bool(suffix) and all(c in "0123456789abcdef" for c in suffix)


def _describe_files(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        str(p.relative_to(folder)): {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _fsync_tree(folder: Path) -> None:
    for p in folder.rglob("*"):
        if p.is_file():
            with open(p, "rb") as f:
                os.fsync(f.fileno())
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
