"""The policy: gpt2-xl as a Hugging Face GPT2LMHeadModel; load, save and sample it (edit freely).

The grader loads ``finetuned_model/`` (the safetensors that ``save_policy`` writes) strictly into gpt2-xl's
architecture and samples it, with its own copy of ``rebench_env.hf_chat.sample``, under the settings
``generation_settings()`` returns (temperature, top_k, top_p, max_new_tokens up to 60, min_new_tokens): those
settings are yours to choose; the weights are your submission.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import torch
from transformers import AutoTokenizer, GPT2LMHeadModel

from rebench_env.chat import GenerationSettings
from rebench_env.hf_chat import sample

HERE = Path(__file__).resolve().parent
BASE_MODEL = HERE / "base_model"

GENERATION = {"temperature": 1.0, "top_k": None, "max_new_tokens": 60, "min_new_tokens": 3}


def generation_settings() -> dict[str, Any]:
    """The sampling settings the grader uses for your model."""
    return dict(GENERATION)


def tokenizer(path: str | Path = BASE_MODEL) -> Any:
    tok = AutoTokenizer.from_pretrained(str(path))
    tok.pad_token = tok.eos_token
    return tok


def load_policy(path: str | Path = BASE_MODEL) -> GPT2LMHeadModel:
    """The policy in float32, on the GPU when there is one."""
    return GPT2LMHeadModel.from_pretrained(str(path)).to("cuda" if torch.cuda.is_available() else "cpu")


def save_policy(model: GPT2LMHeadModel, directory: str | Path = HERE / "finetuned_model") -> Path:
    """``save_pretrained``: config.json and model.safetensors (the grader reads only the safetensors)."""
    model.save_pretrained(str(directory))
    return Path(directory)


def generate(model: GPT2LMHeadModel, tok: Any, prompts: Sequence[str], settings: dict[str, Any] | None = None, seed: int = 0,
             batch_size: int = 32) -> list[str]:  # fmt: skip
    """One response per (Alpaca-formatted) prompt."""
    return sample(model, tok, prompts, GenerationSettings.parse(settings or generation_settings()), seed=seed, batch_size=batch_size)
