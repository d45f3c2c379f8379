"""What Python writes in the shapes TypeScript defines: each checked against the JSON Schema generated from the zod
types (python/rebench_env/schemas, written by `npm run schemas`), so a field renamed on one side fails here."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jsonschema
import pytest

import rebench_env
from rebench_env.result import outcome_error, outcome_invalid, outcome_scored, outcome_timed_out, write_result

LIB = Path(rebench_env.__file__).parent
SCHEMAS = LIB / "schemas"


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def test_every_outcome_write_result_writes_is_a_grader_result(tmp_path):
    for outcome in (outcome_scored(1.5), outcome_scored(float("nan")), outcome_invalid("wrong"), outcome_error("crash"),
                    outcome_timed_out(20)):
        path = tmp_path / "result.json"
        write_result(path, outcome, {"shown": 1}, {"kept": [1, 2]})
        jsonschema.validate(json.loads(path.read_text()), schema("grader-result"))


def test_the_schema_refuses_what_rebench_would_refuse():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"outcome": {"kind": "scored"}}, schema("grader-result"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"id": 1, "event": "ok", "extra": True}, schema("executor-message"))


@pytest.fixture(scope="module")
def executor():
    """A real executor (no sandbox: it runs commands as this user), its control and broker sockets."""
    root = Path(tempfile.mkdtemp(prefix="rebench-schemas-", dir="/tmp"))
    workspace = root / "workspace"
    workspace.mkdir()
    config = {
        "role": "agent", "privileged": False, "control": str(root / "control.sock"),
        "shell": str(LIB / "sandbox_shell.sh"), "stateDir": str(root / "state"), "workspace": str(workspace),
        "users": {"agent": {"uid": None, "gid": None, "home": str(workspace), "umask": 0o022}},
        "env": {"agent": {"PATH": "/usr/bin:/bin", "HOME": str(workspace)}}, "limits": {},
        "broker": {"path": str(root / "broker" / "as-agent.sock"), "dirGid": None, "allowUids": None, "timeoutS": 60},
        "keepCapabilities": [],
    }
    (root / "executor.json").write_text(json.dumps(config))
    log = open(root / "executor.log", "w")
    proc = subprocess.Popen([sys.executable, "-E", "-s", str(LIB / "sandbox_executor.py"), str(root / "executor.json")],
                            stdout=log, stderr=log)
    for _ in range(250):
        if (root / "control.sock").exists() and (root / "broker" / "as-agent.sock").exists():
            break
        time.sleep(0.02)
    yield root
    proc.terminate()
    proc.wait(timeout=10)


def _lines(sock: socket.socket, count: int) -> list[dict]:
    buffer = b""
    while buffer.count(b"\n") < count:
        chunk = sock.recv(1 << 20)
        assert chunk, "the executor closed the connection"
        buffer += chunk
    return [json.loads(line) for line in buffer.split(b"\n")[:count]]


def test_the_executors_messages_and_rebench_requests_follow_the_protocol(executor):
    requests = [
        {"op": "ping", "id": 1},
        {"op": "exec", "id": 2, "user": "agent", "command": "echo out; sleep 0.1; echo err >&2", "cwd": None, "env": {},
         "timeoutMs": 30000, "maxOutputBytes": 1000, "stdin": None},
        {"op": "write", "id": 3, "user": "agent", "path": str(executor / "workspace" / "f"), "data": "aGk=", "mode": None},
        {"op": "read", "id": 4, "user": "agent", "path": str(executor / "workspace" / "f")},
        {"op": "read", "id": 5, "user": "agent", "path": str(executor / "nowhere")},
        {"op": "freeze", "id": 6},
        {"op": "thaw", "id": 7},
    ]
    for request in requests:
        jsonschema.validate(request, schema("executor-request"))
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(executor / "control.sock"))
        (hello,) = _lines(sock, 1)
        jsonschema.validate(hello, schema("executor-message"))
        sock.sendall(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
        # ping, exec (started + exit), write, read, failed read, freeze, thaw
        messages = _lines(sock, 8)
    assert {m["event"] for m in messages} >= {"ok", "started", "exit", "data", "error"}
    for message in messages:
        jsonschema.validate(message, schema("executor-message"))


def test_the_brokers_answers_follow_the_protocol(executor):
    for argv in (["sh", "-c", "exit 3"], ["no-such-program-anywhere"]):
        request = {"argv": argv, "cwd": None, "env": {"X": "1"}, "timeoutS": 30, "jail": False,
                   "jailOptions": {"binds": [], "forwards": []}}
        jsonschema.validate(request, schema("as-agent-request"))
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(executor / "broker" / "as-agent.sock"))
            devnull = os.open(os.devnull, os.O_RDWR)
            socket.send_fds(sock, [json.dumps(request).encode() + b"\n"], [devnull, devnull, devnull])
            os.close(devnull)
            (reply,) = _lines(sock, 1)
        jsonschema.validate(reply, schema("as-agent-reply"))
