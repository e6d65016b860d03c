"""The demo presets: what each one runs, its parameters and bounds, and the model it must match.

This module never imports TensorFlow: the web process imports it to validate parameters, draw the
form and show the model beside a result. Everything here is plain arithmetic on the parameters.

Input cost is modelled per batch (``input_ms``); the pipelines spread it evenly over the
``batch_size`` examples of a batch, so "prefetch before batch" buffers examples, not batches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from app.exceptions import DomainError, Invalid

# Steps at the start of every variant left out of medians, means and p90: the first `next()`
# starts tf.data's background threads and the first buffer fill, which is not the steady state.
WARMUP_STEPS = 2

# Whole-run ceiling that the bounds on single parameters cannot guarantee on their own.
MAX_RUN_SECONDS = 120.0

# Wall time a variant costs beyond its steps: building and optimising the pipeline, the iterator.
VARIANT_OVERHEAD_SECONDS = 0.4

# Within this fraction a measured step agrees with its model (the reading and the pages alike).
AGREEMENT = 0.10


class DemoError(DomainError):
    """Base class of every way a demo can end without a result document."""


class ParamError(DemoError, Invalid):
    """A parameter (or the preset name) is not acceptable; `param` names it, with its bounds."""

    def __init__(self, param: str, message: str, spec: ParamSpec | None = None) -> None:
        field = param if param in ("preset", "card_id") else f"params.{param}"
        bounds = {"min": spec.min, "max": spec.max} if spec is not None else {}
        Invalid.__init__(self, field, message, param=param, **bounds)
        self.param = param


class PresetUnavailable(DemoError):
    """The preset cannot run on this worker's hardware (to-device without a GPU)."""


class DemoCancelled(DemoError):
    """The person cancelled the run."""


class DemoTimedOut(DemoError):
    """The run went past its time limit; the runner killed its process."""


class DemoCrashed(DemoError):
    """The runner's child process died mid-job (killed, out of memory, a native crash)."""


class DemoFailed(DemoError):
    """The pipeline raised an error; the child process is still healthy.

    `detail` carries the child's traceback for the worker's log (not for the page).
    """

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: int
    min: int
    max: int
    unit: str
    help: str
    type: str = "int"


@dataclass(frozen=True)
class VariantSpec:
    name: str
    label: str
    # The pipeline as a person would write it, for the page.
    code: str


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    variants: tuple[VariantSpec, ...]
    params: tuple[ParamSpec, ...]
    model: str
    needs_gpu: bool = False
    # Which statistic the model predicts: the median step, or the mean step where the input is
    # bursty on purpose (a median of a two-speed pipeline says little about throughput).
    model_basis: str = "median"

    @property
    def variant_names(self) -> list[str]:
        return [v.name for v in self.variants]

    def variant(self, name: str) -> VariantSpec:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"{self.name} has no variant {name!r}")

    def defaults(self) -> dict[str, int]:
        return {p.name: p.default for p in self.params}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description for forms and the API."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "variants": [asdict(v) for v in self.variants],
            "params": [asdict(p) for p in self.params],
            "model": self.model,
            "needs_gpu": self.needs_gpu,
            "model_basis": self.model_basis,
        }


def _input_ms(default: int) -> ParamSpec:
    return ParamSpec(
        "input_ms", default, 0, 500, "ms", "Producer cost per batch: time to read and decode one batch."
    )


def _compute_ms(default: int) -> ParamSpec:
    return ParamSpec(
        "compute_ms", default, 0, 500, "ms", "Consumer cost per step: one training step on the accelerator."
    )


def _batch_size(default: int) -> ParamSpec:
    return ParamSpec(
        "batch_size",
        default,
        1,
        64,
        "examples",
        "Examples per batch; the input cost of a batch is split evenly over them.",
    )


def _steps(default: int) -> ParamSpec:
    return ParamSpec(
        "steps",
        default,
        5,
        500,
        "steps",
        f"Training steps per variant (the first {WARMUP_STEPS} are warm-up and left out of the statistics).",
    )


_JITTER_PCT = ParamSpec(
    "jitter_pct",
    80,
    0,
    100,
    "%",
    "Burstiness: slow batches cost input_ms x (1 + jitter), fast ones input_ms x "
    "(1 - jitter), so the mean stays input_ms.",
)
_BURST_LEN = ParamSpec(
    "burst_len", 8, 1, 32, "batches", "How many slow batches come in a row (then as many fast ones)."
)

