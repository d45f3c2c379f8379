"""The judge service of finetune_gpt2_qa: the agent's only way to the judge.

Runs as the grader user inside the sandbox (started by ``setup.py``, restarted by ``score.py`` when it
stopped answering) and listens on a Unix socket that the workspace's ``evaluation.py`` connects to. It holds
the rubric (``judge.py``), the reference LM and the answers of the visible prompts, none of which the agent
can read, and counts every pair it judges against the run's budget (``--budget``): a request that would go
past it is refused whole. Every request is appended to ``judge/calls.jsonl`` in the protected directory
(count, time, refusals), which the grader copies into every score's details.

    python judge_service.py --socket /tmp/rebench-gpt2-qa/judge.sock --state /protected/state \
        --assets /protected/assets --log /protected/judge/calls.jsonl --budget 20000

The paper variant judges with an LLM instead of the rubric: ``--openai paper-inputs/judge.json`` (an
OpenAI-compatible endpoint, ``openai_judge.OpenAIJudge.from_config``; no ``--state`` or ``--assets``).

Protocol (one JSON line each way): ``{"prompts": [...], "pairs": [[first, second], ...]}`` ->
``{"type": "verdicts", "verdicts": [true when first is preferred, ...], "used": N, "budget": B}`` or
``{"type": "refused", "reason": ...}``; ``{"type": "ping"}`` -> ``{"type": "pong", "used", "budget"}``.

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import socketserver
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judge import MAX_CHARS, Judge, load_judge  # noqa: E402
from tasks import read_tasks  # noqa: E402

SOCKET = "/tmp/rebench-gpt2-qa/judge.sock"
MAX_REQUEST_BYTES = 32 * 2**20
MAX_PAIRS_PER_REQUEST = 4096


class Service:
    def __init__(self, judge: Judge, budget: int, log_path: Path) -> None:
        self.judge = judge
        self.budget = budget
        self.log_path = log_path
        self.lock = threading.Lock()
        self.used = sum(int(e.get("pairs", 0)) for e in read_log(log_path) if e.get("event") == "judged")

    def log(self, event: dict[str, Any]) -> None:
        with self.log_path.open("a") as f:
            f.write(json.dumps({"time": time.time(), **event}) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def answer(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and request.get("type") == "ping":
            return {"type": "pong", "used": self.used, "budget": self.budget}
        if not isinstance(request, dict) or not isinstance(request.get("prompts"), list) or not isinstance(request.get("pairs"), list):
            return {"type": "refused", "reason": 'send {"prompts": [...], "pairs": [[first, second], ...]}'}
        prompts, pairs = request["prompts"], request["pairs"]
        if len(prompts) != len(pairs):
            return {"type": "refused", "reason": f"{len(prompts)} prompts but {len(pairs)} pairs"}
        if len(pairs) > MAX_PAIRS_PER_REQUEST:
            return {"type": "refused", "reason": f"at most {MAX_PAIRS_PER_REQUEST} pairs a request"}
        if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            return {"type": "refused", "reason": "each pair must be a list of two responses"}
        with self.lock:
            if self.used + len(pairs) > self.budget:
                self.log({"event": "refused", "pairs": len(pairs), "used": self.used})
                return {"type": "refused", "reason": f"the judge budget is spent: {self.used} of {self.budget} pairs used, {len(pairs)} asked"}
            self.used += len(pairs)
            self.log({"event": "judged", "pairs": len(pairs), "used": self.used})
            verdicts = self.judge.judge([p if isinstance(p, str) else "" for p in prompts], pairs)
        return {"type": "verdicts", "verdicts": verdicts, "used": self.used, "budget": self.budget}


class Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        line = self.rfile.readline(MAX_REQUEST_BYTES + 1)
        try:
            request = json.loads(line) if len(line) <= MAX_REQUEST_BYTES else None
        except ValueError:
            request = None
        answer = self.server.service.answer(request)  # type: ignore[attr-defined]
        try:
            self.wfile.write((json.dumps(answer) + "\n").encode())
        except OSError:
            pass


class Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    request_queue_size = 128  # listen() backlog (socketserver's default is 5): requests of many threads at once
    service: Service


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def summary(path: Path) -> dict[str, Any]:
    events = read_log(path)
    judged = [e for e in events if e.get("event") == "judged"]
    return {"requests": len(judged), "pairs": sum(int(e["pairs"]) for e in judged), "refused": sum(e.get("event") == "refused" for e in events)}


def ping(socket_path: str, timeout: float = 5.0) -> dict[str, Any] | None:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(socket_path)
            conn.sendall(b'{"type": "ping"}\n')
            answer = json.loads(conn.makefile("r").readline())
            return answer if answer.get("type") == "pong" else None
    except (OSError, ValueError):
        return None


def load_service_judge(args: argparse.Namespace) -> Any:
    """The rubric judge of ``--state`` and ``--assets``, or with ``--openai`` the LLM endpoint of that ``judge.json``."""
    if args.openai:
        from openai_judge import OpenAIJudge

        return OpenAIJudge.from_config(Path(args.openai))
    if not (args.state and args.assets):
        raise SystemExit("the rubric judge needs --state and --assets (or --openai for an LLM endpoint)")
    torch_threads = int(os.environ.get("REBENCH_JUDGE_THREADS", "1"))
    import torch

    torch.set_num_threads(torch_threads)
    visible = list(read_tasks(Path(args.state) / "visible_tasks.jsonl"))
    return load_judge(Path(args.assets) / args.lm / "model.pt", Path(args.assets) / args.tokenizer, {t.prompt: t for t in visible}, device=args.device,
                      visible=visible)  # fmt: skip


def serve(args: argparse.Namespace) -> None:
    judge = load_service_judge(args)
    sock = Path(args.socket)
    sock.parent.mkdir(parents=True, exist_ok=True)
    sock.parent.chmod(0o755)
    if sock.exists() or sock.is_symlink():
        sock.unlink()
    log_path = Path(args.log)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    server = Server(str(sock), Handler)
    server.service = Service(judge, args.budget, log_path)
    sock.chmod(0o666)
    server.service.log({"event": "started", "pid": os.getpid(), "budget": args.budget, "max_chars": MAX_CHARS})
    server.serve_forever()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--socket", default=SOCKET)
    p.add_argument("--state", help="folder with visible_tasks.jsonl (the rubric judge)")
    p.add_argument("--assets", help="folder with the reference LM and tokenizer assets (the rubric judge)")
    p.add_argument("--openai", help="judge.json of an OpenAI-compatible endpoint (paper): judge with that LLM instead of the rubric")
    p.add_argument("--lm", default="mini-small")
    p.add_argument("--tokenizer", default="tokenizer-bpe4k")
    p.add_argument("--device", default="cpu", help="where the reference LM runs: cpu or cuda (the profile's device; the CPU where CUDA is missing)")
    p.add_argument("--log", required=True)
    p.add_argument("--budget", type=int, required=True, help="pairs the agent may have judged in the whole run")
    return p


if __name__ == "__main__":
    serve(parser().parse_args())
