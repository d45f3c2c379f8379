"""Stage 2 of finetune.sh: fine-tune the base model as finetune.yaml says and save a checkpoint.

    python3 scripts/train/train.py finetune.yaml key=value ...

One epoch over the training split in the shuffled order of ``train_loader.dataset.shuffle_seed``, in global
batches of ``global_train_batch_size`` rows (the last partial batch dropped), each split into microbatches of
``device_train_microbatch_size`` whose gradients add up (the loss is the mean over the global batch's response
tokens); gradient clipping by norm, decoupled AdamW, cosine schedule with linear warm-up. After training, the
loss on the evaluation split; then the checkpoint (model, optimizer and scheduler state, as Composer's)
goes to ``save_folder/latest-rank0.pt``.

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from foundry.config import batches, load_config  # noqa: E402
from foundry.data import IGNORE, FinetuningDataset, PadToMaxLen, shuffled_order  # noqa: E402
from foundry.model import CausalLM, build_model  # noqa: E402


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def loader(cfg: dict[str, Any], split_cfg: dict[str, Any], batch_size: int, order: list[int] | None) -> torch.utils.data.DataLoader:
    dataset = FinetuningDataset(Path(split_cfg["dataset"]["local"]) / split_cfg["dataset"]["split"])
    workers = int(split_cfg.get("num_workers", 0))
    return torch.utils.data.DataLoader(
        dataset if order is None else torch.utils.data.Subset(dataset, order),
        batch_size=batch_size,
        shuffle=False,
        drop_last=bool(split_cfg.get("drop_last", False)),
        collate_fn=PadToMaxLen(int(split_cfg["dataset"]["max_seq_len"])),
        num_workers=workers,
        multiprocessing_context="spawn" if workers > 0 else None,
    )


def token_losses(model: CausalLM, batch: dict[str, torch.Tensor], device: torch.device, precision: str) -> tuple[torch.Tensor, int]:
    """(sum of the cross-entropies of the response tokens, their number)."""
    ids, labels = batch["input_ids"].to(device), batch["labels"].to(device)
    amp = torch.autocast(device.type, dtype=torch.bfloat16) if precision == "amp_bf16" else torch.autocast(device.type, enabled=False)
    with amp:
        logits = model(ids)
    targets = labels[:, 1:].reshape(-1)
    loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, logits.size(-1)), targets, ignore_index=IGNORE, reduction="sum")
    return loss, int((targets != IGNORE).sum())


def lr_factor(step: int, warmup: int, total: int, alpha_f: float) -> float:
    """Composer's cosine_with_warmup: linear to 1 over ``warmup`` batches, then cosine down to ``alpha_f``."""
    if step < warmup:
        return (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return alpha_f + (1 - alpha_f) * 0.5 * (1 + math.cos(math.pi * progress))


def evaluate(model: CausalLM, eval_loader: torch.utils.data.DataLoader, device: torch.device, precision: str) -> float:
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for batch in eval_loader:
            loss, n = token_losses(model, batch, device, precision)
            total += float(loss)
            count += n
    model.train()
    return total / max(1, count)


def main() -> int:
    if len(sys.argv) < 2:
        raise SystemExit("usage: train.py finetune.yaml [key=value ...]")
    cfg = load_config(sys.argv[1], sys.argv[2:])
    seed_everything(int(cfg["global_seed"]))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    precision = str(cfg["precision"])
    model = build_model(cfg).to(device)
    model.train()

    global_batch = int(cfg["global_train_batch_size"])
    micro = int(cfg["device_train_microbatch_size"])
    if global_batch % micro:
        raise SystemExit("global_train_batch_size must be a multiple of device_train_microbatch_size")
    train_cfg = cfg["train_loader"]
    n_rows = len(FinetuningDataset(Path(train_cfg["dataset"]["local"]) / train_cfg["dataset"]["split"]))
    order = shuffled_order(n_rows, int(train_cfg["dataset"]["shuffle_seed"])) if train_cfg["dataset"].get("shuffle", True) else list(range(n_rows))
    train_loader = loader(cfg, train_cfg, global_batch, order)
    eval_loader = loader(cfg, cfg["eval_loader"], int(cfg["device_eval_batch_size"]), None)
    if cfg["max_duration"] != "1ep":
        raise SystemExit(f"max_duration {cfg['max_duration']!r}: this trainer runs whole epochs, 1ep")
    total_steps = len(train_loader)

    opt_cfg = cfg["optimizer"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=float(opt_cfg["lr"]), betas=tuple(opt_cfg["betas"]), eps=float(opt_cfg["eps"]),
                                  weight_decay=float(opt_cfg["weight_decay"]))
    sched_cfg = cfg["scheduler"]
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: lr_factor(step, batches(sched_cfg["t_warmup"]), total_steps, float(sched_cfg["alpha_f"])))
    clip = float(cfg["algorithms"]["gradient_clipping"]["clipping_threshold"])

    started = time.time()
    step = 0
    for batch in train_loader:
        optimizer.zero_grad(set_to_none=True)
        n_tokens = int((batch["labels"][:, 1:] != IGNORE).sum())
        for i in range(0, global_batch, micro):
            part = {k: v[i:i + micro] for k, v in batch.items()}
            loss, _ = token_losses(model, part, device, precision)
            (loss / n_tokens).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        scheduler.step()
        step += 1
    print(f"trained {step} batches in {time.time() - started:.1f} s", file=sys.stderr)

    eval_loss = evaluate(model, eval_loader, device, precision)
    print(f"eval loss {eval_loss:.4f}", file=sys.stderr)

    folder = Path(cfg["save_folder"])
    folder.mkdir(parents=True, exist_ok=True)
    name = f"ep1-ba{step}-rank0.pt"
    state = {
        "state": {
            "model": model.state_dict(),
            "optimizers": {"DecoupledAdamW": optimizer.state_dict()},
            "schedulers": [scheduler.state_dict()],
            "timestamp": {"epoch": 1, "batch": step},
            "integrations": {"model_config": model.gpt.config.to_dict()},
        },
        "rng": [{"torch": torch.get_rng_state(), "python": random.getstate()[1], "numpy": np.random.get_state()[1]}],
    }
    torch.save(state, folder / name)
    latest = folder / "latest-rank0.pt"
    if latest.exists() or latest.is_symlink():
        latest.unlink()
    os.symlink(name, latest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
