"""What a change to a card's markdown looks like to a reviewer: the lines side by side, unchanged
runs folded to a few lines of context, and the card's sections as rendered before and after."""

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from app.content.cards import Card, Entry, Text

# Unchanged lines kept around each change; a longer unchanged run is folded to a count.
CONTEXT = 3

RowKind = Literal["same", "changed", "removed", "added", "folded"]


@dataclass(frozen=True)
class Row:
    """One line of the side-by-side view: the old line and the new one, 1-based numbers, or a
    fold standing for `folded` unchanged lines."""

    kind: RowKind
    old_number: int | None = None
    old: str = ""
    new_number: int | None = None
    new: str = ""
    folded: int = 0


def side_by_side(old_text: str, new_text: str) -> list[Row]:
    old, new = old_text.splitlines(), new_text.splitlines()
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += _unchanged(old, i=i1, j=j1, count=i2 - i1, first=not rows, last=i2 == len(old))
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            o, n = i1 + k, j1 + k
            has_old, has_new = o < i2, n < j2
            kind: RowKind = "changed" if has_old and has_new else "removed" if has_old else "added"
            rows.append(
                Row(
                    kind,
                    o + 1 if has_old else None,
                    old[o] if has_old else "",
                    n + 1 if has_new else None,
                    new[n] if has_new else "",
                )
            )
    return rows


def _unchanged(lines: list[str], *, i: int, j: int, count: int, first: bool, last: bool) -> list[Row]:
    """An unchanged run: CONTEXT lines on each side that touches a change, the rest folded."""
    head = 0 if first else CONTEXT
    tail = 0 if last else CONTEXT
    if head + tail >= count:
        shown = range(count)
        return [Row("same", i + k + 1, lines[i + k], j + k + 1, lines[i + k]) for k in shown]
    rows = [Row("same", i + k + 1, lines[i + k], j + k + 1, lines[i + k]) for k in range(head)]
    rows.append(Row("folded", folded=count - head - tail))
    rows += [
        Row("same", i + k + 1, lines[i + k], j + k + 1, lines[i + k]) for k in range(count - tail, count)
    ]
    return rows


@dataclass(frozen=True)
class Section:
    """A section of the card that the change touches, rendered as the card page shows it."""

    name: str
    old_html: str
    new_html: str


def _entries_html(entries: tuple[Entry, ...]) -> str:
    return "".join(f"<h4>{e.title.html}</h4>{e.body.html}" for e in entries)


def _sections(card: Card) -> dict[str, str]:
    points = "".join(f"<li>{point.html}</li>" for point in card.points)
    deeper = "".join(f"<h4>{tier}</h4>{text.html}" for tier, text in card.go_deeper.items())
    texts: dict[str, Text | str] = {
        "Title": card.title,
        "Answer points": f"<ol>{points}</ol>",
        "Basics": card.basics,
        "Solid answer": card.solid,
        "Code": card.code,
        "Go deeper": deeper,
        "Deep dive": card.deep_dive,
        "Follow-ups": _entries_html(card.follow_ups),
        "Pitfalls": _entries_html(card.pitfalls),
        "True statements": _entries_html(card.truths),
    }
    return {name: text if isinstance(text, str) else text.html for name, text in texts.items()}


def changed_sections(old: Card, new: Card) -> list[Section]:
    before, after = _sections(old), _sections(new)
    return [Section(name, before[name], after[name]) for name in before if before[name] != after[name]]
