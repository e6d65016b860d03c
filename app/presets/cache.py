"""Where cache goes: after the expensive map (epoch 2 reads memory) or before it (the map runs
every epoch). Each placement runs as two variants, its first epoch and its second, so the table,
the timelines and the reading compare epoch with epoch on the result's usual shape."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.presets.declaration import Builder, Kit, Params, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult

AFTER_MAP = "cache-after-map"
BEFORE_MAP = "cache-before-map"


def _model(variant: str, p: Params) -> float:
    i, c = float(p["input_ms"]), float(p["compute_ms"])
    if variant == f"{AFTER_MAP}-epoch-2":
        return c  # the map's output comes from memory: nothing upstream runs
    return i + c  # the map runs, and nothing overlaps it with the step


def _prepare(variant: str, p: Params) -> float:
    """A second epoch first reads a whole first one, map and all, without the step."""
    return float(p["steps"] * p["input_ms"]) if variant.endswith("-epoch-2") else 0.0


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    after = [v[f"{AFTER_MAP}-epoch-{n}"].median_step_ms for n in (1, 2)]
    before = [v[f"{BEFORE_MAP}-epoch-{n}"].median_step_ms for n in (1, 2)]
    return (
        f"With cache() after the map a step took {after[0]:.1f} ms in epoch 1, which runs the map "
        f"and records its output, and {after[1]:.1f} ms in epoch 2, which reads it from memory "
        f"({after[0] / after[1]:.2f}x faster, about the compute time alone). With cache() before "
        f"the map it took {before[0]:.1f} ms and then {before[1]:.1f} ms: the cache holds only "
        "what reaches it, the cheap indices, so the expensive map runs again every epoch."
    )


def _pipeline(cache_after_map: bool) -> Builder:
    """One epoch: steps batches of batch_size examples, cached after or before the map."""

    def build(kit: Kit, p: Params) -> Any:
        indices = kit.indices(p["steps"] * p["batch_size"])
        ds = indices.map(kit.load).cache() if cache_after_map else indices.cache().map(kit.load)
        return ds.batch(p["batch_size"])

    return build


def _epoch(cache_after_map: bool, epoch: int) -> Builder:
    pipeline = _pipeline(cache_after_map)
    if epoch == 1:
        return pipeline
    # Epoch 1 is read to its end first: only a pass that reaches the end completes the cache.
    return lambda kit, p: kit.after_epoch(pipeline(kit, p))


def _variants(name: str, *, label: str, code: str, cache_after_map: bool) -> tuple[VariantSpec, ...]:
    return tuple(
        VariantSpec(f"{name}-epoch-{n}", f"{label}: epoch {n}", code, _epoch(cache_after_map, n))
        for n in (1, 2)
    )


PRESET = Preset(
    name="cache",
    title="Where cache goes: epoch 1 against epoch 2",
    description=(
        "An epoch of steps batches whose map is the expensive part (a slow read and decode), "
        "with cache() placed after the map and before it. Each placement runs twice: its first "
        "epoch, and its second epoch after a whole first one has been read. After the map, "
        "epoch 1 pays for the map and records its output, and epoch 2 replays it from memory; "
        "before the map, the cache records only the cheap input, so every epoch pays for the map."
    ),
    variants=(
        *_variants(
            AFTER_MAP, label="cache() after map", code="ds.map(load).cache().batch(B)", cache_after_map=True
        ),
        *_variants(
            BEFORE_MAP,
            label="cache() before map",
            code="ds.cache().map(load).batch(B)",
            cache_after_map=False,
        ),
    ),
    params=(input_ms(40), compute_ms(20), batch_size(2), steps(20)),
    model=(
        "With cache() after the map, epoch 1 costs input + compute per step and epoch 2 costs "
        "compute alone; with cache() before the map every epoch costs input + compute. No "
        "prefetch, so nothing overlaps the input with the step."
    ),
    step_model=_model,
    reading=_reading,
    prepare_model=_prepare,
)
