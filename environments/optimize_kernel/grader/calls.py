"""One checked, timed round of the agent's prefix_sum, seen from the grader.

A round is ``count`` calls, one after another, each on its own fresh input (``count`` = 1 on `mini`;
on the GPU a batch amortizes the protocol's fixed cost, README "How the time is taken"). The clock:
the grader reads its own monotonic clock just before it sends "go" and just after it receives the
answer to a challenge: random positions of every output of the round, picked before the round but
revealed only after the agent's process reports "done". The answers must equal the grader's own
results at those positions, so they cannot be given before the outputs exist; patched timers,
skipped synchronizations or a "done" sent early from another thread cannot shorten the measured time
without failing the check. The round's time divided by ``count`` is the time of one call. After the
clock stops, the agent's process copies each output into the grader's buffer in turn, and every
element of every output is compared with the grader's own computation.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import os
import secrets
import time
from typing import Any

import numpy as np

import prefix
import wire
from buffers import CpuBuffers, GpuBuffers, GraderSetupError

CHALLENGE_SIZE = 64  # positions per output, always including the last one
PROBLEM_CHARS = 1500


def make_buffers(device: str, n: int, slots: int, ipc_mode: str,
                 assumed_floor_ms: float | None = None) -> CpuBuffers | GpuBuffers | str:
    """The buffers for a device, or a sentence saying why the machine cannot run this variant."""
    if device == "cpu":
        return CpuBuffers(n, slots, assumed_floor_ms)
    try:
        import torch
    except ImportError:
        return "this variant needs torch with CUDA, and torch is not installed"
    if not torch.cuda.is_available():
        return "this variant needs a CUDA GPU and torch sees none"
    try:
        return GpuBuffers(n, slots, ipc_mode)
    except GraderSetupError as e:
        return str(e)


def challenge_indices(n: int) -> list[int]:
    """CHALLENGE_SIZE random positions of one output (sorted, repeats allowed), always with the last one."""
    return sorted([secrets.randbelow(n) for _ in range(CHALLENGE_SIZE - 1)] + [n - 1])


def encode_int32(values: np.ndarray) -> str:
    """A little-endian int32 array as hex text: a round's challenge or answers in one short JSON string."""
    return np.ascontiguousarray(values, dtype="<i4").tobytes().hex()


def decode_int32(text: Any, shape: tuple[int, int]) -> np.ndarray | None:
    """The inverse of encode_int32, or None when the text is not exactly that many int32 values."""
    if not isinstance(text, str) or len(text) != 8 * shape[0] * shape[1]:
        return None
    try:
        return np.frombuffer(bytes.fromhex(text), dtype="<i4").reshape(shape)
    except ValueError:
        return None


def run_round(channel: wire.Channel, buffers: CpuBuffers | GpuBuffers, n: int, count: int,
              timeout: float) -> dict[str, Any]:
    """Run one round of ``count`` calls on length-n inputs; the record's ``problem`` is None when all were right.

    On the GPU the grader polls for the replies (a core of a GPU machine is cheap, and waking from a
    blocking read adds a noticeable fraction of a millisecond there); on the CPU it sleeps, leaving
    both cores of the mini machine to the agent's code. ``timeout`` bounds the round (all its calls)
    up to the answer, and then each copy of an output.
    """
    spin = timeout if buffers.device == "cuda" else 0.0
    seeds = [prefix.fresh_seed() for _ in range(count)]
    go_fds = buffers.prepare(n, seeds)
    indices = np.array([challenge_indices(n) for _ in range(count)], dtype=np.int32)
    go = wire.encode({"kind": "go", "n": n, "count": count})
    challenge = wire.encode({"kind": "challenge", "per_output": CHALLENGE_SIZE, "indices": encode_int32(indices)})
    record: dict[str, Any] = {"n": n, "count": count, "seeds": seeds, "problem": None, "shown": {}}
    where = "" if count == 1 else " of the round"
    deadline = time.monotonic() + timeout

    t0 = time.perf_counter_ns()
    channel.send_bytes(go, go_fds)
    reply = receive(channel, timeout, spin)
    t_done = time.perf_counter_ns()
    if reply.get("kind") == "done":
        channel.send_bytes(challenge)
        answer = receive(channel, max(0.0, deadline - time.monotonic()), spin)
        t_answer = time.perf_counter_ns()
    buffers.release_inputs()
    if reply.get("kind") != "done":
        record["problem"] = describe_failure(reply, count)
        return record
    record["go_to_done_ms"] = (t_done - t0) / 1e6
    record["total_ms"] = (t_answer - t0) / 1e6
    record["per_call_ms"] = record["total_ms"] / count
    if answer.get("kind") != "answer":
        record["problem"] = describe_failure(answer, count)
        return record
    values = decode_int32(answer.get("values"), indices.shape)
    if values is None:
        record["problem"] = f"unexpected message from the solution's process: {str(answer)[:200]}"
        return record
    verdict = receive(channel, timeout)
    if verdict.get("kind") != "outputs_ok":
        record["problem"] = describe_failure(verdict, count)
        return record

    t_check = time.perf_counter_ns()
    for k in range(count):
        buffers.poison_output(n)
        channel.send({"kind": "store", "index": k})
        stored = receive(channel, timeout)
        if stored.get("kind") != "stored" or stored.get("index") != k:
            record["problem"] = describe_failure(stored, count)
            return record
        want = buffers.expected(k, n)
        got = buffers.output(n)
        index = prefix.first_difference(got, want)
        call = f" of call {k + 1}{where}" if count > 1 else ""
        if index is not None:
            got_v, want_v = int(got[index]), int(want[index])
            record["problem"] = f"wrong output{call}: first different index {index} (got {got_v}, expected {want_v})"
            record["shown"] = {"first_different_index": index, "got": got_v, "expected": want_v}
            if count > 1:
                record["shown"]["call_in_round"] = k + 1
            return record
        if not np.array_equal(values[k], buffers.challenge_values(want, indices[k])):
            record["problem"] = (f"the output{call} was not complete when the round's calls had returned (values "
                                 "read right after the calls differ from the final output)")
            return record
    record["check_ms"] = (time.perf_counter_ns() - t_check) / 1e6
    return record


def receive(channel: wire.Channel, timeout: float, spin: float = 0.0) -> dict[str, Any]:
    """The next message from the agent's process; file descriptors it may have attached are closed."""
    message, fds = channel.recv(timeout, spin)
    for fd in fds:
        os.close(fd)
    return message


def describe_failure(reply: dict[str, Any], count: int = 1) -> str:
    kind = reply.get("kind")
    call = reply.get("call")
    where = f" (call {call} of the round)" if count > 1 and isinstance(call, int) else ""
    if kind == "call_error":
        return f"prefix_sum raised an exception{where}:\n" + str(reply.get("error", ""))[-PROBLEM_CHARS:]
    if kind == "bad_output":
        return str(reply.get("reason", "bad output"))[:PROBLEM_CHARS]
    return f"unexpected message from the solution's process: {str(reply)[:200]}"
