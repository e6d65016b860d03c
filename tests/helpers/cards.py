"""What a card shows once answered: the revealed model answer and the quiz's results, at a depth."""

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.factories import OWNER_CARD
from tests.helpers.html import HTMX, soup_of


def reveal(client: TestClient, tier: str) -> BeautifulSoup:
    response = client.post(
        f"/cards/{OWNER_CARD}/reveal", data={"tier": tier, "kind": "solid", "seconds": "3"}, headers=HTMX
    )
    return soup_of(response)


def quiz_results(client: TestClient, tier: str) -> BeautifulSoup:
    response = client.post(f"/cards/{OWNER_CARD}/quiz", data={"tier": tier, "seconds": "5"}, headers=HTMX)
    return soup_of(response)


def plain(markdown: str) -> str:
    return markdown.replace("`", "")
