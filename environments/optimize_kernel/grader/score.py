"""The optimize_kernel grader: times the agent's prefix_sum from outside its process and checks it.

Run by rebench as the grader user, cwd = the protected directory:

    python grader/score.py            # variant, task, workspace and result path from REBENCH_* variables

Sequence, as the original task's score.py (a sanity call on n = 1024 and four warm-ups on fresh random
inputs of the variant's size), then five timed rounds instead of the original's one timed call. A
round is one call on `mini` and a batch of calls on the GPU (64, each on its own fresh input, one after
another): the protocol that times the agent's code from outside its process costs a fixed fraction of
a millisecond per round, and a batch divides it among its calls (README, "How the time is taken").
Warm-ups are rounds too. Every call is checked against the grader's own computation. Score = ln(ms)
of the median timed round's time per call; a median of five keeps one slow or lucky round from
deciding the score. Any failure is ``invalid`` (or ``timedOut``), never a number. The result goes to
$REBENCH_RESULT, never to stdout.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if len(HERE.parents) > 2:  # rebench_env from the checkout when run outside a sandbox (tests, benches)
    sys.path.insert(1, str(HERE.parents[2] / "python"))

from rebench_env.result import outcome_error, outcome_invalid, outcome_scored, outcome_timed_out, write_result  # noqa: E402

import calls  # noqa: E402
from agent_process import AgentProcess, AgentProcessFailed  # noqa: E402
from wire import BadMessage, ChannelClosed, ChannelTimeout  # noqa: E402


@dataclass(frozen=True)
class VariantConfig:
    n: int
    device: str
    calls_per_round: int = 1  # calls in one timed (or warm-up) round, each on its own fresh input
    call_timeout: float = 20.0  # seconds per round (up to its challenge answer), as upstream's per-call TIMEOUT
    load_timeout: float = 120.0  # importing solution.py (it may compile a native extension)


GPU_CALLS_PER_ROUND = 64  # the protocol's fixed cost (about 0.5-0.8 ms a round on the H200) over 64 calls (README)
VARIANTS = {
    "mini": VariantConfig(n=10_000_000, device="cpu"),
    "gpu": VariantConfig(n=100_000_000, device="cuda", calls_per_round=GPU_CALLS_PER_ROUND),
    "paper": VariantConfig(n=100_000_000, device="cuda", calls_per_round=GPU_CALLS_PER_ROUND),
}
SANITY_N = 1024
WARMUPS = 4
TIMED_ROUNDS = 5  # the original timed one call; the median of five keeps one slow or lucky round out (README)
FLOOR_SLACK = 0.9  # a call faster than 0.9 x the grader's own device copy cannot have read x and written y
STORE_ALLOWANCE_S = 0.1  # per output, for the copies and checks after each round's clock stops (wall limit)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    env = os.environ
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", default=env.get("REBENCH_VARIANT", "mini"), choices=sorted(VARIANTS))
    p.add_argument("--task", default=env.get("REBENCH_TASK", "main"), choices=["main", "hidden_score"])
    p.add_argument("--solution", help="default: $REBENCH_WORKSPACE/solution/solution.py")
    p.add_argument("--result", default=env.get("REBENCH_RESULT"), help="default: $REBENCH_RESULT")
    p.add_argument("--n", type=int, help="input length (default: the variant's); for tests")
    p.add_argument("--call-timeout", type=float, help="seconds per round (default 20)")
    p.add_argument("--load-timeout", type=float, help="seconds to import solution.py (default 120)")
    p.add_argument("--calls-per-round", type=int, help="calls per warm-up and timed round (default: the "
                   "variant's, 1 on mini and 64 on the GPU); for tests and benches")
    p.add_argument("--assume-floor-ms", type=float, help="tests only: a device-copy floor for the CPU variant, "
                   "which has none of its own")
    p.add_argument("--ipc", default=env.get("REBENCH_KERNEL_IPC", "fd"), choices=["fd", "legacy"],
                   help="how GPU buffers are shared with the agent's process")
    p.add_argument("--agent-python", default=env.get("REBENCH_AGENT_PYTHON", sys.executable))
    args = p.parse_args(argv)
    if args.solution is None:
        workspace = env.get("REBENCH_WORKSPACE")
        if not workspace:
            p.error("give --solution or set REBENCH_WORKSPACE")
        args.solution = str(Path(workspace) / "solution" / "solution.py")
    if not args.result:
        p.error("give --result or set REBENCH_RESULT")
    return args


def phase_names(count: int) -> list[str]:
    """The sanity call, the warm-ups and the timed rounds by name ("timed call 3 of 5" when a round is one call)."""
    unit = "" if count == 1 else " round"
    return (["sanity call"] + [f"warm-up{unit} {i + 1} of {WARMUPS}" for i in range(WARMUPS)]
            + [f"timed {'call' if count == 1 else 'round'} {i + 1} of {TIMED_ROUNDS}" for i in range(TIMED_ROUNDS)])


def grade(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Returns (outcome, message, details)."""
    base = VARIANTS[args.variant]
    n = args.n or base.n
    count = args.calls_per_round or base.calls_per_round
    call_timeout = args.call_timeout or base.call_timeout
    load_timeout = args.load_timeout or base.load_timeout
    details: dict[str, Any] = {"variant": args.variant, "n": n, "calls_per_round": count, "calls": []}
    solution = Path(args.solution).resolve()
    if not solution.is_file():
        return outcome_invalid(f"no solution file at {solution}"), {"n": n}, details
    if not 1 <= count <= 250:
        return outcome_error(f"calls per round must be 1 to 250, not {count}"), {}, details

    buffers = calls.make_buffers(base.device, max(n, SANITY_N), count, args.ipc, args.assume_floor_ms)
    if isinstance(buffers, str):
        return outcome_error(buffers), {}, details
    details["machine"] = buffers.machine()
    rounds = 1 + WARMUPS + TIMED_ROUNDS
    wall = load_timeout + rounds * (call_timeout + count * STORE_ALLOWANCE_S) + 30
    proc = AgentProcess(solution, base.device, args.agent_python, os.environ.get("REBENCH_AS_AGENT"), wall)
    phase = "loading solution.py"
    finished = False
    try:
        channel = proc.connect(load_timeout)
        details["agent_uid"] = proc.peer_uid
        ready = calls.receive(channel, load_timeout)
        if ready.get("kind") != "ready":
            return outcome_invalid("solution.py failed to load:\n" + str(ready.get("error", ready))), {"n": n}, details
        details["child"] = ready
        message, fds = buffers.setup_message()
        channel.send(message, fds)
        phase = "mapping the grader's buffers"
        mapped = calls.receive(channel, load_timeout)
        if mapped.get("kind") != "setup_ok":
            details["output_tail"] = proc.output_tail()
            return outcome_error("the solution's process could not map the grader's buffers (usually a machine or "
                                 "grader problem; the solution's module runs in that process too): "
                                 f"{str(mapped.get('error', mapped))[-1500:]}"), {}, details
        sizes = [(SANITY_N, 1)] + [(n, count)] * (WARMUPS + TIMED_ROUNDS)
        for phase, (m, k) in zip(phase_names(count), sizes):
            record = calls.run_round(channel, buffers, m, k, call_timeout)
            shown = record.pop("shown")
            details["calls"].append({"phase": phase, **record})
            if record["problem"]:
                return outcome_invalid(f"{phase} (n={m}): {record['problem']}"), {"n": m, **shown}, details
        finished = True
    except ChannelTimeout:
        timeout = load_timeout if phase in ("loading solution.py", "mapping the grader's buffers") else call_timeout
        details["output_tail"] = proc.output_tail()
        return outcome_timed_out(timeout), {"n": n, "timed_out_in": phase}, details
    except BadMessage as e:
        return outcome_invalid(f"{phase}: the solution's process sent {e} on the grader's channel"), {"n": n}, details
    except (ChannelClosed, AgentProcessFailed, ConnectionError) as e:
        how = proc.ended()
        details["output_tail"] = proc.output_tail()
        reason = f"{phase}: the solution's process {how}" if not isinstance(e, AgentProcessFailed) else str(e)
        return outcome_invalid(f"{reason}; its last output:\n{details['output_tail'][-800:]}"), {"n": n}, details
    finally:
        proc.close(graceful=finished)
        buffers.close()

    times = [c["per_call_ms"] for c in details["calls"][-TIMED_ROUNDS:]]
    floor = buffers.copy_floor_ms(n)
    details["copy_floor_ms"] = floor
    if floor is not None and min(times) < FLOOR_SLACK * floor:
        return outcome_invalid(
            f"a timed {'call' if count == 1 else 'round'} took {min(times):.4f} ms per call, less than reading "
            f"the input and writing the output takes ({floor:.4f} ms): the outputs were not produced within "
            "the timed calls"), {"n": n}, details
    time_ms = statistics.median(times)
    details["time_ms"] = time_ms
    message: dict[str, Any] = {"n": n, "correct": True}
    if args.task == "main":
        message["time_ms"] = time_ms
        message["timed_calls_ms"] = times
        if count > 1:
            message["calls_per_round"] = count
    return outcome_scored(math.log(time_ms)), message, details


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        outcome, message, details = grade(args)
    except Exception as e:  # noqa: BLE001 - a broken grader is an `error`, never a score
        import traceback

        outcome, message, details = outcome_error(f"grader failed: {e!r}"), {}, {"traceback": traceback.format_exc()}
    write_result(args.result, outcome, message, details)
    return 0


if __name__ == "__main__":
    sys.exit(main())
