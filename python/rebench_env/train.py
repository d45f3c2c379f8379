"""A plain GPT training loop with seeds, a bf16/fp32 switch and a loss log (what nanoGPT's train.py does).

Used by the asset builder to pretrain the small models, by graders that train or evaluate, and as a model
for starting solutions. On a CPU it runs one thread per process by default: on the 2-core development
machines two threads made element-wise ops many times slower (MACHINE.md). With one thread and a fixed seed
a CPU run is bit-for-bit repeatable.
"""

from __future__ import annotations

import math
import random
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, ContextManager, Literal

import numpy as np
import torch
import torch.nn as nn

from rebench_env.tokens import TokenBatches

Precision = Literal["fp32", "bf16"]


@dataclass(frozen=True)
class TrainConfig:
    steps: int
    batch_size: int
    learning_rate: float = 1e-3
    min_lr_ratio: float = 0.1  # cosine decay ends at learning_rate * min_lr_ratio
    warmup_steps: int = 0
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.95
    grad_clip: float = 1.0  # 0 turns clipping off
    seed: int = 1337  # data order (model init is seeded by the caller before building the model)
    precision: Precision = "fp32"
    log_interval: int = 10
    eval_interval: int = 0  # 0: evaluate only after the last step
    eval_batches: int = 10

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class TrainLog:
    """Loss curve: one entry per log interval ``{step, loss, lr, seconds}`` and evals ``{step, val_loss}``."""

    train: list[dict[str, float]] = field(default_factory=list)
    val: list[dict[str, float]] = field(default_factory=list)

    @property
    def final_train_loss(self) -> float:
        return self.train[-1]["loss"] if self.train else math.nan

    @property
    def final_val_loss(self) -> float:
        return self.val[-1]["val_loss"] if self.val else math.nan


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def configure_cpu_threads(threads: int | None = 1) -> None:
    """Set torch's CPU threads (``None`` leaves torch's default)."""
    if threads is None:
        return
    torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(threads)
    except RuntimeError:
        pass  # already set, or parallel work has started: keep what is there


def autocast(device: str | torch.device, precision: Precision) -> ContextManager[Any]:
    """bf16 autocast for ``"bf16"``, nothing for ``"fp32"``."""
    if precision == "fp32":
        return nullcontext()
    if precision == "bf16":
        return torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16)
    raise ValueError(f"precision must be fp32 or bf16, not {precision!r}")


def learning_rate_at(step: int, config: TrainConfig) -> float:
    """Linear warm-up, then cosine decay to ``learning_rate * min_lr_ratio`` at the last step."""
    lr, min_lr = config.learning_rate, config.learning_rate * config.min_lr_ratio
    if step < config.warmup_steps:
        return lr * (step + 1) / config.warmup_steps
    span = max(1, config.steps - config.warmup_steps)
    progress = min(1.0, (step - config.warmup_steps) / span)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * progress)) * (lr - min_lr)


def make_optimizer(model: nn.Module, config: TrainConfig, device: str | torch.device) -> torch.optim.AdamW:
    """AdamW with weight decay on matrices only (nanoGPT's split)."""
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]
    no_decay = [p for p in params if p.dim() < 2]
    groups = [
        {"params": decay, "weight_decay": config.weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    fused = torch.device(device).type == "cuda"
    return torch.optim.AdamW(
        groups, lr=config.learning_rate, betas=(config.beta1, config.beta2), fused=fused
    )


@torch.no_grad()
def evaluate_loss(
    model: nn.Module,
    data: np.ndarray,
    batches: int,
    batch_size: int,
    block_size: int,
    seed: int,
    device: str | torch.device = "cpu",
    precision: Precision = "fp32",
) -> float:
    """Mean next-token loss over ``batches`` random windows drawn with ``seed`` (same seed, same windows)."""
    was_training = model.training
    model.eval()
    stream = TokenBatches(data, batch_size, block_size, seed, device)
    total = torch.zeros((), device=device)
    with autocast(device, precision):
        for _ in range(batches):
            x, y = next(stream)
            total += model(x, y)[1].float()
    model.train(was_training)
    return float(total.item() / batches)


def train(
    model: nn.Module,
    train_data: np.ndarray,
    config: TrainConfig,
    block_size: int,
    device: str | torch.device = "cpu",
    val_data: np.ndarray | None = None,
    on_log: Callable[[dict[str, float]], None] | None = None,
    cpu_threads: int | None = 1,
) -> TrainLog:
    """Train ``model`` (already on ``device``) for ``config.steps`` steps; returns the loss log.

    ``on_log`` is called with each log entry (train and val) as it happens, for progress output. On a CPU,
    torch is set to ``cpu_threads`` threads first (``None`` keeps the current setting).
    """
    if torch.device(device).type == "cpu":
        configure_cpu_threads(cpu_threads)
    model.train()
    optimizer = make_optimizer(model, config, device)
    batches = TokenBatches(train_data, config.batch_size, block_size, config.seed, device)
    log = TrainLog()
    started = time.perf_counter()
    running = torch.zeros((), device=device)
    running_steps = 0

    def evaluate(step: int) -> None:
        if val_data is None:
            return
        val = evaluate_loss(
            model, val_data, config.eval_batches, config.batch_size, block_size,
            seed=config.seed + 1, device=device, precision=config.precision,
        )  # fmt: skip
        entry = {"step": step, "val_loss": val, "seconds": time.perf_counter() - started}
        log.val.append(entry)
        if on_log:
            on_log(entry)

    for step in range(config.steps):
        lr = learning_rate_at(step, config)
        for group in optimizer.param_groups:
            group["lr"] = lr
        x, y = next(batches)
        with autocast(device, config.precision):
            _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if config.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        running += loss.detach().float()
        running_steps += 1
        last = step == config.steps - 1
        if (step + 1) % config.log_interval == 0 or last:
            entry = {
                "step": step + 1,
                "loss": float(running.item() / running_steps),
                "lr": lr,
                "seconds": time.perf_counter() - started,
            }
            log.train.append(entry)
            running.zero_()
            running_steps = 0
            if on_log:
                on_log(entry)
        if config.eval_interval and (step + 1) % config.eval_interval == 0 and not last:
            evaluate(step + 1)
    evaluate(config.steps)
    return log
