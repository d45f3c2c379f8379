"""Build the hidden ground truth of scaling_law: a sweep of training runs at and below the target budget.

    python environments/scaling_law/sweep/build_sweep.py --variant mini --out sweep-mini --workers 2
    python environments/scaling_law/sweep/build_sweep.py --variant gpu --out sweep-gpu --devices all --longest-first --budget-seconds 420

The sweep is a grid: every width in ``--widths`` at every budget fraction in ``--fractions`` of the target
(``max_iters = floor(fraction * target / flops_per_iter)``). The row at fraction 1 is the iso-FLOP line the
answer is graded on; the lower rows let the grader interpolate answers that use less than the budget.
Every point runs the grader's own ``train.py --launched`` in a child process (the exact code the launcher
runs for the agent, one CPU thread each on a CPU) and is saved as ``OUT/points/d<width>_f<fraction>.json``
when it finishes, so an interrupted build resumes where it stopped. ``OUT/sweep.json`` gathers the points
and the build's timing (rewritten after every point, so a build stopped from outside keeps what finished);
``pack_sweep.py`` encrypts it into ``grader/sweep.zip``. Several GPUs: ``--devices all`` gives worker ``i`` the
device ``cuda:(i % n)`` (``--workers 2n`` puts two points on each GPU); ``--longest-first`` starts the points
with the most iterations first, so the longest one, which bounds the build's time, never waits.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GRADER = HERE.parent / "grader"
sys.path.insert(0, str(GRADER))
import launcher  # noqa: E402
import train as training  # noqa: E402  (the grader's training code: one source for launcher and sweep)

DEFAULT_WIDTHS = {"mini": "48,64,96,128,192", "gpu": "320,384,512,768,1024,1536,2048", "paper": "256,384,512,768,1024,1536"}
DEFAULT_FRACTIONS = "1/16,1/4,1"
CODE_FILES = [GRADER / "train.py"] + [HERE.parents[2] / "python" / "rebench_env" / n for n in ("gpt.py", "train.py", "tokens.py")]


def code_hashes() -> dict[str, str]:
    """sha256 of the files that decide a point's loss; the shipped sweep records them (a test compares)."""
    root = HERE.parents[2]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in CODE_FILES}


def point_name(width: int, fraction: Fraction) -> str:
    return f"d{width}_f{fraction.numerator}-{fraction.denominator}"


def plan(variant: str, widths: list[int], fractions: list[Fraction]) -> list[dict[str, Any]]:
    """Every point, cheapest rows first (the low budgets give an early look at the curve)."""
    setting = training.SETTINGS[variant]
    points = []
    for fraction in sorted(fractions):
        for width in widths:
            per_iter = training.flops(setting, width, 1)
            iters = int(fraction * Fraction(setting.target_flops) / Fraction(per_iter))
            points.append({"name": point_name(width, fraction), "n_embd": width, "max_iters": iters,
                           "fraction": str(fraction), "flops": training.flops(setting, width, iters)})  # fmt: skip
    return points


