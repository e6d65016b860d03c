"""The checker against the hand labels, in CI: on the held-out cards (which its settings were not
tuned on) it must keep the figures it reached, less 0.05, and the figures the pages state beside
every suggestion (app/coverage/measured.py) must be the ones measured here."""

import json
from dataclasses import dataclass

import pytest

from app.coverage.checker import TUNED, check
from app.coverage.measured import MEASURED
from app.coverage.methods import names
from tests.coverage.split import HELD_OUT_CARDS, LABELLED
from tests.factories import DECK

pytestmark = pytest.mark.engine_agnostic

SLACK = 0.05
MAX_STUFFED = 0.10


@dataclass(frozen=True)
class Evaluation:
    answers: int
    precision: float
    recall: float
    pitfall_precision: float
    pitfall_recall: float
    stuffed: float  # share of keyword-stuffed answers marked as covering a point they name


def _ratio(hits: int, total: int) -> float:
    return hits / total if total else 0.0


@pytest.fixture(scope="module")
def held_out() -> Evaluation:
    hits = ticked = labelled = pitfall_hits = flagged = asserted = 0
    stuffed: list[bool] = []
    answers = 0
    for card_id in HELD_OUT_CARDS:
        card = DECK[card_id]
        for answer in json.loads((LABELLED / f"{card_id}.json").read_text(encoding="utf-8"))["answers"]:
            answers += 1
            found = check(card, answer["text"])
            covered, covers = set(found.covered), set(answer["covers"])
            hits, ticked, labelled = (
                hits + len(covered & covers),
                ticked + len(covered),
                labelled + len(covers),
            )
            said, asserts = {hit.id for hit in found.pitfalls}, set(answer["asserts"])
            pitfall_hits += len(said & asserts)
            flagged, asserted = flagged + len(said), asserted + len(asserts)
            if answer["style"] == "keyword-stuffed":
                named = [p.key for p in card.points if names(answer["text"], p.plain)]
                stuffed.append(bool(covered & set(named)))
    return Evaluation(
        answers,
        _ratio(hits, ticked),
        _ratio(hits, labelled),
        _ratio(pitfall_hits, flagged),
        _ratio(pitfall_hits, asserted),
        _ratio(sum(stuffed), len(stuffed)),
    )


def test_the_checker_keeps_its_held_out_precision_and_recall(held_out: Evaluation) -> None:
    assert held_out.precision >= MEASURED.precision - SLACK
    assert held_out.recall >= MEASURED.recall - SLACK
    assert held_out.pitfall_precision >= MEASURED.pitfall_precision - SLACK
    assert held_out.pitfall_recall >= MEASURED.pitfall_recall - SLACK


def test_keyword_stuffed_answers_are_rarely_taken_for_the_points_they_name(held_out: Evaluation) -> None:
    assert held_out.stuffed <= MAX_STUFFED


def test_the_figures_the_pages_state_are_the_ones_measured(held_out: Evaluation) -> None:
    assert MEASURED.answers == held_out.answers and MEASURED.cards == len(HELD_OUT_CARDS)
    stated = (MEASURED.precision, MEASURED.recall, MEASURED.pitfall_precision, MEASURED.pitfall_recall)
    measured = (held_out.precision, held_out.recall, held_out.pitfall_precision, held_out.pitfall_recall)
    assert stated == tuple(round(figure, 2) for figure in measured)


def test_the_shipped_settings_are_the_ones_tuned_on_the_tuning_cards() -> None:
    """Editing a tuning card or its labels moves the tuned settings; the checker must follow."""
    from bench import coverage_methods as bench

    tuning = bench.run(bench.LexicalMethod())["tuning"]
    setting = bench.tune_points(tuning, precise=False)
    variant = bench.VARIANTS[setting.variant]
    pitfall_variant, pitfall_threshold = bench.tune_pitfalls(tuning, setting.k)
    pitfall = bench.PITFALL_VARIANTS[pitfall_variant]
    assert variant.claims_only and variant.min_shared == 1, "the checker has no rule for this variant"
    tuned = (setting.k, round(setting.threshold, 3), variant.margin)
    assert tuned == (TUNED.expansion, TUNED.threshold, TUNED.margin)
    tuned_pitfalls = (round(pitfall_threshold, 3), pitfall.margin, pitfall.skip_denials)
    assert tuned_pitfalls == (TUNED.pitfall_threshold, TUNED.pitfall_margin, TUNED.skip_denials)
