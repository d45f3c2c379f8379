"""Build the tokenizer assets: the GPT-2 BPE from npm's ranks, and a small BPE trained on the corpus.

GPT-2: the npm package ``tiktoken`` ships ``encoders/gpt2.json`` (``pat_str``, ``special_tokens`` and the
ranks in js-tiktoken's compressed form: per line ``<ignored> <first rank> <base64 token> ...``). We expand
it into tiktoken's plain ``.tiktoken`` format, which Python's ``tiktoken.Encoding`` loads offline.

Small BPE: byte-level BPE (GPT-2's pre-tokenizer) trained with the ``tokenizers`` library on the corpus'
train split; ``vocab_size - 1`` learned tokens, then ``<|endoftext|>`` as the last id.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from rebench_env.corpus import read_documents
from rebench_env.tokenizer import EOT, load_tokenizer

GPT2_VOCAB = 50257


@dataclass(frozen=True)
class Gpt2TokenizerSpec:
    npm_package: str = "tiktoken"
    npm_file: str = "encoders/gpt2.json"


@dataclass(frozen=True)
class BpeTokenizerSpec:
    corpus: str
    vocab_size: int = 4096
    min_frequency: int = 2


def default_gpt2_json() -> Path:
    """``node_modules/tiktoken/encoders/gpt2.json`` of this checkout (the TypeScript side passes its own)."""
    return Path(__file__).resolve().parents[3] / "node_modules" / "tiktoken" / "encoders" / "gpt2.json"


def expand_npm_ranks(compressed: str) -> dict[str, int]:
    """js-tiktoken's compressed ranks -> ``{base64 token: rank}``."""
    ranks: dict[str, int] = {}
    for line in compressed.split("\n"):
        if not line:
            continue
        _, offset, *tokens = line.split(" ")
        for i, token in enumerate(tokens):
            ranks[token] = int(offset) + i
    return ranks


def build_gpt2_tokenizer(source_json: Path, out_dir: Path, progress: Callable[[str], None]) -> dict[str, Any]:
    data = json.loads(source_json.read_text())
    ranks = expand_npm_ranks(data["bpe_ranks"])
    special = {k: int(v) for k, v in data["special_tokens"].items()}
    n_vocab = int(data.get("explicit_n_vocab") or len(ranks) + len(special))
    values = sorted(ranks.values())
    if values != list(range(len(values))) or n_vocab != GPT2_VOCAB or special.get(EOT) != GPT2_VOCAB - 1:
        raise ValueError(f"{source_json} does not hold the GPT-2 ranks (0..50255 plus {EOT} = 50256)")
    for token in ranks:
        base64.b64decode(token, validate=True)
    with open(out_dir / "gpt2.tiktoken", "w", encoding="ascii", newline="\n") as f:
        for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
            f.write(f"{token} {rank}\n")
    meta = {
        "kind": "tiktoken",
        "name": "gpt2",
        "file": "gpt2.tiktoken",
        "pat_str": data["pat_str"],
        "special_tokens": special,
        "vocab_size": n_vocab,
        "eot_id": special[EOT],
        "source": f"npm tiktoken {source_json.name}",
    }
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    tok = load_tokenizer(out_dir)
    sample = "Hello world, it's rebench!"
    if tok.decode(tok.encode(sample)) != sample:
        raise RuntimeError("the extracted GPT-2 ranks do not round-trip text")
    progress(f"gpt2: {len(ranks)} ranks + {len(special)} special token(s)")
    return {"vocab_size": n_vocab, "eot_id": special[EOT]}


def build_bpe_tokenizer(
    spec: BpeTokenizerSpec, corpus_dir: Path, out_dir: Path, progress: Callable[[str], None]
) -> dict[str, Any]:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=spec.vocab_size - 1,
        min_frequency=spec.min_frequency,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=[],
        show_progress=False,
    )
    texts = (doc["text"] for doc in read_documents("train", corpus_dir))
    tokenizer.train_from_iterator(texts, trainer=trainer)
    learned = tokenizer.get_vocab_size()
    tokenizer.add_special_tokens([EOT])
    eot_id = tokenizer.token_to_id(EOT)
    if eot_id != learned or learned + 1 > spec.vocab_size:
        raise RuntimeError(f"expected {EOT} at id {spec.vocab_size - 1}, got {eot_id} after {learned} tokens")
    tokenizer.save(str(out_dir / "tokenizer.json"), pretty=False)
    meta = {
        "kind": "hf",
        "name": f"bpe{spec.vocab_size}",
        "file": "tokenizer.json",
        "vocab_size": learned + 1,
        "eot_id": eot_id,
        "source": "tokenizers BpeTrainer (byte-level) on the corpus train split",
    }
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    progress(f"bpe: {learned} learned tokens + {EOT} at id {eot_id}")
    return {"vocab_size": learned + 1, "eot_id": eot_id}


def tokenizers_threads(threads: int) -> None:
    """The ``tokenizers`` library's thread pool size (read once, at its first parallel call)."""
    os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
