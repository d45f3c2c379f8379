"""Times every gpu solution against the memory-bandwidth floor (needs a CUDA GPU).

    python environments/optimize_kernel/reference/unpack.py /tmp/ref
    python environments/optimize_kernel/bench/gpu_bench.py --reference-dir /tmp/ref --json bench.json

For each solution (the torch start, the three-kernel Triton reference, the two-pass best-known and the
single-pass look-back in several tile configurations) and a plain device-to-device copy: an exact check on a
fresh N = 10^8 input, then the median (and min) of many timed calls (CUDA events around one call,
synchronized), each on one of several fresh inputs in rotation. The floor is n x 4 bytes read plus
n x 4 bytes written over the copy's bandwidth, i.e. the copy's own time. Prints a table last.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

ENV_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ENV_DIR / "grader"))
import prefix  # noqa: E402

LOOKBACK_CONFIGS = [(4096, 4), (16384, 16)]  # the two fastest of nine measured on an H200 (README)
TWOPASS_CONFIGS = [(4096, 4), (4096, 8), (8192, 8), (8192, 16), (16384, 16), (16384, 32)]


def load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_calls(fn: Callable[[torch.Tensor], Any], inputs: list[torch.Tensor], reps: int) -> list[float]:
    for x in inputs:  # warm-up (compilation, allocator)
        fn(x)
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        x = inputs[i % len(inputs)]
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(x)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times


def wall_ms(fn: Callable[[torch.Tensor], Any], x: torch.Tensor) -> float:
    """One call timed the original task's way (host clock around a synchronized call), for comparison."""
    torch.cuda.synchronize()
    t = time.perf_counter()
    fn(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3


def check(fn: Callable[[torch.Tensor], torch.Tensor], n: int) -> str | None:
    for length in (1, 4097, n):
        x = torch.randint(-10, 10, (length,), dtype=torch.int32, device="cuda")
        y = fn(x)
        if y.dtype != torch.int32 or y.shape != x.shape:
            return f"n={length}: dtype {y.dtype}, shape {tuple(y.shape)}"
        index = prefix.first_difference(y, prefix.expected_torch(x))
        if index is not None:
            return f"n={length}: first different index {index}"
    return None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reference-dir", required=True, help="unpacked reference archive (reference/unpack.py)")
    p.add_argument("--n", type=int, default=100_000_000)
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--inputs", type=int, default=4, help="fresh inputs rotated through the timed calls")
    p.add_argument("--json", help="write the full results here")
    args = p.parse_args()
    ref = Path(args.reference_dir)
    inputs = [torch.randint(-10, 10, (args.n,), dtype=torch.int32, device="cuda") for _ in range(args.inputs)]
    out = torch.empty_like(inputs[0])

    solutions: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
        "start (torch)": load(ENV_DIR / "workspace" / "gpu" / "solution" / "solution.py", "start").prefix_sum,
        "reference (3 Triton kernels)": load(ref / "gpu" / "solution.py", "reference").prefix_sum,
    }
    twopass = load(ref / "gpu_twopass" / "solution.py", "twopass")
    for tile, warps in TWOPASS_CONFIGS:
        solutions[f"two-pass tile={tile} warps={warps}"] = functools.partial(
            twopass.prefix_sum, tile=tile, num_warps=warps)
    lookback = load(ref / "gpu_lookback" / "solution.py", "lookback")
    for tile, warps in LOOKBACK_CONFIGS:
        solutions[f"look-back tile={tile} warps={warps}"] = functools.partial(
            lookback.prefix_sum, tile=tile, num_warps=warps)

    copy_times = time_calls(lambda x: out.copy_(x), inputs, args.reps * 2)
    floor = statistics.median(copy_times)
    rows: list[dict[str, Any]] = [{"name": "device copy (floor)", "correct": None, "median_ms": floor,
                                   "min_ms": min(copy_times)}]
    for name, fn in solutions.items():
        row: dict[str, Any] = {"name": name}
        try:
            problem = check(fn, args.n)
            row["correct"] = problem is None
            row["problem"] = problem
            times = time_calls(fn, inputs, args.reps)
            row.update(median_ms=statistics.median(times), min_ms=min(times), wall_ms=wall_ms(fn, inputs[0]))
        except Exception as e:  # noqa: BLE001 - one failing configuration must not hide the others
            row.update(correct=False, problem=repr(e)[:300])
        rows.append(row)
        print(json.dumps(row), flush=True)

    info = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "n": args.n, "reps": args.reps,
            "copy_bandwidth_tb_s": 8 * args.n / (floor * 1e-3) / 1e12}
    for row in rows:
        if "median_ms" in row:
            row["x_floor"] = row["median_ms"] / floor
            row["ln_ms"] = math.log(row["median_ms"])
    if args.json:
        Path(args.json).write_text(json.dumps({"info": info, "rows": rows}, indent=1))
    print(f"\n{info['gpu']}, torch {info['torch']}, n = {args.n}, copy {info['copy_bandwidth_tb_s']:.2f} TB/s "
          f"(read + write), median of {args.reps}")
    print(f"{'solution':<44} {'ok':>5} {'median ms':>10} {'min ms':>8} {'x floor':>8} {'ln ms':>7}")
    for row in rows:
        if "median_ms" not in row:
            print(f"{row['name']:<44} {'FAIL':>5} {row.get('problem', '')}")
            continue
        ok = "-" if row["correct"] is None else ("yes" if row["correct"] else "NO")
        print(f"{row['name']:<44} {ok:>5} {row['median_ms']:>10.4f} {row['min_ms']:>8.4f} {row['x_floor']:>8.2f} "
              f"{row['ln_ms']:>7.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
