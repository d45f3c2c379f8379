"""Estimate a variant's loss floor: train the original large model much longer, fit a power law, subtract a margin.

    PYTHONPATH=python python3 environments/fix_embedding/bench/floor.py --profile mini --steps 1500 --out floor-mini.json

Continues training the built, unpermuted large model (the profile's ``large`` asset) on the training split
at a constant learning rate (no decay, so the curve's shape is the data's and the model's, not the
schedule's) and records the validation loss every ``--eval-every`` steps on fixed windows (``--out`` is
rewritten after each, so a stopped run keeps its curve; ``--max-seconds`` stops training at the first
evaluation past that time and fits what was recorded). Fits
L(t) = E + B * t^(-beta) over t = pretraining steps + steps here (beta on a grid, E and B by least
squares), and proposes floor = min(E, best loss seen) - margin, rounded down to 0.1. README.md ("The
floor") gives the result and the reasoning. One CPU thread on a CPU profile.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

from rebench_env.assets import require_asset
from rebench_env.gpt import GPT
from rebench_env.tokens import read_tokens
from rebench_env.train import TrainConfig, configure_cpu_threads, train

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "grader"))
from profiles import load_profile  # noqa: E402


class TimeUp(Exception):
    """--max-seconds has passed."""


def fit_power_law(t: np.ndarray, loss: np.ndarray) -> dict[str, float]:
    """Least-squares E, B for each beta on a grid; the best fit."""
    best: dict[str, float] = {}
    for beta in np.linspace(0.02, 2.0, 991):
        x = np.stack([np.ones_like(t), t ** -beta], axis=1)
        (e, b), *_ = np.linalg.lstsq(x, loss, rcond=None)
        residual = float(((x @ np.array([e, b]) - loss) ** 2).sum())
        if not best or residual < best["residual"]:
            best = {"E": float(e), "B": float(b), "beta": float(beta), "residual": residual}
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="mini")
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--eval-every", type=int, default=100)
    parser.add_argument("--eval-batches", type=int, default=20)
    parser.add_argument("--margin", type=float, default=0.5)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="bf16" if torch.cuda.is_available() else "fp32")
    parser.add_argument("--max-seconds", type=float, help="stop at the first evaluation after this many seconds of training")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    profile = load_profile(name=args.profile)
    asset = require_asset(profile.large.get("asset") or profile.large["pretrain"])  # gpu: the catalog's gpu-large, built by `rebench assets build --variant gpu`
    tokens = require_asset(profile.tokens["asset"])
    pretrained_steps = json.loads((asset / "asset.json").read_text())["inputs"]["spec"]["train"]["steps"]
    configure_cpu_threads(1)
    model = GPT.from_state_dict(torch.load(asset / "model.pt", map_location="cpu", weights_only=True)).to(args.device)
    train_data, val_data = read_tokens(tokens / "train.bin"), read_tokens(tokens / "val.bin")
    curve: list[dict[str, float]] = []
    started = time.time()

    settings = {"profile": args.profile, "pretrained_steps": pretrained_steps, "steps": args.steps, "lr": args.lr, "batch_size": args.batch_size,
                "device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu"}

    def record(entry: dict[str, float]) -> None:
        if "val_loss" in entry:
            curve.append({"step": pretrained_steps + entry["step"], "val_loss": entry["val_loss"]})
            print(f"step {int(entry['step'])}/{args.steps} val {entry['val_loss']:.4f} ({time.time() - started:.0f}s)", flush=True)
            if args.out:
                args.out.write_text(json.dumps({**settings, "partial": True, "curve": curve}, indent=1) + "\n")
            if args.max_seconds is not None and time.time() - started > args.max_seconds:
                raise TimeUp

    config = TrainConfig(steps=args.steps, batch_size=args.batch_size, learning_rate=args.lr, min_lr_ratio=1.0, warmup_steps=0,
                         seed=4242, precision=args.precision, log_interval=args.eval_every, eval_interval=args.eval_every, eval_batches=args.eval_batches)
    try:
        train(model, train_data, config, model.config.block_size, args.device, val_data=val_data, on_log=record)
    except TimeUp:
        print(f"stopped after {time.time() - started:.0f}s (--max-seconds {args.max_seconds}) at step {curve[-1]['step'] - pretrained_steps}", flush=True)
    t = np.array([c["step"] for c in curve], dtype=float)
    loss = np.array([c["val_loss"] for c in curve])
    fit = fit_power_law(t, loss)
    best = float(loss.min())
    floor = math.floor((min(fit["E"], best) - args.margin) * 10) / 10
    result = {**settings, "steps_done": int(t[-1]) - pretrained_steps, "curve": curve, "fit": fit, "best": best, "margin": args.margin, "floor": floor, "seconds": round(time.time() - started)}
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"fit L(t) = {fit['E']:.3f} + {fit['B']:.3g} t^-{fit['beta']:.3f}; best {best:.4f}; floor = {floor}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
