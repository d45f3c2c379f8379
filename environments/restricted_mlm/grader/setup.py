"""Start of a restricted_mlm run: hand out the training data and train the starting model.

Run by rebench as root, before the agent starts, with the protected directory as working directory:

    python3 grader/setup.py --profile mini [--workspace /home/agent/workspace]

The protected directory holds ``grader/`` and the profile's token asset under ``assets/<name>`` (copied
there by rebench, readable by the grader and root only). This script:

1. copies the asset's ``train.bin`` to the workspace as ``data/train.bin`` and its ``test.bin`` as
   ``data/val.bin`` (the agent's own held-out text; OpenWebText has no test split: the last 1% of its train
   split instead), with ``data/meta.json``;
2. keeps the asset's ``val.bin`` in ``data/`` of the protected directory: the hidden split the grader
   draws its evaluation windows from (the windows' seed comes from the run's environment secret);
3. writes ``solution/config.json`` (vocabulary, sequence length, the starting model's sizes) and trains
   the starting model with ``solution/train.py`` (the original's flattened MLP) into
   ``solution/basic_model.pt``; writes ``state/grading.json`` for the grader;
4. deletes the staged assets.

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rebench_env.secrets import environment_secret

sys.path.insert(0, str(Path(__file__).resolve().parent))
from profiles import Profile, load_profile  # noqa: E402


def token_splits(profile: Profile, assets: Path, scratch: Path) -> Path:
    """The folder holding ``train.bin``, ``val.bin`` (hidden), maybe ``test.bin``, and ``meta.json``."""
    tokens = profile.tokens
    if "asset" in tokens:
        return assets / tokens["asset"]
    if "openwebtext" in tokens:
        from rebench_env.openwebtext import prepare_openwebtext

        out = scratch / "openwebtext"
        prepare_openwebtext(out, tokenizer_dir=assets / "tokenizer-gpt2", **tokens["openwebtext"])
        return out
    raise ValueError(f"unknown tokens source {tokens}")


def chown_tree(root: Path, uid: int, gid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.lchown(path, uid, gid)


def agent_splits(tokens_dir: Path, dest: Path, fraction: float = 0.01) -> None:
    """The agent's ``train.bin`` and ``val.bin``: the asset's train and test splits, or (OpenWebText has no test
    split) the train split less its last ``fraction``, and that last part."""
    if (tokens_dir / "test.bin").exists():
        shutil.copyfile(tokens_dir / "train.bin", dest / "train.bin")
        shutil.copyfile(tokens_dir / "test.bin", dest / "val.bin")
        return
    import numpy as np

    train = np.memmap(tokens_dir / "train.bin", dtype=np.uint16, mode="r")
    cut = len(train) - max(1, int(len(train) * fraction))
    train[:cut].tofile(dest / "train.bin")
    train[cut:].tofile(dest / "val.bin")


def train_starting_model(profile: Profile, workspace: Path) -> str:
    s = profile.start_model
    command = [sys.executable, "solution/train.py", "--steps", str(s["steps"]), "--batch-size", str(s["batch_size"]), "--lr", str(s["lr"])]
    command += ["--seed", str(int.from_bytes(os.urandom(4), "little"))]
    if profile.eval["device"] == "cpu":
        command += ["--threads", str(profile.eval.get("threads", 1))]
    done = subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"training the starting model failed:\n{done.stderr[-4000:]}")
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def setup(profile: Profile, protected: Path, workspace: Path) -> dict[str, Any]:
    """Prepare the workspace and the grader's state; returns what was done (no secrets)."""
    environment_secret(protected)  # raises when rebench did not write it: the grader would have no windows
    assets = protected / "assets"
    state, data = protected / "state", protected / "data"
    state.mkdir(exist_ok=True)
    data.mkdir(exist_ok=True)
    (workspace / "data").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=protected, prefix=".setup-") as tmp:
        tokens_dir = token_splits(profile, assets, Path(tmp))
        shutil.copyfile(tokens_dir / "val.bin", data / "val.bin")
        agent_splits(tokens_dir, workspace / "data")
        meta = json.loads((tokens_dir / "meta.json").read_text()) if (tokens_dir / "meta.json").exists() else {}
    vocab = int(meta.get("vocab_size", profile.vocab_size))
    if vocab != profile.vocab_size:
        raise RuntimeError(f"the token asset has {vocab} ids, the profile says {profile.vocab_size}")
    public = {"tokenizer": meta.get("tokenizer"), "vocab_size": vocab, "mask_id": vocab - 1, "seq_len": profile.seq_len, "dtype": "uint16"}
    (workspace / "data" / "meta.json").write_text(json.dumps(public, indent=1) + "\n")
    config = {"vocab_size": vocab, "seq_len": profile.seq_len, "d_embed": profile.start_model["d_embed"], "d_hidden": profile.start_model["d_hidden"]}
    (workspace / "solution" / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    trained = train_starting_model(profile, workspace)
    grading = {"profile": profile.name, "vocab_size": vocab, "mask_id": vocab - 1, "seq_len": profile.seq_len, "floor": profile.floor,
               "eval": profile.eval, "max_export_mb": profile.max_export_mb, "export_timeout_s": profile.export_timeout_s}
    (state / "grading.json").write_text(json.dumps(grading, indent=1) + "\n")
    shutil.rmtree(assets, ignore_errors=True)
    home = os.stat(workspace)
    chown_tree(workspace, home.st_uid, home.st_gid)
    owner = os.stat(protected)
    chown_tree(state, owner.st_uid, owner.st_gid)
    chown_tree(data, owner.st_uid, owner.st_gid)
    return {"profile": profile.name, "config": config, "starting_model": trained}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", required=True, help="mini, gpu, paper (or tiny, for tests)")
    parser.add_argument("--workspace", default=os.environ.get("REBENCH_WORKSPACE", "/home/agent/workspace"))
    parser.add_argument("--protected", default=os.environ.get("REBENCH_PROTECTED", os.getcwd()))
    parser.add_argument("--report", help="write what was done (JSON, no secrets) to this file")
    args = parser.parse_args()
    protected = Path(args.protected)
    done = setup(load_profile(protected / "grader" / "profiles.json", args.profile), protected, Path(args.workspace))
    print(f"restricted_mlm ({args.profile}): data/train.bin and data/val.bin in the workspace; starting model trained: {done['starting_model']}", file=sys.stderr)
    if args.report:
        Path(args.report).write_text(json.dumps(done, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
