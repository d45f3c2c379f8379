"""Chat-style sampling and supervised fine-tuning of a small GPT (finetune_gpt2_qa's policy).

One implementation for the agent's starting code, the grader (which samples the agent's weights with the
settings its ``model.py`` declares) and the set-up (the supervised reference model), so that the three
generate the same way:

- ``ALPACA``: the prompt template (upstream's Alpaca format);
- ``GenerationSettings``: temperature, top-k, top-p, new-token limits, validated against bounds;
- ``sample(model, tokenizer, prompts, settings, seed)``: batched sampling; prompts are left-padded with
  end-of-text tokens (the model saw them between documents in pretraining), so no attention mask is needed;
  a response ends at end-of-text and at the next ``###`` section;
- ``sft(model, tokenizer, prompts, responses, ...)``: next-token loss on the response tokens only (and the
  end-of-text after them), Adam, gradient clipping, as upstream's ``rl_finetune.py``.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

import torch
import torch.nn.functional as F

ALPACA = (
    "Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n"
    "### Instruction:\n{instruction}\n\n### Response:\n"
)
_END = re.compile(r"\n\s*###|<\|endoftext\|>")


def end_response(text: str) -> str:
    """A generated continuation cut at the next Alpaca section or end-of-text marker, stripped."""
    return _END.split(text, 1)[0].strip()


@dataclass(frozen=True)
class GenerationSettings:
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    max_new_tokens: int = 32
    min_new_tokens: int = 1

    LIMIT_NEW_TOKENS = 60  # upstream's max_new_tokens at scoring

    @classmethod
    def parse(cls, data: Mapping[str, Any], limit_new_tokens: int = LIMIT_NEW_TOKENS) -> "GenerationSettings":
        """Validated settings from a mapping (ValueError naming the bad field); unknown keys are refused."""
        known = {"temperature", "top_k", "top_p", "max_new_tokens", "min_new_tokens"}
        extra = set(data) - known
        if extra:
            raise ValueError(f"unknown generation settings {sorted(extra)} (known: {sorted(known)})")
        out = cls(**{k: data[k] for k in known if k in data})
        t = out.temperature
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not 0 <= t <= 5:
            raise ValueError("temperature must be a number in [0, 5] (0 is greedy)")
        if out.top_k is not None and (isinstance(out.top_k, bool) or not isinstance(out.top_k, int) or out.top_k < 1):
            raise ValueError("top_k must be None or a positive integer")
        p = out.top_p
        if p is not None and (isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 < p <= 1):
            raise ValueError("top_p must be None or in (0, 1]")
        for name in ("max_new_tokens", "min_new_tokens"):
            v = getattr(out, name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= limit_new_tokens:
                raise ValueError(f"{name} must be an integer in [0, {limit_new_tokens}]")
        if out.min_new_tokens > out.max_new_tokens:
            raise ValueError("min_new_tokens must not exceed max_new_tokens")
        return out

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _filter(logits: torch.Tensor, settings: GenerationSettings) -> torch.Tensor:
    if settings.top_k is not None:
        v, _ = torch.topk(logits, min(settings.top_k, logits.size(-1)))
        logits = logits.masked_fill(logits < v[:, [-1]], -math.inf)
    if settings.top_p is not None and settings.top_p < 1:
        ordered, index = torch.sort(logits, descending=True)
        cum = torch.softmax(ordered, dim=-1).cumsum(dim=-1)
        drop = cum - torch.softmax(ordered, dim=-1) > settings.top_p
        ordered = ordered.masked_fill(drop, -math.inf)
        logits = torch.full_like(logits, -math.inf).scatter(1, index, ordered)
    return logits


def _step(model: torch.nn.Module, idx: torch.Tensor, cache: list[tuple[torch.Tensor, torch.Tensor]], start: int) -> torch.Tensor:
    """The last position's logits of ``rebench_env.gpt.GPT`` on ``idx`` (batch, time) after ``cache``'s
    positions, appending this call's keys and values to ``cache``: the model's own modules, one token a step
    after the prompt instead of the whole sequence again."""
    tr = model.transformer
    t = idx.size(1)
    x = tr.wte(idx) + tr.wpe(torch.arange(start, start + t, device=idx.device))
    for layer, block in enumerate(tr.h):
        attn = block.attn
        b, _, c = x.size()
        q, k, v = attn.c_attn(block.ln_1(x)).split(attn.n_embd, dim=2)
        q, k, v = (z.view(b, t, attn.n_head, c // attn.n_head).transpose(1, 2) for z in (q, k, v))
        if layer < len(cache):
            k = torch.cat((cache[layer][0], k), dim=2)
            v = torch.cat((cache[layer][1], v), dim=2)
            cache[layer] = (k, v)
        else:
            cache.append((k, v))
        # the prompt attends causally; a new token attends to everything before it
        y = F.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
        x = x + attn.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))
        x = x + block.mlp(block.ln_2(x))
    return model.lm_head(tr.ln_f(x[:, -1, :])).float()


def next_tokens(logits: torch.Tensor, settings: GenerationSettings, step: int, eot: int, done: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One decoding step's tokens (batch, 1) from the last position's ``logits``: end-of-text barred before
    ``min_new_tokens``, greedy at temperature 0, else drawn after top-k / top-p; rows already ``done`` get
    end-of-text, and rows that end now are marked in ``done`` (in place)."""
    if step < settings.min_new_tokens:
        logits[:, eot] = -math.inf
    if settings.temperature <= 0:
        nxt = logits.argmax(dim=-1, keepdim=True)
    else:
        probs = F.softmax(_filter(logits / settings.temperature, settings), dim=-1)
        nxt = torch.multinomial(probs, 1, generator=generator)
    nxt = torch.where(done[:, None], torch.full_like(nxt, eot), nxt)
    done |= nxt[:, 0] == eot
    return nxt


