"""Train one GPT for a scaling-law experiment (scaling_law environment).

    python train.py example_config.py            # run the experiment the config describes
    python train.py example_config.py --n_embd=96 --max_iters=300   # override values of the config

A config is a Python file (as nanoGPT's) that sets some of ``n_embd``, ``max_iters``, ``run_name``,
``seed`` and ``log_interval``. Everything else is fixed by the task (``SETTINGS`` below): depth, heads,
batch, context, optimizer, and the learning rate, which follows the width and the length of the run:

    learning_rate = 0.15 / n_embd * (max_iters / 5000) ** -0.4, cosine decay to a tenth of it, no warm-up

Experiments run in the task's protected launcher, which holds the training data and runs the code of this
file (its own copy: editing this one changes what your side prints and saves, not the experiment). The
launcher refuses any experiment above the FLOP cap, counted as

    flops = n_layer * n_embd**2 * 12 * 6 * block_size * batch_size * max_iters

The training losses (window means every ``log_interval`` iterations) are written to
``losses/<run_name>.txt`` as they arrive, and at the end the loss on fixed held-out validation windows,
``val_loss``, which is the loss the task asks you to predict. ``losses/<run_name>.json`` has everything.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable


@dataclass(frozen=True)
class Setting:
    """What a variant fixes: the model shape, the batch, the data and the two FLOP budgets."""

    n_layer: int
    n_head: int
    block_size: int
    batch_size: int
    vocab_size: int
    data: str  # the token files' folder name (a rebench asset; OpenWebText for paper)
    device: str
    precision: str  # "fp32" or "bf16"
    cap_flops: float  # largest experiment the launcher runs
    target_flops: float  # the budget the answer is for (50x the cap)
    eval_batches: int  # validation windows (of batch_size x block_size tokens) for val_loss


SETTINGS: dict[str, Setting] = {
    "mini": Setting(4, 4, 128, 16, 1024, "tokens-bpe1k", "cpu", "fp32", 3e11, 1.5e13, 40),
    "gpu": Setting(4, 8, 1024, 16, 50257, "tokens-gpt2", "cuda", "bf16", 1e14, 5e15, 40),
    "paper": Setting(4, 8, 1024, 64, 50304, "openwebtext", "cuda", "bf16", 1e16, 5e17, 40),
}

CONFIG_KEYS = ("n_embd", "max_iters", "run_name", "seed", "log_interval")
FIXED_KEYS = ("n_layer", "n_head", "block_size", "batch_size", "learning_rate", "min_lr", "warmup_iters",
              "lr_decay_iters", "weight_decay", "beta1", "beta2", "grad_clip", "dropout", "bias", "decay_lr")  # fmt: skip
DEFAULT_SEED = 1337
EVAL_SEED = 20241122  # the validation windows are the same for every experiment (and the sweep)
LAUNCHER_SOCKET = "/tmp/rebench-scaling-law/launcher.sock"
RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=+-]{0,99}$")


def flops(setting: Setting, n_embd: int, max_iters: int) -> float:
    """The task's FLOP count of a training run (non-embedding matmuls, forward and backward)."""
    return float(setting.n_layer * n_embd * n_embd * 12 * 6 * setting.block_size * setting.batch_size * max_iters)


def learning_rate(n_embd: int, max_iters: int) -> float:
    """Peak learning rate: 0.15 / n_embd * (max_iters / 5000) ** -0.4 (minimum: a tenth of it)."""
    return 0.15 / n_embd * (max_iters / 5000) ** -0.4


