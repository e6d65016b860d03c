"""Builders for test data: card files and stored attempts."""

from pathlib import Path
from typing import Any

from app import PROJECT_ROOT
from app.accounts.models import LOCAL_USER_ID
from app.content.cards import Card
from app.content.catalogue import load
from app.content.parser import parse_source
from app.content.scaffold import new_card
from app.practice.models import Attempt

OWNER_CARD = "tf-data-prefetch-last"
# The cards content/ ships: tests that list or count them read the deck rather than name it.
DECK = load(PROJECT_ROOT / "content").cards


def card_text(card_id: str = "sample-card", title: str = "A sample question?", **replace: str) -> str:
    """A valid card (the scaffold); `replace` swaps exact snippets to break or vary it."""
    text = new_card(card_id, title=title)
    for old, new in replace.items():
        assert old in text, f"snippet not in the scaffold: {old!r}"
        text = text.replace(old, new)
    return text


def write_card(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, snippet: str) -> int:
    """1-based line where `snippet` first appears."""
    for number, line in enumerate(text.splitlines(), start=1):
        if snippet in line:
            return number
    raise AssertionError(f"{snippet!r} not found")


def make_attempt(**overrides: Any) -> Attempt:
    values: dict[str, Any] = {
        "user_id": LOCAL_USER_ID,
        "card_id": OWNER_CARD,
        "tier": "middle",
        "kind": "solid",
        "text": "an answer",
        "seconds": 30.0,
        "points": [],
        "rating": "good",
    }
    values.update(overrides)
    return Attempt(**values)


def batching_card() -> Card:
    """A card whose two points differ only in the order of the same two calls."""
    text = card_text(
        "batch-repeat",
        **{
            "1. The first point a good answer makes\n2. The second point": (
                "1. repeat before batch makes batches cross epoch boundaries\n"
                "2. batch before repeat gives a short final batch each epoch"
            ),
            "The ~20 second answer.": (
                "Call `repeat` before `batch` and batches cross epoch boundaries; call `batch` before "
                "`repeat` and every epoch ends with a short final batch."
            ),
        },
    )
    return parse_source(text, Path("batch-repeat.md"))
