"""What the demo pages and the API show, computed here so templates only format.

- forms for the presets a card lists (no per-person data: the card page is cached);
- a run's status, progress and queue position;
- the timeline of every variant as SVG geometry (input wait and compute as bars per step, on one
  time scale shared by all variants, so a slower pipeline is visibly longer);
- measured against model, with the ratio and a plain verdict (a disagreement is a finding);
- the API's result document.
Nothing here imports TensorFlow.
"""

from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.demo_runs import ACTIVE
from app.demos.presets import (
    AGREEMENT,
    PRESETS,
    ParamSpec,
    Preset,
    estimate_seconds,
    get_preset,
    measured_step_ms,
)
from app.models import DemoRun, WorkerBeat

PARAM_LABELS = {
    "input_ms": "Input per batch",
    "compute_ms": "Compute per step",
    "batch_size": "Batch size",
    "steps": "Steps per variant",
    "workers": "Parallel map calls",
    "jitter_pct": "Burstiness",
    "burst_len": "Burst length",
    "batch_mb": "Batch in memory",
}

STATUS_LABELS = {
    "queued": "Waiting in the queue",
    "running": "Running",
    "done": "Done",
    "failed": "Failed",
    "cancelled": "Cancelled",
    "interrupted": "Interrupted",
}


# ---------------------------------------------------------------------------------------------
# Forms (card page)


@dataclass(frozen=True)
class ParamField:
    name: str
    label: str
    unit: str
    help: str
    min: int
    max: int
    value: int | str


@dataclass(frozen=True)
class PresetForm:
    name: str
    title: str
    description: str
    model: str
    needs_gpu: bool
    estimate_seconds: float
    variants: list[str]
    fields: list[ParamField]
    errors: list[str] = field(default_factory=list)


def _field(spec: ParamSpec, value: int | str | None = None) -> ParamField:
    return ParamField(
        spec.name,
        PARAM_LABELS.get(spec.name, spec.name),
        spec.unit,
        spec.help,
        spec.min,
        spec.max,
        spec.default if value is None else value,
    )


def preset_form(
    name: str, values: dict[str, Any] | None = None, errors: list[str] | None = None
) -> PresetForm:
    spec = get_preset(name)
    values = values or {}
    return PresetForm(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        model=spec.model,
        needs_gpu=spec.needs_gpu,
        estimate_seconds=estimate_seconds(spec.name, spec.defaults()),
        variants=[v.label for v in spec.variants],
        fields=[_field(p, values.get(p.name)) for p in spec.params],
        errors=errors or [],
    )


def preset_forms(names: tuple[str, ...] | list[str]) -> list[PresetForm]:
    """Forms for the presets a card lists, in its order; unknown names are skipped."""
    return [preset_form(name) for name in names if name in PRESETS]


def params_text(preset: str, params: dict[str, Any]) -> str:
    """'input 30 ms · compute 30 ms · batch 4 · 40 steps'."""
    spec = PRESETS.get(preset)
    units = {p.name: p.unit for p in spec.params} if spec else {}
    parts = []
    for name, value in params.items():
        label = PARAM_LABELS.get(name, name).lower()
        unit = units.get(name, "")
        parts.append(
            f"{label} {value}{'' if unit in ('', 'steps', 'examples', 'calls', 'batches') else ' ' + unit}"
        )
    return " · ".join(parts)


# ---------------------------------------------------------------------------------------------
# Status and progress


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
    workers: list[WorkerBeat]
    worker: str | None
    seconds: float | None


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


def run_view(run: DemoRun, workers: list[WorkerBeat], position: int | None) -> RunView:
    spec = get_preset(run.preset)
    value, text = progress_of(spec, run.progress)
    if run.status == "done":
        value = 1.0
    units = {p.name: p.unit for p in spec.params}
    seconds = None
    if run.started_at and run.finished_at:
        seconds = (run.finished_at - run.started_at).total_seconds()
    return RunView(
        run_id=run.id,
        preset=spec,
        card_id=run.card_id,
        params=[(PARAM_LABELS.get(k, k), v, units.get(k, "")) for k, v in run.params.items()],
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
        workers=workers,
        worker=run.worker,
        seconds=seconds,
    )


