"""The profiles of finetune_gpt2_qa: assets, set sizes, the judge budget and the references' recipe.

``mini`` and ``gpu`` build the same environment at two scales; ``tiny`` is the tests' (seconds). ``paper``
is ``paper.py``'s (gpt2-xl, Alpaca, an OpenAI-compatible judge).

Canary dcc63ee1-bf38-4ac8-8730-70e6939b4951: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    policy: str
    """Asset of the pretrained policy handed to the agent (``base_model/model.pt``)."""
    lm: str
    """Asset of the judge's reference LM (fluency), never handed out."""
    tokenizer: str
    """Asset of the policy's tokenizer (handed out)."""
    corpus: str
    visible: int
    hidden: int
    budget: int
    """Pairs the agent may have judged in a run (the starting solution's calls at set-up included)."""
    sft_steps: int
    """Steps of the supervised reference model (SFT on the hidden-free visible tasks' true answers)."""
    sft_lr: float
    max_new_tokens: int
    """Limit on generated tokens at scoring (upstream: 60)."""
    start_steps: int
    start_prompts: int
    samples: int = 1
    """Responses sampled per hidden prompt at scoring (each judged against both references)."""
    device: str = "cpu"
    threads: int = 2
    batch_size: int = 64
    lm_tokenizer: str = ""
    """Asset of the reference LM's tokenizer, when it is not the policy's (mini: the shipped policy has its own)."""

    @property
    def judge_tokenizer(self) -> str:
        return self.lm_tokenizer or self.tokenizer

    @property
    def assets(self) -> list[str]:
        return list(dict.fromkeys([self.policy, self.lm, self.tokenizer, self.judge_tokenizer, self.corpus]))


PROFILES = {
    "mini": Profile("mini", "mini-chat", "mini-small", "mini-chat", "corpus-keyed", visible=20000, hidden=1000, budget=20000,
                    sft_steps=150, sft_lr=3e-4, max_new_tokens=32, start_steps=4, start_prompts=32, samples=4, lm_tokenizer="tokenizer-bpe4k"),
    # mini's design (mini-chat's tokenizer, context 128) at 27M parameters, pretrained at set-up on the GPU (gpu-chat4k)
    "gpu": Profile("gpu", "gpu-chat4k", "gpu-small", "mini-chat", "corpus-keyed", visible=50000, hidden=1000, budget=100000,
                   sft_steps=300, sft_lr=3e-4, max_new_tokens=32, start_steps=4, start_prompts=128, device="cuda", batch_size=128,
                   lm_tokenizer="tokenizer-gpt2"),
    "tiny": Profile("tiny", "tiny", "tiny", "tokenizer-bpe512-tiny", "corpus-tiny", visible=300, hidden=20, budget=400,
                    sft_steps=5, sft_lr=1e-3, max_new_tokens=8, start_steps=1, start_prompts=4),
}  # fmt: skip
