"""Build assets by name: compute each key from its inputs, skip what is current, build the rest.

Data assets (corpus, tokenizers, token files) build one after another in this process; models then build in
up to ``jobs`` worker processes at once (one CPU thread each), since on the 2-core machines two one-thread
trainings finish sooner than one after the other. GPU models build one at a time.

Keyed assets (a ``KeyedSplitSpec`` corpus, a model size with a ``seed_label``) are built from secrets derived
from the installation key of the home they are built in (``rebench_env.secrets``); their key holds the key's
fingerprint, so a home with another key builds its own.

When an asset's raw inputs are not on this machine (no Debian text packages, no ``node_modules``) but the
asset is already built, it is kept as it is (status ``kept``) instead of failing: that is how pre-built
token files travel to a GPU machine that has no Debian packages.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Callable

import rebench_env
from rebench_env.assets import assets_home
from rebench_env.assets.catalog import ASSETS, Asset, with_dependencies
from rebench_env.assets.corpus_builder import CorpusSpec, build_corpus, source_fingerprint
from rebench_env.assets.keyed_split import KeyedSplitSpec, build_keyed_split
from rebench_env.assets.model_builder import ModelSpec, build_model, with_secret_seeds
from rebench_env.assets.sources import SourceMissingError
from rebench_env.assets.store import AssetStore, asset_key, code_hash, sha256_file
from rebench_env.assets.tokenizer_builder import (
    BpeTokenizerSpec,
    Gpt2TokenizerSpec,
    build_bpe_tokenizer,
    build_gpt2_tokenizer,
    default_gpt2_json,
    tokenizers_threads,
)
from rebench_env.assets.qa_text import ChatTokensSpec, build_chat_tokens
from rebench_env.assets.shipped import ShippedSpec, install, manifest_of
from rebench_env.assets.tokens_builder import TokensSpec, build_tokens
from rebench_env.secrets import derived_secret, key_fingerprint

PACKAGE_DIR = Path(rebench_env.__file__).resolve().parent
CODE: dict[str, list[str]] = {
    "corpus": ["assets/sources.py", "assets/corpus_builder.py"],
    "tokenizer": ["assets/tokenizer_builder.py", "tokenizer.py"],
    "tokens": ["assets/tokens_builder.py", "tokenizer.py", "tokens.py", "corpus.py"],
    "model": ["assets/model_builder.py", "gpt.py", "train.py", "tokens.py"],
}
SPEC_CODE: dict[type, list[str]] = {  # added to their kind's code: a spec with a builder of its own
    ChatTokensSpec: ["assets/qa_text.py", "assets/elements.csv", "chat.py"],
}
KEYED_CODE: dict[type, list[str]] = {  # added to their kind's code: the builder of a keyed asset
    KeyedSplitSpec: ["assets/keyed_split.py", "secrets.py"],
    ModelSpec: ["secrets.py"],
}


def is_keyed(asset: Asset) -> bool:
    """Whether the asset is built from a secret of the installation key (not only through its dependencies)."""
    spec = asset.spec
    return isinstance(spec, KeyedSplitSpec) or (isinstance(spec, ModelSpec) and spec.seed_label is not None)


class InputsMissingError(RuntimeError):
    """An asset's raw inputs are missing and no built copy exists; the message says what to install."""


@dataclasses.dataclass
class BuildOptions:
    home: Path | None = None
    gpt2_json: Path | None = None
    jobs: int = 2
    threads: int = 2  # tokenizer threads for data assets


def log(name: str, message: str) -> None:
    print(f"[{name}] {message}", file=sys.stderr, flush=True)


def _spec_json(asset: Asset) -> dict[str, Any]:
    return dataclasses.asdict(asset.spec)


def compute_inputs(asset: Asset, dep_keys: dict[str, str], options: BuildOptions) -> dict[str, Any]:
    """Everything the asset is built from (raises SourceMissingError / InputsMissingError if unreadable)."""
    if isinstance(asset.spec, ShippedSpec):  # built elsewhere: only its installer's code and its files count
        code = ["assets/shipped.py"]
    else:
        code = CODE[asset.kind] + SPEC_CODE.get(type(asset.spec), []) + (KEYED_CODE[type(asset.spec)] if is_keyed(asset) else [])
    inputs: dict[str, Any] = {
        "kind": asset.kind,
        "spec": _spec_json(asset),
        "deps": {d: dep_keys[d] for d in asset.deps},
        "code": code_hash([PACKAGE_DIR / p for p in code]),
    }
    if is_keyed(asset):
        inputs["installation_key"] = key_fingerprint(options.home)
    spec = asset.spec
    if isinstance(spec, CorpusSpec):
        inputs["sources"] = source_fingerprint(spec)
    elif isinstance(spec, Gpt2TokenizerSpec):
        path = options.gpt2_json or default_gpt2_json()
        if not path.is_file():
            raise InputsMissingError(
                f"GPT-2 ranks not found at {path}: run `npm install` in the rebench checkout "
                "(the npm package tiktoken ships them)"
            )
        inputs["ranks_sha256"] = sha256_file(path)
    elif isinstance(spec, BpeTokenizerSpec):
        import tokenizers

        inputs["tokenizers"] = tokenizers.__version__
    elif isinstance(spec, ModelSpec):
        import torch

        inputs["torch"] = torch.__version__.split("+")[0]
    elif isinstance(spec, ShippedSpec):
        try:
            inputs["files"] = {n: f["sha256"] for n, f in manifest_of(spec)["files"].items()}
        except FileNotFoundError as missing:
            raise InputsMissingError(str(missing)) from None
    return inputs


