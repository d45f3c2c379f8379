"""The grader's side of the shared buffers: it writes every input and reads every output itself.

CPU (`mini`): each call's input is a fresh memory file (memfd) that reaches the agent's process only
with the "go" message, so nothing about it exists over there before the clock starts; the output is
one shared memory file the grader poisons before each call. GPU (`gpu`, `paper`): the input and output
are device buffers in the grader's CUDA context, mapped by the agent's process once (``cudaipc``); the
grader refills the input and poisons the output before each call, with its own GPU idle during the
call. In both cases the grader keeps a private copy of the input for its own computation.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import mmap
import os
from typing import Any

import numpy as np

import prefix


class CpuBuffers:
    device = "cpu"

    def __init__(self, n_max: int) -> None:
        self.nbytes = n_max * 4
        self.out_fd = os.memfd_create("rebench-kernel-out", os.MFD_CLOEXEC)
        os.ftruncate(self.out_fd, self.nbytes)
        self.out_map = mmap.mmap(self.out_fd, self.nbytes, flags=mmap.MAP_SHARED)
        self.out = np.frombuffer(self.out_map, dtype=np.int32)
        self.in_fd: int | None = None

    def setup_message(self) -> tuple[dict[str, Any], list[int]]:
        return {"kind": "setup", "nbytes": self.nbytes, "spin": 0.0}, [self.out_fd]

    def prepare(self, n: int, seed: int) -> tuple[np.ndarray, list[int]]:
        """Write a fresh input into a new memory file; poison the output. Returns (private x, fds for go)."""
        x = prefix.input_numpy(n, seed)
        fd = os.memfd_create("rebench-kernel-in", os.MFD_CLOEXEC)
        os.ftruncate(fd, n * 4)
        with mmap.mmap(fd, n * 4, flags=mmap.MAP_SHARED) as m:
            np.frombuffer(m, dtype=np.int32)[:] = x
        self.in_fd = fd
        self.out[:n] = prefix.POISON
        return x, [fd]

    def release_input(self) -> None:
        if self.in_fd is not None:
            os.close(self.in_fd)
            self.in_fd = None

    def output(self, n: int) -> np.ndarray:
        return self.out[:n].copy()

    def expected(self, x: np.ndarray) -> np.ndarray:
        return prefix.expected_numpy(x)

    def challenge_values(self, want: np.ndarray, indices: list[int]) -> list[int]:
        return want[indices].tolist()

    def copy_floor_ms(self, n: int) -> float | None:
        return None

    def machine(self) -> dict[str, Any]:
        model = ""
        try:
            with open("/proc/cpuinfo") as f:
                model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
        except OSError:
            pass
        return {"device": "cpu", "cpu": model, "cpus": os.cpu_count()}

    def close(self) -> None:
        self.release_input()
        del self.out
        self.out_map.close()
        os.close(self.out_fd)


class GpuBuffers:
    device = "cuda"

    def __init__(self, n_max: int, ipc_mode: str) -> None:
        import torch

        import cudaipc

        self.torch = torch
        torch.cuda.init()
        self.driver = cudaipc.Driver(torch.cuda.current_device())
        nbytes = n_max * 4
        self.x_shared = cudaipc.export_buffer(self.driver, nbytes, ipc_mode)
        self.out_shared = cudaipc.export_buffer(self.driver, nbytes, ipc_mode)
        self.x = cudaipc.int32_tensor(self.x_shared.ptr, n_max)
        self.out = cudaipc.int32_tensor(self.out_shared.ptr, n_max)
        self.x_private = torch.empty(n_max, dtype=torch.int32, device="cuda")
        self.generator = torch.Generator(device="cuda")
        self.copy_ms: dict[int, list[float]] = {}

    def setup_message(self) -> tuple[dict[str, Any], list[int]]:
        fds = [b.fd for b in (self.x_shared, self.out_shared) if b.fd is not None]
        # spin: the agent's process polls for "go" and the challenge instead of sleeping (see calls.py)
        return {"kind": "setup", "input": self.x_shared.descriptor, "output": self.out_shared.descriptor,
                "spin": 2.0}, fds

    def prepare(self, n: int, seed: int) -> tuple[Any, list[int]]:
        torch = self.torch
        self.generator.manual_seed(seed)
        torch.randint(prefix.LOW, prefix.HIGH, (n,), generator=self.generator, dtype=torch.int32,
                      device="cuda", out=self.x[:n])
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        self.x_private[:n].copy_(self.x[:n])  # n*4 bytes read + n*4 written: the problem's memory floor
        end.record()
        self.out[:n].fill_(prefix.POISON)
        torch.cuda.synchronize()
        self.copy_ms.setdefault(n, []).append(start.elapsed_time(end))
        return self.x_private[:n], []

    def release_input(self) -> None:
        return None

    def output(self, n: int) -> Any:
        out = self.out[:n].clone()
        self.torch.cuda.synchronize()
        return out

    def expected(self, x: Any) -> Any:
        return prefix.expected_torch(x)

    def challenge_values(self, want: Any, indices: list[int]) -> list[int]:
        return want[self.torch.tensor(indices, device=want.device)].tolist()

    def copy_floor_ms(self, n: int) -> float | None:
        """The fastest device copy of an n-element input seen (n int32 read + written), or None."""
        times = self.copy_ms.get(n)
        return min(times) if times else None

    def machine(self) -> dict[str, Any]:
        torch = self.torch
        props = torch.cuda.get_device_properties(0)
        return {"device": "cuda", "gpu": torch.cuda.get_device_name(0), "sms": props.multi_processor_count,
                "torch": torch.__version__, "cuda": torch.version.cuda}

    def close(self) -> None:
        for b in (self.x_shared, self.out_shared):
            if b.fd is not None:
                os.close(b.fd)
