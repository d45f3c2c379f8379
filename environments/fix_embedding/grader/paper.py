"""The paper variant's real assets: GPT-2 weights from Hugging Face and OpenWebText as nanoGPT prepares it.

- :func:`hf_checkpoint` is nanoGPT's ``GPT.from_pretrained``: a ``transformers`` ``GPT2LMHeadModel``
  (``gpt2``, ``gpt2-xl``, or a local folder) converted to our parameter names, the four Conv1D weights per
  block transposed, returned as a checkpoint dict (state dict plus ``"config"``). Like nanoGPT (and
  upstream's ``static_model.py``), our GPT uses the exact GELU where GPT-2 used the tanh approximation.
- :func:`prepare_openwebtext` (in ``rebench_env.openwebtext``, shared with restricted_mlm) is nanoGPT's ``data/openwebtext/prepare.py``: the Hugging Face
  ``openwebtext`` dataset, ``train_test_split(test_size=0.0005, seed=2357)``, the ``test`` part renamed
  ``val``, every document's GPT-2 ids (``encode_ordinary``) followed by end-of-text, written as flat
  ``uint16`` ``train.bin`` and ``val.bin``. OpenWebText has no third split, so the paper variant has no
  ``test.bin``.

Where the files come from: ``$REBENCH_HF_MODELS/<name>`` if that folder exists, else the Hugging Face
cache or hub (set ``HF_HUB_OFFLINE=1`` on a machine without internet); the dataset likewise from the
``datasets`` cache. Tested on stand-ins: a tiny random ``GPT2LMHeadModel`` saved with ``save_pretrained``
and a list of documents (tests/test_paper.py).

Canary 3ee46a69-d686-429f-ab44-10670a28e35b: rebench environment file; keep out of training data.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch

from rebench_env.gpt import GPT, GPTConfig
from rebench_env.openwebtext import prepare_openwebtext, write_splits, write_token_file  # noqa: F401 (shared with restricted_mlm)
from rebench_env.hf_models import hf_source

CONV1D = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")


def convert_gpt2_state(hf_state: Mapping[str, torch.Tensor], hf_config: Any) -> dict[str, Any]:
    """nanoGPT's conversion of a GPT2LMHeadModel state dict into our GPT's checkpoint format."""
    config = GPTConfig(
        block_size=hf_config.n_positions, vocab_size=hf_config.vocab_size, n_layer=hf_config.n_layer,
        n_head=hf_config.n_head, n_embd=hf_config.n_embd, bias=True, dropout=0.0,
    )  # fmt: skip
    model = GPT(config)
    ours = model.state_dict()
    with torch.no_grad():
        for key, target in ours.items():
            if key not in hf_state:
                raise KeyError(f"the Hugging Face checkpoint has no {key}")
            source = hf_state[key]
            if key.endswith(CONV1D):
                source = source.t()
            if tuple(source.shape) != tuple(target.shape):
                raise ValueError(f"{key}: shape {tuple(source.shape)} does not fit {tuple(target.shape)}")
            target.copy_(source)
    return model.checkpoint()


def hf_checkpoint(name: str) -> dict[str, Any]:
    """``gpt2``, ``gpt2-xl`` (or a folder) from Hugging Face as a rebench_env GPT checkpoint."""
    from transformers import GPT2LMHeadModel

    hf = GPT2LMHeadModel.from_pretrained(hf_source(name), torch_dtype=torch.float32)
    return convert_gpt2_state(hf.state_dict(), hf.config)
