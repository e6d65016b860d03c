"""Whether a stretch of an answer says what a point or a pitfall says, or its opposite: the
lexical method's cues for claims. Words alone cannot tell "prefetch goes after batch" from
"prefetch goes before batch", or "it is one thread" from "it is not one thread"; these cues
compare the two texts clause by clause, by their negations and by the order their relations put
things in. Plain functions on strings: no model, no I/O."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from app.coverage.methods import NEGATIONS, STOPWORDS, stem, words

# Where a claim's clauses part: punctuation inside a sentence, and the words that join a second
# claim to a first ("X, but Y", "X rather than Y"). "and" is not among them: "producer and
# consumer" is one claim.
CLAUSE_BREAK = re.compile(
    r"[,;:()\u2014]+\s*|[.!?]+\s+|\s+(?=(?:but|whereas|while|although|though|because|so that|rather than|instead of|"
    r"unlike)\b)",
    re.IGNORECASE,
)
# Words that deny the clause they start as its contrast ("whole batches rather than examples").
CONTRASTS = ("rather than", "instead of", "unlike")
# "A before B" puts A first; "A after B" puts B first.
FORWARD = frozenset({"before", "then", "above", "ahead", "earlier", "upstream"})
BACKWARD = frozenset({"after", "below", "behind", "later", "downstream"})
RELATIONS = FORWARD | BACKWARD
REACH = 3
# The words that deny a clause; not "false", which answers write as code ("deterministic=False").
DENIALS = NEGATIONS - {"false"}
# A part that carries this share of a reference's weight, and is found in a clause of the answer,
# is what the answer is compared on.
ALIGNED = 0.5

Weight = Callable[[str], float]  # a stem's weight on the card (its idf)


@dataclass(frozen=True)
class Clause:
    stems: frozenset[str]
    negative: bool  # it denies what it says (an odd number of negations, or a contrast)
    order: frozenset[tuple[str, str]]  # (earlier, later) pairs its relations state


def _content(word: str) -> str | None:
    return None if word in STOPWORDS or word in DENIALS or word in RELATIONS else stem(word)


def _order(said: list[str]) -> frozenset[tuple[str, str]]:
    """The (earlier, later) pairs of "A before B", "A after B" and the like, A and B each any
    content word of the REACH words on its side: "prefetch placed before batch" puts prefetch and
    "placed" before batch."""
    pairs = set()
    for at, word in enumerate(said):
        if word not in RELATIONS:
            continue
        left = {s for w in said[max(0, at - REACH) : at] if (s := _content(w))}
        right = {s for w in said[at + 1 : at + 1 + REACH] if (s := _content(w))}
        pairs |= {(a, b) if word in FORWARD else (b, a) for a in left for b in right if a != b}
    return frozenset(pairs)


# A point's or a pitfall's clauses are read for every sentence of every answer checked against
# it: the latest texts' are kept (bounded), so the deck's stay read once.
@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[Clause, ...]:
    found = []
    for part in CLAUSE_BREAK.split(text):
        said = words(part)
        if not said:
            continue
        negations = sum(word in DENIALS for word in said)
        contrast = part.strip().lower().startswith(CONTRASTS)
        content = frozenset(s for word in said if (s := _content(word)))
        found.append(Clause(content, bool(negations % 2) != contrast, _order(said)))
    return tuple(found)


def contradicts(unit: str, *, reference: str, weight: Weight) -> bool:
    """Whether `unit` says the opposite of `reference` in a part the two share. Per clause of the
    reference (of two content words or more) whose weight the unit holds ALIGNED of: the unit's
    clause holding that clause's weightiest shared word is what the unit says of it, and it says
    the opposite when it has the other polarity, or a relation of it the other way round."""
    mine = clauses(unit)
    said = frozenset().union(*(clause.stems for clause in mine))
    for theirs in clauses(reference):
        total, shared = sum(map(weight, theirs.stems)), theirs.stems & said
        if len(theirs.stems) < 2 or sum(map(weight, shared)) < ALIGNED * total:
            continue
        key = max(sorted(shared), key=weight)
        holder = next(clause for clause in mine if key in clause.stems)
        if holder.negative != theirs.negative:
            return True
        if {(later, earlier) for earlier, later in theirs.order} & holder.order:
            return True
    return False
