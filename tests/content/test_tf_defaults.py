"""The TensorFlow defaults the cards' version notes rely on, checked on the installed TensorFlow.

Each default in app/content/tf_defaults.py is checked twice where it can be: its documented
default (the option left unset, its docstring's "If None, defaults to True"), and the rewrite it
causes, observed with `assert_next` on a real pipeline, then gone once the option is off. When a
release changes one, the failure names every note that went stale.
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

CARDS = DECK.values()
OPTIMIZATION = "tf.data.Options.experimental_optimization."


def stale_notes(name: str) -> str:
    notes = [f'{card.id}: "{note.quote}"' for card in CARDS for note in card.notes if name in note.relies_on]
    return f"TensorFlow {tf.__version__} changed {name}; these notes rely on it: " + "; ".join(notes)


def double(x: Any) -> Any:
    return x * 2


# The rewrite each tf.data default causes: a pipeline, and the transformations that must follow
# its source once TensorFlow has optimised it.
Build = Callable[[Any], Any]
REWRITES: dict[str, tuple[Build, list[str]]] = {
    OPTIMIZATION + "inject_prefetch": (lambda ds: ds.batch(4), ["Batch", "Prefetch"]),
    OPTIMIZATION + "map_and_batch_fusion": (lambda ds: ds.map(double).batch(4), ["MapAndBatch"]),
    OPTIMIZATION + "map_parallelization": (lambda ds: ds.map(double), ["ParallelMap"]),
    # Without autotuning there is nothing to inject: inject_prefetch needs it.
    "tf.data.Options.autotune.enabled": (lambda ds: ds.batch(4), ["Batch", "Prefetch"]),
}


def rewritten(build: Build, expected: list[str], options: Any | None = None) -> bool:
    dataset = build(tf.data.Dataset.range(16).apply(testing.assert_next(expected)))
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
    build, expected = REWRITES[name]
    assert rewritten(build, expected), stale_notes(name)
    off = tf.data.Options()
    owner, attribute = option_owner(off, name)
    setattr(owner, attribute, False)
    assert not rewritten(build, expected, off), (
        f"{name} off still rewrites {expected}: the check proves nothing"
    )


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
