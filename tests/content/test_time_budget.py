"""A card's answer time budget: the seconds its timings give the answer length a depth asks for."""

from pathlib import Path

import pytest

from app.content.parser import parse_card
from app.content.tiers import TIERS, default_answer_kind
from tests.factories import card_text, write_card

pytestmark = pytest.mark.engine_agnostic

TIMINGS = {"  basics: 20\n  solid: 50": "  basics: 15\n  solid: 70"}


@pytest.mark.parametrize("tier", TIERS)
def test_each_depth_is_given_the_timing_of_the_answer_it_asks_for(tmp_path: Path, tier: str) -> None:
    card = parse_card(write_card(tmp_path, "sample-card.md", card_text(**TIMINGS)))
    kind = default_answer_kind(tier)
    assert card.time_budget(kind) == {"basics": card.timings.basics, "solid": card.timings.solid}[kind]


def test_the_two_answer_lengths_have_budgets_of_their_own(tmp_path: Path) -> None:
    card = parse_card(write_card(tmp_path, "sample-card.md", card_text(**TIMINGS)))
    assert (card.time_budget("basics"), card.time_budget("solid")) == (
        card.timings.basics,
        card.timings.solid,
    )
    assert card.time_budget("basics") != card.time_budget("solid")
