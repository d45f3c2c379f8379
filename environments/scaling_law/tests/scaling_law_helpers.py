"""Shared pieces of the scaling_law tests: the grader's folder (put on the path), a synthetic sweep and its
archive, and loading a module under a name of its own. A module of its own name, not conftest.py: other
environments' tests have a conftest and modules called ``unpack`` too, and ``from conftest import ...``
can find theirs.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

GRADER = Path(__file__).resolve().parents[1] / "grader"
if str(GRADER) not in sys.path:
    sys.path.insert(0, str(GRADER))

import ground_truth  # noqa: E402

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


def load_module(path: Path, name: str) -> ModuleType:
    """Import ``path`` as module ``name`` (a name no other environment's tests use)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
