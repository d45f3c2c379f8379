"""Would a same-call yardstick make optimize_kernel's calibration hold across machine classes? (issue 39)

    python environments/optimize_kernel/bench/yardstick.py --pairs 10 --json OUT.json     # mini, on the CPU

A yardstick is the starting solution timed in the same scoring call as the agent's, the score being the
difference of the two ln(ms) (the ratio of the times). This bench measures what that would give, with the
grader as it is: it runs full scoring calls (grader/score.py, the solution in a plain subprocess, not a
sandbox) of the start and of the reference one after the other, ``--pairs`` times, and prints per
solution the mean and std of ln(ms), and of the pair differences (reference minus start, the score a
yardstick would give the reference). Run it on each machine class (and quiet and under load: `uptime`
is recorded): the raw scores move with the machine; if the differences do not, a calibration of the
differences holds across classes. docs/runs.md, "Timing across machine classes", keeps the numbers.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV_DIR = Path(__file__).resolve().parents[1]
CANARY = "ecca2186-2e7c-42f5-b36a-c361cba02702"
sys.path.insert(0, str(ENV_DIR / "grader"))
sys.path.insert(0, str(ENV_DIR / "reference"))

import score  # noqa: E402
from unpack import unpack  # noqa: E402


def scored(variant: str, solution: Path) -> tuple[float, dict[str, Any]]:
    """One full scoring call: its raw score (ln ms) and the machine the grader recorded (its details), or an
    exception naming why it was not scored."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        score.main(["--variant", variant, "--solution", str(solution), "--result", str(result)])
        data = json.loads(result.read_text())
    outcome = data["outcome"]
    if outcome.get("kind") != "scored":
        raise RuntimeError(f"{solution}: not scored: {outcome}")
    return float(outcome["value"]), data["details"].get("machine", {})


def summary(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values), "std": statistics.stdev(values) if len(values) > 1 else 0.0,
            "n": len(values)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", default="mini", choices=["mini", "gpu"])
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--json", help="write the measurements here (after every pair)")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        ref_dir = unpack(Path(tmp) / "ref") / args.variant
        solutions = {"start": ENV_DIR / "workspace" / args.variant / "solution" / "solution.py",
                     "reference": ref_dir / "solution.py"}
        data: dict[str, Any] = {"canary": CANARY, "variant": args.variant, "machine": {},
                                "started": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                                "loadavg_before": Path("/proc/loadavg").read_text().split()[:3],
                                "start": [], "reference": []}
        for i in range(args.pairs):
            order = ["start", "reference"] if i % 2 == 0 else ["reference", "start"]
            for name in order:
                value, data["machine"] = scored(args.variant, solutions[name])
                data[name].append(value)
            print(f"pair {i + 1}/{args.pairs}: start {data['start'][-1]:.4f}, reference {data['reference'][-1]:.4f}",
                  file=sys.stderr)
            if args.json:
                Path(args.json).write_text(json.dumps(data, indent=1))
    data["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
    diffs = [r - s for s, r in zip(data["start"], data["reference"])]
    data["summary"] = {"start": summary(data["start"]), "reference": summary(data["reference"]),
                       "reference_minus_start": summary(diffs)}
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=1))
    machine = data["machine"]
    print(f"{machine.get('gpu') or machine.get('cpu')}, {machine.get('cpus') or os.cpu_count()} CPUs, load {' '.join(data['loadavg_before'])} -> "
          f"{' '.join(data['loadavg_after'])}")
    print("| what | mean | std | n |\n|---|---|---|---|")
    for key, s in data["summary"].items():
        print(f"| {key} | {s['mean']:.4f} | {s['std']:.4f} | {s['n']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
