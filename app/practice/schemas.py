"""What an attempt must contain (submitted or imported) and how one reads back; the shapes the
practice JSON API answers with."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from app.content.tiers import Tier
from app.schemas import MAX_ANSWER_CHARS, Storable, WholeNumber
from app.speech.schemas import RecordingId, SpokenKind

MAX_SECONDS = 24 * 3600

# The answers said (or typed) in words, and the pitfall quiz.
Kind = Literal[SpokenKind, "quiz"]
Rating = Literal["again", "hard", "good", "easy"]
RATINGS: tuple[Rating, ...] = ("again", "hard", "good", "easy")

AnswerText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ANSWER_CHARS), Storable
]
ChoiceId = Annotated[str, StringConstraints(max_length=64), Storable]
PointId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{8}$")]
Position = Annotated[WholeNumber, Field(ge=0)]
# An answer point by its id or by its position in the card as served now. Tried left to right, so
# a form's "3" (forms send only text) is position 3 while an id made only of digits stays an id.
PointRef = Annotated[PointId | Position, Field(union_mode="left_to_right")]
Points = Annotated[
    list[PointRef],
    Field(max_length=50, description="the answer points covered: their ids, or positions in the card"),
]


class AttemptIn(BaseModel):
    """What a person submits. A quiz sends `choices` (the item ids marked as costly), not `text`.
    A basics or solid answer `revealed` without answering sends neither text nor a rating: the
    schedule counts it as a miss."""

    # Strict for JSON; forms validate with strict=False (see app/schemas.py).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    tier: Tier
    kind: Kind
    text: AnswerText | None = None
    seconds: float = Field(ge=0, le=MAX_SECONDS)
    rating: Rating | None = None
    points: Points = Field(default_factory=list)
    follow_up: WholeNumber | None = Field(default=None, ge=0, description="index of the follow-up answered")
    choices: list[ChoiceId] | None = Field(default=None, max_length=100)
    revealed: bool = Field(default=False, description="the model answer was revealed without answering")
    recording_id: RecordingId | None = Field(
        default=None,
        description="an answer given aloud: the transcribed recording it was said in; its duration is the attempt's seconds",
    )

    @model_validator(mode="after")
    def _fits_kind(self) -> "AttemptIn":
        if self.recording_id is not None and (self.revealed or self.kind == "quiz"):
            raise ValueError("'recording_id' belongs only to a basics, solid or follow-up answer")
        if self.revealed:
            self._fits_reveal()
        elif self.kind == "quiz":
            if self.choices is None:
                raise ValueError("a quiz attempt sends 'choices' (the item ids marked as costly)")
            if self.text is not None:
                raise ValueError("a quiz attempt sends 'choices', not 'text'")
        elif self.text is None:
            raise ValueError("an answer needs non-empty 'text'")
        if self.kind == "follow-up" and self.follow_up is None:
            raise ValueError("a follow-up attempt names its question in 'follow_up'")
        if self.kind != "follow-up" and self.follow_up is not None:
            raise ValueError("'follow_up' belongs only to follow-up attempts")
        return self

    def _fits_reveal(self) -> None:
        if self.kind not in ("basics", "solid"):
            raise ValueError("only a basics or solid answer can be revealed without answering")
        # An answer typed after the model answer was shown would be a copy, not a recall.
        if self.text is not None or self.choices is not None:
            raise ValueError("an attempt revealed without answering has no 'text' or 'choices'")
        if self.rating is not None or self.points:
            raise ValueError(
                "an attempt revealed without answering takes no 'rating' or 'points': it counts as a miss"
            )


class AttemptOut(BaseModel):
    id: int
    card_id: str
    tier: str
    kind: str
    follow_up: int | None
    text: str | None
    choices: list[str] | None
    score: float | None
    seconds: float
    points: list[int] = Field(
        description="positions in the card as served now of the points covered (ones it no longer has are left out)"
    )
    point_ids: list[str] = Field(description="the ids of the points covered, as stored")
    rating: str | None
    revealed: bool = Field(description="revealed without answering: no text, scheduled as a miss")
    recording_id: str | None = Field(description="said aloud: the recording it was transcribed from")
    words_per_minute: float | None = Field(description="said aloud: the pace")
    filler_count: int | None = Field(description="said aloud: filler words heard (an undercount)")
    long_pauses: int | None = Field(description="said aloud: pauses over 2 s")
    created_at: datetime


class Assessment(BaseModel):
    """A person's own verdict on an answer they just compared with the model answer."""

    model_config = ConfigDict(extra="forbid", strict=True)

    points: Points = Field(default_factory=list)
    rating: Rating


class QueueItem(BaseModel):
    card_id: str
    title: str
    tier: str
    state: str
    due: datetime | None
    overdue_seconds: float | None
    retrievability: float | None
    stability: float | None


class DueOut(BaseModel):
    now: datetime
    tier: str
    due: list[QueueItem]
    new: list[QueueItem]
    due_count: int
    new_today: int
    new_per_day: int
    next_due: datetime | None


class TierSchedule(BaseModel):
    tier: str
    state: str
    due: datetime | None
    retrievability: float | None
    stability: float | None
    difficulty: float | None
    last_review: datetime | None
    reps: int
    lapses: int


class UndoneOut(BaseModel):
    """A rating taken back: the attempt it rated, unrated again, and the card's schedule at that
    tier replayed without it (state "new" when no review is left)."""

    card_id: str
    tier: str
    attempt_id: int | None
    schedule: TierSchedule


class ScheduleOut(TierSchedule):
    card_id: str
    retired: bool
    tiers: dict[str, TierSchedule]


class ProgressOut(BaseModel):
    now: datetime
    target_tier: str
    summary: dict[str, Any]
    cards: list[dict[str, Any]]
    topics: list[dict[str, Any]]
    activity: list[dict[str, Any]]
    missed_pitfalls: list[dict[str, Any]]
    spoken: list[dict[str, Any]] = Field(
        description="the newest 50 answers given aloud, oldest first: pace (words a minute), fillers, long pauses"
    )
