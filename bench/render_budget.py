"""What one author check (`POST /api/author/check`: parse, then render every depth) costs for a card
whose code blocks are built to make pygments rescan (target: each under 1 s), as a ratio to a card
with the same amount of ordinary python code, in the same run.

    .venv/bin/python -m bench.render_budget [--before]

`--before` also times pygments itself on the 60 KB blocks, as the check used to run it.
"""

import argparse
from functools import partial

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from app.authoring import service
from app.authoring.schemas import MAX_CARD_CHARS
from app.content.render import HIGHLIGHTED_LEXERS, MAX_HIGHLIGHTED_CHARS
from bench._timing import timed
from bench._verdict import run, verdict
from tests.factories import card_text

BLOCK_CHARS = 60_000
SCAFFOLD_CODE = "```python\n# a short, realistic example\n```"
# Openers each lexer rescans the rest of the block for, repeated to BLOCK_CHARS.
SLOW = {
    "mako": "<%",
    "jinja": "{#",
    "php": "<<<a\n",
    "html": "<!--",
}
ORDINARY = "    batch = dataset.map(parse, num_parallel_calls=AUTOTUNE).prefetch(2)\n"


def _repeat(unit: str, chars: int) -> str:
    return (unit * (chars // len(unit) + 1))[:chars]


def _card(blocks: list[tuple[str, str]]) -> str:
    code = "\n\n".join(f"```{language}\n{body}\n```" for language, body in blocks)
    return card_text("bench-card", **{SCAFFOLD_CODE: code})


def _check(text: str) -> None:
    shown = service.preview(text, {})
    assert shown.card is not None, shown.problems[:3]
    service.card_json(shown.card)


def _worst_card() -> str:
    """As many blocks at the cap as a card may hold, each of the highlighted languages' slowest
    kind: whitespace runs for python, an unclosed `(*` and the like for the others."""
    room = MAX_CARD_CHARS - len(card_text("bench-card")) - 1_000
    units = ["(*", "`", "<%", " x", "'\\"]
    blocks = []
    while room > MAX_HIGHLIGHTED_CHARS + 20:
        unit = units[len(blocks) % len(units)]
        blocks.append(("python", _repeat(unit, MAX_HIGHLIGHTED_CHARS - 1)))
        room -= MAX_HIGHLIGHTED_CHARS + 20
    return _card(blocks)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", action="store_true")
    args = parser.parse_args()
    baseline_s = timed(lambda: _check(_card([("python", _repeat(ORDINARY, BLOCK_CHARS))])))
    print(f"baseline: a card with {BLOCK_CHARS // 1000} KB of ordinary python: {baseline_s:.3f} s")
    worst = 0.0
    for language, unit in SLOW.items():
        text = _card([(language, _repeat(unit, BLOCK_CHARS))])
        seconds = timed(partial(_check, text))
        worst = max(worst, seconds)
        print(f"{BLOCK_CHARS // 1000} KB of {language}: {seconds:.3f} s, ratio {seconds / baseline_s:.2f}")
        if args.before:
            lexer = get_lexer_by_name(language)
            before = timed(partial(highlight, _repeat(unit, BLOCK_CHARS), lexer, HtmlFormatter()), runs=1)
            print(f"  pygments on it, as before: {before:.2f} s")
    text = _worst_card()
    seconds = timed(partial(_check, text))
    worst = max(worst, seconds)
    print(
        f"a {len(text) // 1000} KB card of python blocks at the {MAX_HIGHLIGHTED_CHARS}-character cap, "
        f"built to rescan: {seconds:.3f} s, ratio {seconds / baseline_s:.2f}"
    )
    print(f"highlighted languages: {', '.join(sorted(HIGHLIGHTED_LEXERS))}")
    verdict(worst < 1)


if __name__ == "__main__":
    run(main)
