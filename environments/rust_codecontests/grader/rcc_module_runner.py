"""Run a solution module's ``generate_solution(client, semaphore, problem)`` over problems, as upstream's score.py
did: batches of problems, a fresh OpenAI client per batch, a time limit per batch, a semaphore bounding the
concurrent calls.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The grader starts this file in a separate process as the agent user (its own copy, passed with ``python -c``),
one process per batch, which it kills at the batch limit plus a few seconds to start; it writes the job (that
batch's problems) as one JSON object to its stdin -- {"module_path", "problems" (stripped of hidden tests),
"base_url", "api_key", "model", "batch_size", "max_time_per_batch", "max_workers", "seed"} -- and reads one JSON
line per problem from its stdout, as each is ready: {"name", "solution"} or {"name", "error"}; the first line
per problem counts (at the limit, a timer reports what is left as timed out). Everything the module prints goes
to stderr, so it cannot garble that channel. ``score.py`` in the workspace uses the same functions in-process.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import sys
import threading
import time
import traceback
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence

Report = Callable[[str, "str | None", "str | None"], None]


def load_module(path: str) -> ModuleType:
    directory = os.path.dirname(os.path.abspath(path))
    for extra in (directory, os.getcwd()):
        if extra not in sys.path:
            sys.path.insert(0, extra)
    spec = importlib.util.spec_from_file_location("solution_module", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "generate_solution"):
        raise AttributeError(f"{path} has no generate_solution(client, semaphore, problem)")
    return module


def make_client(base_url: str, api_key: str) -> Any:
    import openai

    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=2, timeout=120.0)


async def run_module(module: ModuleType, problems: Sequence[Mapping[str, Any]], *, base_url: str, api_key: str,
                     batch_size: int = 20, max_time_per_batch: float = 60.0, max_workers: int | None = None,
                     report: Report) -> None:
    """Call ``module.generate_solution`` on every problem; ``report(name, solution, error)`` for each."""
    workers = max_workers or 2 * (os.cpu_count() or 1)
    lock = threading.Lock()
    reported: set[str] = set()

    def once(name: str, solution: str | None, error: str | None) -> None:
        """The first report per problem is its result: a problem reported as timed out stays timed out."""
        with lock:
            if name not in reported:
                reported.add(name)
                report(name, solution, error)

    for start in range(0, len(problems), batch_size):
        batch = problems[start:start + batch_size]
        client = make_client(base_url, api_key)
        semaphore = asyncio.Semaphore(workers)
        timed_out = f"timed out after {max_time_per_batch:g} s (batch limit)"
        # At the limit a timer thread reports what is left as timed out, even while a task blocks the event loop.
        timer = threading.Timer(max_time_per_batch, lambda b=batch: [once(p["name"], None, timed_out) for p in b])
        timer.daemon = True
        timer.start()
        tasks = {asyncio.ensure_future(module.generate_solution(client, semaphore, dict(p))): p["name"] for p in batch}
        for task in tasks:  # each result goes out as soon as it is ready: the grader kills a batch at its limit
            task.add_done_callback(lambda t: _report_done(t, tasks[t], once))
        _, pending = await asyncio.wait(tasks, timeout=max_time_per_batch)
        timer.cancel()
        for task in pending:
            once(tasks[task], None, timed_out)
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        close = getattr(client, "close", None)
        if close is not None:
            try:
                await close()
            except Exception:  # noqa: BLE001 - closing a client must not lose results
                pass


def _report_done(task: "asyncio.Future[Any]", name: str, report: Report) -> None:
    if task.cancelled():
        return  # cancelled at the limit, already reported as timed out
    exc = task.exception()
    if exc is not None:
        report(name, None, "".join(traceback.format_exception_only(type(exc), exc)).strip()[-2000:])
    else:
        result = task.result()
        report(name, result if isinstance(result, str) else None,
               None if isinstance(result, str) else f"returned {type(result).__name__}, not str")


def main() -> int:
    job = json.loads(sys.stdin.read())
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the module's prints (fd 1) go to stderr from here on
    sys.stdout = sys.stderr

    def report(name: str, solution: str | None, error: str | None) -> None:
        line = {"name": name, "solution": solution} if error is None else {"name": name, "error": error}
        out.write(json.dumps(line) + "\n")

    started = time.time()
    try:
        module = load_module(job["module_path"])
    except Exception:  # noqa: BLE001 - a broken module is a result, not a crash
        message = traceback.format_exc()[-3000:]
        for p in job["problems"]:
            report(p["name"], None, f"could not import the module: {message}")
        return 0
    problems = list(job["problems"])
    random.Random(job.get("seed")).shuffle(problems)
    asyncio.run(run_module(module, problems, base_url=job["base_url"], api_key=job["api_key"],
                           batch_size=int(job.get("batch_size", 20)),
                           max_time_per_batch=float(job.get("max_time_per_batch", 60.0)),
                           max_workers=job.get("max_workers"), report=report))
    out.write(json.dumps({"done": True, "seconds": round(time.time() - started, 2)}) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
