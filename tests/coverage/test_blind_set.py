"""The blind labelled set stays valid as cards change, and apart from everything a method may be
tuned on: its cards are in no other part of the labelled set."""

import json
import re
from collections import Counter
from typing import Any

import pytest

from tests.coverage.split import BLIND, BLIND_CARDS, HELD_OUT_CARDS, LABELLED, TUNING_CARDS
from tests.factories import DECK

pytestmark = pytest.mark.engine_agnostic

TIERS = ("junior", "middle", "senior", "principal")
STYLES = (
    "complete",
    "partial",
    "paraphrase",
    "keyword-salad",
    "negation",
    "reversed",
    "pitfall-echo",
    "misconception",
    "follow-up",
    "transcript",
)
FIELDS = {"id", "tier", "style", "text", "covers", "asserts"}
OPTIONAL = {"note", "follow_up", "claims", "of_style"}


def _sets() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(BLIND.glob("*.json"))}


def _answers() -> list[tuple[str, dict[str, Any]]]:
    return [(card_id, answer) for card_id, data in _sets().items() for answer in data["answers"]]


def test_the_files_are_the_declared_cards_and_none_is_in_the_rest_of_the_set() -> None:
    assert sorted(_sets()) == sorted(BLIND_CARDS)
    assert set(BLIND_CARDS).isdisjoint({*TUNING_CARDS, *HELD_OUT_CARDS})
    assert set(BLIND_CARDS).isdisjoint(path.stem for path in LABELLED.glob("*.json"))
    for card_id, data in _sets().items():
        assert data["card"] == card_id and card_id in DECK
        assert data["written"].startswith("blind")


def test_every_answer_has_the_fields_of_the_format_and_a_unique_id() -> None:
    for card_id, answer in _answers():
        name = answer.get("id", card_id)
        assert FIELDS <= answer.keys() <= FIELDS | OPTIONAL, name
        assert re.fullmatch(rf"{re.escape(card_id)}-b\d{{2}}", answer["id"]), name
        assert answer["tier"] in TIERS and answer["style"] in STYLES, name
        assert answer["text"].strip(), name
    ids = Counter(answer["id"] for _, answer in _answers())
    assert [answer_id for answer_id, count in ids.items() if count > 1] == []


def test_every_label_names_a_point_pitfall_or_follow_up_the_card_serves_now() -> None:
    stale = []
    for card_id, answer in _answers():
        card = DECK[card_id]
        stale += [f"{answer['id']}: point {key}" for key in answer["covers"] if key not in card.point_ids]
        pitfalls = {pitfall.key for pitfall in card.pitfalls}
        stale += [f"{answer['id']}: pitfall {key}" for key in answer["asserts"] if key not in pitfalls]
        if answer["style"] == "follow-up":
            assert 0 <= answer["follow_up"] < len(card.follow_ups) and answer["claims"], answer["id"]
        if answer["style"] == "transcript":
            assert answer["of_style"] in STYLES and answer["text"] == answer["text"].lower(), answer["id"]
    assert stale == []


def test_the_hard_styles_are_labelled_as_the_readme_defines_them() -> None:
    for _, answer in _answers():
        style = answer.get("of_style") or answer["style"]
        if style == "keyword-salad":
            assert answer["covers"] == [], answer["id"]
        if style == "pitfall-echo":
            assert answer["asserts"] == [], answer["id"]
        if style == "misconception":
            assert answer["asserts"], answer["id"]