def batch_seed(seed: int, start: int) -> int:
    """The seed of the batch of ``sample`` that begins at sorted prompt ``start`` (the first batch's is ``seed``)."""
    return (seed + start * 0x9E3779B97F4A7C15) % 2**63


@torch.no_grad()
def sample(
    model: torch.nn.Module,
    tokenizer: Any,
    prompts: Sequence[str],
    settings: GenerationSettings,
    seed: int = 0,
    batch_size: int = 64,
) -> list[str]:
    """One response per prompt (the prompts as given: format them with ``ALPACA`` first).

    Decoding keeps each layer's keys and values (a KV cache), so a new token costs one position's forward
    pass. Each batch draws from its own stream (``batch_seed``), and ``torch.multinomial`` draws one token as
    the argmax of probabilities over exponential noise: under one seed, two nearly equal distributions (another
    temperature in the last digit, weights nudged) draw nearly the same tokens (common random numbers). The prompt is cut to leave room for the new tokens; where the context is too short for them all,
    the last ``block_size`` tokens are run again at each step, as without a cache.
    """
    model.eval()
    block = model.config.block_size
    eot = tokenizer.eot_id
    keep = max(1, block - settings.max_new_tokens)  # at least one token of the prompt
    encoded = [tokenizer.encode(p)[-keep:] for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: len(encoded[i]))  # similar lengths batch together
    out: list[str] = [""] * len(prompts)
    device = next(model.parameters()).device
    # Draws on the model's device: a GPU's are its own (repeatable there), a CPU's as before; copying the
    # probabilities to the CPU at each step made sampling on an H200 take 36 s for 512 prompts.
    generator = torch.Generator(device=device)
    for start in range(0, len(order), batch_size):
        # each batch its own stream, so that what one batch draws does not depend on how long the batches before
        # it ran: two models (or two settings) sampled under one seed draw with the same random numbers
        generator.manual_seed(batch_seed(seed, start))
        chunk = order[start : start + batch_size]
        width = max(len(encoded[i]) for i in chunk)
        idx = torch.tensor([[eot] * (width - len(encoded[i])) + encoded[i] for i in chunk], device=device)
        new = torch.empty((len(chunk), 0), dtype=torch.long, device=device)
        done = torch.zeros(len(chunk), dtype=torch.bool, device=device)
        cache: list[tuple[torch.Tensor, torch.Tensor]] = []
        logits = _step(model, idx, cache, 0)
        for step in range(settings.max_new_tokens):
            nxt = next_tokens(logits, settings, step, eot, done, generator)
            new = torch.cat((new, nxt), dim=1)
            if bool(done.all()) or step == settings.max_new_tokens - 1:
                break
            if width + step < block:
                logits = _step(model, nxt, cache, width + step)
            else:  # past the context (a context shorter than max_new_tokens): the last block_size tokens again
                logits = model(torch.cat((idx, new), dim=1)[:, -block:])[0][:, -1, :].float()
        for row, i in enumerate(chunk):
            ids = new[row].tolist()
            if eot in ids:
                ids = ids[: ids.index(eot)]
            out[i] = end_response(tokenizer.decode(ids))
    return out


def sft(
    model: torch.nn.Module,
    tokenizer: Any,
    prompts: Sequence[str],
    responses: Sequence[str],
    steps: int,
    lr: float = 3e-4,
    batch_size: int = 16,
    seed: int = 0,
    log: Any = None,
) -> list[float]:
    """``steps`` Adam steps of next-token loss on the response tokens (plus end-of-text); returns the losses."""
    block = model.config.block_size
    eot = tokenizer.eot_id
    rows: list[tuple[list[int], int]] = []
    for p, r in zip(prompts, responses):
        pi, ri = tokenizer.encode(p), tokenizer.encode(r) + [eot]
        ids = (pi + ri)[-(block + 1) :]
        rows.append((ids, min(len(ri), len(ids) - 1)))
    if not rows:
        return []
    rng = random.Random(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses: list[float] = []
    model.train()
    for step in range(steps):
        batch = [rows[rng.randrange(len(rows))] for _ in range(batch_size)]
        width = max(len(ids) for ids, _ in batch) - 1
        x = torch.full((len(batch), width), eot, dtype=torch.long)
        y = torch.full((len(batch), width), -1, dtype=torch.long)
        for b, (ids, n) in enumerate(batch):
            seq = torch.tensor(ids)
            pad = width - (len(ids) - 1)
            x[b, pad:] = seq[:-1]
            target = seq[1:].clone()
            target[: len(target) - n] = -1
            y[b, pad:] = target
        device = next(model.parameters()).device
        x, y = x.to(device), y.to(device)
        logits = model(x)[0]
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), y.reshape(-1), ignore_index=-1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if log is not None and (step % 20 == 0 or step == steps - 1):
            log(f"sft step {step}: loss {losses[-1]:.3f}")
    model.eval()
    return losses
