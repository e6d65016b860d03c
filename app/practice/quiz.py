"""The pitfall quiz: a card's pitfalls mixed with its true statements, how a deal names them on
the form, and how a try is scored."""

import hashlib
import hmac
import random
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from app.content.cards import Card, Entry, quiz_item_id
from app.exceptions import Invalid


@dataclass(frozen=True)
class QuizItem:
    id: str  # "p-<key>" for a pitfall, "t-<key>" for a true statement (app/content/cards.py)
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


def items_by_id(card: Card) -> dict[str, QuizItem]:
    return {item.id: item for item in card_items(card)}


def statement(cards: Mapping[str, Card], *, card_id: str, item_id: str) -> tuple[Card, QuizItem] | None:
    """The served card and its quiz statement with those ids; None when the card is retired or no
    longer has the statement (its words are gone)."""
    card = cards.get(card_id)
    item = items_by_id(card).get(item_id) if card is not None else None
    return None if card is None or item is None else (card, item)


def quiz_items(card: Card, seed: int | None = None) -> list[QuizItem]:
    items = card_items(card)
    random.Random(seed).shuffle(items)
    return items


def _new_token() -> str:
    return secrets.token_urlsafe(12)


@dataclass(frozen=True)
class Deal:
    """One showing of a card's quiz. Its form names each item by an HMAC of the deal's token and
    the item's stable id under the server's key: new on every deal, and silent on which items are
    pitfalls, where the stable ids ("p-…", "t-…") would hand the answer key to anyone who reads the
    page. Nothing is stored per deal; attempts keep the stable ids."""

    card: Card
    key: str
    token: str = field(default_factory=_new_token)

    def form_id(self, item: QuizItem) -> str:
        message = f"quiz|{self.token}|{self.card.id}|{item.id}".encode()
        return hmac.new(self.key.encode(), message, hashlib.sha256).hexdigest()[:20]

    def shown(self, items: Iterable[QuizItem]) -> list[tuple[str, QuizItem]]:
        """Each item under its form id, for the form."""
        return [(self.form_id(item), item) for item in items]

    def known(self, values: Iterable[str]) -> list[str]:
        """The stable ids of the values this deal named; others are left out."""
        by_form_id = {self.form_id(item): item.id for item in card_items(self.card)}
        return [by_form_id[value] for value in values if value in by_form_id]

    def stable_ids(self, values: list[str]) -> list[str]:
        """The stable ids `values` name; Invalid when one is not of this deal (another deal's form,
        a stable id typed in, anything made up)."""
        found = self.known(values)
        if len(found) < len(values):
            raise Invalid("choices", "the quiz names items it was not dealt")
        return found


def positional_ids(card: Card) -> dict[str, str]:
    """The id of each item by the id it had when ids were positions ("p0" the first pitfall, "t3"
    the fourth true statement), for reading version-1 exports."""
    pitfalls = {f"p{i}": quiz_item_id(e, costly=True) for i, e in enumerate(card.pitfalls)}
    return pitfalls | {f"t{i}": quiz_item_id(e, costly=False) for i, e in enumerate(card.truths)}


def unknown_choices(card: Card, choices: list[str]) -> list[str]:
    known = items_by_id(card)
    return [choice for choice in choices if choice not in known]


def mark(card: Card, *, choices: list[str], order: list[str] | None = None) -> list[MarkedItem]:
    """Each item with whether the person marked it; in `order` when given (the order they saw),
    else in the card's order. Choices the card no longer has are ignored."""
    items = items_by_id(card)
    ids = [i for i in order if i in items] if order else []
    ids += [i for i in items if i not in ids]
    chosen = set(choices)
    return [MarkedItem(items[i], i in chosen) for i in ids]


def score(marked: list[MarkedItem]) -> float:
    return sum(m.correct for m in marked) / len(marked) if marked else 0.0
