"""Question-and-answer pretraining text (``rebench_env.assets.qa_text``) on the tiny corpus: from the train split
only, the stated share of wrong answers, and the stated share of the train tokens."""

import json
import re

import numpy as np

from rebench_env.assets.build import BuildOptions, build
from rebench_env.assets.qa_text import ChatTokensSpec, build_chat_tokens, elements, qa_documents
from rebench_env.assets.store import AssetStore
from rebench_env.tokens import read_tokens


def tiny_store(tmp_path):
    build(["corpus-tiny-keyed", "tokenizer-bpe512-tiny", "tokens-bpe512-tiny"], BuildOptions(home=tmp_path / "home"))
    return AssetStore(tmp_path / "home" / "assets")


def headwords(corpus, split):
    with open(corpus / f"{split}.jsonl", encoding="utf-8") as f:
        return {d["id"] for d in map(json.loads, f) if d["source"] == "gcide"}


def test_the_text_comes_from_the_train_split_and_a_share_of_its_answers_is_wrong(tmp_path):
    corpus = tiny_store(tmp_path).path("corpus-tiny-keyed")
    only_test = headwords(corpus, "test") - headwords(corpus, "train")
    assert only_test
    names = {row["number"]: row["name"] for row in elements()}
    docs = qa_documents(corpus, correct=0.6, seed=1)
    asked, named_right, named_all = set(), 0, 0
    for _ in range(4000):
        doc = next(docs)
        instruction, answer = doc.split("### Instruction:\n")[1].split("\n\n### Response:\n")
        asked.update(re.findall(r"'([a-z]+)'", instruction))
        spelled = re.fullmatch(r"Name the element with number (\d+)\.", instruction)
        if spelled:
            named_all += 1
            named_right += answer == names[spelled.group(1)]
    assert not asked & only_test
    assert named_all > 50 and 0.45 < named_right / named_all < 0.75  # 0.6 right, as asked


def test_the_train_split_holds_the_corpus_then_the_share_of_question_and_answer_text(tmp_path):
    store = tiny_store(tmp_path)
    out = tmp_path / "chat"
    out.mkdir()
    meta = build_chat_tokens(ChatTokensSpec("corpus-tiny-keyed", "tokenizer-bpe512-tiny", share=0.25), store.path("corpus-tiny-keyed"),
                             store.path("tokenizer-bpe512-tiny"), out, lambda _: None)  # fmt: skip
    plain = store.path("tokens-bpe512-tiny")
    train, corpus_train = read_tokens(out / "train.bin"), read_tokens(plain / "train.bin")
    assert np.array_equal(train[: len(corpus_train)], corpus_train)
    for split in ("val", "test"):
        assert (out / f"{split}.bin").read_bytes() == (plain / f"{split}.bin").read_bytes()
    assert meta["tokens"]["train"] == len(train)
    assert abs(meta["qa"]["tokens"] / len(train) - 0.25) < 0.01
