"""Vectorizing a map: a fixed cost per call, paid per example (map, then batch) or per batch
(batch, then map over the whole batch)."""

from __future__ import annotations

from collections.abc import Mapping

from app.presets.declaration import Params, ParamSpec, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult


def _calls(variant: str, p: Params) -> int:
    """Map calls per batch: one per example, or one for the whole batch."""
    return p["batch_size"] if variant == "map-then-batch" else 1


def _model(variant: str, p: Params) -> float:
    return _calls(variant, p) * p["call_ms"] + float(p["input_ms"]) + float(p["compute_ms"])


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    per_example = v["map-then-batch"].median_step_ms
    per_batch = v["batch-then-map"].median_step_ms
    extra_calls = p["batch_size"] - 1
    text = (
        f"Mapping each example a step took {per_example:.1f} ms, paying the {p['call_ms']} ms call "
        f"cost {p['batch_size']} times per batch; batching first and mapping the whole batch took "
        f"{per_batch:.1f} ms, paying it once ({per_example / per_batch:.2f}x faster)."
    )
    if extra_calls:
        per_call = (per_example - per_batch) / extra_calls
        text += (
            f" Each extra call cost {per_call:.2f} ms measured against call_ms = {p['call_ms']}: "
            "what it costs beyond that is the map call's own overhead on this host "
            "(a tf.numpy_function call), the very cost that vectorizing saves."
        )
    return text


PRESET = Preset(
    name="vectorize",
    title="Vectorize the map: batch first, then map whole batches",
    description=(
        "A map function with a fixed cost per call (scheduling, a Python call, a round trip to a "
        "service) besides its cost per example. Mapped before batch it is called once per "
        "example; mapped after batch, over whole batches of indices, it is called once per "
        "batch and does the same per-example work."
    ),
    variants=(
        VariantSpec(
            "map-then-batch",
            "map, then batch",
            "ds.map(load).batch(B)",
            lambda kit, p: kit.examples().batch(p["batch_size"]),
        ),
        VariantSpec(
            "batch-then-map",
            "batch, then map whole batches",
            "ds.batch(B).map(load_batch)",
            lambda kit, p: kit.indices().batch(p["batch_size"]).map(kit.load),
        ),
    ),
    params=(
        input_ms(16),
        compute_ms(10),
        batch_size(4),
        steps(30),
        ParamSpec(
            "call_ms",
            "Cost per call",
            20,
            0,
            100,
            "ms",
            "Fixed cost of each call of the map function, whatever it is given: per example when "
            "mapped before batch, per batch when mapped after.",
        ),
    ),
    model=(
        "A step costs the map calls, input and compute in turn (no prefetch): map then batch "
        "costs B x call_ms + input + compute, batch then map costs call_ms + input + compute."
    ),
    step_model=_model,
    reading=_reading,
)
