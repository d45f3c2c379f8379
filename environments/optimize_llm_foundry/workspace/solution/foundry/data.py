"""The finetuning dataset: tokenized rows, padded to ``max_seq_len``, loss on the response tokens only.

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

IGNORE = -100


def save_rows(path: Path, rows: list[list[int]], prompt_lens: list[int]) -> None:
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    flat = np.array([t for r in rows for t in r], dtype=np.int64)
    np.savez(path, tokens=flat, lengths=lengths, prompt_lens=np.array(prompt_lens, dtype=np.int64))


class FinetuningDataset(torch.utils.data.Dataset):
    """Row ``i`` as ``{"input_ids", "labels"}`` (labels are IGNORE on the prompt)."""

    def __init__(self, folder: str | Path) -> None:
        with np.load(Path(folder) / "rows.npz") as data:
            self.tokens = data["tokens"]
            self.lengths = data["lengths"]
            self.prompt_lens = data["prompt_lens"]
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)])

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        ids = torch.from_numpy(self.tokens[self.offsets[i]:self.offsets[i + 1]].copy())
        labels = ids.clone()
        labels[: int(self.prompt_lens[i])] = IGNORE
        return {"input_ids": ids, "labels": labels}


class PadToMaxLen:
    """Collate rows into a batch padded to ``max_seq_len`` (pad id 0; padded labels ignored)."""

    def __init__(self, max_seq_len: int) -> None:
        self.max_seq_len = max_seq_len

    def __call__(self, rows: list[dict[str, torch.Tensor]]) -> dict[str, Any]:
        ids = torch.zeros(len(rows), self.max_seq_len, dtype=torch.long)
        labels = torch.full((len(rows), self.max_seq_len), IGNORE, dtype=torch.long)
        for j, row in enumerate(rows):
            n = len(row["input_ids"])
            ids[j, :n] = row["input_ids"]
            labels[j, :n] = row["labels"]
        return {"input_ids": ids, "labels": labels}


def shuffled_order(n: int, seed: int) -> list[int]:
    """The order of one epoch: a permutation of ``range(n)`` under ``seed``."""
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()
