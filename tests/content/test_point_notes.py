"""An answer point's notes for the coverage checker (`- Explanation:`, `- Said as:`): they help the
checker recognise the point and never change the point itself, its key or its history."""

from pathlib import Path

import pytest

from app.content.parser import CardParseError, parse_source
from tests.factories import card_text, line_of

pytestmark = pytest.mark.engine_agnostic

# The scaffold's first point, and what the card here says instead.
TEMPLATE_POINT = "1. The first point a good answer makes"
POINT = "1. The point a good answer opens with"
EXPLANATION = "The first point is what the answer opens with."
SAID_AS = ("it opens the answer", "say it first")


def _card(point: str = POINT) -> str:
    return card_text(**{TEMPLATE_POINT: point})


def _with_notes(*notes: str) -> str:
    return _card("\n".join([POINT, *(f"   - {note}" for note in notes)]))


def _problems(text: str) -> list[str]:
    with pytest.raises(CardParseError) as caught:
        parse_source(text, Path("card.md"))
    return [str(problem) for problem in caught.value.problems]


def test_notes_leave_the_point_its_text_and_key_and_are_read_into_it() -> None:
    plain = parse_source(_card(), Path("card.md")).points[0]
    noted = parse_source(
        _with_notes(f"Explanation: {EXPLANATION}", *(f"Said as: {said}" for said in SAID_AS)), Path("card.md")
    ).points[0]
    assert (noted.markdown, noted.key) == (plain.markdown, plain.key)
    assert noted.explanation == EXPLANATION
    assert noted.phrasings == SAID_AS


def test_a_point_knows_the_line_it_starts_on() -> None:
    text = _with_notes(f"Explanation: {EXPLANATION}")
    card = parse_source(text, Path("card.md"))
    assert [point.line for point in card.points] == [
        line_of(text, POINT),
        line_of(text, "2. The sample's second point"),
    ]


def test_other_indented_lines_before_its_notes_still_continue_the_point() -> None:
    text = _card(f"{POINT}\n   and keeps going\n   - Said as: it opens the answer")
    point = parse_source(text, Path("card.md")).points[0]
    assert point.markdown == "The point a good answer opens with and keeps going"
    assert point.phrasings == ("it opens the answer",)


@pytest.mark.parametrize("label", ["Explanation", "Said as"])
def test_a_note_without_text_is_a_problem_on_its_line(label: str) -> None:
    text = _with_notes(f"{label}:   ")
    assert _problems(text) == [
        f"card.md:{line_of(text, f'- {label}:')}: '{label}:' under an answer point needs text after it"
    ]


def test_a_second_explanation_is_a_problem_on_its_line() -> None:
    text = _with_notes(f"Explanation: {EXPLANATION}", "Explanation: Another sentence.")
    assert _problems(text) == [
        f"card.md:{line_of(text, 'Another sentence.')}: an answer point has one 'Explanation:'; "
        "join the sentences into one"
    ]


def test_a_note_wrapped_onto_the_next_line_goes_on_and_leaves_the_point_as_it_was() -> None:
    wrapped = (
        f"{POINT}\n"
        "   - Explanation: the first half of the explanation,\n"
        "     and its second half on the next line.\n"
        "   - Said as: one phrasing\n"
        "     said over two lines"
    )
    point = parse_source(_card(wrapped), Path("card.md")).points[0]
    assert point.markdown == POINT.removeprefix("1. ")
    assert point.key == parse_source(_card(), Path("card.md")).points[0].key
    assert point.explanation == "the first half of the explanation, and its second half on the next line."
    assert point.phrasings == ("one phrasing said over two lines",)
