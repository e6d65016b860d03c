"""What a parsed card is made of. Markdown is kept beside its HTML, which is rendered on first use."""

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from app.content.render import inline_html, inline_text, plain_lines, to_html, to_plain
from app.content.tiers import Tier


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a content file, reported as `path:line: message`."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


# Markdown marks (`*_~#[]` and backticks) and every other punctuation mark; `_` counts as a word
# character to \w, so it is named on its own.
_PUNCTUATION = re.compile(r"[^\w\s]|_")


def item_key(markdown: str) -> str:
    """The stable id of an answer point or quiz statement: 8 hex digits of the sha256 of its text
    with case, punctuation and spacing ignored, so small edits keep it and rewording changes it."""
    words = _PUNCTUATION.sub("", markdown.lower()).split()
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Text:
    """Card markdown. Rendering waits until a page needs it, so loading many cards stays cheap."""

    markdown: str
    inline: bool = False

    @cached_property
    def html(self) -> str:
        return inline_html(self.markdown) if self.inline else to_html(self.markdown)

    @cached_property
    def plain(self) -> str:
        """A line without its markdown marks, for a browser tab's title or a sentence in a message."""
        return inline_text(self.markdown)

    @cached_property
    def lines(self) -> str:
        """Block markdown as plain text, a line per paragraph or list item (marked "- ")."""
        return plain_lines(self.markdown)

    @cached_property
    def key(self) -> str:
        return item_key(self.markdown)


@dataclass(frozen=True)
class Point(Text):
    """An answer point: its words (its key, as a Text's), and what its author gives the coverage
    checker to recognise it by: a sentence explaining it, and phrasings a person may say it in."""

    explanation: str = ""
    phrasings: tuple[str, ...] = ()
    # Where the point starts in its file, for messages about it; not part of what the point is.
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Entry:
    """A follow-up (question, answer), a pitfall (claim, why wrong) or a true statement (claim, why)."""

    title: Text
    body: Text
    line: int
    # A follow-up's `Probes:` line: the answer points and pitfalls it tests, as indexes into the
    # card's lists. A mock interview asks it when an answer missed one of those points or
    # asserted one of those pitfalls.
    points: tuple[int, ...] = ()
    pitfalls: tuple[int, ...] = ()

    @property
    def key(self) -> str:
        """From the statement (the heading) alone: rewriting the why keeps the entry's history."""
        return self.title.key


def quiz_item_id(entry: Entry, costly: bool) -> str:
    """A pitfall's quiz id is "p-<key>" (saying it is costly), a true statement's "t-<key>"."""
    return pitfall_id(entry.key) if costly else f"t-{entry.key}"


def pitfall_id(key: str) -> str:
    """The id a pitfall is named by outside the app (card API, coverage API, exports): its quiz id.
    The coverage checker and the attempts' stored suggestions keep the bare key."""
    return f"p-{key}"


@dataclass(frozen=True)
class NoteDemo:
    """The live demo that measures a version note's claim: one variant of a preset, optionally
    against another, with the parameters that show the effect (the rest stay at their defaults)."""

    preset: str
    variant: str
    against: str | None
    params: tuple[tuple[str, int], ...]


# A note's summary is its first sentence: up to the first full stop followed by a space.
_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)", re.DOTALL)


@dataclass(frozen=True)
class VersionNote:
    """What a TensorFlow release does to one sentence of the card, shown beside that sentence.

    The card's own words stay as written; the note quotes them (`quote`, markdown as written in
    the card) and says what was checked, against which version, where, and what measures it."""

    quote: str
    checked: str  # "TensorFlow 2.21"
    sources: tuple[str, ...]
    # TensorFlow defaults the note relies on (app/content/tf_defaults.py); a test keeps them true.
    relies_on: tuple[str, ...]
    demo: NoteDemo | None
    body: Text
    line: int

    @property
    def key(self) -> str:
        return item_key(self.quote)

    @cached_property
    def quoted(self) -> Text:
        return Text(self.quote, inline=True)

    @cached_property
    def summary(self) -> str:
        plain = " ".join(to_plain(self.body.markdown).split())
        match = _FIRST_SENTENCE.match(plain)
        return match.group(1) if match else plain

    def quoted_in(self, markdown: str) -> bool:
        return squeeze(self.quote) in squeeze(markdown)


def squeeze(markdown: str) -> str:
    """Text with every run of whitespace made one space: a quote matches across line breaks."""
    return " ".join(markdown.split())


@dataclass(frozen=True)
class Timings:
    basics: int
    solid: int


@dataclass(frozen=True)
class Card:
    id: str
    title: Text
    level: Tier
    importance: str
    frequency: float
    topics: tuple[str, ...]
    timings: Timings
    demos: tuple[str, ...]
    points: tuple[Point, ...]
    basics: Text
    solid: Text
    code: Text
    code_language: str
    code_line_count: int
    go_deeper: dict[Tier, Text]
    deep_dive: Text
    follow_ups: tuple[Entry, ...]
    pitfalls: tuple[Entry, ...]
    truths: tuple[Entry, ...]
    path: Path = field(compare=False)
    notes: tuple[VersionNote, ...] = ()
    # `draft: true`: still being written, so the catalogue keeps it out of what it serves.
    draft: bool = False

    @cached_property
    def point_ids(self) -> tuple[str, ...]:
        return tuple(point.key for point in self.points)

    def time_budget(self, answer_kind: str) -> int:
        """The seconds an answer of this length is given: the basics' timing, else the solid
        answer's (what the clock counts down from and what "in time" means on the dashboard)."""
        return self.timings.basics if answer_kind == "basics" else self.timings.solid

    def point_positions(self, ids: Iterable[str]) -> list[int]:
        """Where the points with these ids stand in the card now; ids it no longer has are left out."""
        wanted = set(ids)
        return [position for position, key in enumerate(self.point_ids) if key in wanted]
