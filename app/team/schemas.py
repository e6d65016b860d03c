"""What the assignment form must contain."""

from datetime import date
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.content.tiers import Tier

CardId = Annotated[str, StringConstraints(max_length=120)]


class AssignmentIn(BaseModel):
    """Cards, a topic or both, at a depth, by a date; for one member (by name) or "" for everyone.

    Validated with strict=False: it comes from a form, which sends only text."""

    model_config = ConfigDict(extra="forbid")

    card_ids: list[CardId] = Field(default_factory=list, max_length=200)
    topic: Annotated[str, StringConstraints(strip_whitespace=True, max_length=80)] = ""
    tier: Tier
    due: date
    member: Annotated[str, StringConstraints(strip_whitespace=True, max_length=80)] = ""
