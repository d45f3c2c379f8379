"""The sweep builder: its plan, how it spreads points over devices, and a real (tiny) build on two CPU workers.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import launcher
import train as training
from scaling_law_helpers import load_module

SWEEP = Path(__file__).resolve().parents[1] / "sweep"
build_sweep = load_module(SWEEP / "build_sweep.py", "scaling_law_build_sweep")


def test_every_point_spends_its_fraction_of_the_target_and_no_more():
    for variant in ("mini", "gpu"):
        widths = [int(w) for w in build_sweep.DEFAULT_WIDTHS[variant].split(",")]
        points = build_sweep.plan(variant, widths, [Fraction(1, 16), Fraction(1, 4), Fraction(1)])
        target = training.SETTINGS[variant].target_flops
        for p in points:
            allowed = Fraction(p["fraction"]) * target
            assert p["flops"] <= allowed < p["flops"] * (p["max_iters"] + 1) / p["max_iters"], p  # at most one step short
            assert p["n_embd"] % training.SETTINGS[variant].n_head == 0


def test_a_worker_on_one_gpu_sees_that_gpu_alone(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    env, device = launcher.child_device("cuda:2")
    assert (env["CUDA_VISIBLE_DEVICES"], device) == ("2", "cuda")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4,6")  # the builder itself was given GPUs 4 and 6
    assert launcher.child_device("cuda:1")[0]["CUDA_VISIBLE_DEVICES"] == "6"
    env, device = launcher.child_device("cpu")
    assert device == "cpu" and env.get("CUDA_VISIBLE_DEVICES") == "4,6"
    assert build_sweep.device_list("cuda:0, cuda:1") == ["cuda:0", "cuda:1"]
    assert build_sweep.device_list(None) == []


def test_a_tiny_build_on_two_workers_writes_every_point_and_resumes(tmp_path, token_dir):
    out = tmp_path / "sweep"
    argv = [sys.executable, str(SWEEP / "build_sweep.py"), "--variant", "mini", "--data", str(token_dir), "--out", str(out),
            "--widths", "48", "--fractions", "1/8192,1/2048", "--devices", "cpu,cpu", "--longest-first"]  # fmt: skip
    first = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    summary = json.loads((out / "sweep.json").read_text())
    assert summary["complete"] and all(x is not None for row in summary["losses"] for x in row)
    assert [p["max_iters"] for p in summary["points"]] == [1, 5] and {p["device"] for p in summary["points"]} == {"cpu"}
    started = [line.split(":")[0] for line in first.stdout.splitlines() if "val_loss" in line]
    assert len(started) == 2
    again = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "val_loss" not in again.stdout.replace('"losses"', "")  # nothing trained twice
    assert json.loads((out / "sweep.json").read_text())["losses"] == summary["losses"]
