"""Card files written whole, and committed when the content folder is a git repository of its own.

A reader (the catalogue's poll, another replica) sees either the old file or the new one, never
half of one. The commit is made with the real `git` binary, for that one file alone, naming who
proposed the change as its author and who accepted it as its committer. A content folder that
merely sits inside another repository (the app's own checkout) is never committed to.
"""

import contextlib
import os
import stat
import subprocess
import tempfile
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from app.exceptions import DomainError
from app.storage.durable import sync_folder

# A new card file: readable by every process that serves the deck.
NEW_FILE_MODE = 0o644
GIT_TIMEOUT_SECONDS = 30
EMAIL_DOMAIN = "users.tiercards.invalid"
# Whatever the host's or the repository's configuration says: no hook runs, no signing key is
# asked for, and a machine with no git identity still commits (the idents are set per commit).
_CONFIG = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "user.name=tiercards",
    "-c",
    f"user.email=tiercards@{EMAIL_DOMAIN}",
)
# git refuses, rather than waits for, a second commit while one holds the index: this process's
# commits take turns.
_COMMITTING = threading.Lock()


class CommitFailed(DomainError):
    """git refused the commit; `message` is what git said, for the author to read."""


@dataclass(frozen=True)
class Person:
    name: str
    email: str


def write_atomically(path: Path, text: str) -> None:
    """Replaces `path` with `text` (UTF-8) in one step, keeping its permission bits; a crash
    leaves the old file or the new one, and no temp file."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else NEW_FILE_MODE
    # In the same folder, so the rename stays on one file system; not named *.md, so the
    # catalogue never reads it as a card.
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    sync_folder(path.parent)


def person(name: str) -> Person:
    """A tiercards user as git names them: users have no email address, so one under the reserved
    .invalid domain, which can be nobody's real one."""
    clean = _ident_part(name)
    return Person(clean, f"{clean}@{EMAIL_DOMAIN}")


def _ident_part(text: str) -> str:
    """`text` without what would end or split a git ident: angle brackets, newlines and every
    other control or format character."""
    kept = "".join(" " if unicodedata.category(c).startswith("C") else c for c in text if c not in "<>")
    return " ".join(kept.split())


def repository_root(folder: Path) -> Path | None:
    """`folder`, resolved, when it is the top of a git work tree; None when it is not (a folder
    inside another repository included) or there is no git."""
    try:
        top = _git(folder, "rev-parse", "--show-toplevel")
    except OSError:  # no git installed
        return None
    if top.returncode != 0:
        return None
    root = Path(top.stdout.rstrip("\n")).resolve()
    return root if root == folder.resolve() else None


def commit(folder: Path, *, path: Path, message: str, author: Person, committer: Person) -> str | None:
    """Commits `path` alone (nothing else staged or edited in the folder goes with it) and
    returns the new commit's hash; None when `folder` is not a repository of its own or the file
    is as already committed. `message`'s first line is at most 72 characters.

    ValueError when `path` is not a file inside `folder`; CommitFailed when git refuses."""
    name = _inside(folder, path)
    root = repository_root(folder)
    if root is None:
        return None
    with _COMMITTING:
        _succeeded(_git(root, "add", "--", name))
        staged = _git(root, "diff", "--cached", "--quiet", "--", name)
        if staged.returncode == 0:  # the file is as committed
            return None
        if staged.returncode != 1:  # 1: it differs; anything else: git failed
            _succeeded(staged)
        # --only: the commit holds this path as it is on disk, whatever else the index holds.
        made = _git(
            root,
            "commit",
            "--only",
            "--quiet",
            "--file=-",
            f"--author={_ident(author)}",
            "--",
            name,
            stdin=message,
            idents=_idents(author=author, committer=committer),
        )
        _succeeded(made)
        return _succeeded(_git(root, "rev-parse", "HEAD")).stdout.strip()


def _inside(folder: Path, path: Path) -> str:
    """`path` relative to `folder`, as git names it; ValueError unless it names one file in it
    (never the folder itself, a subfolder or git's own files, which `git add` would sweep in)."""
    # The parent resolved, the name kept: a symlinked card is committed as the link git tracks.
    where = path.absolute().parent.resolve() / path.name
    try:
        relative = where.relative_to(folder.resolve())
    except ValueError:
        raise ValueError(f"{path} is not inside {folder}") from None
    if path.name in ("", ".", "..") or ".git" in relative.parts or where.is_dir():
        raise ValueError(f"{path} is not a file inside {folder}")
    return relative.as_posix()


def _ident(who: Person) -> str:
    return f"{_ident_part(who.name)} <{_ident_part(who.email)}>"


def _idents(*, author: Person, committer: Person) -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": _ident_part(author.name),
        "GIT_AUTHOR_EMAIL": _ident_part(author.email),
        "GIT_COMMITTER_NAME": _ident_part(committer.name),
        "GIT_COMMITTER_EMAIL": _ident_part(committer.email),
    }


def _git(
    folder: Path, *args: str, stdin: str = "", idents: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs git in `folder`, never through a shell. OSError when there is no git; CommitFailed
    when it does not finish in time."""
    # Nothing git-specific from this process's environment: a GIT_DIR or GIT_INDEX_FILE left by a
    # parent git (a hook that started the app) would point git at another repository.
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env |= {"GIT_TERMINAL_PROMPT": "0", **(idents or {})}
    # Literal pathspecs: a card named `*.md` stands for itself, not for every card.
    command = ["git", "-C", str(folder), "--literal-pathspecs", *_CONFIG, *args]
    try:
        return subprocess.run(
            command,
            input=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CommitFailed(f"git {args[0]} did not finish within {GIT_TIMEOUT_SECONDS} s") from None


def _succeeded(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    if result.returncode != 0:
        raise CommitFailed(result.stderr.strip() or f"git exited with status {result.returncode}")
    return result
