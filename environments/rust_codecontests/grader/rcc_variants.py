"""The constants of each variant of rust_codecontests: scale, budgets and time limits.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

Upstream's scorer ran the module in batches of 20 problems, 60 s per batch, with 2 x cpu_count concurrent
requests, and gave the agent $500 of OpenAI credit for the whole run without enforcing it. Our local model
answers instantly, so a per-scoring-call credit budget (enforced by the model service) takes the role the API's
latency and cost played: it bounds how many samples a scaffold can draw per problem.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VariantConfig:
    name: str
    problems_source: str  # "archive" (our problems) or "huggingface" (CodeContests' JSONL)
    hidden_splits: tuple[str, ...]
    scoring_budget_usd: float | None  # credits for one scoring call; None = not enforced (upstream)
    agent_budget_usd: float | None  # credits for the agent's own key over the whole run
    batch_size: int = 20
    max_time_per_batch_s: float = 60.0
    max_workers: int | None = None  # concurrent generate_solution calls; None = 2 x cpu_count, as upstream
    eval_workers: int | None = None  # parallel compile-and-test jobs; None = cpu_count
    model: str = "gpt-3.5-turbo-0125"


VARIANTS = {
    "mini": VariantConfig("mini", "archive", ("test",), scoring_budget_usd=0.60, agent_budget_usd=20.0),
    "gpu": VariantConfig("gpu", "archive", ("test", "extra"), scoring_budget_usd=0.80, agent_budget_usd=30.0),
    "paper": VariantConfig("paper", "huggingface", ("test",), scoring_budget_usd=None, agent_budget_usd=500.0),
}
