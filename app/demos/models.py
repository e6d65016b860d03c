"""Live demo runs and the workers that run them."""

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.storage.base import Base, utcnow


class DemoRun(Base):
    """One live tf.data demo a person asked for: its parameters, where it is, and its result.

    The worker claims a queued run, writes progress and a heartbeat while it runs, and stores the
    result document (app/demos/run_result.py) when it is done; app/demos/runs.py and
    app/demos/claims.py own the rules.
    """

    __tablename__ = "demo_runs"
    __table_args__ = (
        Index("ix_demo_runs_user_status", "user_id", "status"),
        Index("ix_demo_runs_card_created", "card_id", "created_at"),
        Index("ix_demo_runs_status_created", "status", "created_at"),
        CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed', 'cancelled', 'interrupted')",
            name="status_known",
        ),
        # One run per key and person, on every replica: the database refuses a second.
        UniqueConstraint("user_id", "idempotency_key"),
    )

    # uuid4 hex: the run_id in URLs and the API.
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str | None] = mapped_column(String(120))
    preset: Mapped[str] = mapped_column(String(32))
    params: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), default="queued")
    progress: Mapped[dict[str, Any]] = mapped_column(default=dict)
    result: Mapped[dict[str, Any] | None]
    # The result without per-step data: what lists show, without loading thousands of steps.
    summary: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(Text)
    cancel_requested: Mapped[bool] = mapped_column(default=False)
    # The worker that claimed it: "host:pid".
    worker: Mapped[str | None] = mapped_column(String(255))
    # The run this one repeats (same preset and parameters), if it is a re-run.
    rerun_of: Mapped[str | None] = mapped_column(String(32))
    # The key the submit carried (the API's Idempotency-Key, the card page form's field): the same
    # key sent again names this run instead of starting another (app/demos/runs.py).
    idempotency_key: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    heartbeat_at: Mapped[datetime | None]


class WorkerBeat(Base):
    """A demo worker that is (or was) alive; the web reads `last_seen` to tell whether any is."""

    __tablename__ = "worker_beats"

    # "host:pid"
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    device: Mapped[str] = mapped_column(String(255))
    # real (a GPU train step), simulated (no GPU), or unknown until the first run reports.
    compute: Mapped[str] = mapped_column(String(16))
    tensorflow_version: Mapped[str | None] = mapped_column(String(32))
    current_run_id: Mapped[str | None] = mapped_column(String(32))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(default=utcnow)
    # The queue lanes it reads (app/jobs/queue.py LANES): ["cpu"], or ["gpu", "cpu"] for a GPU
    # worker. A row from a worker older than lanes reads as ["cpu"], all it could take.
    capabilities: Mapped[list[Any]] = mapped_column(server_default='["cpu"]')
    # How its GPU capability was decided: auto (TensorFlow found a GPU, or not), on (`--gpu`), off
    # (`--no-gpu`).
    gpu_setting: Mapped[str] = mapped_column(String(8), server_default="auto")
