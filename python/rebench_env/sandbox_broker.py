"""The as-agent broker: runs a grader's request as the agent user, from outside the agent's reach.

The agent's executor (root inside the agent's namespace, which has no protected directory) serves a unix
socket that only the grader can reach (a directory owned by root and the grader's group, mounted only in
the grader's namespace or readable only by that group). ``as_agent.py`` connects, passes its own stdin,
stdout and stderr as descriptors and one JSON request line:

  {"argv": [...], "cwd": S|null, "env": {..}|null, "timeoutS": F|null, "jail": B|null, "jailOptions":
   {"binds": [{"source": S, "target": S, "writable": B}], "forwards": [{"port": N, "socket": S}]}|null}

The broker starts ``argv`` in a new session as the agent user, with the agent's rlimits and base
environment (plus ``env``), in ``cwd`` (default the workspace, entered with the agent's permissions: 126
if it cannot), with the grader's descriptors as its stdio (127 if the command is not found). It kills the whole session at the timeout, or as soon as the
client disconnects, and answers with one line (a jailed call, with ``jail`` or when the sandbox jails every call,
runs inside ``sandbox_jail.jail_argv`` with the agent's other processes frozen until it is gone):

  {"event": "exit", "returncode": N|null, "signal": S|null, "timedOut": B, "durationS": F, "cpuS": F}

``cpuS`` is the command's user + system CPU time (with the children it waited for), from ``wait4``: what a
grader that limits CPU time reads, since the command is not the grader's child.
  {"event": "error", "code": "ENOENT"|..., "message": S}     (nothing was started)
"""

from __future__ import annotations

import errno
import json
import os
import selectors
import socket
import struct
import sys
import time
from typing import TYPE_CHECKING, Any

from sandbox_jail import AgentFreezer, JailConfig, JailRequest, evict_shared_page_cache, jail_argv
from sandbox_spawn import describe_status, kill_session, session_members, spawn

if TYPE_CHECKING:
    from sandbox_executor import Executor, Job

# Runs as the agent: the agent's limits, then its working directory (entered with its own permissions),
# then the command itself (bash reports a missing one with status 127).
_SHIM = (
    'for l in ${__RB_ULIMITS-}; do ulimit "-${l%%=*}" "${l#*=}" 2>/dev/null; done; unset __RB_ULIMITS; '
    'cd -- "$1" || exit 126; shift; exec "$@"'
)


