"""Every raw file a corpus source reads is hidden from sandboxes (rebench_env/assets/hidden-sources.json)."""

from __future__ import annotations

import glob
import json
import subprocess
from pathlib import Path

import rebench_env.assets as assets
from rebench_env.assets.sources import SOURCES

HIDDEN = json.loads((Path(assets.__file__).parent / "hidden-sources.json").read_text())["paths"]


def hidden(path: Path) -> bool:
    resolved = path.resolve()
    for pattern in HIDDEN:
        for root in glob.glob(pattern) or [pattern]:
            root_path = Path(root).resolve()
            if resolved == root_path or root_path in resolved.parents:
                return True
    return False


def test_every_source_file_is_hidden_from_sandboxes():
    for name, source in SOURCES.items():
        files = source.files()
        assert files, name
        # /usr/bin/bible is the KJV's program, not its text: without its data it prints nothing.
        shown = [str(f) for f in files if not hidden(f) and f.name != "bible"]
        assert shown == [], f"{name}: add these to hidden-sources.json"


def owning_packages(paths: list[Path]) -> set[str]:
    """The Debian packages that install ``paths`` (``dpkg -S``)."""
    out = subprocess.run(["dpkg", "-S", *map(str, paths)], capture_output=True, text=True, check=False).stdout
    return {pkg.strip() for line in out.splitlines() if ": " in line for pkg in line.split(": ", 1)[0].split(",")}


def test_every_large_file_of_the_sources_packages_is_hidden_too():
    """Another form of a source's text (python3.X-doc's Info manual holds most of the documentation's words)
    is as good as the source: every file over 64 KiB of a package that installs a source file is hidden."""
    packages = owning_packages([f for source in SOURCES.values() for f in source.files()])
    assert {"bible-kjv-text", "jargon-text", "dict-gcide"} <= packages, packages
    shown = []
    for package in sorted(packages):
        listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True).stdout.splitlines()
        for name in listed:
            path = Path(name)
            if path.is_file() and not path.is_symlink() and path.stat().st_size > 64 * 1024 and path.name != "bible" and not hidden(path):
                shown.append(f"{package}: {path}")
    assert shown == [], "add these to hidden-sources.json"
