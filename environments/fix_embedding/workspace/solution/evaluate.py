"""Mean next-token loss of a checkpoint on random windows of a token file (the grader uses hidden data).

    python solution/evaluate.py fixed_model.pth [--data data/train.bin] [--batches 40]

The grader loads the state dict strictly into the original architecture and takes the loss on windows of
a validation split you do not have; this gives the same measure on any token file you choose (for
example a slice of train.bin you keep out of training).
"""

from __future__ import annotations

import argparse

import torch

from rebench_env.gpt import GPT
from rebench_env.tokens import read_tokens
from rebench_env.train import configure_cpu_threads, evaluate_loss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--data", default="data/train.bin")
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    configure_cpu_threads(1)
    model = GPT.from_state_dict(torch.load(args.model, map_location="cpu", weights_only=True)).float().to(args.device)
    loss = evaluate_loss(model, read_tokens(args.data), args.batches, args.batch_size, model.config.block_size, args.seed, args.device)
    print(f"{args.model}: loss {loss:.4f} on {args.batches} x {args.batch_size} windows of {args.data}")


if __name__ == "__main__":
    main()
