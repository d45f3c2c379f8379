"""Loading a built tokenizer asset, offline, behind one small interface.

Two kinds, told apart by the asset's ``meta.json``:

- ``tiktoken``: the GPT-2 BPE. Its ranks (``gpt2.tiktoken``, tiktoken's ``base64 rank`` line format) were
  extracted from the npm package ``tiktoken`` and are loaded into Python's ``tiktoken.Encoding`` without
  any download.
- ``hf``: a small byte-level BPE trained on the corpus with the ``tokenizers`` library (``tokenizer.json``).

Both put ``<|endoftext|>`` at the last id (``vocab_size - 1``), like GPT-2's 50256.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any, Sequence

from rebench_env.assets import require_asset

EOT = "<|endoftext|>"


class Tokenizer:
    """``encode`` / ``decode`` / ``encode_batch`` plus ``vocab_size`` and ``eot_id``."""

    def __init__(self, directory: Path, meta: dict[str, Any]) -> None:
        self.directory = directory
        self.meta = meta
        self.name: str = meta["name"]
        self.kind: str = meta["kind"]
        self.vocab_size: int = int(meta["vocab_size"])
        self.eot_id: int = int(meta["eot_id"])
        if self.kind == "tiktoken":
            import tiktoken

            self._tt = tiktoken.Encoding(
                name=meta["name"],
                pat_str=meta["pat_str"],
                mergeable_ranks=load_tiktoken_ranks(directory / meta["file"]),
                special_tokens={k: int(v) for k, v in meta["special_tokens"].items()},
                explicit_n_vocab=self.vocab_size,
            )
        elif self.kind == "hf":
            from tokenizers import Tokenizer as HfTokenizer

            self._hf = HfTokenizer.from_file(str(directory / meta["file"]))
        else:
            raise ValueError(f"unknown tokenizer kind {self.kind!r} in {directory}/meta.json")

    def encode(self, text: str) -> list[int]:
        """Ids of ``text``; special tokens in the text are treated as plain text."""
        if self.kind == "tiktoken":
            return self._tt.encode_ordinary(text)
        return self._hf.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts: Sequence[str], threads: int = 2) -> list[list[int]]:
        if self.kind == "tiktoken":
            return self._tt.encode_ordinary_batch(list(texts), num_threads=threads)
        return [e.ids for e in self._hf.encode_batch(list(texts), add_special_tokens=False)]

    def decode(self, ids: Sequence[int]) -> str:
        if self.kind == "tiktoken":
            return self._tt.decode(list(ids))
        return self._hf.decode(list(ids), skip_special_tokens=False)


def load_tiktoken_ranks(path: str | os.PathLike[str]) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (``base64(token) rank`` per line)."""
    ranks: dict[bytes, int] = {}
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    return ranks


def load_tokenizer(name_or_dir: str | os.PathLike[str], home: str | os.PathLike[str] | None = None) -> Tokenizer:
    """A tokenizer from an asset name (``tokenizer-gpt2``, ``tokenizer-bpe4k``) or an asset folder."""
    candidate = Path(name_or_dir)
    directory = candidate if (candidate / "meta.json").exists() else require_asset(str(name_or_dir), home)
    return Tokenizer(directory, json.loads((directory / "meta.json").read_text()))
