"""Turn ``bench/gpu_calibrate.py`` run records into a calibration.json entry (src/core/calibration.ts).

    python3 environments/fix_embedding/bench/calibration_entry.py RUN.json... --variant gpu \
        --rebench-commit COMMIT [--note TEXT] [--floor F] [--entry FILE] [--write environments/fix_embedding/calibration.json]

The entry has the shape ``rebench calibrate --write`` gives (``VariantCalibration``): the machine as the
runs recorded it (plus rebench's version and the commit the scripts came from), the date the last run
ended, the run count, the start's and the reference's mean, sample standard deviation, count and values in
run order, and gap / larger standard deviation (rounded as rebench rounds it). A run without a start or a
reference score (or with an error) is left out and named. ``--floor F`` rescores every valid call as
ln(validation loss - F) from the loss the grader recorded, which is what the grader gives with that floor
(the loss does not depend on it): for a floor re-estimated after the runs. ``--entry`` writes the entry alone; ``--write``
puts it into calibration.json as the entry of its machine's class (the GPU model: ``gpu_class``, as
src/core/machine-class.ts derives it), replacing that class's entry and keeping the others; with neither it is
printed. Prints the runs as a table.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
GAP_FACTOR = 10  # CALIBRATION_GAP_FACTOR in src/core/calibration.ts
VARIANTS = ("mini", "gpu", "paper")  # CalibrationFile's keys


def gpu_class(name: str) -> str:
    """The machine class of a GPU (gpuFamily in src/core/machine-class.ts): nvidia-smi's name less its memory."""
    words = [re.sub(r"-\d+GB$", "", w, flags=re.IGNORECASE) for w in name.split()]
    return " ".join(w for w in words if not re.fullmatch(r"\d+GB", w, re.IGNORECASE) and not re.fullmatch(r"HBM\d*e?", w, re.IGNORECASE))


def stats(values: list[float]) -> dict[str, Any]:
    return {"mean": statistics.mean(values), "std": statistics.stdev(values), "n": len(values), "values": values}


def rescored(record: dict[str, Any], floor: float) -> dict[str, Any]:
    """The run with each valid call's score recomputed as the grader would with ``floor``: ln(loss_validation - floor),
    less ln(original_val_loss - floor) where the call recorded the original's loss (a variant with a yardstick);
    start and reference again."""
    out = copy.deepcopy(record)
    values = []
    for call in out.get("scores", []):
        if call["outcome"]["kind"] == "scored":
            val = call["details"]["losses"]["val"]
            original = call["details"].get("original_val_loss")
            if min(val, original if original is not None else val) <= floor:
                raise ValueError(f"validation loss {val} (original {original}) is at or under the floor {floor}")
            call["outcome"]["value"] = math.log(val - floor) - (math.log(original - floor) if original is not None else 0.0)
            call["details"]["floor"] = floor
            values.append(call["outcome"]["value"])
    first = out["scores"][0]["outcome"] if out.get("scores") else None
    out["start"] = first["value"] if first and first["kind"] == "scored" else None
    out["reference"] = min(values) if len(out.get("scores", [])) > 1 and values else None
    return out


def entry_of(runs: list[dict[str, Any]], commit: str | None, note: str) -> dict[str, Any]:
    """The VariantCalibration of complete runs (at least two)."""
    if len(runs) < 2:
        raise ValueError(f"a calibration needs at least 2 complete runs, got {len(runs)}")
    start = stats([r["start"] for r in runs])
    reference = stats([r["reference"] for r in runs])
    larger = max(start["std"], reference["std"])
    version = json.loads((REPO / "package.json").read_text()).get("version", "unknown") if (REPO / "package.json").exists() else "unknown"
    machine = {**runs[0]["machine"], "rebenchVersion": version, "rebenchCommit": commit}
    entry = {"machine": machine, "date": max(r["ended"] for r in runs), "runs": len(runs), "start": start, "reference": reference,
             "gapOverStd": None if larger == 0 else round(abs(reference["mean"] - start["mean"]) / larger, 4)}
    if note:
        entry["note"] = note
    return entry


def table(records: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [f"{'run':<28} {'start':>8} {'val':>8} {'reference':>10} {'val':>8} {'setup s':>8} {'reference s':>11}  error"]
    for name, r in records:
        losses = [(l or {}).get("val") for l in r.get("losses", [])]
        steps = {s["step"]: s["seconds"] for s in r.get("steps", []) if s["step"] in ("setup", "bash")}

        def show(v: float | None, width: int, digits: int = 4) -> str:
            return f"{v:>{width}.{digits}f}" if isinstance(v, (int, float)) else f"{'-':>{width}}"

        lines.append(f"{name:<28} {show(r.get('start'), 8)} {show(losses[0] if losses else None, 8)} {show(r.get('reference'), 10)} "
                     f"{show(losses[-1] if len(losses) > 1 else None, 8)} {show(steps.get('setup'), 8, 1)} {show(steps.get('bash'), 11, 1)}  {r.get('error', '')}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="run records written by gpu_calibrate.py --out")
    parser.add_argument("--variant", default="gpu", help="the entry's variant (tiny: only with --entry, for tests)")
    parser.add_argument("--rebench-commit", help="the rebench commit the scripts came from")
    parser.add_argument("--note", default="", help="free text recorded in the entry (how it was measured)")
    parser.add_argument("--write", type=Path, help="calibration.json to put the entry into")
    parser.add_argument("--floor", type=float, help="rescore with this floor from the recorded validation losses")
    parser.add_argument("--entry", type=Path, help="write the entry alone (JSON) to this file")
    args = parser.parse_args()
    if args.write and args.variant not in VARIANTS:
        parser.error(f"calibration.json holds {', '.join(VARIANTS)} only, not {args.variant!r}")
    records = [(str(path), json.loads(path.read_text())) for path in args.runs]
    if args.floor is not None:
        records = [(name, rescored(r, args.floor)) for name, r in records]
    print(table(records))
    complete = [r for _, r in records if r.get("start") is not None and r.get("reference") is not None and "error" not in r]
    for name, r in records:
        if not any(r is c for c in complete):
            print(f"left out {name}: {r.get('error') or 'no start or reference score'}", file=sys.stderr)
    entry = entry_of(complete, args.rebench_commit, args.note)
    gap = entry["gapOverStd"]
    print(f"start {entry['start']['mean']:.4f} ± {entry['start']['std']:.4f}, reference {entry['reference']['mean']:.4f} ± {entry['reference']['std']:.4f}, "
          f"gap / larger std = {'n/a (both 0)' if gap is None else gap} (needs >= {GAP_FACTOR})")
    if args.entry:
        args.entry.write_text(json.dumps(entry, indent=2) + "\n")
    if args.write:
        if not entry["machine"].get("gpu"):
            parser.error("the runs recorded no GPU: a gpu entry's machine class is its GPU model")
        machine_class = gpu_class(entry["machine"]["gpu"])
        current = json.loads(args.write.read_text()) if args.write.exists() else {}
        classes = {**current.get(args.variant, {}), machine_class: entry}
        current[args.variant] = {key: classes[key] for key in sorted(classes)}
        args.write.write_text(json.dumps(current, indent=2) + "\n")
        print(f"wrote the {args.variant} entry of {machine_class} into {args.write}")
    if not args.entry and not args.write:
        print(json.dumps(entry, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
