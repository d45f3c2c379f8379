"""Grader result files: the one channel from a grader back to rebench.

The shape mirrors ``GraderResult`` in ``src/core/score.ts``::

    {"outcome": {"kind": "scored", "value": 1.23} | {"kind": "invalid", "reason": "..."}
                | {"kind": "timedOut", "afterSeconds": 20} | {"kind": "error", "message": "..."},
     "message": {...shown to the agent...}, "details": {...stored only...}}
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Mapping


def outcome_scored(value: float) -> dict[str, Any]:
    """A valid score; a non-finite value is not a score, so it becomes ``invalid``."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return {"kind": "invalid", "reason": f"the score is not a finite number ({value!r})"}
    return {"kind": "scored", "value": float(value)}


def outcome_invalid(reason: str) -> dict[str, Any]:
    return {"kind": "invalid", "reason": reason or "invalid"}


def outcome_timed_out(after_seconds: float) -> dict[str, Any]:
    return {"kind": "timedOut", "afterSeconds": float(after_seconds)}


def outcome_error(message: str) -> dict[str, Any]:
    return {"kind": "error", "message": message or "error"}


def write_result(
    path: str | os.PathLike[str] | None,
    outcome: Mapping[str, Any],
    message: Mapping[str, Any] | None = None,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Write the result atomically (temp file + rename) so a reader never sees half a file.

    ``path`` defaults to ``$REBENCH_RESULT``.
    """
    target = os.fspath(path if path is not None else os.environ["REBENCH_RESULT"])
    payload = {"outcome": dict(outcome), "message": dict(message or {}), "details": dict(details or {})}
    text = json.dumps(payload, allow_nan=False, default=_jsonable)
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".result-", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy / torch scalars
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} to a result file")


def grader_main(
    score: Callable[[Path, Path, bool], tuple[Mapping[str, Any], Mapping[str, Any] | None, Mapping[str, Any] | None]],
    description: str | None = None,
) -> int:
    """The command line of a grader's score.py: --workspace, --protected, --task and --result, each defaulting
    to the variable the sandbox sets (REBENCH_WORKSPACE, ...); calls ``score(workspace, protected, hidden)``
    (hidden: the task is ``hidden_score``) and writes what it returns as the result."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default=os.environ.get("REBENCH_WORKSPACE"))
    parser.add_argument("--protected", default=os.environ.get("REBENCH_PROTECTED", os.getcwd()))
    parser.add_argument("--task", default=os.environ.get("REBENCH_TASK", "main"))
    parser.add_argument("--result", default=os.environ.get("REBENCH_RESULT"))
    args = parser.parse_args()
    if not args.workspace or not args.result:
        parser.error("--workspace and --result (or REBENCH_WORKSPACE and REBENCH_RESULT) are required")
    outcome, message, details = score(Path(args.workspace), Path(args.protected), args.task == "hidden_score")
    write_result(args.result, outcome, message, details)
    return 0
