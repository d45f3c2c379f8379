"""OpenWebText as nanoGPT's token files, for the paper variant (what the original's ``start()`` ran).

    python prepare_openwebtext.py OUT_DIR            # needs the network and the `datasets` package

The same recipe as nanoGPT's ``data/openwebtext/prepare.py``: the Hugging Face ``openwebtext`` train split,
0.05% held out as ``val`` (``train_test_split(test_size=0.0005, seed=2357, shuffle=True)``), every document
encoded with the GPT-2 BPE (``encode_ordinary``) followed by the end-of-text id 50256, and each split
written as one flat ``uint16`` file (``train.bin``: about 9B tokens, 17 GB; ``val.bin``: about 4M tokens).

Loading is separate from tokenizing and writing (:func:`write_split`), so the part that does not need the
network is tested on a stand-in corpus (tests/test_scaling_law_paper.py). The GPT-2 encoder comes from the offline
``tokenizer-gpt2`` asset when it is built (the same ids as tiktoken's), else from tiktoken (which downloads
its ranks).

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

GPT2_EOT = 50256
VAL_FRACTION = 0.0005
SPLIT_SEED = 2357

Encode = Callable[[Sequence[str]], list[list[int]]]


def gpt2_encoder() -> Encode:
    """Batch GPT-2 encoding without special tokens: the offline asset if built, else tiktoken."""
    try:
        from rebench_env.tokenizer import load_tokenizer

        tokenizer = load_tokenizer("tokenizer-gpt2")
        return lambda texts: tokenizer.encode_batch(texts, threads=8)
    except FileNotFoundError:
        import tiktoken

        encoding = tiktoken.get_encoding("gpt2")
        return lambda texts: encoding.encode_ordinary_batch(list(texts), num_threads=8)


def load_openwebtext(num_proc: int = 8) -> dict[str, Any]:
    """``{"train": dataset, "val": dataset}`` split as nanoGPT splits it (downloads about 54 GB once)."""
    from datasets import load_dataset  # type: ignore[import-not-found]

    dataset = load_dataset("openwebtext", num_proc=num_proc, trust_remote_code=True)
    split = dataset["train"].train_test_split(test_size=VAL_FRACTION, seed=SPLIT_SEED, shuffle=True)
    return {"train": split["train"], "val": split["test"]}


def batches(texts: Iterable[str], size: int) -> Iterable[list[str]]:
    batch: list[str] = []
    for text in texts:
        batch.append(text)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def write_split(path: Path, texts: Iterable[str], encode: Encode, eot: int = GPT2_EOT, batch_size: int = 1024) -> int:
    """Encode every document, append ``eot`` to each and write the ids as ``uint16``; returns the count."""
    partial = path.with_suffix(path.suffix + ".partial")
    count = 0
    with open(partial, "wb") as out:
        for batch in batches(texts, batch_size):
            for ids in encode(batch):
                ids = list(ids) + [eot]
                array = np.asarray(ids, dtype=np.int64)
                if array.size and (array.min() < 0 or array.max() > 65535):
                    raise ValueError("token ids must fit uint16")
                array.astype(np.uint16).tofile(out)
                count += int(array.size)
    os.replace(partial, path)
    return count


def prepare(out_dir: Path, splits: dict[str, Any] | None = None, encode: Encode | None = None) -> dict[str, int]:
    """Write ``train.bin`` and ``val.bin`` into ``out_dir``; returns the token count of each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    splits = splits if splits is not None else load_openwebtext()
    encode = encode or gpt2_encoder()
    counts = {}
    for name in ("val", "train"):
        texts = (row["text"] for row in splits[name])
        counts[name] = write_split(out_dir / f"{name}.bin", texts, encode)
        print(f"{name}.bin: {counts[name]:,} tokens", flush=True)
    return counts


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", type=Path)
    prepare(parser.parse_args().out_dir)
