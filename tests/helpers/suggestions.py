"""An answer to the owner's card that the coverage checker has something to say about, and what a
page should mark in it, written out rather than asked of the checker."""

# Two points in its words (the first and the fourth), one of the card's pitfalls asserted (the
# first), and markup that must stay text.
ANSWER = (
    "Prefetch overlaps producing the next batch with the training step consuming this one. "
    "One background thread fills a buffer, not a pool of workers. "
    "It also parallelizes map and the file reads. <b>bold</b> & done"
)
MARKED = [
    "Prefetch overlaps producing the next batch with the training step consuming this one.",
    "One background thread fills a buffer, not a pool of workers.",
    "It also parallelizes map and the file reads.",
]
