"""What the assignment form must contain, and which view of the member table /team shows."""

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.content.tiers import Tier

CardId = Annotated[str, StringConstraints(max_length=120)]

# How a member takes an assignment: card by card (on /practice and the card pages) or as one mock
# interview (on /interview). The form's choices, its validation and the pages' words come from here.
AssignmentKind = Literal["review", "interview"]
KINDS: dict[AssignmentKind, str] = {"review": "as cards to review", "interview": "as a mock interview"}


class AssignmentIn(BaseModel):
    """Cards, a topic or both, at a depth, by a date, to review or as a mock interview; for one
    member (by name) or "" for everyone.

    Validated with strict=False: it comes from a form, which sends only text."""

    model_config = ConfigDict(extra="forbid")

    card_ids: list[CardId] = Field(default_factory=list, max_length=200)
    topic: Annotated[str, StringConstraints(strip_whitespace=True, max_length=80)] = ""
    tier: Tier
    kind: AssignmentKind = "review"
    due: date
    member: Annotated[str, StringConstraints(strip_whitespace=True, max_length=80)] = ""


# How /team orders its members: by name, the most recently active first, the most due first, or the
# lowest mean recall first.
MemberSort = Literal["name", "active", "due", "weakest"]
MEMBER_SORTS: dict[MemberSort, str] = {
    "name": "name",
    "active": "last active",
    "due": "most due",
    "weakest": "weakest recall",
}


@dataclass(frozen=True)
class MemberView:
    """Which page of the member table, in which order, of the names containing `q`."""

    sort: MemberSort = "name"
    q: str = ""
    page: int = 1
