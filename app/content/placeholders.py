"""The text `tiercards content new` writes for an author to replace: a card still holding any cannot
leave draft (each such text is a problem at its line, a warning while the card is a draft), and what
the template says in Basics and Solid answer covers no point. The placeholders are read from the
template itself, so they stay the ones it writes."""

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

from app.content.cards import Card, Problem, Text
from app.content.parser import CardParseError, parse_source
from app.content.scaffold import new_card

# What opens a line of a card's markdown before its text: a heading's, a list item's mark.
_MARK = re.compile(r"^(?:#{1,6}|\d{1,9}[.)]|[-*+])?[ \t]*")


def _texts(card: Card) -> list[tuple[Text, int]]:
    """Each text of the card an author writes below the frontmatter, with the line it starts at
    or, for a section's body (whose line a card does not keep), follows."""
    sections = (card.basics, card.solid, card.code, *card.go_deeper.values(), card.deep_dive)
    entries = (*card.follow_ups, *card.pitfalls, *card.truths)
    return [
        *((point, point.line) for point in card.points),
        *((text, 1) for text in sections),
        *((text, entry.line) for entry in entries for text in (entry.title, entry.body)),
    ]


def _words(markdown: str) -> str:
    return " ".join(markdown.split())


@cache
def _placeholders() -> frozenset[str]:
    template = parse_source(new_card("template", title="A new question?"), Path("template.md"))
    return frozenset(_words(text.markdown) for text, _ in _texts(template))


def _shown(markdown: str) -> str:
    """The line a text is found by and quoted as: its first, or a code block's first of code."""
    return next(line for line in markdown.splitlines() if not line.startswith("```")).strip()


def placeholders(card: Card, source: str) -> list[Problem]:
    """A problem at each text of `card` (parsed from `source`) still as the template wrote it; only
    a warning while the card is a draft."""
    found = [(text, start) for text, start in _texts(card) if _words(text.markdown) in _placeholders()]
    if not found:
        return []  # the catalogue asks of every card: its lines are read only for one that has some
    lines = [_MARK.sub("", line.strip()) for line in source.splitlines()]
    problems = []
    for text, start in found:
        shown = _shown(text.markdown)
        wanted = _MARK.sub("", shown)
        line = next((n for n in range(start, len(lines) + 1) if lines[n - 1] == wanted), start)
        problems.append(Problem(card.path, line, _message(shown, draft=card.draft)))
    return problems


def _message(shown: str, *, draft: bool) -> str:
    if draft:
        return f"warning: \"{shown}\" is the template's placeholder text: replace it with the card's own"
    return (
        f'"{shown}" is the template\'s placeholder text: replace it before the card leaves draft '
        "(draft: true keeps it to authors)"
    )


def parse_checked(source: str, path: Path) -> Card:
    """parse_source, refusing too a card that has left draft with the template's text still in it:
    the catalogue loads cards so, and `tiercards content check` reports what it refuses."""
    card = parse_source(source, path)
    if not card.draft and (problems := placeholders(card, source)):
        raise CardParseError(problems)
    return card


def without_placeholder_answer(card: Card) -> Card:
    """The card with its Basics and Solid answer left empty where they are still the template's:
    the model answer the coverage checker reads, so a placeholder covers no point."""
    return replace(card, basics=_written(card.basics), solid=_written(card.solid))


def _written(text: Text) -> Text:
    return Text("") if _words(text.markdown) in _placeholders() else text
