"""What the set-up form of a mock interview must contain."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from app.content.tiers import Tier
from app.schemas import Storable, WholeNumber

MAX_QUESTIONS = 10
DEFAULT_QUESTIONS = 3
Source = Literal["topic", "due", "assigned", "random", "cards"]
SOURCES: tuple[Source, ...] = ("topic", "due", "assigned", "random", "cards")
CardId = Annotated[str, StringConstraints(min_length=1, max_length=120), Storable]


class InterviewIn(BaseModel):
    """How the cards are chosen, at which depth, and how many. `cards` names them one by one
    (source "cards", the form an assignment's box posts); `count` then is how many it names."""

    model_config = ConfigDict(extra="forbid", strict=True)

    source: Source
    tier: Tier = "middle"
    count: WholeNumber = Field(default=DEFAULT_QUESTIONS, ge=1, le=MAX_QUESTIONS)
    topic: Annotated[str, StringConstraints(max_length=120), Storable] | None = None
    cards: list[CardId] = Field(default_factory=list, max_length=MAX_QUESTIONS * 4)

    @model_validator(mode="after")
    def _fits_source(self) -> "InterviewIn":
        if self.source == "topic" and not self.topic:
            raise ValueError("an interview on a topic names its 'topic'")
        if self.source == "cards":
            self.cards = list(dict.fromkeys(self.cards))
            if not 1 <= len(self.cards) <= MAX_QUESTIONS:
                raise ValueError(f"an interview on named cards names 1 to {MAX_QUESTIONS} of them")
        elif self.cards:
            raise ValueError("'cards' belongs only to an interview on named cards")
        return self
