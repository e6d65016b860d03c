"""The word error rate the speech benchmarks and tests measure against."""

import pytest

from app.speech.accuracy import spoken_words, word_error_rate

pytestmark = pytest.mark.engine_agnostic


def test_words_are_compared_without_case_or_punctuation() -> None:
    assert spoken_words("Prefetch `tf.data.AUTOTUNE`, num_parallel_calls!") == [
        "prefetch",
        "tf",
        "data",
        "autotune",
        "num",
        "parallel",
        "calls",
    ]
    assert word_error_rate("Use tf.data, then prefetch.", "use TF data then Prefetch") == 0.0


@pytest.mark.parametrize(
    ("heard", "errors"),
    [
        ("the buffer holds batches", 0),
        ("the muffer holds batches", 1),  # a substitution
        ("the buffer batches", 1),  # a deletion
        ("the buffer it holds batches", 1),  # an insertion
        ("a muffer holds", 3),
    ],
)
def test_each_substitution_deletion_and_insertion_is_one_error(heard: str, errors: int) -> None:
    said = "the buffer holds batches"
    assert word_error_rate(said, heard) == pytest.approx(errors / len(said.split()))


def test_nothing_said_and_nothing_heard_is_no_error() -> None:
    assert word_error_rate("", "") == 0.0
    assert word_error_rate("", "hello") == 1.0
    assert word_error_rate("prefetch goes last", "") == 1.0
