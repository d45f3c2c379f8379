"""Fixtures of the rust_codecontests tests (helpers in rcc_testkit.py).

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def unsandboxed_agent_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """No sandbox here: the grader's jailed calls run in the same bubblewrap jail as the current user."""
    monkeypatch.delenv("REBENCH_AS_AGENT", raising=False)
    monkeypatch.setenv("REBENCH_AS_AGENT_UNSANDBOXED", "1")
