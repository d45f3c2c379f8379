"""The paper variant's code on stand-ins: OpenWebText's preparation and the paper-shaped training code.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import prepare_openwebtext as owt
import train as training
from rebench_env.assets.build import BuildOptions, build
from rebench_env.tokenizer import load_tokenizer

STAND_IN = {
    "train": [{"text": f"Document {i}: the quick brown fox jumps over the lazy dog, {i} times."} for i in range(300)],
    "val": [{"text": "A held-out page of web text."}, {"text": "Another one, a little longer than the first held-out page."}],
}


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    build(["tokenizer-gpt2"], BuildOptions(home=home))
    return load_tokenizer("tokenizer-gpt2", home=home)


def test_openwebtext_is_written_as_nanogpts_token_files(tmp_path, gpt2):
    counts = owt.prepare(tmp_path / "openwebtext", STAND_IN, lambda texts: gpt2.encode_batch(texts))
    val = np.fromfile(tmp_path / "openwebtext" / "val.bin", dtype=np.uint16)
    assert counts["val"] == val.size and list(val).count(owt.GPT2_EOT) == 2
    first = list(val[: list(val).index(owt.GPT2_EOT)])
    assert gpt2.decode(first) == "A held-out page of web text."
    train = np.fromfile(tmp_path / "openwebtext" / "train.bin", dtype=np.uint16)
    assert list(train).count(owt.GPT2_EOT) == 300 and not (tmp_path / "openwebtext" / "train.bin.partial").exists()


def test_the_paper_shape_trains_on_those_files(tmp_path, gpt2):
    owt.prepare(tmp_path / "owt", STAND_IN, lambda texts: gpt2.encode_batch(texts))
    paper = training.SETTINGS["paper"]
    assert (paper.n_layer, paper.n_head, paper.block_size, paper.batch_size, paper.vocab_size) == (4, 8, 1024, 64, 50304)
    small = dataclasses.replace(paper, block_size=8, batch_size=2, eval_batches=1, device="cpu", precision="fp32")
    result = training.run_experiment(small, training.check_request(small, {"n_embd": 16, "max_iters": 2}), tmp_path / "owt")
    assert result["val_loss"] is not None and result["val_loss"] > 5  # about ln(50304) = 10.8 at the start


def test_the_paper_flop_formula_is_the_originals():
    paper = training.SETTINGS["paper"]
    assert training.flops(paper, 1000, 20000) == 4 * 1000**2 * 12 * 6 * 1024 * 64 * 20000
    assert training.learning_rate(1000, 5000) == pytest.approx(0.15 / 1000)
    assert paper.cap_flops == 1e16 and paper.target_flops == 5e17
