"""What the templates print alike comes from one macros file: every form's CSRF field and every
percentage. A form written without the macro could post no token, or one the page cache does
not swap for the requester's own."""

import re
from collections.abc import Callable

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from tests.factories import OWNER_CARD

TEMPLATES = PROJECT_ROOT / "templates"
MACROS = "_macros.html"
CSRF_INPUT = re.compile(r"<input\b[^>]*\bname=[\"']?csrf_token\b", re.IGNORECASE)
PERCENT_MACRO = re.compile(r"\{%-?\s*macro\s+percent\s*\(")
# `(x * 100)|round|int`: a share turned into a percentage by hand.
PERCENT_BY_HAND = re.compile(r"\*\s*100\s*\)\s*\|\s*round")
# Pages a signed-in admin sees with forms that post; the card page twice, the second time from
# the page cache.
FORM_PAGES = (
    f"/cards/{OWNER_CARD}",
    f"/cards/{OWNER_CARD}",
    f"/cards/{OWNER_CARD}/quiz?tier=middle",
    "/practice",
    "/progress",
    "/account",
    "/account/privacy",
    "/admin/users",
    "/team",
    "/author",
)


def _templates() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(TEMPLATES.glob("*.html"))}


def test_no_template_writes_a_hidden_csrf_field_by_hand() -> None:
    sources = _templates()
    by_hand = [name for name, text in sources.items() if name != MACROS and CSRF_INPUT.search(text)]
    assert by_hand == []
    assert CSRF_INPUT.search(sources[MACROS]), "the macros file holds the one CSRF field"


def test_percent_is_defined_once_and_no_template_works_one_out_by_hand() -> None:
    sources = _templates()
    defined = [name for name, text in sources.items() for _ in PERCENT_MACRO.finditer(text)]
    assert defined == [MACROS]
    assert [name for name, text in sources.items() if name != MACROS and PERCENT_BY_HAND.search(text)] == []


def _forms_tokens(html: str) -> tuple[str, list[list[str]]]:
    soup = BeautifulSoup(html, "html.parser")
    meta = soup.find("meta", attrs={"name": "csrf-token"})
    assert meta is not None
    forms = soup.find_all("form", attrs={"method": "post"})
    assert forms, "the page has forms that post"
    fields = [[str(i.get("value")) for i in f.find_all("input", attrs={"name": "csrf_token"})] for f in forms]
    return str(meta["content"]), fields


@pytest.mark.parametrize("url", FORM_PAGES)
def test_every_form_that_posts_carries_exactly_the_token_of_whoever_asked(
    signed_in: Callable[[str], TestClient], url: str
) -> None:
    for name in ("root", "bob"):  # bob's cached pages were first rendered for root
        person = signed_in(name)
        response = person.get(url)
        if name == "bob" and response.status_code == 403:
            continue  # a member does not see the admin's pages
        assert response.status_code == 200, response.text
        token, fields = _forms_tokens(response.text)
        assert token == person.headers["X-CSRF-Token"]
        assert fields == [[token]] * len(fields)


def test_a_form_posted_without_scripts_is_accepted_with_the_field_it_carries(
    signed_in: Callable[[str], TestClient],
) -> None:
    bob = signed_in("bob")
    soup = BeautifulSoup(bob.get("/practice").text, "html.parser")
    form = soup.select_one("form.practice-answer")
    assert form is not None
    fields = {
        str(i["name"]): str(i.get("value", "")) for i in form.find_all("input", attrs={"type": "hidden"})
    }
    del bob.headers["X-CSRF-Token"]  # a plain form post sends the field, not the header
    shown = bob.post(str(form["action"]), data=fields | {"seconds": "12", "text": "prefetch last"})
    assert shown.status_code == 200, shown.text
    took = BeautifulSoup(shown.text, "html.parser").select_one("#practice-card .took")
    assert took is not None and took.get_text().startswith("You took 12 s of ~")
