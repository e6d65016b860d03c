"""Bursty input: what a prefetch buffer is for, from no buffer up to AUTOTUNE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.presets.declaration import Builder, Kit, Params, Preset, VariantSpec
from app.presets.params import BURST_LEN, JITTER_PCT, batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult
from app.presets.schedule import replayed_mean


def _buffer(variant: str) -> int | None:
    """'buffer-8' holds 8 batches; AUTOTUNE is modelled as an unbounded buffer."""
    size = variant.removeprefix("buffer-")
    return None if size == "autotune" else int(size)


def _model(variant: str, p: Params) -> float:
    return replayed_mean(p, buffer=_buffer(variant))


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    zero, eight = v["buffer-0"], v["buffer-8"]
    return (
        f"With no buffer the mean step was {zero.mean_step_ms:.1f} ms (p90 "
        f"{zero.p90_step_ms:.1f}); with prefetch(8) it was {eight.mean_step_ms:.1f} ms "
        f"(p90 {eight.p90_step_ms:.1f}), against a compute time of {p['compute_ms']} ms."
    )


def _prefetched(buffer: int | None) -> Builder:
    """Batches with a prefetch of `buffer` last: none for 0, AUTOTUNE for None."""

    def build(kit: Kit, p: Params) -> Any:
        ds = kit.examples().batch(p["batch_size"])
        if buffer == 0:
            return ds
        return ds.prefetch(kit.tf.data.AUTOTUNE if buffer is None else buffer)

    return build


PRESET = Preset(
    name="jitter",
    title="Bursty input: what a buffer is for",
    description=(
        "The producer is faster than the step on average but comes in bursts: runs of slow "
        "batches followed by runs of fast ones. With no buffer every slow batch stalls the "
        "step; prefetch buffers of 1, 2, 8 and AUTOTUNE bank batches during the fast runs and "
        "spend them during the slow runs, so the step approaches the compute time and the "
        "tail (p90) shrinks."
    ),
    variants=(
        VariantSpec("buffer-0", "No prefetch (buffer 0)", "ds.map(load).batch(B)", _prefetched(0)),
        VariantSpec("buffer-1", "prefetch(1)", "ds.map(load).batch(B).prefetch(1)", _prefetched(1)),
        VariantSpec("buffer-2", "prefetch(2)", "ds.map(load).batch(B).prefetch(2)", _prefetched(2)),
        VariantSpec("buffer-8", "prefetch(8)", "ds.map(load).batch(B).prefetch(8)", _prefetched(8)),
        VariantSpec(
            "buffer-autotune",
            "prefetch(AUTOTUNE)",
            "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)",
            _prefetched(None),
        ),
    ),
    params=(input_ms(25), compute_ms(30), batch_size(4), steps(50), JITTER_PCT, BURST_LEN),
    model=(
        "Mean step with no buffer = mean input + compute; with a large buffer = max(mean input, "
        "compute). Small buffers sit in between: the model replays the same burst pattern "
        "through a producer/consumer queue of that size."
    ),
    step_model=_model,
    reading=_reading,
    model_basis="mean",
    autotune_unbounded=True,
)
