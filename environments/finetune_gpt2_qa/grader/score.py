"""Grader of finetune_gpt2_qa: the mean win rate of the agent's model against the two references.

Run by rebench as the grader user, with the protected directory as working directory:

    python3 grader/score.py        # workspace, protected directory, task and result path from REBENCH_*

1. Loads ``finetuned_model/model.pt`` (a regular file, ``weights_only``) strictly into the base policy's
   architecture, recorded at set-up: the weights are the submission.
2. Asks the agent's ``model.py`` for its generation settings (``generation_settings()``), running it as the
   agent in the one-shot jail (it sees nothing hidden), and validates them (``GenerationSettings.parse``;
   ``max_new_tokens`` is capped at the profile's limit).
3. Samples ``samples`` responses per hidden prompt with the grader's own sampler (``rebench_env.chat.sample``)
   under the canonical settings (``canonical_settings``: temperature and top_p rounded to 0.01, no-ops dropped)
   and one seed per run (``scoring_seed``: the run's secret alone): scoring the same submission again gives the
   same score, and a change that barely moves the distribution barely moves the responses, so ``max``
   aggregation over repeated calls is not a re-roll.
4. Compares each response with each reference's response to the same prompt by the judge (``judge.py``), in
   this process: no budget, nothing the agent can reach. The grader takes the probability that the judge
   prefers the agent's response (``Judge.win_probability``: the verdict with its random order and noise
   integrated out) rather than one draw of the verdict, which carries the same expectation with less
   noise. Win rate per reference = the mean of those probabilities; score = the mean of the two win rates;
   higher is better; the run's final score is the maximum. Each score is appended to ``judge/scores.jsonl``
   (``score_log.py``: the first is the start's).

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

from rebench_env.agent_call import Jail, jail_output_dir, run_as_agent
from rebench_env.chat import GenerationSettings, sample
from rebench_env.gpt import GPT, GPTConfig
from rebench_env.result import grader_main, outcome_error, outcome_invalid, outcome_scored
from rebench_env.secrets import environment_secret, seed_from
from rebench_env.tokenizer import load_tokenizer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import judge_service  # noqa: E402
import score_log  # noqa: E402
from judge import load_judge  # noqa: E402
from settings import PROFILES  # noqa: E402
from setup import start_judge  # noqa: E402
from tasks import read_tasks  # noqa: E402

SOLUTION = Path("finetuned_model") / "model.pt"
SETTINGS_PROGRAM = (
    "import json, sys; sys.path.insert(0, '.'); import model; "
    "json.dump(model.generation_settings(), open(sys.argv[1], 'w'))"
)


class Refused(Exception):
    pass


def load_submission(workspace: Path, architecture: dict[str, Any], max_bytes: int) -> tuple[GPT, str]:
    """The submitted model and the SHA-256 of its file."""
    path = workspace / SOLUTION
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise Refused(f"no {SOLUTION} in the workspace") from None
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"{SOLUTION} is not a regular file")
    if info.st_size > max_bytes:
        raise Refused(f"{SOLUTION} is larger than {max_bytes} bytes")
    data = path.read_bytes()
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # noqa: BLE001
        raise Refused(f"{SOLUTION} does not load with weights_only=True: {str(error)[:300]}") from None
    if not isinstance(state, dict):
        raise Refused(f"{SOLUTION} is not a state dict")
    weights = {k: v for k, v in state.items() if k != "config"}
    torch.manual_seed(0)
    model = GPT(GPTConfig.from_dict(architecture))
    try:
        model.load_state_dict(weights, strict=True)
    except RuntimeError as error:
        raise Refused(f"{SOLUTION} does not fit the base model's architecture: {str(error)[:500]}") from None
    if not all(torch.isfinite(p).all() for p in model.parameters()):
        raise Refused(f"{SOLUTION} has non-finite weights")
    return model.eval(), hashlib.sha256(data).hexdigest()


def scoring_seed(protected: Path) -> int:
    """The sampling seed of every scoring call of the run: the run's secret alone (the agent cannot compute it).

    Not the submission's: keyed by the weights' SHA-256 and the settings' JSON, a temperature of 1.0000000001 or a
    weight nudged in its last bit was a fresh draw of all 1,000 responses, a free re-roll under ``max``
    aggregation (README, History 11). Under one seed, ``sample`` draws each batch from its own stream and each
    token as the argmax of probabilities over exponential noise, so a submission scored again gets the same
    responses, and one that barely moves the distribution gets nearly the same ones.
    """
    return seed_from(environment_secret(protected), "score")


SETTINGS_GRID = 100
"""Temperature and top_p are rounded to 1 / SETTINGS_GRID (0.01) before sampling."""


def canonical_settings(settings: GenerationSettings, vocab_size: int) -> GenerationSettings:
    """The settings the grader samples with: one form for settings that sample the same (or a hair's breadth
    from it). Temperature and top_p rounded to 0.01; a top_k of the vocabulary or more, and a top_p of 1, dropped
    (no-ops); temperature 0 (after rounding) or top_k 1 is greedy, without top_k and top_p."""
    temperature = round(settings.temperature * SETTINGS_GRID) / SETTINGS_GRID
    top_k = settings.top_k if settings.top_k is not None and settings.top_k < vocab_size else None
    top_p = None if settings.top_p is None else max(1, round(settings.top_p * SETTINGS_GRID)) / SETTINGS_GRID
    if temperature <= 0 or top_k == 1:
        temperature, top_k, top_p = 0.0, None, None
    return GenerationSettings(temperature, top_k, None if top_p is None or top_p >= 1 else top_p, settings.max_new_tokens, settings.min_new_tokens)


def agent_settings(workspace: Path, limit: int) -> GenerationSettings:
    """``model.generation_settings()`` computed by the agent's code in the jail, validated here."""
    with jail_output_dir("gpt2qa-settings-") as out:
        result = run_as_agent([sys.executable, "-c", SETTINGS_PROGRAM, "/run/gpt2qa-out/settings.json"], timeout_s=120, cwd=str(workspace),
                              jail=Jail(writable=[(str(out), "/run/gpt2qa-out")]))  # fmt: skip
        if not result.ok:
            raise Refused(f"model.generation_settings() failed: {result.error or result.stderr_tail[-800:]}")
        target = out / "settings.json"
        if target.is_symlink() or not target.is_file() or target.stat().st_size > 4096:
            raise Refused("model.generation_settings() wrote no settings")
        try:
            data = json.loads(target.read_text())
        except ValueError:
            raise Refused("model.generation_settings() did not return JSON-serializable settings") from None
        if not isinstance(data, dict):
            raise Refused("model.generation_settings() must return a dict")
        try:
            parsed = GenerationSettings.parse(data)
            if parsed.max_new_tokens > limit:  # the task's limit on new tokens, as upstream's fixed max_new_tokens
                parsed = GenerationSettings.parse({**parsed.to_json(), "max_new_tokens": limit, "min_new_tokens": min(parsed.min_new_tokens, limit)})
            return parsed
        except (TypeError, ValueError) as error:
            raise Refused(f"generation settings refused: {error}") from None


