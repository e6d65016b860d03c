"""Runs the demo presets as real tf.data pipelines and measures every step.

Imports TensorFlow at module top: only the demo runner's child process and `tiercards demo run`
import this module, never the web process.

Shape of every variant: a producer (``Dataset.range`` → ``map(load)`` → …) whose per-batch cost
is ``input_ms``, and a consumer loop in Python that calls ``next()`` on the iterator (timed as
the input wait) and then runs one training step (timed as compute). The producer's cost is a
sleep inside ``tf.numpy_function``: I/O-like latency (a remote read) that holds no CPU, so a
parallel map really overlaps its calls even on a 2-core host.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import statistics
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import psutil

# TensorFlow's C++ INFO/WARNING lines would drown the worker's log; errors still show.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf

from app.demos.run_result import Measurement, RunResult, reading, variant_result
from app.presets import (
    WARMUP_STEPS,
    DemoCancelled,
    Preset,
    PresetUnavailable,
    batch_input_ms,
    get_preset,
    validate_params,
)
from app.presets.results import Step, VariantResult

ProgressFn = Callable[[dict[str, Any]], None]
CancelFn = Callable[[], bool]
ComputeFn = Callable[[Any], None]

# Progress is sent at most this often (plus at each variant's first and last step), so a worker
# that stores every update does not write dozens of times a second.
PROGRESS_INTERVAL_S = 0.1

TF_DEFAULTS_NOTE = (
    "By default TensorFlow {version} rewrites a tf.data pipeline before running it: it injects a "
    "prefetch(AUTOTUNE) after the last transformation when that one is synchronous "
    "(experimental_optimization.inject_prefetch), fuses map followed by batch into one "
    "asynchronous map-and-batch stage (map_and_batch_fusion) and parallelises stateless maps "
    "(map_parallelization). Each of the first two on its own makes a pipeline written without "
    "prefetch overlap its input with the step, so the textbook 'no prefetch' baseline would look "
    "like 'prefetch last'. This demo turns those rewrites off, so the variants differ only in "
    "what their code says."
)

POOL_NOTE = (
    "tf.data also runs the functions of map and interleave on a thread pool sized to the CPU "
    "count ({cpus} here), which caps num_parallel_calls at {cpus} concurrent calls; the cost of "
    "these calls is I/O-like waiting, so this preset sizes the pool to its {what} ({size}, "
    "threading.private_threadpool_size) so that num_parallel_calls={size} really runs that many "
    "calls at once."
)


def _configure_gpus() -> list[Any]:
    """Turn on memory growth (must happen before the GPU is first used) and list the GPUs."""
    gpus = list(tf.config.list_physical_devices("GPU"))
    for gpu in gpus:
        # RuntimeError: the GPU was initialised already in this process; growth is fixed by now.
        with contextlib.suppress(RuntimeError):
            tf.config.experimental.set_memory_growth(gpu, True)
    return gpus


GPUS = _configure_gpus()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _gpu_name(gpu: Any) -> str:
    details = tf.config.experimental.get_device_details(gpu)
    return str(details.get("device_name") or gpu.name)


def gpu_names() -> list[str]:
    """The GPUs TensorFlow lists in this process: what makes a worker a GPU worker."""
    return [_gpu_name(gpu) for gpu in GPUS]


# ---------------------------------------------------------------------------------------------
# Producers


class ProducedCounter:
    """Counts finished elements on the producer side, to know how many the pipeline holds.

    `per_step`: how many of them a step takes (1 batch, or batch_size examples)."""

    def __init__(self, unit: str, *, per_step: int, element_mb: float) -> None:
        self._lock = threading.Lock()
        self.count = 0
        self.unit = unit
        self.per_step = per_step
        self.element_mb = element_mb

    def add(self) -> None:
        with self._lock:
            self.count += 1


def _read_ms(params: Mapping[str, int], indices: np.ndarray) -> float:
    """What one call of the example loader costs: call_ms where the preset has it, plus each
    example's share of its batch's input cost."""
    batch = params["batch_size"]
    shares = sum(batch_input_ms(params, int(i) // batch) for i in np.atleast_1d(indices)) / batch
    return params.get("call_ms", 0) + shares


def _example_loader(params: Mapping[str, int]) -> Callable[[np.ndarray], np.ndarray]:
    """numpy function for one example or a batch of them: sleeps what the call costs."""

    def load(indices: np.ndarray) -> np.ndarray:
        time.sleep(_read_ms(params, indices) / 1000.0)
        return indices

    return load


def _filled_loader(
    cost_ms: Callable[[np.ndarray], float], *, floats: int, counter: ProducedCounter
) -> Callable[[np.ndarray], np.ndarray]:
    """numpy function for one large element: sleep its cost, then fill `floats` float32s."""

    def load(index: np.ndarray) -> np.ndarray:
        time.sleep(cost_ms(index) / 1000.0)
        # Filled, not np.empty: untouched pages would not be resident, and the buffer would look free.
        data = np.full((floats,), float(index), dtype=np.float32)
        counter.add()
        return data

    return load


def _mapped(load: Callable[[np.ndarray], np.ndarray], dtype: tf.DType) -> Callable[[tf.Tensor], tf.Tensor]:
    """A numpy loader as a function for Dataset.map."""

    @tf.autograph.experimental.do_not_convert  # no control flow to convert; keeps the log quiet
    def call(index: tf.Tensor) -> tf.Tensor:
        return tf.numpy_function(load, [index], dtype, stateful=True)

    return call


def _indices(count: int | None = None) -> tf.data.Dataset:
    return tf.data.Dataset.range(2**62 if count is None else count)


def _large_batches(params: Mapping[str, int], counter: ProducedCounter) -> tf.data.Dataset:
    load = _filled_loader(
        lambda index: batch_input_ms(params, int(index)),
        floats=params["batch_mb"] * 2**20 // 4,
        counter=counter,
    )
    return _indices().map(_mapped(load, tf.float32))


def _large_examples(params: Mapping[str, int], counter: ProducedCounter) -> tf.data.Dataset:
    load = _filled_loader(
        lambda index: _read_ms(params, index), floats=params["example_kb"] * 2**10 // 4, counter=counter
    )
    return _indices().map(_mapped(load, tf.float32))


def _fill_ms(params: Mapping[str, int], options: tf.data.Options) -> float:
    """Measured producer cost of one large batch with input_ms = 0: the allocation and fill.

    Real CPU work the card's model leaves out; measured so the reading can account for it.
    """
    quiet = {**params, "input_ms": 0}
    counter = ProducedCounter("batches", per_step=1, element_mb=params["batch_mb"])
    iterator = iter(_large_batches(quiet, counter).with_options(options))
    next(iterator)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        batch = next(iterator)
        times.append((time.perf_counter() - start) * 1000.0)
        del batch
    return statistics.median(times)


# ---------------------------------------------------------------------------------------------
# Options


def _options(spec: Preset, params: Mapping[str, int]) -> tuple[tf.data.Options, dict[str, Any]]:
    """The options every variant of a preset runs with, and the non-default ones by name."""
    options = tf.data.Options()
    changed: dict[str, Any] = {}
    opt = options.experimental_optimization
    # Without these three the no-prefetch baselines get a prefetch (or an async stage) anyway.
    opt.inject_prefetch = False
    opt.map_and_batch_fusion = False
    # Our map is stateful, so TF would not parallelise it; off anyway so a stateless load could
    # never turn a sequential map into a parallel one behind the demo's back.
    opt.map_parallelization = False
    for name in ("inject_prefetch", "map_and_batch_fusion", "map_parallelization"):
        changed[f"experimental_optimization.{name}"] = False
    if spec.thread_pool_param is not None:
        size = params[spec.thread_pool_param]
        options.threading.private_threadpool_size = size
        changed["threading.private_threadpool_size"] = size
    return options, changed


def _defaults_note(spec: Preset, params: Mapping[str, int]) -> str:
    parts = [TF_DEFAULTS_NOTE.format(version=tf.__version__)]
    if spec.thread_pool_param is not None:
        what = spec.param_label(spec.thread_pool_param).lower()
        parts.append(POOL_NOTE.format(cpus=_cpu_count(), what=what, size=params[spec.thread_pool_param]))
    if spec.tf_data_note:
        parts.append(spec.tf_data_note)
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# Variants: each declaration builds its own dataset with a Toolkit


@dataclass
class VariantSetup:
    dataset: tf.data.Dataset
    counter: ProducedCounter | None = None
    # Set when the builder chose the dataset's options itself: placed the run's before
    # prefetch_to_device or an epoch read ahead, or kept TensorFlow's defaults.
    options_applied: bool = False


class Toolkit:
    """What a variant's builder gets (presets.declaration.Kit); it notes what the builder used."""

    def __init__(self, params: Mapping[str, int], *, options: tf.data.Options, device: str) -> None:
        self.tf = tf
        self.device = device
        self._params = params
        self._options = options
        self.counter: ProducedCounter | None = None
        self.options_applied = False
        # A function, not a method, so that Dataset.map has nothing to convert with AutoGraph.
        self.load = _mapped(_example_loader(params), tf.int64)

    def indices(self, count: int | None = None) -> tf.data.Dataset:
        return _indices(count)

    def examples(self, parallel: int | None = None) -> tf.data.Dataset:
        return _indices().map(self.load, num_parallel_calls=parallel)

    def large_batches(self) -> tf.data.Dataset:
        self.counter = ProducedCounter("batches", per_step=1, element_mb=self._params["batch_mb"])
        return _large_batches(self._params, self.counter)

    def large_examples(self) -> tf.data.Dataset:
        p = self._params
        self.counter = ProducedCounter(
            "examples", per_step=p["batch_size"], element_mb=p["example_kb"] / 2**10
        )
        return _large_examples(p, self.counter)

    def with_options(self, dataset: tf.data.Dataset) -> tf.data.Dataset:
        self.options_applied = True
        return dataset.with_options(self._options)

    def with_tensorflow_defaults(self, dataset: tf.data.Dataset) -> tf.data.Dataset:
        self.options_applied = True
        return dataset

    def after_epoch(self, dataset: tf.data.Dataset) -> tf.data.Dataset:
        dataset = self.with_options(dataset)
        for _ in dataset:
            pass
        return dataset


