"""A run's result from its measurements: each variant's figures beside its model, and the reading
in prose. Needs no TensorFlow: app/demos/pipelines.py measures, this module makes the result.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.presets import (
    AGREEMENT,
    WARMUP_STEPS,
    Preset,
    model_buffer_mb,
    model_first_batch_ms,
    model_step_ms,
    replayed_mean,
    serial_bound_ms,
)
from app.presets.results import BufferHeld, Step, VariantResult

NOISY_OPENING = "Further than"
AUTOTUNE_NOTE = (
    "Why AUTOTUNE is not simply a large buffer: tf.data's prefetch autotuner starts with a buffer "
    "of one element and doubles it only when the step finds the buffer empty after it had filled "
    "(within a RAM budget), so it grows burst by burst and behaves like a small buffer until then."
)


@dataclass
class Measurement:
    """What the step loop timed of one variant."""

    steps: list[Step] = field(default_factory=list)
    # Each step until the next began, so loop and bookkeeping overheads count too.
    durations_ms: list[float] = field(default_factory=list)
    buffered: list[int] = field(default_factory=list)
    rss_peak_mb: float = 0.0
    # The unit the producer counted its elements in, and what one of them holds (None: not counted).
    counted: str | None = None
    element_mb: float = 0.0


@dataclass(frozen=True)
class Noise:
    """How far each variant's compute scattered across its steps, in per cent of its median: the
    step's compute is the same fixed work every step in every preset, so whatever it scattered by
    came from the host, and a difference from the model inside it says nothing about the card."""

    by_variant: dict[str, float]

    def margin_pct(self, name: str) -> float:
        """The difference from its model a figure of `name` must pass to be a finding. On a busy
        run every variant is held to the largest scatter: a busy host can slow any step, not only
        the steps it was seen to, and the page says the run was busy in those words."""
        own = self.largest_pct if self.busy else self.by_variant.get(name, 0.0)
        return max(AGREEMENT * 100, own)

    @property
    def busy(self) -> bool:
        return any(pct > AGREEMENT * 100 for pct in self.by_variant.values())

    @property
    def largest_pct(self) -> float:
        return max(self.by_variant.values(), default=0.0)

    def to_doc(self) -> dict[str, Any]:
        return {"variants": self.by_variant, "busy": self.busy}

    @classmethod
    def from_doc(cls, result: Mapping[str, Any] | None) -> Noise | None:
        """A stored result's noise; None for one stored before runs measured it (a figure that is
        no number is left out, as not measured)."""
        doc = (result or {}).get("noise")
        figures = doc.get("variants") if isinstance(doc, Mapping) else None
        if not isinstance(figures, Mapping):
            return None
        return cls(
            {
                str(name): float(pct)
                for name, pct in figures.items()
                if isinstance(pct, int | float) and not isinstance(pct, bool)
            }
        )


def _noise_pct(v: VariantResult) -> float:
    """How much longer than its median the slowest tenth of the variant's compute took. Its input
    wait is left out: bursts and overlaps make that differ from step to step on purpose."""
    computes = [s.compute_ms for s in v.steps if not s.warmup]
    median = statistics.median(computes) if computes else 0.0
    return round((percentile(computes, 0.9) / median - 1) * 100, 1) if median > 0 else 0.0


def run_noise(variants: Sequence[VariantResult]) -> Noise:
    return Noise({v.name: _noise_pct(v) for v in variants})


@dataclass(frozen=True, kw_only=True)
class RunResult:
    """Every variant of a preset run, the reading, and what it ran on (`environment`)."""

    preset: str
    params: dict[str, int]
    environment: dict[str, Any]
    variants: list[VariantResult]
    reading: str

    def to_doc(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "params": self.params,
            "environment": self.environment,
            "variants": [v.to_doc() for v in self.variants],
            "reading": self.reading,
            # Last, so the keys before it are stored as they were before runs measured it.
            "noise": run_noise(self.variants).to_doc(),
        }


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def variant_result(
    spec: Preset, *, name: str, params: Mapping[str, int], measured: Measurement, fill_ms: float | None
) -> VariantResult:
    """One variant's figures beside its model, warm-up steps left out."""
    kept = measured.durations_ms[WARMUP_STEPS:]
    kept_steps = measured.steps[WARMUP_STEPS:]
    variant = spec.variant(name)
    median = statistics.median(kept)
    mean = statistics.fmean(kept)
    model = model_step_ms(spec.name, variant=name, params=params)
    on_basis = mean if spec.model_basis == "mean" else median
    # Margin for timer and scheduling noise before a step counts as held up from outside.
    bound = 1.25 * serial_bound_ms(spec.name, params=params, extra_input_ms=fill_ms or 0.0) + 2.0
    buffer = (
        _buffer_held(spec, name=name, params=params, measured=measured)
        if spec.buffer_of is not None and measured.counted is not None
        else None
    )
    with_fill = (
        round(replayed_mean(params, buffer=spec.buffer_of(name, params), extra_input_ms=fill_ms), 3)
        if buffer is not None and fill_ms is not None and spec.buffer_of is not None
        else None
    )
    first_batch_model = model_first_batch_ms(spec.name, variant=name, params=params)
    return VariantResult(
        name=name,
        label=variant.label,
        code=variant.code,
        median_step_ms=round(median, 3),
        p90_step_ms=round(percentile(kept, 0.9), 3),
        mean_step_ms=round(mean, 3),
        model_step_ms=model,
        model_basis=spec.model_basis,
        measured_over_model=round(on_basis / model, 3) if model else None,
        median_input_wait_ms=round(statistics.median(s.input_ms for s in kept_steps), 3),
        median_compute_ms=round(statistics.median(s.compute_ms for s in kept_steps), 3),
        steps=tuple(measured.steps),
        stalled_steps=sum(1 for d in kept if d > bound),
        first_batch_ms=measured.steps[0].input_ms if first_batch_model is not None else None,
        model_first_batch_ms=first_batch_model,
        counted=measured.counted,
        buffer=buffer,
        model_with_fill_ms=with_fill,
    )


