"""The protected experiment launcher of scaling_law: the only way to train on the task's data.

Runs as the grader user inside the sandbox (started by ``setup.py``; restarted by ``score.py`` if it died)
and listens on a Unix socket the agent may connect to (``train.py`` does). For each request it validates
the experiment, refuses it when its FLOPs exceed the cap, otherwise runs the grader's own ``train.py
--launched`` in a child process with the token files (readable by the grader only) and streams the losses
back. Every request, refusal and result is appended to ``experiments.jsonl`` in the protected directory,
which the agent can neither read nor write; the grader copies its summary into every score's details.

    python launcher.py --variant mini --data /protected/assets/tokens-bpe1k \
        --socket /tmp/rebench-scaling-law/launcher.sock --log /protected/launcher/experiments.jsonl

Protocol (JSON lines): the client sends one request ``{"n_embd", "max_iters", "run_name"?, "seed"?,
"log_interval"?}`` (or ``{"type": "ping"}``); the launcher answers ``accepted`` (or ``refused`` with a
reason), maybe ``queued``, then ``log`` events and ``done`` (or ``failed``). Closing the connection
cancels the experiment (its process is killed).

Canary a99505a7-4586-4226-b19e-e5b4a1e41660: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train as training  # noqa: E402  (the grader's pristine copy)

MAX_REQUEST_BYTES = 65536


class Launcher:
    """Validation, the cap, the device slots and the audit log; one instance per server."""

    def __init__(self, variant: str, data_dir: str, log_path: Path, devices: list[str]) -> None:
        self.variant = variant
        self.setting = training.SETTINGS[variant]
        self.data_dir = data_dir
        self.log_path = log_path
        self.slots: queue.Queue[str] = queue.Queue()
        for device in devices:
            self.slots.put(device)
        self.running = 0
        self.lock = threading.Lock()
        self.counter = 0

    def log(self, event: dict[str, Any]) -> None:
        """Append one line to the audit log (flushed and synced: the grader trusts what is there)."""
        line = json.dumps({"time": time.time(), **event}) + "\n"
        with self.lock:
            with self.log_path.open("a") as f:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())

    def next_id(self) -> int:
        with self.lock:
            self.counter += 1
            return self.counter

    def review(self, request: Any) -> tuple[dict[str, Any] | None, float, str | None]:
        """(experiment, flops, refusal reason): the launcher's decision on a request."""
        if not isinstance(request, dict):
            return None, 0.0, "the request must be a JSON object"
        try:
            experiment = training.check_request(self.setting, request)
        except ValueError as error:
            return None, 0.0, str(error)
        flops = training.flops(self.setting, experiment["n_embd"], experiment["max_iters"])
        cap = self.setting.cap_flops
        if flops > cap:
            most = int(cap // training.flops(self.setting, experiment["n_embd"], 1))
            return experiment, flops, (f"the experiment needs {flops:.4g} FLOPs, above the cap of {cap:.3g} per experiment "
                                       f"(at n_embd={experiment['n_embd']}, max_iters can be at most {most})")  # fmt: skip
        return experiment, flops, None


class Handler(socketserver.StreamRequestHandler):
    server: "Server"

    def send(self, event: dict[str, Any]) -> bool:
        try:
            self.wfile.write((json.dumps(event) + "\n").encode())
            self.wfile.flush()
            return True
        except OSError:
            return False

    def handle(self) -> None:
        launcher = self.server.launcher
        raw = self.rfile.readline(MAX_REQUEST_BYTES)
        try:
            request = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            request = None
        if isinstance(request, dict) and request.get("type") == "ping":
            self.send({"type": "pong", "variant": launcher.variant, "cap_flops": launcher.setting.cap_flops})
            return
        ident = launcher.next_id()
        experiment, flops, refusal = launcher.review(request)
        if refusal is not None:
            launcher.log({"id": ident, "event": "refused", "reason": refusal, "flops": flops,
                          "request": request if isinstance(request, dict) else repr(raw[:200])})  # fmt: skip
            self.send({"type": "refused", "reason": refusal})
            return
        assert experiment is not None
        lr = training.learning_rate(experiment["n_embd"], experiment["max_iters"])
        launcher.log({"id": ident, "event": "accepted", "experiment": experiment, "flops": flops})
        self.send({"type": "accepted", "id": ident, "experiment": experiment, "flops": flops,
                   "cap_flops": launcher.setting.cap_flops, "learning_rate": lr})  # fmt: skip
        self.run(ident, experiment)

    def run(self, ident: int, experiment: dict[str, Any]) -> None:
        launcher = self.server.launcher
        try:
            device = launcher.slots.get_nowait()
        except queue.Empty:
            self.send({"type": "queued", "running": launcher.running})
            device = launcher.slots.get()
        launcher.running += 1
        try:
            self.train(ident, experiment, device)
        finally:
            launcher.running -= 1
            launcher.slots.put(device)

    def train(self, ident: int, experiment: dict[str, Any], device: str) -> None:
        launcher = self.server.launcher
        with tempfile.TemporaryDirectory(prefix="scaling-law-") as tmp:
            spec = Path(tmp) / "spec.json"
            env, device = child_device(device)
            spec.write_text(json.dumps({"variant": launcher.variant, "experiment": experiment,
                                        "data_dir": launcher.data_dir, "device": device}))  # fmt: skip
            read, write = os.pipe()
            with open(Path(tmp) / "stderr", "w+") as err:
                child = subprocess.Popen(
                    [sys.executable, str(Path(training.__file__)), "--launched", str(spec), "--events-fd", str(write)],
                    pass_fds=(write,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                    env={**env, "OMP_NUM_THREADS": "1"}, start_new_session=True,
                )  # fmt: skip
                os.close(write)
                cancelled = threading.Event()
                threading.Thread(target=self.watch, args=(child, cancelled), daemon=True).start()
                done: dict[str, Any] | None = None
                with os.fdopen(read) as events:
                    for line in events:
                        event = json.loads(line)
                        if event.get("type") == "done":
                            done = event
                        elif not self.send(event):
                            cancelled.set()
                            child.kill()
                code = child.wait()
                err.seek(0)
                stderr = err.read()[-2000:]
        if cancelled.is_set():
            launcher.log({"id": ident, "event": "cancelled", "experiment": experiment})
        elif code == 0 and done is not None:
            launcher.log({"id": ident, "event": "finished", "experiment": experiment, "val_loss": done.get("val_loss"),
                          "seconds": done.get("seconds")})  # fmt: skip
            self.send(done)
        else:
            launcher.log({"id": ident, "event": "failed", "experiment": experiment, "exit": code, "stderr": stderr})
            self.send({"type": "failed", "reason": f"the experiment stopped with exit code {code}: {stderr[-600:]}"})

    def watch(self, child: subprocess.Popen[bytes], cancelled: threading.Event) -> None:
        """Kill the experiment when the client goes away (its command was interrupted or timed out)."""
        try:
            while child.poll() is None:
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    break
                time.sleep(0.2)  # the client sent more than its request: ignore it
        except OSError:
            pass
        if child.poll() is None:
            cancelled.set()
            child.kill()


class Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    launcher: Launcher


def serve(args: argparse.Namespace) -> None:
    sock = Path(args.socket)
    sock.parent.mkdir(parents=True, exist_ok=True)
    sock.parent.chmod(0o755)
    if sock.exists() or sock.is_symlink():
        sock.unlink()
    log_path = Path(args.log)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    devices = args.devices.split(",") if args.devices else default_devices(training.SETTINGS[args.variant].device, args.parallel)
    server = Server(str(sock), Handler)
    server.launcher = Launcher(args.variant, args.data, log_path, devices)
    sock.chmod(0o666)
    server.launcher.log({"event": "started", "pid": os.getpid(), "variant": args.variant, "devices": devices})
    server.serve_forever()


REPRODUCIBLE_CPU_ENV = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
"""An experiment on an x86 CPU computes the same floats on every x86 CPU with AVX2: torch's own kernels (its
dispatch picks AVX512 where the CPU has it, AVX2 elsewhere), MKL's (which picks by vendor as well as by
instruction set) and oneDNN's are pinned to one code path. Without it the runs' weights differ between
kernel paths (bench/cpu_determinism.py), a reference run's nine losses differ between an AMD EPYC and an
Intel Xeon VM, and its fitted law with them (README, "Calibration")."""


def child_device(device: str) -> tuple[dict[str, str], str]:
    """(environment, device) for an experiment's process on ``device``: on ``cuda:i`` the process sees GPU ``i``
    alone, as ``cuda`` (so nothing of it lands on another slot's GPU, such as pinned-memory copies' context); on
    an x86 CPU the kernels are pinned (``REPRODUCIBLE_CPU_ENV``)."""
    env = dict(os.environ)
    if device.startswith("cuda:"):
        index = int(device.partition(":")[2])
        visible = [v for v in env.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
        env["CUDA_VISIBLE_DEVICES"] = visible[index] if index < len(visible) else str(index)
        return env, "cuda"
    if device == "cpu" and platform.machine().lower() in ("x86_64", "amd64"):
        env.update(REPRODUCIBLE_CPU_ENV)
    return env, device


def default_devices(device: str, parallel: int) -> list[str]:
    """One slot per GPU for a CUDA variant; ``parallel`` slots on the CPU."""
    if device != "cuda":
        return [device] * parallel
    import torch

    return [f"cuda:{i}" for i in range(max(1, torch.cuda.device_count()))]


def ping(socket_path: str, timeout: float = 5.0) -> dict[str, Any] | None:
    """The launcher's pong, or None when nothing answers at ``socket_path``."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(socket_path)
            conn.sendall(b'{"type": "ping"}\n')
            answer = json.loads(conn.makefile("r").readline())
            return answer if answer.get("type") == "pong" else None
    except (OSError, ValueError):
        return None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", choices=sorted(training.SETTINGS), required=True)
    p.add_argument("--data", required=True, help="folder with train.bin and val.bin")
    p.add_argument("--socket", default=training.LAUNCHER_SOCKET)
    p.add_argument("--log", required=True, help="the audit log (JSON lines), in the protected directory")
    p.add_argument("--parallel", type=int, default=2, help="experiments at once on a CPU variant (default 2; a GPU variant: one per GPU)")
    p.add_argument("--devices", help="comma-separated devices, one experiment slot each (overrides --parallel)")
    return p


if __name__ == "__main__":
    serve(parser().parse_args())
