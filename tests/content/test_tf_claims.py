"""Claims of the deck checked again on the installed TensorFlow and Keras: each is measured here,
and the figure measured must be what the card tells its reader (the card API at the deepest depth).

Claims that need a second process (what the C++ log prints, which thread pool runs a map) are
measured by bench/deck_recheck.py instead.
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from app.content.tiers import TIERS
from tests.factories import OWNER_CARD
from tests.helpers.cards import plain, quiz_results, reveal

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras
import tensorflow as tf
from tensorflow.python.distribute import input_ops
from tensorflow.tsl.profiler.protobuf import xplane_pb2

MAP_PARALLELIZATION = "tf.data.Options.experimental_optimization.map_parallelization"


def markdown_of(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "markdown":
                yield item
            else:
                yield from markdown_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from markdown_of(item)


def said(client: TestClient, card_id: str) -> str:
    """Every word the card shows at the principal depth, as written, its whitespace made one space."""
    response = client.get(f"/api/cards/{card_id}", params={"tier": "principal"})
    assert response.status_code == 200, response.text
    return " ".join(" ".join(markdown_of(response.json()["sections"])).split())


def failing_at(bad: int) -> Any:
    def check(x: Any) -> Any:
        with tf.control_dependencies([tf.debugging.assert_none_equal(x, tf.constant(bad, tf.int64))]):
            return tf.identity(x)

    return check


def batches_kept(bad: int, *, fusion: bool) -> list[list[int]]:
    """What `range(9).map(f).batch(3).ignore_errors()` yields when element `bad` fails."""
    dataset = tf.data.Dataset.range(9).map(failing_at(bad)).batch(3).ignore_errors()
    if not fusion:
        options = tf.data.Options()
        options.experimental_optimization.map_and_batch_fusion = False
        dataset = dataset.with_options(options)
    return [batch.tolist() for batch in dataset.as_numpy_iterator()]


def test_ignore_errors_after_batch_loses_the_good_elements_batched_before_the_failure(
    client: TestClient,
) -> None:
    unfused = batches_kept(4, fusion=False)
    kept = [element for batch in unfused for element in batch]
    assert 3 not in kept  # good, but already in the partial batch that failed
    first = batches_kept(3, fusion=False)
    assert [element for batch in first for element in batch] == [e for e in range(9) if e != 3]
    fused = batches_kept(4, fusion=True)
    assert not {3, 5} & {element for batch in fused for element in batch}
    card = said(client, "tf-data-bad-records")
    assert f"`{unfused}`" in card
    assert f"`{fused}`" in card
    assert "lost only the failing element" not in card


def compiled(steps_per_execution: Any) -> Any:
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", steps_per_execution=steps_per_execution)
    return model


def optimizer_steps(model: Any, steps_per_epoch: int) -> int:
    """The steps one epoch over repeated data runs, as the optimizer counted them."""
    data = tf.data.Dataset.from_tensors((tf.zeros((4, 2)), tf.zeros((4, 1)))).repeat()
    model.fit(data, epochs=1, steps_per_epoch=steps_per_epoch, shuffle=False, verbose=0)
    return int(model.optimizer.iterations.numpy())


def test_keras_runs_a_whole_execution_past_steps_per_epoch(client: TestClient) -> None:
    ran = optimizer_steps(compiled(32), steps_per_epoch=10)
    assert ran > 10
    card = said(client, "keras-steps-per-execution")
    assert (
        f"`steps_per_epoch=10` and `steps_per_execution=32`, one epoch of Keras 3.15 ran {ran} steps" in card
    )
    assert "truncated to the epoch's length" not in card
    assert f"{optimizer_steps(compiled(4), steps_per_epoch=10)} steps per epoch, not 10" in card


def test_keras_compile_takes_auto_and_fit_refuses_it(client: TestClient) -> None:
    model = compiled("auto")  # no complaint yet
    with pytest.raises(TypeError) as refused:
        optimizer_steps(model, steps_per_epoch=2)
    card = said(client, "keras-steps-per-execution")
    assert (
        f'`compile` accepts `steps_per_execution="auto"` without complaint, and `fit` raises a `TypeError` ("{refused.value}")'
        in card
    )
    assert 'raises a `TypeError` for `"auto"`' not in card


def traced_event_names(dataset: Any, logdir: Path) -> set[str]:
    iterator = iter(dataset)
    next(iterator)  # the pipeline is built and warm before the trace starts
    tf.profiler.experimental.start(str(logdir))
    try:
        for step in range(3):
            with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
                next(iterator)
    finally:
        tf.profiler.experimental.stop()
    names = set()
    for path in logdir.rglob("*.xplane.pb"):
        for plane in xplane_pb2.XSpace.FromString(path.read_bytes()).planes:
            names |= {metadata.name for metadata in plane.event_metadata.values()}
    return names


def test_the_trace_viewer_names_the_root_iterator_and_the_get_next_kernel(
    client: TestClient, tmp_path: Path
) -> None:
    names = traced_event_names(tf.data.Dataset.range(64).map(lambda x: x * 2).batch(4), tmp_path)
    iterators = sorted((name for name in names if name.startswith("Iterator::")), key=len)
    assert iterators, "the trace holds no tf.data events"
    outermost = iterators[0]
    assert all(name.startswith(outermost) for name in iterators)
    kernel = next(name for name in names if name.startswith("IteratorGetNext") and "::DoCompute" in name)
    card = said(client, "tf-profiler-input-bound")
    assert f"The outermost event is `{outermost}`" in card
    fused = f"{outermost}::MapAndBatch"
    assert fused in iterators
    assert f"`{fused}`" in card
    assert f"**`{kernel}`**" in card


def test_auto_sharding_an_in_memory_source_falls_back_to_data(client: TestClient) -> None:
    source = tf.data.Dataset.from_tensor_slices(list(range(8)))
    shard = input_ops.auto_shard_dataset(source, num_shards=2, index=1)
    assert [int(x) for x in shard] == list(range(1, 8, 2))  # every second element: DATA
    card = said(client, "tf-distribute-input-sharding")
    assert "falls back to DATA with a warning in the log" not in card
    assert "falls back to DATA without a word in the log" in card
    assert "the documentation puts it exactly so" not in card


def test_the_docs_say_distribute_datasets_from_function_does_not_batch_or_shard(client: TestClient) -> None:
    documented = tf.distribute.Strategy.distribute_datasets_from_function.__doc__
    assert documented is not None
    assert "does\n    not batch or shard" in documented
    assert "prefetch" not in documented.split("This method can be used")[0]
    assert "the documentation says it does not batch or shard" in said(client, "tf-distribute-input-sharding")


def test_the_deck_says_map_calls_run_on_a_private_pool_only_when_one_is_set(client: TestClient) -> None:
    documented = tf.data.ThreadingOptions.private_threadpool_size.__doc__
    assert documented is not None and "If set, the dataset will use a private threadpool" in documented
    card = said(client, "tf-data-parallel-map-interleave")
    assert "one private thread pool" not in card
    assert "a private pool only when `options.threading.private_threadpool_size` is set" in card


# The owner's sentences that say a map needs `num_parallel_calls` to run in parallel: the depths
# that show each one, and where: the revealed answer, the follow-ups, or the quiz's results.
MIDDLE_UP = ("middle", "senior", "principal")
NEEDS_PARALLEL_CALLS = {
    "You need `map(fn, num_parallel_calls=tf.data.AUTOTUNE)`": (("senior", "principal"), "answer"),
    "Parallel `map` requires `num_parallel_calls`": (MIDDLE_UP, "follow-ups"),
    "Parallel `map` needs `num_parallel_calls`": (TIERS, "quiz"),
    "`map(num_parallel_calls=tf.data.AUTOTUNE)` and parallel `interleave` are what add CPU workers": (
        MIDDLE_UP,
        "answer",
    ),
}


def is_note(tag: Tag) -> bool:
    return tag.name == "details" and "version-note" in (tag.get("class") or [])


def claim_beside(note: Tag) -> str:
    """The words of the block a callout stands beside: the list item it sits in, or else the block
    before it, past any other callouts stacked after that block."""
    holder = note.parent
    assert holder is not None
    if holder.name == "li":
        words = [part.get_text(" ") if isinstance(part, Tag) else str(part) for part in holder.children]
        kept = [
            text
            for part, text in zip(holder.children, words, strict=True)
            if not (isinstance(part, Tag) and is_note(part))
        ]
    else:
        block = note.find_previous_sibling(lambda tag: not is_note(tag))
        assert block is not None
        kept = [block.get_text(" ")]
    return " ".join(" ".join(kept).split()).replace(" ,", ",")


@pytest.mark.parametrize("tier", TIERS)
def test_the_owner_card_notes_map_parallelization_beside_each_needs_parallel_calls_sentence(
    client: TestClient, tier: str
) -> None:
    card = client.get(f"/api/cards/{OWNER_CARD}", params={"tier": tier}).json()
    notes = {note["quote"]: note for note in card["sections"]["version_notes"]}
    page = client.get(f"/cards/{OWNER_CARD}", params={"tier": tier})
    views = {
        "answer": reveal(client, tier),
        "follow-ups": BeautifulSoup(page.text, "html.parser"),
        "quiz": quiz_results(client, tier),
    }
    for quote, (tiers, view) in NEEDS_PARALLEL_CALLS.items():
        if tier not in tiers:
            assert quote not in notes
            continue
        assert MAP_PARALLELIZATION in notes[quote]["relies_on"]
        callouts = views[view].select("details.version-note")
        callout = next(note for note in callouts if plain(quote) in note.select_one("q").get_text())
        assert plain(quote) in claim_beside(callout)
        assert "ParallelMap" in callout.get_text(" ")