def build_variant(
    preset: str, *, variant: str, params: Mapping[str, int], device: str = "/gpu:0"
) -> VariantSetup:
    """One variant's dataset as its declaration builds it; the run's options are not applied
    unless the builder placed them itself."""
    spec = get_preset(preset)
    options, _ = _options(spec, params)
    kit = Toolkit(params, options=options, device=device)
    dataset = spec.variant(variant).build(kit, params)
    return VariantSetup(dataset, kit.counter, kit.options_applied)


# ---------------------------------------------------------------------------------------------
# Compute


def _simulated_step(compute_ms: float) -> ComputeFn:
    def step(batch: Any) -> None:
        time.sleep(compute_ms / 1000.0)

    return step


class TrainStep:
    """A real, small train step sized to ~compute_ms: `iterations` SGD updates of a dense layer.

    Each iteration is a forward pass, a backward pass and a weight update; its own tape keeps
    device memory flat however many iterations calibration picks. The batch feeds the loss, so
    the step depends on it (and a host batch is copied to the device inside the step).
    """

    def __init__(self, compute_ms: float, *, device: str, width: int = 1024) -> None:
        self.device = device
        self.width = width
        with tf.device(device):
            self.weights = tf.Variable(tf.random.normal([width, width], stddev=width**-0.5))
            self.inputs = tf.random.normal([width, width])
        self.iterations = tf.Variable(1, dtype=tf.int32)
        self._step = tf.function(self._train_step)
        self.calibrate(compute_ms)

    def _train_step(self, batch: tf.Tensor) -> tf.Tensor:
        with tf.device(self.device):
            signal = tf.reduce_mean(tf.cast(batch, tf.float32))
            loss = tf.constant(0.0)
            for _ in tf.range(self.iterations):
                with tf.GradientTape() as tape:
                    h = tf.tanh(tf.matmul(self.inputs, self.weights))
                    loss = tf.reduce_mean(tf.square(h)) + 0.0 * signal
                grad = tape.gradient(loss, self.weights)
                self.weights.assign_sub(1e-3 * grad)
            return loss

    def __call__(self, batch: Any) -> None:
        # .numpy() waits for the device: the step is not over until its result exists.
        self._step(batch).numpy()

    def _time_ms(self, iterations: int, repeats: int = 3) -> float:
        """Median wall time of one step at `iterations`, after a warm-up call."""
        self.iterations.assign(iterations)
        probe = tf.zeros([1])
        self(probe)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            self(probe)
            times.append((time.perf_counter() - start) * 1000.0)
        return statistics.median(times)

    def calibrate(self, compute_ms: float) -> None:
        if compute_ms <= 0:
            self.iterations.assign(1)
            return
        # Grow the probe until it takes a good share of the target, so neither the fixed cost of a
        # call nor one slow sample on a busy host decides how many iterations a step runs.
        iterations = 1
        elapsed = self._time_ms(iterations)
        while elapsed < compute_ms / 2 and iterations < 1 << 20:
            iterations *= 2
            elapsed = self._time_ms(iterations)
        self.iterations.assign(max(1, round(iterations * compute_ms / max(elapsed, 1e-3))))


