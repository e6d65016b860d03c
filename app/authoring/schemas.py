"""What the author preview takes and, from the API, answers."""

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.schemas import Storable

# Five times the longest card so far, and a bound on the work one preview costs. Small enough that
# any text this long fits the default 1 MB body cap even sent escaped (12 bytes a character at
# worst), so it is refused with this limit's own sentence, never a bare 413.
MAX_CARD_CHARS = 80_000

CardText = Annotated[str, StringConstraints(max_length=MAX_CARD_CHARS), Storable]


class CardSource(BaseModel):
    """A card's markdown, frontmatter included, as it would be saved into content/."""

    # Strict for JSON; the page's form validates it with strict=False (see app/schemas.py).
    model_config = ConfigDict(extra="forbid", strict=True)

    text: CardText = Field(description="the whole card file: YAML frontmatter, then its sections")


class ProblemOut(BaseModel):
    line: int = Field(description="1-based line of the text")
    message: str


class CheckOut(BaseModel):
    """What `tiercards content check` would say of the text, and the card it makes."""

    problems: list[ProblemOut]
    card: dict[str, Any] | None = Field(
        description="null while there are problems; else the card's metadata and, under `depths`, "
        "the sections each depth sees, as GET /api/cards/{card_id} gives them"
    )
