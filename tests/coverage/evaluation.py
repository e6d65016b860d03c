"""A coverage method's figures against the hand labels, per part of the labelled set: what
tests/coverage/test_evaluation.py holds the shipped checker to, and what bench/coverage_claims.py
prints for every method it compares.

The figures, over (answer, point) and (answer, pitfall) cells:
- precision, recall and F1 on points;
- pitfall precision and recall;
- salad: of the points a keyword-salad (or keyword-stuffed) answer names without covering, the
  share ticked;
- contradicted: of the points a negation or reversed answer names without covering (it denies
  them or says them backwards), the share ticked;
- paraphrase recall: recall on the paraphrase answers alone."""

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.content.cards import Card
from app.coverage.methods import names
from tests.coverage.split import BLIND, BLIND_CARDS, HELD_OUT_CARDS, LABELLED, TUNING_CARDS
from tests.factories import DECK

SALAD = frozenset({"keyword-salad", "keyword-stuffed"})
CONTRADICTING = frozenset({"negation", "reversed"})

# A method: for a card and an answer's text, the point ids it ticks and the pitfall keys it flags.
Method = Callable[[Card, str], tuple[Iterable[str], Iterable[str]]]


def style(answer: dict[str, Any]) -> str:
    """The style an answer is in; a transcript's is the style it is spoken in."""
    return str(answer.get("of_style") or answer["style"])


def answers(folder: Path, cards: Sequence[str]) -> list[tuple[Card, dict[str, Any]]]:
    return [
        (DECK[card_id], answer)
        for card_id in cards
        for answer in json.loads((folder / f"{card_id}.json").read_text(encoding="utf-8"))["answers"]
    ]


PARTS: dict[str, Callable[[], list[tuple[Card, dict[str, Any]]]]] = {
    "tuning": lambda: answers(LABELLED, TUNING_CARDS),
    "held-out": lambda: answers(LABELLED, HELD_OUT_CARDS),
    "blind": lambda: answers(BLIND, BLIND_CARDS),
}


def _ratio(hits: int, total: int) -> float:
    return hits / total if total else 0.0


@dataclass
class Counts:
    answers: int = 0
    hits: int = 0
    ticked: int = 0
    labelled: int = 0
    pitfall_hits: int = 0
    flagged: int = 0
    asserted: int = 0
    salad_ticked: int = 0
    salad_named: int = 0
    contradicted_ticked: int = 0
    contradicted_named: int = 0
    paraphrase_hits: int = 0
    paraphrase_labelled: int = 0
    misses: list[str] = field(default_factory=list)  # "<answer id>: <what went wrong>", for reading

    def add(self, card: Card, answer: dict[str, Any], ticked: set[str], flagged: set[str]) -> None:
        covers, asserts = set(answer["covers"]), set(answer["asserts"])
        self.answers += 1
        self.hits += len(ticked & covers)
        self.ticked += len(ticked)
        self.labelled += len(covers)
        self.pitfall_hits += len(flagged & asserts)
        self.flagged += len(flagged)
        self.asserted += len(asserts)
        named = {p.key for p in card.points if names(answer["text"], p.plain)} - covers
        if style(answer) in SALAD:
            self.salad_ticked += len(ticked & named)
            self.salad_named += len(named)
        if style(answer) in CONTRADICTING:
            self.contradicted_ticked += len(ticked & named)
            self.contradicted_named += len(named)
        if style(answer) == "paraphrase":
            self.paraphrase_hits += len(ticked & covers)
            self.paraphrase_labelled += len(covers)
        wrong = sorted(ticked - covers) + [f"missed {key}" for key in sorted(covers - ticked)]
        wrong += [f"flagged {key}" for key in sorted(flagged - asserts)]
        wrong += [f"missed pitfall {key}" for key in sorted(asserts - flagged)]
        if wrong:
            self.misses.append(f"{answer['id']} ({answer['style']}): {', '.join(wrong)}")

    @property
    def precision(self) -> float:
        return _ratio(self.hits, self.ticked)

    @property
    def recall(self) -> float:
        return _ratio(self.hits, self.labelled)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def pitfall_precision(self) -> float:
        return _ratio(self.pitfall_hits, self.flagged)

    @property
    def pitfall_recall(self) -> float:
        return _ratio(self.pitfall_hits, self.asserted)

    @property
    def salad(self) -> float:
        return _ratio(self.salad_ticked, self.salad_named)

    @property
    def contradicted(self) -> float:
        return _ratio(self.contradicted_ticked, self.contradicted_named)

    @property
    def paraphrase_recall(self) -> float:
        return _ratio(self.paraphrase_hits, self.paraphrase_labelled)


def evaluate(method: Method, labelled: Iterable[tuple[Card, dict[str, Any]]]) -> Counts:
    counts = Counts()
    for card, answer in labelled:
        ticked, flagged = method(card, answer["text"])
        counts.add(card, answer, set(ticked), set(flagged))
    return counts
