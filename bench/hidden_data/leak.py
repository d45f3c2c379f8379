"""What the shipped ``mini-chat`` and the system's own files know of the keyed hidden splits.

1. ``membership``: how many keyed hidden documents (val + test) mini-chat trained on, by source;
2. ``loss``: mini-chat's loss on the first 256 tokens of documents it trained on vs documents it never saw
   (``common.py`` says which), nats a token and bits a byte, with bootstrap standard errors over documents;
3. ``reproduce``: greedy continuations (96 tokens) of each document's first line: characters that match
   the document exactly, and the longest common substring of the continuation and the document;
4. ``copies``: the share of each keyed hidden Python documentation section's word 8-grams that other files
   of the system hold (``/usr/share/info/python3.11.info.gz``, ``pydoc_data/topics.py``, the standard
   library's modules).

    .venv/bin/python bench/hidden_data/leak.py [--docs 300] [--parts loss,reproduce,copies] [--out FILE]

Prints a table per part; ``--out`` also writes every number as JSON. On the 2-core machine under other work
(load average 10 to 17, 2026-12-06): ``loss`` at ``--docs 300`` 15 minutes, ``reproduce`` at ``--docs 150``
29 minutes (9 of CPU), ``copies`` 1 minute; the outputs are in ``results-2026-12-06/`` (the loss table as
printed: that run was stopped before it wrote its JSON).
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import SEEN, SOURCES, UNSEEN, doc_losses, first_line_prompt, load_corpus, load_policy, pick, summarize

from rebench_env.chat import GenerationSettings, sample


def longest_common_substring(a: str, b: str) -> int:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


def reproduce(model: torch.nn.Module, tok: Any, docs: list[dict[str, Any]], new_tokens: int = 96) -> dict[str, Any]:
    prompts = [first_line_prompt(tok, d) for d in docs]
    settings = GenerationSettings(temperature=0.0, max_new_tokens=new_tokens, min_new_tokens=new_tokens)
    outputs = sample(model, tok, prompts, settings, seed=0)  # stripped, cut at "\n###" (none in these documents' starts)
    exact, lcs = [], []
    for doc, prompt, out in zip(docs, prompts, outputs):
        body = doc["text"][len(prompt) :].lstrip()
        n = 0
        while n < min(len(out), len(body)) and out[n] == body[n]:
            n += 1
        exact.append(n)
        lcs.append(longest_common_substring(out[:400], doc["text"][:2000]))
    # Numbers only: which documents are hidden depends on the installation key, and results get shared.
    return {
        "docs": len(docs),
        "exact_mean": sum(exact) / len(exact),
        "exact_ge_50": sum(e >= 50 for e in exact) / len(exact),
        "lcs_mean": sum(lcs) / len(lcs),
        "lcs_ge_50": sum(v >= 50 for v in lcs) / len(lcs),
        "lcs_max": max(lcs),
        "output_chars_mean": sum(len(o) for o in outputs) / len(outputs),
    }


WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shingles(text: str, n: int = 8) -> np.ndarray:
    """The text's word ``n``-grams, each as a 64-bit hash (sorted, unique)."""
    words = WORD.findall(text)
    grams = {hash(tuple(words[i : i + n])) for i in range(len(words) - n + 1)}
    return np.unique(np.fromiter(grams, dtype=np.int64, count=len(grams)))


def stdlib_text() -> str:
    """Every module of the running Python's standard library (docstrings and comments included)."""
    lib = Path(os.__file__).parent
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(lib.rglob("*.py")) if "site-packages" not in p.parts)


