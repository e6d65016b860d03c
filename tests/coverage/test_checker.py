"""The checker as a person meets it: which points an answer covers, which pitfalls it asserts, and
the stretch of the answer, as written, that shows each."""

from dataclasses import replace

import pytest

from app.content.cards import Card, Point, Text
from app.coverage.checker import check, check_follow_up, follow_up_targets, uncovered_by_model_answer
from tests.factories import DECK, OWNER_CARD, batching_card

pytestmark = pytest.mark.engine_agnostic

CARD = DECK[OWNER_CARD]
KEYS = CARD.point_ids


def test_an_answer_covers_the_points_it_claims_with_the_sentence_that_says_each() -> None:
    answer = (
        "Prefetch overlaps producing the next batch with consuming this one on the accelerator.\n"
        "It is one background thread filling a buffer, not a pool of workers."
    )
    found = check(CARD, answer)
    assert [hit.id for hit in found.points] == list(KEYS)
    assert {KEYS[0], KEYS[3]} <= set(found.covered) and not {KEYS[1], KEYS[2]} & set(found.covered)
    by_id = {hit.id: hit for hit in found.points}
    first, fourth = by_id[KEYS[0]].evidence, by_id[KEYS[3]].evidence
    assert first is not None and fourth is not None
    assert answer[first.start : first.end].startswith("Prefetch overlaps")
    assert (
        answer[fourth.start : fourth.end]
        == "It is one background thread filling a buffer, not a pool of workers."
    )


def test_the_evidence_is_the_answer_as_written_backticks_and_line_breaks_included() -> None:
    answer = "Put `prefetch` last, after `batch`,\nso the buffer holds whole batches when it is last."
    hit = {hit.id: hit for hit in check(CARD, answer).points}[KEYS[2]]
    assert hit.covered and hit.evidence is not None
    assert "`" not in hit.evidence.text
    assert answer[hit.evidence.start : hit.evidence.end] in answer and hit.evidence.end <= len(answer)


def test_a_sentence_stating_a_pitfall_is_listed_with_that_sentence() -> None:
    answer = "Prefetch overlaps the stages. Prefetch parallelizes map and the file reads across threads."
    found = check(CARD, answer)
    assert [hit.id for hit in found.pitfalls] == [CARD.pitfalls[0].key]
    evidence = found.pitfalls[0].evidence
    assert (
        answer[evidence.start : evidence.end]
        == "Prefetch parallelizes map and the file reads across threads."
    )


def test_naming_the_terms_covers_nothing_and_an_empty_answer_nothing_at_all() -> None:
    assert check(CARD, "Prefetch, background thread, worker pool, buffer, overlap, variance").covered == []
    empty = check(CARD, "   ")
    assert empty.covered == [] and empty.pitfalls == () and len(empty.points) == len(KEYS)


def test_an_authors_phrasing_lets_the_checker_recognise_a_point_said_in_other_words() -> None:
    said = "The loader runs ahead of the model on its own."
    assert KEYS[3] not in check(CARD, said).covered
    helped = replace(
        CARD,
        points=tuple(
            Point(p.markdown, inline=True, phrasings=("the loader runs ahead of the model on its own",))
            if i == 3
            else p
            for i, p in enumerate(CARD.points)
        ),
    )
    assert helped.point_ids == KEYS
    assert KEYS[3] in check(helped, said).covered


def test_a_follow_up_answer_is_checked_against_the_sentences_of_its_own_answer() -> None:
    index = next(i for i, f in enumerate(CARD.follow_ups) if "multiple threads" in f.title.plain)
    targets = follow_up_targets(CARD, index)
    found = check_follow_up(
        CARD,
        index=index,
        text="No: prefetch adds one background producer.",
    )
    assert [hit.id for hit in found.points] == [target.id for target in targets]
    covered = [target.references[0] for target in targets if target.id in found.covered]
    assert [sentence for sentence in covered if "background producer" in sentence] == covered
    assert len(covered) == 1 < len(targets)


def test_a_model_answer_that_says_none_of_its_points_covers_none() -> None:
    assert uncovered_by_model_answer(DECK["tf-data-shuffle-buffer"]) == []
    bare = replace(
        CARD, basics=replace(CARD.basics, markdown="Use it."), solid=replace(CARD.solid, markdown="Yes.")
    )
    assert uncovered_by_model_answer(bare) == list(range(len(KEYS)))


def test_a_follow_ups_points_are_its_answers_sentences_whole_however_long() -> None:
    card = DECK["tf-data-cache-placement"]
    body = card.follow_ups[0].body.plain
    said = [target.references[0] for target in follow_up_targets(card, 0)]
    assert any(len(sentence.split()) > 24 for sentence in said)  # a long one is not cut into windows
    assert all(sentence.rstrip().endswith((".", "?", "!")) for sentence in said)
    assert " ".join(said).replace(" ", "") == " ".join(body.replace("`", "").split()).replace(" ", "")


