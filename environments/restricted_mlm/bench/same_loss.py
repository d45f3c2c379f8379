"""The grader's masked loss of exported models, computed as the grader computes it now and as it did before.

    PYTHONPATH=python python3 environments/restricted_mlm/bench/same_loss.py --protected PROTECTED \
        --model start=WORKSPACE --model reference=WORKSPACE2 [--seeds 8] [--out same-loss-mini.json]

``PROTECTED`` is a protected directory after the set-up (``state/grading.json``, ``data/val.bin``: the
hidden split); each ``--model NAME=WORKSPACE`` is a workspace whose ``solution/model.py`` is exported with
``grader/exporter.py`` (as the developer, not jailed: this measures, it does not defend). For window seeds
0..``--seeds``-1 (each seed stands for one run's windows; the masking seed is the window seed + 1000, the
same for both ways) it computes:

- ``before``: as the grader did until the issue "Evaluation on a view of shared storage": every batch a view
  ``inputs[i:i+batch]`` of one tensor holding all masked windows, all rows in one pass (a minimal
  interpreter of the checked graph, without the grader's per-node checks, so that a graph reading past its
  batch reads what it read then);
- ``after``: ``grader/score.py``'s ``masked_loss`` (a tensor of its own for every batch, overlapping windows of
  a batch in separate passes), or the reason it is refused;

and ``passes``: the batches that needed more than one pass. For a model that computes each window on its own
(the starting model, the reference) the two agree to float precision; a model that copies across windows
gains only ``before``. Used for README.md ("Windows that overlap").

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

GRADER = Path(__file__).resolve().parents[1] / "grader"


def grader_score() -> Any:
    spec = importlib.util.spec_from_file_location("restricted_mlm_score", GRADER / "score.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def export(workspace: Path, grading: dict[str, Any], out: Path) -> None:
    job = {"workspace": str(workspace), "out": str(out), "batch_size": grading["eval"]["batch_size"], "seq_len": grading["seq_len"], "vocab_size": grading["vocab_size"]}
    done = subprocess.run([sys.executable, "-c", (GRADER / "exporter.py").read_text()], input=json.dumps(job), text=True, capture_output=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"export of {workspace} failed:\n{done.stderr[-3000:]}")


def run_on_view(checked_graph: Any, graph: Any, tokens: torch.Tensor) -> torch.Tensor:
    """The graph's output as the grader computed it before: no storage check, ``tokens`` as given (a view)."""
    env: dict[str, Any] = {name: tokens if key is None else graph.weights[key] for name, key in graph.inputs}
    ops = checked_graph.OPS

    def resolve(value: Any) -> Any:
        if isinstance(value, checked_graph.Ref):
            return env[value.name]
        return [resolve(v) for v in value] if isinstance(value, list) else value

    for name, op, args, kwargs in graph.nodes:
        env[name] = ops[op](*resolve(args), **{k: resolve(v) for k, v in kwargs.items()})
    return env[graph.output]


def loss_before(score: Any, graph: Any, windows: torch.Tensor, grading: dict[str, Any], mask_seed: int) -> float:
    inputs, mask = score.mask_windows(windows, grading["mask_id"], mask_seed)
    batch, losses = grading["eval"]["batch_size"], []
    with torch.no_grad():
        for i in range(0, len(windows), batch):
            m = mask[i : i + batch]
            if bool(m.any()):
                logits = run_on_view(score.checked_graph, graph, inputs[i : i + batch]).float()
                losses.append(F.cross_entropy(logits[m], windows[i : i + batch][m]).item())
    return sum(losses) / len(losses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protected", required=True, type=Path)
    parser.add_argument("--model", action="append", required=True, help="NAME=WORKSPACE (repeatable)")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--skip-before", action="append", default=[], help="a NAME not to compute the old way (slow models)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    score = grader_score()
    grading = json.loads((args.protected / "state" / "grading.json").read_text())
    if grading["eval"]["device"] == "cpu":
        torch.set_num_threads(grading["eval"].get("threads", 1))
    tokens = score.read_tokens(args.protected / "data" / "val.bin")
    ev, seq_len = grading["eval"], grading["seq_len"]
    count = ev["batches"] * ev["batch_size"]
    draws = [score.eval_windows(tokens, count, seq_len, seed) for seed in range(args.seeds)]
    passes = [
        sum(1 for i in range(0, count, ev["batch_size"]) if len(score.overlap_passes(starts[i : i + ev["batch_size"]], seq_len)) > 1) for _, starts in draws
    ]
    result: dict[str, Any] = {"profile": grading["profile"], "seeds": args.seeds, "batches_with_passes": passes, "models": {}}
    for spec in args.model:
        name, workspace = spec.split("=", 1)
        with tempfile.TemporaryDirectory() as tmp:
            export(Path(workspace), grading, Path(tmp))
            graph = score.checked_graph.load(Path(tmp), int(grading["max_export_mb"] * 2**20))
        rows = []
        for seed, (windows, starts) in enumerate(draws):
            row: dict[str, Any] = {"seed": seed}
            if name not in args.skip_before:
                row["before"] = loss_before(score, graph, windows, grading, seed + 1000)
            try:
                row["after"] = score.masked_loss(graph, windows, starts, grading, seed + 1000)
            except score.checked_graph.Refused as refused:
                row["after"] = f"invalid: {str(refused)[:160]}"
            if isinstance(row.get("before"), float) and isinstance(row["after"], float):
                row["difference"] = row["after"] - row["before"]
            rows.append(row)
            print(name, json.dumps(row), flush=True)
        diffs = [abs(r["difference"]) for r in rows if "difference" in r]
        result["models"][name] = {"rows": rows, "largest_difference": max(diffs) if diffs else None}
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
