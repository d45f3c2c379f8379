"""describe_failure(): a failed call of agent code described by what was measured, never by what it printed."""

from __future__ import annotations

import pytest

from rebench_env.agent_call import AgentCallResult, run_as_agent
from rebench_env.agent_failure import call_record, describe_failure

SECRET = "the hidden row: Continue the chapter Genesis 44"


def result(**kw: object) -> AgentCallResult:
    base: dict[str, object] = {"returncode": 1, "signal": None, "timed_out": False, "duration_s": 12.34, "stdout_tail": SECRET, "stderr_tail": SECRET}
    return AgentCallResult(**{**base, **kw})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({}, "finetune.sh exited with status 1 after 12.3 s; what it printed is not shown, since it ran on the hidden data"),
        ({"returncode": None, "signal": "SIGKILL"}, "finetune.sh was killed by SIGKILL (SIGKILL: often the memory limit) after 12.3 s"),
        ({"returncode": None, "signal": "SIGSEGV"}, "finetune.sh was killed by SIGSEGV after 12.3 s"),
        ({"returncode": None, "signal": "SIGKILL", "timed_out": True}, "finetune.sh ran past its limit of 300 s and was stopped"),
        ({"returncode": None, "error": "cannot enter /x: Permission denied"}, "finetune.sh could not be started: cannot enter /x: Permission denied"),
    ],
)
def test_the_message_says_how_the_call_ended_and_nothing_it_printed(kw: dict[str, object], expected: str) -> None:
    text = describe_failure("finetune.sh", result(**kw), timeout_s=300, debug="Run it in your workspace.")
    assert text.startswith(expected), text
    assert text.endswith("Run it in your workspace.")
    assert "Genesis" not in text


def test_a_real_call_that_prints_its_input_and_fails_is_described_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REBENCH_AS_AGENT", raising=False)
    monkeypatch.setenv("REBENCH_AS_AGENT_UNSANDBOXED", "1")
    called = run_as_agent(["sh", "-c", 'cat; cat >&2 <<EOF\nstatus 3\nEOF\nexit 3'], timeout_s=30, input=SECRET.encode())
    text = describe_failure("the module", called)
    assert text.startswith("the module exited with status 3 after "), text
    assert "Genesis" not in text and "status 3\n" not in text
    record = call_record(called)
    assert record["returncode"] == 3 and SECRET in record["stdout_tail"] and "status 3" in record["stderr_tail"]
