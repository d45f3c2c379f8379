"""The gpu and paper variants' code on CPU stand-ins: the gpu profile's set-up and grader with its 50,257-id
vocabulary on random stand-in tokens (scaled-down model and evaluation, CPU device), its CUDA check, and the
paper profile's OpenWebText loading through a stand-in ``datasets`` module.

Canary 16ff82f0-58a9-4f41-9f1d-e58252fd5f1f: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch
from rmlm_helpers import ENV_DIR, GRADER_DIR, env_score, env_setup, write_environment_secret

from rebench_env.tokens import read_tokens


def profile(name: str, **changes):
    return dataclasses.replace(env_setup.load_profile(GRADER_DIR / "profiles.json", name), **changes)


def lay_out(root: Path) -> tuple[Path, Path]:
    protected, workspace = root / "protected", root / "workspace"
    write_environment_secret(protected)
    shutil.copytree(GRADER_DIR, protected / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ENV_DIR / "workspace", workspace, ignore=shutil.ignore_patterns("__pycache__"))
    return protected, workspace


def test_gpu_profile_is_the_original_protocol() -> None:
    gpu = profile("gpu")
    assert (gpu.eval["batches"], gpu.eval["batch_size"], gpu.seq_len, gpu.vocab_size) == (2000, 8, 128, 50257)
    assert gpu.eval["device"] == "cuda" and gpu.tokens == {"asset": "tokens-gpt2-keyed"}
    assert (gpu.start_model["d_embed"], gpu.start_model["d_hidden"], gpu.start_model["steps"], gpu.start_model["batch_size"]) == (256, 2048, 500, 16)


def test_gpu_code_on_a_cpu_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The gpu profile's vocabulary (50,257 ids, mask id 50256) through set-up, export and grader, on stand-in tokens and the CPU."""
    monkeypatch.setenv("REBENCH_AS_AGENT_UNSANDBOXED", "1")
    protected, workspace = lay_out(tmp_path)
    asset = protected / "assets" / "tokens-gpt2-keyed"
    asset.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for split, n in (("train", 40_000), ("val", 8_000), ("test", 8_000)):
        rng.integers(0, 50256, n, dtype=np.uint16).tofile(asset / f"{split}.bin")
    (asset / "meta.json").write_text(json.dumps({"tokenizer": "gpt2", "vocab_size": 50257, "eot_id": 50256}))
    stand_in = profile("gpu", start_model={"d_embed": 8, "d_hidden": 16, "steps": 2, "batch_size": 2, "lr": 0.001}, eval={"batches": 2, "batch_size": 2, "device": "cpu", "threads": 1})
    env_setup.setup(stand_in, protected, workspace)
    assert json.loads((workspace / "data" / "meta.json").read_text())["mask_id"] == 50256
    outcome, message, details = env_score.score(workspace, protected, False)
    assert outcome["kind"] == "scored", (outcome, details)
    assert details["loss"] > math.log(50257) - 1.0  # an untrained model on random ids: about uniform
    grading = json.loads((protected / "state" / "grading.json").read_text())
    grading["eval"]["device"] = "cuda"
    (protected / "state" / "grading.json").write_text(json.dumps(grading))
    if not torch.cuda.is_available():
        outcome, _, _ = env_score.score(workspace, protected, False)
        assert outcome["kind"] == "error" and "CUDA" in outcome["message"]


def test_paper_loads_openwebtext_and_gives_the_agent_part_of_train(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, assets_home: Path) -> None:
    calls: dict[str, object] = {}

    class Split(list):
        def train_test_split(self, test_size, seed, shuffle):
            calls.update(test_size=test_size, seed=seed, shuffle=shuffle)
            return {"train": Split(self[:300]), "test": Split(self[300:])}

    fake = types.ModuleType("datasets")
    fake.load_dataset = lambda name, num_proc, trust_remote_code: calls.update(name=name) or {"train": Split({"text": f"document number {i} of the stand-in web text"} for i in range(400))}
    monkeypatch.setitem(sys.modules, "datasets", fake)
    protected, workspace = lay_out(tmp_path)
    tokenizer = Path(assets_home / "assets" / "tokenizer-bpe512-tiny")
    shutil.copytree(tokenizer, protected / "assets" / "tokenizer-gpt2")
    paper = profile("paper", vocab_size=512, seq_len=16, start_model={"d_embed": 8, "d_hidden": 16, "steps": 2, "batch_size": 2, "lr": 0.001},
                    eval={"batches": 2, "batch_size": 2, "device": "cpu", "threads": 1})
    assert profile("paper").tokens == {"openwebtext": {"test_size": 0.0005, "seed": 2357}}
    env_setup.setup(paper, protected, workspace)
    assert calls == {"name": "openwebtext", "test_size": 0.0005, "seed": 2357, "shuffle": True}
    hidden = read_tokens(protected / "data" / "val.bin")
    train = read_tokens(workspace / "data" / "train.bin")
    own = read_tokens(workspace / "data" / "val.bin")
    assert len(hidden) > 0 and 0 < len(own) < len(train)
    assert json.loads((workspace / "data" / "meta.json").read_text())["vocab_size"] == 512
    assert bytes(hidden) not in bytes(train) + bytes(own)
