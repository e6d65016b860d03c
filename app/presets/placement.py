"""Where prefetch goes: none, before batch (it buffers examples), or last (it buffers batches)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.presets.declaration import Kit, Params, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult


def _model(variant: str, p: Params) -> float:
    i, c, b = float(p["input_ms"]), float(p["compute_ms"]), p["batch_size"]
    if variant == "no-prefetch":
        return i + c
    if variant == "prefetch-before-batch":
        # Two examples can be ready when the step ends; the other B-2 are built while it waits.
        ahead = min(2, b) / b * i
        return i + c - min(ahead, c)
    # Prefetch last, and no prefetch under TensorFlow's defaults, whose rewrites overlap it.
    return max(i, c)


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    none, last = v["no-prefetch"].median_step_ms, v["prefetch-last-autotune"].median_step_ms
    before = v["prefetch-before-batch"].median_step_ms
    defaults = v["no-prefetch-tf-defaults"].median_step_ms
    return (
        f"Without prefetch a step took {none:.1f} ms, about input + compute; with "
        f"prefetch(AUTOTUNE) last it took {last:.1f} ms ({none / last:.2f}x faster), about "
        f"max(input, compute). prefetch(2) before batch took {before:.1f} ms: it only buffers "
        "examples, so most of each batch is still built while the step waits. With TensorFlow's "
        f"default options the same pipeline without prefetch took {defaults:.1f} ms: TensorFlow "
        "rewrites it before it runs (inject_prefetch adds a prefetch after the batch, "
        "map_and_batch_fusion makes map and batch one asynchronous stage), so it is not serial "
        "and runs at about max(input, compute), like prefetch last."
    )


def _batched(kit: Kit, p: Params) -> Any:
    return kit.examples().batch(p["batch_size"])


PRESET = Preset(
    name="placement",
    title="Where prefetch goes",
    description=(
        "The same producer and training step run five times: with no prefetch at all, with "
        "prefetch(2) placed before batch (it buffers single examples), with prefetch(AUTOTUNE) "
        "as the last transformation, with prefetch(2) as the last transformation (it "
        "buffers whole batches), and with no prefetch again under TensorFlow's default "
        "options. Without prefetch the step waits for its input every time; with prefetch "
        "last, the next batch is built while the current step computes."
    ),
    variants=(
        VariantSpec("no-prefetch", "No prefetch", "ds.map(load).batch(B)", _batched),
        VariantSpec(
            "prefetch-before-batch",
            "prefetch(2) before batch",
            "ds.map(load).prefetch(2).batch(B)",
            lambda kit, p: kit.examples().prefetch(2).batch(p["batch_size"]),
        ),
        VariantSpec(
            "prefetch-last-autotune",
            "prefetch(AUTOTUNE) last",
            "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)",
            lambda kit, p: _batched(kit, p).prefetch(kit.tf.data.AUTOTUNE),
        ),
        VariantSpec(
            "prefetch-last-2",
            "prefetch(2) last",
            "ds.map(load).batch(B).prefetch(2)",
            lambda kit, p: _batched(kit, p).prefetch(2),
        ),
        VariantSpec(
            "no-prefetch-tf-defaults",
            "No prefetch, TensorFlow's defaults",
            "ds.map(load).batch(B)  # default tf.data options",
            lambda kit, p: kit.with_tensorflow_defaults(_batched(kit, p)),
        ),
    ),
    params=(input_ms(30), compute_ms(30), batch_size(4), steps(40)),
    model=(
        "No prefetch costs input + compute per step; prefetch last costs max(input, compute); "
        "prefetch(2) before batch only gets 2 examples ahead, so it saves at most 2/B of the "
        "input time per step: input + compute - min(2/B x input, compute). Under TensorFlow's "
        "default options the rewrites overlap the pipeline without prefetch: max(input, compute)."
    ),
    step_model=_model,
    reading=_reading,
    tf_data_note=(
        "One variant is the exception: 'No prefetch, TensorFlow's defaults' runs the no-prefetch "
        "pipeline with TensorFlow's default options, to show what these rewrites do to it."
    ),
)