def test_no_follow_up_of_the_deck_has_a_lead_in_or_a_label_for_a_point() -> None:
    """A follow-up's points are the claims of its answer: what leads in with a colon, or a bare
    "No." before the reason, belongs with what follows it, never stands as a point of its own."""
    lone = [
        (card.id, index, claim)
        for card in DECK.values()
        for index in range(len(card.follow_ups))
        for claim in (target.references[0] for target in follow_up_targets(card, index))
        if claim.endswith((":", ";")) or len(claim.split()) <= 3
    ]
    assert lone == []


def with_follow_up(markdown: str) -> Card:
    first = CARD.follow_ups[0]
    return replace(CARD, follow_ups=(replace(first, body=Text(markdown)), *CARD.follow_ups[1:]))


@pytest.mark.parametrize(
    ("markdown", "claims"),
    [
        (
            "Add parallelism where the time is spent: a parallel `map`, and interleaved reads.",
            ["Add parallelism where the time is spent: a parallel map, and interleaved reads."],
        ),
        (
            "No. There is one worker; the batches are only split.\n\nIt matters with several workers.",
            ["No. There is one worker; the batches are only split.", "It matters with several workers."],
        ),
        (
            "Add parallelism where the time is spent:\n\n- a parallel `map` for decoding;\n"
            "- interleaved reads for the files.",
            [
                "Add parallelism where the time is spent: a parallel map for decoding;",
                "Add parallelism where the time is spent: interleaved reads for the files.",
            ],
        ),
        (
            "Two causes:\n\n1. The data is sorted on disk.\n2. The buffer spans a few runs.\n\nCheck both.",
            ["The data is sorted on disk.", "The buffer spans a few runs. Check both."],
        ),
    ],
)
def test_a_follow_ups_answer_is_split_into_claims(markdown: str, claims: list[str]) -> None:
    """At sentence ends: a lead-in ending in a colon joins what follows it, each list item's own
    (one that only labels the list is left out), and a bare word joins its neighbour."""
    card = with_follow_up(markdown)
    assert [target.references[0] for target in follow_up_targets(card, 0)] == claims


def test_the_evidence_is_the_whole_sentence_unless_it_runs_on_past_what_a_reader_takes_in() -> None:
    sentence = (
        "Prefetch overlaps producing the next batch with the training step consuming this one, so a step "
        "costs the max of input and compute rather than their sum."
    )
    assert 2 * 12 < len(sentence.split()) <= 40  # scored in windows, shown whole
    hit = {h.id: h for h in check(CARD, sentence).points}[KEYS[0]]
    assert hit.covered and hit.evidence is not None
    assert sentence[hit.evidence.start : hit.evidence.end] == sentence
    said = (
        "um so "
        + " ".join(["and then the model trains"] * 10)
        + " and prefetch overlaps producing with consuming"
    )
    hit = {h.id: h for h in check(CARD, said).points}[KEYS[0]]
    assert hit.covered and hit.evidence is not None
    # No mark and no word that starts a thought: the window the claim was found in.
    assert said[hit.evidence.start : hit.evidence.end].endswith(
        "and prefetch overlaps producing with consuming"
    )
    assert len(said[hit.evidence.start : hit.evidence.end].split()) <= 12


def test_in_speech_without_marks_the_evidence_is_the_clause_around_the_claim_never_cut_mid_word() -> None:
    said = (
        "um so the pipeline reads files and decodes them and then it batches them so prefetch overlaps "
        "producing the next batch with the model consuming this one and that hides the input time but "
        "you know a bigger buffer wont fix a slow pipeline"
    )
    hit = {h.id: h for h in check(CARD, said).points}[KEYS[0]]
    assert hit.covered and hit.evidence is not None
    shown = said[hit.evidence.start : hit.evidence.end]
    assert shown.startswith("so prefetch overlaps producing the next batch with the model consuming this one")
    assert shown.endswith("input time") and " but " not in shown


def test_a_relation_said_backwards_covers_neither_point_and_said_right_covers_both() -> None:
    card = batching_card()
    backwards = (
        "batch before repeat makes batches cross epoch boundaries, and repeat before batch gives a short "
        "final batch"
    )
    assert check(card, backwards).covered == []
    right = (
        "repeat before batch makes batches cross epoch boundaries, and batch before repeat gives a short "
        "final batch"
    )
    assert check(card, right).covered == list(card.point_ids)


def test_a_point_denied_in_its_own_words_is_not_covered() -> None:
    said = "Prefetch does not overlap producing with consuming."
    assert KEYS[0] not in check(CARD, said).covered
    assert KEYS[0] in check(CARD, "Prefetch overlaps producing with consuming.").covered


def test_a_sentence_rejecting_a_pitfall_does_not_assert_it() -> None:
    rejected = "It is a myth that prefetch parallelizes map and file reads."
    assert check(CARD, rejected).pitfalls == ()
    assert [hit.id for hit in check(CARD, "Prefetch parallelizes map and file reads.").pitfalls] == [
        CARD.pitfalls[0].key
    ]