PRESETS: dict[str, Preset] = {
    "placement": Preset(
        name="placement",
        title="Where prefetch goes",
        description=(
            "The same producer and training step run four times: with no prefetch at all, with "
            "prefetch(2) placed before batch (it buffers single examples), with prefetch(AUTOTUNE) "
            "as the last transformation, and with prefetch(2) as the last transformation (it "
            "buffers whole batches). Without prefetch the step waits for its input every time; "
            "with prefetch last, the next batch is built while the current step computes."
        ),
        variants=(
            VariantSpec("no-prefetch", "No prefetch", "ds.map(load).batch(B)"),
            VariantSpec(
                "prefetch-before-batch", "prefetch(2) before batch", "ds.map(load).prefetch(2).batch(B)"
            ),
            VariantSpec(
                "prefetch-last-autotune",
                "prefetch(AUTOTUNE) last",
                "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)",
            ),
            VariantSpec("prefetch-last-2", "prefetch(2) last", "ds.map(load).batch(B).prefetch(2)"),
        ),
        params=(_input_ms(30), _compute_ms(30), _batch_size(4), _steps(40)),
        model=(
            "No prefetch costs input + compute per step; prefetch last costs max(input, compute); "
            "prefetch(2) before batch only gets 2 examples ahead, so it saves at most 2/B of the "
            "input time per step: input + compute - min(2/B x input, compute)."
        ),
    ),
    "deficit": Preset(
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
                "prefetch-only", "prefetch(AUTOTUNE) only", "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)"
            ),
            VariantSpec(
                "parallel-map",
                "map(num_parallel_calls=workers) + prefetch",
                "ds.map(load, num_parallel_calls=workers).batch(B).prefetch(tf.data.AUTOTUNE)",
            ),
        ),
        params=(
            _input_ms(60),
            _compute_ms(20),
            _batch_size(4),
            _steps(40),
            ParamSpec(
                "workers",
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
    ),
    "jitter": Preset(
        name="jitter",
        title="Bursty input: what a buffer is for",
        description=(
            "The producer is faster than the step on average but comes in bursts: runs of slow "
            "batches followed by runs of fast ones. With no buffer every slow batch stalls the "
            "step; prefetch buffers of 1, 2, 8 and AUTOTUNE bank batches during the fast runs and "
            "spend them during the slow runs, so the step approaches the compute time and the "
            "tail (p90) shrinks."
        ),
        variants=(
            VariantSpec("buffer-0", "No prefetch (buffer 0)", "ds.map(load).batch(B)"),
            VariantSpec("buffer-1", "prefetch(1)", "ds.map(load).batch(B).prefetch(1)"),
            VariantSpec("buffer-2", "prefetch(2)", "ds.map(load).batch(B).prefetch(2)"),
            VariantSpec("buffer-8", "prefetch(8)", "ds.map(load).batch(B).prefetch(8)"),
            VariantSpec(
                "buffer-autotune", "prefetch(AUTOTUNE)", "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)"
            ),
        ),
        params=(_input_ms(25), _compute_ms(30), _batch_size(4), _steps(50), _JITTER_PCT, _BURST_LEN),
        model=(
            "Mean step with no buffer = mean input + compute; with a large buffer = max(mean input, "
            "compute). Small buffers sit in between: the model replays the same burst pattern "
            "through a producer/consumer queue of that size."
        ),
        model_basis="mean",
    ),
    "synthetic": Preset(
        name="synthetic",
        title="Input-bound or compute-bound? Swap in synthetic input",
        description=(
            "Runs the real pipeline, then replaces it with "
            "tf.data.Dataset.from_tensors(one_batch).repeat(), which has no input cost at all. If "
            "the step time collapses, the job was input-bound; if it barely moves, the model is "
            "the bottleneck and no pipeline tuning will help."
        ),
        variants=(
            VariantSpec("real-pipeline", "Real pipeline", "ds.map(load).batch(B).prefetch(tf.data.AUTOTUNE)"),
            VariantSpec(
                "synthetic-input", "Synthetic input", "tf.data.Dataset.from_tensors(one_batch).repeat()"
            ),
        ),
        params=(_input_ms(50), _compute_ms(20), _batch_size(4), _steps(40)),
        model="Real pipeline costs max(input, compute); synthetic input costs compute alone.",
    ),
    "memory": Preset(
        name="memory",
        title="What the prefetch buffer costs in host memory",
        description=(
            "Large batches from a bursty producer, prefetched with AUTOTUNE and with a fixed "
            "prefetch(2). Every buffered batch is a full batch held in host RAM. prefetch(2) "
            "caps the buffer at two batches; AUTOTUNE grows it whenever the step finds it empty, "
            "so its footprint depends on the workload."
        ),
        variants=(
            VariantSpec("prefetch-autotune", "prefetch(AUTOTUNE)", "ds.map(load).prefetch(tf.data.AUTOTUNE)"),
            VariantSpec("prefetch-2", "prefetch(2)", "ds.map(load).prefetch(2)"),
        ),
        params=(
            _input_ms(25),
            _compute_ms(30),
            _steps(50),
            _JITTER_PCT,
            _BURST_LEN,
            ParamSpec("batch_mb", 16, 1, 128, "MB", "Size of one batch in host memory."),
        ),
        model=(
            "prefetch(2) holds at most 2 batches (2 x batch_mb); AUTOTUNE holds as many as the "
            "runtime decides. Mean step = max(mean input, compute) for a large buffer and the "
            "replayed queue model for a buffer of 2."
        ),
        model_basis="mean",
    ),
    "to-device": Preset(
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
            ),
            VariantSpec(
                "host-prefetch", "prefetch(AUTOTUNE) on the host", "ds.map(load).prefetch(tf.data.AUTOTUNE)"
            ),
        ),
        params=(
            _input_ms(20),
            _compute_ms(30),
            _steps(40),
            ParamSpec("batch_mb", 16, 1, 128, "MB", "Size of one batch, copied host to GPU."),
        ),
        model=(
            "Both cost about max(input, compute); the host prefetch also pays the host-to-GPU copy "
            "of every batch inside the step, which prefetch_to_device overlaps."
        ),
        needs_gpu=True,
    ),
}


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


