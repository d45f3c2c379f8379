"""finetune.yaml with its ``${...}`` references resolved and ``key.sub=value`` overrides applied (as OmegaConf).

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import os
import re
from typing import Any

import yaml

_REF = re.compile(r"\$\{([^}]+)\}")


def _lookup(root: dict[str, Any], dotted: str) -> Any:
    if dotted.startswith("oc.env:"):
        name = dotted[len("oc.env:"):]
        if name not in os.environ:
            raise KeyError(f"finetune.yaml needs the environment variable {name} (set by env.sh)")
        return yaml.safe_load(os.environ[name])
    node: Any = root
    for part in dotted.split("."):
        node = node[part]
    return node


def _resolve(node: Any, root: dict[str, Any], depth: int = 0) -> Any:
    if depth > 20:
        raise ValueError("finetune.yaml: references nest too deep")
    if isinstance(node, dict):
        return {k: _resolve(v, root, depth) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v, root, depth) for v in node]
    if isinstance(node, str):
        whole = _REF.fullmatch(node)
        if whole:
            return _resolve(_lookup(root, whole.group(1)), root, depth + 1)
        return _REF.sub(lambda m: str(_resolve(_lookup(root, m.group(1)), root, depth + 1)), node)
    return node


def _set(root: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = root
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def load_config(path: str, overrides: list[str]) -> dict[str, Any]:
    """The run's configuration: the YAML file, then each ``key=value`` override, then references resolved."""
    with open(path) as f:
        cfg = yaml.safe_load(f)
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"override {item!r} is not key=value")
        _set(cfg, key, yaml.safe_load(value))
    return _resolve(cfg, cfg)


def batches(value: str | int) -> int:
    """A duration in batches: ``20ba`` -> 20."""
    if isinstance(value, int):
        return value
    if not value.endswith("ba"):
        raise ValueError(f"a duration in batches ends in 'ba', not {value!r}")
    return int(value[:-2])