def copies(hidden: list[dict[str, Any]]) -> dict[str, Any]:
    import pydoc_data.topics

    readers = {
        "/usr/share/info/python3.11.info.gz": lambda: gzip.open("/usr/share/info/python3.11.info.gz", "rt", encoding="utf-8", errors="replace").read(),
        pydoc_data.topics.__file__: lambda: Path(pydoc_data.topics.__file__).read_text(encoding="utf-8"),
        f"{Path(os.__file__).parent}/**/*.py": stdlib_text,
    }
    sections = [s for s in (shingles(d["text"]) for d in hidden if d["source"] == "pydoc") if s.size]
    out: dict[str, Any] = {}
    for path, read in readers.items():
        try:
            pool = shingles(read())
        except FileNotFoundError:
            out[path] = None
            continue
        cover = [float((pool[np.minimum(np.searchsorted(pool, s), pool.size - 1)] == s).mean()) for s in sections]  # pool is sorted
        out[path] = {"sections": len(cover), "mean_cover": sum(cover) / len(cover), "cover_ge_50": sum(c >= 0.5 for c in cover) / len(cover),
                     "cover_ge_90": sum(c >= 0.9 for c in cover) / len(cover)}  # fmt: skip
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", help="rebench home holding the built assets (default $REBENCH_HOME or ~/.rebench)")
    parser.add_argument("--docs", type=int, default=300, help="documents per source and group (default 300; fewer where fewer exist)")
    parser.add_argument("--parts", default="loss,reproduce,copies")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    parts = set(args.parts.split(","))
    corpus = load_corpus(args.home)
    model, tok = load_policy(args.home)
    result: dict[str, Any] = {"membership": corpus.membership()}
    print("membership: keyed hidden documents (val + test) that mini-chat trained on")
    for source, c in result["membership"].items():
        print(f"  {source:<7} {c['trained_on']:>6} of {c['hidden']:>6} ({c['trained_on'] / max(1, c['hidden']):.1%})")
    samples = {g: {s: pick([d for d in docs if d["source"] == s], args.docs) for s in SOURCES} for g, docs in corpus.groups.items()}

    if "loss" in parts:
        t = time.time()
        result["loss"] = {g: {s: summarize(doc_losses(model, tok, samples[g][s])) for s in SOURCES} for g in samples}
        print(f"\nloss: mini-chat on the first 256 tokens of each document, ± bootstrap s.e. ({time.time() - t:.0f} s)")
        print(f"  {'source':<7} {'docs':>9} {'trained on':>16} {'never saw':>16} {'gap nats/token':>15} {'gap bits/byte':>14}")
        for s in SOURCES:
            a, b = result["loss"][SEEN][s], result["loss"][UNSEEN][s]
            gap = b["nats_per_token"] - a["nats_per_token"]
            gap_se = (a["nats_per_token_se"] ** 2 + b["nats_per_token_se"] ** 2) ** 0.5
            gap_b = b["bits_per_byte"] - a["bits_per_byte"]
            gap_b_se = (a["bits_per_byte_se"] ** 2 + b["bits_per_byte_se"] ** 2) ** 0.5
            print(f"  {s:<7} {a['docs']:>4}/{b['docs']:<4} {a['nats_per_token']:>8.3f}±{a['nats_per_token_se']:.3f} {b['nats_per_token']:>8.3f}±{b['nats_per_token_se']:.3f} "
                  f"{gap:>8.3f}±{gap_se:.3f} {gap_b:>7.3f}±{gap_b_se:.3f}")  # fmt: skip

    if "reproduce" in parts:
        t = time.time()
        result["reproduce"] = {g: {s: reproduce(model, tok, samples[g][s]) for s in SOURCES} for g in samples}
        print(f"\nreproduce: greedy continuation (96 tokens) of each document's first line ({time.time() - t:.0f} s)")
        print(f"  {'source':<7} {'group':<10} {'docs':>4} {'exact chars':>11} {'>=50':>5} {'LCS chars':>9} {'LCS>=50':>7} {'LCS max':>7}")
        for s in SOURCES:
            for g in samples:
                r = result["reproduce"][g][s]
                print(f"  {s:<7} {g:<10} {r['docs']:>4} {r['exact_mean']:>11.1f} {r['exact_ge_50']:>5.0%} {r['lcs_mean']:>9.1f} {r['lcs_ge_50']:>7.0%} {r['lcs_max']:>7}")

    if "copies" in parts:
        result["copies"] = copies(corpus.hidden)
        print("\ncopies: word 8-grams of the keyed hidden Python documentation sections found in other files of the system")
        for path, c in result["copies"].items():
            if c is None:
                print(f"  {path}: absent")
            else:
                print(f"  {path}: {c['sections']} sections, mean {c['mean_cover']:.1%}; >=50% of a section: {c['cover_ge_50']:.0%}, >=90%: {c['cover_ge_90']:.0%}")

    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
