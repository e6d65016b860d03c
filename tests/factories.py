"""Builders for test data: card files and stored attempts."""

import re
from pathlib import Path
from typing import Any

from app import PROJECT_ROOT
from app.accounts.models import LOCAL_USER_ID
from app.content.cards import Card
from app.content.catalogue import load
from app.content.parser import CardParseError, parse_source
from app.content.placeholders import placeholders
from app.content.scaffold import new_card
from app.practice.models import Attempt

OWNER_CARD = "tf-data-prefetch-last"
# The cards content/ ships: tests that list or count them read the deck rather than name it.
DECK = load(PROJECT_ROOT / "content").cards


# The line that makes the scaffold a draft.
DRAFT_LINE = re.compile(r"^draft: true\b.*\n", re.MULTILINE)
# What the sample card says instead of each of the scaffold's placeholders, which a card that is
# not a draft may not keep.
WRITTEN = {
    "The first point a good answer makes": "The sample's first point",
    "The second point": "The sample's second point",
    "The ~20 second answer.": "The sample's short answer.",
    "The ~50 second answer.": "The sample's longer answer.",
    "# a short, realistic example": "# the sample's example",
    "What a junior is expected to say.": "What a junior says of the sample.",
    "What a middle engineer is expected to add.": "What a middle engineer adds to the sample.",
    "What a senior engineer is expected to add.": "What a senior engineer adds to the sample.",
    "What a principal engineer is expected to add.": "What a principal engineer adds to the sample.",
    "The long-form explanation.": "The sample's long-form explanation.",
    "A question the interviewer asks next?": "A question the sample is followed up with?",
    "Its answer.": "The sample's answer to it.",
    "A wrong belief a candidate might state": "A wrong belief about the sample",
    "Why it is wrong.": "Why the sample shows it wrong.",
    "A true statement that sounds like it could be a pitfall": "A true statement about the sample",
    "Why it is true.": "Why the sample shows it true.",
}


def card_text(card_id: str = "sample-card", title: str = "A sample question?", **replace: str) -> str:
    """A valid card, published: the scaffold with `replace` swapping exact snippets of it to break
    or vary it, then its draft line removed and the placeholder text left written over (WRITTEN)."""
    text = new_card(card_id, title=title)
    for old, new in replace.items():
        assert old in text, f"snippet not in the scaffold: {old!r}"
        text = text.replace(old, new)
    return _written(undrafted(text))


def undrafted(text: str) -> str:
    """The card with its `draft: true` line removed: published, whatever it still holds."""
    return DRAFT_LINE.sub("", text)


def drafted(text: str) -> str:
    """The card with `draft: true` as the last line of its frontmatter."""
    return text.replace("\n---\n", "\ndraft: true\n---\n", 1)


def _written(text: str) -> str:
    """The card with each text still the template's written over; one broken on purpose (which
    the placeholders cannot be found in) is left as it is, its problems being the test's."""
    try:
        card = parse_source(text, Path("card.md"))
    except CardParseError:
        return text
    lines = text.split("\n")
    for problem in placeholders(card, text):
        line = lines[problem.line - 1]
        placeholder = next((shown for shown in WRITTEN if line.endswith(shown)), None)
        assert placeholder, f"WRITTEN says nothing for the template's {line!r}"
        lines[problem.line - 1] = line.removesuffix(placeholder) + WRITTEN[placeholder]
    return "\n".join(lines)


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
