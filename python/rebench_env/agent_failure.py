"""What a grader may tell the agent about a call of agent code that saw hidden inputs: only what it measured.

Agent code that runs on hidden data (a pipeline on hidden rows, a scaffold on hidden problems) runs in the
one-shot jail, and nothing it prints may reach the agent: its stdout and stderr, the text of an error it
caused, a name or a number it chose can each carry the hidden data out, one scoring call at a time. So the
message of a failed call is composed here from what the sandbox's broker measured (how the call ended: exit
status, signal, the time limit; how long it ran) and from the grader's own words (what the call was, how the
agent can see the same failure on its own data); the streams go to the entry's ``details`` (stored only, for
the person reviewing the run)::

    from rebench_env.agent_failure import call_record, describe_failure

    result = run_as_agent(["bash", "finetune.sh"], timeout_s=300, cwd=..., jail=Jail(...))
    if not result.ok:
        reason = describe_failure("finetune.sh", result, timeout_s=300,
                                  debug="run `bash solution/finetune.sh` in your workspace to see its output")
        return outcome_invalid(reason), {}, {"finetune": call_record(result)}

What the message still carries from the jailed code, counted by the environments' READMEs: how it ended (an
exit status of 0-255 or a signal, about 8 bits) and its duration (shown here to a tenth of a second).
"""

from __future__ import annotations

from typing import Any

from rebench_env.agent_call import AgentCallResult

SHOWN_ELSEWHERE = "what it printed is not shown, since it ran on the hidden data"
"""Said in every failure message, so the agent knows why it gets no output."""


def describe_failure(what: str, result: AgentCallResult, *, timeout_s: float | None = None, debug: str = "") -> str:
    """One sentence about how the call ended, from measured facts only, then ``debug`` (how to see it yourself).

    ``what`` names the call in the grader's words (``"finetune.sh"``, ``"the solution module"``); nothing of the
    call's output, and nothing it wrote, goes into the sentence.
    """
    seconds = f"{result.duration_s:.1f} s"
    if result.error is not None:  # the broker refused or failed before anything ran: its own words, no agent code's
        ended = f"{what} could not be started: {result.error}"
    elif result.timed_out:
        limit = f"its limit of {timeout_s:g} s" if timeout_s is not None else "its time limit"
        ended = f"{what} ran past {limit} and was stopped; {SHOWN_ELSEWHERE}"
    elif result.signal is not None:
        hint = " (SIGKILL: often the memory limit)" if result.signal == "SIGKILL" else ""
        ended = f"{what} was killed by {result.signal}{hint} after {seconds}; {SHOWN_ELSEWHERE}"
    elif result.returncode not in (None, 0):
        ended = f"{what} exited with status {result.returncode} after {seconds}; {SHOWN_ELSEWHERE}"
    else:
        ended = f"{what} ended after {seconds}"
    return f"{ended}. {debug}".rstrip() if debug else ended


def call_record(result: AgentCallResult, tail_chars: int = 2000) -> dict[str, Any]:
    """The call as measured, with the tails of its streams: for ``details`` (stored only, never shown to the agent)."""
    return {
        "returncode": result.returncode,
        "signal": result.signal,
        "timed_out": result.timed_out,
        "duration_s": round(result.duration_s, 3),
        "cpu_s": result.cpu_s,
        "error": result.error,
        "stdout_tail": result.stdout_tail[-tail_chars:],
        "stderr_tail": result.stderr_tail[-tail_chars:],
    }
