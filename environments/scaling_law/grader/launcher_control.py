"""Start, find and restart the experiment launcher (``launcher.py``) of a scaling_law sandbox.

``setup.py`` (root, at the start of a run) and ``score.py`` (grader, when the launcher stopped answering)
both call :func:`start`: the launcher runs detached, as the owner of the protected directory (the grader
user), with its output in ``launcher/launcher.log`` there, and is ready when it answers a ping.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import launcher  # noqa: E402
import train as training  # noqa: E402


@dataclass(frozen=True)
class Paths:
    protected: Path
    data: Path
    folder: Path  # launcher/: audit log, output, graded answers (grader only)
    socket: str

    @property
    def log(self) -> Path:
        return self.folder / "experiments.jsonl"

    @property
    def answers(self) -> Path:
        return self.folder / "answers.jsonl"

    @property
    def output(self) -> Path:
        return self.folder / "launcher.log"

    @classmethod
    def of(cls, protected: Path, variant: str) -> "Paths":
        """Where things are for a variant: token files under ``assets/`` (``data/`` for OpenWebText)."""
        data_name = training.SETTINGS[variant].data
        data = protected / ("data" if variant == "paper" else "assets") / data_name
        socket = os.environ.get("REBENCH_SCALING_LAUNCHER", training.LAUNCHER_SOCKET)
        return cls(protected, data, protected / "launcher", socket)


def start(paths: Paths, variant: str, devices: str | None = None, timeout_s: float = 120.0) -> dict[str, Any]:
    """Start the launcher detached and wait until it answers; raises RuntimeError with its output if not."""
    owner = paths.protected.stat()
    paths.folder.mkdir(mode=0o700, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(paths.folder, owner.st_uid, owner.st_gid)
    argv = [sys.executable, launcher.__file__, "--variant", variant, "--data", str(paths.data),
            "--socket", paths.socket, "--log", str(paths.log)]  # fmt: skip
    if devices:
        argv += ["--devices", devices]
    switch: dict[str, Any] = {}
    if os.geteuid() == 0 and owner.st_uid != 0:
        switch = {"user": owner.st_uid, "group": owner.st_gid, "extra_groups": []}
    env = {**os.environ, "HOME": str(paths.protected)}
    with open(paths.output, "ab") as out:
        if os.geteuid() == 0:
            os.chown(paths.output, owner.st_uid, owner.st_gid)
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=paths.protected,
                                 start_new_session=True, env=env, umask=0o077, **switch)  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pong = launcher.ping(paths.socket, timeout=2.0)
        if pong is not None:
            return {"started": True, "pid": child.pid, **pong}
        if child.poll() is not None:
            break
        time.sleep(0.2)
    tail = paths.output.read_text(errors="replace")[-2000:] if paths.output.exists() else ""
    raise RuntimeError(f"the experiment launcher did not start (exit {child.poll()}): {tail}")


def ensure_running(paths: Paths, variant: str) -> dict[str, Any]:
    """The launcher's state for a score's details: answering, or restarted now (or why it could not be)."""
    pong = launcher.ping(paths.socket)
    if pong is not None:
        return {"running": True}
    try:
        return {"running": True, "restarted": start(paths, variant)}
    except (OSError, RuntimeError) as error:
        return {"running": False, "restart_error": str(error)[-500:]}