def _builder(asset: Asset, store: AssetStore, options: BuildOptions) -> Callable[[Path], dict[str, Any]]:
    spec = asset.spec
    progress = lambda message: log(asset.name, message)  # noqa: E731
    if isinstance(spec, CorpusSpec):
        return lambda out: {"splits": build_corpus(spec, out, progress)["splits"]}
    if isinstance(spec, KeyedSplitSpec):
        return lambda out: {"splits": build_keyed_split(
            spec, store.path(spec.corpus), out, derived_secret(spec.secret_label, options.home), progress
        )["splits"]}  # fmt: skip
    if isinstance(spec, Gpt2TokenizerSpec):
        return lambda out: build_gpt2_tokenizer(options.gpt2_json or default_gpt2_json(), out, progress)
    if isinstance(spec, BpeTokenizerSpec):
        return lambda out: build_bpe_tokenizer(spec, store.path(spec.corpus), out, progress)
    if isinstance(spec, TokensSpec):
        return lambda out: build_tokens(
            spec, store.path(spec.corpus), store.path(spec.tokenizer), out, progress, options.threads
        )
    if isinstance(spec, ChatTokensSpec):
        return lambda out: build_chat_tokens(
            spec, store.path(spec.corpus), store.path(spec.tokenizer), out, progress, options.threads
        )
    if isinstance(spec, ShippedSpec):
        return lambda out: install(spec, out, progress)
    if isinstance(spec, ModelSpec):
        if spec.seed_label is not None:
            seeded = with_secret_seeds(spec, derived_secret(spec.seed_label, options.home))
            return lambda out: build_model(seeded, store.path(spec.tokens), out, progress)
        return lambda out: build_model(spec, store.path(spec.tokens), out, progress)
    raise TypeError(f"no builder for {type(spec).__name__}")


def build_one(
    name: str, dep_keys: dict[str, str], options: BuildOptions, unavailable: dict[str, str] | None = None
) -> dict[str, Any]:
    """Build (or find current) one asset; returns its report entry.

    ``unavailable`` maps dependencies that cannot be built here to the reason; an asset that needs one is
    kept as built if it exists (status ``kept``), else the reason is raised.
    """
    asset = ASSETS[name]
    store = AssetStore(assets_home(options.home))
    started = time.time()
    try:
        lacking = [d for d in asset.deps if d not in dep_keys]
        if lacking:
            why = (unavailable or {}).get(lacking[0], "not built")
            raise InputsMissingError(f"needs {lacking[0]}, which cannot be built here: {why}")
        inputs = compute_inputs(asset, dep_keys, options)
    except (SourceMissingError, InputsMissingError) as missing:
        record = store.record(name)
        if record is None:
            raise
        log(name, f"kept as built on {record.get('builtAt')}: cannot check its inputs here ({missing})")
        return _entry(record, "kept", started, store)
    key = asset_key(inputs)
    if store.is_current(name, key):
        log(name, "up to date")
        return _entry(store.record(name) or {}, "cached", started, store)
    log(name, f"building ({asset.description})")
    record, built = store.build(name, asset.kind, key, inputs, _builder(asset, store, options))
    log(name, f"done in {time.time() - started:.1f}s" if built else "up to date (built by another process)")
    return _entry(record, "built" if built else "cached", started, store)


def _entry(record: dict[str, Any], status: str, started: float, store: AssetStore) -> dict[str, Any]:
    return {
        "name": record["name"],
        "kind": record["kind"],
        "status": status,
        "key": record["key"],
        "seconds": round(time.time() - started, 3),
        "path": str(store.path(record["name"])),
        "summary": record.get("summary", {}),
    }


def _die_with_parent() -> None:
    """In a worker: get SIGTERM when the builder dies (Linux), so a stopped build leaves no trainer running."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def build(names: list[str], options: BuildOptions) -> list[dict[str, Any]]:
    """Build ``names`` and their dependencies; returns one report entry per asset, in build order."""
    order = with_dependencies(names)
    tokenizers_threads(options.threads)
    keys: dict[str, str] = {}
    entries: dict[str, dict[str, Any]] = {}
    # A shipped model installs in a second and can feed data (its tokenizer: tokens-bpe4k-chat-keyed): it goes with the data.
    data = [n for n in order if ASSETS[n].kind != "model" or isinstance(ASSETS[n].spec, ShippedSpec)]
    models = [n for n in order if n not in data]
    unavailable: dict[str, str] = {}
    for name in data:
        try:
            entries[name] = build_one(name, keys, options, unavailable)
            keys[name] = entries[name]["key"]
        except (SourceMissingError, InputsMissingError) as error:
            if name in names:
                raise  # asked for by name: say what to install
            unavailable[name] = str(error)
            log(name, "cannot be built here; what needs it is used as already built, if it is")
    cpu_models = [n for n in models if isinstance(ASSETS[n].spec, ModelSpec) and ASSETS[n].spec.device == "cpu"]
    other = [n for n in models if n not in cpu_models]
    jobs = max(1, min(options.jobs, len(cpu_models), os.cpu_count() or 1))
    if jobs > 1:
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"), initializer=_die_with_parent)
        with pool:
            futures = {n: pool.submit(build_one, n, keys, options, unavailable) for n in cpu_models}
            for name, future in futures.items():
                entries[name] = future.result()
    else:
        for name in cpu_models:
            entries[name] = build_one(name, keys, options, unavailable)
    for name in other:
        entries[name] = build_one(name, keys, options, unavailable)
    return [entries[n] for n in order if n in entries]
