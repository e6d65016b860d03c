"""Every page fits a phone: nothing scrolls sideways at 360 and 390 px (long code wraps or scrolls
in its own box, wide tables and timelines scroll inside their container or reflow), and the page
list is checked against the app's route table so a new page cannot be left out."""

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from app.factory import create_app
from app.settings import Settings
from app.web.openapi import route_table
from tests.helpers.browser import SITE_PAGES, Site, SitePage, site_page

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
