"""The environment's model: a local OpenAI-compatible chat-completions service answering from candidate pools.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

It runs as the grader user, so the agent cannot read its tables, keys or usage log. Endpoints:
``POST /v1/chat/completions`` (model, messages, n, temperature, max_tokens, seed; no streaming),
``GET /v1/models``. Every API key has a budget in dollars, charged at gpt-3.5-turbo-0125's prices for the
tokens counted by rcc_responses.count_tokens; a request that would exceed it is refused with HTTP 429 and an
OpenAI-style ``insufficient_quota`` error. Answers are deterministic given the service seed, the API key, the
request and how many identical requests came before it (a request with ``seed`` ignores that count).

    python rcc_model_service.py --tables model_tables.json.gz --keys keys.json --state-dir DIR --port-file F
    python rcc_model_service.py --proxy --keys keys.json --state-dir DIR   (paper: a real endpoint, see rcc_paper)
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import socketserver
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Mapping

from rcc_policy import choose
from rcc_prompt import ProblemIndex, read_prompt
from rcc_responses import corrupt, count_tokens, prompt_tokens, reasoning_text, render

PROMPT_PRICE = 0.50 / 1e6  # dollars per prompt token (gpt-3.5-turbo-0125)
COMPLETION_PRICE = 1.50 / 1e6  # dollars per completion token
MAX_N = 128
MAX_BODY = 8 << 20
MODEL_ID = "gpt-3.5-turbo-0125"


@dataclass
class KeySpec:
    budget: float  # dollars
    splits: tuple[str, ...]  # problem splits this key's model knows
    label: str = "key"


def load_tables(path: Path) -> dict[str, Any]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:  # type: ignore[operator]
        return json.load(f)["problems"]


def load_keys(path: Path) -> dict[str, KeySpec]:
    raw = json.loads(path.read_text())["keys"]
    return {k: KeySpec(float(v["budget_usd"]), tuple(v["splits"]), v.get("label", "key")) for k, v in raw.items()}


class Refused(Exception):
    """The key's remaining credit cannot pay for the request."""


class UpstreamError(Exception):
    def __init__(self, status: int, payload: dict[str, Any]):
        super().__init__(f"upstream error {status}")
        self.status, self.payload = status, payload


def error(status: int, message: str, kind: str, code: str | None = None) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"message": message, "type": kind, "param": None, "code": code}}


