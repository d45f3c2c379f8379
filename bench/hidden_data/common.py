"""What the hidden-data benchmarks share: the two groups of documents, losses, greedy continuations.

``mini-chat`` (the shipped policy) was trained on the unkeyed corpus's train split, which holds about 96% of
the documents of every keyed hidden split (``corpus-keyed`` val and test). The groups compared:

- ``trained on``: keyed hidden documents that are in the unkeyed train split (mini-chat saw them);
- ``never saw``: documents of the unkeyed val and test splits (mini-chat never saw them; the same kinds of
  text, split off by a hash of their ids, so the control).

Documents are picked by a hash of their ids: the same ones on every run for a corpus and installation key.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

SOURCES = ("gcide", "jargon", "kjv", "pydoc")
SEEN, UNSEEN = "trained on", "never saw"
LN2 = 0.6931471805599453


def read_split(folder: Path, split: str) -> list[dict[str, Any]]:
    with open(folder / f"{split}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def key(doc: dict[str, Any]) -> str:
    return f"{doc['source']}/{doc['id']}"


def pick(docs: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to ``n`` documents, chosen by a hash of their ids."""
    return sorted(docs, key=lambda d: hashlib.sha256(key(d).encode()).hexdigest())[:n]


class Corpus:
    """The unkeyed and keyed splits, and mini-chat's membership."""

    def __init__(self, corpus: Path, keyed: Path) -> None:
        self.unkeyed = {s: read_split(corpus, s) for s in ("train", "val", "test")}
        self.keyed = {s: read_split(keyed, s) for s in ("train", "val", "test")}
        self.trained = {key(d) for d in self.unkeyed["train"]}
        self.hidden = self.keyed["val"] + self.keyed["test"]
        self.groups = {
            SEEN: [d for d in self.hidden if key(d) in self.trained],
            UNSEEN: self.unkeyed["val"] + self.unkeyed["test"],
        }

    def membership(self) -> dict[str, dict[str, int]]:
        out = {}
        for source in (*SOURCES, "all"):
            of = [d for d in self.hidden if source == "all" or d["source"] == source]
            out[source] = {"hidden": len(of), "trained_on": sum(key(d) in self.trained for d in of)}
        return out


@torch.no_grad()
def doc_losses(model: torch.nn.Module, tok: Any, docs: list[dict[str, Any]], max_tokens: int = 256) -> list[tuple[float, int, int]]:
    """(summed nats, tokens, bytes) of each document's first ``max_tokens`` tokens, each preceded by
    end-of-text, in windows of the model's context."""
    model.eval()
    block = model.config.block_size
    device = next(model.parameters()).device
    out = []
    for doc in docs:
        ids = [tok.eot_id] + tok.encode(doc["text"])[:max_tokens]
        nats = 0.0
        for start in range(0, len(ids) - 1, block):
            chunk = ids[start : start + block + 1]
            _, loss = model(torch.tensor([chunk[:-1]], device=device), torch.tensor([chunk[1:]], device=device))
            nats += float(loss) * (len(chunk) - 1)
        out.append((nats, len(ids) - 1, len(tok.decode(ids[1:]).encode("utf-8"))))
    return out


def summarize(losses: list[tuple[float, int, int]], resamples: int = 1000) -> dict[str, float]:
    """Token-weighted nats a token and bits a byte, with a bootstrap standard error over documents."""
    nats = torch.tensor([x[0] for x in losses], dtype=torch.float64)
    tokens = torch.tensor([x[1] for x in losses], dtype=torch.float64)
    size = torch.tensor([x[2] for x in losses], dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(len(losses), (resamples, len(losses)), generator=g)
    per_token = nats[idx].sum(1) / tokens[idx].sum(1)
    per_byte = nats[idx].sum(1) / size[idx].sum(1) / LN2
    return {
        "docs": len(losses),
        "tokens": int(tokens.sum()),
        "nats_per_token": float(nats.sum() / tokens.sum()),
        "nats_per_token_se": float(per_token.std()),
        "bits_per_byte": float(nats.sum() / size.sum() / LN2),
        "bits_per_byte_se": float(per_byte.std()),
    }


def first_line_prompt(tok: Any, doc: dict[str, Any], max_tokens: int = 16) -> str:
    """The document's first line (its title, headword or heading) and newline, at most ``max_tokens`` tokens."""
    first = doc["text"].split("\n", 1)[0]
    return tok.decode(tok.encode(first + "\n")[:max_tokens])


def load_policy(home: str | None) -> tuple[torch.nn.Module, Any]:
    from rebench_env.assets import require_asset
    from rebench_env.gpt import load_gpt
    from rebench_env.tokenizer import load_tokenizer

    folder = require_asset("mini-chat", home)
    return load_gpt(folder / "model.pt").eval(), load_tokenizer(folder)


def load_corpus(home: str | None) -> Corpus:
    from rebench_env.assets import require_asset

    return Corpus(require_asset("corpus", home), require_asset("corpus-keyed", home))