def _buffer_held(spec: Preset, *, name: str, params: Mapping[str, int], measured: Measurement) -> BufferHeld:
    """What the buffer held in host memory, counted, beside the cap the model gives it."""
    held = max(measured.buffered[WARMUP_STEPS:], default=0)
    unit, mb = measured.counted, measured.element_mb
    cap = model_buffer_mb(spec.name, variant=name, params=params)
    cap_text = f"its cap is {cap:g} MB" if cap is not None else "AUTOTUNE sets no fixed cap"
    return BufferHeld(
        peak_count=held,
        peak_host_mb=float(held * mb),
        model_buffer_mb=cap,
        rss_peak_mb=round(measured.rss_peak_mb, 1),
        note=(
            f"Counted, not guessed: the buffer held at most {held} x {mb:g} MB = {held * mb:g} MB "
            f"of tensors ({unit} produced minus {unit} taken, sampled before each next()); "
            f"{cap_text}. Whole-process RSS peaked at {measured.rss_peak_mb:.0f} MB; RSS "
            "also counts TensorFlow itself and memory the allocator keeps after a batch is freed."
        ),
    )


# ---------------------------------------------------------------------------------------------
# The reading


def _pct(measured: float, model: float) -> str:
    return f"{(measured / model - 1) * 100:+.0f}%"


def _modelled(v: VariantResult) -> list[tuple[str, str, float, float | None]]:
    """(what, how it was measured, measured, model) for each figure of a variant with a model."""
    figures: list[tuple[str, str, float, float | None]] = [
        (v.label, f" ({v.model_basis})", v.measured_step_ms, v.model_step_ms)
    ]
    if v.model_first_batch_ms is not None and v.first_batch_ms is not None:
        figures.append((f"the first batch of {v.label}", "", v.first_batch_ms, v.model_first_batch_ms))
    return figures


@dataclass
class _Agreement:
    agree: list[str] = field(default_factory=list)
    # Beyond the agreement margin, yet inside the run's own noise.
    noisy: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)


