"""One checked, timed call of the agent's prefix_sum, seen from the grader.

The clock: the grader reads its own monotonic clock just before it sends "go" (with the fresh input)
and just after it receives the answer to a challenge: a set of random output positions it picks before
the call but reveals only after the agent's process reports "done". The answer must equal the grader's
own result at those positions, so it cannot be given before the output exists; patched timers,
skipped synchronizations or a "done" sent early from another thread cannot shorten the measured time
without failing the check. After the clock stops, the agent's process copies its output into the
grader's buffer, and every element is compared with the grader's own computation.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import os
import secrets
import time
from typing import Any

import prefix
import wire
from buffers import CpuBuffers, GpuBuffers

CHALLENGE_SIZE = 64
PROBLEM_CHARS = 1500


def make_buffers(device: str, n: int, ipc_mode: str) -> CpuBuffers | GpuBuffers | str:
    """The buffers for a device, or a sentence saying why the machine cannot run this variant."""
    if device == "cpu":
        return CpuBuffers(n)
    try:
        import torch
    except ImportError:
        return "this variant needs torch with CUDA, and torch is not installed"
    if not torch.cuda.is_available():
        return "this variant needs a CUDA GPU and torch sees none"
    return GpuBuffers(n, ipc_mode)


def challenge_indices(n: int) -> list[int]:
    """Random positions (always including the last one, which depends on every input element)."""
    picks = {secrets.randbelow(n) for _ in range(CHALLENGE_SIZE - 1)}
    picks.add(n - 1)
    return sorted(picks)


def run_call(channel: wire.Channel, buffers: CpuBuffers | GpuBuffers, n: int, timeout: float) -> dict[str, Any]:
    """Run one call; the record's ``problem`` is None when the output was right.

    On the GPU the grader polls for the replies (a core of a GPU machine is cheap, and waking from a
    blocking read adds a noticeable fraction of a millisecond there); on the CPU it sleeps, leaving
    both cores of the mini machine to the agent's code.
    """
    spin = timeout if buffers.device == "cuda" else 0.0
    seed = prefix.fresh_seed()
    x, go_fds = buffers.prepare(n, seed)
    indices = challenge_indices(n)
    go = wire.encode({"kind": "go", "n": n})
    challenge = wire.encode({"kind": "challenge", "indices": indices})
    record: dict[str, Any] = {"n": n, "seed": seed, "problem": None, "shown": {}}
    deadline = time.monotonic() + timeout

    t0 = time.perf_counter_ns()
    channel.send_bytes(go, go_fds)
    reply = receive(channel, timeout, spin)
    t_done = time.perf_counter_ns()
    if reply.get("kind") == "done":
        channel.send_bytes(challenge)
        answer = receive(channel, max(0.0, deadline - time.monotonic()), spin)
        t_answer = time.perf_counter_ns()
    buffers.release_input()
    if reply.get("kind") != "done":
        record["problem"] = describe_failure(reply)
        return record
    record["go_to_done_ms"] = (t_done - t0) / 1e6
    record["total_ms"] = (t_answer - t0) / 1e6
    if answer.get("kind") != "answer":
        record["problem"] = describe_failure(answer)
        return record
    stored = receive(channel, max(0.0, deadline - time.monotonic()))
    if stored.get("kind") != "stored":
        record["problem"] = describe_failure(stored)
        return record

    want = buffers.expected(x)
    got = buffers.output(n)
    index = prefix.first_difference(got, want)
    if index is not None:
        got_v, want_v = int(got[index]), int(want[index])
        record["problem"] = f"wrong output: first different index {index} (got {got_v}, expected {want_v})"
        record["shown"] = {"first_different_index": index, "got": got_v, "expected": want_v}
        return record
    if answer.get("values") != buffers.challenge_values(want, indices):
        record["problem"] = ("the output was not complete when prefix_sum returned (values read right after the "
                             "call differ from the final output)")
    return record


def receive(channel: wire.Channel, timeout: float, spin: float = 0.0) -> dict[str, Any]:
    """The next message from the agent's process; file descriptors it may have attached are closed."""
    message, fds = channel.recv(timeout, spin)
    for fd in fds:
        os.close(fd)
    return message


def describe_failure(reply: dict[str, Any]) -> str:
    kind = reply.get("kind")
    if kind == "call_error":
        return "prefix_sum raised an exception:\n" + str(reply.get("error", ""))[-PROBLEM_CHARS:]
    if kind == "bad_output":
        return str(reply.get("reason", "bad output"))[:PROBLEM_CHARS]
    return f"unexpected message from the solution's process: {str(reply)[:200]}"
