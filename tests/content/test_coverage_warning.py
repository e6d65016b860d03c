"""`tiercards content check` warns, without failing, about every answer point the card's own
Basics and Solid answer do not cover as the coverage checker reads them: such a point would never
be suggested for an answer that says what the model answer says."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app import PROJECT_ROOT
from app.cli import cli
from tests.factories import card_text, line_of, write_card

pytestmark = pytest.mark.engine_agnostic

SECOND = "2. batches wait in the buffer"
# A model answer that says the second point only in words the point does not use, beside a run of
# terms that names it without claiming anything.
MODEL_ANSWER = {
    "The ~20 second answer.": "A good answer makes the first point.",
    "The ~50 second answer.": "The buffer, batches, waiting. They are held back until the model asks for them.",
}
ADVICE = "say it in the answer, or add an '- Explanation:' or '- Said as:' under the point"


def _check(path: Path) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(cli, ["content", "check", str(path)])
    return result.exit_code, result.stdout.splitlines(), result.stderr


def _warning(path: Path, text: str, *, point: str, snippet: str) -> str:
    return (
        f'{path}:{line_of(text, snippet)}: warning: answer point "{point}" is not covered by the '
        f"card's own Basics and Solid answer as the coverage checker reads them: {ADVICE}"
    )


def test_a_point_the_model_answer_does_not_say_is_warned_about_at_its_line(tmp_path: Path) -> None:
    text = card_text(**MODEL_ANSWER, **{"2. The second point": SECOND})
    path = write_card(tmp_path, "card.md", text)
    code, out, err = _check(path)
    assert code == 0
    assert out == [_warning(path, text, point="batches wait in the buffer", snippet=SECOND)]
    assert "1 coverage warning(s)" in err and "1 card(s) OK" in err


def test_a_said_as_in_the_model_answers_words_silences_the_warning(tmp_path: Path) -> None:
    said = "they are held back until the model asks for them"
    text = card_text(**MODEL_ANSWER, **{"2. The second point": f"{SECOND}\n   - Said as: {said}"})
    code, out, err = _check(write_card(tmp_path, "card.md", text))
    assert (code, out) == (0, [])
    assert "coverage warning" not in err


def test_a_card_with_problems_still_fails_and_is_not_checked_for_coverage(tmp_path: Path) -> None:
    path = write_card(tmp_path, "card.md", card_text(**{"level: middle": "level: expert"}))
    code, out, _err = _check(path)
    assert code == 1
    assert not [line for line in out if ": warning: " in line]


def test_the_deck_has_no_problems_and_no_coverage_warnings() -> None:
    code, out, _err = _check(PROJECT_ROOT / "content")
    assert (code, out) == (0, [])
