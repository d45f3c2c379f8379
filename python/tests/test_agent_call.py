"""run_as_agent() against a real as-agent broker (the sandbox executor, started here without a sandbox)."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import rebench_env
from rebench_env.agent_call import AgentCallUnavailable, Jail, jail_output_dir, run_as_agent

LIB = Path(rebench_env.__file__).parent


def _agent_ids() -> tuple[int | None, int | None]:
    """The agent user's ids when this test may switch to it (root, user created), else None."""
    if os.geteuid() != 0:
        return None, None
    try:
        entry = pwd.getpwnam("rebench-agent")
    except KeyError:
        return None, None
    return entry.pw_uid, entry.pw_gid


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """An executor serving only the broker socket; REBENCH_AS_AGENT pointed at it."""
    root = Path(tempfile.mkdtemp(prefix="rebench-broker-", dir="/tmp"))
    os.chmod(root, 0o755)
    workspace = root / "workspace"
    workspace.mkdir(mode=0o777)
    os.chmod(workspace, 0o777)
    uid, gid = _agent_ids()
    config = {
        "role": "agent",
        "privileged": uid is not None,
        "control": None,
        "shell": str(LIB / "sandbox_shell.sh"),
        "stateDir": str(root / "state"),
        "workspace": str(workspace),
        "users": {"agent": {"uid": uid, "gid": gid, "home": str(workspace), "umask": 0o022}},
        "env": {"agent": {"PATH": "/usr/bin:/bin", "HOME": str(workspace), "AGENT_BASE": "base"}},
        "limits": {"cpuSeconds": 60},
        "broker": {"path": str(root / "broker" / "as-agent.sock"), "dirGid": None, "allowUids": None, "timeoutS": 600},
        "keepCapabilities": [],
    }
    (root / "executor.json").write_text(json.dumps(config))
    log = open(root / "executor.log", "w")
    proc = subprocess.Popen([sys.executable, "-E", "-s", str(LIB / "sandbox_executor.py"), str(root / "executor.json")],
                            stdout=log, stderr=log)
    socket_path = root / "broker" / "as-agent.sock"
    for _ in range(200):
        if socket_path.exists():
            break
        time.sleep(0.02)
    old = {k: os.environ.get(k) for k in ("REBENCH_AS_AGENT", "REBENCH_AS_AGENT_SOCKET")}
    os.environ["REBENCH_AS_AGENT"] = str(LIB / "as_agent.py")
    os.environ["REBENCH_AS_AGENT_SOCKET"] = str(socket_path)
    yield workspace
    for key, value in old.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    proc.terminate()
    proc.wait(timeout=10)
    log.close()
    shutil.rmtree(root, ignore_errors=True)


def test_reports_exit_status_and_output_tails(broker):
    result = run_as_agent(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout_s=30)
    assert (result.returncode, result.signal, result.timed_out, result.error) == (3, None, False, None)
    assert result.stdout_tail == "out\n"
    assert result.stderr_tail == "err\n"
    assert not result.ok
    assert 0 < result.duration_s < 30


def test_runs_as_the_agent_in_the_workspace_with_its_base_environment(broker):
    result = run_as_agent(["sh", "-c", "id -u; pwd; echo $AGENT_BASE-$EXTRA-${GRADER_ONLY-absent}"], timeout_s=30,
                          env={"EXTRA": "x"})
    uid, _ = _agent_ids()
    lines = result.stdout_tail.splitlines()
    assert lines[0] == str(uid if uid is not None else os.geteuid())
    assert lines[1:] == [str(broker), "base-x-absent"]
    assert result.ok


def test_a_timeout_kills_the_whole_tree(broker):
    marker = f"{time.time_ns() % 10_000}.25"
    started = time.monotonic()
    result = run_as_agent(["sh", "-c", f"sleep 100{marker} & sleep 200{marker}"], timeout_s=1)
    assert result.timed_out
    assert result.returncode is None
    assert time.monotonic() - started < 10
    left = subprocess.run(["pgrep", "-f", f"sleep [12]00{marker}"], capture_output=True, text=True)
    assert left.stdout == ""


def test_signals_input_and_missing_commands(broker):
    killed = run_as_agent(["sh", "-c", "kill -TERM $$"], timeout_s=30)
    assert (killed.returncode, killed.signal) == (None, "SIGTERM")
    echoed = run_as_agent(["wc", "-c"], timeout_s=30, input=b"12345")
    assert echoed.stdout_tail.strip() == "5"
    missing = run_as_agent(["no-such-program-here"], timeout_s=30)
    assert missing.returncode == 127
    assert "not found" in missing.stderr_tail


def test_long_output_keeps_only_the_tail(broker):
    result = run_as_agent(["sh", "-c", "seq 1 200000"], timeout_s=30, tail_bytes=20)
    assert result.stdout_tail == "99998\n199999\n200000\n"[-20:]


def test_without_a_sandbox_it_refuses_unless_told(monkeypatch):
    monkeypatch.delenv("REBENCH_AS_AGENT", raising=False)
    monkeypatch.delenv("REBENCH_AS_AGENT_UNSANDBOXED", raising=False)
    with pytest.raises(AgentCallUnavailable, match="REBENCH_AS_AGENT is not set"):
        run_as_agent(["true"], timeout_s=5)
    monkeypatch.setenv("REBENCH_AS_AGENT_UNSANDBOXED", "1")
    result = run_as_agent(["sh", "-c", "exit 4"], timeout_s=5)
    assert result.returncode == 4
    slow = run_as_agent(["sleep", "30"], timeout_s=0.5)
    assert slow.timed_out


def test_an_unreachable_broker_is_an_error_not_a_crash(monkeypatch, tmp_path):
    monkeypatch.setenv("REBENCH_AS_AGENT", str(LIB / "as_agent.py"))
    monkeypatch.setenv("REBENCH_AS_AGENT_SOCKET", str(tmp_path / "nothing.sock"))
    result = run_as_agent(["true"], timeout_s=5)
    assert result.returncode is None
    assert result.error is not None and "cannot reach the as-agent broker" in result.error


def test_a_jail_output_dir_takes_jailed_agent_output_and_is_removed_after(monkeypatch):
    """Reachable through a 0711 parent (the jail's bubblewrap runs as the agent user: the real sandbox's test is
    environments/finetune_gpt2_qa/finetune-gpt2-qa.test.ts), writable, and removed with what the call made."""
    monkeypatch.delenv("REBENCH_AS_AGENT", raising=False)
    monkeypatch.setenv("REBENCH_AS_AGENT_UNSANDBOXED", "1")
    with jail_output_dir("rebench-test-jail-out-") as out:
        outer = out.parent
        assert out.stat().st_mode & 0o7777 == 0o1777 and outer.stat().st_mode & 0o777 == 0o711
        result = run_as_agent(["sh", "-c", "mkdir -p /run/out/sub/deep && echo x > /run/out/sub/deep/f && echo ok > /run/out/r.txt"],
                              timeout_s=30, jail=Jail(writable=[(str(out), "/run/out")]))  # fmt: skip
        assert result.ok, result.error or result.stderr_tail
        assert (out / "r.txt").read_text() == "ok\n"
    assert not outer.exists()
