"""Run agent code from a grader: as the agent user, in a child process, timed and checked from outside.

A grader never imports or runs the agent's code in its own process (it runs as the grader user and can
read the protected directory). When it must run a kernel, a model definition or a scaffold the agent
wrote, it calls :func:`run_as_agent`::

    from rebench_env.agent_call import run_as_agent

    result = run_as_agent(["python3", "solution.py", "--out", "/tmp/x/out.json"], timeout_s=120)
    if result.timed_out:
        ...  # the whole process tree was killed at 120 s
    elif result.returncode != 0:
        ...  # result.stderr_tail says why
    # read what the agent code wrote to a file the grader chose; never parse scores out of stdout

How it works: sandboxes put the path of an executable in ``REBENCH_AS_AGENT`` for grader commands
(``as_agent.py``). It passes the command to the sandbox's as-agent broker, a root process in the agent's
namespace that the agent cannot reach. The broker starts the command in a new session as the agent user,
with the agent's limits, no network, no protected directory, the agent's base environment plus ``env``
(nothing of the grader's environment leaks), in ``cwd`` (default the workspace). It kills the whole
session at ``timeout_s``, or when the grader's side goes away, and reports the exit status through a
result file. ``duration_s`` is measured by the broker from the start to the exit of the command.

The agent user cannot read the grader's files: to hand agent code an input, write it somewhere the
agent can read (for example a ``tempfile.mkdtemp()`` directory under /tmp made world-readable with
``os.chmod(d, 0o755)``); for its output, give it a directory it can write (``0o1777``) and check what it
wrote before trusting it.

Agent code that sees hidden inputs runs in the one-shot jail (``jail=Jail(...)``; see sandbox_jail.py):
its own network and process namespaces, the file system read-only but for ``Jail.writable``, the agent's
other processes frozen while it runs. Hand it inputs with ``Jail.binds`` (or stdin), take outputs from a
``Jail.writable`` directory the grader made (:func:`jail_output_dir` makes one: the agent user must be able to
write it and to reach it, since the jail's bubblewrap runs as the agent and resolves the source path, so its
parent is 0711 and its own name unguessable; a 0700 parent makes the call fail with "Can't find source path
... Permission denied"), and give it a service with ``Jail.forwards`` (TCP port on the jail's loopback -> a
unix socket of the grader's, bound in).

Outside a sandbox (tests, development) ``REBENCH_AS_AGENT`` is unset and this raises, unless
``REBENCH_AS_AGENT_UNSANDBOXED=1`` says to run the command directly as the current user (a ``jail`` then
runs in the same bubblewrap jail, as the current user, with nothing frozen).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterator, Mapping, Sequence

# How long the grader side waits beyond the timeout for the broker to report before giving up itself.
_GRACE_S = 30.0


@dataclass(frozen=True)
class AgentCallResult:
    """What happened to one call of agent code."""

    returncode: int | None
    """Exit status, or None if a signal ended it (``signal``) or it never started (``error``)."""
    signal: str | None
    timed_out: bool
    duration_s: float
    stdout_tail: str
    """The last ``tail_bytes`` bytes of its output (decoded as UTF-8, invalid bytes replaced)."""
    stderr_tail: str
    error: str | None = None
    """Why the command could not be run at all (broker unreachable, directory not enterable, ...)."""
    cpu_s: float | None = None
    """User + system CPU seconds of the command (and the children it waited for), as the broker measured."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.error is None


@dataclass(frozen=True)
class Jail:
    """What a jailed call gets from the grader: paths as ``(source, target)``, forwards as ``(port, socket)``."""

    binds: Sequence[tuple[str, str]] = ()
    """Read-only in the jail."""
    writable: Sequence[tuple[str, str]] = ()
    """Writable in the jail (an output directory the grader reads afterwards)."""
    forwards: Sequence[tuple[int, str]] = ()
    """TCP ``port`` on the jail's loopback, served from the unix socket ``socket`` (a path inside the jail)."""

    def options(self) -> list[str]:
        out = ["--jail"]
        out += [arg for s, t in self.binds for arg in ("--bind", f"{s}:{t}")]
        out += [arg for s, t in self.writable for arg in ("--bind-rw", f"{s}:{t}")]
        out += [arg for p, sock in self.forwards for arg in ("--forward", f"{p}={sock}")]
        return out

    def request(self) -> dict[str, object]:
        binds = [{"source": s, "target": t, "writable": False} for s, t in self.binds]
        binds += [{"source": s, "target": t, "writable": True} for s, t in self.writable]
        return {"binds": binds, "forwards": [{"port": p, "socket": sock} for p, sock in self.forwards]}


@contextlib.contextmanager
def jail_output_dir(prefix: str = "rebench-jail-out-") -> Iterator[Path]:
    """A directory for a jailed call's output (``Jail(writable=[(str(out), TARGET)])``), removed afterwards.

    ``<new 0711 directory>/<random name>``, mode 1777: the agent user can reach and write it (the jail's
    bubblewrap runs as the agent and must resolve the path) but cannot list its parent, so no other agent
    process finds it by name. Check what agent code wrote in it before trusting it. On the way out, what the
    agent's code made in it (files the grader may not delete: its own subdirectories) is deleted as the agent,
    jailed to the directory, and the rest by the grader; a failure to clean up is not raised.
    """
    outer = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(outer, 0o711)
    out = outer / secrets.token_hex(8)
    out.mkdir()
    os.chmod(out, 0o1777)
    try:
        yield out
    finally:
        shutil.rmtree(outer, ignore_errors=True)
        if out.is_dir() and not out.is_symlink():
            try:
                run_as_agent(["find", str(out), "-mindepth", "1", "-delete"], timeout_s=120, cwd=str(out), jail=Jail(writable=[(str(out), str(out))]))
            except (AgentCallUnavailable, OSError):
                pass
            shutil.rmtree(outer, ignore_errors=True)


