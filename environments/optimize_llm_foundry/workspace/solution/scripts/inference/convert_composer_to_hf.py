"""Stage 3 of finetune.sh: turn the training checkpoint into a Hugging-Face-style model folder.

    python3 scripts/inference/convert_composer_to_hf.py --composer_path ftout/latest-rank0.pt \
        --hf_output_path trained_model --output_precision fp32

Writes ``trained_model/model.safetensors`` and ``trained_model/config.json`` (the base model's layout).

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

from foundry.model import save_hf  # noqa: E402

PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--composer_path", required=True)
    parser.add_argument("--hf_output_path", required=True)
    parser.add_argument("--output_precision", default="fp32", choices=sorted(PRECISIONS))
    args = parser.parse_args()
    checkpoint = torch.load(args.composer_path, map_location="cpu", weights_only=False)
    state = checkpoint["state"]
    save_hf(state["model"], state["integrations"]["model_config"], args.hf_output_path, PRECISIONS[args.output_precision])
    print(f"wrote {args.hf_output_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
