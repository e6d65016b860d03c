"""What the author preview takes and, from the API, answers."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.schemas import Searchable, Storable

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


# A proposal is stored: PostgreSQL's text holds no NUL.
StoredCardText = Annotated[str, StringConstraints(max_length=MAX_CARD_CHARS), Searchable]
MAX_REASON_CHARS = 500
MAX_COMMENT_CHARS = 2000
Reason = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_REASON_CHARS), Searchable
]
CommentText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_COMMENT_CHARS), Searchable
]


class ProposalIn(BaseModel):
    """A suggested edit: the card's whole new markdown, and why."""

    model_config = ConfigDict(extra="forbid", strict=True)

    markdown: StoredCardText = Field(
        description="the whole card file as it should read, frontmatter included"
    )
    reason: Reason = Field(description="why the card should change, for the reviewer (1 to 500 characters)")


class AcceptIn(BaseModel):
    """Accept as proposed, or (`markdown`) after the reviewer's own edit of it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    markdown: StoredCardText | None = Field(default=None, description="the reviewer's edit, to write instead")


class DeclineIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    reason: Reason = Field(description="why not, for the proposer (1 to 500 characters)")


class CommentIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    text: CommentText


class ProposalState(BaseModel):
    id: int
    status: Literal["open", "accepted", "declined"]


class ProposalOut(ProposalState):
    card_id: str
    proposer: str | None = Field(description="the proposer's name; null once their account is deleted")
    reason: str
    created_at: datetime
    decided_at: datetime | None
    reviewer: str | None
    decision: str | None = Field(description="the reviewer's reason for a decline")
    commit: str | None = Field(description="the content repository's commit that took an accepted edit")
