"""Every solution computes the function exactly, including the edge cases, on small inputs (CPU).

The GPU solutions' Triton kernels run under TRITON_INTERPRET=1 (correctness only, in a subprocess
because the variable must be set before Triton is imported).
Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import ENV_DIR, START

import prefix


def brute_force(x: np.ndarray) -> np.ndarray:
    """The definition, one element at a time."""
    out, total, positives = [], 0, 0
    for v in x.tolist():
        if positives % 2 == 1:
            total += v
        out.append(total)
        positives += v > 0
    return np.array(out, dtype=np.int32)


def edge_cases() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "length 1 positive": np.array([5], dtype=np.int32),
        "length 1 negative": np.array([-3], dtype=np.int32),
        "length 2": np.array([4, 7], dtype=np.int32),
        "all positive": rng.integers(1, 10, 5000, dtype=np.int32),
        "all non-positive": rng.integers(-10, 1, 5000, dtype=np.int32),
        "zeros": np.zeros(3000, dtype=np.int32),
        "alternating": np.tile(np.array([3, -2], dtype=np.int32), 2500),
        "random 4097": prefix.input_numpy(4097, 11),
        "random 30000": prefix.input_numpy(30000, 12),
    }


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", sorted(edge_cases()))
def test_the_graders_own_computations_match_the_definition(case):
    x = edge_cases()[case]
    want = brute_force(x)
    assert (prefix.expected_numpy(x) == want).all()
    assert (prefix.expected_torch(torch.from_numpy(x)).numpy() == want).all()


def test_the_input_law_is_randint_minus_10_to_10_int32_and_fresh_per_seed():
    x = prefix.input_numpy(200_000, prefix.fresh_seed())
    assert x.dtype == np.int32 and x.min() == -10 and x.max() == 9
    assert not (x == prefix.input_numpy(200_000, prefix.fresh_seed())).all()


@pytest.mark.parametrize("which", ["mini start", "gpu start (on CPU tensors)", "mini reference"])
def test_cpu_solutions_are_exact(which, reference_dir, tmp_path):
    path = {"mini start": START["mini"], "gpu start (on CPU tensors)": START["gpu"],
            "mini reference": reference_dir / "mini" / "solution.py"}[which]
    solution = load(path, f"solution_{abs(hash(which))}")
    for case, x in edge_cases().items():
        y = solution.prefix_sum(torch.from_numpy(x.copy()))
        y = y.numpy() if isinstance(y, torch.Tensor) else y
        assert y.dtype == np.int32 and y.shape == x.shape, case
        assert (y == brute_force(x)).all(), case


INTERPRET_CHECK = r"""
import importlib.util, json, sys
import numpy as np, torch
sys.path.insert(0, sys.argv[1])
import prefix
from test_solutions import edge_cases
spec = importlib.util.spec_from_file_location("s", sys.argv[2]); s = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s)
kwargs = json.loads(sys.argv[3])
bad = []
for case, x in edge_cases().items():
    if len(x) > 5000:  # the interpreter runs one program at a time; 4097 still spans several tiles
        continue
    y = s.prefix_sum(torch.from_numpy(x.copy()), **kwargs)
    if y.dtype != torch.int32 or not (y.numpy() == prefix.expected_numpy(x)).all():
        bad.append(case)
print(json.dumps(bad))
"""


@pytest.mark.parametrize("which,kwargs", [
    ("gpu", {}),
    ("gpu_twopass", {}),
    ("gpu_twopass", {"tile": 256}),
    ("gpu_twopass", {"tile": 256, "max_scan": 1}),  # the tile summaries scanned by torch
    ("gpu_lookback", {}),
    ("gpu_lookback", {"tile": 256}),
    ("gpu_lookback", {"tile": 256, "lookback_test": True}),  # every tile walks back over summaries
])
def test_triton_solutions_are_exact_under_the_interpreter(which, kwargs, reference_dir):
    pytest.importorskip("triton")
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(Path(__file__).parent)}
    proc = subprocess.run(
        [sys.executable, "-c", INTERPRET_CHECK, str(ENV_DIR / "grader"), str(reference_dir / which / "solution.py"),
         json.dumps(kwargs)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []
