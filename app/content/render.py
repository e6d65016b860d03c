"""Markdown to HTML for card text. Authors' raw HTML is never trusted: it renders as text."""

from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_FORMATTER = HtmlFormatter(cssclass="highlight")

# Most pygments lexers rescan the rest of a block from each opener they cannot close (an unclosed
# `<!--`, `<%`, `{#`, heredoc, or a run of whitespace lines): seconds for 60 KB of mako, html,
# php or jinja, and for C, YAML or JavaScript too. So only these lexers (their first alias) are
# used, each measured on such inputs at the cap by bench/render_budget.py; a block in any other
# language, or longer than the cap, is shown as plain escaped code. Their cost grows with the
# square of a block's length, so the cap keeps the slowest whole card (MAX_CARD_CHARS of blocks)
# near a second.
HIGHLIGHTED_LEXERS = frozenset({"python", "pycon", "bash", "json", "toml", "diff", "sql", "text"})
MAX_HIGHLIGHTED_CHARS = 4_000


def _highlight(code: str, language: str, _attrs: str) -> str:
    if len(code) > MAX_HIGHLIGHTED_CHARS:
        return ""  # markdown-it falls back to an escaped <pre><code>
    try:
        lexer = get_lexer_by_name(language or "text")
    except ClassNotFound:
        return ""
    if lexer.aliases[0] not in HIGHLIGHTED_LEXERS:
        return ""
    # Trailing spaces show nothing, and runs of whitespace-only lines are what the python lexer
    # rescans: dropping them keeps its cost near linear.
    return highlight(_without_trailing_spaces(code), lexer, _FORMATTER)


def _without_trailing_spaces(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.split("\n"))


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


def _plain(tokens: list[Token]) -> str:
    parts: list[str] = []
    for token in tokens:
        if token.type in _TEXT_TOKENS:
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def inline_text(markdown: str) -> str:
    """One line of markdown as plain text, for places that show no markup (a browser tab's title)."""
    return "".join(_plain(block.children or []) for block in _markdown().parseInline(markdown))


def plain_lines(markdown: str) -> str:
    """Block markdown as plain text, a line per paragraph, a list item's marked "- " (for the
    coverage checker, which takes each list item as a claim of its own)."""
    lines, items = [], 0
    for token in _markdown().parse(markdown):
        items += {"list_item_open": 1, "list_item_close": -1}.get(token.type, 0)
        if token.type == "inline":
            lines.append(("- " if items else "") + _plain(token.children or []))
    return "\n".join(lines)


def to_plain(markdown: str) -> str:
    """Block markdown as plain text, its paragraphs joined by a space (a note's summary line)."""
    blocks = [_plain(token.children or []) for token in _markdown().parse(markdown) if token.type == "inline"]
    return " ".join(blocks)


def annotated_html(markdown: str, callouts: list[tuple[str, str]]) -> str:
    """`markdown` as HTML with each callout (quote, HTML) placed right after the paragraph, list
    item paragraph or table cell that quotes it: beside the claim, not at the bottom. A quote is
    matched in the markdown as written, whitespace aside; one that is not there is left out."""
    md = _markdown()
    tokens = md.parse(markdown)
    after: dict[int, list[str]] = {}  # the index of a block's closing token: callouts to follow it
    pending = [(" ".join(quote.split()), html) for quote, html in callouts]
    for index, token in enumerate(tokens):
        if token.type != "inline" or not pending:
            continue
        content = " ".join(token.content.split())
        after.setdefault(_block_end(tokens, index), []).extend(
            html for quote, html in pending if quote in content
        )
        pending = [(quote, html) for quote, html in pending if quote not in content]
    placed: list[Token] = []
    for index, token in enumerate(tokens):
        placed.append(token)
        if after.get(index):
            block = Token("html_block", "", 0)
            block.content = "".join(after[index])
            placed.append(block)
    return md.renderer.render(placed, md.options, {})


def _block_end(tokens: list[Token], inline: int) -> int:
    """Where a callout may follow the block holding the inline token at `inline`: its closing
    token, or for a table cell the end of the table (nothing may stand between cells)."""
    end = inline + 1
    if end < len(tokens) and tokens[end].type in ("td_close", "th_close"):
        while end < len(tokens) - 1 and tokens[end].type != "table_close":
            end += 1
    return end
