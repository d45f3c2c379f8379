"""What ships: the encrypted sweeps and reference, the sweep built by today's training code, canaries.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

import ground_truth as gt
from scaling_law_helpers import load_module

ENV = Path(__file__).resolve().parents[1]

CANARY = "a99505a7-4586-4226-b19e-e5b4a1e41660"


def archived(name: str) -> dict:
    with zipfile.ZipFile(gt.SWEEP_ARCHIVE) as z:
        return json.loads(z.read(name, pwd=gt.SWEEP_PASSWORD.encode()))


def test_the_archive_is_encrypted_and_holds_the_mini_gpu_and_paper_sweeps():
    with zipfile.ZipFile(gt.SWEEP_ARCHIVE) as z:
        assert {"mini.json", "gpu.json", "paper.json"} <= set(z.namelist())
        with pytest.raises(RuntimeError):  # no password, no data
            z.read("mini.json")


@pytest.mark.parametrize("variant", ["mini", "gpu"])
def test_the_optimum_of_the_target_row_lies_inside_the_sweep(variant):
    sweep = gt.load_sweep(variant)
    assert sweep.fractions == (1 / 16, 1 / 4, 1.0) and len(sweep.widths) >= 5
    row = sweep.losses[-1]
    best = row.index(min(row))
    assert 0 < best < len(row) - 1, f"the optimum of the {variant} target row must lie inside the sweep's widths"


@pytest.mark.parametrize("variant", ["mini", "gpu"])
def test_the_sweep_was_built_by_the_training_code_of_this_checkout(variant):
    build_sweep = load_module(ENV / "sweep" / "build_sweep.py", "scaling_law_build_sweep")
    recorded = archived(f"{variant}.json")["code"]
    assert recorded == build_sweep.code_hashes(), (
        f"the training code changed since the {variant} sweep was built: rebuild it (sweep/build_sweep.py) or, if the "
        "change cannot affect training, re-pack it with the new hashes"
    )


def test_the_reference_unpacks(tmp_path):
    unpack = load_module(ENV / "reference" / "unpack.py", "scaling_law_reference_unpack")
    assert (unpack.unpack(tmp_path) / "fit_scaling.py").read_text().count(CANARY) == 1


def test_every_text_file_of_the_environment_carries_the_canary():
    skip = {".zip", ".png", ".json", ".jsonl", ".svg"}
    missing = [str(p.relative_to(ENV)) for p in ENV.rglob("*") if p.is_file() and p.suffix not in skip
               and "__pycache__" not in p.parts and "src" not in p.parts and CANARY not in p.read_text()]  # fmt: skip
    assert not missing
