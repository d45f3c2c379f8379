"""Build the text corpus: read the Debian sources, normalize, deduplicate, split by document, write a manifest.

Output (in the asset folder): ``train.jsonl``, ``val.jsonl``, ``test.jsonl`` (one ``{"id", "source",
"text"}`` per line; ``test`` is the hidden split graders keep from agents) and ``manifest.json`` (sources
with package versions, input file hashes, document and byte counts, duplicates dropped, per-split sha256).

Every step is deterministic: sources are read in a fixed order, the split of a document is a function of
its id alone (sha256 of ``source/id``), and documents within a split are ordered by that same hash, which
mixes the sources without a random generator.
"""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from rebench_env.assets.sources import SOURCES, hash_files, read_source

SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class CorpusSpec:
    sources: tuple[str, ...] = ("kjv", "jargon", "gcide", "pydoc")
    max_docs_per_source: int | None = None  # None: everything (the tiny test corpus caps it)
    val_fraction: float = 0.02
    test_fraction: float = 0.02
    min_chars: int = 16  # shorter documents are dropped


_BLANK_RUNS = re.compile(r"\n{3,}")


def normalize(text: str) -> str:
    """NFC, Unix newlines, tabs expanded, trailing spaces stripped, common indent removed, blank runs ≤ 1."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.expandtabs(4).rstrip() for line in text.split("\n")]
    text = textwrap.dedent("\n".join(lines))
    return _BLANK_RUNS.sub("\n\n", text).strip("\n")


def doc_hash(source: str, doc_id: str) -> str:
    return hashlib.sha256(f"{source}/{doc_id}".encode("utf-8")).hexdigest()


def split_of(source: str, doc_id: str, spec: CorpusSpec) -> str:
    """``val``, ``test`` or ``train``, a function of the document's id alone."""
    u = int(doc_hash(source, doc_id)[:12], 16) / float(16**12)
    if u < spec.val_fraction:
        return "val"
    if u < spec.val_fraction + spec.test_fraction:
        return "test"
    return "train"


def source_fingerprint(spec: CorpusSpec) -> dict[str, Any]:
    """What the corpus is built from: package versions and a hash of each source's raw files.

    Raises ``SourceMissingError`` (naming the package) when a source is not installed.
    """
    out: dict[str, Any] = {}
    for name in spec.sources:
        source = SOURCES[name]
        files = source.files()
        out[name] = {
            "package": source.package,
            "version": source.version(),
            "files": len(files),
            "sha256": hash_files(files),
        }
    return out


def build_corpus(spec: CorpusSpec, out_dir: Path, progress: Callable[[str], None]) -> dict[str, Any]:
    """Write the corpus into ``out_dir``; returns the manifest (also written as ``manifest.json``)."""
    fingerprint = source_fingerprint(spec)
    seen: set[str] = set()
    splits: dict[str, list[tuple[str, dict[str, str]]]] = {s: [] for s in SPLITS}
    sources: list[dict[str, Any]] = []
    for name in spec.sources:
        stats = {"documents": 0, "kept": 0, "duplicates": 0, "too_short": 0, "raw_bytes": 0, "bytes": 0}
        for doc in read_source(name, spec.max_docs_per_source):
            stats["documents"] += 1
            stats["raw_bytes"] += len(doc.text.encode("utf-8"))
            text = normalize(doc.text)
            if len(text) < spec.min_chars:
                stats["too_short"] += 1
                continue
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if digest in seen:
                stats["duplicates"] += 1
                continue
            seen.add(digest)
            stats["kept"] += 1
            stats["bytes"] += len(text.encode("utf-8"))
            record = {"id": doc.id, "source": name, "text": text}
            splits[split_of(name, doc.id, spec)].append((doc_hash(name, doc.id), record))
        sources.append({"name": name, "description": SOURCES[name].description, **fingerprint[name], **stats})
        progress(f"{name}: {stats['kept']} documents kept of {stats['documents']} "
                 f"({stats['duplicates']} duplicates, {stats['bytes'] / 1e6:.1f} MB)")  # fmt: skip

    split_stats: dict[str, Any] = {}
    for split, docs in splits.items():
        docs.sort(key=lambda item: item[0])
        path = out_dir / f"{split}.jsonl"
        digest = hashlib.sha256()
        n_bytes = 0
        by_source: dict[str, int] = {}
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for _, record in docs:
                line = json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
                f.write(line)
                digest.update(line.encode("utf-8"))
                n_bytes += len(record["text"].encode("utf-8"))
                by_source[record["source"]] = by_source.get(record["source"], 0) + 1
        split_stats[split] = {"documents": len(docs), "text_bytes": n_bytes, "by_source": by_source,
                              "file": path.name, "sha256": digest.hexdigest()}  # fmt: skip
        progress(f"{split}: {len(docs)} documents, {n_bytes / 1e6:.1f} MB")

    manifest = {
        "spec": asdict(spec),
        "normalization": "NFC; CRLF/CR to LF; tabs expanded to 4; trailing spaces stripped; common indent "
        "removed; runs of blank lines collapsed to one; GCIDE source tags like [1913 Webster] dropped; "
        "exact duplicates (after normalization) dropped, first kept; documents under min_chars dropped",
        "split_rule": "sha256('source/id') as a fraction: < val_fraction val, < val+test test, else train",
        "sources": sources,
        "splits": split_stats,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
