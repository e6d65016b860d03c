"""The demo presets. Each module here declares one `Preset` (base.py): its parameters, its
variants with their pipelines, its model and its reading. Registered below, a declaration is all
the CLI options, the card-page form, API validation, the models and the reading need.

Nothing here imports TensorFlow: the web process imports it to validate parameters, draw the form
and show the model beside a result. Beside the registry is the arithmetic every preset shares.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from app.presets import (
    cache,
    deficit,
    interleave,
    jitter,
    memory,
    placement,
    shuffle,
    synthetic,
    to_device,
    vectorize,
)
from app.presets.declaration import Kit, ParamSpec, Preset, VariantSpec
from app.presets.demo_errors import DemoCancelled, DemoError, ParamError, PresetUnavailable
from app.presets.schedule import WARMUP_STEPS, batch_input_ms, replayed_mean, simulate_prefetch

__all__ = [
    "AGREEMENT",
    "MAX_RUN_SECONDS",
    "PRESETS",
    "VARIANT_OVERHEAD_SECONDS",
    "WARMUP_STEPS",
    "DemoCancelled",
    "DemoError",
    "Kit",
    "ParamError",
    "ParamSpec",
    "Preset",
    "PresetUnavailable",
    "VariantSpec",
    "batch_input_ms",
    "estimate_seconds",
    "get_preset",
    "model_buffer_mb",
    "model_first_batch_ms",
    "model_step_ms",
    "register",
    "replayed_mean",
    "serial_bound_ms",
    "simulate_prefetch",
    "time_limit_seconds",
    "validate_params",
    "worst_buffer_mb",
]

# What the runner child uses before any buffer: TensorFlow itself, its thread pools, Python.
RUNNER_BASELINE_MB = 1024

# Whole-run ceiling that the bounds on single parameters cannot guarantee on their own.
MAX_RUN_SECONDS = 120.0

# Wall time a variant costs beyond its steps: building and optimising the pipeline, the iterator.
VARIANT_OVERHEAD_SECONDS = 0.4

# Within this fraction a measured step agrees with its model (the reading and the pages alike).
AGREEMENT = 0.10

PRESETS: dict[str, Preset] = {}


def register(preset: Preset) -> Preset:
    """Make a declared preset known to everything that lists, validates, models or runs presets."""
    if preset.name in PRESETS:
        raise ValueError(f"a preset named {preset.name!r} is registered already")
    PRESETS[preset.name] = preset
    return preset


# In this order on the CLI, in the API's list and in error messages.
for _declared in (
    placement,
    deficit,
    jitter,
    synthetic,
    memory,
    to_device,
    cache,
    shuffle,
    interleave,
    vectorize,
):
    register(_declared.PRESET)


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ParamError("preset", f"unknown preset '{name}' (one of {', '.join(PRESETS)})") from None


def _as_int(spec: ParamSpec, value: object) -> int:
    """Accept ints, integral floats (JSON) and digit strings (forms); nothing else."""
    if isinstance(value, bool):
        raise ParamError(spec.name, f"{spec.name} must be an integer", spec)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ParamError(spec.name, f"{spec.name} must be an integer", spec)


def worst_buffer_mb(spec: Preset, params: Mapping[str, int]) -> float:
    """The most host memory a run's buffers could hold: with AUTOTUNE nothing caps the buffer
    below the whole run, so every batch (and the one in flight, and the one in the step)."""
    if not spec.large_batches:
        # Examples of a few bytes, or a shuffle buffer its bounds keep to 256 MB at most.
        return 0.0
    return float(params["batch_mb"] * (params["steps"] + 2))


def validate_params(
    preset: str, *, params: Mapping[str, object] | None, memory_limit_mb: int | None = None
) -> dict[str, int]:
    """Return every parameter of `preset`, defaults filled in, or raise ParamError naming one.

    With `memory_limit_mb` (the runner's DEMO_MEMORY_LIMIT_MB), a run whose buffers could hold
    more than that leaves for TensorFlow itself is refused."""
    spec = get_preset(preset)
    given = dict(params or {})
    known = {p.name: p for p in spec.params}
    for name in given:
        if name not in known:
            raise ParamError(name, f"unknown parameter '{name}' for {preset} (one of {', '.join(known)})")
    result: dict[str, int] = {}
    for p in spec.params:
        raw = given.get(p.name)
        value = p.default if raw is None else _as_int(p, raw)
        if not p.min <= value <= p.max:
            raise ParamError(p.name, f"{p.name} must be between {p.min} and {p.max}", p)
        result[p.name] = value
    seconds = estimate_seconds(preset, result)
    if seconds > MAX_RUN_SECONDS:
        raise ParamError(
            "steps",
            f"this run would take about {seconds:.0f} s and the limit is {MAX_RUN_SECONDS:.0f} s: "
            "lower steps, input_ms or compute_ms",
            known["steps"],
        )
    worst = worst_buffer_mb(spec, result)
    if worst and memory_limit_mb is not None and worst > memory_limit_mb - RUNNER_BASELINE_MB:
        budget = memory_limit_mb - RUNNER_BASELINE_MB
        raise ParamError(
            "batch_mb",
            f"its buffer could hold up to {worst:.0f} MB ({result['batch_mb']} MB x {result['steps']} steps "
            f"and 2 in flight) and this server allows {budget} MB: lower batch_mb or steps",
            known["batch_mb"],
        )
    return result


def _with_defaults(spec: Preset, params: Mapping[str, int]) -> dict[str, int]:
    return {**spec.defaults(), **params}


def model_step_ms(preset: str, *, variant: str, params: Mapping[str, int]) -> float | None:
    """What the card's model predicts for one variant's step (median, or mean: see model_basis)."""
    spec = get_preset(preset)
    if variant not in spec.variant_names:
        return None
    return round(spec.step_model(variant, _with_defaults(spec, params)), 3)


def model_buffer_mb(preset: str, *, variant: str, params: Mapping[str, int]) -> float | None:
    """Host memory a variant's buffer may hold by its model (None: no fixed cap, or not counted)."""
    spec = get_preset(preset)
    buffer = spec.buffer_of(variant, params) if spec.buffer_of is not None else None
    if buffer is None:
        return None
    # What one element the producer makes holds: a whole batch, or one example.
    element_mb = params["batch_mb"] if spec.large_batches else params["example_kb"] / 1024
    return float(buffer * element_mb)


def model_first_batch_ms(preset: str, *, variant: str, params: Mapping[str, int]) -> float | None:
    """The wait for a variant's first batch by its model (None: the preset does not model it)."""
    spec = get_preset(preset)
    if spec.first_batch_model is None or variant not in spec.variant_names:
        return None
    return round(spec.first_batch_model(variant, _with_defaults(spec, params)), 3)


def serial_bound_ms(preset: str, *, params: Mapping[str, int], extra_input_ms: float = 0.0) -> float:
    """The longest step the model allows in any variant: the slowest batch built, then computed.

    With or without a buffer, a step waits at most for one batch being produced and then
    computes, so a measured step far beyond this means something outside the pipeline (another
    process on the host, swapping) held it up. Where a map call has a fixed cost, the slowest
    batch is one call per example.
    """
    full = _with_defaults(get_preset(preset), params)
    slowest = max(batch_input_ms(full, j) for j in range(max(full["steps"], 2 * full.get("burst_len", 1))))
    calls = float(full.get("call_ms", 0) * full.get("batch_size", 1))
    return slowest + calls + extra_input_ms + float(full["compute_ms"])


def estimate_seconds(preset: str, params: Mapping[str, int]) -> float:
    """Roughly how long the whole preset takes on this kind of machine, for limits and the form.

    The models are close to what runs (see bench/demo_fidelity.py); 10 % on top errs long.
    """
    spec = get_preset(preset)
    full = _with_defaults(spec, params)
    total = 0.0
    for name in spec.variant_names:
        before_ms = sum(
            model(name, full) for model in (spec.first_batch_model, spec.prepare_model) if model is not None
        )
        variant_ms = full["steps"] * spec.step_model(name, full) + before_ms
        total += 1.1 * variant_ms / 1000.0 + VARIANT_OVERHEAD_SECONDS
    return round(total, 1)


def time_limit_seconds(preset: str, params: Mapping[str, int]) -> float:
    """A generous limit for one job: the estimate with headroom for a loaded host."""
    return float(math.ceil(30.0 + 3.0 * estimate_seconds(preset, params)))
