"""The policy: load, save and sample the GPT you fine-tune (edit freely).

The grader loads ``finetuned_model/model.pt`` strictly into the base model's architecture and samples it,
with its own copy of ``rebench_env.chat.sample``, under the settings ``generation_settings()`` returns
(temperature, top_k, top_p, max_new_tokens up to the task's limit, min_new_tokens): those settings are
yours to choose; the weights are your submission.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import torch

from rebench_env.chat import ALPACA, GenerationSettings, sample
from rebench_env.gpt import GPT, load_gpt, save_gpt
from rebench_env.tokenizer import load_tokenizer

HERE = Path(__file__).resolve().parent

GENERATION = {"temperature": 1.0, "top_k": None, "max_new_tokens": 32}


def generation_settings() -> dict[str, Any]:
    """The sampling settings the grader uses for your model."""
    return dict(GENERATION)


def tokenizer() -> Any:
    return load_tokenizer(HERE / "tokenizer")


def load_policy(path: str | Path = HERE / "base_model" / "model.pt") -> GPT:
    """The policy, on the GPU when there is one."""
    return load_gpt(path).to("cuda" if torch.cuda.is_available() else "cpu")


def save_policy(model: GPT, directory: str | Path = HERE / "finetuned_model") -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    save_gpt(model, directory / "model.pt")
    return directory / "model.pt"


def format_prompt(instruction: str) -> str:
    return ALPACA.format(instruction=instruction)


def generate(model: GPT, tok: Any, prompts: Sequence[str], settings: dict[str, Any] | None = None, seed: int = 0) -> list[str]:
    """One response per (Alpaca-formatted) prompt."""
    with torch.no_grad():
        return sample(model, tok, prompts, GenerationSettings.parse(settings or generation_settings()), seed=seed)
