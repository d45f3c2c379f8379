"""The variants' settings (``profiles.json`` beside this file), read by the set-up and the grader.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
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
    small: dict[str, Any]
    large: dict[str, Any]
    dtype: str
    floor: float
    eval: dict[str, Any]
    max_model_mb: float
    text: dict[str, Any]
    # The raw score is ln(val - floor) - ln(original val - floor), the original's loss measured at set-up
    # (README.md, "Scoring"); False (paper): the paper's ln(val - floor).
    yardstick: bool = False


def load_profile(path: str | Path = PROFILES_FILE, name: str = "mini") -> Profile:
    profiles = json.loads(Path(path).read_text())["profiles"]
    if name not in profiles:
        raise KeyError(f"no fix_embedding profile {name!r}; known: {', '.join(profiles)}")
    return Profile(name=name, **profiles[name])
