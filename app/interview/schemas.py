"""What the set-up form of a mock interview must contain."""

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from app.content.tiers import Tier
from app.schemas import Storable, WholeNumber

MAX_QUESTIONS = 10
DEFAULT_QUESTIONS = 3
Source = Literal["random", "topic", "due", "assigned", "cards"]


@dataclass(frozen=True)
class Way:
    """A way of choosing an interview's cards: its label on the set-up form (None: not offered
    there, as an assignment's box names the cards) and what a refusal says when it draws none."""

    label: str | None
    nothing: str


WAYS: dict[Source, Way] = {
    "random": Way("A random draw", "no cards are served"),
    "topic": Way("On a topic", "no card to draw from under that topic"),
    "due": Way("What is due", "nothing is due at that depth right now"),
    # Only the cards assigned for review: interviews a lead assigns sit in a box of their own.
    "assigned": Way("Cards assigned to me to review", "nothing is assigned to you to review right now"),
    "cards": Way(None, "none of the named cards is served"),
}
OFFERED = {source: way.label for source, way in WAYS.items() if way.label is not None}
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
            raise ValueError("choose a topic for an interview on a topic")
        if self.source == "cards":
            self.cards = list(dict.fromkeys(self.cards))
            if not 1 <= len(self.cards) <= MAX_QUESTIONS:
                raise ValueError(f"an interview on named cards names 1 to {MAX_QUESTIONS} of them")
        elif self.cards:
            raise ValueError("'cards' belongs only to an interview on named cards")
        return self
