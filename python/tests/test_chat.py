"""rebench_env.chat.sample: the KV-cached decoding draws exactly what recomputing the whole sequence draws."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from rebench_env.chat import GenerationSettings, _filter, batch_seed, end_response, sample
from rebench_env.gpt import GPT, GPTConfig


class Chars:
    """A character tokenizer with an end-of-text id (the tests' stand-in for the BPE)."""

    eot_id = 0

    def encode(self, text: str) -> list[int]:
        return [1 + (ord(c) % 60) for c in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(chr(ord("a") + (i - 1) % 26) if i else "<|endoftext|>" for i in ids)


def reference_sample(model: GPT, tok: Chars, prompts: list[str], settings: GenerationSettings, seed: int, batch_size: int) -> list[str]:
    """The decoding before the KV cache: the whole sequence through the model at every new token."""
    block, eot = model.config.block_size, tok.eot_id
    generator = torch.Generator()
    encoded = [tok.encode(p)[-max(1, block - settings.max_new_tokens) :] for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: len(encoded[i]))
    out = [""] * len(prompts)
    for start in range(0, len(order), batch_size):
        generator.manual_seed(batch_seed(seed, start))
        chunk = order[start : start + batch_size]
        width = max(len(encoded[i]) for i in chunk)
        idx = torch.tensor([[eot] * (width - len(encoded[i])) + encoded[i] for i in chunk])
        new = torch.empty((len(chunk), 0), dtype=torch.long)
        done = torch.zeros(len(chunk), dtype=torch.bool)
        for step in range(settings.max_new_tokens):
            logits = model(idx[:, -block:])[0][:, -1, :].float()
            if step < settings.min_new_tokens:
                logits[:, eot] = -math.inf
            if settings.temperature <= 0:
                nxt = logits.argmax(dim=-1, keepdim=True)
            else:
                nxt = torch.multinomial(F.softmax(_filter(logits / settings.temperature, settings), dim=-1), 1, generator=generator)
            nxt = torch.where(done[:, None], torch.full_like(nxt, eot), nxt)
            done |= nxt[:, 0] == eot
            idx = torch.cat((idx, nxt), dim=1)
            new = torch.cat((new, nxt), dim=1)
            if bool(done.all()):
                break
        for row, i in enumerate(chunk):
            ids = new[row].tolist()
            out[i] = end_response(tok.decode(ids[: ids.index(eot)] if eot in ids else ids))
    return out


def test_cached_decoding_draws_what_full_recomputation_draws() -> None:
    torch.manual_seed(0)
    model = GPT(GPTConfig(block_size=48, vocab_size=61, n_layer=2, n_head=2, n_embd=32, dropout=0.0, bias=True)).eval()
    tok = Chars()
    prompts = ["short", "a somewhat longer prompt", "x" * 80, "mid length one"]  # the third is cut to fit the context
    for settings in (
        GenerationSettings(temperature=0, max_new_tokens=12),
        GenerationSettings(temperature=1.0, max_new_tokens=16, min_new_tokens=4),
        GenerationSettings(temperature=0.8, top_k=5, top_p=0.9, max_new_tokens=20),
        GenerationSettings(temperature=1.0, max_new_tokens=60),  # more new tokens than the context holds
    ):
        for batch_size in (1, 3):
            got = sample(model, tok, prompts, settings, seed=7, batch_size=batch_size)
            assert got == reference_sample(model, tok, prompts, settings, seed=7, batch_size=batch_size)
    assert sample(model, tok, prompts, GenerationSettings(temperature=1.0), seed=1) != sample(model, tok, prompts, GenerationSettings(temperature=1.0), seed=2)


def test_a_batch_draws_the_same_whatever_the_batches_before_it_drew() -> None:
    """finetune_gpt2_qa's grader samples every submission under one seed: a change that moves the first batch must
    not hand the other batches new random numbers (a fresh draw of them, a free re-roll under max aggregation)."""
    torch.manual_seed(0)
    model = GPT(GPTConfig(block_size=48, vocab_size=61, n_layer=2, n_head=2, n_embd=32, dropout=0.0, bias=True)).eval()
    with torch.no_grad():  # end-of-text likely (about one token in four): batches run different numbers of steps
        lean = torch.zeros(32)
        lean[0] = 1.5
        model.transformer.ln_f.bias.copy_(lean)
        model.lm_head.weight[0] = lean
    tok = Chars()
    settings = GenerationSettings(temperature=1.0, max_new_tokens=16)
    prompts = ["p" * n for n in range(3, 15)]  # distinct lengths: the batches are fixed, the first holds the three shortest
    first = sample(model, tok, prompts, settings, seed=5, batch_size=3)
    other_start = sample(model, tok, ["a" * n for n in range(3, 6)] + prompts[3:], settings, seed=5, batch_size=3)

    def steps(batch: list[str]) -> int:
        return max(min(len(r) + 1, settings.max_new_tokens) for r in batch)

    assert steps(other_start[:3]) != steps(first[:3])  # the premise: the first batch drew another number of times
    assert other_start[3:] == first[3:]
    nearly = GenerationSettings(temperature=1.0000000001, max_new_tokens=16)
    assert sample(model, tok, prompts, nearly, seed=5, batch_size=3) == first  # one seed, nearly one distribution: the same tokens
