"""Card files written whole, and committed with the real git binary when the content folder is a
repository of its own: that file alone, the proposer as author, the reviewer as committer."""

import os
import stat
import subprocess
from pathlib import Path

import pytest

from app.authoring.files import CommitFailed, Person, commit, person, repository_root, write_atomically

pytestmark = pytest.mark.engine_agnostic

PROPOSER = person("ada")
REVIEWER = person("grace")


@pytest.fixture(autouse=True)
def no_git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with no global git configuration, so no identity but the ones given here."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def _git(folder: Path, *args: str) -> str:
    """The test's own git: an identity of its own for the commits it makes itself."""
    command = ["/usr/bin/git", "-c", "user.name=setup", "-c", "user.email=setup@example.invalid"]
    done = subprocess.run(
        [*command, "-C", str(folder), *args], capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.rstrip("\n")


def _repository(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True)
    _git(folder, "init", "-q")
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    if files:
        _git(folder, "add", "--all")
        _git(folder, "commit", "-q", "-m", "the deck")
    return folder


def _commit(folder: Path, path: Path, message: str = "Reword the answer") -> str | None:
    return commit(folder, path=path, message=message, author=PROPOSER, committer=REVIEWER)


def _commits(folder: Path) -> int:
    return int(_git(folder, "rev-list", "--count", "--all") or 0)


def test_a_write_replaces_the_content_and_keeps_the_mode(tmp_path: Path) -> None:
    card = tmp_path / "card.md"
    card.write_text("old\n", encoding="utf-8")
    card.chmod(0o640)
    write_atomically(card, "new — ünïcode\n")
    assert card.read_text(encoding="utf-8") == "new — ünïcode\n"
    assert stat.S_IMODE(card.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.md"
    write_atomically(fresh, "text")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.md", "fresh.md", "home"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = tmp_path / "card.md"
    card.write_text("old\n", encoding="utf-8")

    def refuse(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(card, "new\n")
    assert card.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.md", "home"]


def test_only_the_file_is_committed_with_proposer_reviewer_and_message(tmp_path: Path) -> None:
    content = _repository(tmp_path / "content", **{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"})
    (content / "b.md").write_text("b edited, not saved through the app\n", encoding="utf-8")
    (content / "c.md").write_text("c staged by hand\n", encoding="utf-8")
    _git(content, "add", "c.md")
    write_atomically(content / "a.md", "a reworded\n")

    made = _commit(content, content / "a.md", "Reword the answer\n\nProposed by ada, accepted by grace.\n")

    assert made is not None and made == _git(content, "rev-parse", "HEAD")
    shown = _git(content, "log", "-1", "--format=%an|%ae|%cn|%ce|%s")
    assert shown == ("ada|ada@users.tiercards.invalid|grace|grace@users.tiercards.invalid|Reword the answer")
    assert _git(content, "log", "-1", "--format=%b") == "Proposed by ada, accepted by grace."
    assert _git(content, "show", "--name-only", "--format=", "HEAD") == "a.md"
    # What else was edited or staged is left as it was.
    assert _git(content, "status", "--porcelain") == " M b.md\nM  c.md"


def test_a_new_repository_gets_its_first_commit(tmp_path: Path) -> None:
    content = _repository(tmp_path / "content")
    write_atomically(content / "a.md", "a\n")
    assert repository_root(content) == content.resolve()
    assert _commit(content, content / "a.md") == _git(content, "rev-parse", "HEAD")


def test_a_folder_inside_another_repository_is_not_committed_to(tmp_path: Path) -> None:
    source = _repository(tmp_path / "app", **{"README.md": "the app\n"})
    content = source / "content"
    content.mkdir()
    write_atomically(content / "a.md", "a\n")
    assert repository_root(content) is None
    assert _commit(content, content / "a.md") is None
    assert _commits(source) == 1
    assert _git(source, "status", "--porcelain") == "?? content/"


def test_a_plain_folder_and_an_unchanged_file_commit_nothing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    write_atomically(plain / "a.md", "a\n")
    assert repository_root(plain) is None
    assert _commit(plain, plain / "a.md") is None

    content = _repository(tmp_path / "content", **{"a.md": "a\n"})
    write_atomically(content / "a.md", "a\n")
    assert _commit(content, content / "a.md") is None
    assert _commits(content) == 1


@pytest.mark.parametrize("outside", ["../elsewhere.md", ".", "sub", "sub/..", ".git/config"])
def test_only_a_file_inside_the_folder_is_committed(tmp_path: Path, outside: str) -> None:
    content = _repository(tmp_path / "content", **{"a.md": "a\n"})
    (content / "sub").mkdir()
    with pytest.raises(ValueError):
        _commit(content, content / outside)
    assert _commits(content) == 1


def test_a_name_cannot_break_or_inject_into_the_ident(tmp_path: Path) -> None:
    evil = "<evil>\nroot <root@example.org>\x1b"
    assert person(evil) == Person(
        "evil root root@example.org", "evil root root@example.org@users.tiercards.invalid"
    )
    content = _repository(tmp_path / "content", **{"a.md": "a\n"})
    write_atomically(content / "a.md", "b\n")

    # A Person made by hand is cleaned too.
    made = commit(
        content,
        path=content / "a.md",
        message="Edit",
        author=Person(evil, "ada@users.tiercards.invalid>\nx"),
        committer=Person("gr<ace>\ncommitter x", "grace@users.tiercards.invalid>\nx"),
    )

    assert made is not None
    headers = _git(content, "cat-file", "-p", "HEAD").partition("\n\n")[0].splitlines()
    assert [line.split(" ")[0] for line in headers] == ["tree", "parent", "author", "committer"]
    shown = _git(content, "log", "-1", "--format=%an|%ae|%cn|%ce")
    assert shown == (
        "evil root root@example.org|ada@users.tiercards.invalid x"
        "|grace committer x|grace@users.tiercards.invalid x"
    )


def test_a_file_name_is_no_pattern(tmp_path: Path) -> None:
    content = _repository(tmp_path / "content", **{"a.md": "a\n", "*.md": "star\n"})
    (content / "a.md").write_text("a edited\n", encoding="utf-8")
    write_atomically(content / "*.md", "star edited\n")
    assert _commit(content, content / "*.md") is not None
    assert _git(content, "show", "--name-only", "--format=", "HEAD") == "*.md"
    assert _git(content, "status", "--porcelain") == " M a.md"


def test_the_environment_cannot_point_git_at_another_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = _repository(tmp_path / "content", **{"a.md": "a\n"})
    other = _repository(tmp_path / "other", **{"o.md": "o\n"})
    write_atomically(content / "a.md", "b\n")
    with monkeypatch.context() as env:
        env.setenv("GIT_DIR", str(other / ".git"))
        env.setenv("GIT_WORK_TREE", str(other))
        env.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
        made = _commit(content, content / "a.md")
    assert made == _git(content, "rev-parse", "HEAD")
    assert (_commits(content), _commits(other)) == (2, 1)


def test_a_refusal_says_what_git_said(tmp_path: Path) -> None:
    content = _repository(tmp_path / "content", **{"a.md": "a\n"})
    (content / ".git" / "index.lock").touch()  # another git is at work
    write_atomically(content / "a.md", "b\n")
    with pytest.raises(CommitFailed, match=r"index\.lock"):
        _commit(content, content / "a.md")


def test_the_commits_travel_like_any_other(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    other = tmp_path / "other"
    _git(tmp_path, "clone", "-q", str(remote), str(other))
    (other / "a.md").write_text("a\n", encoding="utf-8")
    _git(other, "add", "a.md")
    _git(other, "commit", "-q", "-m", "the deck")
    _git(other, "push", "-q", "origin", "HEAD")
    content = tmp_path / "content"
    _git(tmp_path, "clone", "-q", str(remote), str(content))

    write_atomically(content / "a.md", "a reworded\n")
    made = _commit(content, content / "a.md")
    _git(content, "push", "-q")
    _git(other, "pull", "-q", "--ff-only")
    assert _git(other, "rev-parse", "HEAD") == made
    assert (other / "a.md").read_text(encoding="utf-8") == "a reworded\n"

    (other / "b.md").write_text("b\n", encoding="utf-8")
    _git(other, "add", "b.md")
    _git(other, "commit", "-q", "-m", "another card")
    _git(other, "push", "-q")
    _git(content, "pull", "-q", "--ff-only")
    assert (content / "b.md").read_text(encoding="utf-8") == "b\n"
    assert _git(content, "log", "--format=%s") == "another card\nReword the answer\nthe deck"