def validate_params(preset: str, params: Mapping[str, object] | None) -> dict[str, int]:
    """Return every parameter of `preset`, defaults filled in, or raise ParamError naming one."""
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
    return result


# ---------------------------------------------------------------------------------------------
# The input cost schedule, shared by the pipelines (which sleep it) and the models (which add it).


def batch_input_ms(preset: str, params: Mapping[str, int], batch_index: int) -> float:
    """Producer cost of batch `batch_index`: constant, or bursty for jitter and memory.

    Bursty input starts with a run of fast batches, then alternates runs of `burst_len` slow
    and fast batches, so the mean over whole cycles is exactly `input_ms`.
    """
    mean = float(params["input_ms"])
    if "jitter_pct" not in params:
        return mean
    jitter = params["jitter_pct"] / 100.0
    slow = (batch_index // params["burst_len"]) % 2 == 1
    return mean * (1 + jitter) if slow else mean * (1 - jitter)


def simulate_prefetch(input_ms: Sequence[float], compute_ms: float, buffer: int | None) -> list[float]:
    """Step durations of the textbook producer/consumer model, one per batch in `input_ms`.

    buffer 0 means no prefetch: the consumer asks, then the producer builds the batch. buffer k
    means a background producer that may run up to k finished batches ahead (it starts batch j
    once batch j-k has been taken), as tf.data's prefetch does. None means an unbounded buffer.
    """
    steps: list[float] = []
    taken: list[float] = []  # when the consumer took batch j
    consumer_free = 0.0
    producer_free = 0.0
    for j, cost in enumerate(input_ms):
        if buffer == 0:
            ready = consumer_free + cost
        else:
            start = producer_free
            if buffer is not None and j >= buffer:
                start = max(start, taken[j - buffer])
            producer_free = start + cost
            ready = producer_free
        take = max(consumer_free, ready)
        taken.append(take)
        step_end = take + compute_ms
        steps.append(step_end - consumer_free)
        consumer_free = step_end
    return steps


def replayed_mean(
    preset: str, params: Mapping[str, int], buffer: int | None, extra_input_ms: float = 0.0
) -> float:
    """Mean modelled step over the same steps the measurement keeps (warm-up left out).

    `extra_input_ms` adds a fixed producer cost per batch, for explaining a measurement whose
    producer does real work beyond input_ms (filling large batches); the card's model uses 0.
    """
    n = params["steps"]
    costs = [batch_input_ms(preset, params, j) + extra_input_ms for j in range(n)]
    steps = simulate_prefetch(costs, float(params["compute_ms"]), buffer)[WARMUP_STEPS:]
    return sum(steps) / len(steps)


def _placement_model(variant: str, p: Mapping[str, int]) -> float:
    i, c, b = float(p["input_ms"]), float(p["compute_ms"]), p["batch_size"]
    if variant == "no-prefetch":
        return i + c
    if variant == "prefetch-before-batch":
        # Two examples can be ready when the step ends; the other B-2 are built while it waits.
        ahead = min(2, b) / b * i
        return i + c - min(ahead, c)
    return max(i, c)


def _deficit_model(variant: str, p: Mapping[str, int]) -> float:
    i, c = float(p["input_ms"]), float(p["compute_ms"])
    if variant == "parallel-map":
        return max(i / p["workers"], c)
    return max(i, c)


def _jitter_model(variant: str, p: Mapping[str, int]) -> float:
    buffer: int | None = None if variant == "buffer-autotune" else int(variant.split("-")[1])
    return replayed_mean("jitter", p, buffer)


def _synthetic_model(variant: str, p: Mapping[str, int]) -> float:
    if variant == "synthetic-input":
        return float(p["compute_ms"])
    return max(float(p["input_ms"]), float(p["compute_ms"]))


def memory_buffer(variant: str) -> int | None:
    """The memory preset's buffer in the model: 2, or unbounded for AUTOTUNE."""
    return 2 if variant == "prefetch-2" else None


def _memory_model(variant: str, p: Mapping[str, int]) -> float:
    return replayed_mean("memory", p, memory_buffer(variant))


def _to_device_model(variant: str, p: Mapping[str, int]) -> float:
    return max(float(p["input_ms"]), float(p["compute_ms"]))


_MODELS: dict[str, Callable[[str, Mapping[str, int]], float]] = {
    "placement": _placement_model,
    "deficit": _deficit_model,
    "jitter": _jitter_model,
    "synthetic": _synthetic_model,
    "memory": _memory_model,
    "to-device": _to_device_model,
}


def measured_step_ms(variant: Mapping[str, Any]) -> float:
    """A result variant's measured step on the model's basis: its mean or its median."""
    return float(
        variant["mean_step_ms"] if variant.get("model_basis") == "mean" else variant["median_step_ms"]
    )


def model_step_ms(preset: str, variant: str, params: Mapping[str, int]) -> float | None:
    """What the card's model predicts for one variant's step (median, or mean: see model_basis)."""
    spec = get_preset(preset)
    if variant not in spec.variant_names:
        return None
    full = {**spec.defaults(), **params}
    return round(_MODELS[preset](variant, full), 3)


def model_buffer_mb(preset: str, variant: str, params: Mapping[str, int]) -> float | None:
    """Host memory the memory preset's buffer may hold by its model (None: no fixed cap)."""
    if preset != "memory" or variant != "prefetch-2":
        return None
    return 2.0 * params["batch_mb"]


def serial_bound_ms(preset: str, params: Mapping[str, int], extra_input_ms: float = 0.0) -> float:
    """The longest step the model allows in any variant: the slowest batch built, then computed.

    With or without a buffer, a step waits at most for one batch being produced and then
    computes, so a measured step far beyond this means something outside the pipeline (another
    process on the host, swapping) held it up.
    """
    spec = get_preset(preset)
    full = {**spec.defaults(), **params}
    slowest = max(
        batch_input_ms(preset, full, j) for j in range(max(full["steps"], 2 * full.get("burst_len", 1)))
    )
    return slowest + extra_input_ms + float(full["compute_ms"])


def estimate_seconds(preset: str, params: Mapping[str, int]) -> float:
    """Roughly how long the whole preset takes on this kind of machine, for limits and the form.

    The models are close to what runs (see bench/demo_fidelity.py); 10 % on top errs long.
    """
    spec = get_preset(preset)
    full = {**spec.defaults(), **params}
    total = 0.0
    for name in spec.variant_names:
        per_step = 1.1 * _MODELS[preset](name, full)
        total += full["steps"] * per_step / 1000.0 + VARIANT_OVERHEAD_SECONDS
    return round(total, 1)


def time_limit_seconds(preset: str, params: Mapping[str, int]) -> float:
    """A generous limit for one job: the estimate with headroom for a loaded host."""
    return float(math.ceil(30.0 + 3.0 * estimate_seconds(preset, params)))
