"""The TensorFlow defaults a card's version note may rely on, declared once.

A note names the ones it relies on (`Relies on:`); `content check` refuses a name not listed here,
and tests/content/test_tf_defaults.py checks every one on the installed TensorFlow, naming the
notes that went stale when a default changes. Nothing here imports TensorFlow.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class TfDefault:
    name: str
    # What the default does, in the words a failing check and content/README.md use.
    meaning: str


TF_DEFAULTS: dict[str, TfDefault] = {
    default.name: default
    for default in (
        TfDefault(
            "tf.data.Options.experimental_optimization.inject_prefetch",
            "on: a prefetch(AUTOTUNE) is appended after a pipeline's last transformation when that "
            "one is synchronous",
        ),
        TfDefault(
            "tf.data.Options.experimental_optimization.map_and_batch_fusion",
            "on: map followed by batch runs as one asynchronous MapAndBatch",
        ),
        TfDefault(
            "tf.data.Options.experimental_optimization.map_parallelization",
            "on: a stateless map runs as a parallel map",
        ),
        TfDefault(
            "tf.data.Options.experimental_optimization.parallel_batch",
            "on: a batch copies its elements into the batch in parallel",
        ),
        TfDefault(
            "tf.data.Options.autotune.enabled",
            "on: AUTOTUNE values are tuned while the pipeline runs",
        ),
        TfDefault(
            "tf.distribute.InputOptions.experimental_fetch_to_device",
            "on: distributed input is prefetched onto each replica's device",
        ),
    )
}
