"""The answer clock on /practice and on the card page runs for the card's own time budget."""

from pathlib import Path

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app.content.parser import parse_card
from app.content.tiers import default_answer_kind
from tests.factories import card_text, write_card

TIMINGS = {"  basics: 20\n  solid: 50": "  basics: 15\n  solid: 70"}


def _limits(html: str) -> list[str]:
    soup = BeautifulSoup(html, "html.parser")
    return [str(timer["data-limit"]) for timer in soup.select("[data-limit]")]


def test_practice_and_the_card_page_count_down_from_the_card_s_budget(
    client: TestClient, content_folder: Path
) -> None:
    card = parse_card(write_card(content_folder, "sample-card.md", card_text(**TIMINGS)))
    practice = client.get("/practice")
    assert practice.status_code == 200, practice.text
    assert _limits(practice.text) == [str(card.time_budget(default_answer_kind("middle")))]
    for kind in ("basics", "solid"):
        page = client.get(f"/cards/{card.id}", params={"tier": "middle", "kind": kind})
        assert page.status_code == 200, page.text
        assert _limits(page.text) == [str(card.time_budget(kind))]
