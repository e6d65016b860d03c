"""Every variant's steps as SVG geometry: input wait and compute as bars, one time scale for all
variants, so a slower pipeline is visibly longer."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.presets.results import Step, variants_of

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
    label: str  # what a tap, a hover or focus on the bar shows, and its accessible name


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


def _end_ms(steps: Sequence[Step]) -> float:
    if not steps:
        return 0.0
    last = steps[-1]
    return last.start_ms + last.input_ms + last.compute_ms


def timelines(result: dict[str, Any]) -> list[Timeline]:
    """One timeline per variant, all on the time scale of the slowest, so lengths compare."""
    warmup_steps = int((result.get("environment") or {}).get("warmup_steps") or 0)
    variants = variants_of(result, warmup_steps=warmup_steps)
    total = max((_end_ms(v.steps) for v in variants), default=0.0) or 1.0
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
    out = []
    for index, variant in enumerate(variants):
        steps = variant.steps
        inputs: list[Bar] = []
        computes: list[Bar] = []
        for k, step in enumerate(steps):
            start, wait, compute = step.start_ms, step.input_ms, step.compute_ms
            of = f"Step {k + 1} of {len(steps)}{' (warm-up)' if step.warmup else ''}"
            if wait >= HIDDEN_BELOW_MS:
                inputs.append(
                    Bar(
                        round(GUTTER + start * scale, 2),
                        round(max(wait * scale, MIN_BAR), 2),
                        k + 1,
                        f"{of}: {wait:.1f} ms waiting for input, then {compute:.1f} ms computing",
                    )
                )
            computes.append(
                Bar(
                    round(GUTTER + (start + wait) * scale, 2),
                    round(max(compute * scale, MIN_BAR), 2),
                    k + 1,
                    f"{of}: {compute:.1f} ms computing, after {wait:.1f} ms waiting for input",
                )
            )
        warm_count = sum(1 for s in steps if s.warmup)
        warmup_x = GUTTER + steps[warm_count].start_ms * scale if 0 < warm_count < len(steps) else GUTTER
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
        median_in, median_co = variant.median_input_wait_ms, variant.median_compute_ms
        summary = (
            f"{variant.label}: {len(steps)} steps in {time_label(round(end_ms))}; "
            f"median step {variant.median_step_ms:.1f} ms"
        )
        if median_in is not None and median_co is not None:
            summary += f", of which {median_in:.1f} ms waiting for input and {median_co:.1f} ms computing"
        out.append(
            Timeline(
                index=index,
                name=variant.name,
                label=variant.label,
                code=variant.code,
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
