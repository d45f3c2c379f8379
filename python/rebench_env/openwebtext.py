"""OpenWebText as nanoGPT prepares it (``data/openwebtext/prepare.py``), for the paper variants.

:func:`prepare_openwebtext`: the Hugging Face ``openwebtext`` dataset, ``train_test_split(test_size=0.0005,
seed=2357)``, the ``test`` part renamed ``val``, every document's ids followed by end-of-text, written as
flat ``uint16`` ``train.bin`` and ``val.bin`` with ``meta.json`` (as the tokens assets). Used by
fix_embedding and restricted_mlm (``paper``); tested on stand-ins in fix_embedding's tests/test_fix_embedding_paper.py
and restricted_mlm's tests.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from rebench_env.tokens import TOKEN_DTYPE


def write_token_file(texts: Iterable[str], path: Path, encode_batch: Callable[[Sequence[str]], list[list[int]]], eot: int, batch: int = 1024) -> int:
    """Every text's ids followed by ``eot``, appended to ``path`` as ``uint16``, streaming; returns the token count."""
    total = 0
    stream = iter(texts)
    with open(path, "wb") as f:
        while chunk := list(itertools.islice(stream, batch)):
            for ids in encode_batch(chunk):
                np.asarray([*ids, eot], dtype=TOKEN_DTYPE).tofile(f)
                total += len(ids) + 1
    return total


def write_splits(splits: Mapping[str, Iterable[str]], out: Path, tokenizer_dir: Path) -> dict[str, int]:
    """``<split>.bin`` per split and ``meta.json`` (as the tokens assets), with the GPT-2 tokenizer asset."""
    from rebench_env.tokenizer import load_tokenizer

    tokenizer = load_tokenizer(tokenizer_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = {name: write_token_file(texts, out / f"{name}.bin", tokenizer.encode_batch, tokenizer.eot_id) for name, texts in splits.items()}
    meta = {"tokenizer": tokenizer.name, "vocab_size": tokenizer.vocab_size, "eot_id": tokenizer.eot_id, "tokens": counts}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return counts


def prepare_openwebtext(out: Path, test_size: float, seed: int, tokenizer_dir: Path, num_proc: int = 8) -> dict[str, int]:
    """nanoGPT's OpenWebText preparation into ``out`` (train.bin, val.bin, meta.json)."""
    from datasets import load_dataset

    dataset = load_dataset("openwebtext", num_proc=num_proc, trust_remote_code=True)
    split = dataset["train"].train_test_split(test_size=test_size, seed=seed, shuffle=True)
    texts = {"train": (row["text"] for row in split["train"]), "val": (row["text"] for row in split["test"])}
    return write_splits(texts, out, tokenizer_dir)
