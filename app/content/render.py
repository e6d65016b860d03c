"""Markdown to HTML for card text. Authors' raw HTML is never trusted: it renders as text."""

from functools import lru_cache

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(cssclass="highlight")


def _highlight(code: str, language: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(language or "text")
    except ClassNotFound:
        return ""  # markdown-it falls back to an escaped <pre><code>
    return highlight(code, lexer, _FORMATTER)


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    # "html": False turns raw HTML blocks and inline tags into escaped text.
    return MarkdownIt("commonmark", {"html": False, "highlight": _highlight}).enable("table")


def to_html(markdown: str) -> str:
    return _markdown().render(markdown)


def inline_html(markdown: str) -> str:
    """One line of markdown (a title, an answer point) without the wrapping paragraph."""
    return _markdown().renderInline(markdown)


# Inline tokens whose content is text a reader sees: code spans read as their code, images as
# their alternative text; the marks around emphasis and links carry none.
_TEXT_TOKENS = frozenset({"text", "code_inline", "image"})


def inline_text(markdown: str) -> str:
    """One line of markdown as plain text, for places that show no markup (a browser tab's title)."""
    parts: list[str] = []
    for block in _markdown().parseInline(markdown):
        for token in block.children or ():
            if token.type in _TEXT_TOKENS:
                parts.append(token.content)
            elif token.type in ("softbreak", "hardbreak"):
                parts.append(" ")
    return "".join(parts)
