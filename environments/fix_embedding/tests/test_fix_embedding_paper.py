"""The paper variant's loading code on stand-ins: a tiny GPT2LMHeadModel saved by transformers, a fake
`datasets` module, a handful of documents. The real gpt2 / gpt2-xl / OpenWebText are never fetched here.

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import sys
import types

import pytest
import torch
from fix_embedding_helpers import GRADER_DIR, Sandbox, load, env_score, env_setup

from rebench_env.assets import require_asset
from rebench_env.gpt import GPT
from rebench_env.tokenizer import load_tokenizer
from rebench_env.tokens import read_tokens

transformers = pytest.importorskip("transformers")
paper = load("fix_embedding_paper", GRADER_DIR / "paper.py")


def standin(path, layers, embd, activation="gelu_new"):
    config = transformers.GPT2Config(vocab_size=512, n_positions=32, n_layer=layers, n_head=2, n_embd=embd, activation_function=activation)
    torch.manual_seed(layers)
    model = transformers.GPT2LMHeadModel(config).eval()
    model.save_pretrained(path)
    return model


def test_hf_checkpoint_converts_gpt2_weights_to_our_gpt_with_equal_logits(tmp_path, monkeypatch):
    hf = standin(tmp_path / "gpt2-standin", 2, 32, activation="gelu")  # our GPT uses the exact GELU, as nanoGPT
    monkeypatch.setenv("REBENCH_HF_MODELS", str(tmp_path))
    checkpoint = paper.hf_checkpoint("gpt2-standin")
    assert checkpoint["config"] == {"block_size": 32, "vocab_size": 512, "n_layer": 2, "n_head": 2, "n_embd": 32, "dropout": 0.0, "bias": True}
    ours = GPT.from_state_dict(checkpoint).eval()
    idx = torch.randint(0, 512, (2, 16), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.allclose(ours(idx)[0], hf(idx).logits, atol=1e-4)
    assert torch.equal(checkpoint["transformer.wte.weight"], checkpoint["lm_head.weight"])


def test_the_paper_set_up_corrupts_an_hf_model_in_fp16_and_the_grader_scores_it(tmp_path, assets_home, monkeypatch):
    standin(tmp_path / "hf" / "gpt2", 1, 16)
    standin(tmp_path / "hf" / "gpt2-xl", 2, 32)
    monkeypatch.setenv("REBENCH_HF_MODELS", str(tmp_path / "hf"))
    profiles = json.loads((GRADER_DIR / "profiles.json").read_text())["profiles"]
    paper_like = dict(profiles["paper"], tokens=profiles["tiny"]["tokens"], eval=profiles["tiny"]["eval"], max_model_mb=4)
    monkeypatch.setattr(env_setup, "load_profile", lambda path, name: env_setup.Profile(name="paper", **paper_like))
    box = Sandbox(tmp_path / "box", assets_home, profile="paper")
    large = torch.load(box.workspace / "large_model.pth", weights_only=True)
    assert large["transformer.wte.weight"].dtype == torch.float16 and large["config"]["n_layer"] == 2
    assert torch.load(box.workspace / "small_correct_model.pth", weights_only=True)["config"]["n_embd"] == 16
    outcome, message, _ = env_score.score(box.workspace, box.protected, False)
    assert outcome["kind"] == "scored" and message["loss_validation"] > 5


def test_write_splits_writes_ids_and_end_of_text_per_document(tmp_path, assets_home):
    tokenizer_dir = require_asset("tokenizer-bpe512-tiny", assets_home)
    counts = paper.write_splits({"train": iter(["In the beginning", "God created"]), "val": iter(["the heaven"])}, tmp_path, tokenizer_dir)
    train = read_tokens(tmp_path / "train.bin")
    tokenizer = load_tokenizer(tokenizer_dir)
    assert list(train) == [*tokenizer.encode("In the beginning"), 511, *tokenizer.encode("God created"), 511]
    assert counts == {"train": len(train), "val": len(read_tokens(tmp_path / "val.bin"))}
    assert json.loads((tmp_path / "meta.json").read_text())["eot_id"] == 511


def test_prepare_openwebtext_splits_as_nanogpt_and_names_the_held_out_part_val(tmp_path, assets_home, monkeypatch):
    calls = {}

    class Split(list):
        def train_test_split(self, test_size, seed, shuffle):
            calls.update(test_size=test_size, seed=seed, shuffle=shuffle)
            return {"train": Split(self[:3]), "test": Split(self[3:])}

    fake = types.ModuleType("datasets")
    fake.load_dataset = lambda name, num_proc, trust_remote_code: calls.update(name=name) or {"train": Split({"text": f"document {i}"} for i in range(4))}
    monkeypatch.setitem(sys.modules, "datasets", fake)
    counts = paper.prepare_openwebtext(tmp_path, test_size=0.0005, seed=2357, tokenizer_dir=require_asset("tokenizer-bpe512-tiny", assets_home))
    assert calls == {"name": "openwebtext", "test_size": 0.0005, "seed": 2357, "shuffle": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["meta.json", "train.bin", "val.bin"]
    assert int((read_tokens(tmp_path / "train.bin") == 511).sum()) == 3 and counts["val"] > 0