# ---------------------------------------------------------------------------------------------
# Timelines


SVG_WIDTH = 880
GUTTER = 104  # lane labels on the left
RIGHT = 18
LANE_H = 18
LANE_GAP = 8
TOP = 6
AXIS_H = 30
MIN_BAR = 0.5  # px: a bar narrower than this is drawn this wide (never hidden when it exists)
HIDDEN_BELOW_MS = 0.05  # a wait this short is no wait at all: not drawn


@dataclass(frozen=True)
class Bar:
    x: float
    width: float
    step: int
    ms: float
    warmup: bool


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Lane:
    kind: str  # input | compute
    label: str
    y: float
    height: float
    text_y: float
    bars: list[Bar]


@dataclass(frozen=True)
class Timeline:
    index: int
    name: str
    label: str
    code: str
    width: int
    height: int
    plot_left: int
    plot_right: int
    lanes: list[Lane]
    ticks: list[Tick]
    axis_y: float
    warmup_x: float  # right edge of the warm-up shading (plot_left: none)
    end_x: float
    summary: str


def _nice_step(total_ms: float, target: int = 8) -> float:
    raw = max(total_ms, 1.0) / target
    magnitude = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * magnitude >= raw:
            return m * magnitude
    return 10 * magnitude


def time_label(ms: float) -> str:
    if ms == 0:
        return "0"
    if ms < 1000:
        return f"{ms:g} ms"
    return f"{ms / 1000:g} s"


def _end_ms(steps: list[dict[str, Any]]) -> float:
    if not steps:
        return 0.0
    last = steps[-1]
    return float(last["start_ms"] + last["input_ms"] + last["compute_ms"])


