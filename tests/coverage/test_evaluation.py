"""Each coverage method against the hand labels, in CI: on the held-out cards (which its settings
were not tuned on) and on the blind ones (written by someone who never saw a method), it must keep
the figures it reached, less 0.05; the figures the pages state beside every suggestion
(app/coverage/measured.py) must be the ones measured here; and its settings must be the ones the
tuning part gives."""

from dataclasses import fields
from typing import Any

import pytest

from app.coverage.checker import TUNED
from app.coverage.measured import METHODS, Figures
from bench import coverage_claims as bench
from tests.coverage.evaluation import PARTS, Counts, evaluate
from tests.coverage.split import BLIND_CARDS, HELD_OUT_CARDS

pytestmark = pytest.mark.engine_agnostic

SLACK = 0.05
REPORTED = ("held-out", "blind")
CARDS = {"held-out": len(HELD_OUT_CARDS), "blind": len(BLIND_CARDS)}


def _figures(counts: Counts, part: str) -> Figures:
    return Figures(
        answers=counts.answers,
        cards=CARDS[part],
        precision=round(counts.precision, 2),
        recall=round(counts.recall, 2),
        pitfall_precision=round(counts.pitfall_precision, 2),
        pitfall_recall=round(counts.pitfall_recall, 2),
        salad=round(counts.salad, 2),
        contradicted=round(counts.contradicted, 2),
    )


def _measured(check: bench.Check) -> dict[str, Figures]:
    return {part: _figures(evaluate(bench.method(check), PARTS[part]()), part) for part in REPORTED}


def _stated(name: str) -> dict[str, Figures]:
    stated = METHODS[name].measured
    held_out = Figures(**{field.name: getattr(stated, field.name) for field in fields(Figures)})
    return {"held-out": held_out, "blind": stated.blind}


def _keeps(measured: Figures, stated: Figures) -> list[str]:
    """What dropped more than SLACK below the stated figures (or rose above, for the ticks that
    should not be there)."""
    worse = [
        name
        for name in ("precision", "recall", "pitfall_precision", "pitfall_recall")
        if getattr(measured, name) < getattr(stated, name) - SLACK
    ]
    return worse + [
        name for name in ("salad", "contradicted") if getattr(measured, name) > getattr(stated, name) + SLACK
    ]


@pytest.fixture(scope="module")
def lexical() -> dict[str, Figures]:
    return _measured(bench.lexical(cues=True))


@pytest.fixture(scope="module")
def claims() -> Any:
    return bench.Claims()


@pytest.fixture(scope="module")
def claims_figures(claims: Any) -> dict[str, Figures]:
    from app.coverage.reading import TUNED as THRESHOLDS

    return _measured(claims.check(THRESHOLDS))


def test_the_lexical_checker_keeps_its_figures_and_the_pages_state_them(lexical: dict[str, Figures]) -> None:
    for part, stated in _stated("lexical").items():
        assert _keeps(lexical[part], stated) == [], part
    assert lexical == _stated("lexical")


@pytest.mark.claims_model
def test_the_entailment_model_keeps_its_figures_and_the_pages_state_them(
    claims_figures: dict[str, Figures],
) -> None:
    for part, stated in _stated("claims").items():
        assert _keeps(claims_figures[part], stated) == [], part
    assert claims_figures == _stated("claims")


@pytest.mark.claims_model
def test_the_models_thresholds_are_the_ones_tuned_on_the_tuning_part(claims: Any) -> None:
    from app.coverage.reading import TUNED as THRESHOLDS

    assert bench.tune(claims) == THRESHOLDS


def test_the_lexical_settings_are_the_ones_tuned_on_the_tuning_cards() -> None:
    """Editing a tuning card or its labels moves the tuned settings; the checker must follow."""
    from bench import coverage_methods as methods

    tuning = methods.run(methods.LexicalMethod())["tuning"]
    setting = methods.tune_points(tuning, precise=False)
    variant = methods.VARIANTS[setting.variant]
    pitfall_variant, pitfall_threshold = methods.tune_pitfalls(tuning, setting.k)
    pitfall = methods.PITFALL_VARIANTS[pitfall_variant]
    assert variant.claims_only and variant.min_shared == 1, "the checker has no rule for this variant"
    tuned = (setting.k, round(setting.threshold, 3), variant.margin)
    assert tuned == (TUNED.expansion, TUNED.threshold, TUNED.margin)
    tuned_pitfalls = (round(pitfall_threshold, 3), pitfall.margin, pitfall.skip_denials)
    assert tuned_pitfalls == (TUNED.pitfall_threshold, TUNED.pitfall_margin, TUNED.skip_denials)