def _compute(params: Mapping[str, int]) -> tuple[ComputeFn, str, str]:
    """The training step, whether it is real, and the sentence that says which."""
    compute_ms = float(params["compute_ms"])
    if GPUS:
        step = TrainStep(compute_ms, device="/gpu:0")
        note = (
            f"Each training step is real work on {_gpu_name(GPUS[0])}: "
            f"{int(step.iterations.numpy())} forward/backward/update passes of a {step.width}-wide "
            f"dense layer, calibrated to take about {compute_ms:.0f} ms."
        )
        return step, "real", note
    note = (
        "No GPU: each training step is a simulated accelerator step (a sleep of compute_ms that "
        "leaves the host CPU free, as a real accelerator would)."
    )
    return _simulated_step(compute_ms), "simulated", note


INPUT_NOTE = (
    "Input cost is simulated I/O latency: each example's map call is a tf.numpy_function that "
    "sleeps its share of input_ms (input_ms / batch_size), so it uses no CPU while it waits; the "
    "call itself adds a little real overhead per example."
)
LARGE_INPUT_NOTE = (
    "Input cost is simulated I/O latency: each batch's map call is a tf.numpy_function that "
    "sleeps input_ms, then fills a batch_mb array in host memory (real CPU work not in the model)."
)
LARGE_EXAMPLE_NOTE = (
    "Input cost is simulated I/O latency: each example's map call is a tf.numpy_function that "
    "sleeps its share of input_ms (input_ms / batch_size), then fills an example_kb array in host "
    "memory (real CPU work, a fraction of a millisecond, not in the model)."
)
CALL_NOTE = (
    "Each call of the map function also sleeps call_ms, once whether it is given one example or "
    "a whole batch of them."
)


