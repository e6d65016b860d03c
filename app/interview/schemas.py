"""What the set-up form of a mock interview must contain."""

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, WithJsonSchema, model_validator

from app.content.tiers import Tier
from app.coverage.schemas import CoverageOut
from app.practice.schemas import MAX_SECONDS, AnswerText
from app.schemas import Storable, WholeNumber
from app.speech.schemas import RecordingId

MAX_QUESTIONS = 10
DEFAULT_QUESTIONS = 3
# A session timed as a whole: the lengths the set-up form offers, and the longest any may be.
OFFERED_MINUTES = (10, 20, 30, 45)
MAX_MINUTES = 120
# Its JSON schema said outright: pydantic names WholeNumber's bounds inside `| None` "ge" and "le",
# which no JSON Schema reader knows.
Minutes = Annotated[
    WholeNumber,
    Field(ge=1, le=MAX_MINUTES),
    WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_MINUTES}),
]
Source = Literal["random", "topic", "due", "assigned", "cards"]
# A question passed over without an answer: its button, and what the summary says of it.
Outcome = Literal["skipped", "dont-know"]


@dataclass(frozen=True)
class Pass:
    button: str
    said: str


OUTCOMES: dict[Outcome, Pass] = {
    "skipped": Pass("Skip", "Skipped."),
    "dont-know": Pass("I don't know", "Said “I don't know”."),
}


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
    # Spoken: questions heard, answers given aloud hands-free, and rated from the summary rather
    # than one by one as they come.
    spoken: bool = False
    # Timed as a whole: when this many minutes have passed, the answer being given is the last.
    minutes: Minutes | None = None
    # The mock interview a lead assigned that this session takes (its box on /interview).
    assignment: WholeNumber | None = None

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


class PassIn(BaseModel):
    """A question passed over: how, and the seconds its clock showed."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    outcome: Outcome
    seconds: float = Field(default=0, ge=0, le=MAX_SECONDS)


class InterviewApiIn(BaseModel):
    """`POST /api/interviews`: the cards, asked in this order, and the depth."""

    model_config = ConfigDict(extra="forbid", strict=True)

    cards: list[CardId] = Field(min_length=1, max_length=MAX_QUESTIONS)
    tier: Tier = "middle"
    minutes: Minutes | None = None


class AnswerApiIn(BaseModel):
    """`POST /api/interviews/{id}/answers`: the answer typed (`text`, `seconds`), given aloud
    (`recording_id`: its transcript, or `text` correcting it), or the question passed over
    (`outcome`)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    text: AnswerText | None = None
    seconds: float = Field(default=0, ge=0, le=MAX_SECONDS)
    recording_id: RecordingId | None = None
    outcome: Outcome | None = None

    @model_validator(mode="after")
    def _one_way(self) -> "AnswerApiIn":
        if self.outcome is not None and (self.text is not None or self.recording_id is not None):
            raise ValueError("a question passed over ('outcome') sends no 'text' or 'recording_id'")
        if self.outcome is None and self.text is None and self.recording_id is None:
            raise ValueError("an answer sends 'text', a 'recording_id', or an 'outcome' (skipped, dont-know)")
        return self


class QuestionOut(BaseModel):
    """A question as the interviewer asks it. `why`: the missed point or asserted pitfall a
    follow-up probes, or "deeper"; None for a card's main question."""

    card_id: str
    kind: Literal["main", "follow-up"]
    follow_up: int | None
    text: str
    why: str | None
    probes: dict[str, str] | None = Field(
        description='{"point": id} or {"pitfall": id}, as the card API names them'
    )
    target_seconds: int
    audio_url: str | None = None
    position: int


class StartedOut(BaseModel):
    id: int
    question: QuestionOut


class AnsweredOut(BaseModel):
    """The answer's coverage of the card's points and pitfalls (as `POST /api/cards/{id}/coverage`
    gives it; None for a card's follow-up, whose answer is read against its own, and for a
    question passed over), and the next question (None: the session is over)."""

    coverage: CoverageOut | None
    next: QuestionOut | None


class AskedOut(BaseModel):
    """One question of a session and what became of it."""

    question: QuestionOut
    outcome: Outcome | None
    answer: str | None
    seconds: float | None
    covered: list[str] | None = Field(
        description="the card's point ids the checker suggested, for a main answer"
    )
    pitfalls: list[str] | None
    rating: str | None
    delivery: dict[str, Any] | None


class ComparedOut(BaseModel):
    """A card asked in this session and in the person's last session on it: the card's points
    the checker found each time (of `points`), the time, and the rating."""

    card_id: str
    points: int
    covered_then: int | None
    covered_now: int | None
    seconds_then: float | None
    seconds_now: float | None
    rating_then: str | None
    rating_now: str | None


class PreviousOut(BaseModel):
    """The person's last finished session that asked some of the same cards."""

    id: int
    created_at: datetime
    cards: list[ComparedOut]


class SummaryOut(BaseModel):
    id: int
    tier: Tier
    created_at: datetime
    finished_at: datetime | None
    minutes: int | None = Field(description="the session's length when timed as a whole")
    ran_out: bool = Field(description="its time ran out before every card was asked")
    questions: list[AskedOut]
    next: QuestionOut | None
    previous: PreviousOut | None
