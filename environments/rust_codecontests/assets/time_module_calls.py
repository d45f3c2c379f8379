"""Time the module step of a scoring call (rcc_grade.run_agent_module) on the whole mini hidden split with a module
that returns at once: what the grader's jailed calls cost by themselves.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

The calls run in the jail as the current user (REBENCH_AS_AGENT_UNSANDBOXED=1, as in the tests); in the sandbox
the broker adds its freeze and walk per call. ``--grader`` takes another checkout's grader/ (e.g. a git worktree
of an earlier commit) to compare.

    PYTHONPATH=python .venv/bin/python environments/rust_codecontests/assets/time_module_calls.py --runs 3 [--grader DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULE = "async def generate_solution(client, semaphore, problem):\n    return 'fn main() {}'\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grader", type=Path, default=HERE.parent / "grader")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent / "tests"))
    import rcc_testkit  # the mini build and a task laid out as the sandbox lays it out

    sys.path.insert(0, str(args.grader.resolve()))
    for name in ("rcc_grade", "rcc_module_runner", "rust_codecontests_utils"):
        sys.modules.pop(name, None)
    import rcc_grade
    from rcc_model_service import load_tables
    from rcc_variants import VARIANTS

    os.environ["REBENCH_AS_AGENT_UNSANDBOXED"] = "1"
    workspace, protected = rcc_testkit.make_task(Path(tempfile.mkdtemp(prefix="rcc-time-")), MODULE)
    os.environ["REBENCH_WORKSPACE"] = str(workspace)
    config = VARIANTS["mini"]
    problems = rcc_grade.load_jsonl(protected / "test.jsonl")
    tables = load_tables(protected / "model" / "hidden.json.gz")
    for run in range(args.runs):
        call_dir = rcc_grade.CallDir.make()
        service = rcc_grade.pool_factory(tables, config)("sk-time", "seed", Path(tempfile.mkdtemp(prefix="rcc-time-model-")))
        server = rcc_grade.start_server(service, unix_socket=call_dir.socket)
        started = time.perf_counter()
        result = rcc_grade.run_agent_module(str(workspace / "solution" / "solve_code_contests_rust.py"), str(workspace),
                                            problems, "sk-time", config, "seed", call_dir.socket)
        seconds = time.perf_counter() - started
        rcc_grade.stop_server(server)
        call_dir.remove()
        load = open("/proc/loadavg").read().split()[0]
        print(f"run {run + 1}: {seconds:.2f} s for {len(problems)} problems, {len(result['solutions'])} programs, load {load}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
