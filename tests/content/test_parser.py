"""The card format: the owner's card parses whole; every malformed case names its file and line."""

import contextlib
import re
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app import PROJECT_ROOT
from app.cli import cli
from app.content.catalogue import load
from app.content.parser import MISCONCEPTION_OPENERS, CardParseError, parse_card
from tests.factories import OWNER_CARD, card_text, drafted, line_of, write_card

pytestmark = pytest.mark.engine_agnostic

NO_WORDS = "heading shows no words (a bare link or image reads as nothing): write them after '### '"


def problems_of(tmp_path: Path, text: str) -> list[str]:
    path = write_card(tmp_path, "card.md", text)
    with pytest.raises(CardParseError) as caught:
        parse_card(path)
    return [str(p) for p in caught.value.problems]


def test_owner_card_has_every_section_of_the_seed() -> None:
    card = parse_card(PROJECT_ROOT / "content" / f"{OWNER_CARD}.md")
    assert card.id == OWNER_CARD
    assert (card.level, card.importance, card.frequency) == ("middle", "must-know", 0.72)
    assert (card.timings.basics, card.timings.solid) == (20, 50)
    assert [p.markdown for p in card.points] == [
        "overlap producing with consuming",
        "input + compute becomes max(input, compute)",
        "the buffer holds batches when it is last",
        "a background thread, not a worker pool",
        "buffers hide variance, not a throughput deficit",
    ]
    assert "background thread fills a buffer" in card.basics.markdown
    assert "strictly serial" in card.solid.markdown
    assert card.code_language == "python" and card.code_line_count == 10
    assert "ds.prefetch(tf.data.AUTOTUNE)" in card.code.markdown
    assert set(card.go_deeper) == {"junior", "middle", "senior", "principal"}
    assert "queueing system" in card.go_deeper["principal"].markdown
    for heading in (
        "The problem it solves",
        "Why the tail of the pipeline",
        "AUTOTUNE",
        "What prefetch does not do",
        "Diagnosing",
    ):
        assert heading in card.deep_dive.markdown
    assert len(card.follow_ups) == 4
    assert card.follow_ups[1].title.markdown.startswith("How do you prove whether a slow step")
    assert len(card.pitfalls) == 5
    assert all(p.body.markdown for p in card.pitfalls)
    assert len(card.truths) >= 3
    assert "placement" in card.demos


def test_every_shipped_card_is_valid() -> None:
    snapshot = load(PROJECT_ROOT / "content")
    assert snapshot.problems == []
    assert len(snapshot.cards) >= 3


def test_no_shipped_quiz_statement_opens_like_a_misconception() -> None:
    """True statements may not open so; a pitfall that did would be the only one that does, and
    its wording alone would answer the quiz."""
    snapshot = load(PROJECT_ROOT / "content")
    openers = {word.lower() for word in MISCONCEPTION_OPENERS}
    worded = [
        f"{card.id}: {entry.title.plain}"
        for card in snapshot.cards.values()
        for entry in card.pitfalls + card.truths
        if entry.title.plain.split()[0].lower() in openers
    ]
    assert worded == []


@pytest.mark.parametrize(
    "heading",
    [
        "Thinking a pipeline may prefetch twice",
        "Believing AUTOTUNE sizes the buffer as it runs",
        "expecting the buffer to hold whole batches",
        "*Assuming* `prefetch` overlaps the step",
    ],
)
def test_content_check_fails_a_true_statement_worded_like_a_misconception(
    tmp_path: Path, heading: str
) -> None:
    old = "### A true statement that sounds like it could be a pitfall"
    text = card_text(**{old: f"### {heading}"})
    path = write_card(tmp_path, "card.md", text)
    result = CliRunner().invoke(cli, ["content", "check", str(path)])
    assert result.exit_code == 1
    opener = heading.replace("*", "").split()[0].capitalize()
    expected = f"{path}:{line_of(text, heading)}: true statement opens like a misconception ('{opener} …')"
    assert expected in result.stdout, result.stdout


def test_a_pitfall_may_state_the_belief_it_is_about(tmp_path: Path) -> None:
    old = "### A wrong belief a candidate might state"
    card = parse_card(
        write_card(tmp_path, "card.md", card_text(**{old: "### Believing prefetch adds threads"}))
    )
    assert [entry.title.plain for entry in card.pitfalls] == ["Believing prefetch adds threads"]


def test_scaffold_for_new_cards_is_itself_valid(tmp_path: Path) -> None:
    card = parse_card(write_card(tmp_path, "new.md", card_text("brand-new")))
    assert card.id == "brand-new" and len(card.follow_ups) == 1


