"""An answer to the owner's card that the coverage checker has something to say about, and the
stretches of it a page should mark."""

from app.coverage.checker import check
from tests.factories import DECK, OWNER_CARD

# Two points in its words, one of the card's pitfalls asserted, and markup that must stay text.
ANSWER = (
    "Prefetch overlaps producing the next batch with the training step consuming this one. "
    "One background thread fills a buffer, not a pool of workers. "
    "It also parallelizes map and the file reads. <b>bold</b> & done"
)


def suggested_spans(text: str) -> list[str]:
    """The stretches of `text` the checker's evidence covers, overlaps merged, in order."""
    coverage = check(DECK[OWNER_CARD], text)
    spans = sorted(
        [(h.evidence.start, h.evidence.end) for h in coverage.points if h.covered and h.evidence]
        + [(h.evidence.start, h.evidence.end) for h in coverage.pitfalls]
    )
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [text[start:end] for start, end in merged]
