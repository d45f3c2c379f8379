"""Runs the real grader N times on the starting and the reference solution; mean and std of the scores.

    python environments/optimize_kernel/bench/calibrate.py --variant gpu --runs 5 --entry gpu-entry.json

Each run is a full scoring call (a fresh process for the agent's code, the sanity call, 4 warm-up and 5
timed rounds of the variant's calls per round; score = ln ms of the median timed round's time per call)
on a copy of the solution in a fresh folder, the agent's code in a plain subprocess (no sandbox).
`rebench calibrate` does the same through the sandbox where Node runs; this script is for machines
without it. `--entry` writes the numbers as a `calibration.json` variant entry (`VariantCalibration` in
src/core/calibration.ts: machine, date, runs, start, reference, gapOverStd, note), which goes into the file
under the variant and its machine's class ("gpu": {"NVIDIA H200": ENTRY}; docs/runs.md, "Machine classes"). `--overhead-runs K`
also scores the reference K times at n = 1024, where the kernel costs microseconds: the median time per
call there is the protocol's overhead per call (go -> done -> challenge answered, over a round's calls).
`--calls-per-round` overrides the variant's. Prints a table last.

Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
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
REPO = ENV_DIR.parents[1]
sys.path.insert(0, str(ENV_DIR / "reference"))
import unpack  # noqa: E402


def score_once(solution_dir: Path, variant: str, n: int | None, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="kernel-calibrate-"))
    try:
        os.chmod(work, 0o755)
        shutil.copytree(solution_dir, work / "solution")
        result = work / "result.json"
        argv = [sys.executable, str(ENV_DIR / "grader" / "score.py"), "--variant", variant,
                "--solution", str(work / "solution" / "solution.py"), "--result", str(result)]
        subprocess.run(argv + (["--n", str(n)] if n else []) + list(extra), check=True, timeout=900)
        return json.loads(result.read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def stats(values: list[float]) -> dict[str, Any]:
    return {"mean": statistics.mean(values), "std": statistics.stdev(values), "n": len(values), "values": values}


def series(name: str, folder: Path, variant: str, runs: int, n: int | None,
           extra: tuple[str, ...] = ()) -> tuple[list[float], list[dict[str, Any]]]:
    scores, records = [], []
    for i in range(runs):
        result = score_once(folder, variant, n, extra)
        if result["outcome"]["kind"] != "scored":
            raise SystemExit(f"{name} run {i + 1} was not scored: {result['outcome']}")
        timed = [c for c in result["details"]["calls"] if c["phase"].startswith("timed ")]
        record = {"score": result["outcome"]["value"], "time_ms": result["details"]["time_ms"],
                  "calls_per_round": result["details"].get("calls_per_round", 1),
                  "timed_ms": [c["per_call_ms"] for c in timed],
                  "go_to_done_ms": [c["go_to_done_ms"] / c["count"] for c in timed],
                  "copy_floor_ms": result["details"].get("copy_floor_ms"), "machine": result["details"]["machine"]}
        scores.append(record["score"])
        records.append(record)
        print(f"{name} run {i + 1}: ln ms = {record['score']:.4f} (median {record['time_ms']:.3f} ms of "
              f"{', '.join(f'{t:.3f}' for t in record['timed_ms'])})", flush=True)
    return scores, records


def machine_info(commit: str | None) -> dict[str, Any]:
    """The machine as rebench's MachineInfo records it (src/core/machine.ts)."""
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal"))
    try:
        gpus = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=15).stdout.split("\n")
    except OSError:
        gpus = []
    gpus = [g.strip() for g in gpus if g.strip()]
    pretty = ""
    if Path("/etc/os-release").exists():
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                pretty = f" ({line.split('=', 1)[1].strip(chr(34))})"
    version = json.loads((REPO / "package.json").read_text()).get("version", "unknown") \
        if (REPO / "package.json").exists() else "unknown"
    return {"cpuModel": " ".join(cpu.split()), "cores": len(os.sched_getaffinity(0)),
            "memoryGb": round(mem_kb * 1024 / 1024 ** 3, 1), "gpu": gpus[0] if gpus else None, "gpuCount": len(gpus),
            "os": f"{platform.system()} {platform.release()}{pretty}", "rebenchVersion": version,
            "rebenchCommit": commit}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", required=True, choices=["mini", "gpu"])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--n", type=int, help="input length (default: the variant's)")
    p.add_argument("--calls-per-round", type=int, help="calls per round (default: the variant's)")
    p.add_argument("--overhead-runs", type=int, default=0, help="reference runs at n = 1024 (protocol overhead)")
    p.add_argument("--reference-dir", help="unpacked reference archive (default: unpack to a temp folder)")
    p.add_argument("--json", help="write everything measured here")
    p.add_argument("--entry", help="write a calibration.json variant entry here")
    p.add_argument("--rebench-commit", help="the rebench commit the grader came from (recorded in --entry)")
    p.add_argument("--note", default="", help="free text recorded in --entry")
    args = p.parse_args()
    ref = Path(args.reference_dir) if args.reference_dir else unpack.unpack(tempfile.mkdtemp())
    extra = ("--calls-per-round", str(args.calls_per_round)) if args.calls_per_round else ()
    folders = {"start": ENV_DIR / "workspace" / args.variant / "solution", "reference": ref / args.variant}
    out: dict[str, Any] = {"variant": args.variant, "n": args.n, "load_average_before": os.getloadavg()}
    for name, folder in folders.items():
        scores, records = series(name, folder, args.variant, args.runs, args.n, extra)
        out[name] = {**stats(scores), "records": records}
    if args.overhead_runs:
        _, records = series("overhead", folders["reference"], args.variant, args.overhead_runs, 1024, extra)
        out["overhead"] = {"n": 1024, "records": records,
                           "median_ms": statistics.median(t for r in records for t in r["timed_ms"]),
                           "go_to_done_median_ms": statistics.median(t for r in records for t in r["go_to_done_ms"])}
    out["load_average_after"] = os.getloadavg()
    start, reference = out["start"], out["reference"]
    larger = max(start["std"], reference["std"])
    gap_over_std = abs(start["mean"] - reference["mean"]) / larger if larger > 0 else None
    out["gapOverStd"] = gap_over_std
    for name in folders:  # the spread of single calls inside a run, in ln ms: what the median of five damps
        within = [statistics.stdev([math.log(t) for t in r["timed_ms"]]) for r in out[name]["records"]]
        out[name]["within_run_std_ln"] = statistics.mean(within)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    if args.entry:
        entry = {"machine": machine_info(args.rebench_commit),
                 "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds"),
                 "runs": args.runs,
                 "start": {k: start[k] for k in ("mean", "std", "n", "values")},
                 "reference": {k: reference[k] for k in ("mean", "std", "n", "values")},
                 "gapOverStd": gap_over_std}
        if args.note:
            entry["note"] = args.note
        Path(args.entry).write_text(json.dumps(entry, indent=2) + "\n")
    print(f"\n{args.variant}, n = {args.n or 'the variant default'}, {args.runs} runs each; load "
          f"{out['load_average_before'][0]:.2f} -> {out['load_average_after'][0]:.2f}")
    print(f"{'solution':<10} {'ln ms mean':>10} {'std':>7} {'ms (median call) per run':<44} {'in-run std':>10}")
    for name in folders:
        s = out[name]
        per_run = ", ".join(f"{r['time_ms']:.3f}" for r in s["records"])
        print(f"{name:<10} {s['mean']:>10.4f} {s['std']:>7.4f} {per_run:<44} {s['within_run_std_ln']:>10.4f}")
    if "overhead" in out:
        o = out["overhead"]
        print(f"protocol overhead at n = 1024 (reference): timed call median {o['median_ms']:.4f} ms, "
              f"go -> done {o['go_to_done_median_ms']:.4f} ms")
    shown = "n/a" if gap_over_std is None else f"{gap_over_std:.1f}"
    print(f"gap / larger std = {shown} (needs >= 10)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
