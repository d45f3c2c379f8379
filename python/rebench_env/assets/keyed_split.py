"""A keyed corpus: the documents of a built corpus, split again under a secret from the installation key.

The unkeyed corpus (``corpus_builder``) splits by sha256 of ``source/id``: anyone with the raw texts and the
code recomputes which documents are hidden. A keyed corpus (``KeyedSplitSpec``, the asset ``corpus-keyed``)
splits the same documents by HMAC-SHA256(secret, ``source/id``), the secret being
``rebench_env.secrets.derived_secret("assets/corpus-split")``, so the hidden documents depend on the
installation key, which no sandbox mounts. Documents within a split are ordered by that HMAC. It reads the
parsed documents of the unkeyed corpus, so it costs a few seconds beside it, and leaves that corpus (and its
split) as it was: scaling_law's precomputed sweep was trained on token files made from it.

Output as the unkeyed corpus: ``train.jsonl``, ``val.jsonl``, ``test.jsonl`` and ``manifest.json``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class KeyedSplitSpec:
    corpus: str  # the built corpus whose documents are split again
    secret_label: str = "assets/corpus-split"  # the secret is derived_secret(secret_label)


def keyed_doc_hash(source: str, doc_id: str, secret: str) -> str:
    """HMAC-SHA256 of ``source/id`` under ``secret`` (hex), as hex."""
    return hmac.new(bytes.fromhex(secret), f"{source}/{doc_id}".encode("utf-8"), hashlib.sha256).hexdigest()


def keyed_split_of(source: str, doc_id: str, secret: str, val_fraction: float, test_fraction: float) -> str:
    """``val``, ``test`` or ``train``: the keyed hash as a fraction, < val, < val + test, else train."""
    return _by_fraction(keyed_doc_hash(source, doc_id, secret), val_fraction, test_fraction)


def _by_fraction(digest: str, val_fraction: float, test_fraction: float) -> str:
    u = int(digest[:12], 16) / float(16**12)
    if u < val_fraction:
        return "val"
    if u < val_fraction + test_fraction:
        return "test"
    return "train"


def build_keyed_split(
    spec: KeyedSplitSpec, corpus_dir: Path, out_dir: Path, secret: str, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Write the keyed corpus into ``out_dir``; returns its manifest (also written as ``manifest.json``)."""
    parent = json.loads((corpus_dir / "manifest.json").read_text())
    val_fraction, test_fraction = parent["spec"]["val_fraction"], parent["spec"]["test_fraction"]
    splits: dict[str, list[tuple[str, str]]] = {s: [] for s in SPLITS}
    for split in SPLITS:
        with open(corpus_dir / f"{split}.jsonl", encoding="utf-8") as f:
            for line in f:
                record = json.loads(line)
                digest = keyed_doc_hash(record["source"], record["id"], secret)
                splits[_by_fraction(digest, val_fraction, test_fraction)].append((digest, line))
    split_stats: dict[str, Any] = {}
    for split, docs in splits.items():
        docs.sort(key=lambda item: item[0])
        path = out_dir / f"{split}.jsonl"
        digest = hashlib.sha256()
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for _, line in docs:
                f.write(line)
                digest.update(line.encode("utf-8"))
        split_stats[split] = {"documents": len(docs), "file": path.name, "sha256": digest.hexdigest()}
        progress(f"{split}: {len(docs)} documents")
    manifest = {
        "spec": {**parent["spec"], **asdict(spec)},
        "normalization": parent["normalization"],
        "split_rule": f"HMAC-SHA256(derived_secret({spec.secret_label!r}), 'source/id') as a fraction: "
        "< val_fraction val, < val+test test, else train; a split's documents ordered by that HMAC",
        "sources": parent["sources"],
        "splits": split_stats,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
