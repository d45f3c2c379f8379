"""Train the starting model (``model.py``) with masked-token cross-entropy; saves ``basic_model.pt``.

As the original's ``train.py``: random windows of ``../data/train.bin``, 15% of the tokens replaced by the
mask id (the last vocabulary id), cross-entropy on the masked positions only, AdamW. The loss function and
the masking here are training code, not the forward pass: they may use anything.

    python3 solution/train.py [--steps 500] [--batch-size 16] [--lr 1e-3] [--device cuda|cpu]

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import HERE, build_model, load_config

DATA = os.path.join(os.path.dirname(HERE), "data")
MASK_PROB = 0.15


def batch_of(tokens, batch_size, seq_len, mask_id, generator):
    starts = torch.randint(0, len(tokens) - seq_len, (batch_size,), generator=generator)
    x = torch.stack([torch.from_numpy(tokens[s : s + seq_len].astype(np.int64)) for s in starts.tolist()])
    mask = torch.rand(x.shape, generator=generator) < MASK_PROB
    return x.masked_fill(mask, mask_id), x, mask


def masked_loss(logits, targets, mask):
    return F.cross_entropy(logits[mask], targets[mask])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    config = load_config()
    seq_len, mask_id = config["seq_len"], config["vocab_size"] - 1
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    tokens = np.memmap(os.path.join(DATA, "train.bin"), dtype=np.uint16, mode="r")
    held_out = np.memmap(os.path.join(DATA, "val.bin"), dtype=np.uint16, mode="r")
    model = build_model().to(args.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    started = time.time()
    for step in range(1, args.steps + 1):
        x, y, mask = (t.to(args.device) for t in batch_of(tokens, args.batch_size, seq_len, mask_id, generator))
        loss = masked_loss(model(x), y, mask)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % 50 == 0 or step == args.steps:
            print(f"step {step} loss {loss.item():.4f} ({time.time() - started:.0f}s)", flush=True)
    model.eval()
    with torch.no_grad():
        eval_gen = torch.Generator().manual_seed(1)
        batches = (batch_of(held_out, 8, seq_len, mask_id, eval_gen) for _ in range(20))
        losses = [masked_loss(model(x.to(args.device)), y.to(args.device), m.to(args.device)).item() for x, y, m in batches]
    print(f"held-out masked loss {sum(losses) / len(losses):.4f}", flush=True)
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, os.path.join(HERE, "basic_model.pt"))


if __name__ == "__main__":
    main()
