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


def hidden_values() -> set[str]:
    """Every loss of the mini and gpu sweeps (graded points and extra ones), as the README used to print them."""
    values: set[float] = set()
    for variant in ("mini", "gpu"):
        data = archived(f"{variant}.json")
        values |= {x for row in data["losses"] for x in row if x is not None}
        values |= {p["val_loss"] for p in data.get("extra_points", []) if p.get("val_loss") is not None}
    return {f"{x:.{digits}f}" for x in values for digits in (3, 4)}


def test_no_plain_file_of_the_environment_prints_a_value_of_the_hidden_sweeps():
    """The README, the workspaces, the instructions and the grader's train.py (copied into the workspace) hold no
    sweep loss to three or four decimals, and no figure of a sweep ships (a figure is the sweep in plain form)."""
    hidden = hidden_values()
    texts = [ENV / "README.md", ENV / "instructions.ts", ENV / "grader" / "train.py", *sorted((ENV / "workspace").rglob("*.*"))]
    texts += sorted((ENV / "exploits").glob("*.*")) + sorted((ENV / "sweep").glob("*.*")) + sorted((ENV / "quota").glob("*.*"))
    leaks = [(str(p.relative_to(ENV)), v) for p in texts if p.suffix != ".zip" for v in hidden if v in p.read_text()]
    assert not leaks, f"hidden sweep values in plain files: {leaks[:10]}"
    assert not [p for p in ENV.rglob("*") if p.suffix in (".png", ".svg")], "a figure of a sweep is its ground truth: keep it out"
