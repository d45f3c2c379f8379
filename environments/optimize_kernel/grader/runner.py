"""Runs the agent's ``prefix_sum`` for the grader, in the agent's process, as the agent's user.

Nothing here is trusted: the agent's module is imported into this process and can change anything in
it. The grader does not rely on this code for timing or correctness. It holds the clock itself (from
sending "go" to receiving the answer to a challenge it picks only after "done"), keeps or regenerates
its own copy of every input, and checks every output in a buffer it owns against its own computation.
This file only moves data: it maps the grader's buffers, calls ``prefix_sum`` on each input of a round
in turn (synchronizing the device after each call, as the original scorer did around its timed call),
answers the challenge and copies each output into the grader's output buffer when asked.

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
        sync = device_synchronize(torch)
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

    buffers = None
    spin = 0.0  # the grader says how long to poll for its next message before sleeping
    while True:
        message, fds = channel.recv(spin=spin)
        kind = message.get("kind")
        if kind == "exit":
            return 0
        if kind == "setup":
            try:
                buffers = setup_buffers(message, fds, args.device, driver)
            except BaseException:  # noqa: BLE001 - the grader reports it as its own failure, with this text
                channel.send({"kind": "setup_error", "error": traceback.format_exc()[-TRACE_CHARS:]})
                return 1
            spin = float(message.get("spin", 0.0))
            channel.send({"kind": "setup_ok"})
        elif kind == "go":
            if run_round(channel, message, fds, buffers, prefix_sum, sync, args.device, spin):
                return 0
        else:
            channel.send({"kind": "protocol_error", "reason": f"unknown message {kind!r}"})


def device_synchronize(torch: Any) -> Any:
    """torch's device-wide synchronize, taken before the agent's module is imported (it may patch torch.cuda)."""
    torch.cuda.synchronize()  # initializes CUDA in this process
    return getattr(torch._C, "_cuda_synchronize", None) or torch.cuda.synchronize


def run_round(channel: wire.Channel, message: dict[str, Any], fds: list[int], buffers: Any, prefix_sum: Any,
              sync: Any, device: str, spin: float) -> bool:
    """One round: call prefix_sum on each input in turn (synchronizing the device after each call), report
    "done", answer the challenge from the outputs, then copy each output into the grader's buffer when asked.
    Returns True when the grader said "exit"."""
    n = int(message["n"])
    count = int(message.get("count", 1))
    xs = input_tensors(n, count, fds, buffers)
    ys: list[Any] = []
    for i, x in enumerate(xs):
        try:
            ys.append(prefix_sum(x))
            sync()
        except BaseException:  # noqa: BLE001
            channel.send({"kind": "call_error", "call": i + 1, "error": traceback.format_exc()[-TRACE_CHARS:]})
            return False
    channel.send({"kind": "done"})
    challenge, _ = channel.recv(spin=spin)
    if challenge.get("kind") == "exit":
        return True
    try:
        values = gather(ys, challenge, device)
    except BaseException:  # noqa: BLE001 - a malformed output: say what is wrong with it
        problem = check_outputs(ys, xs, n, buffers) or ("reading the outputs failed:\n" +
                                                        traceback.format_exc()[-TRACE_CHARS:])
        channel.send({"kind": "bad_output", "reason": problem})
        return False
    channel.send({"kind": "answer", "values": values})
    problem = check_outputs(ys, xs, n, buffers)
    if problem:
        channel.send({"kind": "bad_output", "reason": problem})
        return False
    channel.send({"kind": "outputs_ok"})
    for _ in range(count):
        request, _ = channel.recv(spin=spin)
        if request.get("kind") == "exit":
            return True
        if request.get("kind") != "store":
            channel.send({"kind": "protocol_error", "reason": f"expected store, got {request.get('kind')!r}"})
            return False
        i = int(request["index"])
        store(ys[i], buffers, n)
        sync()
        ys[i] = None
        channel.send({"kind": "stored", "index": i})
    return False


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


class Buffers:
    """The grader's buffers as mapped here: the output (both devices) and, on the GPU, the input slots."""

    def __init__(self, out: Any, slots: list[Any] | None = None, slot_span: tuple[int, int] | None = None) -> None:
        self.out = out
        self.slots = slots
        self.slot_span = slot_span  # [start, end) of the input slots' device addresses


