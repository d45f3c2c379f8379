"""Chat-style sampling of a Hugging Face causal LM (finetune_gpt2_qa's paper variant: gpt2-xl and gpt2-alpaca).

``chat.sample`` samples rebench's own GPT; this samples a ``transformers`` causal LM (``GPT2LMHeadModel``) the same
way: the same ``GenerationSettings`` (temperature, top-k, top-p, new-token limits), the same filters, the same end of
a response (end-of-text, or the next ``###`` section), and draws from a generator seeded by the caller. The agent's
starting code, the set-up (the references' responses) and the grader (the agent's weights under the agent's
settings) all generate through it.

Prompts are left-padded with end-of-text tokens under an attention mask, with position ids counted from each
prompt's first real token, so a prompt's response does not depend on the batch it is in; decoding keeps the keys
and values (``past_key_values``), one position per new token. A prompt longer than the context is cut from the left
to leave room for ``max_new_tokens``.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch

from rebench_env.chat import GenerationSettings, end_response, next_tokens


def context_length(model: torch.nn.Module) -> int:
    config = model.config
    return int(getattr(config, "n_positions", None) or config.max_position_embeddings)


@torch.no_grad()
def sample(
    model: torch.nn.Module,
    tokenizer: Any,
    prompts: Sequence[str],
    settings: GenerationSettings,
    seed: int = 0,
    batch_size: int = 32,
) -> list[str]:
    """One response per prompt (the prompts as given: the full Alpaca text up to ``### Response:\\n``)."""
    model.eval()
    eos = tokenizer.eos_token_id
    keep = max(1, context_length(model) - settings.max_new_tokens)
    encoded = [tokenizer.encode(p)[-keep:] or [eos] for p in prompts]
    order = sorted(range(len(prompts)), key=lambda i: len(encoded[i]))  # similar lengths batch together
    out: list[str] = [""] * len(prompts)
    device = next(model.parameters()).device
    generator = torch.Generator(device=device).manual_seed(seed)
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        width = max(len(encoded[i]) for i in chunk)
        ids = torch.tensor([[eos] * (width - len(encoded[i])) + encoded[i] for i in chunk], device=device)
        mask = torch.tensor([[0] * (width - len(encoded[i])) + [1] * len(encoded[i]) for i in chunk], device=device)
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        result = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True)
        past, logits = result.past_key_values, result.logits[:, -1, :].float()
        new = torch.empty((len(chunk), 0), dtype=torch.long, device=device)
        done = torch.zeros(len(chunk), dtype=torch.bool, device=device)
        for step in range(settings.max_new_tokens):
            nxt = next_tokens(logits, settings, step, eos, done, generator)
            new = torch.cat((new, nxt), dim=1)
            if bool(done.all()) or step == settings.max_new_tokens - 1:
                break
            mask = torch.cat((mask, torch.ones_like(nxt)), dim=1)
            positions = positions[:, -1:] + 1
            result = model(input_ids=nxt, attention_mask=mask, position_ids=positions, past_key_values=past, use_cache=True)
            past, logits = result.past_key_values, result.logits[:, -1, :].float()
        for row, i in enumerate(chunk):
            tokens = new[row].tolist()
            if eos in tokens:
                tokens = tokens[: tokens.index(eos)]
            out[i] = end_response(tokenizer.decode(tokens))
    return out