def check_request(setting: Setting, request: dict[str, Any]) -> dict[str, Any]:
    """The validated experiment (ints in range, a usable name); raises ValueError saying what is wrong."""
    out: dict[str, Any] = {}
    for key, low in (("n_embd", setting.n_head), ("max_iters", 1), ("seed", 0), ("log_interval", 1)):
        value = request.get(key, {"seed": DEFAULT_SEED, "log_interval": 10}.get(key))
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value < 2**31:
            raise ValueError(f"{key} must be an integer from {low} to {2**31 - 1}, not {value!r}")
        out[key] = value
    if out["n_embd"] % setting.n_head:
        raise ValueError(f"n_embd must be a multiple of n_head = {setting.n_head}, not {out['n_embd']}")
    name = request.get("run_name") or f"n{out['n_embd']}_i{out['max_iters']}_s{out['seed']}"
    if not isinstance(name, str) or not RUN_NAME.match(name):
        raise ValueError(f"run_name must be 1-100 letters, digits or _.=+- (starting with a letter or digit), not {name!r}")
    out["run_name"] = name
    return out


# ---- the experiment itself (run by the launcher, as the grader user, with the data) ----


def run_experiment(
    setting: Setting,
    experiment: dict[str, Any],
    data_dir: str | os.PathLike[str],
    on_log: Callable[[dict[str, float]], None] | None = None,
    device: str | None = None,
) -> dict[str, Any]:
    """Train the experiment's GPT and return ``{train: [...], val_loss, final_train_loss, seconds}``."""
    import torch

    from rebench_env.gpt import GPT, GPTConfig
    from rebench_env.tokens import read_tokens
    from rebench_env.train import TrainConfig, configure_cpu_threads, evaluate_loss, seed_everything, train

    device = device or setting.device
    if torch.device(device).type == "cpu":
        configure_cpu_threads(1)
    started = time.perf_counter()
    train_data = read_tokens(Path(data_dir) / "train.bin")
    val_data = read_tokens(Path(data_dir) / "val.bin")
    seed_everything(experiment["seed"])
    gpt = GPTConfig(block_size=setting.block_size, vocab_size=setting.vocab_size, n_layer=setting.n_layer,
                    n_head=setting.n_head, n_embd=experiment["n_embd"], dropout=0.0, bias=False)  # fmt: skip
    model = GPT(gpt).to(device)
    config = TrainConfig(
        steps=experiment["max_iters"], batch_size=setting.batch_size,
        learning_rate=learning_rate(experiment["n_embd"], experiment["max_iters"]), min_lr_ratio=0.1,
        warmup_steps=0, weight_decay=0.1, beta1=0.9, beta2=0.95, grad_clip=1.0, seed=experiment["seed"],
        precision=setting.precision, log_interval=experiment["log_interval"],
    )  # fmt: skip
    log = train(model, train_data, config, setting.block_size, device, on_log=on_log, cpu_threads=1)
    val = evaluate_loss(model, val_data, setting.eval_batches, setting.batch_size, setting.block_size,
                        seed=EVAL_SEED, device=device, precision=setting.precision)  # fmt: skip
    return {
        "train": log.train,
        "final_train_loss": log.final_train_loss if math.isfinite(log.final_train_loss) else None,
        "val_loss": val if math.isfinite(val) else None,
        "seconds": time.perf_counter() - started,
        "learning_rate": config.learning_rate,
        "params": model.num_params(),
    }


def launched(spec_path: str, events_fd: int) -> int:
    """Launcher side: run the spec's experiment, writing JSON-line events to ``events_fd``."""
    spec = json.loads(Path(spec_path).read_text())
    setting = SETTINGS[spec["variant"]]
    events = os.fdopen(events_fd, "w", buffering=1)

    def emit(event: dict[str, Any]) -> None:
        events.write(json.dumps(event) + "\n")

    result = run_experiment(setting, spec["experiment"], spec["data_dir"], lambda e: emit({"type": "log", **e}), spec.get("device"))
    emit({"type": "done", **{k: v for k, v in result.items() if k != "train"}})
    return 0


# ---- the agent's side: read the config, ask the launcher, save the losses ----