def _agreement_lines(variants: list[VariantResult], noise: Noise) -> _Agreement:
    lines = _Agreement()
    for v in variants:
        for what, basis, measured, model in _modelled(v):
            if not model:
                continue
            off = abs(measured / model - 1)
            figure = f"{what} {measured:.1f} ms (model {model:.1f}, {_pct(measured, model)}"
            if off <= AGREEMENT:
                lines.agree.append(figure + ")")
            elif off * 100 <= noise.margin_pct(v.name):
                scattered = (
                    f"this busy run's compute scattered by up to {noise.largest_pct:.0f}%"
                    if noise.busy
                    else f"its compute scattered by {noise.by_variant[v.name]:.0f}%"
                )
                lines.noisy.append(f"{figure}; {scattered})")
            else:
                lines.findings.append(
                    f"Finding: {what} took {measured:.1f} ms{basis} against a model of "
                    f"{model:.1f} ms ({_pct(measured, model)})."
                )
    return lines


def _by_name(variants: list[VariantResult]) -> dict[str, VariantResult]:
    return {v.name: v for v in variants}


def _producer_overhead_sentence(params: Mapping[str, int], variants: list[VariantResult]) -> str:
    """Where a variant has nothing overlapping the producer, its wait is the producer's real cost."""
    serial = _by_name(variants).get("no-prefetch")
    if serial is None or serial.median_input_wait_ms is None:
        return ""
    return (
        f"Where nothing overlaps the producer (no prefetch) the wait per batch was "
        f"{serial.median_input_wait_ms:.1f} ms against input_ms = {params['input_ms']}: the "
        "difference is the per-example tf.numpy_function call and sleep overshoot."
    )


def _fill_sentence(params: Mapping[str, int], *, variants: list[VariantResult], fill_ms: float) -> str:
    text = (
        f"Allocating and filling each {params['batch_mb']} MB batch cost a measured {fill_ms:.1f} ms "
        "of real CPU work on top of input_ms, which the card's model leaves out"
    )
    adjusted = [
        f"{v.label} {v.model_with_fill_ms:.1f} ms" for v in variants if v.model_with_fill_ms is not None
    ]
    if adjusted:
        text += "; with it added the model predicts " + ", ".join(adjusted)
    return text + "."


def reading(
    spec: Preset, *, params: Mapping[str, int], variants: list[VariantResult], fill_ms: float | None = None
) -> str:
    """The result in prose: the preset's own sentence, then how each figure agreed with its model
    beside the run's own noise."""
    lines = _agreement_lines(variants, run_noise(variants))
    findings = lines.findings
    parts = [spec.reading(params, _by_name(variants))]
    if lines.agree:
        parts.append(f"Within {AGREEMENT:.0%} of the model: " + "; ".join(lines.agree) + ".")
    if lines.noisy:
        parts.append(
            f"{NOISY_OPENING} {AGREEMENT:.0%} of the model but within this run's noise, how far "
            "the same fixed compute scattered from step to step, so no finding: "
            + "; ".join(lines.noisy)
            + "."
        )
    parts.extend(findings)
    if fill_ms is not None:
        parts.append(_fill_sentence(params, variants=variants, fill_ms=fill_ms))
    stalled = [f"{v.label} {v.stalled_steps}" for v in variants if v.stalled_steps]
    if stalled:
        parts.append(
            "Steps longer than the model allows for any step (the slowest batch built and then "
            f"computed, +25%): {', '.join(stalled)}. Something outside the pipeline held them up, "
            "most likely other work on this host; they pull means and p90 up."
        )
    if spec.autotune_unbounded and any("AUTOTUNE" in f for f in findings):
        parts.append(AUTOTUNE_NOTE)
    overhead = _producer_overhead_sentence(params, variants)
    if overhead:
        parts.append(overhead)
    basis = "means" if spec.model_basis == "mean" else "medians"
    parts.append(f"The {basis} leave out each variant's first {WARMUP_STEPS} steps (warm-up).")
    return " ".join(parts)
