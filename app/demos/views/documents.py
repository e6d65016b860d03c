"""The API's JSON documents for a run and a worker."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.demos.models import DemoRun, WorkerBeat
from app.demos.presets import (
    PRESETS,
)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def run_document(run: DemoRun, steps: bool = True) -> dict[str, Any]:
    """The result document of GET /api/demos/{run_id}; without `steps`, from the run's summary
    (lists never load per-step data)."""
    result = (run.result if steps else run.summary) or {}
    spec = PRESETS.get(run.preset)
    variants = list(result.get("variants") or [])
    return {
        "run_id": run.id,
        "preset": run.preset,
        "title": spec.title if spec else run.preset,
        "card_id": run.card_id,
        "params": run.params,
        "status": run.status,
        "progress": run.progress,
        "cancel_requested": run.cancel_requested,
        "environment": result.get("environment"),
        "variants": variants,
        "reading": result.get("reading"),
        "model": spec.model if spec else None,
        "error": run.error,
        "worker": run.worker,
        "rerun_of": run.rerun_of,
        "created_at": _iso(run.created_at),
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
        "heartbeat_at": _iso(run.heartbeat_at),
    }


def worker_document(beat: WorkerBeat) -> dict[str, Any]:
    return {
        "name": beat.name,
        "device": beat.device,
        "compute": beat.compute,
        "tensorflow_version": beat.tensorflow_version,
        "current_run_id": beat.current_run_id,
        "started_at": _iso(beat.started_at),
        "last_seen": _iso(beat.last_seen),
    }
