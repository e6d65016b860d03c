"""The author preview read as a person sees it."""

from bs4 import BeautifulSoup, Tag
from fastapi.testclient import TestClient

from tests.helpers.html import HTMX, one, soup_of

# The one card the author tests' content folder serves (so a text that takes its id can be told so).
SERVED = "served-card"


def preview_of(client: TestClient, text: str, **form: str) -> Tag:
    """The preview the live update swaps in for `text`."""
    response = client.post("/author", data={"text": text, **form}, headers=HTMX)
    return one(soup_of(response), "#author-preview")


def problems(preview: Tag) -> list[str]:
    """Each problem as the list shows it: 'line N: message'."""
    return [" ".join(li.get_text().split()) for li in preview.select(".author-problems li")]


def textarea_text(page: BeautifulSoup) -> str:
    """The text a browser puts in the box: it drops the one line break right after the tag."""
    return one(page, "textarea[name=text]").get_text().removeprefix("\n")
