"""The model-free parts of checking which points an answer covers: how an answer is cut into the
sentences that are scored, which sentences only name terms or deny what they say, and the lexical
score of a sentence against a point of the card."""

import pytest

from app.coverage.methods import Lexical, card_sentences, claims_nothing, denies, names, sentences
from tests.factories import DECK, OWNER_CARD

pytestmark = pytest.mark.engine_agnostic

CARD = DECK[OWNER_CARD]


def test_a_punctuated_answer_is_scored_sentence_by_sentence() -> None:
    answer = "Prefetch overlaps the two stages. It runs on one `background` thread! Put it last?"
    assert sentences(answer) == [
        "Prefetch overlaps the two stages.",
        "It runs on one background thread!",
        "Put it last?",
    ]


def test_a_transcript_without_marks_is_scored_in_overlapping_windows_of_its_words() -> None:
    said = [f"w{n}" for n in range(40)]
    windows = sentences(" ".join(said))
    assert len(windows) > 1 and all(len(window.split()) <= 12 for window in windows)
    # Every word is in a window, and a claim across a window's edge is whole in the next one.
    assert {word for window in windows for word in window.split()} == set(said)
    assert any({"w10", "w11", "w12", "w13"} <= set(window.split()) for window in windows)


def test_labels_and_runs_of_terms_claim_nothing_but_a_claim_listing_examples_does() -> None:
    assert claims_nothing("reshuffle_each_iteration and seed:")
    assert claims_nothing("Prefetch, AUTOTUNE, buffer, background thread, overlap, variance")
    assert claims_nothing("Deterministic, decode, epoch 2")
    assert not claims_nothing(
        "The fixed cost of a call, the Python loop, dispatch, callbacks, is paid once per N steps."
    )
    assert not claims_nothing("prefetch overlaps producing the next batch with training on this one")


def test_a_sentence_that_denies_what_it_names_is_told_apart_written_or_spoken() -> None:
    assert denies("Prefetch does not add a worker pool.")
    assert denies("um prefetch doesnt add a worker pool")
    assert denies("It isn't a worker pool.")
    assert not denies("Prefetch adds one background thread.")


def test_an_answer_names_a_point_by_a_distinctive_word_of_it() -> None:
    point = "a background thread, not a worker pool"
    assert names("threads in the background", point)
    assert not names("it runs ahead of the model on its own", point)


def test_the_cards_sentences_include_its_answers_and_points() -> None:
    found = card_sentences(CARD)
    assert CARD.points[0].plain in found
    assert any(sentence in CARD.basics.plain for sentence in found)


def test_a_sentence_scores_highest_on_the_point_it_restates_and_nothing_on_unrelated_words() -> None:
    lexical = Lexical(CARD)
    points = [point.plain for point in CARD.points]
    restating = "It is one background thread filling the buffer, not a pool of workers."
    scores = lexical.similarity([restating, "My cat sleeps on the sofa."], points)
    assert max(range(len(points)), key=lambda i: scores[0][i]) == 3
    assert scores[1] == [0.0] * len(points)
    assert lexical.similarity([points[3]], [points[3]])[0][0] > 0.99


def test_a_word_rare_in_the_card_weighs_more_than_one_every_sentence_uses() -> None:
    lexical = Lexical(CARD)
    rare, common = "worker", "prefetch"
    assert lexical.weight(rare) > lexical.weight(common)
    # A word the card never uses weighs at least as much as its rarest word.
    assert lexical.weight("xylophone") >= lexical.weight(rare)
