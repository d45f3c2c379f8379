"""Train (or fine-tune) a GPT checkpoint on data/train.bin, nanoGPT style.

    python solution/train.py --init large_model.pth --out fixed_model.pth --steps 200 --lr 6e-4

A checkpoint is a state dict plus "config" (see /opt/rebench/python/rebench_env/gpt.py for the model and
rebench_env/train.py for the loop this script uses). --freeze NAME,... keeps parameters whose name starts
with one of the prefixes fixed (e.g. --freeze transformer.h to train only the embeddings and layer norms).
Run it from the workspace; add & to keep training in the background.
"""

from __future__ import annotations

import argparse
import time

import torch

from rebench_env.gpt import GPT, save_gpt
from rebench_env.tokens import read_tokens
from rebench_env.train import TrainConfig, seed_everything, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--init", default="large_model.pth", help="checkpoint to start from")
    parser.add_argument("--out", default="fixed_model.pth", help="where to save the trained checkpoint")
    parser.add_argument("--data", default="data/train.bin")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=6e-4)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--weight-decay", type=float, default=0.1)
    parser.add_argument("--freeze", default="", help="comma-separated parameter-name prefixes to keep fixed")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="bf16" if torch.cuda.is_available() else "fp32")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (one is fastest on small machines)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    seed_everything(args.seed)
    model = GPT.from_state_dict(torch.load(args.init, map_location="cpu", weights_only=True)).float().to(args.device)
    prefixes = [p for p in args.freeze.split(",") if p]
    for name, param in model.named_parameters():
        param.requires_grad = not any(name.startswith(p) for p in prefixes)
    config = TrainConfig(steps=args.steps, batch_size=args.batch_size, learning_rate=args.lr, warmup_steps=args.warmup,
                         weight_decay=args.weight_decay, seed=args.seed, precision=args.precision, log_interval=10)
    started = time.time()

    def show(entry: dict[str, float]) -> None:
        print(f"step {int(entry['step'])}/{args.steps} loss {entry['loss']:.4f} ({time.time() - started:.0f}s)", flush=True)

    train(model, read_tokens(args.data), config, model.config.block_size, args.device, on_log=show, cpu_threads=args.threads)
    save_gpt(model.to("cpu"), args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