def setup_buffers(message: dict[str, Any], fds: list[int], device: str, driver: Any) -> Buffers:
    import numpy as np

    if device == "cpu":
        size = int(message["nbytes"])
        out_map = mmap.mmap(fds[0], size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        os.close(fds[0])
        return Buffers(np.frombuffer(out_map, dtype=np.int32))
    import cudaipc

    fd_iter = iter(fds)
    pointers = []
    for desc in (message["input"], message["output"]):
        fd = next(fd_iter) if desc["mode"] == "fd" else None
        pointers.append(cudaipc.import_buffer(driver, desc, fd))
    slots, stride = int(message["slots"]), int(message["stride"])
    slot_tensors = [cudaipc.int32_tensor(pointers[0] + k * stride * 4, stride) for k in range(slots)]
    out = cudaipc.int32_tensor(pointers[1], int(message["output"]["nbytes"]) // 4)
    return Buffers(out, slot_tensors, (pointers[0], pointers[0] + slots * stride * 4))


def input_tensors(n: int, count: int, fds: list[int], buffers: Buffers) -> list[Any]:
    """This round's inputs: the grader's device slots (GPU), or one fresh memory file per call (CPU)."""
    import numpy as np
    import torch

    if buffers.slots is not None:
        return [buffers.slots[k][:n] for k in range(count)]
    if len(fds) != count:
        raise RuntimeError(f"a round of {count} calls arrived with {len(fds)} input files")
    xs = []
    for fd in fds:
        # A private mapping: the agent may write to x without touching the grader's copy.
        x_map = mmap.mmap(fd, n * 4, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        os.close(fd)
        xs.append(torch.from_numpy(np.frombuffer(x_map, dtype=np.int32)))
    return xs


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


def address(y: Any) -> int:
    import numpy as np

    return int(y.__array_interface__["data"][0]) if isinstance(y, np.ndarray) else int(y.data_ptr())


def check_outputs(ys: list[Any], xs: list[Any], n: int, buffers: Buffers) -> str | None:
    """Every output well formed, none in an input, no two sharing memory (the round keeps them all)."""
    count = len(ys)
    for i, (y, x) in enumerate(zip(ys, xs)):
        problem = check_output(y, x, n)
        if problem:
            return problem if count == 1 else f"call {i + 1} of the round: {problem}"
    spans = sorted((address(y), i) for i, y in enumerate(ys))
    for (a, i), (b, j) in zip(spans, spans[1:]):
        if b < a + n * 4:
            first, second = sorted((i + 1, j + 1))
            return (f"calls {first} and {second} of the round returned outputs that share memory: every call must "
                    "return a new tensor (the grader keeps all outputs of a round until the round ends)")
    for a, i in spans:
        inputs = [(address(x), address(x) + n * 4) for x in xs]
        if buffers.slot_span is not None:
            inputs.append(buffers.slot_span)
        if any(a < hi and lo < a + n * 4 for lo, hi in inputs):
            where = "" if count == 1 else f" of call {i + 1}"
            return f"the output{where} shares memory with an input; return a new tensor"
    return None


def gather(ys: list[Any], challenge: dict[str, Any], device: str) -> str:
    """The values of every output at the challenge's positions, as the hex text calls.decode_int32 reads."""
    import numpy as np
    import torch

    per = int(challenge["per_output"])
    indices = np.frombuffer(bytes.fromhex(challenge["indices"]), dtype="<i4").reshape(len(ys), per)
    if device == "cuda":
        positions = torch.from_numpy(indices.astype(np.int64)).to("cuda")
        values = torch.empty((len(ys), per), dtype=torch.int32, device="cuda")
        for k, y in enumerate(ys):
            torch.index_select(y, 0, positions[k], out=values[k])
        picked = values.cpu().numpy()
    else:
        picked = np.stack([np.asarray(y.numpy() if isinstance(y, torch.Tensor) else y)[indices[k].astype(np.int64)]
                           for k, y in enumerate(ys)])
    return np.ascontiguousarray(picked, dtype="<i4").tobytes().hex()


def store(y: Any, buffers: Buffers, n: int) -> None:
    import torch

    if isinstance(buffers.out, torch.Tensor):
        buffers.out[:n].copy_(y)
    else:
        buffers.out[:n] = y.numpy() if isinstance(y, torch.Tensor) else y


if __name__ == "__main__":
    sys.exit(main())