def _input_note(spec: Preset, params: Mapping[str, int]) -> str:
    note = (
        LARGE_INPUT_NOTE if spec.large_batches else LARGE_EXAMPLE_NOTE if spec.large_examples else INPUT_NOTE
    )
    return f"{note} {CALL_NOTE}" if "call_ms" in params else note


# ---------------------------------------------------------------------------------------------
# Measuring


class _Progress:
    """Throttles progress callbacks; always reports a variant's first and last step."""

    def __init__(
        self, on_progress: ProgressFn | None, *, variant: str, index: int, total: int, steps: int
    ) -> None:
        self._fn = on_progress
        self._base = {
            "variant": variant,
            "variant_index": index,
            "variants_total": total,
            "steps_total": steps,
        }
        self._last = 0.0

    def report(self, done: int) -> None:
        if self._fn is None:
            return
        now = time.monotonic()
        edge = done in (0, self._base["steps_total"])
        if edge or now - self._last >= PROGRESS_INTERVAL_S:
            self._last = now
            self._fn({**self._base, "steps_done": done})


def _measure(
    setup: VariantSetup,
    *,
    steps: int,
    compute: ComputeFn,
    progress: _Progress,
    should_cancel: CancelFn | None,
) -> Measurement:
    """The consumer loop: time the wait in next() and the step, per step, from the wall clock."""
    process = psutil.Process()
    iterator = iter(setup.dataset)
    counter = setup.counter
    result = (
        Measurement() if counter is None else Measurement(counted=counter.unit, element_mb=counter.element_mb)
    )
    starts: list[float] = []
    origin = time.perf_counter()
    for k in range(steps):
        if should_cancel is not None and should_cancel():
            raise DemoCancelled("cancelled")
        start = time.perf_counter()
        if counter is not None:
            # Sampled just before next(): when the buffer is at its fullest.
            result.buffered.append(counter.count - k * counter.per_step)
            result.rss_peak_mb = max(result.rss_peak_mb, process.memory_info().rss / 2**20)
        batch = next(iterator)
        got = time.perf_counter()
        compute(batch)
        done = time.perf_counter()
        del batch
        starts.append(start)
        result.steps.append(
            Step(
                start_ms=round((start - origin) * 1000.0, 3),
                input_ms=round((got - start) * 1000.0, 3),
                compute_ms=round((done - got) * 1000.0, 3),
                warmup=k < WARMUP_STEPS,
                buffered=result.buffered[-1] if counter is not None else None,
            )
        )
        progress.report(k + 1)
    end = time.perf_counter()
    # A step lasts until the next one starts, so loop and bookkeeping overheads count too.
    bounds = [*starts, end]
    result.durations_ms = [(b - a) * 1000.0 for a, b in itertools.pairwise(bounds)]
    del iterator
    return result


