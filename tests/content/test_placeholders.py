"""A card still holding the text `tiercards content new` wrote for its author to replace cannot leave
draft: `tiercards content check` fails on each such text, at its line, in a card that is not a
draft, and only warns about it while the card has `draft: true`. The card's own model answer covers
no point through that text."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app import PROJECT_ROOT
from app.cli import cli
from app.content.scaffold import new_card
from tests.factories import OWNER_CARD, drafted, line_of, undrafted, write_card

pytestmark = pytest.mark.engine_agnostic

OWNER_FILE = PROJECT_ROOT / "content" / f"{OWNER_CARD}.md"
WARNING = "warning: \"{snippet}\" is the template's placeholder text: replace it with the card's own"
PROBLEM = (
    '"{snippet}" is the template\'s placeholder text: replace it before the card leaves draft '
    "(draft: true keeps it to authors)"
)
SNIPPETS = (
    "The first point a good answer makes",
    "The ~20 second answer.",
    "# a short, realistic example",
    "What a principal engineer is expected to add.",
    "The long-form explanation.",
    "A question the interviewer asks next?",
    "Its answer.",
    "Why it is wrong.",
    "A true statement that sounds like it could be a pitfall",
)


def _check(path: Path) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(cli, ["content", "check", str(path)])
    return result.exit_code, result.stdout.splitlines(), result.stderr


def _line(path: Path, text: str, snippet: str, message: str) -> str:
    return f"{path}:{line_of(text, snippet)}: {message.format(snippet=snippet)}"


def _new_card() -> str:
    return new_card("fresh-card", title="Why does the buffer drain?")


def test_a_new_card_is_a_draft_warned_about_at_every_placeholder_it_holds(tmp_path: Path) -> None:
    text = _new_card()
    path = write_card(tmp_path, "fresh-card.md", text)
    code, out, err = _check(path)
    assert code == 0
    placeholders = [line for line in out if "placeholder" in line]
    for snippet in SNIPPETS:
        assert _line(path, text, snippet, WARNING) in placeholders
    assert len(placeholders) == 16
    assert "16 placeholder warning(s)" in err and "0 card(s) OK, 1 draft(s) not served" in err


def test_the_same_card_out_of_draft_fails_at_every_placeholder_it_holds(tmp_path: Path) -> None:
    text = undrafted(_new_card())
    path = write_card(tmp_path, "fresh-card.md", text)
    code, out, err = _check(path)
    assert code == 1
    placeholders = [line for line in out if "placeholder" in line]
    for snippet in SNIPPETS:
        assert _line(path, text, snippet, PROBLEM) in placeholders
    assert len(placeholders) == 16
    assert "16 problem(s) in 1 file(s)" in err and "placeholder warning" not in err


def test_no_point_is_covered_by_the_templates_model_answer(tmp_path: Path) -> None:
    """The template's "The ~20 second answer." read as covering its placeholder points: it covers
    nothing, so each point is warned about as the model answer not covering it."""
    text = _new_card()
    path = write_card(tmp_path, "fresh-card.md", text)
    _code, out, _err = _check(path)
    uncovered = [line for line in out if "is not covered by the card's own Basics and Solid answer" in line]
    assert [line.split(": warning: ")[0] for line in uncovered] == [
        f"{path}:{line_of(text, '1. The first point')}",
        f"{path}:{line_of(text, '2. The second point')}",
    ]


@pytest.mark.parametrize(("draft", "code", "message"), [(False, 1, PROBLEM), (True, 0, WARNING)])
def test_a_written_card_with_one_section_left_as_the_template_wrote_it_is_told_so_there(
    tmp_path: Path, draft: bool, code: int, message: str
) -> None:
    owner = OWNER_FILE.read_text(encoding="utf-8")
    owner = drafted(owner) if draft else owner
    start = owner.index("### Principal\n") + len("### Principal\n")
    end = owner.index("\n## Deep dive", start)
    snippet = "What a principal engineer is expected to add."
    text = f"{owner[:start]}{snippet}\n{owner[end:]}"
    path = write_card(tmp_path, f"{OWNER_CARD}.md", text)
    assert _check(path)[:2] == (code, [_line(path, text, snippet, message)])


def test_the_deck_holds_no_placeholder() -> None:
    code, out, err = _check(PROJECT_ROOT / "content")
    assert (code, out) == (0, []) and "placeholder" not in err
