"""The `paper` variant: CodeContests' own problems and a real OpenAI-compatible model, as in the original task.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

 * Problems: the HF dataset `taoroalin/code_contests_slim_json` (CodeContests' valid split, 117 problems, for the
   agent; its test split, 165 problems, hidden), downloaded once by `build_paper` and normalized to the shape the
   grader reads (tests as {input: [...], output: [...]}, time_limit {seconds, nanos}).
 * Model: any OpenAI-compatible endpoint, gpt-3.5-turbo-0125 by default. The agent never holds the real key: a
   local proxy (ProxyService, run as the grader user) forwards requests with it, counts the tokens the endpoint
   reports and enforces the credit budget. Environment (grader only):
     RUST_CODECONTESTS_OPENAI_BASE_URL  default https://api.openai.com/v1
     RUST_CODECONTESTS_OPENAI_API_KEY   (or AI_RD_RUST_CODECONTESTS_INFERENCE_OPENAI_API_KEY, the original's name)
     RUST_CODECONTESTS_PRICES           "prompt,completion" dollars per million tokens, default "0.5,1.5"
"""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Mapping

from rcc_model_service import KeySpec, ModelService, Refused, UpstreamError
from rcc_responses import prompt_tokens
from rcc_variants import VariantConfig

DATASET_URL = "https://huggingface.co/datasets/taoroalin/code_contests_slim_json/resolve/main/{split}.jsonl"
EXPECTED_COUNTS = {"valid": 117, "test": 165}
TEST_SETS = ("public_tests", "private_tests", "generated_tests")


def _tests(raw: Any) -> dict[str, list[str]]:
    """CodeContests stores tests as {input: [...], output: [...]}; some exports use a list of {input, output}."""
    if isinstance(raw, Mapping):
        return {"input": [str(x) for x in raw.get("input") or []], "output": [str(x) for x in raw.get("output") or []]}
    if isinstance(raw, list):
        return {"input": [str(t.get("input", "")) for t in raw], "output": [str(t.get("output", "")) for t in raw]}
    return {"input": [], "output": []}


def normalize_problem(raw: Mapping[str, Any]) -> dict[str, Any]:
    """One dataset row in the grader's shape; unknown fields are kept, missing ones get CodeContests' defaults."""
    problem = dict(raw)
    problem["name"] = str(raw.get("name") or raw.get("id") or "unnamed")
    problem["description"] = str(raw.get("description") or "")
    for key in TEST_SETS:
        problem[key] = _tests(raw.get(key))
    limit = raw.get("time_limit")
    if isinstance(limit, (int, float)):
        limit = {"seconds": int(limit), "nanos": int(round((limit - int(limit)) * 1e9))}
    problem["time_limit"] = limit if isinstance(limit, Mapping) else None
    return problem


