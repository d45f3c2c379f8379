"""Runs the agent's ``prefix_sum`` for the grader, in the agent's process, as the agent's user.

Nothing here is trusted: the agent's module is imported into this process and can change anything in
it. The grader does not rely on this code for timing or correctness. It holds the clock itself (from
sending "go" to receiving the answer to a challenge it picks only after "done"), keeps its own copy of
every input, and checks the output in a buffer it owns against its own computation. This file only
moves data: it maps the grader's buffers, calls ``prefix_sum``, answers the challenge and copies the
result into the grader's output buffer.

Usage (started by the grader): python runner.py --socket PATH --solution PATH --device cpu|cuda
Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import importlib.util
import mmap
import os
import sys
import traceback
from typing import Any

import wire

TRACE_CHARS = 3000


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--solution", required=True)
    parser.add_argument("--device", choices=["cpu", "cuda"], required=True)
    args = parser.parse_args()

    channel = wire.Channel.connect(args.socket)
    # The agent's prints go to stderr; stdin is not the agent's to read.
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)

    import numpy as np
    import torch

    driver = None
    if args.device == "cuda":
        import cudaipc

        driver = cudaipc.Driver(torch.cuda.current_device())
        sync = torch.cuda.synchronize
    else:
        def sync() -> None:
            return None

    try:
        prefix_sum = load_solution(args.solution)
    except BaseException:  # noqa: BLE001 - any failure of the agent's module is reported, not raised
        channel.send({"kind": "load_error", "error": traceback.format_exc()[-TRACE_CHARS:]})
        return 1
    channel.send({"kind": "ready", "pid": os.getpid(), "uid": os.getuid(), "python": sys.version.split()[0],
                   "torch": torch.__version__, "numpy": np.__version__})

    x_full = out_full = None
    spin = 0.0  # the grader says how long to poll for its next message before sleeping
    while True:
        message, fds = channel.recv(spin=spin)
        kind = message.get("kind")
        if kind == "exit":
            return 0
        if kind == "setup":
            x_full, out_full = setup_buffers(message, fds, args.device, driver)
            spin = float(message.get("spin", 0.0))
            channel.send({"kind": "setup_ok"})
        elif kind == "go":
            n = int(message["n"])
            x = input_tensor(n, fds, x_full)
            try:
                y = prefix_sum(x)
            except BaseException:  # noqa: BLE001
                channel.send({"kind": "call_error", "error": traceback.format_exc()[-TRACE_CHARS:]})
                continue
            problem = check_output(y, x, n)
            if problem:
                channel.send({"kind": "bad_output", "reason": problem})
                continue
            sync()
            channel.send({"kind": "done"})
            challenge, _ = channel.recv(spin=spin)
            channel.send({"kind": "answer", "values": gather(y, challenge["indices"])})
            store(y, out_full, n)
            sync()
            channel.send({"kind": "stored"})
        else:
            channel.send({"kind": "protocol_error", "reason": f"unknown message {kind!r}"})


def load_solution(path: str) -> Any:
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    spec = importlib.util.spec_from_file_location("solution", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    fn = getattr(module, "prefix_sum", None)
    if not callable(fn):
        raise AttributeError(f"{path} defines no function prefix_sum(x)")
    return fn


def setup_buffers(message: dict[str, Any], fds: list[int], device: str, driver: Any) -> tuple[Any, Any]:
    """Map the grader's buffers: the output (both devices) and, on the GPU, the input."""
    import numpy as np

    if device == "cpu":
        size = int(message["nbytes"])
        out_map = mmap.mmap(fds[0], size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        os.close(fds[0])
        return None, np.frombuffer(out_map, dtype=np.int32)
    import cudaipc

    fd_iter = iter(fds)
    pointers = []
    for desc in (message["input"], message["output"]):
        fd = next(fd_iter) if desc["mode"] == "fd" else None
        pointers.append(cudaipc.import_buffer(driver, desc, fd))
    n = int(message["input"]["nbytes"]) // 4
    return cudaipc.int32_tensor(pointers[0], n), cudaipc.int32_tensor(pointers[1], n)


def input_tensor(n: int, fds: list[int], x_full: Any) -> Any:
    """This call's input: a fresh memory file (CPU) or the grader's device buffer (GPU)."""
    import numpy as np
    import torch

    if x_full is not None:
        return x_full[:n]
    # A private mapping: the agent may write to x without touching the grader's copy.
    x_map = mmap.mmap(fds[0], n * 4, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    os.close(fds[0])
    return torch.from_numpy(np.frombuffer(x_map, dtype=np.int32))


def check_output(y: Any, x: Any, n: int) -> str | None:
    import numpy as np
    import torch

    if isinstance(y, np.ndarray) and x.device.type == "cpu":
        if y.shape != (n,) or y.dtype != np.int32:
            return f"expected a 1-D int32 array of length {n}, got shape {y.shape} and dtype {y.dtype}"
        if np.may_share_memory(y, x.numpy()):
            return "the output shares memory with the input; return a new tensor"
        return None
    if not isinstance(y, torch.Tensor):
        return f"prefix_sum must return a torch.Tensor, got {type(y).__name__}"
    if tuple(y.shape) != (n,) or y.dtype != torch.int32 or y.device != x.device:
        return (f"expected shape ({n},), dtype torch.int32 on {x.device}; "
                f"got shape {tuple(y.shape)}, dtype {y.dtype} on {y.device}")
    lo, hi = y.data_ptr(), y.data_ptr() + n * 4
    if lo < x.data_ptr() + n * 4 and x.data_ptr() < hi:
        return "the output shares memory with the input; return a new tensor"
    return None


def gather(y: Any, indices: list[int]) -> list[int]:
    import torch

    if isinstance(y, torch.Tensor):
        return y[torch.tensor(indices, dtype=torch.int64, device=y.device)].tolist()
    return y[indices].tolist()


def store(y: Any, out_full: Any, n: int) -> None:
    import torch

    if isinstance(out_full, torch.Tensor):
        out_full[:n].copy_(y)
    else:
        out_full[:n] = y.numpy() if isinstance(y, torch.Tensor) else y


if __name__ == "__main__":
    sys.exit(main())