# ---------------------------------------------------------------------------------------------
# Entry point


def environment(
    spec: Preset, *, params: Mapping[str, int], compute: str, compute_note: str, fill_ms: float | None = None
) -> dict[str, Any]:
    _, changed = _options(spec, params)
    env: dict[str, Any] = {
        "tensorflow_version": tf.__version__,
        "device": _gpu_name(GPUS[0]) if GPUS else "CPU",
        "cpu_count": _cpu_count(),
        "compute": compute,
        "compute_note": compute_note,
        "input_note": _input_note(spec, params),
        "tf_data_options": changed,
        "tf_data_defaults_note": _defaults_note(spec, params),
        "warmup_steps": WARMUP_STEPS,
    }
    if fill_ms is not None:
        env["producer_fill_ms"] = round(fill_ms, 3)
    return env


def run_preset(
    preset: str,
    *,
    params: Mapping[str, Any],
    on_progress: ProgressFn | None = None,
    should_cancel: CancelFn | None = None,
) -> dict[str, Any]:
    """Run every variant of `preset` and return the result document."""
    spec = get_preset(preset)
    full = validate_params(preset, params=params)
    if spec.gpu_reason is not None and not GPUS:
        raise PresetUnavailable(
            f"The {preset} preset needs a GPU: {spec.gpu_reason}, and TensorFlow found no GPU on "
            "this worker (it lists no physical GPU device). Run it on a worker where it does."
        )
    compute, kind, note = _compute(full)
    options, _ = _options(spec, full)
    fill_ms = _fill_ms(full, options) if spec.large_batches else None
    variants: list[VariantResult] = []
    total = len(spec.variants)
    for index, variant in enumerate(spec.variants):
        progress = _Progress(on_progress, variant=variant.name, index=index, total=total, steps=full["steps"])
        progress.report(0)
        setup = build_variant(preset, variant=variant.name, params=full)
        if not setup.options_applied:
            setup.dataset = setup.dataset.with_options(options)
        measurement = _measure(
            setup, steps=full["steps"], compute=compute, progress=progress, should_cancel=should_cancel
        )
        variants.append(
            variant_result(spec, name=variant.name, params=full, measured=measurement, fill_ms=fill_ms)
        )
    return RunResult(
        preset=preset,
        params=full,
        environment=environment(spec, params=full, compute=kind, compute_note=note, fill_ms=fill_ms),
        variants=variants,
        reading=reading(spec, params=full, variants=variants, fill_ms=fill_ms),
    ).to_doc()