def load_problems(path: Path) -> list[dict[str, Any]]:
    return [normalize_problem(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def download(split: str, dest: Path, url_template: str = DATASET_URL, token: str | None = None) -> Path:
    """Fetch one split's JSONL (once; kept at ``dest``)."""
    if dest.exists():
        return dest
    request = urllib.request.Request(url_template.format(split=split))
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".part")
    with urllib.request.urlopen(request, timeout=300) as response, open(tmp, "wb") as f:
        while block := response.read(1 << 20):
            f.write(block)
    os.replace(tmp, dest)
    return dest


def build_paper(out: Path, url_template: str = DATASET_URL, cache: Path | None = None) -> dict[str, int]:
    """Write BUILD/workspace/data/valid.jsonl and BUILD/protected/test.jsonl from the dataset."""
    cache = cache or Path.home() / ".cache" / "rebench" / "rust_codecontests" / "hf"
    token = os.environ.get("HF_TOKEN")
    counts = {}
    for split, target in (("valid", out / "workspace" / "data" / "valid.jsonl"),
                          ("test", out / "protected" / "test.jsonl")):
        problems = load_problems(download(split, cache / f"{split}.jsonl", url_template, token))
        if len(problems) != EXPECTED_COUNTS[split]:
            print(f"warning: {split} has {len(problems)} problems, the original has {EXPECTED_COUNTS[split]}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(json.dumps(p) + "\n" for p in problems))
        counts[split] = len(problems)
    return counts


def upstream_from_env() -> tuple[str, str, tuple[float, float]]:
    base_url = os.environ.get("RUST_CODECONTESTS_OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    key = (os.environ.get("RUST_CODECONTESTS_OPENAI_API_KEY")
           or os.environ.get("AI_RD_RUST_CODECONTESTS_INFERENCE_OPENAI_API_KEY"))
    if not key:
        raise SystemExit("paper variant: set RUST_CODECONTESTS_OPENAI_API_KEY for the grader (never the agent)")
    prompt_price, completion_price = (float(x) / 1e6 for x in
                                      os.environ.get("RUST_CODECONTESTS_PRICES", "0.5,1.5").split(","))
    return base_url, key, (prompt_price, completion_price)


class ProxyService(ModelService):
    """Forwards chat completions to a real endpoint with the grader's key; charges the usage it reports.

    Before forwarding, the request's largest possible cost (its prompt and n x max_tokens completion tokens,
    max_tokens capped to what the key can still pay for) must fit the key's remaining credit."""

    charge_before = False  # the endpoint has been paid: record what it cost

    def __init__(self, upstream_url: str, upstream_key: str, keys: Mapping[str, KeySpec], state_dir: Path,
                 prices: tuple[float, float] = (0.5e-6, 1.5e-6), default_max_tokens: int = 4096):
        super().__init__({}, keys, "proxy", state_dir)
        self.upstream_url, self.upstream_key, self.prices = upstream_url, upstream_key, prices
        self.default_max_tokens = default_max_tokens

    def respond(self, body: Mapping[str, Any], api_key: str, spec: KeySpec, n: int, temperature: float,
                max_tokens: int | None) -> tuple[dict[str, Any], int, int, dict[str, Any]]:
        remaining = self.remaining(api_key)
        prompt_cost = prompt_tokens(body["messages"]) * self.prices[0]
        affordable = math.floor((remaining - prompt_cost) / (n * self.prices[1])) if remaining < math.inf else 10**9
        cap = min(max_tokens or self.default_max_tokens, affordable)
        if cap < 1:
            raise Refused(f"You exceeded your current quota (${max(0.0, remaining):.4f} left).")
        forwarded = dict(body, max_tokens=cap)
        forwarded.pop("max_completion_tokens", None)
        request = urllib.request.Request(f"{self.upstream_url}/chat/completions", data=json.dumps(forwarded).encode(),
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": f"Bearer {self.upstream_key}"})
        try:
            with urllib.request.urlopen(request, timeout=600) as response:
                payload = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                detail = json.loads(exc.read())
            except ValueError:
                detail = {"error": {"message": str(exc), "type": "upstream_error"}}
            raise UpstreamError(exc.code, detail) from exc
        except OSError as exc:
            raise UpstreamError(502, {"error": {"message": f"upstream unreachable: {exc}", "type": "upstream_error"}})
        usage = payload.get("usage") or {}
        return payload, int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)), {
            "problem": None, "upstream": self.upstream_url}


def proxy_factory(keys_budget: float | None, splits: tuple[str, ...]):  # noqa: ANN201 - a small closure
    base_url, key, prices = upstream_from_env()

    def make(api_key: str, seed: str, state: Path) -> ModelService:
        budget = keys_budget if keys_budget is not None else math.inf
        return ProxyService(base_url, key, {api_key: KeySpec(budget, splits, "scoring")}, state, prices)

    return make


def grade_paper(config: VariantConfig, protected: Path, workspace: Path, module: str, task: str) -> dict[str, Any]:
    from rcc_grade import grade

    problems = load_problems(protected / "test.jsonl")
    return grade(config, protected, workspace, module, task, problems,
                 proxy_factory(config.scoring_budget_usd, config.hidden_splits))
