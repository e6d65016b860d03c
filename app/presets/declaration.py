"""What a demo preset declares: its parameters, its variants with their pipelines, its model and
its reading, in one `Preset`.

Declaring a preset never imports TensorFlow: the web process reads the same declarations to
validate parameters, draw the form and show the model. A variant's pipeline is built only in the
process that runs it, by app/demos/pipelines.py, which hands the builder TensorFlow in a `Kit`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from app.presets.results import VariantResult

Params = Mapping[str, int]


class Kit(Protocol):
    """What a variant's builder gets from app/demos/pipelines.py, the one module with TensorFlow."""

    tf: Any  # the tensorflow module
    device: str  # where prefetch_to_device stages batches

    def indices(self, count: int | None = None) -> Any:
        """`Dataset.range` of example indices: `count` of them (one epoch), or endless."""

    def load(self, indices: Any) -> Any:
        """The map function that reads examples, for `ds.map(kit.load)`: each call sleeps call_ms
        (where the preset has it), plus each example's share of its batch's input cost. Given a
        batch of indices it is one call for all of them."""

    def examples(self, parallel: int | None = None) -> Any:
        """`indices().map(load)`: endless examples.

        `parallel` is the map's num_parallel_calls (None: one call at a time)."""

    def large_batches(self) -> Any:
        """One whole batch of batch_mb per element; the run counts how many sit in the buffer."""

    def large_examples(self) -> Any:
        """`examples()` whose every element is example_kb of filled host memory; the run counts
        how many the pipeline holds."""

    def with_options(self, dataset: Any) -> Any:
        """The run's tf.data options applied here, for a builder whose last step must follow them
        (otherwise the run applies them to the dataset the builder returns)."""

    def with_tensorflow_defaults(self, dataset: Any) -> Any:
        """`dataset` left with TensorFlow's default tf.data options (its rewrites on), where the
        run would otherwise apply its own, which turn them off."""

    def after_epoch(self, dataset: Any) -> Any:
        """`dataset` with the run's options, read once to its end before the timed steps: for a
        variant that measures a later epoch (what a cache recorded during the first)."""


# Builds a variant's tf.data.Dataset with the kit; the step loop iterates what it returns.
Builder = Callable[[Kit, Params], Any]


@dataclass(frozen=True)
class ParamSpec:
    name: str
    label: str  # what forms, run pages and history call it
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
    build: Builder

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "label": self.label, "code": self.code}


@dataclass(frozen=True, kw_only=True)
class Preset:
    name: str
    title: str
    description: str
    # The model in words, shown beside every result.
    model: str
    params: tuple[ParamSpec, ...]
    variants: tuple[VariantSpec, ...]
    # The model in numbers: a variant's step in ms, given every parameter.
    step_model: Callable[[str, Params], float]
    # The preset's own sentence, which opens the reading: (parameters, result variants by name).
    reading: Callable[[Params, Mapping[str, VariantResult]], str]
    # Which statistic the model predicts: the median step, or the mean step where the input is
    # bursty on purpose (a median of a two-speed pipeline says little about throughput).
    model_basis: str = "median"
    # Why it cannot run without a GPU, for the refusal; None: it runs anywhere.
    gpu_reason: str | None = None
    # The producer makes whole batch_mb batches rather than examples: the input note says so, and
    # the run measures the real cost of filling one, which the model leaves out.
    large_batches: bool = False
    # A parameter that sizes tf.data's private thread pool: map calls that wait on I/O would
    # otherwise be capped at the CPU count.
    thread_pool_param: str | None = None
    # Added to the note on TensorFlow's default rewrites, where this preset's pipelines differ.
    tf_data_note: str = ""
    # The model takes prefetch(AUTOTUNE) for an unbounded buffer; when it misses, the reading
    # explains the autotuner.
    autotune_unbounded: bool = False
    # The producer makes examples of example_kb each rather than of a few bytes: the input note
    # says so, and the run counts how many the pipeline holds.
    large_examples: bool = False
    # For presets that report what a buffer holds in host memory: each variant's buffer in the
    # producer's elements, batches or examples (None: AUTOTUNE, no fixed cap). The memory preset's
    # reading replays the queue model with it.
    buffer_of: Callable[[str, Params], int | None] | None = None
    # For presets that measure the wait for the first batch (a shuffle buffer fills before anything
    # comes out): that wait by the model. Results carry it measured beside the model; the estimate
    # adds it.
    first_batch_model: Callable[[str, Params], float] | None = None
    # Time a variant's builder spends before its timed steps, by the model (an epoch read to fill a
    # cache), for the estimate.
    prepare_model: Callable[[str, Params], float] | None = None

    @property
    def needs_gpu(self) -> bool:
        return self.gpu_reason is not None

    @property
    def variant_names(self) -> list[str]:
        return [v.name for v in self.variants]

    def variant(self, name: str) -> VariantSpec:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"{self.name} has no variant {name!r}")

    def param_label(self, name: str) -> str:
        """A parameter's label, or its name if this preset does not declare it."""
        return next((p.label for p in self.params if p.name == name), name)

    def defaults(self) -> dict[str, int]:
        return {p.name: p.default for p in self.params}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description for forms and the API."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "variants": [v.to_dict() for v in self.variants],
            "params": [asdict(p) for p in self.params],
            "model": self.model,
            "needs_gpu": self.needs_gpu,
            "model_basis": self.model_basis,
        }