def judge_state(protected: Path, restart: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The judge service's use in this run, and ``restart()`` (which starts it again) if it stopped answering."""
    socket_path = os.environ.get("REBENCH_GPT2_QA_JUDGE", judge_service.SOCKET)
    state: dict[str, Any] = {"calls": judge_service.summary(protected / "judge" / "calls.jsonl")}
    if judge_service.ping(socket_path) is None:
        try:
            state["restarted"] = restart()
        except (OSError, RuntimeError) as error:
            state["restart_error"] = str(error)[-500:]
    return state


def score(workspace: Path, protected: Path, hidden_task: bool) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    started = time.perf_counter()
    state = protected / "state"
    try:
        grading = json.loads((state / "grading.json").read_text())
    except FileNotFoundError:
        return outcome_error("the environment's set-up did not run (no state/grading.json)"), {}, {}
    profile = PROFILES[grading["profile"]]
    torch.set_num_threads(profile.threads)
    details: dict[str, Any] = {"profile": profile.name, "judge_service": judge_state(protected, lambda: start_judge(protected, profile))}
    base_bytes = (workspace / "base_model" / "model.pt").stat().st_size if (workspace / "base_model" / "model.pt").is_file() else 64 * 2**20
    try:
        model, weights_sha256 = load_submission(workspace, grading["architecture"], max(4 * base_bytes, 2**20))
        settings = agent_settings(workspace, grading["max_new_tokens"])
    except Refused as refused:
        return outcome_invalid(str(refused)), {"model_loaded": False}, details
    asked, settings = settings, canonical_settings(settings, grading["architecture"]["vocab_size"])
    details["settings"] = settings.to_json()
    if asked != settings:
        details["settings_asked"] = asked.to_json()
    tasks = list(read_tasks(state / "hidden_tasks.jsonl"))
    assets = protected / "assets"
    tok = load_tokenizer(assets / profile.tokenizer)
    seed = scoring_seed(protected)
    prompts = [t.prompt for t in tasks]
    model = model.to(profile.device)
    draws = [sample(model, tok, prompts, settings, seed=seed + i, batch_size=profile.batch_size) for i in range(profile.samples)]
    responses = draws[0]
    details["generate_seconds"] = round(time.perf_counter() - started, 2)
    judge = load_judge(assets / profile.lm / "model.pt", assets / profile.judge_tokenizer, {t.prompt: t for t in tasks}, device=profile.device,
                       visible=list(read_tasks(state / "visible_tasks.jsonl")))  # the service's common words  # fmt: skip
    judge.memo = {}
    win_rates: dict[str, float] = {}
    for name in ("base", "supervised"):
        reference = {}
        for line in (state / "references" / f"{name}.jsonl").read_text().splitlines():
            row = json.loads(line)
            reference[row["id"]] = row["response"]
        wins = [judge.win_probabilities(prompts, [(r, reference[t.id]) for t, r in zip(tasks, draw)]) for draw in draws]
        win_rates[name] = sum(map(sum, wins)) / (len(tasks) * len(draws))
    value = sum(win_rates.values()) / len(win_rates)
    details.update({"win_rates": win_rates, "hidden": len(tasks), "samples": len(draws), "weights_sha256": weights_sha256,
                    "responses_sha256": hashlib.sha256(json.dumps(draws).encode()).hexdigest(),
                    "seconds": round(time.perf_counter() - started, 2),
                    "examples": [{"instruction": t.instruction, "response": r} for t, r in list(zip(tasks, responses))[:3]]})  # fmt: skip
    score_log.append(protected, {"value": value, "win_rates": win_rates, "weights_sha256": weights_sha256, "settings": settings.to_json()})
    message: dict[str, Any] = {"model_loaded": True, "settings": settings.to_json()}
    if not hidden_task:
        message.update({f"win_vs_{k}": round(v, 4) for k, v in win_rates.items()})
    return outcome_scored(value), message, details


if __name__ == "__main__":
    raise SystemExit(grader_main(score, __doc__))
