"""The agent's judge client (workspace/evaluation.py) under many requests at once.

rebench exploits' `judge_over_budget` (2026-12-07) raced eight `evaluate_sync` calls of four threads each: a
Unix socket refuses a connection at once (EAGAIN, Python's BlockingIOError) when the listener's queue of
connections not yet accepted is full, and the client raised it, so an agent calling the judge from many
threads crashed. The client waits for a place until its timeout; the service's queue is 128 deep.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

ENV_DIR = Path(__file__).resolve().parents[1]


def client(socket_path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("evaluation_under_test", ENV_DIR / "workspace" / "evaluation.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.SOCKET = str(socket_path)
    return module


class SlowListener:
    """A judge stand-in whose queue holds one waiting connection and that accepts only after ``delay`` seconds."""

    def __init__(self, path: Path, delay: float) -> None:
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen(0)
        self.delay = delay
        self.answered = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        time.sleep(self.delay)
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.makefile("r").readline()
                conn.sendall(b'{"type": "pong", "used": 0, "budget": 10}\n')
                self.answered += 1

    def close(self) -> None:
        self.server.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Unix sockets' EAGAIN on a full queue is Linux's")
def test_many_requests_at_once_wait_for_the_judge_instead_of_failing(tmp_path: Path) -> None:
    listener = SlowListener(tmp_path / "judge.sock", delay=0.5)
    evaluation = client(tmp_path / "judge.sock")
    try:
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(lambda _: evaluation.budget(), range(16)))
    finally:
        listener.close()
    assert answers == [{"used": 0, "budget": 10}] * 16
    assert listener.answered == 16


def test_a_judge_that_never_accepts_is_a_judge_error_after_the_timeout(tmp_path: Path) -> None:
    listener = SlowListener(tmp_path / "judge.sock", delay=60)
    evaluation = client(tmp_path / "judge.sock")
    try:
        held = []  # take the queue's places (one, for listen(0) on Linux)
        while len(held) < 8:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            conn.setblocking(False)
            try:
                conn.connect(str(tmp_path / "judge.sock"))
            except BlockingIOError:
                conn.close()
                break
            held.append(conn)
        assert 1 <= len(held) < 8
        started = time.monotonic()
        with pytest.raises(evaluation.JudgeError, match="accepted no connection within 0.3 s"):
            evaluation._ask({"type": "ping"}, timeout=0.3)
        assert 0.3 <= time.monotonic() - started < 5
        for conn in held:
            conn.close()
    finally:
        listener.close()


def test_the_service_queues_more_connections_than_the_socketserver_default() -> None:
    sys.path.insert(0, str(ENV_DIR / "grader"))
    try:
        from judge_service import Server
    finally:
        sys.path.pop(0)
    assert Server.request_queue_size >= 64
