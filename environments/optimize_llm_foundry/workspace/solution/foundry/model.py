"""The causal LM: the base model's GPT (rebench_env.gpt), loaded from ``$BASE_MODEL``, with this run's options.

``$BASE_MODEL`` is a folder holding ``config.json`` (GPTConfig fields), ``model.safetensors`` (the tied
embedding saved once, as ``transformer.wte.weight``) and ``tokenizer/``. The model options of finetune.yaml:
``use_flash_attention_2: false`` runs attention as an explicit masked softmax (as LLM Foundry's torch
attention), true as ``scaled_dot_product_attention``; ``fsdp_config.activation_checkpointing`` recomputes
every block's forward pass in the backward pass.

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from safetensors.torch import load_file, save_file

from rebench_env.gpt import GPT, GPTConfig, CausalSelfAttention

TIED = "lm_head.weight"  # the same tensor as transformer.wte.weight


def naive_attention(self: CausalSelfAttention, x: torch.Tensor) -> torch.Tensor:
    b, t, c = x.size()
    q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
    hs = c // self.n_head
    q = q.view(b, t, self.n_head, hs).transpose(1, 2)
    k = k.view(b, t, self.n_head, hs).transpose(1, 2)
    v = v.view(b, t, self.n_head, hs).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device))
    att = att.masked_fill(~mask, float("-inf"))
    att = F.softmax(att, dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
    return self.resid_dropout(self.c_proj(y))


class CausalLM(torch.nn.Module):
    def __init__(self, gpt: GPT, flash: bool, activation_checkpointing: bool) -> None:
        super().__init__()
        self.gpt = gpt
        self.activation_checkpointing = activation_checkpointing
        if not flash:
            for block in gpt.transformer.h:
                block.attn.forward = naive_attention.__get__(block.attn)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        g = self.gpt
        pos = torch.arange(idx.size(1), device=idx.device)
        x = g.transformer.drop(g.transformer.wte(idx) + g.transformer.wpe(pos))
        for block in g.transformer.h:
            if self.activation_checkpointing and self.training:
                x = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        return g.lm_head(g.transformer.ln_f(x))


def load_base_model(folder: str) -> GPT:
    with open(os.path.join(folder, "config.json")) as f:
        config = GPTConfig.from_dict(json.load(f))
    weights = load_file(os.path.join(folder, "model.safetensors"))
    weights[TIED] = weights["transformer.wte.weight"]
    model = GPT(config)
    model.load_state_dict(weights, strict=True)
    return model


def build_model(cfg: dict[str, Any]) -> CausalLM:
    model_cfg = cfg["model"]
    gpt = load_base_model(model_cfg["pretrained_model_name_or_path"])
    fsdp = cfg.get("fsdp_config") or {}
    return CausalLM(gpt, bool(model_cfg.get("use_flash_attention_2", False)), bool(fsdp.get("activation_checkpointing", False)))


def save_hf(state: dict[str, torch.Tensor], config: dict[str, Any], folder: str, dtype: torch.dtype) -> None:
    """``folder/model.safetensors`` (tied head left out) and ``folder/config.json``."""
    os.makedirs(folder, exist_ok=True)
    tensors = {k.removeprefix("gpt."): v.detach().to(dtype).contiguous() for k, v in state.items()}
    tensors.pop(TIED, None)
    save_file(tensors, os.path.join(folder, "model.safetensors"))
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
