"""What the agent's module and its programs may write while a scoring call runs them: nothing that outlives it.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The module receives the hidden problems' statements, so a module that saved them (in the workspace, /tmp, the
agent's home), or left a process holding them, would hand the hidden split to the agent. Each of its processes,
rustc and every test run therefore starts inside a nested bubblewrap namespace (as the agent user, through
$REBENCH_AS_AGENT): the whole file system read-only, private empty /tmp, /run, /dev/shm and home, the workspace
read-only, only the grader's scratch directory writable (the grader deletes it), its own process namespace (every
process it started dies with it) and the sandbox's loopback (the model service). When bubblewrap cannot run
there (no user namespaces, e.g. in some containers) the call runs unconfined and says so in its details.

Left open: a process the agent started before the call and left running shares the user, the loopback and the
workspace's special files (sockets) with the module, so it could still receive what the module sends it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Sequence


def confine_argv(workspace: str, writable: str | None = None, cwd: str | None = None) -> list[str]:
    """The bubblewrap prefix described above; ``writable`` (the scratch dir) is the one writable bind."""
    scratch = ["--bind", writable, writable] if writable else []
    return ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--die-with-parent",
            "--ro-bind", "/", "/", "--tmpfs", "/tmp", *scratch,
            "--tmpfs", "/home", "--ro-bind", workspace, workspace, "--tmpfs", "/run", *python_binds(),
            "--perms", "1777", "--tmpfs", "/dev/shm", "--chdir", cwd or workspace, "--"]


def python_binds() -> list[str]:
    """The Python installation again, read-only, where it lies under a directory made empty above (a checkout's
    venv under /tmp or /home): the module runs with this interpreter."""
    import sys

    hidden = ("/tmp/", "/home/", "/run/")
    keep = sorted({p for p in (sys.prefix, sys.base_prefix) if p.startswith(hidden) and os.path.isdir(p)})
    return [arg for p in keep for arg in ("--ro-bind", p, p)]


def unconfinable(as_agent: Sequence[str], workspace: str, scratch: str) -> str | None:
    """None when the confinement works here as the agent, else why not."""
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed"
    probe = [*as_agent, *confine_argv(workspace, scratch), "sh", "-c", f"test -d {scratch} && ! touch {workspace}/.w"]
    try:
        res = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap did not run: {e}"
    if res.returncode != 0:
        return f"bubblewrap did not run here (exit {res.returncode}): {res.stderr.decode('utf-8', 'replace')[-300:]}"
    return None


def remove_tree(path: str, as_agent: Sequence[str]) -> None:
    """Delete the scratch dir, also what agent code made in it that the grader may not delete (its own 0700 dirs)."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path) and as_agent:
        for entry in os.listdir(path):
            subprocess.run([*as_agent, "rm", "-rf", os.path.join(path, entry)], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=120)
        shutil.rmtree(path, ignore_errors=True)
