"""One clock times every answer: static/js/clock.js shows it and sends its `seconds` with the form
it times, and every page with a clock loads it before the scripts that start one."""

import re

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from tests.factories import OWNER_CARD

SCRIPTS = PROJECT_ROOT / "static" / "js"
CLOCK = "/static/js/clock.js"
# Writing the time taken into a request htmx is about to send.
SENDS_SECONDS = re.compile(r"parameters\s*(\.\s*seconds|\[\s*[\"']seconds[\"']\s*\])")
# Working out a clock's text.
SHOWS_TIME = re.compile(r"function\s+(showTime|format)\b")
CLOCK_PAGES = (
    "/practice",
    f"/cards/{OWNER_CARD}",
    f"/cards/{OWNER_CARD}/quiz?tier=middle",
)


def _scripts() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(SCRIPTS.glob("*.js"))}


def test_only_the_clock_module_sends_the_time_taken_and_writes_a_clock() -> None:
    scripts = _scripts()
    assert [name for name, text in scripts.items() if SENDS_SECONDS.search(text)] == ["clock.js"]
    assert {name for name, text in scripts.items() if SHOWS_TIME.search(text)} == {"clock.js"}


@pytest.mark.parametrize("url", CLOCK_PAGES)
def test_a_page_with_a_clock_loads_the_clock_before_the_scripts_that_start_one(
    client: TestClient, url: str
) -> None:
    response = client.get(url)
    assert response.status_code == 200, response.text
    soup = BeautifulSoup(response.text, "html.parser")
    assert soup.select("[data-timer], [data-answer-timer]"), "the page shows a clock"
    sources = [str(s["src"]) for s in soup.find_all("script", src=True)]
    assert CLOCK in sources
    users = [src for src in sources if src.endswith(("/app.js", "/card.js"))]
    assert users and all(sources.index(CLOCK) < sources.index(src) for src in users)
    assert client.get(CLOCK).status_code == 200
