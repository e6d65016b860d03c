"""What a recorded answer must say about itself when it is sent, and how one reads back."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from app.content.tiers import Tier
from app.schemas import WholeNumber

SpokenKind = Literal["basics", "solid", "follow-up"]
RecordingId = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]


class RecordingIn(BaseModel):
    """The fields sent beside the audio. Forms send only text, so this validates with strict=False."""

    # Forms may carry fields of their own (the CSRF token); only these are read.
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    tier: Tier
    kind: SpokenKind
    follow_up: WholeNumber | None = Field(default=None, ge=0, description="index of the follow-up answered")
    # How long the browser says it recorded; checked against MAX_RECORDING_SECONDS.
    seconds: float | None = Field(
        default=None, gt=0, description="the recording's length as the client measured it"
    )

    @model_validator(mode="after")
    def _fits_kind(self) -> "RecordingIn":
        if self.kind == "follow-up" and self.follow_up is None:
            raise ValueError("a follow-up recording names its question in 'follow_up'")
        if self.kind != "follow-up" and self.follow_up is not None:
            raise ValueError("'follow_up' belongs only to follow-up recordings")
        return self


class RecordingAccepted(BaseModel):
    id: str
    status: str


class TimedWord(BaseModel):
    word: str
    start: float
    end: float


class PauseOut(BaseModel):
    start: float
    end: float
    after: str | None = None
    # The word said after it; a recording measured before pauses were heard in the audio has none.
    before: str | None = None
    seconds: float | None = None


class HedgeOut(BaseModel):
    phrase: str = Field(description='the hedge as said: "I think", "maybe", "kind of"')
    sentence: str = Field(description="the sentence of the transcript it was said in")


class RecordingOut(BaseModel):
    id: str
    status: Literal["queued", "running", "done", "failed"]
    card_id: str
    tier: str
    kind: str
    follow_up: int | None
    transcript: str | None
    duration_s: float | None
    words: list[TimedWord]
    words_per_minute: float | None
    fillers: dict[str, int]
    pauses: list[PauseOut]
    error: str | None
    target_seconds: int | None
    pace: str | None
    pace_band: list[int] | None
    most_used: list[tuple[str, int]]
    terms_used: list[str]
    terms_missed: list[str]
    hedges: list[HedgeOut] | None = Field(
        description="hedges said, counted as behaviour, not judged; null for a recording measured before they were"
    )
    hedges_per_minute: float | None
    unclear_sounds: int | None = Field(
        description="short sounds set off by silence in which neither a word nor a filler was heard; "
        "null for a recording measured before sounds were heard alone"
    )
    model: str | None
    real_time_factor: float | None
    audio_kept: bool = Field(description="the audio is kept (KEEP_RECORDINGS) and playable by its owner")
    created_at: datetime


def delivery_fields(delivery: dict[str, Any] | None) -> dict[str, Any]:
    """The API's view of a stored `Delivery.to_doc()`, empty while there is none."""
    doc = delivery or {}
    return {
        "words_per_minute": doc.get("words_per_minute"),
        "fillers": doc.get("fillers") or {},
        "pauses": doc.get("pauses") or [],
        "target_seconds": doc.get("target_seconds"),
        "pace": doc.get("pace"),
        "pace_band": doc.get("pace_band"),
        "most_used": [tuple(pair) for pair in doc.get("most_used") or []],
        "terms_used": doc.get("terms_used") or [],
        "terms_missed": doc.get("terms_missed") or [],
        "hedges": doc.get("hedges"),
        "hedges_per_minute": doc.get("hedges_per_minute"),
        "unclear_sounds": doc.get("unclear_sounds"),
    }
