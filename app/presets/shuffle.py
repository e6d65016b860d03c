"""What a shuffle buffer costs: the wait before the first batch and the host memory it holds."""

from __future__ import annotations

from collections.abc import Mapping

from app.presets.declaration import Builder, Params, ParamSpec, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult

SIZES = ("small", "medium", "large")


def _buffer(variant: str, p: Params) -> int:
    """'buffer-small' shuffles with the small_buffer parameter, and so on."""
    return p[f"{variant.removeprefix('buffer-')}_buffer"]


def _steady_ms(p: Params) -> float:
    """Once the buffer is full, each example out lets one in: a batch costs its input as usual."""
    return float(p["input_ms"] + p["compute_ms"])


def _model(variant: str, p: Params) -> float:
    return _steady_ms(p)


def _first_batch_reads(variant: str, p: Params) -> int:
    """The buffer fills before the first example comes out, then the batch takes B-1 more."""
    return _buffer(variant, p) + p["batch_size"] - 1


def _first_batch(variant: str, p: Params) -> float:
    return _first_batch_reads(variant, p) * p["input_ms"] / p["batch_size"]


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    names = [f"buffer-{size}" for size in SIZES]
    parts = [
        f"shuffle({_buffer(name, p)}) {v[name].first_batch_ms:.0f} ms and {v[name].held.peak_host_mb:g} MB"
        for name in names
    ]
    steps_ms = [v[name].median_step_ms for name in names]
    # The steady steps read B examples each: what they take beyond the model is each example's
    # real overhead, which every example of the first batch pays too.
    extra = (sum(steps_ms) / len(steps_ms) - _steady_ms(p)) / p["batch_size"]
    per_example = p["input_ms"] / p["batch_size"] + extra
    with_extra = ", ".join(f"{_first_batch_reads(name, p) * per_example:.0f}" for name in names)
    return (
        f"Time to the first batch and host memory held: {'; '.join(parts)}. Both grow with "
        "buffer_size, because shuffle fills its whole buffer before it hands out anything and "
        "then keeps it full; after that a step cost the same whatever the buffer "
        f"({', '.join(f'{ms:.1f}' for ms in steps_ms)} ms). Between steps the buffer holds one "
        "example fewer than buffer_size: it takes in the next example only when it is asked for "
        f"one. In those steps each example cost {extra:.1f} ms more than its share of input_ms "
        "(the tf.numpy_function call, filling example_kb, sleep overshoot); counting that for "
        f"every example, the first batches would take {with_extra} ms."
    )


def _shuffled(size: str) -> Builder:
    return lambda kit, p: kit.large_examples().shuffle(p[f"{size}_buffer"]).batch(p["batch_size"])


def _buffer_param(size: str, default: int) -> ParamSpec:
    # At most 256 examples of at most 1 MB: a buffer stays far below the runner's memory limit.
    return ParamSpec(
        f"{size}_buffer",
        f"{size.capitalize()} buffer",
        default,
        1,
        256,
        "examples",
        f"buffer_size of the {size} shuffle.",
    )


PRESET = Preset(
    name="shuffle",
    title="What a shuffle buffer costs: the first batch and host memory",
    description=(
        "Examples that each cost a read and hold example_kb in host memory, shuffled with a "
        "small, a medium and a large buffer_size. shuffle fills its buffer before it hands out "
        "the first example, so the first batch waits for buffer_size reads, and the buffer then "
        "stays full, holding buffer_size examples in host memory for as long as it runs."
    ),
    variants=tuple(
        VariantSpec(
            f"buffer-{size}",
            f"shuffle({size}_buffer)",
            f"ds.map(load).shuffle({size}_buffer).batch(B)",
            _shuffled(size),
        )
        for size in SIZES
    ),
    params=(
        input_ms(50),
        compute_ms(20),
        batch_size(2),
        steps(15),
        _buffer_param("small", 16),
        _buffer_param("medium", 48),
        _buffer_param("large", 128),
        ParamSpec(
            "example_kb", "Example in memory", 256, 1, 1024, "KB", "Size of one example in host memory."
        ),
    ),
    model=(
        "The first batch waits for buffer_size + B - 1 examples, (buffer_size + B - 1) x input / B; "
        "the buffer holds buffer_size x example_kb in host memory; later steps cost input + "
        "compute (no prefetch)."
    ),
    step_model=_model,
    reading=_reading,
    large_examples=True,
    buffer_of=_buffer,
    first_batch_model=_first_batch,
)
