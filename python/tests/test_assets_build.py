"""The asset builder on the `tiny` variant (seconds): deterministic, cached, rebuilt on change, atomic."""

import dataclasses

import pytest

from rebench_env.assets import AssetMissingError, read_record, require_asset
from rebench_env.assets import build as build_module
from rebench_env.assets.build import BuildOptions, build
from rebench_env.assets.catalog import ASSETS, VARIANTS
from rebench_env.assets.sources import SourceMissingError
from rebench_env.gpt import load_gpt
from rebench_env.tokenizer import load_tokenizer
from rebench_env.tokens import read_tokens

TINY = list(VARIANTS["tiny"])


def files_of(home):
    return {name: read_record(name, home)["files"] for name in TINY}


def test_two_builds_from_scratch_are_identical(tmp_path):
    a = build(TINY, BuildOptions(home=tmp_path / "a"))
    b = build(TINY, BuildOptions(home=tmp_path / "b"))
    assert [e["status"] for e in a] == ["built"] * 4
    assert [e["key"] for e in a] == [e["key"] for e in b]
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")
    assert "model.pt" in files_of(tmp_path / "a")["tiny"]


def test_second_build_is_cached_and_a_changed_input_rebuilds_only_what_depends_on_it(tmp_path, monkeypatch):
    options = BuildOptions(home=tmp_path)
    first = build(TINY, options)
    again = build(TINY, options)
    assert [e["status"] for e in again] == ["cached"] * 4
    assert sum(e["seconds"] for e in again) < 5
    tiny = ASSETS["tiny"]
    longer = dataclasses.replace(tiny.spec, train=dataclasses.replace(tiny.spec.train, steps=31))
    monkeypatch.setitem(ASSETS, "tiny", dataclasses.replace(tiny, spec=longer))
    changed = build(TINY, options)
    assert [e["status"] for e in changed] == ["cached", "cached", "cached", "built"]
    assert changed[-1]["key"] != first[-1]["key"]
    store = tmp_path / "assets" / ".store"
    assert len([p for p in store.iterdir() if p.name.startswith("tiny-")]) == 1  # the old version is gone


def test_built_assets_load_through_the_library(tmp_path):
    build(TINY, BuildOptions(home=tmp_path))
    tokens = require_asset("tokens-bpe512-tiny", tmp_path)
    tokenizer = load_tokenizer("tokenizer-bpe512-tiny", tmp_path)
    assert tokenizer.vocab_size == 512 and tokenizer.eot_id == 511
    assert tokenizer.decode(tokenizer.encode("In the beginning")) == "In the beginning"
    data = read_tokens(tokens / "val.bin")
    assert data.max() < 512 and (data == 511).sum() > 10  # documents end with <|endoftext|>
    model = load_gpt(require_asset("tiny", tmp_path) / "model.pt")
    assert model.config.vocab_size == 512
    summary = read_record("tiny", tmp_path)["summary"]
    assert summary["final_val_loss"] < 6.2  # below ln(512) = 6.24: it learned something


def test_a_crash_mid_build_keeps_the_old_asset_and_leaves_no_half_asset(tmp_path, monkeypatch):
    options = BuildOptions(home=tmp_path)
    build(TINY, options)
    before = read_record("tiny", tmp_path)

    def crash(spec, tokens_dir, out_dir, progress):
        (out_dir / "model.pt").write_bytes(b"half")
        raise RuntimeError("power cut")

    monkeypatch.setattr(build_module, "build_model", crash)
    tiny = ASSETS["tiny"]
    monkeypatch.setitem(ASSETS, "tiny", dataclasses.replace(tiny, spec=dataclasses.replace(tiny.spec, init_seed=9)))
    with pytest.raises(RuntimeError, match="power cut"):
        build(TINY, options)
    assert read_record("tiny", tmp_path) == before
    assert not [p for p in (tmp_path / "assets" / ".store").iterdir() if p.name.startswith(".tmp-")]


def test_missing_sources_keep_a_built_asset_and_otherwise_name_the_package(tmp_path, monkeypatch):
    build(TINY, BuildOptions(home=tmp_path / "built"))

    def missing(spec):
        raise SourceMissingError("install the Debian package bible-kjv")

    monkeypatch.setattr(build_module, "source_fingerprint", missing)
    kept = build(TINY, BuildOptions(home=tmp_path / "built"))
    assert [e["status"] for e in kept] == ["kept", "cached", "cached", "cached"]
    with pytest.raises(SourceMissingError, match="bible-kjv"):
        build(TINY, BuildOptions(home=tmp_path / "empty"))
    with pytest.raises(AssetMissingError, match="rebench assets build --only corpus-tiny"):
        require_asset("corpus-tiny", tmp_path / "empty")


def test_a_gpu_size_on_a_machine_without_cuda_says_so(tmp_path):
    import torch

    from rebench_env.assets.model_builder import DeviceUnavailableError, build_model

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU")
    with pytest.raises(DeviceUnavailableError, match="CUDA"):
        build_model(ASSETS["gpu-small"].spec, tmp_path, tmp_path, print)


def test_prebuilt_token_files_are_used_where_the_corpus_cannot_be_built(tmp_path, monkeypatch):
    # A GPU machine without the Debian packages gets token files copied in, but no corpus.
    import shutil

    build(TINY, BuildOptions(home=tmp_path / "here"))
    there = tmp_path / "there" / "assets"
    there.mkdir(parents=True)
    for name in ("tokenizer-bpe512-tiny", "tokens-bpe512-tiny"):
        shutil.copytree(tmp_path / "here" / "assets" / name, there / name)  # real folders, as `cp -rL`

    def missing(spec):
        raise SourceMissingError("install the Debian package bible-kjv")

    monkeypatch.setattr(build_module, "source_fingerprint", missing)
    entries = build(["tiny"], BuildOptions(home=tmp_path / "there"))
    assert [(e["name"], e["status"]) for e in entries] == [
        ("tokenizer-bpe512-tiny", "kept"), ("tokens-bpe512-tiny", "kept"), ("tiny", "built")
    ]
    with pytest.raises(SourceMissingError):
        build(["corpus-tiny"], BuildOptions(home=tmp_path / "there"))


def test_leftovers_of_a_killed_build_are_removed_by_the_next_build_of_that_asset(tmp_path):
    store = tmp_path / "assets" / ".store"
    store.mkdir(parents=True)
    (store / ".tmp-tiny-deadbeef").mkdir()  # a killed build of `tiny`
    (store / ".tmp-tiny-other-deadbeef").mkdir()  # some other asset's: not ours to remove
    build(TINY, BuildOptions(home=tmp_path))
    assert not (store / ".tmp-tiny-deadbeef").exists()
    assert (store / ".tmp-tiny-other-deadbeef").exists()
