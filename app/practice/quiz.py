"""The pitfall quiz: a card's pitfalls mixed with its true statements, and how a try is scored."""

import random
from dataclasses import dataclass

from app.content.model import Card, Entry, quiz_item_id


@dataclass(frozen=True)
class QuizItem:
    id: str  # "p-<key>" for a pitfall, "t-<key>" for a true statement (app/content/model.py)
    entry: Entry

    @property
    def costly(self) -> bool:
        """Saying it in an interview costs you the question."""
        return self.id.startswith("p-")


@dataclass(frozen=True)
class MarkedItem:
    item: QuizItem
    marked: bool

    @property
    def correct(self) -> bool:
        return self.marked == self.item.costly


def card_items(card: Card) -> list[QuizItem]:
    """In the card's order: its pitfalls, then its true statements."""
    items = [QuizItem(quiz_item_id(e, costly=True), e) for e in card.pitfalls]
    return items + [QuizItem(quiz_item_id(e, costly=False), e) for e in card.truths]


def quiz_items(card: Card, seed: int | None = None) -> list[QuizItem]:
    items = card_items(card)
    random.Random(seed).shuffle(items)
    return items


def positional_ids(card: Card) -> dict[str, str]:
    """The id of each item by the id it had when ids were positions ("p0" the first pitfall, "t3"
    the fourth true statement), for reading version-1 exports."""
    pitfalls = {f"p{i}": quiz_item_id(e, costly=True) for i, e in enumerate(card.pitfalls)}
    return pitfalls | {f"t{i}": quiz_item_id(e, costly=False) for i, e in enumerate(card.truths)}


def unknown_choices(card: Card, choices: list[str]) -> list[str]:
    known = {item.id for item in card_items(card)}
    return [choice for choice in choices if choice not in known]


def mark(card: Card, choices: list[str], order: list[str] | None = None) -> list[MarkedItem]:
    """Each item with whether the person marked it; in `order` when given (the order they saw),
    else in the card's order. Choices the card no longer has are ignored."""
    items = {item.id: item for item in card_items(card)}
    ids = [i for i in order if i in items] if order else []
    ids += [i for i in items if i not in ids]
    chosen = set(choices)
    return [MarkedItem(items[i], i in chosen) for i in ids]


def score(marked: list[MarkedItem]) -> float:
    return sum(m.correct for m in marked) / len(marked) if marked else 0.0
