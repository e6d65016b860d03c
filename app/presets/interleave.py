"""Reading slow shards: one after another, interleaved one fetch at a time, or in parallel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.presets.declaration import Builder, Kit, Params, ParamSpec, Preset, VariantSpec
from app.presets.params import batch_size, compute_ms, input_ms, steps
from app.presets.results import VariantResult


def _model(variant: str, p: Params) -> float:
    i, c = float(p["input_ms"]), float(p["compute_ms"])
    if variant == "interleave-parallel":
        return max(i / p["shards"], c)
    return max(i, c)


def _reading(p: Params, v: Mapping[str, VariantResult]) -> str:
    flat = v["flat-map"].median_step_ms
    sequential = v["interleave-sequential"].median_step_ms
    parallel = v["interleave-parallel"].median_step_ms
    n = p["shards"]
    return (
        f"Reading the shards one after another (flat_map) a step took {flat:.1f} ms; interleaving "
        f"{n} shards without num_parallel_calls took {sequential:.1f} ms, no faster: it mixes the "
        f"shards but fetches from them one at a time. With num_parallel_calls={n} the {n} reads "
        f"overlap and a step took {parallel:.1f} ms ({sequential / parallel:.2f}x faster)."
    )


def _files(kit: Kit, p: Params) -> tuple[Any, Any]:
    """The shard ids, and `read`, which opens one shard: a dataset of slow examples, each shard
    long enough that together they cover the run."""
    per_shard = -(-p["steps"] * p["batch_size"] // p["shards"])
    return kit.tf.data.Dataset.range(p["shards"]), lambda shard: kit.indices(per_shard).map(kit.load)


def _flat_map(kit: Kit, p: Params) -> Any:
    files, read = _files(kit, p)
    return files.flat_map(read).batch(p["batch_size"]).prefetch(kit.tf.data.AUTOTUNE)


def _interleave(parallel: bool) -> Builder:
    def build(kit: Kit, p: Params) -> Any:
        files, read = _files(kit, p)
        calls = p["shards"] if parallel else None
        ds = files.interleave(read, cycle_length=p["shards"], num_parallel_calls=calls)
        return ds.batch(p["batch_size"]).prefetch(kit.tf.data.AUTOTUNE)

    return build


PRESET = Preset(
    name="interleave",
    title="Reading slow shards: interleave with and without num_parallel_calls",
    description=(
        "The input is split into shards, each a dataset whose every example costs a wait, like "
        "a read from remote storage. flat_map reads one shard after another; interleave with "
        "cycle_length=shards keeps them all open and mixes their examples but, without "
        "num_parallel_calls, still fetches one example at a time; with num_parallel_calls=shards "
        "it fetches from every shard at once, so their waits overlap."
    ),
    variants=(
        VariantSpec(
            "flat-map",
            "flat_map: one shard after another",
            "files.flat_map(read).batch(B).prefetch(tf.data.AUTOTUNE)",
            _flat_map,
        ),
        VariantSpec(
            "interleave-sequential",
            "interleave(cycle_length=shards)",
            "files.interleave(read, cycle_length=shards).batch(B).prefetch(tf.data.AUTOTUNE)",
            _interleave(parallel=False),
        ),
        VariantSpec(
            "interleave-parallel",
            "interleave(cycle_length=shards, num_parallel_calls=shards)",
            "files.interleave(read, cycle_length=shards, num_parallel_calls=shards)"
            ".batch(B).prefetch(tf.data.AUTOTUNE)",
            _interleave(parallel=True),
        ),
    ),
    params=(
        input_ms(80),
        compute_ms(10),
        batch_size(2),
        steps(30),
        ParamSpec(
            "shards",
            "Shards",
            4,
            1,
            16,
            "shards",
            "Shards read at once: interleave's cycle_length, and its num_parallel_calls in the "
            "parallel variant.",
        ),
    ),
    model=(
        "Reading one example at a time, from one shard or from several in turn, costs "
        "max(input, compute) per step; reading from all shards in parallel costs "
        "max(input / shards, compute)."
    ),
    step_model=_model,
    reading=_reading,
    thread_pool_param="shards",
)
