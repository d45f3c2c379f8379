"""The grader's side of the shared buffers: it writes every input and reads every output itself.

A round is ``count`` calls of the agent's prefix_sum, one after another, each on its own fresh input
(``calls.py``). CPU (`mini`): each call's input is a fresh memory file (memfd) that reaches the agent's
process only with the round's "go" message, so nothing about it exists over there before the clock
starts. GPU (`gpu`, `paper`): the inputs are ``slots`` device buffers in the grader's CUDA context,
exported once (``cudaipc``) and mapped once by the agent's process; the grader refills the round's
slots and synchronizes its own GPU before "go", and is idle during the round. On both devices the
output is one shared buffer the grader poisons before each output is copied into it, after the clock
has stopped. To check an output the grader uses its own input: a private copy on the CPU, the same
input regenerated from its seed on the GPU (a fresh CUDA generator repeats itself; checked at start).

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import mmap
import os
from typing import Any

import numpy as np

import prefix

SLOT_ALIGN = 128  # elements: every GPU input slot starts on a 512-byte boundary, as torch's own allocations
GPU_HEADROOM = 6 << 30  # bytes of device memory left for the grader's check (expected_torch's temporaries)


class GraderSetupError(RuntimeError):
    """The machine cannot run this variant as configured; the message says why (an `error` outcome)."""


class CpuBuffers:
    device = "cpu"

    def __init__(self, n_max: int, slots: int, assumed_floor_ms: float | None = None) -> None:
        self.nbytes = n_max * 4
        self.slots = slots
        self.out_fd = os.memfd_create("rebench-kernel-out", os.MFD_CLOEXEC)
        os.ftruncate(self.out_fd, self.nbytes)
        self.out_map = mmap.mmap(self.out_fd, self.nbytes, flags=mmap.MAP_SHARED)
        self.out = np.frombuffer(self.out_map, dtype=np.int32)
        self.in_fds: list[int] = []
        self.inputs: list[np.ndarray] = []
        self.assumed_floor_ms = assumed_floor_ms  # tests only: the CPU has no device-copy floor of its own

    def setup_message(self) -> tuple[dict[str, Any], list[int]]:
        return {"kind": "setup", "nbytes": self.nbytes, "spin": 0.0}, [self.out_fd]

    def prepare(self, n: int, seeds: list[int]) -> list[int]:
        """Write each call's fresh input into a new memory file; keep private copies. Returns the fds for go."""
        if len(seeds) > self.slots:
            raise ValueError(f"a round of {len(seeds)} calls, more than the {self.slots} prepared for")
        self.release_inputs()
        self.inputs = []
        for seed in seeds:
            x = prefix.input_numpy(n, seed)
            fd = os.memfd_create("rebench-kernel-in", os.MFD_CLOEXEC)
            os.ftruncate(fd, n * 4)
            with mmap.mmap(fd, n * 4, flags=mmap.MAP_SHARED) as m:
                np.frombuffer(m, dtype=np.int32)[:] = x
            self.inputs.append(x)
            self.in_fds.append(fd)
        return list(self.in_fds)

    def release_inputs(self) -> None:
        for fd in self.in_fds:
            os.close(fd)
        self.in_fds = []

    def poison_output(self, n: int) -> None:
        self.out[:n] = prefix.POISON

    def output(self, n: int) -> np.ndarray:
        return self.out[:n].copy()

    def expected(self, k: int, n: int) -> np.ndarray:
        """The grader's own result for call ``k`` of the round just run."""
        return prefix.expected_numpy(self.inputs[k])

    def challenge_values(self, want: np.ndarray, indices: np.ndarray) -> np.ndarray:
        return want[indices.astype(np.int64)]

    def copy_floor_ms(self, n: int) -> float | None:
        return self.assumed_floor_ms

    def machine(self) -> dict[str, Any]:
        model = ""
        try:
            with open("/proc/cpuinfo") as f:
                model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
        except OSError:
            pass
        return {"device": "cpu", "cpu": model, "cpus": os.cpu_count()}

    def close(self) -> None:
        self.release_inputs()
        self.inputs = []
        del self.out
        self.out_map.close()
        os.close(self.out_fd)


