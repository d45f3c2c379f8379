"""Calibrate a variant here: score the starting and the reference solution N times with the real grader process
and record mean and standard deviation of the raw score (until `rebench calibrate` drives the harness).

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

    python assets/calibrate.py --variant mini --runs 5 [--machine "2-core VM"] [--write assets/calibration-direct.json]

Each run is one scoring call: fresh generated tests, a fresh model seed, the module run as a separate process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ENV_DIR = HERE.parent
REPO = ENV_DIR.parents[1]
sys.path.insert(0, str(HERE))

import build  # noqa: E402


def machine_description() -> str:
    cpus = os.cpu_count() or 0
    model = ""
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.system()} {platform.machine()}, {cpus} CPUs ({model or 'unknown CPU'}), no GPU used"


def task_dir(root: Path, built: Path) -> tuple[Path, Path]:
    workspace, protected = root / "workspace", root / "protected"
    shutil.copytree(ENV_DIR / "workspace", workspace)
    shutil.copytree(built / "workspace", workspace, dirs_exist_ok=True)
    shutil.copytree(ENV_DIR / "grader", protected / "grader")
    shutil.copytree(built / "protected", protected, dirs_exist_ok=True)
    return workspace, protected


def score_once(workspace: Path, protected: Path, variant: str, module: Path) -> dict[str, Any]:
    result = protected.parent / "result.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBENCH_")}
    env.update({"REBENCH_RESULT": str(result), "REBENCH_WORKSPACE": str(workspace), "REBENCH_PROTECTED": str(protected),
                "REBENCH_TASK": "main", "REBENCH_VARIANT": variant, "PYTHONPATH": str(REPO / "python"),
                "REBENCH_AS_AGENT_UNSANDBOXED": "1"})  # no sandbox: the grader's jails run as the current user
    started = time.time()
    subprocess.run([sys.executable, str(protected / "grader" / "rcc_grade.py"), "--module", str(module)],
                   cwd=protected, env=env, check=True)
    out = json.loads(result.read_text())
    out["wall_seconds"] = round(time.time() - started, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="mini", choices=("mini", "gpu"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--machine", default=None)
    parser.add_argument("--write", type=Path, default=None, help="update this JSON file (assets/calibration-direct.json: the grader called directly, no sandbox)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rcc-calibrate-") as tmp:
        built = Path(tmp) / "build"
        build.build(args.variant, built)
        workspace, protected = task_dir(Path(tmp) / "task", built)
        modules = {"start": ENV_DIR / "workspace" / "solution" / "solve_code_contests_rust.py",
                   "reference": built / "reference" / "solve_code_contests_rust.py"}
        summary: dict[str, Any] = {"machine": args.machine or machine_description(),
                                   "std_kind": "sample standard deviation (n - 1)"}
        for name, module in modules.items():
            runs = [score_once(workspace, protected, args.variant, module) for _ in range(args.runs)]
            scores = [r["outcome"]["value"] for r in runs if r["outcome"]["kind"] == "scored"]
            std = statistics.stdev(scores) if len(scores) > 1 else 0.0
            summary[name] = {"mean": statistics.mean(scores), "std": std, "n": len(scores), "scores": scores,
                             "seconds": [r["wall_seconds"] for r in runs],
                             "spent_usd": [r["details"]["usage"]["spent_usd"] for r in runs]}
            print(f"{name:<10} {summary[name]['mean']:.4f} ± {summary[name]['std']:.4f} (n={len(scores)}) "
                  f"scores {scores} seconds {summary[name]['seconds']}", flush=True)
    gap = summary["reference"]["mean"] - summary["start"]["mean"]
    worst = max(summary["reference"]["std"], summary["start"]["std"])
    print(f"gap {gap:.4f}, 10 x the larger std {10 * worst:.4f}: {'ok' if gap >= 10 * worst else 'TOO NOISY'}")
    if args.write:
        data = json.loads(args.write.read_text()) if args.write.exists() else {}
        data.setdefault("canary", "e8df3d4b-325b-49c6-a0a8-c490eee4a85f")
        data[args.variant] = {**summary, "command": f"python assets/calibrate.py --variant {args.variant} "
                                                    f"--runs {args.runs}", "date": time.strftime("%Y-%m-%d")}
        args.write.write_text(json.dumps(data, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
