"""The calibration driver for machines without Node (bench/gpu_calibrate.py), its converter to calibration.json
(bench/calibration_entry.py), and the grader on a CUDA device (skipped without one, and its error without one).

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from fix_embedding_helpers import ENV_DIR, load

BENCH = ENV_DIR / "bench"
REPO = ENV_DIR.parents[1]


def run_driver(assets_home: Path, tmp_path: Path, name: str) -> dict:
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    done = subprocess.run(
        [sys.executable, str(BENCH / "gpu_calibrate.py"), "--profile", "tiny", "--actions", str(ENV_DIR / "reference" / "mini.actions.jsonl"),
         "--assets", str(assets_home / "assets"), "--work", str(tmp_path / name), "--out", str(out), "--deadline-seconds", "240"],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def test_a_driver_run_sets_up_takes_the_starting_score_and_scores_the_replayed_reference(assets_home, tmp_path):
    record = run_driver(assets_home, tmp_path, "run")
    assert [s["step"] for s in record["steps"]] == ["setup", "score", "upload", "bash", "score", "submit"]
    first, last = (s["outcome"] for s in record["scores"])
    assert first["kind"] == last["kind"] == "scored"
    assert record["start"] == first["value"] and record["reference"] == last["value"] < first["value"] - 0.1
    assert record["scores"][0]["message"]["model"].startswith("large_model.pth as handed out")
    assert "error" not in record and record["machine"]["cores"] >= 1
    state = tmp_path / "run" / "protected" / "state"
    assert (state / "permutation_seed.json").stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "run" / "protected" / "assets").exists()  # the set-up removed the staged links
    assert (assets_home / "assets" / "tiny" / "model.pt").exists()  # and not the store they point to


def test_the_entry_has_calibrate_s_shape_and_leaves_out_failed_runs(tmp_path):
    entry_module = load("fix_embedding_calibration_entry", BENCH / "calibration_entry.py")
    machine = {"cpuModel": "x", "cores": 2, "memoryGb": 1.0, "gpu": "NVIDIA H100 80GB HBM3", "gpuCount": 4, "os": "Linux"}
    runs = [{"start": s, "reference": r, "ended": f"2026-11-29T20:0{i}:00.000+00:00", "machine": machine, "steps": [], "losses": []}
            for i, (s, r) in enumerate([(2.4, 0.4), (2.3, 0.5), (2.5, 0.45)])]
    runs.append({**runs[0], "error": "the reference command failed (exit 1)"})
    files = []
    for i, run in enumerate(runs):
        files.append(tmp_path / f"run-{i}.json")
        files[-1].write_text(json.dumps(run))
    calibration = tmp_path / "calibration.json"
    calibration.write_text(json.dumps({"canary": "c", "mini": {"kept": True}, "gpu": {"NVIDIA H200": {"kept": True}}}))
    done = subprocess.run([sys.executable, str(BENCH / "calibration_entry.py"), *map(str, files), "--rebench-commit", "abc", "--note", "n",
                           "--write", str(calibration)], capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "left out" in done.stderr and "run-3.json" in done.stderr
    written = json.loads(calibration.read_text())
    assert written["mini"] == {"kept": True} and written["canary"] == "c"
    assert list(written["gpu"]) == ["NVIDIA H100", "NVIDIA H200"] and written["gpu"]["NVIDIA H200"] == {"kept": True}  # one entry per class
    gpu = written["gpu"]["NVIDIA H100"]
    assert gpu["runs"] == 3 and gpu["start"]["values"] == [2.4, 2.3, 2.5] and gpu["reference"]["n"] == 3
    assert gpu["start"]["mean"] == pytest.approx(2.4) and gpu["start"]["std"] == pytest.approx(0.1)
    assert gpu["gapOverStd"] == pytest.approx(1.95 / 0.1, abs=1e-4) and gpu["date"] == "2026-11-29T20:02:00.000+00:00"
    assert gpu["machine"]["rebenchCommit"] == "abc" and gpu["machine"]["gpu"] == "NVIDIA H100 80GB HBM3" and gpu["note"] == "n"
    assert entry_module.entry_of(runs[:2], None, "")["gapOverStd"] is not None
    with pytest.raises(ValueError, match="at least 2"):
        entry_module.entry_of(runs[:1], None, "")
    assert [entry_module.gpu_class(n) for n in ("NVIDIA H200", "NVIDIA A100-SXM4-80GB", "NVIDIA H100 PCIe")] == ["NVIDIA H200", "NVIDIA A100-SXM4", "NVIDIA H100 PCIe"]


def test_a_new_floor_rescores_the_recorded_validation_losses_as_the_grader_would():
    entry_module = load("fix_embedding_calibration_entry", BENCH / "calibration_entry.py")
    call = lambda kind, val: {"outcome": {"kind": kind, "value": 0.0}, "details": {"losses": {"val": val}, "floor": 1.5}}  # noqa: E731
    record = {"scores": [call("scored", 12.0), call("invalid", 9.0), call("scored", 2.6)], "start": 2.36, "reference": 0.1}
    again = entry_module.rescored(record, 1.3)
    assert again["start"] == pytest.approx(math.log(10.7)) and again["reference"] == pytest.approx(math.log(1.3))
    assert again["scores"][1]["outcome"]["value"] == 0.0 and record["start"] == 2.36  # invalid calls and the input stay
    with pytest.raises(ValueError, match="under the floor"):
        entry_module.rescored(record, 2.6)
    # a yardstick variant's calls recorded the original's loss: both terms are rescored
    yardstick = {"scores": [{**c, "details": {**c["details"], "original_val_loss": 2.7}} for c in record["scores"]]}
    again = entry_module.rescored(yardstick, 1.3)
    assert again["start"] == pytest.approx(math.log(10.7) - math.log(1.4)) and again["reference"] == pytest.approx(math.log(1.3) - math.log(1.4))


def use_cuda_grading(sandbox) -> None:
    grading = sandbox.protected / "state" / "grading.json"
    settings = json.loads(grading.read_text())
    settings["eval"] = {**settings["eval"], "device": "cuda"}
    grading.write_text(json.dumps(settings))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the grader's answer on a machine without a GPU")
def test_a_gpu_variant_is_an_error_without_a_gpu(sandbox):
    use_cuda_grading(sandbox)
    result = sandbox.score()
    assert result["outcome"]["kind"] == "error" and "CUDA GPU" in result["outcome"]["message"]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (the gpu variant's grader device)")
def test_the_grader_on_a_gpu_gives_the_cpu_loss(sandbox):
    cpu = sandbox.score()
    (sandbox.protected / "state" / "starting_score_logged").unlink()
    use_cuda_grading(sandbox)
    gpu = sandbox.score()
    assert gpu["outcome"]["kind"] == "scored"
    assert gpu["details"]["losses"]["val"] == pytest.approx(cpu["details"]["losses"]["val"], abs=2e-3)
