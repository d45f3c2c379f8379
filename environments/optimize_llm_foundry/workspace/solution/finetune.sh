#!/bin/bash
# Fine-tune $BASE_MODEL on ../train_data.jsonl and write the weights to trained_model/ (three stages, as LLM Foundry's).
# Canary 9beb89d0-85e7-4d0b-96e4-e0cabdaa4553: rebench environment file; keep out of training data.
set -euo pipefail

cd "$(dirname "$0")"
source ../env.sh

rm -rf finetuning_tokens
time python3 scripts/data_prep/convert_finetuning_dataset.py \
  --dataset json \
  --splits train \
  --data_files ../train_data.jsonl \
  --out_root finetuning_tokens \
  --skip-preprocessing \
  --max_seq_len "$MAX_SEQ_LEN" \
  --tokenizer "${BASE_MODEL}"
cp -r finetuning_tokens/train finetuning_tokens/valid

rm -rf ftout
time python3 scripts/train/train.py \
  finetune.yaml \
  data_local=finetuning_tokens \
  model_name_or_path="${BASE_MODEL}" \
  train_loader.dataset.split=train \
  eval_loader.dataset.split=valid \
  eval_interval=0 \
  save_folder=ftout

rm -rf trained_model
time python3 scripts/inference/convert_composer_to_hf.py \
  --composer_path ftout/latest-rank0.pt \
  --hf_output_path trained_model \
  --output_precision "$OUTPUT_PRECISION"

find . -type d -name "tokenizer-save-dir-*" -exec rm -r {} +
