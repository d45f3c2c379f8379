"""The executor inside a rebench sandbox: runs the orchestrator's commands as the sandbox's users.

One executor runs in each sandbox namespace (the local backend starts one for the agent's namespace and
one for the grader's). The orchestrator talks to it over a unix socket with newline-delimited JSON; it
runs every command through ``sandbox_shell.sh`` (so the user's working directory and exported variables
persist between commands) in a new session as the requested user, captures each output stream up to a
cap, kills the command's whole session at its timeout, and reads and writes files with the user's own
permissions. The agent's executor also serves the as-agent broker (``sandbox_broker.py``).

Requests (one JSON object per line), each answered on the same connection:
  {"op": "exec", "id": N, "user": U, "command": S, "cwd": S|null, "env": {}, "timeoutMs": N,
   "maxOutputBytes": N, "stdin": base64|null}
      -> {"id": N, "event": "started", "sid": N} once it has run for 20 ms (a quicker command saves the
         message), then {"id": N, "event": "exit", "sid": N, "exitCode": N|null, "signal": S|null,
         "timedOut": B, "durationMs": F, "stdout": base64, "stderr": base64, "stdoutBytes": N,
         "stderrBytes": N}
  {"op": "kill", "id": N, "target": N}                      -> ok (kills exec ``target``'s session)
  {"op": "read", "id": N, "user": U, "path": S}            -> {"id": N, "event": "data", "data": base64}
  {"op": "write", "id": N, "user": U, "path": S, "data": base64, "mode": N|null}   -> ok
  {"op": "freeze", "id": N} -> ok once every process of the agent user is stopped (SIGSTOP), until this
      connection sends {"op": "thaw", "id": N} (-> ok) or closes; see sandbox_jail.AgentFreezer
  {"op": "ping", "id": N} -> ok;  {"op": "shutdown", "id": N} -> kills what it started, then exits
``ok`` is {"id": N, "event": "ok"}; failures are {"id": N, "event": "error", "code": S, "message": S}.
On connect it sends {"event": "hello", "pid": N, "pidns": S, "role": S, "privileged": B}.

Usage: python3 -E -s sandbox_executor.py CONFIG_JSON_FILE
       python3 -E -s sandbox_executor.py --proxy CONTROL_SOCKET   (relays stdin/stdout to an executor)
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import os
import re
import selectors
import signal
import socket
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from sandbox_jail import AgentFreezer, in_host_pid_namespace, mount_full_proc
from sandbox_spawn import (Capture, Identity, Limits, describe_status, kill_session, no_new_privileges,
                           restrict_capabilities, spawn)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class Job:
    """A running process the executor watches: a command, or an as-agent call."""

    pid: int
    pidfd: int
    started: float
    deadline: float | None
    on_exit: Callable[["Job"], None]
    captures: list[Capture] = field(default_factory=list)
    timed_out: bool = False
    returncode: int | None = None
    cpu_s: float | None = None
    """User + system CPU seconds of the process and the children it waited for (from wait4)."""
    notify_at: float | None = None
    """When to tell the orchestrator the command's session id, if it is still running then."""
    notify: Callable[[], None] | None = None


