"""Input-bound or compute-bound: the real pipeline against synthetic input that costs nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.presets.declaration import Kit, Params, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult


def _model(variant: str, p: Params) -> float:
    if variant == "synthetic-input":
        return float(p["compute_ms"])
    return max(float(p["input_ms"]), float(p["compute_ms"]))


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    real, synth = v["real-pipeline"].median_step_ms, v["synthetic-input"].median_step_ms
    bound = "input-bound" if synth < 0.8 * real else "compute-bound"
    return (
        f"The real pipeline's step took {real:.1f} ms and synthetic input's {synth:.1f} ms, "
        f"so this configuration is {bound}."
    )


def _synthetic(kit: Kit, p: Params) -> Any:
    # One batch built by the real pipeline (outside the timed loop), then repeated for free.
    one_batch = next(iter(kit.examples().batch(p["batch_size"])))
    return kit.tf.data.Dataset.from_tensors(one_batch).repeat()


PRESET = Preset(
    name="synthetic",
    title="Input-bound or compute-bound? Swap in synthetic input",
    description=(
        "Runs the real pipeline, then replaces it with "
        "tf.data.Dataset.from_tensors(one_batch).repeat(), which does no input work (on a GPU "
        "worker each step still copies the batch from host to device). If "
        "the step time collapses, the job was input-bound; if it barely moves, the model is "
        "the bottleneck and no pipeline tuning will help."
    ),
    variants=(
        VariantSpec(
            "real-pipeline",
            "Real pipeline",
            "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)",
            lambda kit, p: kit.examples().batch(p["batch_size"]).prefetch(kit.tf.data.AUTOTUNE),
        ),
        VariantSpec(
            "synthetic-input",
            "Synthetic input",
            "tf.data.Dataset.from_tensors(one_batch).repeat()",
            _synthetic,
        ),
    ),
    params=(input_ms(50), compute_ms(20), batch_size(4), steps(40)),
    model="Real pipeline costs max(input, compute); synthetic input costs compute alone.",
    step_model=_model,
    reading=_reading,
)
