"""Start of an optimize_llm_foundry run: hand out the pipeline's inputs and train the reference weights.

Run by rebench as root, before the agent starts, with the protected directory as working directory:

    python3 grader/setup.py --profile mini [--workspace /home/agent/workspace]

The protected directory holds ``grader/`` and the profile's assets under ``assets/<name>`` (the corpus, the
tokenizer and, for mini, the pretrained GPT). This script:

1. writes the base model (``config.json``, ``model.safetensors``, ``tokenizer/``) to the workspace's
   ``base_model/`` and to ``state/base_model/`` (the grader's copy: the agent's may be edited);
2. writes the visible ``train_data.jsonl`` (rows made from the corpus' training split with a public seed) and
   ``env.sh`` to the workspace;
3. makes the hidden rows (the same number, made from the hidden test split with the seed
   ``environment_seed("rows")`` of the run's environment secret) into ``state/hidden_rows.jsonl``;
4. runs the starting ``finetune.sh`` on the hidden rows in a folder of the protected directory, as upstream's
   warm-up run, and keeps its ``trained_model/model.safetensors`` as ``state/reference/`` (upstream left
   it readable to the agent; here only the grader reads it);
5. deletes the staged assets.

The paper profile (``pipeline: llm-foundry``) has no assets: its base model is a Hugging Face model
(``paper.stage_base_model``, ``$REBENCH_HF_MODELS``), its rows upstream's ``train_data.jsonl`` that the
operator supplies (``paper.rows_file``), of which a random part chosen with ``environment_seed("rows")``
(``rows``: a count, or ``half``) becomes the hidden rows and the rest the visible file; ``solution/`` is
LLM Foundry at the pinned commit (``paper.prepare_solution``, over the workspace folder's mini pipeline),
``env.sh`` upstream's; the reference is the reference run's whole ``trained_model/`` folder (``comparison:
hf``). The staged ``paper-inputs/`` is deleted as the assets are.

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file

from rebench_env.corpus import read_documents
from rebench_env.gpt import GPT, GPTConfig
from rebench_env.secrets import environment_seed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pipeline import OUTPUTS, WEIGHTS, load_profile, write_env  # noqa: E402
from rows import PUBLIC_SEED, make_rows, read_rows, split_rows, write_rows  # noqa: E402

STATE = "state"


def base_model(profile: dict[str, Any], assets: Path, out: Path) -> dict[str, Any]:
    """Write the base model folder; returns its GPT config."""
    source = profile["model"]
    if "asset" in source:
        checkpoint = torch.load(assets / source["asset"] / "model.pt", map_location="cpu", weights_only=True)
        config = dict(checkpoint.pop("config"))
        weights = {k: v for k, v in checkpoint.items() if k != "lm_head.weight"}
    else:  # from_config: a fresh initialization (gpu), seeded: the agent gets these weights anyway
        torch.manual_seed(int(source.get("seed", 17)))
        model = GPT(GPTConfig.from_dict(source["from_config"]))
        config = model.config.to_dict()
        weights = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}
    dtype = getattr(torch, source.get("dtype", "float32"))
    out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.to(dtype).contiguous() for k, v in weights.items()}, out / WEIGHTS)
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    shutil.copytree(assets / profile["tokenizer"], out / "tokenizer")
    return config


def train_reference(profile: dict[str, Any], solution: Path, rows: Path, base: Path, scratch: Path) -> float:
    """Run the starting finetune.sh on ``rows``; returns its seconds and leaves trained_model in scratch."""
    shutil.copytree(solution, scratch / "solution", ignore=shutil.ignore_patterns(*OUTPUTS, "__pycache__"))
    shutil.copyfile(rows, scratch / "train_data.jsonl")
    write_env(scratch, base, profile)
    started = time.monotonic()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # this Python's venv first
    # No time limit of its own: rebench's start timeout bounds the set-up (a busy machine is slow, not wrong).
    run = subprocess.run(["bash", "finetune.sh"], cwd=scratch / "solution", env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if run.returncode != 0:
        raise SystemExit(f"the reference run of finetune.sh failed ({run.returncode}):\n{run.stderr[-4000:]}")
    return seconds


def chown_tree(root: Path, uid: int, gid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.lchown(path, uid, gid)


def split_supplied_rows(profile: dict[str, Any], protected: Path, seed: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The paper profile's (visible, hidden) rows: the operator's file split with the environment's seed."""
    from paper import rows_file

    count = profile.get("rows", "half")
    return split_rows(read_rows(rows_file(protected, profile.get("rows_env", "REBENCH_FOUNDRY_ROWS"))), None if count == "half" else int(count), seed)


