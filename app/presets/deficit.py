"""A sustained input deficit: a buffer hides variance, more producers close the gap."""

from __future__ import annotations

from collections.abc import Mapping

from app.presets.declaration import Params, ParamSpec, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult


def _model(variant: str, p: Params) -> float:
    i, c = float(p["input_ms"]), float(p["compute_ms"])
    if variant == "parallel-map":
        return max(i / p["workers"], c)
    return max(i, c)


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    alone, par = v["prefetch-only"].median_step_ms, v["parallel-map"].median_step_ms
    return (
        f"With prefetch alone the step took {alone:.1f} ms, the producer's pace: the buffer "
        f"drained, because a buffer cannot fix a sustained deficit. {p['workers']} parallel "
        f"map calls brought it to {par:.1f} ms ({alone / par:.2f}x faster)."
    )


PRESET = Preset(
    name="deficit",
    title="A sustained input deficit",
    description=(
        "The producer is slower than the training step. With prefetch(AUTOTUNE) alone the "
        "buffer drains and every step waits for the producer; a buffer hides variance, not a "
        "deficit. Running the map with num_parallel_calls=workers adds producers, which is "
        "what actually closes the gap."
    ),
    variants=(
        VariantSpec(
            "prefetch-only",
            "prefetch(AUTOTUNE) only",
            "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)",
            lambda kit, p: kit.examples().batch(p["batch_size"]).prefetch(kit.tf.data.AUTOTUNE),
        ),
        VariantSpec(
            "parallel-map",
            "map(num_parallel_calls=workers) + prefetch",
            "ds.map(load, num_parallel_calls=workers).batch(B).prefetch(tf.data.AUTOTUNE)",
            lambda kit, p: (
                kit.examples(parallel=p["workers"]).batch(p["batch_size"]).prefetch(kit.tf.data.AUTOTUNE)
            ),
        ),
    ),
    params=(
        input_ms(60),
        compute_ms(20),
        batch_size(4),
        steps(40),
        ParamSpec(
            "workers",
            "Parallel map calls",
            4,
            1,
            16,
            "calls",
            "Parallel map calls (num_parallel_calls) in the parallel-map variant.",
        ),
    ),
    model=(
        "Prefetch alone costs max(input, compute), i.e. the input time when input > compute "
        "(the buffer drains); a parallel map costs max(input / workers, compute)."
    ),
    step_model=_model,
    reading=_reading,
    thread_pool_param="workers",
)
