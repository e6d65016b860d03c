"""The files of the tiercards claims model (model.onnx, tokenizer.json, labels.json, README.md);
app/coverage/entailment.py loads them. Nothing is imported or loaded here."""

from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent
