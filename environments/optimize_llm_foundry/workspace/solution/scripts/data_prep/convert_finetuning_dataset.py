"""Stage 1 of finetune.sh: tokenize prompt/response rows into the finetuning dataset's files.

    python3 scripts/data_prep/convert_finetuning_dataset.py --dataset json --splits train \
        --data_files ../train_data.jsonl --out_root finetuning_tokens --skip-preprocessing \
        --max_seq_len 128 --tokenizer $BASE_MODEL

Writes ``OUT_ROOT/<split>/rows.npz``: for every row, its prompt's and response's token ids (the response
ends with the end-of-text token), cut to ``max_seq_len`` tokens together, the prompt first. Rows whose
prompt alone fills ``max_seq_len`` have nothing to learn from and are dropped, as LLM Foundry drops them.

Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from foundry.data import save_rows  # noqa: E402
from rebench_env.tokenizer import load_tokenizer  # noqa: E402


def tokenize_rows(path: str, tokenizer_dir: str, max_seq_len: int) -> tuple[list[list[int]], list[int]]:
    tokenizer = load_tokenizer(os.path.join(tokenizer_dir, "tokenizer"))
    rows, prompt_lens = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            prompt = tokenizer.encode(row["prompt"])
            response = tokenizer.encode(row["response"]) + [tokenizer.eot_id]
            if len(prompt) >= max_seq_len:
                continue
            rows.append((prompt + response)[:max_seq_len])
            prompt_lens.append(len(prompt))
    return rows, prompt_lens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="json", choices=["json"])
    parser.add_argument("--splits", nargs="+", default=["train"])
    parser.add_argument("--data_files", required=True)
    parser.add_argument("--out_root", required=True)
    parser.add_argument("--skip-preprocessing", action="store_true", help="rows already have prompt and response")
    parser.add_argument("--max_seq_len", type=int, required=True)
    parser.add_argument("--tokenizer", required=True, help="the base model's folder (its tokenizer/ subfolder)")
    args = parser.parse_args()
    for split in args.splits:
        rows, prompt_lens = tokenize_rows(args.data_files, args.tokenizer, args.max_seq_len)
        out = Path(args.out_root) / split
        out.mkdir(parents=True, exist_ok=True)
        save_rows(out / "rows.npz", rows, prompt_lens)
        print(f"{split}: {len(rows)} rows, {sum(map(len, rows))} tokens -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
