"""The JSON documents for a run and the workers, for the API and `tiercards demo workers --json`."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from app.demos.models import DemoRun, WorkerBeat
from app.demos.presenters.status import waiting_for
from app.presets import (
    PRESETS,
)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def run_document(run: DemoRun, *, workers: list[WorkerBeat], steps: bool = True) -> dict[str, Any]:
    """The result document of GET /api/demos/{run_id}; without `steps`, from the run's summary
    (lists never load per-step data). `workers`: the alive ones, for what a queued run waits for."""
    result = (run.result if steps else run.summary) or {}
    waiting = waiting_for(run, workers)
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
        "waiting": None
        if waiting is None
        else {
            "lane": waiting.lane,
            "needs_gpu": waiting.needs_gpu,
            "workers": [w.name for w in waiting.able],
            "message": waiting.message,
        },
        "worker": run.worker,
        "rerun_of": run.rerun_of,
        "created_at": _iso(run.created_at),
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
        "heartbeat_at": _iso(run.heartbeat_at),
    }


def worker_document(beat: WorkerBeat, shown_runs: Collection[str] | None = None) -> dict[str, Any]:
    """With `shown_runs`, the run the worker is on is named only when it is one of them."""
    current = beat.current_run_id
    return {
        "name": beat.name,
        "capabilities": list(beat.capabilities),
        "gpu_setting": beat.gpu_setting,
        "device": beat.device,
        "compute": beat.compute,
        "tensorflow_version": beat.tensorflow_version,
        "current_run_id": current if shown_runs is None or current in shown_runs else None,
        "started_at": _iso(beat.started_at),
        "last_seen": _iso(beat.last_seen),
    }


def workers_document(
    workers: list[WorkerBeat], *, timeout: float, queue_kind: str, shown_runs: Collection[str] | None = None
) -> dict[str, Any]:
    """GET /api/workers (with `shown_runs`, the asker's own runs: nobody else's run id is named)
    and `tiercards demo workers --json` (every run): the workers that beat within the timeout."""
    return {
        "workers": [worker_document(w, shown_runs) for w in workers],
        "heartbeat_timeout_seconds": timeout,
        "queue": queue_kind,
    }