class Executor:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.sel = selectors.DefaultSelector()
        self.privileged = os.geteuid() == 0 and bool(config.get("privileged", True))
        self.users = {name: _identity(name, u, self.privileged) for name, u in config["users"].items()}
        self.base_env: dict[str, dict[str, str]] = config.get("env", {})
        self.limits = Limits.from_json(config.get("limits"))
        self.jobs: dict[int, Job] = {}
        self.execs: dict[tuple[int, int], Job] = {}
        self.stopping = False
        self.state_dir = config["stateDir"]
        agent = self.users.get("agent")
        self.freezer: AgentFreezer | None = None
        """Stops the agent's processes while a jailed call or a scoring call needs it: only in a sandbox's own
        process namespace, which a sandbox backend's configuration says (``broker.jail``) and the namespace
        confirms (never the host's: there the agent's uid may be everyone's)."""
        if agent is not None and (config.get("broker") or {}).get("jail") is not None and not in_host_pid_namespace():
            self.freezer = AgentFreezer(agent.uid if agent.uid is not None else os.geteuid())
        self.freeze_holds: dict[int, int] = {}
        """Holds on the freezer per control connection (id of the socket): released when it closes."""
        for identity in self.users.values():
            self._prepare_state_dir(identity)
        if config.get("control"):
            self.listen(config["control"], 0o600, self._accept_control)

    # -- the event loop ----------------------------------------------------------------------------

    def listen(self, path: str, mode: int, on_accept: Callable[[socket.socket], None]) -> socket.socket:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        os.chmod(path, mode)
        server.listen(64)
        server.setblocking(False)
        self.sel.register(server, selectors.EVENT_READ, lambda: on_accept(server.accept()[0]))
        return server

    def serve(self) -> None:
        while not self.stopping:
            deadlines = [j.deadline for j in self.jobs.values() if j.deadline is not None and not j.timed_out]
            deadlines += [j.notify_at for j in self.jobs.values() if j.notify_at is not None]
            timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            for key, _ in self.sel.select(timeout):
                try:
                    key.data()
                except Exception:  # a bug in one request must not take the sandbox's executor down
                    traceback.print_exc()
            now = time.monotonic()
            for job in list(self.jobs.values()):
                if job.notify_at is not None and now >= job.notify_at and job.notify is not None:
                    job.notify_at = None
                    job.notify()
                if job.deadline is not None and not job.timed_out and now >= job.deadline:
                    job.timed_out = True
                    kill_session(job.pid)

    def watch(self, pid: int, timeout_s: float | None, on_exit: Callable[[Job], None],
              captures: list[Capture] | None = None, started: float | None = None) -> Job:
        """Watch ``pid`` (spawned at ``started``, default now) until it exits, killing it at the timeout."""
        started = time.monotonic() if started is None else started
        job = Job(pid, os.pidfd_open(pid), started, None if timeout_s is None else started + timeout_s,
                  on_exit, captures or [])
        self.jobs[job.pidfd] = job
        self.sel.register(job.pidfd, selectors.EVENT_READ, lambda: self._finish(job))
        for capture in job.captures:
            os.set_blocking(capture.fd, False)
            self.sel.register(capture.fd, selectors.EVENT_READ, lambda c=capture: self._pump(c, 16))
        return job

    def _pump(self, capture: Capture, rounds: int) -> None:
        if not capture.closed and capture.read_available(rounds):
            self.sel.unregister(capture.fd)
            os.close(capture.fd)
            capture.closed = True

    def _finish(self, job: Job) -> None:
        _, status, usage = os.wait4(job.pid, 0)
        job.returncode = os.waitstatus_to_exitcode(status)
        job.cpu_s = usage.ru_utime + usage.ru_stime
        self.sel.unregister(job.pidfd)
        os.close(job.pidfd)
        del self.jobs[job.pidfd]
        for capture in job.captures:
            # What the command wrote is in the pipe now. A background child that still holds the pipe
            # keeps writing into a discarding reader (so it does not die of SIGPIPE) until it closes it.
            self._pump(capture, 64)
            if not capture.closed:
                capture.cap = len(capture.data)
        job.on_exit(job)

    def kill_all(self) -> None:
        for job in list(self.jobs.values()):
            kill_session(job.pid)

    # -- the control protocol ----------------------------------------------------------------------

    def _accept_control(self, conn: socket.socket) -> None:
        conn.setblocking(True)
        hello = {"event": "hello", "pid": os.getpid(), "pidns": os.readlink("/proc/self/ns/pid"),
                 "role": self.config.get("role"), "privileged": self.privileged}
        _send(conn, hello)
        buffer = bytearray()

        def readable() -> None:
            try:
                chunk = conn.recv(1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                self.sel.unregister(conn)
                for _ in range(self.freeze_holds.pop(id(conn), 0)):
                    self.freezer.release()  # type: ignore[union-attr]
                conn.close()
                return
            buffer.extend(chunk)
            while (newline := buffer.find(b"\n")) >= 0:
                line = bytes(buffer[:newline])
                del buffer[: newline + 1]
                self._handle(conn, json.loads(line))

        self.sel.register(conn, selectors.EVENT_READ, readable)

    def _handle(self, conn: socket.socket, req: dict[str, Any]) -> None:
        rid = req.get("id")
        try:
            op = req["op"]
            if op == "exec":
                self._exec(conn, req)
            elif op == "kill":
                job = self.execs.get((id(conn), int(req["target"])))
                if job is not None:
                    job.timed_out = job.timed_out or bool(req.get("timedOut"))
                    kill_session(job.pid)
                _send(conn, {"id": rid, "event": "ok"})
            elif op == "read":
                with self.as_user(req["user"]), open(req["path"], "rb") as f:
                    data = f.read()
                _send(conn, {"id": rid, "event": "data", "data": base64.b64encode(data).decode()})
            elif op == "write":
                self._write(req)
                _send(conn, {"id": rid, "event": "ok"})
            elif op in ("freeze", "thaw"):
                if self.freezer is None:
                    raise ValueError(f"this executor is not a sandbox's agent executor, so it cannot {op} the agent's processes")
                holds = self.freeze_holds.get(id(conn), 0)
                if op == "freeze":
                    self.freezer.hold()
                    self.freeze_holds[id(conn)] = holds + 1
                elif holds > 0:
                    self.freezer.release()
                    self.freeze_holds[id(conn)] = holds - 1
                _send(conn, {"id": rid, "event": "ok"})
            elif op == "ping":
                _send(conn, {"id": rid, "event": "ok"})
            elif op == "shutdown":
                self.kill_all()
                _send(conn, {"id": rid, "event": "ok"})
                self.stopping = True
            else:
                raise ValueError(f"unknown op {op!r}")
        except OSError as e:
            code = errno.errorcode.get(e.errno or 0, "EIO")
            _send(conn, {"id": rid, "event": "error", "code": code, "message": f"{e.strerror or e}: {req.get('path', '')}"})
        except (KeyError, ValueError, TypeError) as e:
            _send(conn, {"id": rid, "event": "error", "code": "EINVAL", "message": f"bad request: {e}"})
        except RuntimeError as e:
            _send(conn, {"id": rid, "event": "error", "code": "EAGAIN", "message": str(e)})

    def _exec(self, conn: socket.socket, req: dict[str, Any]) -> None:
        user = req["user"]
        identity = self._identity(user)
        call_env = {str(k): str(v) for k, v in (req.get("env") or {}).items()}
        bad = [name for name in call_env if not _NAME.fullmatch(name)]
        if bad or "\0" in req["command"]:
            raise ValueError(f"invalid variable names {bad}" if bad else "the command contains a NUL byte")
        base = self.base_env.get(user, {})
        env = {**base, **call_env}
        command_fd = os.memfd_create("rebench-command")
        os.write(command_fd, req["command"].encode() + b"\0")
        os.lseek(command_fd, 0, os.SEEK_SET)
        env.update(__RB_COMMAND_FD="3", __RB_VARS=" ".join(call_env), __RB_BASE_VARS=" ".join(base),
                   __RB_ULIMITS=self.limits.ulimit_spec())
        if req.get("stdin") is not None:
            stdin_fd = os.memfd_create("rebench-stdin")
            os.write(stdin_fd, base64.b64decode(req["stdin"]))
            os.lseek(stdin_fd, 0, os.SEEK_SET)
        else:
            stdin_fd = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        argv = ["/bin/bash", "--noprofile", "--norc", self.config["shell"], self._state_file(identity)]
        if req.get("cwd"):
            argv.append(req["cwd"])
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            self._enter_start_dir()
            started = time.monotonic()
            pid = spawn(argv, identity, env, stdin=stdin_fd, stdout=out_w, stderr=err_w, fd3=command_fd)
        except BaseException:
            os.close(out_r)
            os.close(err_r)
            raise
        finally:
            for fd in (out_w, err_w, command_fd, stdin_fd):
                os.close(fd)
        cap = int(req.get("maxOutputBytes") or 1 << 20)
        rid = req["id"]
        key = (id(conn), int(rid))

        def on_exit(job: Job) -> None:
            self.execs.pop(key, None)
            exit_code, sig = describe_status(job.returncode if job.returncode is not None else -9)
            out, err = job.captures
            _send(conn, {"id": rid, "event": "exit", "sid": job.pid, "exitCode": exit_code, "signal": sig,
                         "timedOut": job.timed_out, "durationMs": (time.monotonic() - job.started) * 1000,
                         "stdout": base64.b64encode(out.data).decode(), "stderr": base64.b64encode(err.data).decode(),
                         "stdoutBytes": out.total, "stderrBytes": err.total})

        timeout_ms = req.get("timeoutMs")
        job = self.watch(pid, None if timeout_ms is None else timeout_ms / 1000, on_exit,
                         [Capture(out_r, cap), Capture(err_r, cap)], started)
        self.execs[key] = job
        job.notify_at = job.started + 0.02
        job.notify = lambda: _send(conn, {"id": rid, "event": "started", "sid": pid})

    def _enter_start_dir(self) -> None:
        """Commands start in the workspace (the shell then moves to the saved directory), or / without one."""
        try:
            os.chdir(self.config["workspace"])
        except OSError:
            os.chdir("/")

    def _write(self, req: dict[str, Any]) -> None:
        data = base64.b64decode(req["data"])
        mode = req.get("mode")
        with self.as_user(req["user"]):
            fd = os.open(req["path"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
            try:
                if mode is not None:
                    os.fchmod(fd, int(mode))
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)

    # -- users ---------------------------------------------------------------------------------------

    def _identity(self, user: str) -> Identity:
        if user not in self.users:
            raise ValueError(f"this executor does not run commands as {user!r}")
        return self.users[user]

    @contextlib.contextmanager
    def as_user(self, user: str) -> Iterator[None]:
        """File access with the user's permissions (effective ids only, restored afterwards)."""
        identity = self._identity(user)
        if not self.privileged or identity.uid in (None, 0):
            yield
            return
        os.setegid(identity.gid or 0)
        os.seteuid(identity.uid or 0)
        try:
            yield
        finally:
            os.seteuid(0)
            os.setegid(0)

    def _state_file(self, identity: Identity) -> str:
        return os.path.join(self.state_dir, identity.name, "state")

    def _prepare_state_dir(self, identity: Identity) -> None:
        path = os.path.join(self.state_dir, identity.name)
        os.makedirs(path, exist_ok=True)
        if self.privileged and identity.uid is not None:
            os.chown(path, identity.uid, identity.gid or 0)
        os.chmod(path, 0o700)


def _identity(name: str, data: dict[str, Any], privileged: bool) -> Identity:
    uid = data.get("uid") if privileged else None
    gid = data.get("gid") if privileged else None
    return Identity(name, uid, gid, data.get("home", "/"), int(data.get("umask", 0o022)))


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    try:
        conn.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    except OSError:
        pass  # the orchestrator went away; it reconnects and asks again


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "--proxy":
        from sandbox_proxy import proxy

        return proxy(argv[2])
    if len(argv) != 2:
        print("usage: sandbox_executor.py CONFIG_JSON_FILE | --proxy CONTROL_SOCKET", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        config = json.load(f)
    os.umask(0o022)
    if (config.get("broker") or {}).get("jail") is not None:
        # In a sandbox, before the capabilities go: jails mount a proc of their own, which needs an uncovered one here.
        problem = mount_full_proc()
        if problem:
            print(f"rebench executor: jails will not start: {problem}", file=sys.stderr, flush=True)
    no_new_privileges()
    restrict_capabilities(config.get("keepCapabilities", []))
    if os.geteuid() == 0 and config.get("privileged", True):
        os.setgroups([])  # children get no supplementary groups (see spawn)
    executor = Executor(config)
    if config.get("broker"):
        from sandbox_broker import Broker

        Broker(executor, config["broker"])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"rebench executor ({config.get('role')}) ready, pid {os.getpid()}", file=sys.stderr, flush=True)
    try:
        executor.serve()
    finally:
        executor.kill_all()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
