"""`tiercards content check` warns when an edit since the last commit would orphan recorded answers:
a reworded or removed answer point, pitfall or true statement. Real git, in a temporary repository."""

import subprocess
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from app.cli import cli
from app.content.cards import item_key
from tests.factories import card_text, line_of, write_card

pytestmark = pytest.mark.engine_agnostic

PITFALL = "A wrong belief about the sample"
POINT = "The sample's first point"
TAIL = "and the answers recorded against it will no longer count"


def git(folder: Path, *args: str) -> None:
    identity = ["-c", "user.name=Author", "-c", "user.email=author@example.org"]
    subprocess.run(["git", "-C", str(folder), *identity, *args], check=True, capture_output=True)


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A card committed in a git work tree: what answers were recorded against."""
    repository = tmp_path / "repository"
    repository.mkdir()
    git(repository, "init", "-q")
    path = write_card(repository, "card.md", card_text("sample-card"))
    git(repository, "add", "card.md")
    git(repository, "commit", "-q", "-m", "a card")
    return path


def check(path: Path) -> Result:
    return CliRunner().invoke(cli, ["content", "check", str(path.parent)])


def orphaning(result: Result) -> list[str]:
    """The lines warning of orphaned answers; not those about uncovered answer points, say."""
    return [line for line in result.stdout.splitlines() if line.endswith(TAIL)]


def edit(path: Path, **replace: str) -> str:
    """The card as committed, with `replace` swapping exact snippets of it, saved over it."""
    text = path.read_text(encoding="utf-8")
    for old, new in replace.items():
        assert old in text, f"snippet not in the card: {old!r}"
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text


def test_a_reworded_pitfall_is_a_warning_naming_its_line_both_texts_and_both_ids(published: Path) -> None:
    reworded = "A wrong belief held about the sample"
    text = edit(published, **{f"### {PITFALL}": f"### {reworded}"})
    result = check(published)
    assert result.exit_code == 0, result.output
    line = line_of(text, reworded)
    assert orphaning(result) == [
        f'{published}:{line}: pitfall "{PITFALL}" was reworded to "{reworded}": its id changes from '
        f"p-{item_key(PITFALL)} to p-{item_key(reworded)} {TAIL}"
    ]
    assert "1 warning(s)" in result.stderr and "1 card(s) OK" in result.stderr


def test_case_punctuation_and_spacing_keep_the_id_so_no_warning(published: Path) -> None:
    edit(
        published,
        **{
            f"### {PITFALL}": "### A *wrong* belief,   about the Sample!",
            f"1. {POINT}": "1. The `sample's` first point.",
        },
    )
    result = check(published)
    assert result.exit_code == 0 and orphaning(result) == [], result.output
    assert "history of those items" not in result.stderr


def test_a_reworded_answer_point_and_a_removed_one_are_told_apart(published: Path) -> None:
    second = "The sample's second point"
    reworded = "The sample's first main point"
    text = edit(published, **{f"1. {POINT}": f"1. {reworded}", f"2. {second}\n": ""})
    result = check(published)
    assert result.exit_code == 0, result.output
    assert orphaning(result) == [
        # Nothing on the card resembles it any more: it stands at its section's heading.
        f'{published}:{line_of(text, "## Answer")}: answer point "{second}" was removed: '
        f"its id {item_key(second)} goes with it {TAIL}",
        f'{published}:{line_of(text, reworded)}: answer point "{POINT}" was reworded to "{reworded}": '
        f"its id changes from {item_key(POINT)} to {item_key(reworded)} {TAIL}",
    ]


def test_a_true_statement_rewritten_beyond_resemblance_reads_as_removed(published: Path) -> None:
    old = "A true statement about the sample"
    text = edit(published, **{f"### {old}": "### Prefetch buffers whole batches when it goes last"})
    result = check(published)
    assert result.exit_code == 0
    assert orphaning(result) == [
        f'{published}:{line_of(text, "## True statements")}: true statement "{old}" was removed: '
        f"its id t-{item_key(old)} goes with it {TAIL}"
    ]


def test_a_card_not_committed_yet_or_outside_git_has_nothing_to_orphan(
    published: Path, tmp_path: Path
) -> None:
    write_card(published.parent, "new.md", card_text("new-card", title="A new question?"))
    assert orphaning(check(published)) == []
    outside = tmp_path / "outside"
    outside.mkdir()
    result = check(write_card(outside, "card.md", card_text("sample-card")))
    assert result.exit_code == 0 and orphaning(result) == []


def test_warnings_do_not_hide_problems_and_problems_still_fail(published: Path) -> None:
    edit(published, **{f"### {PITFALL}": "### A wrong belief held about the sample"})
    write_card(published.parent, "broken.md", card_text("broken-card", **{"level: middle": "level: wizard"}))
    result = check(published)
    assert result.exit_code == 1
    assert "unknown level 'wizard'" in result.stdout and f'pitfall "{PITFALL}" was reworded' in result.stdout
