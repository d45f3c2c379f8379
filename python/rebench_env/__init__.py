"""rebench_env: what rebench's graders, workspaces and asset builders share.

Graders write their outcome with :func:`rebench_env.result.write_result` to the path rebench gives in
``REBENCH_RESULT``; rebench never parses a grader's stdout.

Modules (import them directly; this package imports nothing heavy):

- ``gpt``: the GPT model (nanoGPT names, tied embeddings), ``GPTConfig``, ``save_gpt`` / ``load_gpt``
- ``tokens``: flat ``uint16`` token files, memmap reading, seeded random window batches
- ``train``: the training loop (seeds, bf16/fp32, one CPU thread), ``evaluate_loss``
- ``tokenizer``: ``load_tokenizer`` for the GPT-2 BPE (offline tiktoken) and the corpus-trained BPE
- ``corpus``: documents of the built corpus' splits
- ``assets``: ``require_asset`` and the asset builders (``python -m rebench_env.assets build``)
"""

from rebench_env.result import write_result

__all__ = ["write_result"]
