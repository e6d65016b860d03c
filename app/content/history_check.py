"""Edits that would orphan recorded answers: an answer point, pitfall or true statement whose id
(its text with case, punctuation and spacing ignored) is gone since the card was last committed.

Attempts store which items they covered or marked by those ids, so rewording an item quietly
starts its history over. Each card file is compared with its version at git's HEAD; a card
outside a git work tree, or not committed yet, has no published version to compare with.
"""

import re
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from app.content.cards import Card, Problem, quiz_item_id
from app.content.parser import CardParseError, parse_source

# How alike (difflib's ratio) an old item and a new one must be to read as one item reworded.
REWORDED = 0.5
# A line that starts an answer point, as the card format writes one: "1. text" or "1) text".
_NUMBERED_ITEM = re.compile(r"^\d{1,9}[.)][ \t]+(.*)$")


@dataclass(frozen=True)
class _Item:
    text: str
    id: str
    line: int


@dataclass(frozen=True)
class _Kind:
    noun: str
    section: str
    items: Callable[[Card, list[str]], list[_Item]]


def _point_lines(card: Card, lines: list[str]) -> list[_Item]:
    """Answer points with the line each starts on: the numbered item whose text opens the point."""
    items = []
    number = _section_line(lines, "Answer")
    for point in card.points:
        while number < len(lines):
            number += 1
            match = _NUMBERED_ITEM.match(lines[number - 1])
            if match and match.group(1).strip() and point.markdown.startswith(match.group(1).strip()):
                break
        items.append(_Item(point.markdown, point.key, number))
    return items


def _entries(costly: bool) -> Callable[[Card, list[str]], list[_Item]]:
    def items(card: Card, _lines: list[str]) -> list[_Item]:
        entries = card.pitfalls if costly else card.truths
        return [_Item(e.title.markdown, quiz_item_id(e, costly), e.line) for e in entries]

    return items


KINDS = (
    _Kind("answer point", "Answer", _point_lines),
    _Kind("pitfall", "Pitfalls", _entries(costly=True)),
    _Kind("true statement", "True statements", _entries(costly=False)),
)


def _section_line(lines: list[str], section: str) -> int:
    heading = f"## {section}"
    return next((n for n, line in enumerate(lines, start=1) if line.strip() == heading), 1)


def _similarity(old: _Item, new: _Item) -> float:
    return SequenceMatcher(None, old.text.lower(), new.text.lower()).ratio()


def _compare(
    path: Path, *, kind: _Kind, old: list[_Item], new: list[_Item], lines: list[str]
) -> list[Problem]:
    old_ids, new_ids = {item.id for item in old}, {item.id for item in new}
    gone = [item for item in old if item.id not in new_ids]
    fresh = [item for item in new if item.id not in old_ids]
    # The most alike pairs first, each item in at most one pair.
    pairs = sorted(
        ((_similarity(o, n), i, j) for i, o in enumerate(gone) for j, n in enumerate(fresh)), reverse=True
    )
    reworded: dict[int, _Item] = {}
    taken: set[int] = set()
    for ratio, i, j in pairs:
        if ratio >= REWORDED and i not in reworded and j not in taken:
            reworded[i] = fresh[j]
            taken.add(j)
    warnings = []
    for i, item in enumerate(gone):
        if (now := reworded.get(i)) is not None:
            change = f'was reworded to "{now.text}": its id changes from {item.id} to {now.id}'
            line = now.line
        else:
            change = f"was removed: its id {item.id} goes with it"
            line = _section_line(lines, kind.section)
        message = (
            f'{kind.noun} "{item.text}" {change} and the answers recorded against it will no longer count'
        )
        warnings.append(Problem(path, line, message))
    return warnings


def orphaning_edits(cards: Iterable[Card]) -> list[Problem]:
    """One warning per item whose id an uncommitted edit removes, in file and line order."""
    cards = list(cards)
    committed = _committed_texts([card.path for card in cards])
    warnings: list[Problem] = []
    for card in cards:
        old_source = committed.get(card.path)
        if old_source is None:
            continue
        try:
            source = card.path.read_text(encoding="utf-8")
            old_card = parse_source(old_source, card.path) if old_source != source else None
        except (OSError, CardParseError):
            continue  # gone since it was loaded, or a committed version this checker cannot read
        if old_card is None:
            continue
        warnings += item_changes(old_card, old_source=old_source, card=card, source=source)
    return sorted(warnings, key=lambda w: (str(w.path), w.line))


def item_changes(old_card: Card, *, old_source: str, card: Card, source: str) -> list[Problem]:
    """One warning per item of `old_card` whose id `card` no longer has (removed, or reworded so
    that its id changes), at the line of `source` where it went."""
    lines, old_lines = source.splitlines(), old_source.splitlines()
    warnings: list[Problem] = []
    for kind in KINDS:
        old, new = kind.items(old_card, old_lines), kind.items(card, lines)
        warnings += _compare(card.path, kind=kind, old=old, new=new, lines=lines)
    return warnings


def _committed_texts(paths: list[Path]) -> dict[Path, str]:
    """Each file's text at HEAD, for the files that have one in the first file's work tree (the
    content folder's), read by one `git cat-file` for them all."""
    if not paths:
        return {}
    folder = paths[0].resolve().parent
    try:
        top = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:  # no git at all
        return {}
    if top.returncode != 0:
        return {}
    root = Path(top.stdout.strip()).resolve()
    names: dict[str, Path] = {}
    for path in paths:
        try:
            names[path.resolve().relative_to(root).as_posix()] = path
        except ValueError:
            continue  # outside this work tree
    asked = [name for name in names if "\n" not in name]
    batch = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch"],
        input="".join(f"HEAD:{name}\n" for name in asked).encode(),
        capture_output=True,
        check=False,
    )
    texts: dict[Path, str] = {}
    output, offset = batch.stdout, 0
    for name in asked:
        end = output.find(b"\n", offset)
        if end < 0:
            break
        header = output[offset:end].split()
        offset = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # "missing": the file is new since HEAD
        size = int(header[2])
        blob, offset = output[offset : offset + size], offset + size + 1
        try:
            texts[names[name]] = blob.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts
