"""Token files: flat ``uint16`` arrays like nanoGPT's ``train.bin``, read as memmaps, sampled as windows.

A token file is the raw little-endian ``uint16`` ids of every document of a split, each document followed by
the tokenizer's end-of-text id; no header. Readers memory-map it, so a grader or training loop never loads
the whole file. Batches are random windows (nanoGPT's ``get_batch``) drawn from a seeded generator, so a
grader that fixes the seed evaluates the same windows every time.
"""

from __future__ import annotations

import os
from typing import Iterable

import numpy as np
import torch

TOKEN_DTYPE = np.uint16
MAX_VOCAB = int(np.iinfo(TOKEN_DTYPE).max) + 1


def write_tokens(path: str | os.PathLike[str], ids: np.ndarray | Iterable[int]) -> int:
    """Write ids as ``uint16``; returns the number of tokens. Ids must be below 65,536."""
    array = np.asarray(ids if isinstance(ids, np.ndarray) else list(ids))
    if array.size and (array.min() < 0 or array.max() >= MAX_VOCAB):
        raise ValueError(f"token ids must lie in [0, {MAX_VOCAB}) to fit uint16")
    array.astype(TOKEN_DTYPE).tofile(os.fspath(path))
    return int(array.size)


def read_tokens(path: str | os.PathLike[str]) -> np.memmap:
    """The token file as a read-only ``uint16`` memmap."""
    return np.memmap(os.fspath(path), dtype=TOKEN_DTYPE, mode="r")


def window_starts(n_tokens: int, block_size: int, batch_size: int, generator: torch.Generator) -> torch.Tensor:
    """``batch_size`` random window starts, as nanoGPT: ``randint(len(data) - block_size)``."""
    if n_tokens <= block_size + 1:
        raise ValueError(f"{n_tokens} tokens are too few for windows of {block_size} + 1")
    return torch.randint(n_tokens - block_size, (batch_size,), generator=generator)


def random_batch(
    data: np.ndarray,
    batch_size: int,
    block_size: int,
    generator: torch.Generator,
    device: str | torch.device = "cpu",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs ``x`` and next-token targets ``y``, each ``(batch_size, block_size)`` int64."""
    starts = window_starts(len(data), block_size, batch_size, generator).numpy()
    rows = np.asarray(data[starts[:, None] + np.arange(block_size + 1)], dtype=np.int64)
    chunk = torch.from_numpy(rows)
    x, y = chunk[:, :-1], chunk[:, 1:]
    if torch.device(device).type == "cuda":
        return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
    return x.contiguous().to(device), y.contiguous().to(device)


class TokenBatches:
    """An endless, seeded stream of random window batches from one token file."""

    def __init__(
        self,
        data: np.ndarray,
        batch_size: int,
        block_size: int,
        seed: int,
        device: str | torch.device = "cpu",
    ) -> None:
        self.data = data
        self.batch_size = batch_size
        self.block_size = block_size
        self.device = device
        self.generator = torch.Generator().manual_seed(seed)

    def __iter__(self) -> "TokenBatches":
        return self

    def __next__(self) -> tuple[torch.Tensor, torch.Tensor]:
        return random_batch(self.data, self.batch_size, self.block_size, self.generator, self.device)
