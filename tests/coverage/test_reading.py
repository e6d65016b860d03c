"""The entailment model's reading of an answer, as a person meets it on the owner's card: it
should read what a sentence claims, not which words it shares with a point or a pitfall. The
examples a new user found that the model trained on ten cards still reads wrong are marked as
expected to fail (strictly: once a better model reads them right, the mark must go)."""

from collections.abc import Iterator

import pytest

from app.content.cards import Card
from app.coverage.checker import Coverage
from app.coverage.entailment import Entailment
from app.coverage.reading import answer, question
from tests.factories import DECK, OWNER_CARD, batching_card

pytestmark = [pytest.mark.engine_agnostic, pytest.mark.claims_model]

CARD = DECK[OWNER_CARD]
KEYS = CARD.point_ids
PITFALLS = [entry.key for entry in CARD.pitfalls]


@pytest.fixture(scope="module")
def model() -> Iterator[Entailment]:
    yield Entailment.load(threads=1)


def read(model: Entailment, card: Card, text: str, follow_up: int | None = None) -> Coverage:
    asked = question(card, follow_up=follow_up, text=text)
    probabilities = model.classify(asked.premises, asked.hypotheses).tolist()
    return answer(card, follow_up=follow_up, text=text, probabilities=probabilities)


def flagged(found: Coverage) -> list[str]:
    return [hit.id for hit in found.pitfalls]


@pytest.mark.xfail(strict=True, reason="the model trained on ten cards does not read this yet")
def test_saying_autotune_picks_the_buffer_size_is_not_the_pitfall_that_it_is_fixed(model: Entailment) -> None:
    fixed_size = PITFALLS[4]
    assert fixed_size not in flagged(read(model, CARD, "AUTOTUNE lets tf.data pick the buffer size."))
    assert fixed_size in flagged(read(model, CARD, "AUTOTUNE is just a fixed buffer size, set once."))


@pytest.mark.xfail(strict=True, reason="the model trained on ten cards does not read this yet")
def test_saying_prefetch_makes_the_pipeline_itself_faster_is_a_misconception_found(model: Entailment) -> None:
    found = read(model, CARD, "Prefetch makes the input pipeline itself faster.")
    assert found.pitfalls and found.covered == []


@pytest.mark.xfail(strict=True, reason="the model trained on ten cards does not read this yet")
def test_the_buffer_holding_batches_is_found_when_said_with_it_going_last(model: Entailment) -> None:
    said = (
        "It goes last, after batch, so the buffer holds whole batches and it overlaps every stage before it."
    )
    assert KEYS[2] in read(model, CARD, said).covered


def test_a_relation_said_backwards_covers_neither_point(model: Entailment) -> None:
    backwards = (
        "batch before repeat makes batches cross epoch boundaries, and repeat before batch gives a short "
        "final batch"
    )
    assert read(model, batching_card(), backwards).covered == []


@pytest.mark.xfail(
    strict=True,
    reason="the model reads the first point in this sentence at 0.67 entailment, under the 0.7 it confirms at",
)
def test_the_relations_said_the_right_way_round_cover_both_points(model: Entailment) -> None:
    card = batching_card()
    right = (
        "repeat before batch makes batches cross epoch boundaries, and batch before repeat gives a short "
        "final batch"
    )
    assert read(model, card, right).covered == list(card.point_ids)


@pytest.mark.xfail(strict=True, reason="the model trained on ten cards does not read this yet")
def test_fluent_keyword_salad_covers_nothing(model: Entailment) -> None:
    salad = (
        "Prefetch and AUTOTUNE are really about the buffer and the overlap with the accelerator; the "
        "background thread is what ties the consumer and the producer together in the pipeline."
    )
    assert read(model, CARD, salad).covered == []