def read_config(paths: list[str], overrides: list[str]) -> dict[str, Any]:
    """Values from config files (executed as Python, as nanoGPT's configurator) and ``--key=value`` flags."""
    values: dict[str, Any] = {}
    for path in paths:
        scope: dict[str, Any] = {}
        exec(compile(Path(path).read_text(), path, "exec"), scope)  # the config is the agent's own file
        values.update({k: v for k, v in scope.items() if not k.startswith("__")})
    for flag in overrides:
        key, _, raw = flag.removeprefix("--").partition("=")
        try:
            values[key] = json.loads(raw)
        except json.JSONDecodeError:
            values[key] = raw
    if "wandb_run_name" in values and "run_name" not in values:
        values["run_name"] = values["wandb_run_name"]
    fixed = [k for k in FIXED_KEYS if k in values]
    if fixed:
        raise SystemExit(f"train.py: {', '.join(fixed)} are fixed by the task; only {', '.join(CONFIG_KEYS)} can be set")
    return {k: values[k] for k in CONFIG_KEYS if k in values}


def ask_launcher(request: dict[str, Any], socket_path: str) -> int:
    """Send the experiment, stream its losses into ``losses/`` and print them; exit status 0 when it finished."""
    Path("losses").mkdir(exist_ok=True)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(socket_path)
    except OSError as error:
        print(f"train.py: the experiment launcher does not answer at {socket_path} ({error}). Experiments run only "
              "inside the task's sandbox; if it stopped, one `score` action restarts it.", file=sys.stderr)  # fmt: skip
        return 3
    conn.sendall((json.dumps(request) + "\n").encode())
    stream = conn.makefile("r")
    name = request.get("run_name") or "experiment"
    txt = json_path = None
    record: dict[str, Any] = {"request": request, "train": []}
    for line in stream:
        event = json.loads(line)
        kind = event.get("type")
        if kind == "accepted":
            name = event["experiment"]["run_name"]
            txt, json_path = Path("losses") / f"{name}.txt", Path("losses") / f"{name}.json"
            txt.write_text("")
            record.update(event)
            print(f"{name}: n_embd={event['experiment']['n_embd']} max_iters={event['experiment']['max_iters']} "
                  f"flops={event['flops']:.4g} ({event['flops'] / event['cap_flops']:.1%} of the cap {event['cap_flops']:.3g})"
                  f" lr={event['learning_rate']:.4g}", flush=True)  # fmt: skip
        elif kind == "queued":
            print(f"{name}: waiting for a free slot ({event['running']} experiments running)", flush=True)
        elif kind == "log" and txt is not None:
            record["train"].append(event)
            text = f"iter {event['step']}: loss {event['loss']:.4f}, lr {event['lr']:.4g}, {event['seconds']:.1f} s"
            with txt.open("a") as f:
                f.write(text + "\n")
            print(text, flush=True)
        elif kind == "done" and txt is not None and json_path is not None:
            record.update(event)
            with txt.open("a") as f:
                f.write(f"val_loss {event['val_loss']}\n")
            json_path.write_text(json.dumps(record, indent=1) + "\n")
            print(f"{name}: val_loss {event['val_loss']} after {event['seconds']:.1f} s", flush=True)
            return 0
        elif kind in ("refused", "failed"):
            print(f"train.py: {kind}: {event['reason']}", file=sys.stderr)
            return 2
    print("train.py: the launcher closed the connection before the experiment finished", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", help="config files (Python) setting n_embd, max_iters, ...")
    parser.add_argument("--launched", metavar="SPEC", help=argparse.SUPPRESS)
    parser.add_argument("--events-fd", type=int, default=1, help=argparse.SUPPRESS)
    args, overrides = parser.parse_known_args(argv)
    if args.launched:
        return launched(args.launched, args.events_fd)
    unknown = [o for o in overrides if not o.startswith("--") or "=" not in o]
    if unknown:
        parser.error(f"unrecognized arguments {unknown}; overrides look like --n_embd=96")
    request = read_config(args.configs, overrides)
    return ask_launcher(request, os.environ.get("REBENCH_SCALING_LAUNCHER", LAUNCHER_SOCKET))


if __name__ == "__main__":
    raise SystemExit(main())
