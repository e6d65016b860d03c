"""prefetch_to_device: batches staged in GPU memory against a host prefetch (needs a GPU)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.presets.declaration import Kit, Params, Preset, VariantSpec
from app.presets.params import batch_mb, compute_ms, input_ms, steps
from app.presets.results import VariantResult


def _model(variant: str, p: Params) -> float:
    return max(float(p["input_ms"]), float(p["compute_ms"]))


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    dev, host = v["prefetch-to-device"].median_step_ms, v["host-prefetch"].median_step_ms
    return (
        f"With prefetch_to_device the step took {dev:.1f} ms; with a host prefetch it took "
        f"{host:.1f} ms, which includes copying each batch to the GPU inside the step."
    )


def _staged(kit: Kit, p: Params) -> Any:
    # prefetch_to_device must be the last transformation, so the options go before it.
    ds = kit.with_options(kit.large_batches())
    return ds.apply(kit.tf.data.experimental.prefetch_to_device(kit.device))


PRESET = Preset(
    name="to-device",
    title="prefetch_to_device: staging batches on the GPU",
    description=(
        "With prefetch_to_device as the last transformation, buffered batches already sit in "
        "GPU memory when the step asks for them; with a host prefetch, each batch is copied "
        "to the GPU inside the step. Needs a GPU worker."
    ),
    variants=(
        VariantSpec(
            "prefetch-to-device",
            "prefetch_to_device('/gpu:0')",
            "ds.map(load).apply(tf.data.experimental.prefetch_to_device('/gpu:0'))",
            _staged,
        ),
        VariantSpec(
            "host-prefetch",
            "prefetch(AUTOTUNE) on the host",
            "ds.map(load).prefetch(tf.data.AUTOTUNE)",
            lambda kit, p: kit.large_batches().prefetch(kit.tf.data.AUTOTUNE),
        ),
    ),
    params=(input_ms(20), compute_ms(30), steps(40), batch_mb("Size of one batch, copied host to GPU.")),
    model=(
        "Both cost about max(input, compute); the host prefetch also pays the host-to-GPU copy "
        "of every batch inside the step, which prefetch_to_device overlaps."
    ),
    step_model=_model,
    reading=_reading,
    gpu_reason="prefetch_to_device stages batches in GPU memory",
    large_batches=True,
    tf_data_note=(
        "Upstream of prefetch_to_device TensorFlow applies no graph rewrites at all (its copy "
        "stage cannot be serialised for optimisation), so there the options change nothing."
    ),
)
