"""Runs the real grader N times on the starting and the reference solution; mean and std of ln(ms).

    python environments/optimize_kernel/bench/calibrate.py --variant mini --runs 5 --json out.json

Each run is a full scoring call (fresh process for the agent's code, sanity call, 4 warm-ups, one
timed call) on a copy of the solution in a fresh folder. Until `rebench calibrate` drives the grader
through the sandbox, this is how calibration.json's numbers are made.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
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
from pathlib import Path
from typing import Any

ENV_DIR = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ENV_DIR / "reference"))
import unpack  # noqa: E402


def score_once(solution_dir: Path, variant: str) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="kernel-calibrate-"))
    try:
        os.chmod(work, 0o755)
        shutil.copytree(solution_dir, work / "solution")
        result = work / "result.json"
        subprocess.run([sys.executable, str(ENV_DIR / "grader" / "score.py"), "--variant", variant,
                        "--solution", str(work / "solution" / "solution.py"), "--result", str(result)],
                       check=True, timeout=900)
        return json.loads(result.read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summarize(values: list[float]) -> dict[str, Any]:
    return {"mean": statistics.mean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0,
            "n": len(values), "runs": values}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", required=True, choices=["mini", "gpu"])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--reference-dir", help="unpacked reference archive (default: unpack to a temp folder)")
    p.add_argument("--json", help="write the summary here")
    args = p.parse_args()
    ref = Path(args.reference_dir) if args.reference_dir else unpack.unpack(tempfile.mkdtemp())
    folders = {"start": ENV_DIR / "workspace" / args.variant / "solution", "reference": ref / args.variant}
    summary: dict[str, Any] = {}
    for name, folder in folders.items():
        scores = []
        for i in range(args.runs):
            result = score_once(folder, args.variant)
            if result["outcome"]["kind"] != "scored":
                raise SystemExit(f"{name} run {i + 1} was not scored: {result['outcome']}")
            scores.append(result["outcome"]["value"])
            timed = result["details"]["calls"][-1]
            print(f"{name} run {i + 1}: ln ms = {scores[-1]:.4f} ({timed['total_ms']:.3f} ms; go to done "
                  f"{timed['go_to_done_ms']:.3f} ms)", flush=True)
        summary[name] = summarize(scores)
        machine = result["details"]["machine"]
    summary["machine"] = {**machine, "host": platform.node(), "load_average": os.getloadavg()}
    gap = summary["start"]["mean"] - summary["reference"]["mean"]
    summary["gap_over_max_std"] = gap / max(summary["start"]["std"], summary["reference"]["std"], 1e-12)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    for name in folders:
        s = summary[name]
        print(f"{args.variant} {name:<9} ln ms = {s['mean']:.4f} +- {s['std']:.4f} (n={s['n']})")
    print(f"gap / max std = {summary['gap_over_max_std']:.1f} (needs >= 10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
