"""What a parsed card is made of. Markdown is kept beside its HTML, which is rendered on first use."""

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from app.content.render import inline_html, to_html
from app.content.tiers import Tier


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a content file, reported as `path:line: message`."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Text:
    """Card markdown. Rendering waits until a page needs it, so loading many cards stays cheap."""

    markdown: str
    inline: bool = False

    @cached_property
    def html(self) -> str:
        return inline_html(self.markdown) if self.inline else to_html(self.markdown)


@dataclass(frozen=True)
class Entry:
    """A follow-up (question, answer), a pitfall (claim, why wrong) or a true statement (claim, why)."""

    title: Text
    body: Text
    line: int


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
    points: tuple[Text, ...]
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
