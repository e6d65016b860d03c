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

# Written and labelled blind, from the cards and the labelling rules alone (blind/README.md): no
# method is tuned on these cards or answers, and their figures are reported apart.
BLIND = Path(__file__).parent / "blind"
BLIND_CARDS: tuple[str, ...] = (
    "tf-data-parallel-map-interleave",
    "tf-data-cache-shuffle-order",
    "tf-data-snapshot",
    "tfrecord-sharding",
)
