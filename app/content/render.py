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
