"""Pretrain one named GPT size on a token asset and save it with its loss curve.

Output: ``model.pt`` (state dict plus ``"config"``, see ``rebench_env.gpt``) and ``losses.json`` (the train
curve every ``log_interval`` steps and the validation losses). The model is initialized under
``torch.manual_seed(init_seed)`` and batches come from ``TrainConfig.seed``; on a CPU with one thread the
weights are bit-for-bit the same on every build.

A keyed size (``seed_label`` set: the sizes fix_embedding corrupts or hands out) takes both seeds from a
secret instead (``with_secret_seeds``): the asset builder uses ``derived_secret(seed_label)`` of the
installation key, a set-up that pretrains at run start a secret of its own. Otherwise anyone holding the
training split, this code and the catalog's recipe could train the same weights again bit for bit.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

from rebench_env.gpt import GPT, GPTConfig, save_gpt
from rebench_env.secrets import seed_from
from rebench_env.tokens import read_tokens
from rebench_env.train import TrainConfig, configure_cpu_threads, seed_everything, train


@dataclass(frozen=True)
class ModelSpec:
    tokens: str
    gpt: GPTConfig
    train: TrainConfig
    device: str = "cpu"  # "cuda" for the gpu sizes
    threads: int | None = 1  # CPU threads for this build (one per process on small machines)
    init_seed: int = 0
    seed_label: str | None = None  # keyed: the seeds come from a secret (with_secret_seeds), not from here
    notes: str = field(default="", compare=False)


def with_secret_seeds(spec: ModelSpec, secret: str) -> ModelSpec:
    """``spec`` with its initialization and data-order seeds derived from ``secret`` (hex)."""
    return dataclasses.replace(
        spec,
        init_seed=seed_from(secret, "init"),
        train=dataclasses.replace(spec.train, seed=seed_from(secret, "batches")),
        seed_label=None,
    )


class DeviceUnavailableError(RuntimeError):
    """The size needs a device this machine lacks."""


def build_model(
    spec: ModelSpec, tokens_dir: Path, out_dir: Path, progress: Callable[[str], None]
) -> dict[str, Any]:
    if spec.device.startswith("cuda") and not torch.cuda.is_available():
        raise DeviceUnavailableError("this model size trains on a CUDA GPU and none is available here")
    if spec.seed_label is not None:
        raise ValueError(f"a keyed model size ({spec.seed_label}): give it its seeds with with_secret_seeds() first")
    meta = json.loads((tokens_dir / "meta.json").read_text())
    if meta["vocab_size"] != spec.gpt.vocab_size:
        raise ValueError(f"model vocab_size {spec.gpt.vocab_size} != tokens vocab_size {meta['vocab_size']}")
    if spec.device == "cpu":
        configure_cpu_threads(spec.threads)
    else:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    seed_everything(spec.init_seed)
    model = GPT(spec.gpt).to(spec.device)
    train_data = read_tokens(tokens_dir / "train.bin")
    val_data = read_tokens(tokens_dir / "val.bin")
    total = spec.train.steps
    started = time.perf_counter()

    def report(entry: dict[str, float]) -> None:
        if "val_loss" in entry:
            progress(f"step {int(entry['step'])}/{total} val loss {entry['val_loss']:.4f}")
        else:
            progress(f"step {int(entry['step'])}/{total} loss {entry['loss']:.4f} ({entry['seconds']:.0f}s)")

    progress(f"{model.num_params() / 1e6:.2f}M parameters on {spec.device}, {total} steps")
    log = train(
        model, train_data, spec.train, spec.gpt.block_size, spec.device,
        val_data=val_data, on_log=report, cpu_threads=spec.threads,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    save_gpt(model.to("cpu").float(), out_dir / "model.pt")
    # no wall-clock times in the file, so that two builds write the same bytes
    curve = {k: [{f: v for f, v in e.items() if f != "seconds"} for e in entries]
             for k, entries in (("train", log.train), ("val", log.val))}
    (out_dir / "losses.json").write_text(json.dumps(curve, indent=1) + "\n")
    return {
        "parameters": model.num_params(),
        "tokens": spec.tokens,
        "tokenizer": meta["tokenizer"],
        "tokens_seen": total * spec.train.batch_size * spec.gpt.block_size,
        "final_train_loss": round(log.final_train_loss, 4),
        "final_val_loss": round(log.final_val_loss, 4),
        "train_seconds": round(seconds, 1),
        "device": torch.cuda.get_device_name() if spec.device.startswith("cuda") else "cpu",
    }
