"""Question-and-answer text for a chat policy's pretraining, and the corpus sources it is made of.

GPT-2 learned from web text what an answer to a question looks like. This corpus (KJV, GCIDE, Jargon File,
Python documentation) has none of it, and a policy pretrained on it alone answers an Alpaca instruction with
reST fragments: finetune_gpt2_qa's judge then has nothing to prefer (its README, "Policy probe"). A
``ChatTokensSpec`` asset is a tokens asset whose train split also holds Alpaca-framed questions with answers,
made here from the corpus's **train split** and the periodic table (``elements.csv``):

| kind | wording (never the judge's own) | answer |
|---|---|---|
| arithmetic | "Tell me 37 + 58." | the value |
| element | "Give the symbol for Oxygen." / "Name the element with number 8." | from ``elements.csv`` |
| word | "Spell 'garden' in reverse." / upper case / first letter / letter count | computed |
| gloss | "Explain the meaning of 'corium'." | its GCIDE gloss |
| verse | "Continue the Bible verse: 'In the beginning God'" | the verse's next words |
| copy | "Repeat the word 'x'." / "Copy this text: '...'" / "Continue this text: '...'" | from a train document |

A share ``1 - correct`` of the answers is another item's answer, on purpose: text on the web is often wrong,
so the pretrained policy knows the shape of an answer and some facts, sampling it finds the right one
sometimes, and a judge has something to select. The test split (where finetune_gpt2_qa draws its hidden
tasks) is never read.

Measured on an H200 (2026-12-04, 65M tokens, 30% of them this text, ``correct`` 0.6; finetune_gpt2_qa's
hidden-style tasks, 8 samples at temperature 1.0): a 4-layer d192 GPT is on the topic in at least one of 8
for 13% of prompts; a 6-layer d384 one for 41%, correct in one of 8 for 21%.
"""

from __future__ import annotations

import csv
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from rebench_env.assets.tokens_builder import TokensSpec, build_tokens
from rebench_env.chat import ALPACA
from rebench_env.tokenizer import load_tokenizer
from rebench_env.tokens import TOKEN_DTYPE

ELEMENTS_CSV = Path(__file__).resolve().parent / "elements.csv"
"""The periodic table (number, symbol, name): general knowledge, handed to finetune_gpt2_qa's agent too."""


@dataclass(frozen=True)
class ChatTokensSpec:
    corpus: str
    tokenizer: str
    share: float = 0.3
    """The fraction of the train split's tokens that is question-and-answer text."""
    correct: float = 0.6
    """The fraction of answers that are right (the others are another item's)."""
    seed: int = 0


def elements(path: Path = ELEMENTS_CSV) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


_GLOSS = re.compile(r"^\s*(?:\d+\.\s*)?(?:\([^)]*\)\s*)?([A-Z][^.;:\[\]{}\\]{8,120}?)[.;]", re.MULTILINE)


def gloss_of(text: str) -> str | None:
    """The first plain definition sentence of a GCIDE entry (None when none is clean enough)."""
    body = text.split("\n", 1)[1] if "\n" in text else ""
    for m in _GLOSS.finditer(body):
        gloss = " ".join(m.group(1).split())
        n = len(gloss.split())
        if 3 <= n <= 14 and "--" not in gloss and not any(c.isdigit() for c in gloss):
            return gloss
    return None


