"""The shapes of the export file: what `GET /api/export.json` writes and `POST /api/import` reads.

app/transfer/export.py writes a file of these shapes; app/transfer/reader.py reads one a row
at a time (and checks the rules across rows: unique attempt ids and states, logs that name an
attempt of the file) and app/transfer/merge.py merges it.
"""

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StringConstraints,
    ValidationError,
    model_serializer,
    model_validator,
)

from app.content.cards import pitfall_id
from app.content.tiers import Tier
from app.exceptions import field_messages
from app.interview.schemas import MAX_QUESTIONS, Minutes, Outcome, Source
from app.practice import scheduling
from app.practice.preferences import PracticeSettings
from app.practice.schemas import MAX_SECONDS, AttemptIn, Kind, Rating
from app.schemas import MAX_ANSWER_CHARS, WholeNumber
from app.speech.delivery import MAX_WORDS_PER_MINUTE

MAX_ROWS = 500_000
# Bounds of the delivery figures an answer given aloud carries.
MAX_DELIVERY_COUNT = 10_000
SPOKEN_FIGURES = ("words_per_minute", "filler_count", "long_pauses")
# What a database INTEGER column holds on every engine; a larger count is no real count.
MAX_INT = 2**31 - 1
CardId = Annotated[str, Field(min_length=1, max_length=120)]
Count = Annotated[WholeNumber, Field(ge=0, le=MAX_INT)]
# An answer point as stored: its id, or "#<position>" for a position a version-1 file named that
# could not be mapped to one.
StoredPoint = Annotated[str, StringConstraints(pattern=r"^(?:[0-9a-f]{8}|#[0-9]{1,10})$")]


def _in_utc(moment: datetime) -> datetime:
    # "0001-01-01T00:00:00+23:59" is a valid timestamp that no UTC calendar can hold.
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError("the time is outside the range a calendar date can hold") from None


Moment = Annotated[AwareDatetime, AfterValidator(_in_utc)]
StateName = Literal["learning", "review", "relearning"]
STATE_BY_NAME = {name: number for number, name in scheduling.STATE_NAMES.items()}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


# A point's id as the checker names it: an answer point's key, or a follow-up sentence's.
ItemId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{8}$")]
# A pitfall's id: the file names it "p-<key>", as the card API and the coverage API do; the
# database keeps the bare key, which the model holds and files written before the ids agreed carry.
PitfallId = Annotated[
    ItemId,
    BeforeValidator(lambda named: named.removeprefix("p-") if isinstance(named, str) else named),
    PlainSerializer(pitfall_id, when_used="json"),
]
# The most points or pitfalls a suggestion lists; no card comes near it.
MAX_SUGGESTED = 100


def _ordered_pair(*, low: int | None, high: int | None, names: tuple[str, str], strictly: bool) -> None:
    """Two counts given both or neither, the first below (or, not `strictly`, at most) the second."""
    if (low is None) != (high is None):
        raise ValueError(f"{names[0]} and {names[1]} come together")
    if low is not None and high is not None and (low >= high if strictly else low > high):
        raise ValueError(f"{names[0]} is {'below' if strictly else 'at most'} {names[1]}")


class _Stretch(_Strict):
    """Where evidence stands in the attempt's text: both ends, or neither."""

    start: Count | None = None
    end: Count | None = None

    @model_validator(mode="after")
    def _a_stretch(self) -> "_Stretch":
        _ordered_pair(low=self.start, high=self.end, names=("start", "end"), strictly=True)
        return self


class SuggestedPointDoc(_Stretch):
    id: ItemId
    covered: bool
    # Files from before the checker said how sure it was read as sure, as the pages read them.
    sure: bool = True
    score: float = Field(ge=0, le=1)


class SuggestedPitfallDoc(_Stretch):
    id: PitfallId
    sure: bool = True
    start: Count
    end: Count


class CoverageDoc(_Strict):
    """What the coverage checker suggested for the answer, and how the person's ticks agreed."""

    method: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]+$")
    points: list[SuggestedPointDoc] = Field(max_length=MAX_SUGGESTED)
    pitfalls: list[SuggestedPitfallDoc] = Field(max_length=MAX_SUGGESTED)
    agreed: Count | None = None
    compared: Count | None = None

    @model_validator(mode="after")
    def _agreement(self) -> "CoverageDoc":
        _ordered_pair(low=self.agreed, high=self.compared, names=("agreed", "compared"), strictly=False)
        return self

    def furthest(self) -> int:
        """Where the last stretch of evidence ends."""
        return max((item.end or 0 for item in [*self.points, *self.pitfalls]), default=0)


