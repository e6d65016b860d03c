"""What a run measured of one variant, typed: what the presets' readings, the pages and the CLI
read, and how it is stored.

A result travels and is stored as JSON (the runner's child, the database, the API); `to_doc` is
that document, key for key, and `from_doc` reads one back. A document without a figure (stored
before it was measured, or a summary that names only the step) leaves it empty; a step's mean or
p90 missing reads as its median, the one figure every stored variant has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

BUFFERED = "buffered_"
PEAK_BUFFERED = "peak_buffered_"


@dataclass(frozen=True, kw_only=True)
class Step:
    """One timed step: when it began, its wait in next() and its compute, from the wall clock."""

    start_ms: float
    input_ms: float
    compute_ms: float
    warmup: bool
    # Elements the producer had made and the steps not yet taken, just before next(): where the
    # producer counts them (in its variant's `counted` unit).
    buffered: int | None = None

    def to_doc(self, counted: str | None) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "start_ms": self.start_ms,
            "input_ms": self.input_ms,
            "compute_ms": self.compute_ms,
            "warmup": self.warmup,
        }
        if counted is not None and self.buffered is not None:
            doc[BUFFERED + counted] = self.buffered
        return doc

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any], *, counted: str | None, warmup: bool) -> Step:
        """`warmup`: what a step stored without the flag was (by its index)."""
        return cls(
            start_ms=float(doc["start_ms"]),
            input_ms=float(doc["input_ms"]),
            compute_ms=float(doc["compute_ms"]),
            warmup=bool(doc.get("warmup", warmup)),
            buffered=doc.get(BUFFERED + counted) if counted is not None else None,
        )


@dataclass(frozen=True, kw_only=True)
class BufferHeld:
    """What a variant's buffer held in host memory, counted, beside the cap its model gives it."""

    peak_count: int
    peak_host_mb: float
    model_buffer_mb: float | None  # None: AUTOTUNE, no fixed cap
    rss_peak_mb: float | None
    note: str


@dataclass(frozen=True, kw_only=True)
class VariantResult:
    name: str
    label: str
    code: str
    median_step_ms: float
    p90_step_ms: float
    mean_step_ms: float
    model_step_ms: float | None
    model_basis: str = "median"
    measured_over_model: float | None = None
    median_input_wait_ms: float | None = None
    median_compute_ms: float | None = None
    steps: tuple[Step, ...] = field(default=(), repr=False)
    # Steps longer than the model allows for any step: held up from outside the pipeline.
    stalled_steps: int = 0
    first_batch_ms: float | None = None
    model_first_batch_ms: float | None = None
    # The unit the producer counted its elements in (batches, examples); None: not counted.
    counted: str | None = None
    buffer: BufferHeld | None = None
    # The model with the producer's measured fill cost added (large batches).
    model_with_fill_ms: float | None = None

    @property
    def held(self) -> BufferHeld:
        """The buffer's figures, for a preset that counts them (its `buffer_of`)."""
        if self.buffer is None:
            raise ValueError(f"the {self.name} variant counted no buffer")
        return self.buffer

    @property
    def measured_step_ms(self) -> float:
        """The measured step on the model's basis: its mean or its median."""
        return self.mean_step_ms if self.model_basis == "mean" else self.median_step_ms

    def to_doc(self) -> dict[str, Any]:
        """The stored document, its keys in the order every stored result has them."""
        doc: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "code": self.code,
            "median_step_ms": self.median_step_ms,
            "p90_step_ms": self.p90_step_ms,
            "mean_step_ms": self.mean_step_ms,
            "model_step_ms": self.model_step_ms,
            "model_basis": self.model_basis,
            "measured_over_model": self.measured_over_model,
            "median_input_wait_ms": self.median_input_wait_ms,
            "median_compute_ms": self.median_compute_ms,
            "steps": [step.to_doc(self.counted) for step in self.steps],
            "stalled_steps": self.stalled_steps,
        }
        if self.model_first_batch_ms is not None:
            doc["first_batch_ms"] = self.first_batch_ms
            doc["model_first_batch_ms"] = self.model_first_batch_ms
        if self.buffer is not None and self.counted is not None:
            doc |= {
                PEAK_BUFFERED + self.counted: self.buffer.peak_count,
                "peak_host_mb": self.buffer.peak_host_mb,
                "model_buffer_mb": self.buffer.model_buffer_mb,
                "rss_peak_mb": self.buffer.rss_peak_mb,
                "buffer_note": self.buffer.note,
            }
        if self.model_with_fill_ms is not None:
            doc["model_with_fill_ms"] = self.model_with_fill_ms
        return doc

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any], *, warmup_steps: int = 0) -> VariantResult:
        """A stored variant (with its steps, or a summary's without); `warmup_steps` says which
        steps stored without the flag were warm-up."""
        name = str(doc["name"])
        counted = _counted_unit(doc)
        median = float(doc["median_step_ms"])
        peak = doc.get(PEAK_BUFFERED + counted) if counted is not None else None
        return cls(
            name=name,
            label=str(doc.get("label", name)),
            code=str(doc.get("code", "")),
            median_step_ms=median,
            p90_step_ms=float(doc.get("p90_step_ms", median)),
            mean_step_ms=float(doc.get("mean_step_ms", median)),
            model_step_ms=_float_or_none(doc.get("model_step_ms")),
            model_basis=str(doc.get("model_basis", "median")),
            measured_over_model=_float_or_none(doc.get("measured_over_model")),
            median_input_wait_ms=_float_or_none(doc.get("median_input_wait_ms")),
            median_compute_ms=_float_or_none(doc.get("median_compute_ms")),
            steps=tuple(
                Step.from_doc(step, counted=counted, warmup=k < warmup_steps)
                for k, step in enumerate(doc.get("steps") or [])
            ),
            stalled_steps=int(doc.get("stalled_steps", 0)),
            first_batch_ms=_float_or_none(doc.get("first_batch_ms")),
            model_first_batch_ms=_float_or_none(doc.get("model_first_batch_ms")),
            counted=counted,
            buffer=None
            if peak is None
            else BufferHeld(
                peak_count=int(peak),
                peak_host_mb=float(doc.get("peak_host_mb", 0.0)),
                model_buffer_mb=_float_or_none(doc.get("model_buffer_mb")),
                rss_peak_mb=_float_or_none(doc.get("rss_peak_mb")),
                note=str(doc.get("buffer_note", "")),
            ),
            model_with_fill_ms=_float_or_none(doc.get("model_with_fill_ms")),
        )


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def _counted_unit(doc: Mapping[str, Any]) -> str | None:
    """The unit a stored variant counted its buffer in, from its peak or its first step."""
    for key in doc:
        if key.startswith(PEAK_BUFFERED):
            return key.removeprefix(PEAK_BUFFERED)
    steps = doc.get("steps") or []
    return (
        next((key.removeprefix(BUFFERED) for key in steps[0] if key.startswith(BUFFERED)), None)
        if steps
        else None
    )


def variants_of(doc: Mapping[str, Any] | None, *, warmup_steps: int = 0) -> list[VariantResult]:
    """The variants of a stored result (or summary); none for a run without one."""
    return [VariantResult.from_doc(v, warmup_steps=warmup_steps) for v in (doc or {}).get("variants") or []]
