"""The TensorFlow defaults the cards' version notes rely on, checked on the installed TensorFlow.

Each default in app/content/tf_defaults.py is checked twice where it can be: its documented
default (the option left unset, its docstring's "If None, defaults to True"), and the rewrite it
causes, observed with `assert_next` (or `assert_prev`, for a rewrite that only sets an attribute)
on a real pipeline, then gone once the option is off. When a release changes one, the failure names
every note that went stale.
"""

import os
from collections.abc import Callable
from typing import Any

import pytest

from app import PROJECT_ROOT
from app.content.tf_defaults import TF_DEFAULTS
from tests.factories import DECK

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf
from tensorflow.python.data.experimental.ops import testing

pytestmark = pytest.mark.engine_agnostic

CARDS = DECK.values()
OPTIMIZATION = "tf.data.Options.experimental_optimization."


def stale_notes(name: str) -> str:
    notes = [f'{card.id}: "{note.quote}"' for card in CARDS for note in card.notes if name in note.relies_on]
    return f"TensorFlow {tf.__version__} changed {name}; these notes rely on it: " + "; ".join(notes)


def double(x: Any) -> Any:
    return x * 2


# The rewrite each tf.data default causes: a pipeline over a source, holding the assertion that fails
# on iteration unless TensorFlow has rewritten it so.
Build = Callable[[Any], Any]


def followed_by(expected: list[str], build: Build) -> Build:
    """`build` over a source that asserts the transformations following it once optimised."""
    return lambda source: build(source.apply(testing.assert_next(expected)))


REWRITES: dict[str, Build] = {
    OPTIMIZATION + "inject_prefetch": followed_by(["Batch", "Prefetch"], lambda ds: ds.batch(4)),
    OPTIMIZATION + "map_and_batch_fusion": followed_by(["MapAndBatch"], lambda ds: ds.map(double).batch(4)),
    OPTIMIZATION + "map_parallelization": followed_by(["ParallelMap"], lambda ds: ds.map(double)),
    # The rewrite keeps the batch and only sets its `parallel_copy` attribute.
    OPTIMIZATION + "parallel_batch": lambda ds: ds.batch(4).apply(
        testing.assert_prev([("BatchDatasetV2", {"parallel_copy": True})])
    ),
    # Without autotuning there is nothing to inject: inject_prefetch needs it.
    "tf.data.Options.autotune.enabled": followed_by(["Batch", "Prefetch"], lambda ds: ds.batch(4)),
}


def rewritten(build: Build, options: Any | None = None) -> bool:
    dataset = build(tf.data.Dataset.range(16))
    if options is not None:
        dataset = dataset.with_options(options)
    try:
        list(dataset)
    except tf.errors.InvalidArgumentError:
        return False
    return True


def option_owner(options: Any, name: str) -> tuple[Any, str]:
    """The options object holding `name` ("tf.data.Options.a.b") and its last attribute."""
    *path, last = name.removeprefix("tf.data.Options.").split(".")
    for part in path:
        options = getattr(options, part)
    return options, last


@pytest.mark.parametrize("name", [name for name in TF_DEFAULTS if name.startswith("tf.data.Options.")])
def test_a_tf_data_default_a_note_relies_on_is_on(name: str) -> None:
    owner, attribute = option_owner(tf.data.Options(), name)
    assert getattr(owner, attribute) is None, stale_notes(name)  # left to TensorFlow
    assert "If None, defaults to True" in getattr(type(owner), attribute).__doc__, stale_notes(name)
    assert rewritten(REWRITES[name]), stale_notes(name)
    off = tf.data.Options()
    owner, attribute = option_owner(off, name)
    setattr(owner, attribute, False)
    assert not rewritten(REWRITES[name], off), f"{name} off still rewrites: the check proves nothing"


def test_map_parallelization_leaves_a_stateful_map_sequential() -> None:
    """The notes on map_parallelization say a map with random ops is not parallelised for you."""
    name = OPTIMIZATION + "map_parallelization"

    def noisy(x: Any) -> Any:
        return tf.cast(x, tf.float32) + tf.random.uniform([])

    assert not rewritten(followed_by(["ParallelMap"], lambda ds: ds.map(noisy))), stale_notes(name)
    assert rewritten(followed_by(["Map"], lambda ds: ds.map(noisy))), stale_notes(name)


def test_distributed_input_is_fetched_to_the_device_by_default() -> None:
    name = "tf.distribute.InputOptions.experimental_fetch_to_device"
    assert tf.distribute.InputOptions().experimental_fetch_to_device is True, stale_notes(name)


def test_every_default_has_a_check() -> None:
    checked = set(REWRITES) | {"tf.distribute.InputOptions.experimental_fetch_to_device"}
    assert set(TF_DEFAULTS) == checked


def test_every_default_is_relied_on_by_a_note() -> None:
    """A default no note relies on is a check that guards nothing."""
    relied = {name for card in CARDS for note in card.notes for name in note.relies_on}
    assert relied == set(TF_DEFAULTS)


def test_the_checks_run_on_the_release_the_notes_name() -> None:
    checked = {note.checked for card in CARDS for note in card.notes}
    major_minor = ".".join(tf.__version__.split(".")[:2])
    assert checked == {f"TensorFlow {major_minor}"}, "a note checked against another release: recheck it"


def test_the_authoring_guide_lists_every_default() -> None:
    guide = (PROJECT_ROOT / "content" / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in guide for name in TF_DEFAULTS)


# Rewrites the deck names by their option's name: a card that does so must carry a note relying on
# the default, so that a release changing it names that card's note.
NAMED_REWRITES = (OPTIMIZATION + "map_parallelization", OPTIMIZATION + "parallel_batch")


def card_words(card: Any) -> str:
    entries = card.follow_ups + card.pitfalls + card.truths
    texts = [card.basics, card.solid, card.deep_dive, *card.go_deeper.values(), *card.points]
    texts += [part for entry in entries for part in (entry.title, entry.body)]
    return "\n".join(text.markdown for text in texts)


@pytest.mark.parametrize("name", NAMED_REWRITES)
def test_a_card_naming_a_rewrite_has_a_note_relying_on_it(name: str) -> None:
    option = name.rsplit(".", 1)[1]
    naming = {card.id for card in CARDS if option in card_words(card)}
    relying = {card.id for card in CARDS for note in card.notes if name in note.relies_on}
    assert naming, f"no card names {option}: the guard guards nothing"
    assert naming <= relying, f"these cards name {option} with no note relying on it: {naming - relying}"
