"""The one table of assets: every name, what it is built from, and the variants that need it.

Model sizes are rows here (``mini-small``, ``mini-large``, ``gpu-small``, ``gpu-large``, ``tiny``); an
environment that needs another size adds a row. ``VARIANTS`` lists what ``rebench assets build --variant V``
builds; dependencies are added automatically. A size only a GPU can pretrain but a CPU variant needs is
shipped (``rebench_env.assets.shipped``): ``mini-chat`` is a committed build of the recipe ``mini-chat-build``.

Keyed assets depend on the installation key (``rebench_env.secrets``; their cache key holds
``key_fingerprint()``, so another key builds other ones): ``corpus-keyed`` splits the corpus' documents under
a secret, and what is made from it (``tokenizer-bpe4k``, ``tokens-bpe4k``, ``tokens-gpt2-keyed``, the tiny
chain) inherits that; the model sizes with a ``seed_label`` take their seeds from the key. They are for
environments that hide a split or corrupt a model (fix_embedding). ``corpus``, ``tokens-gpt2`` and
``tokens-bpe1k`` are unkeyed and stay byte for byte as they were: scaling_law's precomputed ground-truth
sweeps were trained on them.

| variant | for | models |
|---|---|---|
| ``mini`` | the 2-core CPU variants | ``mini-small``, ``mini-large`` on the 4,096-token BPE, fp32, 1 thread |
| ``gpu``  | one H100/H200 | ``gpu-small``, ``gpu-large`` (GPT-2-small shape) on GPT-2 BPE tokens, bf16 |
| ``tiny`` | tests and CI | ``tiny`` on a capped corpus and a 512-token BPE, seconds to build |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

from rebench_env.assets.corpus_builder import CorpusSpec
from rebench_env.assets.keyed_split import KeyedSplitSpec
from rebench_env.assets.model_builder import ModelSpec
from rebench_env.assets.qa_text import ChatTokensSpec
from rebench_env.assets.shipped import ShippedSpec
from rebench_env.assets.tokenizer_builder import BpeTokenizerSpec, Gpt2TokenizerSpec
from rebench_env.assets.tokens_builder import TokensSpec
from rebench_env.gpt import GPTConfig
from rebench_env.train import TrainConfig

Kind = Literal["corpus", "tokenizer", "tokens", "model"]
Spec = Union[CorpusSpec, KeyedSplitSpec, Gpt2TokenizerSpec, BpeTokenizerSpec, TokensSpec, ChatTokensSpec, ModelSpec, ShippedSpec]


@dataclass(frozen=True)
class Asset:
    name: str
    kind: Kind
    spec: Spec
    description: str

    @property
    def deps(self) -> tuple[str, ...]:
        spec = self.spec
        if isinstance(spec, (BpeTokenizerSpec, KeyedSplitSpec)):
            return (spec.corpus,)
        if isinstance(spec, (TokensSpec, ChatTokensSpec)):
            return (spec.corpus, spec.tokenizer)
        if isinstance(spec, ModelSpec):
            return (spec.tokens,)
        return ()


def _bpe4k(block: int, layers: int, heads: int, embd: int) -> GPTConfig:
    return GPTConfig(block_size=block, vocab_size=4096, n_layer=layers, n_head=heads, n_embd=embd)


def _gpt2(layers: int, heads: int, embd: int) -> GPTConfig:
    return GPTConfig(block_size=1024, vocab_size=50257, n_layer=layers, n_head=heads, n_embd=embd)


ASSETS: dict[str, Asset] = {
    a.name: a
    for a in [
        Asset("corpus", "corpus", CorpusSpec(), "Debian texts (KJV, Jargon File, GCIDE, Python docs), split by document"),
        Asset("corpus-keyed", "corpus", KeyedSplitSpec(corpus="corpus"), "the corpus' documents split under a secret of the installation key (fix_embedding)"),
        Asset("tokenizer-gpt2", "tokenizer", Gpt2TokenizerSpec(), "GPT-2 BPE ranks from npm tiktoken, for Python's tiktoken"),
        Asset("tokenizer-bpe4k", "tokenizer", BpeTokenizerSpec(corpus="corpus-keyed", vocab_size=4096), "byte-level BPE, 4,096 ids, trained on the keyed corpus (fix_embedding mini)"),
        Asset("tokens-gpt2", "tokens", TokensSpec(corpus="corpus", tokenizer="tokenizer-gpt2"), "corpus as GPT-2 token files (scaling_law gpu)"),
        Asset("tokens-gpt2-keyed", "tokens", TokensSpec(corpus="corpus-keyed", tokenizer="tokenizer-gpt2"), "keyed corpus as GPT-2 token files (fix_embedding gpu)"),
        Asset("tokens-bpe4k", "tokens", TokensSpec(corpus="corpus-keyed", tokenizer="tokenizer-bpe4k"), "keyed corpus as 4k-BPE token files (fix_embedding mini)"),
        Asset("tokenizer-bpe1k", "tokenizer", BpeTokenizerSpec(corpus="corpus", vocab_size=1024), "byte-level BPE, 1,024 ids, trained on the corpus (scaling_law mini: a small head keeps narrow models cheap)"),
        Asset("tokens-bpe1k", "tokens", TokensSpec(corpus="corpus", tokenizer="tokenizer-bpe1k"), "corpus as 1k-BPE token files (scaling_law mini)"),
        Asset("mini-small", "model", ModelSpec(
            tokens="tokens-bpe4k", gpt=_bpe4k(128, 2, 4, 128), seed_label="assets/model/mini-small",
            train=TrainConfig(steps=400, batch_size=16, learning_rate=2e-3, warmup_steps=50, log_interval=20, eval_batches=50),
        ), "2-layer d128 GPT, CPU fp32"),
        Asset("mini-large", "model", ModelSpec(
            tokens="tokens-bpe4k", gpt=_bpe4k(128, 4, 6, 192), seed_label="assets/model/mini-large",
            train=TrainConfig(steps=500, batch_size=16, learning_rate=2e-3, warmup_steps=50, log_interval=20, eval_batches=50),
        ), "4-layer d192 GPT, CPU fp32"),
        Asset("gpu-small", "model", ModelSpec(
            tokens="tokens-gpt2-keyed", gpt=_gpt2(6, 6, 384), device="cuda", threads=None, seed_label="assets/model/gpu-small",
            train=TrainConfig(steps=1500, batch_size=16, learning_rate=1e-3, warmup_steps=100, precision="bf16", log_interval=50, eval_interval=500, eval_batches=20),
        ), "6-layer d384 GPT on GPT-2 tokens, bf16"),
        Asset("gpu-large", "model", ModelSpec(
            tokens="tokens-gpt2-keyed", gpt=_gpt2(12, 12, 768), device="cuda", threads=None, seed_label="assets/model/gpu-large",
            train=TrainConfig(steps=1500, batch_size=16, learning_rate=6e-4, warmup_steps=100, precision="bf16", log_interval=50, eval_interval=500, eval_batches=20),
        ), "GPT-2-small shape (12-layer d768, 124M) on GPT-2 tokens, bf16 (fix_embedding gpu pretrains this recipe at set-up under seeds of its own)"),
        Asset("tokens-gpt2-chat", "tokens", ChatTokensSpec(corpus="corpus-keyed", tokenizer="tokenizer-gpt2"),
              "keyed corpus as GPT-2 tokens, with question-and-answer text from its train split (qa_text.py) as 30% of train (finetune_gpt2_qa gpu)"),
        Asset("gpu-chat", "model", ModelSpec(
            tokens="tokens-gpt2-chat", gpt=_gpt2(12, 12, 768), device="cuda", threads=None, seed_label="assets/model/gpu-chat",
            train=TrainConfig(steps=2000, batch_size=16, learning_rate=6e-4, warmup_steps=100, precision="bf16", log_interval=50, eval_interval=1000, eval_batches=20),
        ), "GPT-2-small shape (124M) pretrained on tokens-gpt2-chat: finetune_gpt2_qa gpu's policy until 2026-12-06 (its README, History 5); in no variant's list"),
        Asset("tokens-bpe4k-chat-keyed", "tokens", ChatTokensSpec(corpus="corpus-keyed", tokenizer="mini-chat"),
              "keyed corpus as mini-chat's 4k-BPE tokens, with question-and-answer text from its train split as 30% of train (finetune_gpt2_qa gpu)"),
        Asset("gpu-chat4k", "model", ModelSpec(
            tokens="tokens-bpe4k-chat-keyed", gpt=_bpe4k(128, 8, 8, 512), device="cuda", threads=None, seed_label="assets/model/gpu-chat4k",
            train=TrainConfig(steps=4000, batch_size=128, learning_rate=1e-3, warmup_steps=100, precision="bf16", log_interval=250, eval_interval=2000, eval_batches=20),
        ), "8-layer d512 GPT (27M) on tokens-bpe4k-chat-keyed, 4,000 steps of 128 x 128 (66M tokens), bf16: mini-chat's design at 2.2 times the parameters (finetune_gpt2_qa gpu's policy)"),
        Asset("tokenizer-bpe4k-chat", "tokenizer", BpeTokenizerSpec(corpus="corpus", vocab_size=4096),
              "byte-level BPE, 4,096 ids, trained on the unkeyed corpus (mini-chat's, shipped with it)"),
        Asset("tokens-bpe4k-chat", "tokens", ChatTokensSpec(corpus="corpus", tokenizer="tokenizer-bpe4k-chat"),
              "the unkeyed corpus as 4k-BPE tokens, with question-and-answer text from its train split as 30% of train (mini-chat's recipe)"),
        Asset("mini-chat-build", "model", ModelSpec(
            tokens="tokens-bpe4k-chat", gpt=_bpe4k(128, 6, 8, 384), threads=2,
            train=TrainConfig(steps=6000, batch_size=64, learning_rate=1e-3, warmup_steps=100, precision="bf16", log_interval=100, eval_interval=2500, eval_batches=50),
        ), "6-layer d384 GPT (12M) on tokens-bpe4k-chat, 6,000 steps of 64 x 128 (49M tokens), bf16: the recipe of the shipped mini-chat (about 2.3 hours on 2 cores with AMX; device='cuda' builds it in minutes)"),
        Asset("mini-chat", "model", ShippedSpec(folder="mini-chat", recipe="mini-chat-build", tokenizer="tokenizer-bpe4k-chat"),
              "finetune_gpt2_qa mini's policy: a build of mini-chat-build shipped in the repository (int8 weights; model.pt and its tokenizer's files), installed in a second"),
        Asset("corpus-tiny", "corpus", CorpusSpec(max_docs_per_source=200, val_fraction=0.05, test_fraction=0.05), "the first 200 documents of each source (tests)"),
        Asset("corpus-tiny-keyed", "corpus", KeyedSplitSpec(corpus="corpus-tiny"), "the tiny corpus split under the installation key's secret (tests)"),
        Asset("tokenizer-bpe512-tiny", "tokenizer", BpeTokenizerSpec(corpus="corpus-tiny-keyed", vocab_size=512), "byte-level BPE, 512 ids (tests)"),
        Asset("tokens-bpe512-tiny", "tokens", TokensSpec(corpus="corpus-tiny-keyed", tokenizer="tokenizer-bpe512-tiny"), "tiny keyed corpus as 512-BPE token files (tests)"),
        Asset("tiny", "model", ModelSpec(
            tokens="tokens-bpe512-tiny", gpt=GPTConfig(block_size=32, vocab_size=512, n_layer=1, n_head=2, n_embd=32), seed_label="assets/model/tiny",
            train=TrainConfig(steps=30, batch_size=8, learning_rate=3e-3, log_interval=10, eval_batches=4),
        ), "1-layer d32 GPT (tests)"),
        Asset("tiny-small", "model", ModelSpec(
            tokens="tokens-bpe512-tiny", gpt=GPTConfig(block_size=32, vocab_size=512, n_layer=1, n_head=2, n_embd=16), seed_label="assets/model/tiny-small",
            train=TrainConfig(steps=30, batch_size=8, learning_rate=3e-3, log_interval=10, eval_batches=4),
        ), "1-layer d16 GPT (tests: fix_embedding's small correct model)"),
    ]
}  # fmt: skip

VARIANTS: dict[str, tuple[str, ...]] = {
    "mini": ("corpus", "corpus-keyed", "tokenizer-gpt2", "tokenizer-bpe4k", "tokens-gpt2", "tokens-bpe4k", "mini-small", "mini-large", "tokens-bpe1k", "mini-chat"),
    "gpu": ("corpus", "corpus-keyed", "tokenizer-gpt2", "tokens-gpt2", "tokens-gpt2-keyed", "gpu-small", "gpu-large", "mini-chat", "tokens-bpe4k-chat-keyed", "gpu-chat4k"),
    "tiny": ("corpus-tiny", "corpus-tiny-keyed", "tokenizer-bpe512-tiny", "tokens-bpe512-tiny", "tiny"),
}


def with_dependencies(names: list[str] | tuple[str, ...]) -> list[str]:
    """``names`` and everything they need, dependencies first (catalog order among equals)."""
    unknown = [n for n in names if n not in ASSETS]
    if unknown:
        raise KeyError(f"unknown asset(s) {unknown}; known: {', '.join(ASSETS)}")
    needed: set[str] = set()

    def visit(name: str) -> None:
        if name not in needed:
            needed.add(name)
            for dep in ASSETS[name].deps:
                visit(dep)

    for name in names:
        visit(name)
    order = list(ASSETS)
    result: list[str] = []
    while len(result) < len(needed):
        for name in order:
            if name in needed and name not in result and all(d in result for d in ASSETS[name].deps):
                result.append(name)
    return result
