"""The hand-labelled answers that coverage methods are measured against stay valid: every label
names a point or pitfall the card serves now, every style is there in the numbers the
measurements need, and the tuning and held-out cards split the set cleanly."""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from app.content.cards import Card
from tests.coverage.split import HELD_OUT_CARDS, LABELLED, TUNING_CARDS
from tests.factories import DECK, OWNER_CARD

pytestmark = pytest.mark.engine_agnostic

TIERS = ("junior", "middle", "senior", "principal")
# The harder styles of blind/README.md: answers written and labelled from the cards and the rules alone.
HARD_STYLES = ("keyword-salad", "negation", "reversed", "pitfall-echo", "follow-up")
STYLES = (
    "complete",
    "partial",
    "paraphrase",
    "keyword-stuffed",
    "misconception",
    "rambling",
    "transcript",
    *HARD_STYLES,
)
FIELDS = {"id", "tier", "style", "text", "covers", "asserts"}
# `follow_up` and `claims` belong to follow-up answers, `of_style` to a transcript spoken in another style.
OPTIONAL = {"note", "follow_up", "claims", "of_style"}
MIN_CARDS, MIN_ANSWERS, MIN_PER_CARD = 7, 180, 20
MIN_POINT_COVERED, MIN_POINT_UNCOVERED, MIN_PITFALL_ASSERTED, MIN_TRANSCRIPTS = 4, 8, 2, 25
# What a speech recogniser's raw output looks like: no sentence marks, no code marks.
TRANSCRIPT_PUNCTUATION = re.compile(r"[.,;:!?()\[\]`\"*_=/+-]")
FILLERS = {"um", "uh", "like", "you know", "i mean"}
# Words too common to make a paraphrase share the point's wording.
GENERIC = {"every", "first", "instead"}


def _files() -> list[Path]:
    return sorted(LABELLED.glob("*.json"))


def _labelled() -> dict[str, list[dict[str, Any]]]:
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))["answers"] for path in _files()}


def _answers() -> list[tuple[Card, dict[str, Any]]]:
    return [(DECK[card_id], answer) for card_id, answers in _labelled().items() for answer in answers]


def _style(answer: dict[str, Any]) -> str:
    """The style an answer is labelled by: a transcript's spoken style when it names one."""
    return answer.get("of_style") or answer["style"]


def _stems(text: str) -> set[str]:
    """Distinctive words, compared by their first five letters so `overlap` meets `overlapping`."""
    return {
        word[:5] for word in re.findall(r"[a-z]+", text.lower()) if len(word) >= 5 and word not in GENERIC
    }


def test_every_file_is_one_card_of_the_deck_with_a_list_of_answers() -> None:
    assert _files(), "no labelled answers"
    for path in _files():
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["card"] == path.stem, path.name
        assert path.stem in DECK, f"{path.name}: no such card in content/"
        assert isinstance(data["answers"], list) and data["answers"], path.name


def test_every_answer_has_the_fields_and_values_of_the_format() -> None:
    for card, answer in _answers():
        name = answer.get("id", f"an answer of {card.id}")
        assert FIELDS <= answer.keys() <= FIELDS | OPTIONAL, name
        assert re.fullmatch(rf"{re.escape(card.id)}-\d{{2}}", answer["id"]), name
        assert answer["tier"] in TIERS, name
        assert answer["style"] in STYLES, name
        if "of_style" in answer:
            assert answer["style"] == "transcript", f"{name}: only a transcript is spoken in another style"
            assert answer["of_style"] in STYLES and answer["of_style"] != "transcript", name
        follow_up_fields = {"follow_up", "claims"} & answer.keys()
        if _style(answer) == "follow-up":
            assert follow_up_fields == {"follow_up", "claims"}, (
                f"{name}: a follow-up answer names its follow-up and claims"
            )
        else:
            assert not follow_up_fields, f"{name}: follow_up and claims belong to follow-up answers"
        assert answer["text"].strip(), name
        assert isinstance(answer["covers"], list) and isinstance(answer["asserts"], list), name
        assert len(set(answer["covers"])) == len(answer["covers"]), f"{name} covers a point twice"
        assert len(set(answer["asserts"])) == len(answer["asserts"]), f"{name} asserts a pitfall twice"


def test_answer_ids_are_unique() -> None:
    ids = Counter(answer["id"] for _, answer in _answers())
    assert [answer_id for answer_id, count in ids.items() if count > 1] == []


def test_every_label_names_a_point_or_pitfall_the_card_serves_now() -> None:
    # A card edit that rewords a point or a pitfall changes its key: the answers labelled with the
    # old key are named here, to be relabelled against the new wording.
    stale = [
        f"{answer['id']}: {kind} {key} is not in {card.id}"
        for card, answer in _answers()
        for kind, keys, known in (
            ("point", answer["covers"], set(card.point_ids)),
            ("pitfall", answer["asserts"], {pitfall.key for pitfall in card.pitfalls}),
        )
        for key in keys
        if key not in known
    ]
    assert stale == []


def test_the_set_is_big_enough_and_includes_the_owners_card() -> None:
    labelled = _labelled()
    assert OWNER_CARD in labelled
    assert len(labelled) >= MIN_CARDS
    assert sum(len(answers) for answers in labelled.values()) >= MIN_ANSWERS
    assert {
        card_id: len(answers) for card_id, answers in labelled.items() if len(answers) < MIN_PER_CARD
    } == {}


