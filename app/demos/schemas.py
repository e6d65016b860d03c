"""The demo API's request and response shapes (they make its OpenAPI schema)."""

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

# A submit's key (the API's Idempotency-Key header, the card page form's field): visible ASCII, so
# a UUID, a hash or a client's own counter all fit.
SubmitKey = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[!-~]+$")]


class DemoIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    preset: str = Field(max_length=32, examples=["placement"])
    params: dict[str, Any] = Field(
        default_factory=dict, examples=[{"input_ms": 30, "compute_ms": 30, "steps": 40}]
    )
    card_id: str | None = Field(default=None, max_length=120)


class DemoAccepted(BaseModel):
    run_id: str
    status: str
    url: str
    rerun_of: str | None = None


class StepOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    start_ms: float
    input_ms: float
    compute_ms: float
    warmup: bool = False


class VariantSummaryOut(BaseModel):
    """A variant's numbers; memory and to-device variants carry a few more (extra keys kept)."""

    model_config = ConfigDict(extra="allow")

    name: str
    label: str | None = None
    median_step_ms: float
    p90_step_ms: float
    mean_step_ms: float | None = None
    model_step_ms: float | None
    model_basis: str = "median"
    measured_over_model: float | None = None


class VariantOut(VariantSummaryOut):
    steps: list[StepOut]


class WaitingOut(BaseModel):
    """What a queued run waits for."""

    lane: str = Field(description="The queue lane it is on: gpu for presets that need a GPU, else cpu")
    needs_gpu: bool
    workers: list[str] = Field(description="Alive workers that read its lane; empty: none can take it now")
    message: str


class DemoRunSummaryOut(BaseModel):
    run_id: str
    preset: str
    title: str
    card_id: str | None
    params: dict[str, int]
    status: str
    progress: dict[str, Any]
    cancel_requested: bool
    environment: dict[str, Any] | None
    variants: Sequence[VariantSummaryOut]
    reading: str | None
    model: str | None
    error: str | None
    waiting: WaitingOut | None
    worker: str | None
    rerun_of: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    heartbeat_at: datetime | None


class DemoRunOut(DemoRunSummaryOut):
    variants: Sequence[VariantOut]


class DemoRunList(BaseModel):
    runs: list[DemoRunSummaryOut]


class CancelOut(BaseModel):
    run_id: str
    status: str
    cancel_requested: bool
