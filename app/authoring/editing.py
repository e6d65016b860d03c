"""An author's save of a card from the browser: the text checked as `tiercards content check`
checks it, refused when the file changed on disk since the editor opened it (with both changes,
for a three-way view), written atomically, committed where the content folder is a repository,
and served at once by this process (the others see the file within their poll)."""

import contextlib
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session

from app.accounts import audit
from app.authoring import files
from app.authoring.service import as_typed, preview
from app.content.cards import Card
from app.content.catalogue import Catalogue, Snapshot
from app.exceptions import Conflict, Invalid, NotFound

log = logging.getLogger("tiercards.authoring")
# This process's writes of card files take turns (replicas write so rarely that the window
# between their compare and their write is left to the conflict view's next save).
WRITING = threading.Lock()
SUBJECT_CHARS = 72
# Problems quoted in a refusal; the editor lists them all at their lines as the author types.
QUOTED_PROBLEMS = 5


@dataclass(frozen=True)
class Source:
    """A card's file as it stands now, served or a draft."""

    card: Card
    text: str


class Changed(Conflict):
    """The card's file is no longer the text the edit started from: nothing is written, and both
    changes are kept for the author to compare."""

    def __init__(self, *, card_id: str, base: str, current: str, mine: str) -> None:
        super().__init__(
            f"the card '{card_id}' was changed since this edit started: nothing was saved. "
            "Compare both changes, then save again"
        )
        self.card_id, self.base, self.current, self.mine = card_id, base, current, mine


class NotWritable(Conflict):
    """The content folder refuses the write (read-only, full): the card is as it was."""


def subject(verb: str, card: Card) -> str:
    """A commit's first line: the verb and the card's title, within git's 72 characters."""
    line = f"{verb} {card.title.plain}"
    return line if len(line) <= SUBJECT_CHARS else line[: SUBJECT_CHARS - 1] + "…"


@dataclass(frozen=True)
class Saved:
    card_id: str
    commit: str | None


def source(snapshot: Snapshot, card_id: str) -> Source:
    """The card `card_id`, served or a draft, with its file's text read now."""
    card = snapshot.cards.get(card_id) or snapshot.drafts.get(card_id)
    if card is not None:
        # A file removed or broken since the last reload is a card no longer served.
        with contextlib.suppress(OSError, UnicodeDecodeError):
            return Source(card, as_typed(card.path.read_text(encoding="utf-8")))
    raise NotFound(f"no card with the id '{card_id[:80]}' is served: it may have been deleted")


def checked(text: str, *, card_id: str | None, snapshot: Snapshot) -> Card:
    """The card `text` makes, or Invalid quoting what `tiercards content check` says of it. An
    edit keeps the card's id: the id chooses the file, so a changed one would be another card."""
    shown = preview(text, {**snapshot.drafts, **snapshot.cards})
    if shown.card is None:
        quoted = "; ".join(f"line {p.line}: {p.message}" for p in shown.problems[:QUOTED_PROBLEMS])
        more = len(shown.problems) - QUOTED_PROBLEMS
        raise Invalid(
            "markdown", f"the card has problems: {quoted}" + (f" (and {more} more)" if more > 0 else "")
        )
    if card_id is not None and shown.card.id != card_id:
        raise Invalid("markdown", f"the id must stay '{card_id}': a card's id names its file and its history")
    return shown.card


def write(
    catalogue: Catalogue, *, path: Path, text: str, message: str, author: str, committer: str
) -> str | None:
    """Write `text` to `path` and commit it when the content folder is a repository; the catalogue
    reloads before this returns, so the next request here serves the change."""
    try:
        files.write_atomically(path, text)
    except OSError as error:
        raise NotWritable(
            f"the card's file could not be written ({error.strerror or error}): nothing changed"
        ) from None
    try:
        return files.commit(
            catalogue.content_dir,
            path=path,
            message=message,
            author=files.person(author),
            committer=files.person(committer),
        )
    except files.CommitFailed as error:
        # The card is saved and served; the repository is the operator's to mend (a hook, a lock).
        log.warning("card %s saved but not committed: %s", path.name, error.message)
        return None
    finally:
        catalogue.reload()


def save(
    session: Session, *, catalogue: Catalogue, card_id: str, text: str, base: str, author_id: int, author: str
) -> Saved:
    """Save an author's edit of `card_id`, begun from `base` (the file as the editor opened it)."""
    text, base = as_typed(text), as_typed(base)
    with WRITING:  # the file is compared and written in one turn: two saves never cross
        snapshot = catalogue.snapshot()
        now = source(snapshot, card_id)
        card = checked(text, card_id=card_id, snapshot=snapshot)
        if now.text != base:
            raise Changed(card_id=card_id, base=base, current=now.text, mine=text)
        if text == now.text:
            return Saved(card_id, None)
        commit = write(
            catalogue,
            path=now.card.path,
            text=text,
            message=f"{subject('Edit', card)}\n\nSaved in the browser by {author}.",
            author=author,
            committer=author,
        )
    audit.record(
        session, kind="card_saved", user_id=author_id, actor_id=author_id, card=card_id, commit=commit
    )
    session.commit()
    return Saved(card_id, commit)


def create(session: Session, *, catalogue: Catalogue, text: str, author_id: int, author: str) -> Saved:
    """Save a new card under `<id>.md` in the content folder; an id or file already there is refused."""
    snapshot = catalogue.snapshot()
    card = checked(as_typed(text), card_id=None, snapshot=snapshot)
    folder = catalogue.content_dir
    if not folder.is_dir():
        raise NotWritable("the content folder is a single file here: new cards are written to a folder")
    path = folder / f"{card.id}.md"
    if card.id in snapshot.cards or card.id in snapshot.drafts or path.exists():
        raise Conflict(
            f"a card with the id '{card.id}' already exists: open it to edit it, or choose another id"
        )
    with WRITING:
        if path.exists():  # written meanwhile
            raise Conflict(f"a card with the id '{card.id}' already exists: open it to edit it")
        commit = write(
            catalogue,
            path=path,
            text=as_typed(text),
            message=f"{subject('Add', card)}\n\nWritten in the browser by {author}.",
            author=author,
            committer=author,
        )
    audit.record(
        session, kind="card_created", user_id=author_id, actor_id=author_id, card=card.id, commit=commit
    )
    session.commit()
    return Saved(card.id, commit)
