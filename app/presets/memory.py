"""What the prefetch buffer costs in host memory: AUTOTUNE against a fixed prefetch(2)."""

from __future__ import annotations

from collections.abc import Mapping

from app.presets.declaration import Params, Preset, VariantSpec
from app.presets.params import BURST_LEN, JITTER_PCT, batch_mb, compute_ms, input_ms, steps
from app.presets.results import VariantResult
from app.presets.schedule import replayed_mean


def _buffer(variant: str, p: Params) -> int | None:
    """prefetch(2) holds 2 batches; AUTOTUNE is modelled as an unbounded buffer."""
    return 2 if variant == "prefetch-2" else None


def _model(variant: str, p: Params) -> float:
    return replayed_mean(p, buffer=_buffer(variant, p))


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    auto, two = v["prefetch-autotune"], v["prefetch-2"]
    return (
        f"prefetch(AUTOTUNE) held up to {auto.held.peak_count} batches "
        f"({auto.held.peak_host_mb:.0f} MB) in host memory; prefetch(2) held up to "
        f"{two.held.peak_count} ({two.held.peak_host_mb:.0f} MB). Mean steps: "
        f"{auto.mean_step_ms:.1f} ms and {two.mean_step_ms:.1f} ms."
    )


PRESET = Preset(
    name="memory",
    title="What the prefetch buffer costs in host memory",
    description=(
        "Large batches from a bursty producer, prefetched with AUTOTUNE and with a fixed "
        "prefetch(2). Every buffered batch is a full batch held in host RAM. prefetch(2) "
        "caps the buffer at two batches; AUTOTUNE grows it whenever the step finds it empty, "
        "so its footprint depends on the workload."
    ),
    variants=(
        VariantSpec(
            "prefetch-autotune",
            "prefetch(AUTOTUNE)",
            "ds.map(load).prefetch(tf.data.AUTOTUNE)",
            lambda kit, p: kit.large_batches().prefetch(kit.tf.data.AUTOTUNE),
        ),
        VariantSpec(
            "prefetch-2",
            "prefetch(2)",
            "ds.map(load).prefetch(2)",
            lambda kit, p: kit.large_batches().prefetch(2),
        ),
    ),
    params=(
        input_ms(25),
        compute_ms(30),
        steps(50),
        JITTER_PCT,
        BURST_LEN,
        batch_mb("Size of one batch in host memory."),
    ),
    model=(
        "prefetch(2) holds at most 2 batches (2 x batch_mb); AUTOTUNE holds as many as the "
        "runtime decides. Mean step = max(mean input, compute) for a large buffer and the "
        "replayed queue model for a buffer of 2."
    ),
    step_model=_model,
    reading=_reading,
    model_basis="mean",
    large_batches=True,
    autotune_unbounded=True,
    buffer_of=_buffer,
)
