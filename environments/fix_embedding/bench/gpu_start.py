"""Measure the gpu variant's start: pretraining the large model as the set-up does, then the original and
the corrupted model's losses on the grader's windows.

    PYTHONPATH=python python3 environments/fix_embedding/bench/gpu_start.py --tokens TOKENS_DIR --out OUT_DIR

TOKENS_DIR is a built ``tokens-gpt2-keyed`` asset (train.bin, val.bin, test.bin, meta.json). The pretraining is
``grader/setup.py``'s own code path (``model_checkpoint({"pretrain": "gpu-large"})``: the catalog's
``gpu-large`` size, trained with ``rebench_env.train``); the losses are ``grader/score.py``'s (strict load
into the fixed architecture, the profile's window shape under seeds drawn here from ``os.urandom``). Writes ``result.json`` and ``losses.json`` (the
pretraining curve, from which README's floor is fitted) to OUT_DIR and prints a table. ``--pretrain tiny
--profile tiny`` tries the script on a CPU in seconds.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import torch

GRADER = Path(__file__).resolve().parents[1] / "grader"


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


SEEDS = {split: int.from_bytes(os.urandom(8), "little") >> 1 for split in ("val", "train")}  # the same windows for every model


def losses_of(checkpoint: dict, tokens: Path, ev: dict, score) -> dict[str, float]:
    from rebench_env.gpt import GPT, GPTConfig

    model = GPT(GPTConfig.from_dict(checkpoint["config"]))
    score.load_strict(model, checkpoint)
    return score.evaluate(model.to(ev["device"]).eval(), tokens, ev, model.config.block_size, SEEDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--pretrain", default="gpu-large", help="catalog model size to pretrain")
    parser.add_argument("--profile", default="gpu", help="profile whose evaluation windows and floor to use")
    parser.add_argument("--corrupt", type=int, default=2, help="how many random permutations to score")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    setup = load("fix_embedding_setup", GRADER / "setup.py")
    score = load("fix_embedding_score", GRADER / "score.py")
    profile = setup.load_profile(GRADER / "profiles.json", args.profile)
    ev = dict(profile.eval)
    if ev["device"] == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    result: dict = {"device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu", "torch": torch.__version__, "profile": args.profile}
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        checkpoint = setup.model_checkpoint({"pretrain": args.pretrain}, Path(tmp), args.tokens, Path(tmp))
        result["pretrain_wall_seconds"] = round(time.perf_counter() - started, 1)
        result["pretrain"] = json.loads((Path(tmp) / "pretrain.json").read_text())
        shutil.copyfile(Path(tmp) / args.pretrain / "losses.json", args.out / "losses.json")
    (args.out / "result.json").write_text(json.dumps(result, indent=1) + "\n")
    started = time.perf_counter()
    result["original"] = losses_of(checkpoint, args.tokens, ev, score)
    result["eval_seconds"] = round(time.perf_counter() - started, 2)
    result["corrupted"] = [losses_of(setup.permute_embedding(checkpoint, int.from_bytes(os.urandom(8), "little")), args.tokens, ev, score) for _ in range(args.corrupt)]
    floor = profile.floor
    result["scores"] = {"original": math.log(result["original"]["val"] - floor), "corrupted": [math.log(c["val"] - floor) for c in result["corrupted"]], "floor": floor}
    (args.out / "result.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"{'model':<22} {'val':>8} {'train':>8} {'ln(val-floor)':>14}")
    for name, losses in [("original", result["original"]), *((f"corrupted #{i + 1}", c) for i, c in enumerate(result["corrupted"]))]:
        print(f"{name:<22} {losses['val']:>8.4f} {losses['train']:>8.4f} {math.log(losses['val'] - floor):>14.4f}")
    print(f"pretraining {args.pretrain}: {result['pretrain_wall_seconds']} s wall ({result['pretrain']['train_seconds']} s training) on {result['device']}; one evaluation (val and train) {result['eval_seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
