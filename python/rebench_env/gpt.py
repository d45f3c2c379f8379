"""The one small GPT every environment and asset builder uses (nanoGPT's architecture and parameter names).

Why one definition: pretrained assets, graders that strict-load a checkpoint into a protected copy of the
architecture, and agent workspaces must agree on parameter names and shapes. The names follow nanoGPT
(``transformer.wte.weight``, ``transformer.h.0.attn.c_attn.weight``, ..., ``lm_head.weight``) and the input
embedding is tied to the output head, as in GPT-2.

Checkpoint format (as upstream's fix_embedding): one ``torch.save`` of a flat dict holding the state dict
plus ``"config"`` (a plain dict of :class:`GPTConfig` fields). Both ``transformer.wte.weight`` and
``lm_head.weight`` are present and share one storage. Load with :meth:`GPT.from_state_dict` or
:func:`load_gpt`; a strict load into ``GPT(config)`` after ``state.pop("config")`` also works.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass(frozen=True)
class GPTConfig:
    block_size: int = 256
    vocab_size: int = 4096
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 256
    dropout: float = 0.0
    bias: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "GPTConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown GPTConfig fields {unknown}; known: {sorted(known)}")
        return cls(**dict(data))


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (PyTorch's has no bias=False before 2.1; kept for nanoGPT parity)."""

    def __init__(self, ndim: int, bias: bool) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        if config.n_embd % config.n_head != 0:
            raise ValueError(f"n_embd ({config.n_embd}) must be a multiple of n_head ({config.n_head})")
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, c // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(
            q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True
        )
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=LayerNorm(config.n_embd, bias=config.bias),
            )
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # tied, as GPT-2
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_params(self, non_embedding: bool = True) -> int:
        """Parameter count; ``non_embedding`` leaves out the position embedding (the token one is tied)."""
        n = sum(p.numel() for p in self.parameters())
        return n - self.transformer.wpe.weight.numel() if non_embedding else n

    def forward(
        self, idx: torch.Tensor, targets: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Logits for every position; with ``targets``, also the mean cross-entropy (-1 targets ignored)."""
        _, t = idx.size()
        if t > self.config.block_size:
            raise ValueError(f"sequence of {t} tokens is longer than block_size {self.config.block_size}")
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(
            logits.float().view(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1
        )
        return logits, loss

    @torch.no_grad()
    def generate(
        self,
        idx: torch.Tensor,
        max_new_tokens: int,
        temperature: float = 1.0,
        top_k: int | None = None,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """Sample ``max_new_tokens`` continuations of ``idx`` (batch, time); temperature 0 is greedy."""
        for _ in range(max_new_tokens):
            cond = idx[:, -self.config.block_size :]
            logits = self(cond)[0][:, -1, :].float()
            if temperature <= 0:
                nxt = logits.argmax(dim=-1, keepdim=True)
            else:
                logits = logits / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("inf")
                probs = F.softmax(logits, dim=-1)
                nxt = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, nxt), dim=1)
        return idx

    def checkpoint(self) -> dict[str, Any]:
        """The saved form: the state dict plus ``"config"``."""
        state: dict[str, Any] = dict(self.state_dict())
        state["config"] = self.config.to_dict()
        return state

    @classmethod
    def from_state_dict(cls, state: Mapping[str, Any], strict: bool = True) -> "GPT":
        """Build the model from a checkpoint dict (state dict plus ``"config"``) and load it strictly."""
        if "config" not in state:
            raise ValueError('checkpoint has no "config" entry: not a rebench_env GPT checkpoint')
        weights = {k: v for k, v in state.items() if k != "config"}
        config = GPTConfig.from_dict(state["config"])
        model = cls(config)
        model.load_state_dict(weights, strict=strict)
        return model


def save_gpt(model: GPT, path: str | os.PathLike[str]) -> None:
    """Save ``model`` as state dict plus ``"config"``."""
    torch.save(model.checkpoint(), os.fspath(path))


def load_gpt(path: str | os.PathLike[str], map_location: str | torch.device = "cpu") -> GPT:
    """Load a checkpoint written by :func:`save_gpt` (strict)."""
    state = torch.load(os.fspath(path), map_location=map_location, weights_only=True)
    return GPT.from_state_dict(state)
