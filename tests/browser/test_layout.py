"""Every page fits a phone: nothing scrolls sideways at 360 and 390 px (long code wraps or scrolls
in its own box, wide tables and timelines scroll inside their container or reflow), and the page
list is checked against the app's route table so a new page cannot be left out."""

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from app.factory import create_app
from app.settings import Settings
from app.web.openapi import route_table
from tests.factories import OWNER_CARD
from tests.helpers.browser import SITE_PAGES, Site, SitePage, open_page, site_page
from tests.helpers.clients import csrf_client
from tests.helpers.payloads import attempt_payload, demo_run_payload

# GET routes that answer JSON or text for programs, not pages for people.
NOT_PAGES = ("/healthz", "/readyz", "/metrics")
# Pages served outside the OpenAPI schema, so absent from the route table.
UNLISTED_PAGES = {"/docs"}


def test_every_page_route_is_in_the_page_list(settings: Settings) -> None:
    app = create_app(settings)
    pages = {
        path for method, path in route_table(app) if method == "GET" and not path.startswith("/api/")
    } - set(NOT_PAGES)
    listed = {entry.route for entry in SITE_PAGES}
    assert sorted((pages | UNLISTED_PAGES) - listed) == [], "add these pages to SITE_PAGES"
    assert sorted(listed - pages - UNLISTED_PAGES) == [], "these pages are gone: remove them from SITE_PAGES"


def _overflow(page: Page) -> dict[str, Any]:
    """The page's width against the window's, and the elements that stick out past its right edge
    (those inside a box that scrolls or clips on its own are fine)."""
    return page.evaluate(
        """() => {
          const width = window.innerWidth;
          const clipped = el => {
            for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
              if (getComputedStyle(up).overflowX !== 'visible') return true;
            }
            return false;
          };
          const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
            (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
          const wide = [...document.body.querySelectorAll('*')]
            .filter(el => el.getBoundingClientRect().right > width + 0.5 && !clipped(el))
            .map(el => `${name(el)} to ${Math.round(el.getBoundingClientRect().right)} px`);
          return {scroll: document.documentElement.scrollWidth, window: width, wide: wide.slice(0, 8)};
        }"""
    )


@pytest.mark.parametrize("viewport", [360, 390], indirect=True, ids=lambda w: f"{w}px")
@pytest.mark.parametrize("entry", SITE_PAGES, ids=lambda entry: entry.name)
def test_no_page_scrolls_sideways_on_a_phone(
    browser: Browser, site: Site, entry: SitePage, viewport: ViewportSize
) -> None:
    with site_page(browser, site, entry, viewport) as page:
        measured = _overflow(page)
        assert measured["scroll"] <= measured["window"], f"{entry.name} is wider than the phone: {measured}"


@pytest.mark.parametrize("viewport", [390], indirect=True, ids=lambda w: f"{w}px")
def test_a_demo_page_with_history_scrolls_its_table_in_its_own_box(
    browser: Browser, base_url: str, viewport: ViewportSize
) -> None:
    """Three runs waiting for a worker (this server has none), of the presets with the most
    parameters: a history table wider than the phone, which must scroll inside its box."""
    client = csrf_client(base_url, page="/")
    runs = [
        client.post("/api/demos", json=demo_run_payload(preset=preset, params={}, card_id=OWNER_CARD))
        for preset in ("jitter", "deficit", "placement")
    ]
    try:
        assert [run.status_code for run in runs] == [202] * 3, runs[-1].text
        with open_page(browser, viewport) as page:
            page.goto(f"{base_url}/demos/{runs[-1].json()['run_id']}")
            page.wait_for_load_state("networkidle")
            # These three at least: the other browser tests' runs on this server are listed too.
            assert page.locator("#demo-history tr.demo-history-row").count() >= 3
            box = page.locator("#demo-history .table-wrap")
            scrolls = box.evaluate("el => [el.scrollWidth, el.clientWidth, el.getBoundingClientRect().right]")
            measured = _overflow(page)
    finally:  # the queue holds three of a person's runs at most; the other browser tests share it
        for run in runs:
            if run.status_code == 202:
                client.post(f"/api/demos/{run.json()['run_id']}/cancel")
    assert scrolls[0] > scrolls[1] and scrolls[2] <= viewport["width"], f"the table's box: {scrolls}"
    assert measured["scroll"] <= measured["window"], f"the demo page is wider than the phone: {measured}"


@pytest.mark.parametrize("viewport", [390], indirect=True, ids=lambda w: f"{w}px")
def test_a_table_wider_than_the_phone_says_it_scrolls_until_scrolled_to_its_end(
    browser: Browser, base_url: str, viewport: ViewportSize
) -> None:
    """A card's attempts: its Result column is past the edge of a phone, and a line above the
    table says so (with a shade on the side that has more) until the table is scrolled to its end."""
    client = csrf_client(base_url, page="/")
    answered = client.post(f"/api/cards/{OWNER_CARD}/attempts", json=attempt_payload(rating="good"))
    assert answered.status_code == 201, answered.text
    with open_page(browser, viewport) as page:
        page.goto(f"{base_url}/cards/{OWNER_CARD}/history")
        box = page.locator(".table-wrap").first
        cue = page.locator(".scroll-cue").first
        assert "scrolls" in (box.get_attribute("class") or "")
        assert cue.is_visible() and "scroll the table sideways" in cue.inner_text()
        result = box.locator("th", has_text="Result")
        assert result.evaluate("el => el.getBoundingClientRect().right") > viewport["width"]
        box.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        page.wait_for_function("() => document.querySelector('.scroll-cue').hidden")
        assert result.evaluate("el => el.getBoundingClientRect().right") <= viewport["width"]
