"""The in-memory card catalogue: every valid card, every draft, every broken file, reloaded when
files change."""

import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from app.content.cards import Card, Problem
from app.content.library import Library
from app.content.parser import CardParseError
from app.content.placeholders import parse_checked

AUTHORING_GUIDE = "README.md"


@dataclass(frozen=True)
class Snapshot:
    # The cards served: the library, practice, interviews and the API read these alone.
    cards: dict[str, Card] = field(default_factory=dict)
    # Cards marked `draft: true`: valid, but served to no one until the mark is removed.
    drafts: dict[str, Card] = field(default_factory=dict)
    # Files that could not be served, with what is wrong in each.
    broken: dict[Path, list[Problem]] = field(default_factory=dict)

    @property
    def problems(self) -> list[Problem]:
        return [problem for problems in self.broken.values() for problem in problems]

    @cached_property
    def library(self) -> Library:
        """Built on first use and kept while this snapshot is served, not rebuilt per request."""
        return Library(self.cards.values())


def card_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.md") if p.name != AUTHORING_GUIDE)


def load(path: Path) -> Snapshot:
    """Parse every card under `path` (a folder or one file); a bad file never hides the good ones."""
    if not path.exists():
        return Snapshot(broken={path: [Problem(path, 0, "no such file or folder")]})
    cards: dict[str, Card] = {}  # drafts too, so that an id is taken once across both
    broken: dict[Path, list[Problem]] = {}
    for file in card_files(path):
        card = _parsed(file)
        if isinstance(card, list):
            broken[file] = card
            continue
        if card.id in cards:
            # The file name alone: the message is shown in the app, and the server's folders are its own.
            first = cards[card.id].path.name
            broken[file] = [Problem(file, _id_line(file), f"duplicate id '{card.id}' (also in {first})")]
            continue
        cards[card.id] = card
    ordered = sorted(cards.items(), key=lambda item: item[1].title.markdown.lower())
    return Snapshot(
        cards={card_id: card for card_id, card in ordered if not card.draft},
        drafts={card_id: card for card_id, card in ordered if card.draft},
        broken=broken,
    )


def _parsed(file: Path) -> Card | list[Problem]:
    """The card in `file`, or what is wrong with it."""
    try:
        return parse_checked(file.read_text(encoding="utf-8"), file)
    except CardParseError as error:
        return error.problems
    except OSError as error:
        # Its reason alone: str(error) names the file by its full path.
        return [Problem(file, 1, f"cannot read the file: {error.strerror or type(error).__name__}")]
    except UnicodeDecodeError as error:
        return [Problem(file, 1, f"cannot read the file: {error}")]


def _id_line(path: Path) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("id:"):
            return number
    return 1


def _signature(path: Path) -> tuple[tuple[str, int, int], ...]:
    signature = []
    for file in card_files(path) if path.exists() else []:
        try:
            stat = file.stat()
        except FileNotFoundError:
            continue
        signature.append((str(file), stat.st_mtime_ns, stat.st_size))
    return tuple(signature)


class Catalogue:
    """Serves the newest snapshot; looks at the folder at most once per `poll_seconds`."""

    def __init__(self, content_dir: Path, poll_seconds: float = 1.0) -> None:
        self.content_dir = content_dir
        self.poll_seconds = poll_seconds
        self._lock = threading.Lock()
        self._signature = _signature(content_dir)
        self._snapshot = load(content_dir)
        self._checked_at = time.monotonic()

    def snapshot(self) -> Snapshot:
        if time.monotonic() - self._checked_at >= self.poll_seconds:
            self._reload_if_changed()
        return self._snapshot

    def reload(self) -> None:
        """Rescan now, waiting for a rescan under way: a card saved through the app is served by
        this process at once, even when the save kept the file's size and time stamp."""
        with self._lock:
            self._rescan(force=True)

    def _reload_if_changed(self) -> None:
        # One request rescans; the others keep serving the current snapshot meanwhile.
        if not self._lock.acquire(blocking=False):
            return
        try:
            self._rescan(force=False)
        finally:
            self._lock.release()

    def _rescan(self, *, force: bool) -> None:
        """Load the folder again if it changed since the last load (or `force`); the lock is held."""
        signature = _signature(self.content_dir)
        if force or signature != self._signature:
            self._snapshot = load(self.content_dir)
            self._signature = signature
        self._checked_at = time.monotonic()

    def get(self, card_id: str) -> Card | None:
        return self.snapshot().cards.get(card_id)
