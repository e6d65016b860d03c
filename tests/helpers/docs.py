"""The project's documentation as GitHub shows it: README.md and docs/*.md, the anchors GitHub makes
of their headings, and the links between them and into the repository."""

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from app import PROJECT_ROOT

README = PROJECT_ROOT / "README.md"
DOCS = PROJECT_ROOT / "docs"

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target "title") and ![alt](target): the text may hold one level of brackets.
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s)>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]*)\"", re.I)
_HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)=\"([^\"]*)\"", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
# GitHub's anchors for lines of a file that is not rendered as markdown: #L12, #L12-L20.
_LINE_ANCHOR = re.compile(r"^L\d+(?:-L\d+)?$")


def doc_paths() -> list[Path]:
    """README.md, then every markdown file under docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def read_docs() -> str:
    """README.md and docs/*.md as one text: what a test that a statement is documented reads."""
    return "\n".join(path.read_text(encoding="utf-8") for path in doc_paths())


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of the lines outside fenced code blocks."""
    lines, fence = [], ""
    for number, line in enumerate(text.splitlines(), 1):
        opening = _FENCE.match(line)
        if fence:
            if (
                opening
                and opening[1][0] == fence[0]
                and len(opening[1]) >= len(fence)
                and not line.strip(fence[0] + " ")
            ):
                fence = ""
        elif opening:
            fence = opening[1]
        else:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: its markdown taken off (a link keeps its text), lower
    case, every character but letters, digits, `-`, `_` and spaces dropped, each space a `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = "".join(ch for ch in text.lower() if ch.isalnum() or ch in "-_ ")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every `#anchor` GitHub makes in a markdown file: its headings' slugs (a repeated one gets
    `-1`, `-2`, ...) and the HTML anchors written into it."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        if heading := _HEADING.match(line):
            base = slug(heading[2])
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(_HTML_ANCHOR.findall(line))
    return found


@dataclass(frozen=True)
class Link:
    source: Path
    line: int
    target: str


def links(path: Path) -> list[Link]:
    """The links of a markdown file that GitHub renders as links: inline, images, reference
    definitions and HTML `href`/`src`, none of those inside code blocks or code spans."""
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        prose = _CODE_SPAN.sub(lambda span: " " * len(span[0]), line)
        targets = _INLINE_LINK.findall(prose) + _HTML_LINK.findall(prose)
        if reference := _REFERENCE.match(prose):
            targets.append(reference[1])
        found += [Link(path, number, target) for target in targets]
    return found


def problem(link: Link, root: Path = PROJECT_ROOT) -> str | None:
    """Why a link would be broken on GitHub, or None. Links to other sites are not followed."""
    target = link.target
    if not target:
        return "an empty link"
    if _SCHEME.match(target) or target.startswith("//"):
        return None
    address, _, fragment = target.partition("#")
    destination = (link.source.parent / unquote(address)).resolve() if address else link.source.resolve()
    if not destination.is_relative_to(root):
        return f"{address} is outside the repository"
    if not destination.exists():
        return f"{address} does not exist"
    if not fragment:
        return None
    if destination.suffix.lower() == ".md":
        if unquote(fragment) not in anchors(destination):
            return f"#{fragment} is no heading of {destination.relative_to(root)}"
    elif not _LINE_ANCHOR.match(fragment):
        return f"#{fragment} is not a line anchor of {address}"
    return None


def broken_links(paths: list[Path], root: Path = PROJECT_ROOT) -> list[str]:
    """`file:line: target: why` for every broken link of those files, in a repository at `root`."""
    return [
        f"{path.resolve().relative_to(root)}:{link.line}: {link.target}: {why}"
        for path in paths
        for link in links(path)
        if (why := problem(link, root)) is not None
    ]
