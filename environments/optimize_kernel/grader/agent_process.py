"""Starts the agent's code in its own process, as the agent's user, and connects the control channel.

The grader copies the (non-secret) runner kit into a fresh directory the agent's user can traverse but
not list, listens on a Unix socket with an unguessable name there, and starts
``$REBENCH_AS_AGENT [--timeout S] [--cwd DIR] -- python runner.py ...`` (a plain subprocess when
``REBENCH_AS_AGENT`` is unset, for local tests). The agent's process gets no REBENCH_* variables that
point at protected files.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import wire

KIT = ("runner.py", "wire.py", "cudaipc.py")
HIDDEN_ENV = ("REBENCH_RESULT", "REBENCH_PROTECTED", "REBENCH_TASK")
OUTPUT_TAIL = 2000


class AgentProcessFailed(Exception):
    """The agent's process ended (or never connected); the message says how."""


class AgentProcess:
    def __init__(self, solution: Path, device: str, python: str, as_agent: str | None, wall_timeout: float) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rebench-kernel-"))
        os.chmod(self.dir, 0o711)
        here = Path(__file__).resolve().parent
        kit = self.dir / f"kit-{secrets.token_hex(8)}"
        kit.mkdir(mode=0o755)
        os.chmod(kit, 0o755)
        for name in KIT:
            shutil.copyfile(here / name, kit / name)
            os.chmod(kit / name, 0o644)
        self.socket_path = str(self.dir / f"ctl-{secrets.token_hex(16)}.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(self.socket_path)
        os.chmod(self.socket_path, 0o777)
        self.listener.listen(1)

        cwd = str(solution.parent)
        argv = [python, str(kit / "runner.py"), "--socket", self.socket_path, "--solution", str(solution),
                "--device", device]
        if as_agent:
            argv = [as_agent, "--timeout", str(int(wall_timeout) + 1), "--cwd", cwd, "--", *argv]
        env = {k: v for k, v in os.environ.items() if k not in HIDDEN_ENV}
        env["PYTHONUNBUFFERED"] = "1"
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, cwd=None if as_agent else cwd, env=env, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.channel: wire.Channel | None = None

    def connect(self, timeout: float) -> wire.Channel:
        """Wait for the agent's process to connect; raises AgentProcessFailed or wire.ChannelTimeout."""
        deadline = time.monotonic() + timeout
        while True:
            ready, _, _ = select.select([self.listener], [], [], 0.05)
            if ready:
                conn, _ = self.listener.accept()
                self.listener.close()
                self.peer_uid = peer_uid(conn)
                self.channel = wire.Channel(conn)
                return self.channel
            if self.proc.poll() is not None:
                raise AgentProcessFailed(f"the solution's process {self.ended()} before it started")
            if time.monotonic() > deadline:
                raise wire.ChannelTimeout()

    def ended(self, wait: float = 2.0) -> str:
        """How the process ended, in words ("was killed by signal SIGSEGV"), waiting up to ``wait`` s."""
        try:
            code = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code < 0:
            return f"was killed by signal {signal.Signals(-code).name}"
        if code > 128 and code - 128 in signal.valid_signals():
            return f"exited with code {code} (signal {signal.Signals(code - 128).name}?)"
        return f"exited with code {code}"

    def output_tail(self) -> str:
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - OUTPUT_TAIL))
        return self.log.read().decode(errors="replace")

    def close(self, graceful: bool) -> None:
        """Ask the process to exit (``graceful``: give it 5 s) and kill what is left."""
        if self.channel is not None:
            try:
                self.channel.send({"kind": "exit"})
            except OSError:
                pass
            self.channel.close()
        try:
            self.proc.wait(timeout=5 if graceful else 0.2)
        except subprocess.TimeoutExpired:
            # As another user the process may be beyond our signals; REBENCH_AS_AGENT's --timeout ends it then.
            for kill in (lambda: os.killpg(self.proc.pid, signal.SIGKILL), self.proc.kill):
                try:
                    kill()
                    break
                except (PermissionError, ProcessLookupError):
                    continue
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.listener.close()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def peer_uid(conn: socket.socket) -> int:
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]