class Broker:
    def __init__(self, executor: "Executor", config: dict[str, Any]) -> None:
        self.ex = executor
        self.allow_uids: list[int] | None = config.get("allowUids") if executor.privileged else None
        self.default_timeout_s = float(config.get("timeoutS", 600))
        here = os.path.dirname(os.path.abspath(__file__))
        self.jail = JailConfig.from_json(config.get("jail"), executor.config["workspace"], os.path.join(here, "jail_init.py"))
        self.calls: set[int] = set()
        """Pids (= session ids) of the calls running now: a freeze leaves them, and what they started, alone."""
        self.jailed_since_thaw = False
        """A jailed call ran during the present freeze: the page cache it touched is evicted before the thaw."""
        if executor.freezer is not None:
            executor.freezer.excluded.append(lambda: self.calls)
            executor.freezer.before_thaw.append(self._evict)
        path = config["path"]
        directory = os.path.dirname(path)
        os.makedirs(directory, exist_ok=True)
        gid = config.get("dirGid")
        if executor.privileged and gid is not None:
            os.chown(directory, 0, gid)
            os.chmod(directory, 0o750)
        executor.listen(path, 0o660 if gid is not None else 0o600, self._accept)
        if executor.privileged and gid is not None:
            os.chown(path, 0, gid)

    def _accept(self, conn: socket.socket) -> None:
        conn.setblocking(False)
        buffer = bytearray()
        fds: list[int] = []

        def readable() -> None:
            try:
                data, received, _, _ = socket.recv_fds(conn, 1 << 20, 3)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            fds.extend(received)
            if not data:
                self._drop(conn, fds)
                return
            buffer.extend(data)
            if b"\n" in buffer:
                self.ex.sel.unregister(conn)
                self._start(conn, json.loads(buffer[: buffer.index(b"\n")]), fds)

        self.ex.sel.register(conn, selectors.EVENT_READ, readable)

    def _drop(self, conn: socket.socket, fds: list[int]) -> None:
        self.ex.sel.unregister(conn)
        for fd in fds:
            os.close(fd)
        conn.close()

    def _evict(self) -> None:
        """Before the agent runs again after jailed calls: nothing they read or evicted stays in the page cache."""
        if not self.jailed_since_thaw:
            return
        self.jailed_since_thaw = False
        done = evict_shared_page_cache(self.jail)
        print(f"rebench-broker: after jailed calls, the page cache of {done.files} files evicted in {done.seconds:.2f} s"
              + (f" ({done.skipped} entries could not be opened)" if done.skipped else ""), file=sys.stderr, flush=True)

    def _reply(self, conn: socket.socket, message: dict[str, Any]) -> None:
        conn.setblocking(True)
        try:
            conn.sendall(json.dumps(message).encode() + b"\n")
        except OSError:
            pass
        conn.close()

    def _start(self, conn: socket.socket, req: dict[str, Any], fds: list[int]) -> None:
        try:
            _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            if self.allow_uids is not None and uid not in self.allow_uids:
                raise PermissionError(errno.EPERM, f"uid {uid} may not run commands as the agent")
            if len(fds) != 3:
                raise ValueError("expected stdin, stdout and stderr descriptors")
            argv = [str(a) for a in req["argv"]]
            if not argv:
                raise ValueError("no command given")
            agent = self.ex.users["agent"]
            env = {**self.ex.base_env.get("agent", {}), **{str(k): str(v) for k, v in (req.get("env") or {}).items()}}
            env["__RB_ULIMITS"] = self.ex.limits.ulimit_spec()
            cwd = req.get("cwd") or self.ex.config["workspace"]
            timeout = req.get("timeoutS")
            jailed = self.jail.always or bool(req.get("jail"))
            options = req.get("jailOptions") or {}
            if not jailed and (options.get("binds") or options.get("forwards")):
                raise ValueError("binds and forwards need a jailed call (--jail)")
            if jailed and self.ex.freezer is None:
                raise ValueError("jailed calls need a sandbox's agent executor (this one runs outside a sandbox)")
            if jailed:
                # Frozen before the workspace is searched for sockets: nothing can add one until the jail is gone.
                self.ex.freezer.hold()
                self.jailed_since_thaw = True
                try:
                    argv = jail_argv(JailRequest.from_json(options), self.jail, cwd, argv)
                except BaseException:
                    self.ex.freezer.release()
                    raise
            os.chdir("/")
            started = time.monotonic()
            try:
                pid = spawn(["/bin/bash", "--noprofile", "--norc", "-c", _SHIM, "rebench-as-agent", cwd, *argv],
                            agent, env, stdin=fds[0], stdout=fds[1], stderr=fds[2])
            except BaseException:
                if jailed:
                    self.ex.freezer.release()
                raise
            self.calls.add(pid)
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as e:
            code = errno.errorcode.get(getattr(e, "errno", None) or 0, "EINVAL")
            self._reply(conn, {"event": "error", "code": code, "message": str(e)})
            return
        finally:
            for fd in fds:
                os.close(fd)

        def on_exit(job: "Job") -> None:
            if _registered(self.ex.sel, conn):
                self.ex.sel.unregister(conn)
            self.calls.discard(job.pid)
            if jailed:
                _wait_gone(job.pid)  # the jail's processes die with its namespace: make sure, then thaw
                self.ex.freezer.release()
            returncode, sig = describe_status(job.returncode if job.returncode is not None else -9)
            self._reply(conn, {"event": "exit", "returncode": returncode, "signal": sig,
                               "timedOut": job.timed_out, "durationS": time.monotonic() - job.started,
                               "cpuS": job.cpu_s})

        job = self.ex.watch(pid, self.default_timeout_s if timeout is None else float(timeout), on_exit, started=started)

        def client_gone() -> None:
            # The grader (or its client) died or gave up: nothing may keep running on its behalf.
            try:
                gone = conn.recv(4096) == b""  # anything else the client sends is ignored
            except BlockingIOError:
                gone = False
            except OSError:
                gone = True
            if gone:
                self.ex.sel.unregister(conn)
                kill_session(job.pid)

        self.ex.sel.register(conn, selectors.EVENT_READ, client_gone)


def _wait_gone(sid: int, timeout_s: float = 2.0) -> None:
    """Until no process of session ``sid`` is left (each is being killed), at most ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while session_members(sid) and time.monotonic() < deadline:
        kill_session(sid)
        time.sleep(0.005)


def _registered(sel: selectors.BaseSelector, conn: socket.socket) -> bool:
    try:
        sel.get_key(conn)
        return True
    except (KeyError, ValueError):
        return False
