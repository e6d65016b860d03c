"""Measured against model: the card's claim first, the ratio and a plain verdict per variant (a
disagreement beyond the run's own noise is a finding), what that noise was, the first batch and
memory rows, the reading in paragraphs and its findings, the environment."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.demos.run_result import NOISY_OPENING, Noise
from app.presets import AGREEMENT
from app.presets.results import VariantResult, variants_of

TIMES = "\u00d7"  # the multiplication sign, in "1.9 times faster"


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
    verdict: str  # match | noise | slower | faster | none
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


def _judged(measured: float, *, model: float | None, noise_pct: float) -> dict[str, Any]:
    """A measured figure beside its model, as every row that compares the two shows it: a
    difference inside `noise_pct`, how far the run's own figures scattered, is no finding."""
    ratio, kind, text = verdict(measured, model)
    if ratio is not None and kind in ("slower", "faster") and abs(ratio - 1) * 100 <= noise_pct:
        text = f"{abs(ratio - 1) * 100:.0f} % {kind}, within this run's noise ({noise_pct:.0f} %)"
        kind = "noise"
    return {
        "measured_ms": measured,
        "model_ms": model,
        "ratio": round(ratio, 2) if ratio is not None else None,
        "verdict": kind,
        "verdict_text": text,
    }


def _noise_of(noise: Noise | None, variant: VariantResult) -> float:
    return noise.margin_pct(variant.name) if noise is not None else 0.0


def comparisons(result: dict[str, Any]) -> list[Comparison]:
    noise = Noise.from_doc(result)
    return [
        Comparison(
            name=v.name,
            label=v.label,
            code=v.code,
            basis=v.model_basis,
            p90_ms=v.p90_step_ms,
            **_judged(v.measured_step_ms, model=v.model_step_ms, noise_pct=_noise_of(noise, v)),
        )
        for v in variants_of(result)
    ]


def _in_sentence(label: str) -> str:
    """'No prefetch' as the middle of a sentence has it; 'AUTOTUNE' and 'prefetch(2)' stay."""
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def claim(result: dict[str, Any] | None) -> str | None:
    """The card's claim and whether this run bears it out: the variant its model makes fastest
    against the one it makes slowest (the first declared, on a tie). None: the model ranks none."""
    modelled = [v for v in variants_of(result) if v.model_step_ms and v.measured_step_ms]
    if len(modelled) < 2:
        return None
    best = min(modelled, key=lambda v: v.model_step_ms or 0.0)
    base = max(modelled, key=lambda v: v.model_step_ms or 0.0)
    if best.model_step_ms == base.model_step_ms:
        return None
    measured = base.measured_step_ms / best.measured_step_ms
    modelled_ratio = (base.model_step_ms or 0.0) / (best.model_step_ms or 1.0)
    margin = _claim_margin(Noise.from_doc(result), best, base)
    against = _in_sentence(base.label)
    said = f"not as the card says (its model: {modelled_ratio:.1f}{TIMES} faster)"
    if abs(measured / modelled_ratio - 1) <= margin:
        return f"{best.label}: {measured:.1f}{TIMES} faster than {against}, as the card says"
    if abs(measured - 1) <= margin:
        return f"{best.label}: within noise of {against}, {said}"
    if measured < 1:
        return f"{best.label}: {1 / measured:.1f}{TIMES} slower than {against}, {said}"
    return f"{best.label}: {measured:.1f}{TIMES} faster than {against}, {said}"


def _claim_margin(noise: Noise | None, *variants: VariantResult) -> float:
    if noise is None:
        return AGREEMENT
    return max(noise.margin_pct(v.name) for v in variants) / 100


@dataclass(frozen=True)
class NoiseView:
    kind: str  # busy | steady | unmeasured
    text: str
    # Why, after the text; the page sets the text of a busy host apart.
    detail: str = ""


def noise_view(result: dict[str, Any]) -> NoiseView:
    """What the page says of the run's own noise, before any verdict."""
    noise = Noise.from_doc(result)
    margin = f"{AGREEMENT * 100:.0f} %"
    if noise is None:
        return NoiseView(
            "unmeasured",
            "Noise not measured: this run was stored before runs measured how far their fixed "
            f"compute scattered, so any difference over {margin} from the model counts as a finding.",
        )
    largest = f"{noise.largest_pct:.0f} %"
    if noise.busy:
        return NoiseView(
            "busy",
            f"The host was busy during this run: differences under {largest} are noise here.",
            "A step's compute is the same fixed work every time, yet on this run it took up to "
            "that much longer on some steps than on most, so a verdict within it says nothing "
            "about the card; run it again when the host is quieter.",
        )
    return NoiseView(
        "steady",
        f"The host was steady during this run: each step's fixed compute scattered by at most "
        f"{largest}, so a difference from the model over {margin} is a finding.",
    )


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
    noise = Noise.from_doc(result)
    return [
        FirstBatchRow(
            name=v.name,
            label=v.label,
            **_judged(v.first_batch_ms, model=v.model_first_batch_ms, noise_pct=_noise_of(noise, v)),
        )
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
# Sentences of the reading that open a note of their own (app/demos/run_result.py writes them).
_NOTE_OPENINGS = ("Within ", NOISY_OPENING, "Allocating ", "Steps longer ", "Why AUTOTUNE ", "Where nothing ")
# A paragraph ends before the sentence that would make it longer than this, in words.
_PARAGRAPH_WORDS = 60


def reading_parts(reading: str | None) -> tuple[list[str], list[str]]:
    """The reading split into (short paragraphs, findings): a finding starts with 'Finding:'."""
    if not reading:
        return [], []
    paragraphs: list[list[str]] = []
    findings: list[str] = []
    for sentence in _SENTENCE_END.split(reading.strip()):
        if sentence.startswith("Finding:"):
            findings.append(sentence.removeprefix("Finding:").strip())
        elif (
            not paragraphs
            or sentence.startswith(_NOTE_OPENINGS)
            or _words([*paragraphs[-1], sentence]) > _PARAGRAPH_WORDS
        ):
            paragraphs.append([sentence])
        else:
            paragraphs[-1].append(sentence)
    return [" ".join(p) for p in paragraphs], findings


def _words(sentences: list[str]) -> int:
    return sum(len(s.split()) for s in sentences)


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
