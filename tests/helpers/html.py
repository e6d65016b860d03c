"""Pages read as a person reads them: parsed HTML and the elements a test looks for."""

import httpx
from bs4 import BeautifulSoup, Tag

# What a browser asks for, and what htmx adds to the requests it makes.
HTML = {"Accept": "text/html"}
HTMX = {"HX-Request": "true"}


def soup_of(page: httpx.Response | str, status: int = 200) -> BeautifulSoup:
    """`page` parsed; a response must have `status` (the failure shows its text)."""
    if isinstance(page, str):
        return BeautifulSoup(page, "html.parser")
    assert page.status_code == status, page.text
    return BeautifulSoup(page.text, "html.parser")


def one(tag: Tag, css: str) -> Tag:
    """The one element `css` finds in `tag`; it must be there."""
    found = tag.select_one(css)
    assert found is not None, css
    return found


def text_of(tag: Tag, css: str) -> str:
    """The text of the one element `css` finds in `tag`; it must be there."""
    return one(tag, css).get_text(" ", strip=True)
