"""The pitfall quiz: a card's pitfalls mixed with its true statements, and how a try is scored."""

import random
from dataclasses import dataclass

from app.content.model import Card, Entry


@dataclass(frozen=True)
class QuizItem:
    id: str  # "p<n>" for the n-th pitfall, "t<n>" for the n-th true statement
    entry: Entry

    @property
    def costly(self) -> bool:
        """Saying it in an interview costs you the question."""
        return self.id.startswith("p")


@dataclass(frozen=True)
class MarkedItem:
    item: QuizItem
    marked: bool

    @property
    def correct(self) -> bool:
        return self.marked == self.item.costly


def quiz_items(card: Card, seed: int | None = None) -> list[QuizItem]:
    items = [QuizItem(f"p{i}", e) for i, e in enumerate(card.pitfalls)]
    items += [QuizItem(f"t{i}", e) for i, e in enumerate(card.truths)]
    random.Random(seed).shuffle(items)
    return items


def unknown_choices(card: Card, choices: list[str]) -> list[str]:
    known = {item.id for item in quiz_items(card, seed=0)}
    return [choice for choice in choices if choice not in known]


def mark(card: Card, choices: list[str], order: list[str] | None = None) -> list[MarkedItem]:
    """Each item with whether the person marked it; in `order` when given (the order they saw)."""
    items = {item.id: item for item in quiz_items(card, seed=0)}
    ids = [i for i in order if i in items] if order else sorted(items)
    ids += [i for i in sorted(items) if i not in ids]
    chosen = set(choices)
    return [MarkedItem(items[i], i in chosen) for i in ids]


def score(marked: list[MarkedItem]) -> float:
    return sum(m.correct for m in marked) / len(marked) if marked else 0.0