def timelines(result: dict[str, Any]) -> list[Timeline]:
    """One timeline per variant, all on the time scale of the slowest, so lengths compare."""
    variants = result.get("variants") or []
    total = max((_end_ms(v.get("steps") or []) for v in variants), default=0.0) or 1.0
    plot_w = SVG_WIDTH - GUTTER - RIGHT
    scale = plot_w / total
    step_ms = _nice_step(total)
    ticks = [
        Tick(round(GUTTER + t * scale, 2), time_label(round(t, 6)))
        for t in (i * step_ms for i in range(int(total / step_ms) + 1))
    ]
    lanes_bottom = TOP + 2 * LANE_H + LANE_GAP
    axis_y = lanes_bottom + 6
    height = int(axis_y + AXIS_H - 6)
    warmup_steps = int((result.get("environment") or {}).get("warmup_steps") or 0)
    out = []
    for index, variant in enumerate(variants):
        steps = variant.get("steps") or []
        inputs: list[Bar] = []
        computes: list[Bar] = []
        for k, step in enumerate(steps):
            start = float(step["start_ms"])
            wait = float(step["input_ms"])
            compute = float(step["compute_ms"])
            warm = bool(step.get("warmup", k < warmup_steps))
            if wait >= HIDDEN_BELOW_MS:
                inputs.append(
                    Bar(
                        round(GUTTER + start * scale, 2),
                        round(max(wait * scale, MIN_BAR), 2),
                        k + 1,
                        wait,
                        warm,
                    )
                )
            computes.append(
                Bar(
                    round(GUTTER + (start + wait) * scale, 2),
                    round(max(compute * scale, MIN_BAR), 2),
                    k + 1,
                    compute,
                    warm,
                )
            )
        warm_count = sum(1 for s in steps if s.get("warmup"))
        warmup_x = (
            GUTTER + float(steps[warm_count]["start_ms"]) * scale if 0 < warm_count < len(steps) else GUTTER
        )
        end_ms = _end_ms(steps)
        lanes = [
            Lane("input", "input wait", TOP, LANE_H, TOP + LANE_H - 5, inputs),
            Lane(
                "compute",
                "compute",
                TOP + LANE_H + LANE_GAP,
                LANE_H,
                TOP + 2 * LANE_H + LANE_GAP - 5,
                computes,
            ),
        ]
        median_in = variant.get("median_input_wait_ms")
        median_co = variant.get("median_compute_ms")
        summary = (
            f"{variant.get('label', variant['name'])}: {len(steps)} steps in {time_label(round(end_ms))}; "
            f"median step {variant['median_step_ms']:.1f} ms"
        )
        if median_in is not None and median_co is not None:
            summary += f", of which {median_in:.1f} ms waiting for input and {median_co:.1f} ms computing"
        out.append(
            Timeline(
                index=index,
                name=variant["name"],
                label=str(variant.get("label", variant["name"])),
                code=str(variant.get("code", "")),
                width=SVG_WIDTH,
                height=height,
                plot_left=GUTTER,
                plot_right=SVG_WIDTH - RIGHT,
                lanes=lanes,
                ticks=ticks,
                axis_y=axis_y,
                warmup_x=round(warmup_x, 2),
                end_x=round(GUTTER + end_ms * scale, 2),
                summary=summary + ".",
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# Measured against model


@dataclass(frozen=True)
class Comparison:
    name: str
    label: str
    code: str
    basis: str  # median | mean
    measured_ms: float
    p90_ms: float
    model_ms: float | None
    ratio: float | None
    verdict: str  # match | slower | faster | none
    verdict_text: str


def verdict(measured: float, model: float | None) -> tuple[float | None, str, str]:
    if not model:
        return None, "none", "no model for this variant"
    ratio = measured / model
    off = abs(ratio - 1) * 100
    # One decimal near the threshold, so "10 %" never reads as a finding of exactly 10 %.
    pct = f"{off:.0f}" if abs(off - AGREEMENT * 100) >= 0.5 else f"{off:.1f}"
    if abs(ratio - 1) <= AGREEMENT:
        return ratio, "match", "matches the model"
    if ratio > 1:
        return ratio, "slower", f"finding: {pct} % slower than the model"
    return ratio, "faster", f"finding: {pct} % faster than the model"


def comparisons(result: dict[str, Any]) -> list[Comparison]:
    rows = []
    for v in result.get("variants") or []:
        basis = v.get("model_basis", "median")
        measured = measured_step_ms(v)
        model = v.get("model_step_ms")
        ratio, kind, text = verdict(measured, model)
        rows.append(
            Comparison(
                name=v["name"],
                label=str(v.get("label", v["name"])),
                code=str(v.get("code", "")),
                basis=basis,
                measured_ms=measured,
                p90_ms=float(v["p90_step_ms"]),
                model_ms=model,
                ratio=round(ratio, 2) if ratio is not None else None,
                verdict=kind,
                verdict_text=text,
            )
        )
    return rows


@dataclass(frozen=True)
class MemoryRow:
    label: str
    peak_batches: int
    peak_mb: float
    cap_mb: float | None
    rss_peak_mb: float | None
    note: str


def memory_rows(result: dict[str, Any]) -> list[MemoryRow]:
    return [
        MemoryRow(
            label=str(v.get("label", v["name"])),
            peak_batches=int(v["peak_buffered_batches"]),
            peak_mb=float(v.get("peak_host_mb", 0.0)),
            cap_mb=v.get("model_buffer_mb"),
            rss_peak_mb=v.get("rss_peak_mb"),
            note=str(v.get("buffer_note", "")),
        )
        for v in result.get("variants") or []
        if "peak_buffered_batches" in v
    ]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def reading_parts(reading: str | None) -> tuple[list[str], list[str]]:
    """The reading split into (plain sentences, findings): a finding starts with 'Finding:'."""
    if not reading:
        return [], []
    plain: list[str] = []
    findings: list[str] = []
    for sentence in _SENTENCE_END.split(reading.strip()):
        if sentence.startswith("Finding:"):
            findings.append(sentence.removeprefix("Finding:").strip())
        else:
            plain.append(sentence)
    return plain, findings


@dataclass(frozen=True)
class EnvironmentView:
    rows: list[tuple[str, str]]
    options: list[tuple[str, str]]
    notes: list[str]
    defaults_note: str | None


def environment_view(environment: dict[str, Any] | None) -> EnvironmentView:
    env = environment or {}
    compute = env.get("compute")
    compute_text = {
        "real": "real: a train step on the accelerator",
        "simulated": "simulated: no GPU, a sleep that leaves the CPU free",
    }.get(str(compute), str(compute))
    rows = [
        ("TensorFlow", str(env.get("tensorflow_version", "?"))),
        ("Device", str(env.get("device", "?"))),
        ("CPUs", str(env.get("cpu_count", "?"))),
        ("Compute", compute_text),
        ("Warm-up steps left out", str(env.get("warmup_steps", "?"))),
    ]
    if "producer_fill_ms" in env:
        rows.append(("Filling one batch (measured)", f"{env['producer_fill_ms']:.1f} ms"))
    options = [(name, _option_text(value)) for name, value in (env.get("tf_data_options") or {}).items()]
    notes = [str(env[k]) for k in ("compute_note", "input_note") if env.get(k)]
    return EnvironmentView(rows, options, notes, env.get("tf_data_defaults_note"))


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "off" if not value else "on"
    return str(value)


# ---------------------------------------------------------------------------------------------
# History


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
    """'fastest: prefetch(AUTOTUNE) last 31 ms · slowest: No prefetch 61 ms'."""
    variants = (result or {}).get("variants") or []
    if not variants:
        return ""
    fastest = min(variants, key=measured_step_ms)
    slowest = max(variants, key=measured_step_ms)
    return (
        f"fastest: {fastest.get('label', fastest['name'])} {measured_step_ms(fastest):.0f} ms · "
        f"slowest: {slowest.get('label', slowest['name'])} {measured_step_ms(slowest):.0f} ms"
    )


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
                headline=headline(run.result) if run.status == "done" else (run.error or ""),
            )
        )
    return rows