class GpuBuffers:
    device = "cuda"

    def __init__(self, n_max: int, slots: int, ipc_mode: str) -> None:
        import torch

        import cudaipc

        self.torch = torch
        torch.cuda.init()
        self.n_max = n_max
        self.slots = slots
        self.stride = -(-n_max // SLOT_ALIGN) * SLOT_ALIGN
        slot_bytes = slots * self.stride * 4
        # The grader holds the slots, the output and one scratch buffer; the agent's process holds a
        # round's outputs (slots x n x 4 bytes) until they are copied out. Refuse early, in words.
        free, total = torch.cuda.mem_get_info()
        need = slot_bytes + 2 * n_max * 4 + slots * n_max * 4 + GPU_HEADROOM
        if need > free:
            raise GraderSetupError(
                f"a round of {slots} calls on n = {n_max} needs about {need / 2**30:.1f} GiB of GPU memory "
                f"({slots} input slots for the grader, {slots} outputs for the solution, headroom for the "
                f"check), and {free / 2**30:.1f} of {total / 2**30:.1f} GiB are free")
        self.driver = cudaipc.Driver(torch.cuda.current_device())
        self.x_shared = cudaipc.export_buffer(self.driver, slot_bytes, ipc_mode)
        self.out_shared = cudaipc.export_buffer(self.driver, n_max * 4, ipc_mode)
        self.slot_tensors = [cudaipc.int32_tensor(self.x_shared.ptr + k * self.stride * 4, self.stride)
                             for k in range(slots)]
        self.out = cudaipc.int32_tensor(self.out_shared.ptr, n_max)
        self.scratch = torch.empty(n_max, dtype=torch.int32, device="cuda")
        self.generator = torch.Generator(device="cuda")
        self.seeds: list[int] = []
        self.copy_ms: dict[int, list[float]] = {}
        self.check_regeneration()

    def _generate(self, out: Any, n: int, seed: int) -> None:
        self.generator.manual_seed(seed)
        self.torch.randint(prefix.LOW, prefix.HIGH, (n,), generator=self.generator, dtype=self.torch.int32,
                           device="cuda", out=out)

    def check_regeneration(self) -> None:
        """The check regenerates each input from its seed: make sure that gives the same values here."""
        torch = self.torch
        for n in sorted({min(4097, self.n_max), self.n_max}):
            seed = prefix.fresh_seed()
            self._generate(self.slot_tensors[-1][:n], n, seed)
            self._generate(self.scratch[:n], n, seed)
            same = bool(torch.equal(self.slot_tensors[-1][:n], self.scratch[:n]))
            if not same:
                raise GraderSetupError(
                    f"torch's CUDA generator did not repeat an input of length {n} from its seed, so the grader "
                    "cannot recompute the inputs it checks the outputs against (grader/buffers.py)")
        torch.cuda.synchronize()

    def setup_message(self) -> tuple[dict[str, Any], list[int]]:
        fds = [b.fd for b in (self.x_shared, self.out_shared) if b.fd is not None]
        # spin: the agent's process polls for "go" and the challenge instead of sleeping (see calls.py)
        return {"kind": "setup", "input": self.x_shared.descriptor, "output": self.out_shared.descriptor,
                "slots": self.slots, "stride": self.stride, "spin": 2.0}, fds

    def prepare(self, n: int, seeds: list[int]) -> list[int]:
        """Fill one slot per call with its fresh input and time the grader's own copy of each."""
        torch = self.torch
        if len(seeds) > self.slots:
            raise ValueError(f"a round of {len(seeds)} calls, more than the {self.slots} slots")
        self.seeds = list(seeds)
        events = []
        for k, seed in enumerate(seeds):
            x = self.slot_tensors[k][:n]
            self._generate(x, n, seed)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            self.scratch[:n].copy_(x)  # n*4 bytes read + n*4 written: the problem's memory floor
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        self.copy_ms.setdefault(n, []).extend(start.elapsed_time(end) for start, end in events)
        return []

    def release_inputs(self) -> None:
        return None

    def poison_output(self, n: int) -> None:
        self.out[:n].fill_(prefix.POISON)
        self.torch.cuda.synchronize()  # done before the agent's process copies into it (another context)

    def output(self, n: int) -> Any:
        out = self.out[:n].clone()
        self.torch.cuda.synchronize()
        return out

    def expected(self, k: int, n: int) -> Any:
        """The grader's own result for call ``k`` of the round just run, from the input regenerated."""
        self._generate(self.scratch[:n], n, self.seeds[k])
        return prefix.expected_torch(self.scratch[:n])

    def challenge_values(self, want: Any, indices: np.ndarray) -> np.ndarray:
        torch = self.torch
        picked = want.index_select(0, torch.from_numpy(indices.astype(np.int64)).to(want.device))
        return picked.cpu().numpy()

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
