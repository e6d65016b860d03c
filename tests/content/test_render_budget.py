"""Code blocks are highlighted only where pygments' cost stays linear: a language whose lexer is
not listed as measured, or a block past the size cap, is shown as plain escaped code, whole."""

import pytest
from bs4 import BeautifulSoup
from pygments.lexer import Lexer

from app.content import render

pytestmark = pytest.mark.engine_agnostic

# 60 KB blocks that take pygments seconds to tens of seconds: each repeats an opener its lexer
# scans the rest of the block for.
SLOW_BLOCKS = {
    "mako": "<%" * 30_000,
    "jinja": "{#" * 30_000,
    "php": "<?php\n" + "<<<a\n" * 12_000,
    "html": "<!--" * 15_000,
}


def _code(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def _fence(language: str, code: str) -> str:
    return f"```{language}\n{code}\n```\n"


@pytest.mark.parametrize("language", sorted(SLOW_BLOCKS))
def test_a_block_in_a_super_linear_language_is_shown_plain_and_whole(language: str) -> None:
    code = SLOW_BLOCKS[language]
    page = _code(render.to_html(_fence(language, code)))
    assert page.select(".highlight") == []
    block = page.select_one("pre > code")
    assert block is not None and block.get_text() == code + "\n"


def test_a_python_block_is_highlighted_up_to_the_cap_and_plain_past_it() -> None:
    line = "x = compute(1)\n"
    short = line * ((render.MAX_HIGHLIGHTED_CHARS - 1) // len(line))
    long = line * (render.MAX_HIGHLIGHTED_CHARS // len(line) + 1)
    highlighted = _code(render.to_html(_fence("python", short.rstrip("\n"))))
    assert highlighted.select(".highlight span.n")  # names are marked up
    plain = _code(render.to_html(_fence("python", long.rstrip("\n"))))
    assert plain.select(".highlight") == []
    block = plain.select_one("pre > code")
    assert block is not None and block.get_text() == long


def test_no_lexer_is_handed_more_than_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """However many big blocks a text holds, in any language, pygments lexes at most the cap of
    each, with its lines' trailing spaces dropped (the runs of them some lexers rescan)."""
    lexed: list[str] = []
    real = Lexer.get_tokens

    def spy(self: Lexer, text: str, unfiltered: bool = False):  # type: ignore[no-untyped-def]
        lexed.append(text)
        return real(self, text, unfiltered)

    monkeypatch.setattr(Lexer, "get_tokens", spy)
    big = " \n" * render.MAX_HIGHLIGHTED_CHARS
    blocks = [_fence(language, big) for language in ("python", "c", "autohotkey", "yaml", "json")]
    blocks.append(_fence("python", "def f():  \n    return 1   \n"))
    render.to_html("\n".join(blocks))
    assert lexed, "the small python block is highlighted"
    assert all(len(text) <= render.MAX_HIGHLIGHTED_CHARS for text in lexed)
    assert not any(line.endswith((" ", "\t")) for text in lexed for line in text.split("\n"))