@pytest.mark.parametrize(
    ("replace", "line_snippet", "message"),
    [
        ({"level: middle": "level: guru"}, "level: guru", "unknown level 'guru'"),
        ({"importance: must-know": "importance: vital"}, "importance: vital", "unknown importance 'vital'"),
        ({"frequency: 0.5": "frequency: 72"}, "frequency: 72", "frequency must be a number from 0 to 1"),
        ({"topics: [general]": "topics: [general\n"}, "timings:", "bad YAML"),
        ({"## Deep dive": "## Deeper dive"}, "## Deeper dive", "unknown section 'Deeper dive'"),
        (
            {"### A question the interviewer asks next?\nIts answer.": "### A question?\n"},
            "### A question?",
            "empty follow-up answer",
        ),
        (
            {"## Follow-ups\n": "## Follow-ups\nNo heading here.\n"},
            "No heading here.",
            "text with no question",
        ),
        ({"Why it is wrong.": ""}, "### A wrong belief", "empty pitfall"),
        ({"demos: []": "demos: [warp-drive]"}, "demos: [warp-drive]", "unknown demo preset 'warp-drive'"),
        (
            {"### Principal\nWhat a principal engineer is expected to add.\n": ""},
            "## Go deeper",
            "missing '### Principal'",
        ),
        (
            {"1. The first point a good answer makes\n2. The second point": "Just prose."},
            "## Answer",
            "numbered list of answer points",
        ),
        ({"title: ": "titel: "}, "titel:", "unknown frontmatter key 'titel'"),
    ],
)
def test_malformed_card_reports_file_line_and_problem(
    tmp_path: Path, replace: dict[str, str], line_snippet: str, message: str
) -> None:
    text = card_text(**replace)
    problems = problems_of(tmp_path, text)
    expected_line = line_of(text, line_snippet)
    assert any(
        p.startswith(f"{tmp_path / 'card.md'}:{expected_line}: ") and message in p for p in problems
    ), problems


@pytest.mark.parametrize("value", ['"yes"', "1", "[true]"])
def test_draft_is_true_or_false_or_a_problem_at_its_line(tmp_path: Path, value: str) -> None:
    text = card_text(**{"draft: true": f"draft: {value}"})
    assert problems_of(tmp_path, text) == [
        f"{tmp_path / 'card.md'}:{line_of(text, 'draft:')}: "
        "draft must be true or false, unquoted (true keeps the card out of the library)"
    ]


@pytest.mark.parametrize(("text", "draft"), [(drafted(card_text()), True), (card_text(), False)])
def test_a_card_is_a_draft_when_its_frontmatter_says_so(tmp_path: Path, text: str, draft: bool) -> None:
    assert parse_card(write_card(tmp_path, "card.md", text)).draft is draft


def test_missing_section_is_reported(tmp_path: Path) -> None:
    text = card_text(**{"## Pitfalls\n### A wrong belief a candidate might state\nWhy it is wrong.\n": ""})
    problems = problems_of(tmp_path, text)
    assert any("missing section '## Pitfalls'" in p for p in problems)


def test_sections_out_of_order_are_reported(tmp_path: Path) -> None:
    basics = "## Basics\nThe ~20 second answer.\n\n"
    text = card_text(**{basics: "", "## Code": basics + "## Code"})
    problems = problems_of(tmp_path, text)
    assert problems == [
        f"{tmp_path / 'card.md'}:{line_of(text, '## Solid answer')}: "
        "section 'Solid answer' is out of order: it goes after 'Basics'"
    ]


def test_file_without_frontmatter_is_reported_at_line_1(tmp_path: Path) -> None:
    assert problems_of(tmp_path, "## Answer\n1. x\n") == [
        f"{tmp_path / 'card.md'}:1: missing YAML frontmatter: the file must start with a '---' line"
    ]


def test_duplicate_id_names_the_second_file_and_its_id_line(tmp_path: Path) -> None:
    write_card(tmp_path, "a.md", card_text("same-id"))
    second = write_card(tmp_path, "b.md", card_text("same-id", title="Another?"))
    snapshot = load(tmp_path)
    assert list(snapshot.cards) == ["same-id"]
    [problem] = snapshot.problems
    assert problem.path == second and problem.line == 2 and "duplicate id 'same-id'" in problem.message


def test_a_broken_file_does_not_hide_the_good_ones(tmp_path: Path) -> None:
    write_card(tmp_path, "good.md", card_text("good-card"))
    write_card(tmp_path, "bad.md", card_text("bad-card", **{"level: middle": "level: nope"}))
    snapshot = load(tmp_path)
    assert list(snapshot.cards) == ["good-card"]
    assert [p.name for p in snapshot.broken] == ["bad.md"]


