"""A run's status, progress, queue position and what it waits for, and the history of a person's
runs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.demos.models import DemoRun, WorkerBeat
from app.demos.presenters.comparison import NoiseView, claim, noise_view
from app.demos.presenters.forms import params_text
from app.demos.runs import ACTIVE
from app.jobs.queue import lane_for
from app.presets import (
    PRESETS,
    Preset,
    get_preset,
)
from app.presets.results import variants_of

STATUS_LABELS = {
    "queued": "Waiting in the queue",
    "running": "Running",
    "done": "Done",
    "failed": "Failed",
    "cancelled": "Cancelled",
    "interrupted": "Interrupted",
}


@dataclass(frozen=True)
class Waiting:
    """What a queued run waits for: a worker that reads its lane, alive or not."""

    lane: str
    needs_gpu: bool
    # Alive workers that read the run's lane: one of them takes it when it is free.
    able: list[WorkerBeat]
    # Alive workers that do not (workers without a GPU, for a GPU preset).
    others: int
    message: str


def _who(workers: list[WorkerBeat]) -> str:
    if len(workers) == 1:
        return f"{workers[0].name} ({workers[0].device})"
    return f"one of {len(workers)} ({', '.join(w.name for w in workers)})"


def waiting_for(run: DemoRun, workers: list[WorkerBeat]) -> Waiting | None:
    """For a queued run: which workers can take it and, in a sentence, what it waits for."""
    if run.status != "queued":
        return None
    lane = lane_for(run.preset)
    able = [w for w in workers if lane in w.capabilities]
    needs_gpu = get_preset(run.preset).needs_gpu
    kind = "GPU worker" if needs_gpu else "worker"
    if able:
        message = f"Waiting for a {kind}: {_who(able)} takes it as soon as it is free."
    elif needs_gpu:
        message = (
            "No GPU worker is running: this demo needs a GPU, so it waits in the queue until a "
            "GPU worker starts. Workers without a GPU leave it alone."
        )
    else:
        message = "No worker is running: the job waits in the queue until one starts."
    return Waiting(lane, needs_gpu, able, len(workers) - len(able), message)


@dataclass(frozen=True)
class RunView:
    run_id: str
    preset: Preset
    card_id: str | None
    params: list[tuple[str, Any, str]]
    status: str
    status_label: str
    active: bool
    cancel_requested: bool
    error: str | None
    created_at: datetime
    started_at: datetime | None
    progress_value: float
    progress_text: str
    position: int | None
    waiting: Waiting | None
    worker: str | None
    seconds: float | None
    # Of a finished run: the card's claim as it measured it, and what its own noise was.
    claim: str | None = None
    noise: NoiseView | None = None


def progress_of(preset: Preset, progress: dict[str, Any] | None) -> tuple[float, str]:
    """(fraction done 0…1, 'Variant 2 of 4, prefetch(2) before batch: step 13 of 40')."""
    if not progress:
        return 0.0, ""
    total_variants = int(progress.get("variants_total") or len(preset.variants) or 1)
    index = int(progress.get("variant_index") or 0)
    steps_total = int(progress.get("steps_total") or 1)
    done = int(progress.get("steps_done") or 0)
    fraction = min(1.0, (index + done / steps_total) / total_variants)
    name = str(progress.get("variant") or "")
    label = preset.variant(name).label if name in preset.variant_names else name
    text = f"Variant {index + 1} of {total_variants}, {label}: step {done} of {steps_total}"
    return fraction, text


def run_view(run: DemoRun, *, workers: list[WorkerBeat], position: int | None) -> RunView:
    spec = get_preset(run.preset)
    value, text = progress_of(spec, run.progress)
    if run.status == "done":
        value = 1.0
    units = {p.name: p.unit for p in spec.params}
    seconds = None
    if run.started_at and run.finished_at:
        seconds = (run.finished_at - run.started_at).total_seconds()
    finished = run.result if run.status == "done" and run.result else None
    return RunView(
        run_id=run.id,
        preset=spec,
        card_id=run.card_id,
        params=[(spec.param_label(k), v, units.get(k, "")) for k, v in run.params.items()],
        status=run.status,
        status_label=STATUS_LABELS.get(run.status, run.status),
        active=run.status in ACTIVE,
        cancel_requested=run.cancel_requested,
        error=run.error,
        created_at=run.created_at,
        started_at=run.started_at,
        progress_value=round(value, 3),
        progress_text=text,
        position=position,
        waiting=waiting_for(run, workers),
        worker=run.worker,
        seconds=seconds,
        claim=claim(finished) if finished else None,
        noise=noise_view(finished) if finished else None,
    )


@dataclass(frozen=True)
class HistoryRow:
    run_id: str
    created_at: datetime
    title: str
    params: str
    status: str
    status_label: str
    headline: str


def headline(result: dict[str, Any] | None) -> str:
    """The card's claim as the run measured it first, then 'fastest: prefetch(AUTOTUNE) last
    31 ms · slowest: No prefetch 61 ms'."""
    variants = variants_of(result)
    if not variants:
        return ""
    fastest = min(variants, key=lambda v: v.measured_step_ms)
    slowest = max(variants, key=lambda v: v.measured_step_ms)
    ranked = (
        f"fastest: {fastest.label} {fastest.measured_step_ms:.0f} ms · "
        f"slowest: {slowest.label} {slowest.measured_step_ms:.0f} ms"
    )
    said = claim(result)
    return f"{said} · {ranked}" if said is not None else ranked


def history_rows(runs: list[DemoRun]) -> list[HistoryRow]:
    rows = []
    for run in runs:
        spec = PRESETS.get(run.preset)
        rows.append(
            HistoryRow(
                run_id=run.id,
                created_at=run.created_at,
                title=spec.title if spec else run.preset,
                params=params_text(run.preset, run.params),
                status=run.status,
                status_label=STATUS_LABELS.get(run.status, run.status),
                headline=headline(run.summary) if run.status == "done" else (run.error or ""),
            )
        )
    return rows
