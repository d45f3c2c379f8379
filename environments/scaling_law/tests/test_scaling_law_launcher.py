"""The experiment launcher: runs what is under the cap, refuses and logs the rest, cancels on disconnect.

Runs the real launcher process (as the current user) on random token files and drives it with the
workspace's train.py, as the agent does. Experiments here are a few steps of a tiny model.

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from scaling_law_helpers import GRADER

import launcher
import launcher_control
import train as training

PYTHONPATH = str(Path(__file__).resolve().parents[3] / "python")


def start_launcher(root: Path, token_dir: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[launcher_control.Paths, int]:
    """A launcher for the mini variant on random tokens under ``root``: its Paths and process group."""
    monkeypatch.setenv("REBENCH_SCALING_LAUNCHER", str(root / "sock" / "launcher.sock"))
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    protected = root / "protected"
    (protected / "assets").mkdir(parents=True)
    (protected / "assets" / "tokens-bpe1k").symlink_to(token_dir)
    paths = launcher_control.Paths.of(protected, "mini")
    return paths, launcher_control.start(paths, "mini")["pid"]


@pytest.fixture()
def running(tmp_path, token_dir, monkeypatch):
    """A launcher for the mini variant on random tokens; yields its Paths; stopped afterwards."""
    paths, group = start_launcher(tmp_path, token_dir, monkeypatch)
    yield paths
    os.killpg(group, signal.SIGKILL)


def client(workspace: Path, *args: str) -> subprocess.Popen[str]:
    workspace.mkdir(exist_ok=True)
    return subprocess.Popen([sys.executable, str(GRADER / "train.py"), *args], cwd=workspace, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


def events(paths: launcher_control.Paths) -> list[dict]:
    return [json.loads(line) for line in paths.log.read_text().splitlines()]


def test_an_experiment_under_the_cap_runs_and_its_losses_land_in_the_workspace(running, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cfg.py").write_text("n_embd = 32\nmax_iters = 4\nrun_name = 'tiny'\nlog_interval = 2\n")
    proc = client(ws, "cfg.py")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    lines = (ws / "losses" / "tiny.txt").read_text().splitlines()
    assert lines[0].startswith("iter 2: loss ") and lines[-1].startswith("val_loss ")
    record = json.loads((ws / "losses" / "tiny.json").read_text())
    assert record["flops"] == training.flops(training.SETTINGS["mini"], 32, 4) and len(record["train"]) == 2
    kinds = [e["event"] for e in events(running)]
    assert kinds == ["started", "accepted", "finished"]


def test_an_experiment_over_the_cap_is_refused_and_logged_whatever_the_client_says(running, tmp_path):
    cap_iters = int(training.SETTINGS["mini"].cap_flops // training.flops(training.SETTINGS["mini"], 64, 1))
    proc = client(tmp_path / "ws", "--n_embd=64", f"--max_iters={cap_iters + 1}")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and f"max_iters can be at most {cap_iters}" in err
    # A hand-made request (an edited train.py) gets the same answer: the check is the launcher's.
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(running.socket)
        conn.sendall(json.dumps({"n_embd": 4096, "max_iters": 10**6}).encode() + b"\n")
        answer = json.loads(conn.makefile().readline())
    assert answer["type"] == "refused"
    refused = [e for e in events(running) if e["event"] == "refused"]
    assert len(refused) == 2 and all(e["flops"] > training.SETTINGS["mini"].cap_flops for e in refused)
    assert not [e for e in events(running) if e["event"] == "accepted"]


def test_bad_requests_are_refused_with_a_reason(running):
    for request, reason in [({"n_embd": 30, "max_iters": 5}, "multiple of n_head"), ({"n_embd": 32, "max_iters": "5"}, "integer"),
                            ({"n_embd": 32, "max_iters": 5, "run_name": "../x"}, "run_name")]:  # fmt: skip
        with socket.socket(socket.AF_UNIX) as conn:
            conn.connect(running.socket)
            conn.sendall(json.dumps(request).encode() + b"\n")
            answer = json.loads(conn.makefile().readline())
        assert answer["type"] == "refused" and reason in answer["reason"]


def test_interrupting_the_client_cancels_the_experiment(running, tmp_path):
    proc = client(tmp_path / "ws", "--n_embd=16", "--max_iters=490", "--log_interval=1", "--run_name=long")
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while "iter 1:" not in proc.stdout.readline() and time.monotonic() < deadline:
        pass
    proc.kill()
    proc.wait()
    for _ in range(100):
        if any(e["event"] == "cancelled" for e in events(running)):
            break
        time.sleep(0.1)
    assert [e["event"] for e in events(running)][-1] == "cancelled"
    assert launcher.ping(running.socket) is not None


def test_without_a_launcher_the_client_says_where_experiments_run(tmp_path, monkeypatch):
    monkeypatch.setenv("REBENCH_SCALING_LAUNCHER", str(tmp_path / "nothing.sock"))
    proc = client(tmp_path / "ws", "--n_embd=32", "--max_iters=4")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 3 and "score" in err


def test_fixed_hyperparameters_cannot_be_set_in_a_config(tmp_path):
    proc = client(tmp_path / "ws", "--n_embd=32", "--max_iters=4", "--batch_size=64")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and "fixed by the task" in err



def _val_loss_under(dispatch: str, root: Path, token_dir: Path, monkeypatch: pytest.MonkeyPatch) -> float:
    """An experiment's val_loss through a launcher started where the CPU would dispatch ``dispatch`` kernels."""
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", dispatch)
    monkeypatch.setenv("MKL_ENABLE_INSTRUCTIONS", dispatch.upper())
    _, group = start_launcher(root, token_dir, monkeypatch)
    try:
        ws = root / "ws"
        ws.mkdir()
        (ws / "cfg.py").write_text("n_embd = 32\nmax_iters = 60\nrun_name = 'pin'\nlog_interval = 20\n")
        proc = client(ws, "cfg.py")
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        return json.loads((ws / "losses" / "pin.json").read_text())["val_loss"]
    finally:
        os.killpg(group, signal.SIGKILL)


def test_an_experiment_on_the_cpu_runs_the_same_kernels_whatever_the_cpu_would_dispatch(tmp_path, token_dir, monkeypatch):
    """ATEN_CPU_CAPABILITY and MKL's instruction set stand for the CPU (an AVX512 one picks other kernels than an
    AVX2 one, MKL picks by vendor too): the launcher pins its experiments' kernels (REPRODUCIBLE_CPU_ENV), so
    both give the same loss to the bit (without the pin they differ: 60 steps are enough to show it)."""
    assert launcher.child_device("cpu")[0]["ATEN_CPU_CAPABILITY"] == "avx2"
    wide = _val_loss_under("avx512", tmp_path / "wide", token_dir, monkeypatch)
    narrow = _val_loss_under("avx2", tmp_path / "narrow", token_dir, monkeypatch)
    assert wide == narrow