class AttemptDoc(_Strict):
    id: WholeNumber = Field(ge=1, le=2**63 - 1)
    card_id: CardId
    tier: Tier
    kind: Kind
    follow_up: Count | None = None
    text: str | None = Field(default=None, max_length=MAX_ANSWER_CHARS)
    choices: list[str] | None = Field(default=None, max_length=100)
    score: float | None = Field(default=None, ge=0, le=1)
    seconds: float = Field(ge=0, le=MAX_SECONDS)
    points: list[Count] | list[StoredPoint] = Field(
        default_factory=list, max_length=50, description="ids (version 2) or positions (version 1)"
    )
    rating: Rating | None = None
    revealed: bool = False
    # An answer given aloud: how it was said (the recording itself is never exported).
    words_per_minute: float | None = Field(default=None, ge=0, le=MAX_WORDS_PER_MINUTE)
    filler_count: WholeNumber | None = Field(default=None, ge=0, le=MAX_DELIVERY_COUNT)
    long_pauses: WholeNumber | None = Field(default=None, ge=0, le=MAX_DELIVERY_COUNT)
    created_at: Moment
    # The checker's suggestion, on an answer that has one.
    coverage: CoverageDoc | None = None

    @model_validator(mode="after")
    def _as_if_submitted(self) -> "AttemptDoc":
        """An imported attempt passes the rules a submitted one does, so every page can show it.
        Its points are the exception: they may name points a card no longer has."""
        if any(getattr(self, name) is not None for name in SPOKEN_FIGURES) and (
            self.kind == "quiz" or self.revealed
        ):
            raise ValueError(
                "words_per_minute, filler_count and long_pauses belong only to a basics, solid or follow-up answer"
            )
        try:
            AttemptIn.model_validate(self.model_dump(include=set(AttemptIn.model_fields) - {"points"}))
        except ValidationError as error:
            raise ValueError("; ".join(field_messages(error.errors(), "attempt"))) from None
        if self.kind == "quiz" and self.score is None:
            raise ValueError("a quiz attempt has a score")
        if self.coverage is not None and (self.kind == "quiz" or self.revealed or not self.text):
            raise ValueError("coverage belongs only to a basics, solid or follow-up answer with its text")
        if self.coverage is not None and self.coverage.furthest() > len(self.text or ""):
            raise ValueError("the coverage's evidence lies outside the answer's text")
        return self

    @model_serializer(mode="wrap")
    def _figures_when_said(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, object]:
        """The file names the delivery figures only on answers given aloud, so a typed answer's
        row reads as it did before there were any (and an older server still imports it)."""
        row: dict[str, object] = handler(self)
        if info.mode == "json":
            for name in (*SPOKEN_FIGURES, "coverage"):
                if row.get(name) is None:
                    row.pop(name, None)
        return row


class ReviewStateDoc(_Strict):
    card_id: CardId
    tier: Tier
    state: StateName
    step: Count | None = None
    stability: float | None = Field(default=None, gt=0)
    difficulty: float | None = Field(default=None, ge=1, le=10)
    due: Moment
    last_review: Moment | None
    first_review: Moment
    reps: Count
    lapses: Count


class ReviewLogDoc(_Strict):
    card_id: CardId
    tier: Tier
    rating: WholeNumber = Field(ge=1, le=4, description="FSRS rating: 1 again, 2 hard, 3 good, 4 easy")
    review_datetime: Moment
    review_duration_ms: Count | None = None
    attempt_id: WholeNumber | None = Field(default=None, description="the `id` of an attempt in this file")


class InterviewQuestionDoc(_Strict):
    card_id: CardId
    follow_up: Count | None = Field(
        default=None,
        description="None: the card's main question, or a point or pitfall asked in the interviewer's words",
    )
    why: str | None = Field(
        default=None,
        max_length=140,
        description='why a follow-up was asked: "point:<id>" missed, "pitfall:<id>" asserted, or "deeper"',
    )
    outcome: Outcome | None = Field(default=None, description="passed over without an answer")
    attempt_id: WholeNumber | None = Field(default=None, description="the `id` of an attempt in this file")


class InterviewDoc(_Strict):
    """A mock interview: how its cards were chosen and its questions in the order asked."""

    id: WholeNumber = Field(ge=1, le=2**63 - 1)
    created_at: Moment
    finished_at: Moment | None = None
    tier: Tier
    source: Source
    topic: str | None = Field(default=None, max_length=120)
    rate_each: bool = Field(
        default=True, description="each answer rated as given (typed), or from the summary"
    )
    minutes: Minutes | None = Field(default=None, description="timed as a whole: its length")
    ran_out_at: Moment | None = Field(default=None, description="when its time ran out, ending it")
    questions: list[InterviewQuestionDoc] = Field(max_length=MAX_QUESTIONS * 10)


class ExportDoc(_Strict):
    """Everything of one person's: the file `GET /api/export.json` writes and `POST /api/import` reads."""

    format: Literal["tiercards-export"] = "tiercards-export"
    # Version 1 named answer points and quiz items by position; export writes version 2, ids.
    version: Literal[1, 2] = 2
    exported_at: Moment
    settings: PracticeSettings
    attempts: list[AttemptDoc] = Field(max_length=MAX_ROWS)
    review_states: list[ReviewStateDoc] = Field(max_length=MAX_ROWS)
    review_logs: list[ReviewLogDoc] = Field(max_length=MAX_ROWS)
    # Written for the record; an import reads past it (see docs/practising.md, "Progress").
    interviews: list[InterviewDoc] = Field(default_factory=list, max_length=MAX_ROWS)
