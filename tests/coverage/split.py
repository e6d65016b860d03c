"""Which labelled cards a coverage method may be tuned on, and which it is reported on.

The held-out cards are never looked at while choosing a method, its thresholds or its prompts, so
the figures measured on them say how the method does on a card it has not seen."""

from pathlib import Path

LABELLED = Path(__file__).parent / "labelled"

TUNING_CARDS: tuple[str, ...] = (
    "tf-data-prefetch-last",
    "tf-data-shuffle-buffer",
    "tf-data-cache-placement",
    "tf-data-vectorized-map",
    "tf-data-map-determinism",
)
HELD_OUT_CARDS: tuple[str, ...] = (
    "keras-steps-per-execution",
    "tf-data-from-generator",
    "tf-data-interleave-reads",
    "tf-function-retracing",
)