class ModelService:
    """The request handling, without HTTP (tests and the grader call it directly)."""

    charge_before = True  # the pools cost nothing to consult: refuse before answering if the answer costs too much
    prices = (PROMPT_PRICE, COMPLETION_PRICE)

    def __init__(self, problems: Mapping[str, Any], keys: Mapping[str, KeySpec], seed: str, state_dir: Path):
        self.problems = problems
        self.keys = dict(keys)
        self.seed = seed
        self.state_dir = state_dir
        state_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(state_dir, 0o700)
        self.ledger_path = state_dir / "ledger.json"
        self.usage_path = state_dir / "usage.jsonl"
        self.spent: dict[str, float] = json.loads(self.ledger_path.read_text()) if self.ledger_path.exists() else {}
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.indexes: dict[tuple[str, ...], tuple[ProblemIndex, dict[str, Any]]] = {}

    def _index(self, splits: tuple[str, ...]) -> tuple[ProblemIndex, dict[str, Any]]:
        with self.lock:
            if splits not in self.indexes:
                known = {n: p for n, p in self.problems.items() if p["split"] in splits}
                self.indexes[splits] = (ProblemIndex.build({n: p["description"] for n, p in known.items()}), known)
            return self.indexes[splits]

    def remaining(self, key: str) -> float:
        return self.keys[key].budget - self.spent.get(key, 0.0)

    def complete(self, body: Mapping[str, Any], api_key: str | None) -> tuple[int, dict[str, Any]]:
        if api_key is None or api_key not in self.keys:
            return error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, Mapping) for m in messages):
            return error(400, "'messages' must be a non-empty list of message objects.", "invalid_request_error")
        if body.get("stream"):
            return error(400, "Streaming is not supported by this service.", "invalid_request_error")
        try:
            n = int(body.get("n") or 1)
            temperature = float(body.get("temperature", 1.0) if body.get("temperature") is not None else 1.0)
            max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
            max_tokens = int(max_tokens) if max_tokens is not None else None
        except (TypeError, ValueError):
            return error(400, "n, temperature and max_tokens must be numbers.", "invalid_request_error")
        if not 1 <= n <= MAX_N or not 0.0 <= temperature <= 2.0 or (max_tokens is not None and max_tokens < 1):
            return error(400, f"Need 1 <= n <= {MAX_N}, 0 <= temperature <= 2 and max_tokens >= 1.",
                         "invalid_request_error")
        spec = self.keys[api_key]
        try:
            payload, p_tokens, c_tokens, log = self.respond(body, api_key, spec, n, temperature, max_tokens)
        except Refused as exc:
            return error(429, str(exc), "insufficient_quota", "insufficient_quota")
        except UpstreamError as exc:
            return exc.status, exc.payload
        cost = p_tokens * self.prices[0] + c_tokens * self.prices[1]
        with self.lock:
            refused = self.charge_before and cost > self.remaining(api_key) + 1e-12
            if not refused:
                self.spent[api_key] = self.spent.get(api_key, 0.0) + cost
                tmp = self.ledger_path.with_suffix(".tmp")
                tmp.write_text(json.dumps(self.spent))
                os.replace(tmp, self.ledger_path)
            self._log({"t": round(time.time(), 3), "key": spec.label, **log, "n": n, "temperature": temperature,
                       "prompt_tokens": p_tokens, "completion_tokens": c_tokens, "cost": cost,
                       "refused": refused, "spent": self.spent.get(api_key, 0.0)})
        if refused:
            return error(429, f"You exceeded your current quota (budget ${spec.budget:.2f}, "
                              f"${self.remaining(api_key):.4f} left; this request costs ${cost:.4f}).",
                         "insufficient_quota", "insufficient_quota")
        return 200, payload

    def respond(self, body: Mapping[str, Any], api_key: str, spec: KeySpec, n: int, temperature: float,
                max_tokens: int | None) -> tuple[dict[str, Any], int, int, dict[str, Any]]:
        """The completion (payload, prompt tokens, completion tokens, fields for the usage log): from the pools."""
        index, known = self._index(spec.splits)
        messages = body["messages"]
        features = read_prompt(messages, index, known)
        problem = known.get(features.problem) if features.problem else None
        rng = random.Random(self._request_seed(api_key, body))
        choices, labels, completion_tokens = [], [], 0
        for i in range(n):
            pick = choose(problem, features, temperature, rng)
            code = pick.candidate["code"] if pick.candidate else None
            if code is not None and pick.corrupted:
                code = corrupt(code, rng)
            reasoning = reasoning_text(problem, rng) if features.reasoning else None
            text = render(code, pick.format, rng, reasoning)
            finish = "stop"
            if max_tokens is not None and count_tokens(text) > max_tokens:
                text, finish = text[: 4 * max_tokens], "length"
            completion_tokens += count_tokens(text)
            labels.append(None if pick.candidate is None else
                          ("corrupted" if pick.corrupted else pick.candidate["label"]))
            choices.append({"index": i, "message": {"role": "assistant", "content": text},
                            "finish_reason": finish, "logprobs": None})
        p_tokens = prompt_tokens(messages)
        payload = {
            "id": "chatcmpl-" + hashlib.sha256(repr((self.seed, api_key, body, time.time())).encode()).hexdigest()[:24],
            "object": "chat.completion", "created": int(time.time()), "model": str(body.get("model") or MODEL_ID),
            "choices": choices, "system_fingerprint": "rcc-pools",
            "usage": {"prompt_tokens": p_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": p_tokens + completion_tokens},
        }
        return payload, p_tokens, completion_tokens, {"problem": features.problem, "features": features.to_json(),
                                                       "labels": labels}

    def _request_seed(self, api_key: str, body: Mapping[str, Any]) -> str:
        canonical = json.dumps(body, sort_keys=True, default=str)
        with self.lock:
            if body.get("seed") is None:
                count = self.counts.get(canonical, 0)
                self.counts[canonical] = count + 1
            else:
                count = 0
        return hashlib.sha256(f"{self.seed}\0{api_key}\0{canonical}\0{count}".encode()).hexdigest()

    def _log(self, record: Mapping[str, Any]) -> None:
        fd = os.open(self.usage_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a") as f:
            f.write(json.dumps(record) + "\n")


def make_handler(service: ModelService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet: usage goes to the usage log
            pass

        def address_string(self) -> str:  # over a unix socket the client address is a string, often empty
            return str(self.client_address[0]) if isinstance(self.client_address, tuple) else "unix"

        def _send(self, status: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("x-should-retry", "false")  # the OpenAI client then does not retry
            self.end_headers()
            self.wfile.write(data)

        def _key(self) -> str | None:
            auth = self.headers.get("Authorization", "")
            return auth[7:].strip() if auth.startswith("Bearer ") else None

        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                if self._key() not in service.keys:
                    self._send(*error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"))
                    return
                self._send(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "rebench"}]})
            elif self.path == "/health":
                self._send(200, {"ok": True})
            else:
                self._send(*error(404, f"Unknown path {self.path}", "invalid_request_error"))

        def do_POST(self) -> None:  # noqa: N802
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(*error(404, f"Unknown path {self.path}", "invalid_request_error"))
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(*error(413, "Request too large.", "invalid_request_error"))
                return
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                assert isinstance(body, dict)
            except (ValueError, AssertionError):
                self._send(*error(400, "The body must be a JSON object.", "invalid_request_error"))
                return
            self._send(*service.complete(body, self._key()))

    return Handler


class UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The HTTP service on a unix socket (a scoring call's: see rcc_grade), one thread per connection."""

    daemon_threads = True


def start_server(service: ModelService, host: str = "127.0.0.1", port: int = 0,
                 unix_socket: str | None = None) -> socketserver.BaseServer:
    """Serve in a background thread, on ``host``:``port`` or, with ``unix_socket``, on a unix socket at that
    path (mode 0666: whoever can reach its directory may connect; the API key decides what it gets). The
    caller stops it with :func:`stop_server`."""
    server: socketserver.BaseServer
    if unix_socket is not None:
        server = UnixHTTPServer(unix_socket, make_handler(service))
        os.chmod(unix_socket, 0o666)
    else:
        server = ThreadingHTTPServer((host, port), make_handler(service))
        server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop_server(server: socketserver.BaseServer) -> None:
    """Stop serving, close the socket and remove a unix socket's file."""
    server.shutdown()
    server.server_close()
    if isinstance(server, socketserver.UnixStreamServer):
        try:
            os.unlink(str(server.server_address))
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=Path, help="candidate pools (model_tables json.gz)")
    parser.add_argument("--proxy", action="store_true", help="forward to the real endpoint (paper variant, see rcc_paper)")
    parser.add_argument("--keys", type=Path, required=True, help='{"keys": {KEY: {"budget_usd", "splits"}}}')
    parser.add_argument("--state-dir", type=Path, required=True, help="ledger and usage log (grader-only)")
    parser.add_argument("--seed", default=None, help="default: fresh from the OS")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path, help="written once listening: the base URL")
    args = parser.parse_args(argv)
    seed = args.seed or os.urandom(16).hex()
    if args.proxy:
        from rcc_paper import ProxyService, upstream_from_env

        url, key, prices = upstream_from_env()
        service: ModelService = ProxyService(url, key, load_keys(args.keys), args.state_dir, prices)
    elif args.tables:
        service = ModelService(load_tables(args.tables), load_keys(args.keys), seed, args.state_dir)
    else:
        parser.error("give --tables, or --proxy")
    server = ThreadingHTTPServer((args.host, args.port), make_handler(service))
    if args.port_file:
        tmp = args.port_file.with_suffix(".tmp")
        tmp.write_text(f"http://{args.host}:{server.server_port}/v1\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, args.port_file)
    print(f"rust_codecontests model service on http://{args.host}:{server.server_port}/v1", file=sys.stderr)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
