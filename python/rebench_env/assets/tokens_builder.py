"""Build token files: every corpus split encoded with one tokenizer, as flat ``uint16`` arrays.

Output: ``train.bin``, ``val.bin``, ``test.bin`` (each document's ids followed by the end-of-text id, in the
corpus' document order, as nanoGPT's ``prepare.py``) and ``meta.json`` (tokenizer, vocabulary size,
end-of-text id, token counts).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from rebench_env.corpus import SPLITS, read_documents
from rebench_env.tokenizer import load_tokenizer
from rebench_env.tokens import MAX_VOCAB, TOKEN_DTYPE

CHUNK_DOCS = 4096


@dataclass(frozen=True)
class TokensSpec:
    corpus: str
    tokenizer: str


def build_tokens(
    spec: TokensSpec,
    corpus_dir: Path,
    tokenizer_dir: Path,
    out_dir: Path,
    progress: Callable[[str], None],
    threads: int = 2,
) -> dict[str, Any]:
    tokenizer = load_tokenizer(tokenizer_dir)
    if tokenizer.vocab_size > MAX_VOCAB:
        raise ValueError(f"vocabulary of {tokenizer.vocab_size} does not fit uint16 token files")
    counts: dict[str, int] = {}
    for split in SPLITS:
        n = 0
        with open(out_dir / f"{split}.bin", "wb") as f:
            batch: list[str] = []

            def flush() -> int:
                ids = tokenizer.encode_batch(batch, threads=threads)
                flat = np.fromiter(
                    (t for doc in ids for t in (*doc, tokenizer.eot_id)),
                    dtype=TOKEN_DTYPE, count=sum(len(d) + 1 for d in ids),
                )  # fmt: skip
                f.write(flat.tobytes())
                batch.clear()
                return int(flat.size)

            for doc in read_documents(split, corpus_dir):
                batch.append(doc["text"])
                if len(batch) >= CHUNK_DOCS:
                    n += flush()
            if batch:
                n += flush()
        counts[split] = n
        progress(f"{split}.bin: {n:,} tokens")
    meta = {
        "tokenizer": spec.tokenizer,
        "tokenizer_name": tokenizer.name,
        "corpus": spec.corpus,
        "vocab_size": tokenizer.vocab_size,
        "eot_id": tokenizer.eot_id,
        "dtype": "uint16",
        "tokens": counts,
    }
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta
