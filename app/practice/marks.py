"""Where each card stands for a person at the depth they practise at, as the library marks it: new
(never reviewed at that depth), due (its review has come), or learned (its next review is later).
One row per card at most is read: a person's review states, never their history."""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.tiers import Tier
from app.practice import preferences
from app.practice.models import ReviewState

Mark = Literal["due", "new", "learned"]
# Each mark's words on a card of the library, in the order the summary line counts them.
MARKS: dict[Mark, str] = {"due": "due", "new": "new", "learned": "learned"}


@dataclass(frozen=True)
class Marks:
    tier: Tier
    cards: dict[str, Mark]

    @property
    def counts(self) -> Counter[Mark]:
        return Counter(self.cards.values())


def marks(session: Session, *, user_id: int, card_ids: Iterable[str], now: datetime) -> Marks:
    """Each served card's mark at the person's target depth."""
    tier = preferences.load(session, user_id).target_tier
    rows = session.execute(
        select(ReviewState.card_id, ReviewState.due).where(
            ReviewState.user_id == user_id, ReviewState.tier == tier
        )
    )
    due = {card_id: moment for card_id, moment in rows}

    def mark(card_id: str) -> Mark:
        if card_id not in due:
            return "new"
        return "due" if due[card_id] <= now else "learned"

    return Marks(tier, {card_id: mark(card_id) for card_id in card_ids})
