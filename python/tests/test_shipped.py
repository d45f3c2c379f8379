"""Shipped assets (``rebench_env.assets.shipped``): int8 weights, export from a built recipe, install checked by sha256."""

import json

import pytest
import torch

from rebench_env.assets import read_record, require_asset
from rebench_env.assets import catalog as catalog_module
from rebench_env.assets import shipped
from rebench_env.assets.build import BuildOptions, InputsMissingError, build
from rebench_env.assets.catalog import ASSETS, Asset
from rebench_env.gpt import GPT, GPTConfig, load_gpt
from rebench_env.tokenizer import load_tokenizer


def test_int8_weights_round_trip_within_half_a_step_and_keep_the_tie():
    torch.manual_seed(0)
    model = GPT(GPTConfig(block_size=16, vocab_size=64, n_layer=2, n_head=2, n_embd=32))
    state = model.checkpoint()
    packed = shipped.quantize(state)
    assert "lm_head.weight" in packed["tied"] or "transformer.wte.weight" in packed["tied"]
    restored = shipped.dequantize(packed)
    for name, tensor in state.items():
        if name == "config":
            continue
        step = tensor.abs().amax(dim=1, keepdim=True) / 127 if tensor.ndim == 2 else torch.zeros(())
        assert (restored[name] - tensor).abs().le(step / 2 + 1e-7).all(), name
        if tensor.ndim != 2:
            assert torch.equal(restored[name], tensor), name
    loaded = GPT.from_state_dict(restored)
    assert loaded.lm_head.weight.data_ptr() == loaded.transformer.wte.weight.data_ptr()
    x = torch.randint(0, 64, (2, 16))
    assert torch.allclose(loaded(x)[0], model(x)[0], atol=0.05)
    # the same integers give the same fp32 weights on every machine: dequantize twice, identical bytes
    again = shipped.dequantize(packed)
    assert all(torch.equal(again[k], restored[k]) for k in restored if k != "config")


@pytest.fixture()
def tiny_shipped(tmp_path, monkeypatch):
    """A shipped asset made from the built ``tiny`` model and its tokenizer, registered in the catalog."""
    monkeypatch.setenv("REBENCH_INSTALLATION_KEY", "a" * 64)
    home = tmp_path / "home"
    build(["tiny"], BuildOptions(home=home))
    spec = shipped.ShippedSpec(folder="tiny-shipped", recipe="tiny", tokenizer="tokenizer-bpe512-tiny")
    root = tmp_path / "shipped"
    manifest = shipped.export(spec, require_asset("tiny", home), require_asset("tokenizer-bpe512-tiny", home), root / "tiny-shipped")
    monkeypatch.setattr(shipped, "SHIPPED_DIR", root)
    monkeypatch.setitem(ASSETS, "tiny-shipped", Asset("tiny-shipped", "model", spec, "tests"))
    assert catalog_module.ASSETS["tiny-shipped"].spec is spec
    return home, root, manifest


def test_export_then_build_installs_the_dequantized_model_and_its_tokenizer(tiny_shipped, tmp_path):
    home, root, manifest = tiny_shipped
    assert set(manifest["files"]) == {"model.q8.pt", "meta.json", "tokenizer.json"}
    assert manifest["recipe"]["name"] == "tiny" and manifest["recipe"]["key"] == read_record("tiny", home)["key"]
    other = tmp_path / "other"  # a fresh home: nothing built there, the shipped asset needs nothing
    entries = build(["tiny-shipped"], BuildOptions(home=other))
    assert [(e["name"], e["status"]) for e in entries] == [("tiny-shipped", "built")]
    folder = require_asset("tiny-shipped", other)
    original, installed = load_gpt(require_asset("tiny", home) / "model.pt"), load_gpt(folder / "model.pt")
    x = torch.randint(0, 512, (1, 32))
    assert torch.allclose(installed(x)[0], original(x)[0], atol=0.05)
    assert load_tokenizer(folder).encode("In the beginning") == load_tokenizer(require_asset("tokenizer-bpe512-tiny", home)).encode("In the beginning")
    assert [e["status"] for e in build(["tiny-shipped"], BuildOptions(home=other))] == ["cached"]
    # a second home installs the same bytes
    third = build(["tiny-shipped"], BuildOptions(home=tmp_path / "third"))
    assert third[0]["key"] == entries[0]["key"]
    assert read_record("tiny-shipped", tmp_path / "third")["files"] == read_record("tiny-shipped", other)["files"]


def test_a_changed_shipped_file_is_refused_and_nothing_is_installed(tiny_shipped, tmp_path):
    _, root, _ = tiny_shipped
    weights = root / "tiny-shipped" / "model.q8.pt"
    weights.write_bytes(weights.read_bytes()[:-10])
    with pytest.raises(ValueError, match="model.q8.pt does not match"):
        build(["tiny-shipped"], BuildOptions(home=tmp_path / "other"))
    assert read_record("tiny-shipped", tmp_path / "other") is None


def test_a_missing_shipped_folder_says_how_to_make_it(tiny_shipped, tmp_path):
    _, root, _ = tiny_shipped
    (root / "tiny-shipped" / "manifest.json").unlink()
    with pytest.raises(InputsMissingError, match="shipped export tiny-shipped"):
        build(["tiny-shipped"], BuildOptions(home=tmp_path / "other"))


def test_the_committed_mini_chat_matches_its_manifest_and_its_recipe():
    spec = ASSETS["mini-chat"].spec
    manifest = shipped.verify(spec)
    recipe = ASSETS[spec.recipe].spec
    packed = torch.load(shipped.SHIPPED_DIR / spec.folder / shipped.MODEL_FILE, map_location="cpu", weights_only=True)
    assert GPTConfig.from_dict(packed["config"]) == recipe.gpt
    assert manifest["recipe"]["name"] == spec.recipe and manifest["recipe"]["inputs"]["spec"]["train"]["steps"] == recipe.train.steps
    meta = json.loads((shipped.SHIPPED_DIR / spec.folder / "meta.json").read_text())
    assert meta["vocab_size"] == recipe.gpt.vocab_size