class AgentCallUnavailable(RuntimeError):
    """No sandbox gave this process a way to run code as the agent."""


def run_as_agent(
    argv: Sequence[str],
    *,
    timeout_s: float,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    tail_bytes: int = 64 * 1024,
    jail: Jail | None = None,
) -> AgentCallResult:
    """Run ``argv`` as the agent user and wait for it (at most ``timeout_s`` seconds, then it is killed).

    ``cwd`` is a path as the agent sees it (default: the workspace); ``env`` is added to the agent's base
    environment; ``input`` is its stdin (default: empty).
    """
    if not argv:
        raise ValueError("run_as_agent() needs a command")
    helper = os.environ.get("REBENCH_AS_AGENT")
    with tempfile.TemporaryDirectory(prefix="rebench-agent-call-") as private:
        result_file = os.path.join(private, "result.json")
        if helper:
            command = [helper, "--timeout", str(timeout_s), "--result-file", result_file]
            if cwd is not None:
                command += ["--cwd", cwd]
            for name, value in (env or {}).items():
                command += ["--env", f"{name}={value}"]
            command += [*(jail.options() if jail else []), "--", *argv]
            child_env = None
        elif os.environ.get("REBENCH_AS_AGENT_UNSANDBOXED") == "1":
            command, child_env = list(argv), {**os.environ, **(env or {})}
            if jail:
                from rebench_env.sandbox_jail import JailRefused

                try:
                    command = _unsandboxed_jail(jail, cwd or os.getcwd(), command)
                except JailRefused as refused:  # as the broker answers it: the call's error, nothing started
                    return AgentCallResult(None, None, False, 0.0, "", "", str(refused))
        else:
            raise AgentCallUnavailable(
                "REBENCH_AS_AGENT is not set: agent code can only be run from a grader inside a rebench sandbox "
                "(set REBENCH_AS_AGENT_UNSANDBOXED=1 to run it directly, for development only)"
            )
        started = time.monotonic()
        out, err, returncode, client_timed_out = _run(command, child_env, cwd if not helper else None, input,
                                                      timeout_s + (_GRACE_S if helper else 0), tail_bytes)
        elapsed = time.monotonic() - started
        stdout_tail = out.decode("utf-8", "replace")
        stderr_tail = err.decode("utf-8", "replace")
        if not helper:
            return AgentCallResult(returncode if returncode >= 0 else None, _signal_name(returncode),
                                   client_timed_out, elapsed, stdout_tail, stderr_tail)
        try:
            with open(result_file) as f:
                report = json.load(f)
        except (OSError, ValueError):
            why = "the as-agent helper was killed" if client_timed_out else f"the as-agent helper exited {returncode}"
            return AgentCallResult(None, None, client_timed_out, elapsed, stdout_tail, stderr_tail,
                                   f"{why} without a result")
        return AgentCallResult(
            report.get("returncode"),
            report.get("signal"),
            bool(report.get("timedOut")),
            float(report.get("durationS") or elapsed),
            stdout_tail,
            stderr_tail,
            report.get("error"),
            report.get("cpuS"),
        )


def _unsandboxed_jail(jail: Jail, cwd: str, argv: list[str]) -> list[str]:
    """The sandbox's jail command line, built here (development and tests outside a sandbox)."""
    from rebench_env.sandbox_jail import JailConfig, JailRequest, jail_argv

    here = os.path.dirname(os.path.abspath(__file__))
    # real paths: bubblewrap cannot bind over a symlink (a checkout whose .venv links to another's)
    keep = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, here) if os.path.isdir(p)})
    config = JailConfig(workspace=os.environ.get("REBENCH_WORKSPACE", cwd), keep=keep,
                        init=os.path.join(here, "jail_init.py"))
    return jail_argv(JailRequest.from_json(jail.request()), config, cwd, argv)


def _run(command: list[str], env: Mapping[str, str] | None, cwd: str | None, input: bytes | None,
         deadline_s: float, tail_bytes: int) -> tuple[bytes, bytes, int, bool]:
    """Run ``command``, keeping the last ``tail_bytes`` of each stream; kill it after ``deadline_s``."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE if input else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                            start_new_session=True)
    if input and proc.stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, input), daemon=True).start()
    tails = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    sel = selectors.DefaultSelector()
    for stream in tails:
        sel.register(stream, selectors.EVENT_READ)
    end = time.monotonic() + deadline_s
    timed_out = False
    while sel.get_map():
        remaining = end - time.monotonic()
        if remaining <= 0:
            timed_out = True
            _kill_group(proc)
            break
        for key, _ in sel.select(remaining):
            chunk = os.read(key.fd, 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            tail = tails[key.fileobj]  # type: ignore[index]
            tail += chunk
            del tail[: max(0, len(tail) - tail_bytes)]
    try:
        returncode = proc.wait(timeout=max(0.0, end - time.monotonic()))
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        returncode = proc.wait()
    return bytes(tails[proc.stdout]), bytes(tails[proc.stderr]), returncode, timed_out


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except OSError:
        pass  # the command stopped reading


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass


def _signal_name(returncode: int) -> str | None:
    if returncode >= 0:
        return None
    import signal

    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"SIG{-returncode}"


if __name__ == "__main__":  # a quick manual check: python -m rebench_env.agent_call -- id
    args = sys.argv[1:]
    print(run_as_agent(args[1:] if args[:1] == ["--"] else args, timeout_s=60))
