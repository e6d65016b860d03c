"""Attempts name answer points and quiz items by ids derived from their text, not by position.

Stored positions (points [0, 2], choices ["p0", "t3"]) become the ids of the items at those
positions in the cards of the content folder the settings name. One that cannot be mapped (the
card is gone or does not parse, the position is past its end) is kept: a point as "#<position>",
a quiz item as its old id. Downgrade maps ids back to positions where the card still has them.
No schema change: both columns are JSON.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07
"""

import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import context, op

from app.content.cards import Card
from app.content.catalogue import load
from app.settings import Settings, get_settings

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

attempts = sa.table(
    "attempts",
    sa.column("id", sa.Integer()),
    sa.column("card_id", sa.String()),
    sa.column("points", sa.JSON()),
    sa.column("choices", sa.JSON()),
)

# Frozen copy of the rule in app/content/cards.py at this revision: a migration must not change
# meaning when the app's code does.
_PUNCTUATION = re.compile(r"[^\w\s]|_")


def _key(markdown: str) -> str:
    words = _PUNCTUATION.sub("", markdown.lower()).split()
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:8]


def _ids_by_position(card: Card) -> tuple[dict[int, str], dict[str, str]]:
    """The card's point ids by position, and its quiz ids by old id ("p0" -> "p-<key>")."""
    points = {position: _key(point.markdown) for position, point in enumerate(card.points)}
    quiz = {f"p{i}": f"p-{_key(entry.title.markdown)}" for i, entry in enumerate(card.pitfalls)}
    quiz |= {f"t{i}": f"t-{_key(entry.title.markdown)}" for i, entry in enumerate(card.truths)}
    return points, quiz


def _settings() -> Settings:
    # app.storage.migrations.upgrade hands in the settings in use; the plain `alembic` command has none.
    settings = context.config.attributes.get("settings")
    return settings if isinstance(settings, Settings) else get_settings()


def _attempts_with_ids() -> Iterator[tuple[sa.Row[Any], dict[int, str], dict[str, str]]]:
    """Each attempt with its card's ids by position (none when the card is not served)."""
    rows = op.get_bind().execute(sa.select(attempts)).all()
    cards = load(_settings().content_dir).cards if rows else {}
    ids = {card_id: _ids_by_position(card) for card_id, card in cards.items()}
    for row in rows:
        yield row, *ids.get(row.card_id, ({}, {}))


def _mapped(choices: list[str] | None, ids: Mapping[str, str]) -> list[str] | None:
    return None if choices is None else sorted(ids.get(choice, choice) for choice in choices)


def _store(row: sa.Row[Any], points: list[Any], choices: list[str] | None) -> None:
    if (points, choices) != (row.points, row.choices):
        op.get_bind().execute(
            sa.update(attempts).where(attempts.c.id == row.id).values(points=points, choices=choices)
        )


def upgrade() -> None:
    for row, point_ids, quiz_ids in _attempts_with_ids():
        points = [point_ids.get(position, f"#{position}") for position in row.points]
        _store(row, points, _mapped(row.choices, quiz_ids))


def _position(point: str, positions: Mapping[str, int]) -> int | None:
    """Where the point with this id stands, the position a "#<position>" kept, or None (gone)."""
    return int(point[1:]) if point.startswith("#") else positions.get(point)


def downgrade() -> None:
    for row, point_ids, quiz_ids in _attempts_with_ids():
        positions = {key: position for position, key in point_ids.items()}
        found = {_position(point, positions) for point in row.points}
        old_ids = {new: old for old, new in quiz_ids.items()}
        _store(row, sorted(p for p in found if p is not None), _mapped(row.choices, old_ids))
