"""Hugging Face models in graders and set-ups: where a model's folder is, and a submitted folder's weights read safely.

- :func:`hf_source`: ``<root>/<name>`` (``root`` defaults to ``$REBENCH_HF_MODELS``) when that folder exists, else
  ``name`` itself, a hub id or path for ``from_pretrained`` (set ``HF_HUB_OFFLINE=1`` where there is no internet).
  fix_embedding's and optimize_llm_foundry's ``grader/paper.py`` each hold the same function without ``root``.
- :func:`read_safetensors`: the tensors of a ``save_pretrained`` folder that agent code wrote, read as a grader must:
  the folder and each file opened without following links (a link could point the grader at a file only it can read),
  only safetensors (``model.safetensors`` or the shards its index names, plain file names), nothing unpickled, the
  bytes capped. Returns the tensors and the SHA-256 of the files read.
- :func:`load_strict`: those tensors into a model built from the grader's own configuration: every parameter from the
  file (none left at its initialization), no other names, the same shapes, floating point, finite. Weights tied to
  each other (GPT-2's ``lm_head.weight`` is ``transformer.wte.weight``) may come once; if both come they must be equal.

optimize_llm_foundry's ``stage_hf_output`` does the reading part for its ``trained_model/`` (copying into a grader-only
folder for ``AutoModel.from_pretrained``); this one loads the tensors in memory and checks them itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path
from typing import Any, Mapping

import torch

INDEX = "model.safetensors.index.json"
SHARD_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.safetensors$")
PICKLED = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


class Refused(ValueError):
    """The submitted folder is not a safe, complete set of weights for the model."""


def hf_source(name: str, root: str | os.PathLike[str] | None = None) -> str:
    """A local folder for ``name`` under ``root`` (default ``$REBENCH_HF_MODELS``), else ``name`` itself (hub id or path)."""
    base = root if root is not None else os.environ.get("REBENCH_HF_MODELS")
    if base and (Path(base) / name).is_dir():
        return str(Path(base) / name)
    return name


def _read_in(folder_fd: int, name: str, what: str, limit: int) -> bytes:
    """The bytes of the plain file ``name`` in the open folder, at most ``limit`` of them; links are refused."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder_fd)
    except FileNotFoundError:
        raise Refused(f"{what} has no {name}") from None
    except OSError as err:
        raise Refused(f"{what}/{name} cannot be read: {err.strerror} (links are refused)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{what}/{name} is not a plain file")
        if info.st_size > limit:
            raise Refused(f"{what}/{name} is {info.st_size} bytes, over the {limit} left of the limit on the weights")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        if len(data) > limit:
            raise Refused(f"{what}/{name} is over the limit on the weights")
        return data
    finally:
        os.close(fd)


def read_safetensors(folder: Path, max_bytes: int, what: str = "finetuned_model") -> tuple[dict[str, torch.Tensor], str]:
    """The tensors of the safetensors weights in ``folder`` and the SHA-256 of those files (name and bytes, in name order)."""
    from safetensors.torch import load as load_safetensors

    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise Refused(f"there is no {what}/") from None
    except OSError:
        raise Refused(f"{what} is not a plain folder (links are refused)") from None
    try:
        names = set(os.listdir(folder_fd))
        if INDEX in names:
            try:
                shards = sorted(set(json.loads(_read_in(folder_fd, INDEX, what, 64 * 2**20))["weight_map"].values()))
            except (ValueError, KeyError, TypeError, AttributeError):
                raise Refused(f"{what}/{INDEX} is not a safetensors index") from None
            bad = [s for s in shards if not (isinstance(s, str) and SHARD_NAME.match(s))]
            if bad or not shards:
                raise Refused(f"{what}/{INDEX} names shards that are not plain .safetensors file names: {bad[:3]}")
        elif "model.safetensors" in names:
            shards = ["model.safetensors"]
        else:
            pickled = sorted(n for n in names if n.endswith(PICKLED))
            raise Refused(
                f"{what}/ holds no safetensors weights (model.safetensors, or the shards of {INDEX}: save_pretrained's format)"
                + (f"; {', '.join(pickled[:3])} is not read (the grader unpickles nothing)" if pickled else "")
            )
        digest = hashlib.sha256()
        tensors: dict[str, torch.Tensor] = {}
        left = max_bytes
        for name in shards:
            data = _read_in(folder_fd, name, what, left)
            left -= len(data)
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
            try:
                part = load_safetensors(data)
            except Exception as err:  # noqa: BLE001 - any parse error is the submission's
                raise Refused(f"{what}/{name} is not a safetensors file: {str(err)[:200]}") from None
            twice = sorted(set(part) & set(tensors))
            if twice:
                raise Refused(f"{what}: {twice[:3]} appear in more than one shard")
            tensors.update(part)
        return tensors, digest.hexdigest()
    finally:
        os.close(folder_fd)


def load_strict(model: torch.nn.Module, tensors: Mapping[str, torch.Tensor], what: str = "finetuned_model") -> None:
    """Load ``tensors`` into ``model`` (built from the grader's configuration), refusing anything but a complete fit."""
    expected = model.state_dict()
    groups: dict[Any, list[str]] = {}
    for key, value in expected.items():  # tied weights share storage: one group each
        groups.setdefault((value.untyped_storage().data_ptr(), value.storage_offset(), tuple(value.shape)), []).append(key)
    missing = [keys[0] for keys in groups.values() if not any(k in tensors for k in keys)]
    unexpected = sorted(set(tensors) - set(expected))
    if missing or unexpected:
        raise Refused(f"{what} does not fit the base model's architecture: missing {missing[:5]}, unexpected {unexpected[:5]}")
    for key, value in tensors.items():
        if tuple(value.shape) != tuple(expected[key].shape):
            raise Refused(f"{what}: {key} has shape {tuple(value.shape)}, the base model {tuple(expected[key].shape)}")
        if not value.is_floating_point():
            raise Refused(f"{what}: {key} is {value.dtype}, not floating point")
        if not torch.isfinite(value).all():
            raise Refused(f"{what}: {key} has non-finite values")
    for keys in groups.values():
        given = [k for k in keys if k in tensors]
        if any(not torch.equal(tensors[given[0]], tensors[k]) for k in given[1:]):
            raise Refused(f"{what}: {given} are one tied weight in the base model but differ in the file")
    with torch.no_grad():
        for key, value in tensors.items():
            expected[key].copy_(value)
