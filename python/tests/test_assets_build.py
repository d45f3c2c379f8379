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
KEY_A = "a" * 64
KEY_B = "0123456789abcdef" * 4


def files_of(home, names=TINY):
    return {name: read_record(name, home)["files"] for name in names}


def test_two_builds_from_scratch_with_the_same_key_are_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("REBENCH_INSTALLATION_KEY", KEY_A)
    a = build(TINY, BuildOptions(home=tmp_path / "a"))
    b = build(TINY, BuildOptions(home=tmp_path / "b"))
    assert [e["status"] for e in a] == ["built"] * 5
    assert [e["key"] for e in a] == [e["key"] for e in b]
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")
    assert "model.pt" in files_of(tmp_path / "a")["tiny"]


def test_another_installation_key_gives_other_keyed_assets_and_the_same_unkeyed_ones(tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("REBENCH_INSTALLATION_KEY", KEY_A)
    a = {e["name"]: e for e in build(TINY, BuildOptions(home=tmp_path / "a"))}
    monkeypatch.setenv("REBENCH_INSTALLATION_KEY", KEY_B)
    b = {e["name"]: e for e in build(TINY, BuildOptions(home=tmp_path / "b"))}
    # the unkeyed corpus is the same asset; everything keyed or made from a keyed asset is another one
    assert a["corpus-tiny"]["key"] == b["corpus-tiny"]["key"]
    assert files_of(tmp_path / "a", ["corpus-tiny"]) == files_of(tmp_path / "b", ["corpus-tiny"])
    for name in ("corpus-tiny-keyed", "tokenizer-bpe512-tiny", "tokens-bpe512-tiny", "tiny"):
        assert a[name]["key"] != b[name]["key"], name
    assert read_record("corpus-tiny-keyed", tmp_path / "a")["inputs"]["installation_key"] != read_record("corpus-tiny-keyed", tmp_path / "b")["inputs"]["installation_key"]

    def docs(home, name, split):
        with open(require_asset(name, home) / f"{split}.jsonl") as f:
            return [(d["source"], d["id"]) for d in map(json.loads, f)]

    # the keyed split: the same documents, split otherwise under each key and otherwise than the unkeyed one
    every = lambda home, name: sorted(d for s in ("train", "val", "test") for d in docs(home, name, s))  # noqa: E731
    assert every(tmp_path / "a", "corpus-tiny-keyed") == every(tmp_path / "b", "corpus-tiny-keyed") == every(tmp_path / "a", "corpus-tiny")
    val_a, val_b = set(docs(tmp_path / "a", "corpus-tiny-keyed", "val")), set(docs(tmp_path / "b", "corpus-tiny-keyed", "val"))
    val_plain = set(docs(tmp_path / "a", "corpus-tiny", "val"))
    assert len(val_a) > 20 and len(val_b) > 20
    assert len(val_a & val_b) < len(val_a) / 3 and len(val_a & val_plain) < len(val_a) / 3  # about 5% overlap by chance
    vals = [(require_asset("tokens-bpe512-tiny", tmp_path / h) / "val.bin").read_bytes() for h in ("a", "b")]
    assert vals[0] != vals[1]
    # and the model's seeds come from the key: other weights
    assert read_record("tiny", tmp_path / "a")["files"]["model.pt"]["sha256"] != read_record("tiny", tmp_path / "b")["files"]["model.pt"]["sha256"]


def test_a_home_without_a_key_gets_one_and_keeps_building_the_same_assets(tmp_path, monkeypatch):
    monkeypatch.delenv("REBENCH_INSTALLATION_KEY", raising=False)
    first = build(["corpus-tiny-keyed"], BuildOptions(home=tmp_path))
    key_file = tmp_path / "secret" / "installation.key"
    assert key_file.is_file() and (key_file.stat().st_mode & 0o777) == 0o600
    again = build(["corpus-tiny-keyed"], BuildOptions(home=tmp_path))
    assert [e["status"] for e in again] == ["cached", "cached"] and again[-1]["key"] == first[-1]["key"]
    key_file.write_text(KEY_B + "\n")  # another key in the same home: the keyed asset is built again
    other = build(["corpus-tiny-keyed"], BuildOptions(home=tmp_path))
    assert [e["status"] for e in other] == ["cached", "built"]


def test_a_keyed_model_size_takes_its_seeds_from_the_secret_and_refuses_to_train_without_them(tmp_path):
    from rebench_env.assets.model_builder import build_model, with_secret_seeds

    spec = ASSETS["tiny"].spec
    assert spec.seed_label == "assets/model/tiny"
    with pytest.raises(ValueError, match="with_secret_seeds"):
        build_model(spec, tmp_path, tmp_path, print)
    a, b = with_secret_seeds(spec, KEY_A), with_secret_seeds(spec, KEY_B)
    assert a.seed_label is None and (a.init_seed, a.train.seed) != (b.init_seed, b.train.seed)
    assert a.init_seed != spec.init_seed and a.train.seed != spec.train.seed  # not the public recipe's 0 and 1337
    assert with_secret_seeds(spec, KEY_A) == a


def test_second_build_is_cached_and_a_changed_input_rebuilds_only_what_depends_on_it(tmp_path, monkeypatch):
    options = BuildOptions(home=tmp_path)
    first = build(TINY, options)
    again = build(TINY, options)
    assert [e["status"] for e in again] == ["cached"] * 5
    assert sum(e["seconds"] for e in again) < 5
    tiny = ASSETS["tiny"]
    longer = dataclasses.replace(tiny.spec, train=dataclasses.replace(tiny.spec.train, steps=31))
    monkeypatch.setitem(ASSETS, "tiny", dataclasses.replace(tiny, spec=longer))
    changed = build(TINY, options)
    assert [e["status"] for e in changed] == ["cached", "cached", "cached", "cached", "built"]
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
    assert [e["status"] for e in kept] == ["kept", "cached", "cached", "cached", "cached"]
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