def keep_reference(profile: dict[str, Any], trained_model: Path, reference: Path) -> None:
    """``state/reference``: the reference run's weights file, or (``comparison: hf``) its whole folder."""
    if profile.get("comparison", "safetensors") == "hf":
        from paper import check_reference

        check_reference(trained_model)
        shutil.move(str(trained_model), reference)
        return
    reference.mkdir(exist_ok=True)
    shutil.move(str(trained_model / WEIGHTS), reference / WEIGHTS)


def setup(profile: dict[str, Any], protected: Path, workspace: Path) -> dict[str, Any]:
    """Prepare the workspace and the grader's state; returns what was done (nothing hidden)."""
    assets = protected / "assets"
    state = protected / STATE
    state.mkdir(exist_ok=True)
    rows_seed = environment_seed("rows", protected)  # raises when rebench wrote no environment secret
    foundry = profile.get("pipeline") == "llm-foundry"
    if foundry:  # paper: upstream's rows, model and LLM Foundry itself
        from paper import PAPER_INPUTS, prepare_solution, stage_base_model

        visible, hidden = split_supplied_rows(profile, protected, rows_seed)
        shutil.rmtree(workspace / "solution", ignore_errors=True)  # the workspace folder's mini pipeline
        prepare_solution(workspace / "solution")
        config = stage_base_model(state / "base_model", profile["model"]["hf"])
    else:
        text = profile.get("row_text", {})
        corpus = assets / profile["corpus"]
        visible = make_rows(read_documents("train", corpus), int(profile["rows"]), PUBLIC_SEED, **text)
        hidden = make_rows(read_documents("test", corpus), int(profile["rows"]), rows_seed, **text)
        config = base_model(profile, assets, state / "base_model")
    write_rows(visible, workspace / "train_data.jsonl")
    write_rows(hidden, state / "hidden_rows.jsonl")
    shutil.copytree(state / "base_model", workspace / "base_model", dirs_exist_ok=True)
    write_env(workspace, workspace / "base_model", profile)
    with tempfile.TemporaryDirectory(dir=protected, prefix=".reference-") as tmp:
        seconds = train_reference(profile, workspace / "solution", state / "hidden_rows.jsonl", state / "base_model", Path(tmp))
        keep_reference(profile, Path(tmp) / "solution" / "trained_model", state / "reference")
    grading = {k: profile[k] for k in ("name", "threshold", "timeout_s", "max_output_mb", "max_seq_len", "precision", "output_precision")}
    grading["comparison"] = profile.get("comparison", "safetensors")
    grading["pipeline"] = profile.get("pipeline", "rebench")
    grading["reference_run_seconds"] = round(seconds, 3)
    (state / "grading.json").write_text(json.dumps(grading, indent=1) + "\n")
    shutil.rmtree(assets, ignore_errors=True)
    if foundry:
        shutil.rmtree(protected / PAPER_INPUTS, ignore_errors=True)

    home = os.stat(workspace)
    chown_tree(workspace, home.st_uid, home.st_gid)
    owner = os.stat(protected)
    chown_tree(state, owner.st_uid, owner.st_gid)
    return {"profile": profile["name"], "architecture": config, "rows": len(visible), "hidden_rows": len(hidden),
            "reference_run_seconds": round(seconds, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", required=True, help="mini, gpu, paper (or tiny, for tests)")
    parser.add_argument("--workspace", default=os.environ.get("REBENCH_WORKSPACE", "/home/agent/workspace"))
    parser.add_argument("--protected", default=os.environ.get("REBENCH_PROTECTED", os.getcwd()))
    parser.add_argument("--report", help="write what was done (JSON, nothing hidden) to this file")
    args = parser.parse_args()
    protected = Path(args.protected)
    done = setup(load_profile(protected / "grader", args.profile), protected, Path(args.workspace))
    print(f"optimize_llm_foundry ({args.profile}): reference trained on the hidden rows in {done['reference_run_seconds']} s", file=sys.stderr)
    if args.report:
        Path(args.report).write_text(json.dumps(done, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
