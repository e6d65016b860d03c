"""Measured against model: the ratio and a plain verdict per variant (a disagreement is a
finding), the first batch and memory rows, the reading split into sentences and findings, the
environment."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.presets import AGREEMENT
from app.presets.results import variants_of


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


def _judged(measured: float, model: float | None) -> dict[str, Any]:
    """A measured figure beside its model, as every row that compares the two shows it."""
    ratio, kind, text = verdict(measured, model)
    return {
        "measured_ms": measured,
        "model_ms": model,
        "ratio": round(ratio, 2) if ratio is not None else None,
        "verdict": kind,
        "verdict_text": text,
    }


def comparisons(result: dict[str, Any]) -> list[Comparison]:
    return [
        Comparison(
            name=v.name,
            label=v.label,
            code=v.code,
            basis=v.model_basis,
            p90_ms=v.p90_step_ms,
            **_judged(v.measured_step_ms, v.model_step_ms),
        )
        for v in variants_of(result)
    ]


@dataclass(frozen=True)
class FirstBatchRow:
    """The wait for a variant's first batch against its model (a buffer that fills first)."""

    name: str
    label: str
    measured_ms: float
    model_ms: float | None
    ratio: float | None
    verdict: str
    verdict_text: str


def first_batch_rows(result: dict[str, Any]) -> list[FirstBatchRow]:
    return [
        FirstBatchRow(name=v.name, label=v.label, **_judged(v.first_batch_ms, v.model_first_batch_ms))
        for v in variants_of(result)
        if v.first_batch_ms is not None
    ]


@dataclass(frozen=True)
class MemoryRow:
    label: str
    peak_count: int
    unit: str  # batches | examples
    peak_mb: float
    cap_mb: float | None
    rss_peak_mb: float | None
    note: str


def memory_rows(result: dict[str, Any]) -> list[MemoryRow]:
    return [
        MemoryRow(
            label=v.label,
            peak_count=v.buffer.peak_count,
            unit=v.counted,
            peak_mb=v.buffer.peak_host_mb,
            cap_mb=v.buffer.model_buffer_mb,
            rss_peak_mb=v.buffer.rss_peak_mb,
            note=v.buffer.note,
        )
        for v in variants_of(result)
        if v.buffer is not None and v.counted is not None
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