def run_point(variant: str, point: dict[str, Any], data_dir: str, out: Path, seed: int, device: str | None) -> dict[str, Any]:
    """Train one point through ``train.py --launched`` and save its record; returns it."""
    experiment = training.check_request(training.SETTINGS[variant], {"n_embd": point["n_embd"], "max_iters": point["max_iters"],
                                                                   "seed": seed, "log_interval": max(1, point["max_iters"] // 50)})  # fmt: skip
    # On cuda:i it sees that GPU alone; on the CPU its kernels are pinned as the launcher's (REPRODUCIBLE_CPU_ENV).
    env, child = launcher.child_device(device) if device else (launcher.child_device("cpu")[0], None)
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        spec.write_text(json.dumps({"variant": variant, "experiment": experiment, "data_dir": data_dir, "device": child}))
        read, write = os.pipe()
        started = time.time()
        with open(Path(tmp) / "stderr", "w+") as err:
            child = subprocess.Popen([sys.executable, str(GRADER / "train.py"), "--launched", str(spec), "--events-fd", str(write)],
                                     pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=err, env=env)  # fmt: skip
            os.close(write)
            with os.fdopen(read) as events:
                lines = [json.loads(line) for line in events]
            code = child.wait()
            err.seek(0)
            stderr = err.read()
    done = [e for e in lines if e.get("type") == "done"]
    if code != 0 or not done:
        raise RuntimeError(f"point {point['name']} failed (exit {code}): {stderr[-2000:]}")
    record = {**point, "seed": seed, "val_loss": done[0]["val_loss"], "final_train_loss": done[0]["final_train_loss"],
              "seconds": done[0]["seconds"], "wall_seconds": time.time() - started, "learning_rate": done[0]["learning_rate"],
              "params": done[0]["params"], "device": device, "train": [e for e in lines if e.get("type") == "log"],
              "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    target = out / "points" / f"{point['name']}.json"
    partial = target.with_suffix(".json.partial")
    partial.write_text(json.dumps(record, indent=1) + "\n")
    partial.replace(target)
    return record


def probe(variant: str, points: list[dict[str, Any]], data_dir: str, steps: int, device: str | None, out: Path) -> None:
    """Time ``steps`` training steps of every width and print each point's expected seconds (``probe.json``)."""
    import torch

    from rebench_env.gpt import GPT, GPTConfig
    from rebench_env.tokens import TokenBatches, read_tokens
    from rebench_env.train import TrainConfig, autocast, configure_cpu_threads, make_optimizer

    setting = training.SETTINGS[variant]
    device = device or setting.device
    if device == "cpu":
        configure_cpu_threads(1)
    data = read_tokens(Path(data_dir) / "train.bin")
    per_step: dict[int, float] = {}
    for width in sorted({p["n_embd"] for p in points}):
        model = GPT(GPTConfig(setting.block_size, setting.vocab_size, setting.n_layer, setting.n_head, width, 0.0, False)).to(device)
        optimizer = make_optimizer(model, TrainConfig(steps=steps, batch_size=setting.batch_size), device)
        batches = TokenBatches(data, setting.batch_size, setting.block_size, 0, device)
        for i in range(steps + 3):
            if i == 3:
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
                started = time.perf_counter()
            x, y = next(batches)
            with autocast(device, setting.precision):
                loss = model(x, y)[1]
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        per_step[width] = (time.perf_counter() - started) / steps
        print(f"probe: n_embd {width}: {per_step[width] * 1000:.1f} ms a step", flush=True)
    estimates = [{"name": p["name"], "seconds": p["max_iters"] * per_step[p["n_embd"]]} for p in points]
    total = sum(e["seconds"] for e in estimates)
    print(f"probe: the whole sweep needs about {total / 60:.0f} minutes of one device (steps only)", flush=True)
    (out / "probe.json").write_text(json.dumps({"ms_per_step": {str(k): v * 1000 for k, v in per_step.items()}, "points": estimates,
                                                "total_seconds": total, "machine": machine()}, indent=1) + "\n")  # fmt: skip


def device_list(spec: str | None) -> list[str]:
    """``--devices``: None (the variant's own device), ``all`` (every visible GPU) or a comma-separated list."""
    if not spec:
        return []
    if spec == "all":
        import torch

        if not torch.cuda.is_available():
            raise SystemExit("--devices all: no GPU is visible (torch.cuda.is_available() is false)")
        return [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    return [d.strip() for d in spec.split(",") if d.strip()]


def machine() -> dict[str, Any]:
    import torch

    info: dict[str, Any] = {"python": platform.python_version(), "torch": torch.__version__, "cpu": platform.processor() or platform.machine(),
                            "cores": os.cpu_count(), "host": platform.node()}  # fmt: skip
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["gpu_count"] = torch.cuda.device_count()
    return info


def data_record(data_dir: str) -> dict[str, Any]:
    """Which token files the sweep trained on (the asset's key, when it is a rebench asset)."""
    record = Path(data_dir) / "asset.json"
    key = json.loads(record.read_text()).get("key") if record.exists() else None
    return {"dir": data_dir, "asset_key": key}


def gather(variant: str, points: list[dict[str, Any]], out: Path, started: float, widths: list[int], fractions: list[Fraction],
           data_dir: str, record_wall: bool = True) -> dict[str, Any]:  # fmt: skip
    """``sweep.json``: the grid of losses (rows = fractions, columns = widths) and every point's record.

    ``build_wall_seconds`` adds this build's time to the earlier builds' once, at its end (``record_wall``);
    the rewrites after each point show it as ``running_wall_seconds``."""
    records = {p["name"]: json.loads((out / "points" / f"{p['name']}.json").read_text()) for p in points
               if (out / "points" / f"{p['name']}.json").exists()}  # fmt: skip
    previous = json.loads((out / "sweep.json").read_text()) if (out / "sweep.json").exists() else {}
    setting = training.SETTINGS[variant]
    summary = {
        "variant": variant, "setting": setting.__dict__, "target_flops": setting.target_flops, "cap_flops": setting.cap_flops,
        "widths": widths, "fractions": [str(f) for f in sorted(fractions)],
        "losses": [[records.get(point_name(w, f), {}).get("val_loss") for w in widths] for f in sorted(fractions)],
        "complete": len(records) == len(points), "points": [records[p["name"]] for p in points if p["name"] in records],
        "train_seconds": sum(r["seconds"] for r in records.values()),
        "build_wall_seconds": previous.get("build_wall_seconds", 0.0) + (time.time() - started if record_wall else 0.0),
        "running_wall_seconds": time.time() - started,
        "code": code_hashes(), "machine": machine(), "data": data_record(data_dir),
    }  # fmt: skip
    (out / "sweep.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=sorted(training.SETTINGS), required=True)
    parser.add_argument("--out", required=True, help="folder for points/ and sweep.json (resumes what is there)")
    parser.add_argument("--data", help="token folder with train.bin and val.bin (default: the variant's asset)")
    parser.add_argument("--widths", help="comma-separated n_embd values (default per variant)")
    parser.add_argument("--fractions", default=DEFAULT_FRACTIONS, help="budget fractions of the target (default %(default)s)")
    parser.add_argument("--only", help="comma-separated point names to run (default all)")
    parser.add_argument("--workers", type=int, help="points trained at once (default: one per device)")
    parser.add_argument("--seed", type=int, default=training.DEFAULT_SEED)
    parser.add_argument("--devices", help="comma-separated devices the workers take in turn (cuda:0,cuda:1; 'all': every visible GPU; "
                                          "default: the variant's device; cpu for a smoke test)")  # fmt: skip
    parser.add_argument("--costly-first", action="store_true", help="within a row, start the longest points first")
    parser.add_argument("--longest-first", action="store_true", help="start the points with the most iterations first, over all rows")
    parser.add_argument("--budget-seconds", type=float, help="start no new point after this many seconds")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and exit")
    parser.add_argument("--probe", type=int, metavar="STEPS", help="first time STEPS steps of each width and estimate every point")
    args = parser.parse_args()

    widths = [int(w) for w in (args.widths or DEFAULT_WIDTHS[args.variant]).split(",")]
    fractions = [Fraction(f) for f in args.fractions.split(",")]
    out = Path(args.out)
    (out / "points").mkdir(parents=True, exist_ok=True)
    points = plan(args.variant, widths, fractions)
    todo = [p for p in points if not (out / "points" / f"{p['name']}.json").exists()]
    if args.only:
        todo = [p for p in todo if p["name"] in args.only.split(",")]
    if args.costly_first:  # within each row, the most iterations first: workers finish together
        todo.sort(key=lambda p: (Fraction(p["fraction"]), -p["max_iters"]))
    if args.longest_first:  # the longest point bounds the build: it never waits for a free device
        todo.sort(key=lambda p: -p["max_iters"])
    devices = device_list(args.devices)
    workers = args.workers or (len(devices) if devices else 1)
    for p in points:
        state = "todo" if p in todo else "done"
        print(f"{p['name']:>14}  n_embd {p['n_embd']:>5}  max_iters {p['max_iters']:>7}  flops {p['flops']:.4g}  {state}", flush=True)
    if args.dry_run:
        return 0
    if args.data:
        data_dir = args.data
    else:
        from rebench_env.assets import require_asset

        data_dir = str(require_asset(training.SETTINGS[args.variant].data))
    started = time.time()
    if args.probe:
        probe(args.variant, points, data_dir, args.probe, devices[0] if devices else None, out)
    queue = list(todo)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def worker(index: int) -> None:
        device = devices[index % len(devices)] if devices else None
        while True:
            with lock:
                if not queue or failures:
                    return
                point = queue.pop(0)
            if (out / "points" / f"{point['name']}.json").exists():
                continue  # another builder on the same folder did it meanwhile
            if args.budget_seconds is not None and time.time() - started > args.budget_seconds:
                print(f"{point['name']}: skipped (past --budget-seconds)", flush=True)
                continue
            try:
                record = run_point(args.variant, point, data_dir, out, args.seed, device)
            except BaseException as error:  # noqa: BLE001  (reported after the other workers stop)
                with lock:
                    failures.append(error)
                return
            print(f"{point['name']}: val_loss {record['val_loss']} in {record['seconds']:.0f} s on {device or 'the default device'}", flush=True)
            with lock:  # sweep.json always holds what finished
                gather(args.variant, points, out, started, widths, fractions, data_dir, record_wall=False)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    summary = gather(args.variant, points, out, started, widths, fractions, data_dir)
    if failures:
        raise failures[0]
    print(json.dumps({"complete": summary["complete"], "losses": summary["losses"], "build_wall_seconds": summary["build_wall_seconds"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
