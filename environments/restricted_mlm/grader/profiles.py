"""The variants' settings (``profiles.json`` beside this file), read by the set-up and the grader.

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROFILES_FILE = Path(__file__).resolve().parent / "profiles.json"


@dataclass(frozen=True)
class Profile:
    name: str
    tokens: dict[str, Any]
    vocab_size: int
    seq_len: int
    start_model: dict[str, Any]
    floor: float
    eval: dict[str, Any]
    max_export_mb: float
    export_timeout_s: float
    text: dict[str, Any]


def load_profile(path: str | Path = PROFILES_FILE, name: str = "mini") -> Profile:
    profiles = json.loads(Path(path).read_text())["profiles"]
    if name not in profiles:
        raise KeyError(f"no restricted_mlm profile {name!r}; known: {', '.join(profiles)}")
    return Profile(name=name, **profiles[name])
