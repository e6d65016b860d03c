"""Export a model trained by train.py to ONNX (opset 17, dynamic batch and sequence), quantize it
to int8 (dynamic quantization), measure both with onnxruntime and `tokenizers` exactly as
app/coverage/entailment.py runs them, and ship the int8 file in the models/claims package.

    HF_HUB_OFFLINE=1 python training/claims/export.py --model /tmp/dev --holdout   # figures only
    HF_HUB_OFFLINE=1 python training/claims/export.py                              # ship

With --holdout the model is measured on the pairs of the two held-back training cards (it must
have been trained with train.py --holdout) and nothing is shipped. Without it the int8 model,
tokenizer.json and labels.json are written to models/claims/tiercards_claims_model/ and the
model's sha256 is printed (pin it as MODEL_SHA256 in app/coverage/entailment.py)."""

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import onnxruntime as ort
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer
from transformers import AutoModelForSequenceClassification

from app.coverage.entailment import LABELS, Entailment

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
PACKAGE = ROOT / "models" / "claims" / "tiercards_claims_model"
HOLDOUT = ("tf-data-vectorized-map", "tf-data-service")
MAX_LEN = 256


def export(model_dir: Path, target: Path) -> None:
    # Eager attention, traced on a padded batch: the mask then stays an input of the graph (a trace
    # of an unpadded example lets the attention code drop the all-ones mask, and padding would
    # then change every padded pair's result).
    model = AutoModelForSequenceClassification.from_pretrained(model_dir, attn_implementation="eager")
    model.eval()
    model.config.return_dict = False
    example = {
        "input_ids": torch.tensor([[101, 2023, 102, 2008, 102], [101, 2023, 102, 102, 0]], dtype=torch.long),
        "attention_mask": torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]], dtype=torch.long),
        "token_type_ids": torch.tensor([[0, 0, 0, 1, 1], [0, 0, 0, 1, 0]], dtype=torch.long),
    }
    axes = {0: "batch", 1: "sequence"}
    torch.onnx.export(
        model,
        (example["input_ids"], example["attention_mask"], example["token_type_ids"]),
        str(target),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": axes,
            "attention_mask": axes,
            "token_type_ids": axes,
            "logits": {0: "batch"},
        },
        opset_version=17,
        do_constant_folding=True,
        dynamo=False,
    )


def measure(name: str, path: Path, tokenizer: Tokenizer, held: list[dict[str, object]]) -> dict[str, float]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    start = time.perf_counter()
    # Classified as the app classifies (one pair a call, in order of length).
    probs = Entailment(session, tokenizer).classify(
        [str(p["premise"]) for p in held], [str(p["hypothesis"]) for p in held]
    )
    took = time.perf_counter() - start
    truth = np.array([LABELS.index(str(p["label"])) for p in held])
    guess = probs.argmax(axis=1)
    figures: dict[str, float] = {"accuracy": round(float((truth == guess).mean()), 4)}
    matrix = np.zeros((3, 3), dtype=int)
    for t, g in zip(truth, guess, strict=True):
        matrix[t, g] += 1
    for k, label in enumerate(LABELS):
        figures[label] = round(float(matrix[k, k] / max(1, matrix[k].sum())), 4)
    print(
        f"{name}: accuracy {figures['accuracy']:.3f}, "
        + ", ".join(f"{label} {figures[label]:.3f}" for label in LABELS)
        + f" ({len(held)} pairs, {took:.1f} s, {path.stat().st_size / 1e6:.1f} MB)"
    )
    print("  confusion (rows true, columns predicted: entail neutral contradict): " + str(matrix.tolist()))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, default=HERE / "out")
    parser.add_argument("--holdout", action="store_true", help="measure on the held-back cards; ship nothing")
    args = parser.parse_args()

    tokenizer = Tokenizer.from_file(str(args.model / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_LEN, strategy="longest_first")
    with tempfile.TemporaryDirectory() as folder:
        fp32, int8 = Path(folder) / "model-fp32.onnx", Path(folder) / "model.onnx"
        export(args.model, fp32)
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
        print(f"fp32 {fp32.stat().st_size / 1e6:.1f} MB, int8 {int8.stat().st_size / 1e6:.1f} MB")
        if args.holdout:
            lines = (HERE / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
            held = [p for p in map(json.loads, lines) if set(p["cards"]) & set(HOLDOUT)]
            figures = {
                "fp32": measure("fp32 onnx", fp32, tokenizer, held),
                "int8": measure("int8 onnx", int8, tokenizer, held),
            }
            (HERE / "validation.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
            return
        PACKAGE.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(int8, PACKAGE / "model.onnx")
    shutil.copyfile(args.model / "tokenizer.json", PACKAGE / "tokenizer.json")
    (PACKAGE / "labels.json").write_text(json.dumps(list(LABELS)) + "\n", encoding="utf-8")
    digest = hashlib.sha256((PACKAGE / "model.onnx").read_bytes()).hexdigest()
    print(f"shipped {PACKAGE.relative_to(ROOT)}/model.onnx, sha256 {digest}")


if __name__ == "__main__":
    main()
