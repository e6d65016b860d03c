"""Whether a stretch of an answer entails, contradicts or says nothing about a claim (an answer
point or a pitfall's false claim): the claims model, a small cross-encoder fine-tuned from
all-MiniLM-L6-v2 (training/claims/), run as int8 ONNX with onnxruntime from the files of the
installed `tiercards-claims-model` package. Nothing is downloaded; a model file whose sha256 is
not the pinned one is refused. Imports no other module of the app, so it can run anywhere."""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

# sha256 of models/claims/tiercards_claims_model/model.onnx, as training/claims/export.py wrote it.
MODEL_SHA256 = "6336a64cff84fa23b358f013d66bad0dcc43787f8adb64b2f7db5ace415a3b02"
LABELS = ("entail", "neutral", "contradict")
ENTAIL, NEUTRAL, CONTRADICT = range(3)
# Tokens of a pair (premise, hypothesis and the three marks); a longer premise is cut at the end.
MAX_TOKENS = 256
# Pairs run at once. One: the int8 model quantizes its activations per call (dynamic quantization
# takes one scale for the whole input tensor), so pairs run together would change each other's
# result; alone, a pair's probabilities do not depend on what else is classified, and nothing is
# padded. Pairs still go in order of length.
BATCH = 1


class ModelRefused(RuntimeError):
    """The model's files are not the ones this code was written for."""


class Entailment:
    def __init__(self, session: ort.InferenceSession, tokenizer: Tokenizer) -> None:
        self._session = session
        self._tokenizer = tokenizer

    @classmethod
    def load(cls, threads: int = 1, directory: Path | None = None) -> "Entailment":
        """The model from the installed package (or `directory`, which must hold the same files),
        run on `threads` CPU threads. Raises ModelRefused when model.onnx is not the pinned file."""
        if directory is None:
            # Imported here: the training scripts classify with this class before the package exists.
            import tiercards_claims_model

            directory = tiercards_claims_model.MODEL_DIR
        folder = Path(directory)
        model = (folder / "model.onnx").read_bytes()
        digest = hashlib.sha256(model).hexdigest()
        if digest != MODEL_SHA256:
            raise ModelRefused(f"{folder / 'model.onnx'} has sha256 {digest}, not the pinned {MODEL_SHA256}")
        labels = tuple(json.loads((folder / "labels.json").read_text(encoding="utf-8")))
        if labels != LABELS:
            raise ModelRefused(f"{folder / 'labels.json'} orders the classes {labels}, not {LABELS}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_TOKENS, strategy="longest_first")
        return cls(session, tokenizer)

    def classify(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Pairwise (premises[i], hypotheses[i]); shape (n, 3), probabilities in the order ENTAIL,
        NEUTRAL, CONTRADICT."""
        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        out = np.zeros((len(premises), len(LABELS)), dtype=np.float32)
        if not premises:
            return out
        encodings = self._tokenizer.encode_batch(list(zip(premises, hypotheses, strict=True)))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros_like(ids)
            for row, i in enumerate(rows):
                said = encodings[i]
                ids[row, : len(said.ids)] = said.ids
                types[row, : len(said.ids)] = said.type_ids
                mask[row, : len(said.ids)] = 1
            (logits,) = self._session.run(
                ["logits"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            )
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            out[rows] = shifted / shifted.sum(axis=1, keepdims=True)
        return out