# ---------------------------------------------------------------------------------------------
# The API's documents


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def run_document(run: DemoRun, steps: bool = True) -> dict[str, Any]:
    """The result document of GET /api/demos/{run_id} (steps left out for lists)."""
    result = run.result or {}
    spec = PRESETS.get(run.preset)
    variants = list(result.get("variants") or [])
    if not steps:
        variants = [{k: v for k, v in variant.items() if k != "steps"} for variant in variants]
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


# ---------------------------------------------------------------------------------------------
# The CLI's table


def result_table_text(doc: dict[str, Any]) -> str:
    """A readable summary of a result document for `tiercards demo run` without --json."""
    env = doc.get("environment") or {}
    spec = PRESETS.get(str(doc.get("preset")))
    lines = [
        f"{spec.title if spec else doc.get('preset')}",
        f"TensorFlow {env.get('tensorflow_version')} on {env.get('device')} · {env.get('cpu_count')} CPUs · "
        f"compute {env.get('compute')}",
        "",
    ]
    rows = comparisons(doc)
    width = max([len(r.label) for r in rows] + [7])
    lines.append(f"{'variant':<{width}}  {'measured':>8}  {'p90':>8}  {'model':>8}  {'ratio':>6}  verdict")
    for r in rows:
        model = f"{r.model_ms:8.1f}" if r.model_ms is not None else f"{'-':>8}"
        ratio = f"{r.ratio:6.2f}" if r.ratio is not None else f"{'-':>6}"
        lines.append(
            f"{r.label:<{width}}  {r.measured_ms:8.1f}  {r.p90_ms:8.1f}  {model}  {ratio}  {r.verdict_text}"
        )
    basis = {r.basis for r in rows}
    lines.append(f"(measured = the {' / '.join(sorted(basis))} step in ms, warm-up steps left out)")
    options = env.get("tf_data_options") or {}
    if options:
        lines += ["", "non-default tf.data options: " + ", ".join(f"{k}={v}" for k, v in options.items())]
    if doc.get("reading"):
        lines += ["", *textwrap.wrap(str(doc["reading"]), 100)]
    return "\n".join(lines)