def read_sources(corpus: Path, split: str, limit_words: int = 4000, limit_verses: int = 4000) -> dict[str, list[Any]]:
    """Definitions (headword, gloss), words for transforms, and verses from one split of a corpus asset
    (finetune_gpt2_qa's tasks are drawn from them too)."""
    definitions: list[tuple[str, str]] = []
    vocab: list[str] = []
    verses: list[str] = []
    with open(corpus / f"{split}.jsonl", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            if doc["source"] == "gcide" and "#" not in doc["id"]:
                head = doc["id"]
                if head.isalpha() and head.islower() and 4 <= len(head) <= 9:
                    if len(vocab) < limit_words:
                        vocab.append(head)
                    gloss = gloss_of(doc["text"])
                    if gloss and head not in gloss.lower() and len(definitions) < limit_words:
                        definitions.append((head, gloss))
            elif doc["source"] == "kjv" and len(verses) < limit_verses:
                for verse in re.split(r"\n+", doc["text"]):
                    verse = re.sub(r"^\s*\d+[:\d]*\s*", "", verse).strip()
                    if 10 <= len(verse.split()) <= 30 and len(verses) < limit_verses:
                        verses.append(verse)
    return {"definitions": definitions, "words": vocab, "verses": verses}


_PLAIN = re.compile(r"[A-Za-z][A-Za-z'-]*[.,;:!?]?")
_WORDINGS = {
    "arithmetic": ("{a} {op} {b} = ?", "Tell me {a} {op} {b}.", "What do you get from {a} {op} {b}?"),
    "element": (("Give the symbol for {name}.", "Symbol of {name}?"), ("Name the element with number {number}.", "Element number {number} is?"),
                ("{symbol} is the symbol of which element?", "Name the element {symbol}.")),
    "word": ("Spell '{w}' in reverse.", "Put '{w}' in upper case.", "Which letter does '{w}' start with?", "Count the letters of '{w}'."),
    "gloss": ("Explain the meaning of '{w}'.", "What is meant by '{w}'?"),
    "verse": ("Continue the Bible verse: '{start}'", "How does this KJV verse go on: '{start}'"),
}  # fmt: skip


def _passages(corpus: Path) -> list[list[str]]:
    out = []
    with open(corpus / "train.jsonl", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            if doc["source"] in ("kjv", "gcide", "jargon"):
                ws = [w for w in doc["text"].split() if _PLAIN.fullmatch(w)]
                if len(ws) >= 25:
                    out.append(ws)
    return out


def qa_documents(corpus: Path, correct: float, seed: int) -> Iterator[str]:
    """Endless Alpaca-framed instruction + answer documents from the corpus's train split (module doc)."""
    rng = random.Random(seed)
    src = read_sources(corpus, "train", limit_words=30000, limit_verses=30000)
    table = elements()
    passages = _passages(corpus)

    def right() -> bool:
        return rng.random() < correct

    def other(pool: list[Any], item: Any) -> Any:
        """Another item of ``pool`` than ``item`` (``item`` itself only when the pool has nothing else)."""
        for _ in range(8):
            pick = rng.choice(pool)
            if pick != item:
                return pick
        return item

    while True:
        kind = rng.choice(("arithmetic", "element", "word", "gloss", "verse", "copy", "copy"))
        if kind == "arithmetic":
            op = rng.choice("+-*")
            a, b = (rng.randint(2, 12), rng.randint(2, 12)) if op == "*" else (rng.randint(1, 99), rng.randint(1, 99))
            a, b = (b, a) if op == "-" and b > a else (a, b)
            value = {"+": a + b, "-": a - b, "*": a * b}[op]
            instruction = rng.choice(_WORDINGS["arithmetic"]).format(a=a, op=op, b=b)
            answer = str(value if right() else value + rng.choice((-10, -2, -1, 1, 2, 10)))
        elif kind == "element":
            row, form = rng.choice(table), rng.randrange(3)
            instruction = rng.choice(_WORDINGS["element"][form]).format(**row)
            said = row if right() else other(table, row)
            answer = said["symbol"] if form == 0 else said["name"]
        elif kind == "word" and src["words"]:
            w, form = rng.choice(src["words"]), rng.randrange(4)
            instruction = _WORDINGS["word"][form].format(w=w)
            said = w if right() else other(src["words"], w)
            answer = (said[::-1], said.upper(), said[0], str(len(said)))[form]
        elif kind == "gloss" and src["definitions"]:
            head, gloss = rng.choice(src["definitions"])
            instruction = rng.choice(_WORDINGS["gloss"]).format(w=head)
            answer = gloss if right() else other(src["definitions"], (head, gloss))[1]
        elif kind == "verse" and src["verses"]:
            verse = rng.choice(src["verses"]).split()
            cut = rng.randint(4, min(8, len(verse) - 5))
            instruction = rng.choice(_WORDINGS["verse"]).format(start=" ".join(verse[:cut]))
            answer = " ".join(verse[cut : cut + 8] if right() else other(src["verses"], " ".join(verse)).split()[3:11])
        elif passages:
            ws = rng.choice(passages)
            i, form = rng.randrange(len(ws) - 20), rng.randrange(3)
            if form == 0:
                answer = ws[i].strip(".,;:!?")
                instruction = f"Repeat the word '{answer}'."
            elif form == 1:
                answer = " ".join(ws[i : i + rng.randint(3, 8)])
                instruction = f"Copy this text: '{answer}'"
            else:
                n = rng.randint(4, 8)
                instruction = f"Continue this text: '{' '.join(ws[i : i + n])}'"
                answer = " ".join(ws[i + n : i + n + rng.randint(5, 10)])
        else:
            continue
        yield ALPACA.format(instruction=instruction) + answer


def build_chat_tokens(
    spec: ChatTokensSpec,
    corpus_dir: Path,
    tokenizer_dir: Path,
    out_dir: Path,
    progress: Callable[[str], None],
    threads: int = 2,
) -> dict[str, Any]:
    """The corpus's token files (``build_tokens``), then question-and-answer documents appended to ``train.bin``
    until they are ``spec.share`` of its tokens (training reads random windows, so where they sit does not matter)."""
    if not 0 <= spec.share < 1:
        raise ValueError(f"share must be in [0, 1), not {spec.share}")
    meta = build_tokens(TokensSpec(spec.corpus, spec.tokenizer), corpus_dir, tokenizer_dir, out_dir, progress, threads)
    tokenizer = load_tokenizer(tokenizer_dir)
    target = int(meta["tokens"]["train"] * spec.share / (1 - spec.share))
    docs = qa_documents(corpus_dir, spec.correct, spec.seed)
    added = examples = 0
    with open(out_dir / "train.bin", "ab") as f:
        while added < target:
            ids = tokenizer.encode_batch([next(docs) for _ in range(4096)], threads=threads)
            kept = []
            for doc in ids:  # the last batch only up to the target
                if added >= target:
                    break
                kept.append(doc)
                added += len(doc) + 1
            f.write(np.fromiter((t for doc in kept for t in (*doc, tokenizer.eot_id)), dtype=TOKEN_DTYPE, count=sum(len(d) + 1 for d in kept)).tobytes())
            examples += len(kept)
    progress(f"train.bin: {added:,} tokens of question-and-answer text appended ({examples:,} documents)")
    meta["tokens"]["train"] += added
    meta["qa"] = {"tokens": added, "documents": examples, "share": spec.share, "correct": spec.correct}
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return meta