def test_raw_html_in_a_card_is_shown_as_text_never_markup(tmp_path: Path) -> None:
    text = card_text(**{"The ~20 second answer.": "Try <script>alert(1)</script> and <b>bold</b>."})
    card = parse_card(write_card(tmp_path, "card.md", text))
    assert "<script>" not in card.basics.html and "&lt;script&gt;" in card.basics.html
    assert "<b>" not in card.basics.html


def test_headings_inside_code_fences_are_not_sections(tmp_path: Path) -> None:
    text = card_text(**{"# a short, realistic example": "## Not a section\n### nor an entry"})
    card = parse_card(write_card(tmp_path, "card.md", text))
    assert "## Not a section" in card.code.markdown


def test_an_item_keeps_its_id_through_case_punctuation_and_spacing_but_not_rewording(tmp_path: Path) -> None:
    point, pitfall = "1. The first point a good answer makes", "### A wrong belief a candidate might state"

    def ids(point_text: str, pitfall_text: str) -> tuple[str, str]:
        text = card_text(**{point: f"1. {point_text}", pitfall: f"### {pitfall_text}"})
        card = parse_card(write_card(tmp_path, "card.md", text))
        return card.point_ids[0], card.pitfalls[0].key

    original = ids("Prefetch overlaps producing with consuming", "A larger buffer fixes a slow pipeline")
    assert all(re.fullmatch(r"[0-9a-f]{8}", key) for key in original)
    touched = ids(
        "prefetch *overlaps*  producing, with `consuming`!", "a LARGER buffer: fixes a slow pipeline."
    )
    assert touched == original
    reworded = ids("Prefetch overlaps reading with consuming", "A larger buffer fixes a stalled pipeline")
    assert all(new != old for new, old in zip(reworded, original, strict=True))


@pytest.mark.parametrize(
    ("replace", "first", "repeat", "noun"),
    [
        (
            {"2. The second point": "2. The second point\n3. the FIRST point, a good answer makes"},
            "1. The first point",
            "3. the FIRST point",
            "answer point",
        ),
        (  # a statement cannot be both a pitfall and true
            {
                "## True statements\n": "## True statements\n### A wrong belief a candidate might state!\nNo.\n\n"
            },
            "### A wrong belief a candidate might state",
            "### A wrong belief a candidate might state!",
            "quiz statement",
        ),
    ],
)
def test_content_check_reports_two_items_with_the_same_text_at_the_repeat(
    tmp_path: Path, replace: dict[str, str], first: str, repeat: str, noun: str
) -> None:
    text = card_text(**replace)
    path = write_card(tmp_path, "card.md", text)
    result = CliRunner().invoke(cli, ["content", "check", str(path)])
    assert result.exit_code == 1
    expected = f"{path}:{line_of(text, repeat)}: {noun} repeats the one on line {line_of(text, first)} "
    assert expected in result.stdout, result.stdout


def test_a_heading_padded_with_spaces_does_not_stall_the_checker(tmp_path: Path) -> None:
    """The author preview checks what anyone with the author role pastes: a heading line padded
    with 50,000 spaces took the heading pattern over 30 s of backtracking."""
    padded = card_text(**{"## Basics\n": "## Basics\n# a" + " " * 50_000 + "x\n"})
    done = threading.Event()
    worker = threading.Thread(target=lambda: (_checked(tmp_path, padded), done.set()), daemon=True)
    worker.start()
    assert done.wait(timeout=5), "checking the card took more than 5 s"


def _checked(tmp_path: Path, text: str) -> None:
    with contextlib.suppress(CardParseError):
        parse_card(write_card(tmp_path, "padded.md", text))


def test_a_nested_yaml_alias_is_refused_in_a_short_message(tmp_path: Path) -> None:
    """Aliases nest cheaply and print enormously: the message names the value's kind instead."""
    aliases = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 7)
    )
    text = card_text(**{"level: middle\n": aliases + "level: *a6\n"})
    level = next(m for m in problems_of(tmp_path, text) if "unknown level" in m)
    assert len(level) < 200 and "a list" in level


@pytest.mark.parametrize("heading", ["[](https://example.com)", "![](a.png)"])
@pytest.mark.parametrize(
    "old",
    [
        "### A true statement that sounds like it could be a pitfall",
        "### A wrong belief a candidate might state",
    ],
)
def test_a_quiz_statement_that_shows_no_words_is_a_problem_at_its_line(
    tmp_path: Path, heading: str, old: str
) -> None:
    text = card_text(**{old: f"### {heading}"})
    found = problems_of(tmp_path, text)
    assert any(
        p.endswith(f":{line_of(text, heading)}: {noun} {NO_WORDS}")
        for p in found
        for noun in ("true statement", "pitfall")
    ), found