@pytest.mark.parametrize("card_id", sorted(_labelled()))
def test_each_card_has_every_style_and_labels_each_point_and_pitfall_often_enough(card_id: str) -> None:
    card, answers = DECK[card_id], _labelled()[card_id]
    # A transcript counts under its own style and under the style it is spoken in.
    styles = Counter(style for answer in answers for style in {answer["style"], _style(answer)})
    covered = Counter(key for answer in answers for key in answer["covers"])
    asserted = Counter(key for answer in answers for key in answer["asserts"])
    assert [style for style in STYLES if not styles[style]] == []
    assert {p.plain: covered[p.key] for p in card.points if covered[p.key] < MIN_POINT_COVERED} == {}
    # Each point is also left uncovered by many answers, so a method that always says "covered" fails.
    assert {p.plain for p in card.points if len(answers) - covered[p.key] < MIN_POINT_UNCOVERED} == set()
    assert {
        p.title.plain: asserted[p.key] for p in card.pitfalls if asserted[p.key] < MIN_PITFALL_ASSERTED
    } == {}


def test_each_style_is_labelled_the_way_the_readme_defines_it() -> None:
    wrong = []
    for card, answer in _answers():
        style, covers, asserts = _style(answer), set(answer["covers"]), answer["asserts"]
        if style == "complete" and (covers != set(card.point_ids) or asserts):
            wrong.append(f"{answer['id']}: a complete answer covers every point and asserts no pitfall")
        if style == "partial" and not 0 < len(covers) < len(card.points):
            wrong.append(f"{answer['id']}: a partial answer covers some points, not all")
        if style == "keyword-stuffed" and covers:
            wrong.append(f"{answer['id']}: naming a point's terms does not cover it")
        if style in ("paraphrase", "misconception", "rambling") and not (covers or asserts):
            wrong.append(f"{answer['id']}: a {style} answer carries at least one label")
        if style == "misconception" and not asserts:
            wrong.append(f"{answer['id']}: a misconception asserts a pitfall")
        if style == "keyword-salad" and covers:
            wrong.append(f"{answer['id']}: a keyword salad covers no point")
        if style == "pitfall-echo" and asserts:
            wrong.append(f"{answer['id']}: a pitfall echo asserts no pitfall")
        if style in HARD_STYLES and not answer.get("note", "").strip():
            wrong.append(f"{answer['id']}: a {style} answer says in its note why it is labelled as it is")
    assert wrong == []


def test_follow_up_answers_name_a_follow_up_of_their_card_and_what_they_claim_of_it() -> None:
    wrong = [
        answer["id"]
        for card, answer in _answers()
        if _style(answer) == "follow-up"
        and not (
            isinstance(answer["follow_up"], int)
            and 0 <= answer["follow_up"] < len(card.follow_ups)
            and isinstance(answer["claims"], list)
            and answer["claims"]
            and all(isinstance(claim, str) and claim.strip() for claim in answer["claims"])
        )
    ]
    assert wrong == []


def test_keyword_salads_name_the_terms_of_several_points() -> None:
    # A salad names the card's distinctive terms; one that names few is only a vague answer.
    thin = [
        answer["id"]
        for card, answer in _answers()
        if _style(answer) == "keyword-salad"
        and sum(bool(_stems(point.plain) & _stems(answer["text"])) for point in card.points) < 3
    ]
    assert thin == []


def test_paraphrases_share_no_distinctive_word_with_the_points_they_cover() -> None:
    shared = {
        f"{answer['id']} / {point.plain}": sorted(_stems(point.plain) & _stems(answer["text"]))
        for card, answer in _answers()
        if answer["style"] == "paraphrase"
        for point in card.points
        if point.key in answer["covers"] and _stems(point.plain) & _stems(answer["text"])
    }
    assert shared == {}


def test_keyword_stuffed_answers_name_a_point_of_their_card() -> None:
    silent = [
        answer["id"]
        for card, answer in _answers()
        if answer["style"] == "keyword-stuffed"
        and not any(_stems(point.plain) & _stems(answer["text"]) for point in card.points)
    ]
    assert silent == []


def test_transcripts_read_like_raw_speech_and_there_are_enough() -> None:
    transcripts = [answer for _, answer in _answers() if answer["style"] == "transcript"]
    assert len(transcripts) >= MIN_TRANSCRIPTS
    for answer in transcripts:
        text = answer["text"]
        assert text == text.lower(), answer["id"]
        assert not TRANSCRIPT_PUNCTUATION.search(text), answer["id"]
        assert any(re.search(rf"\b{filler}\b", text) for filler in FILLERS), answer["id"]


def test_answers_vary_in_length_like_real_candidates() -> None:
    lengths = [len(answer["text"].split()) for _, answer in _answers()]
    assert min(lengths) <= 20 and max(lengths) >= 150


def test_the_readme_states_the_counts_of_the_set() -> None:
    labelled = _labelled()
    total = sum(len(answers) for answers in labelled.values())
    readme = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    assert f"{total} answers on {len(labelled)} cards" in readme


def test_tuning_and_held_out_cards_are_disjoint_and_cover_every_labelled_card() -> None:
    assert not set(TUNING_CARDS) & set(HELD_OUT_CARDS)
    assert set(TUNING_CARDS) | set(HELD_OUT_CARDS) == set(_labelled())
    assert len(HELD_OUT_CARDS) >= 2 and OWNER_CARD not in HELD_OUT_CARDS
    assert len(TUNING_CARDS) == len(set(TUNING_CARDS)) and len(HELD_OUT_CARDS) == len(set(HELD_OUT_CARDS))
