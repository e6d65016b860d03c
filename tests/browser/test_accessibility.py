"""Every page to WCAG 2.2 AA as axe-core checks it, on a phone and a laptop; a skip link, visible
focus rings; after an in-page update focus lands on the new content's heading and a live region
says what changed; demo timelines answer a tap and the keyboard.

axe-core is the npm package scripts/install-npm-packages.sh puts in tests/browser/axe/node_modules."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from tests.factories import DECK
from tests.helpers.browser import (
    BLOCKING,
    SITE_PAGES,
    Site,
    SitePage,
    axe_violations,
    described,
    open_page,
    save_screenshot,
    site_page,
)


@pytest.mark.parametrize("entry", SITE_PAGES, ids=lambda entry: entry.name)
def test_no_serious_or_critical_violations(
    browser: Browser, site: Site, entry: SitePage, viewport: ViewportSize, screenshot_dir: Path
) -> None:
    with site_page(browser, site, entry, viewport) as page:
        if entry.screenshot:  # the main pages, at both widths, for people to look at
            save_screenshot(page, screenshot_dir, f"{entry.name}-{viewport['width']}")
        violations = axe_violations(page)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert blocking == [], f"{entry.name} at {viewport['width']} px:\n{described(blocking)}"


def test_the_skip_link_comes_first_and_moves_focus_to_the_content(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/progress")
    page.keyboard.press("Tab")
    skip = page.locator(":focus")
    expect(skip).to_have_text("Skip to content")
    expect(skip).to_be_in_viewport()  # shown while focused
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.keyboard.press("Tab")
    # The next stop is in the page's content, past the site's navigation.
    assert page.evaluate("document.activeElement.closest('main') !== null")


def test_focus_rings_are_visible(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/cards/tf-data-prefetch-last?tier=middle")
    for _ in range(4):
        page.keyboard.press("Tab")
        ring = page.evaluate(
            """() => { const s = getComputedStyle(document.activeElement);
                       return {style: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor,
                               tag: document.activeElement.tagName}; }"""
        )
        assert ring["style"] == "solid" and ring["width"] >= 2, ring


def test_after_submitting_an_answer_focus_is_on_the_new_panel_and_it_is_announced(
    page: Page, base_url: str
) -> None:
    page.goto(f"{base_url}/cards/tf-data-prefetch-last?tier=middle")
    announcer = page.locator("#announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    page.fill("#answer-text", "Prefetch overlaps producing the next batch with this step's compute.")
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#answer-panel .model-answer")).to_be_visible()
    heading = page.locator("#answer-panel h2")
    expect(heading).to_be_focused()
    expect(announcer).to_have_text(heading.inner_text())

    # Rating keeps focus on the pressed button (the form around it is replaced) and says it saved.
    page.locator("#answer-panel .rating button[value=good]").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#answer-panel .saved")).to_be_visible()
    expect(page.locator("#answer-panel .rating button[value=good]")).to_be_focused()
    expect(announcer).to_contain_text("rated good")


def test_library_search_says_how_many_cards_match(page: Page, base_url: str) -> None:
    titles = [card.title.markdown.lower() for card in DECK.values()]
    matching = sum("cache" in title for title in titles)
    page.goto(base_url)
    page.fill("#q", "cache")
    expect(page.locator(".card-item")).to_have_count(matching)
    expect(page.locator("#announcer")).to_have_text(f"{matching} of {len(titles)} cards")
    expect(page.locator("#q")).to_be_focused()  # typing goes on where it was


def test_timeline_bars_show_their_numbers_by_tap_and_keyboard(browser: Browser, site: Site) -> None:
    phone: ViewportSize = {"width": 390, "height": 844}
    with open_page(browser, phone, site.cookies["ada"], site.url, has_touch=True) as page:
        page.goto(f"{site.url}/demos/{site.params['run_id']}")
        expect(page.get_by_text(re.compile("Hover a bar"))).to_have_count(0)  # a phone cannot hover
        first = page.locator("figure.timeline").first
        readout = first.locator("[data-readout]")
        bar = first.locator("g.bars-compute rect").nth(2)
        bar.scroll_into_view_if_needed()
        bar.tap()
        expect(readout).to_have_text(
            re.compile(r"^Step 3 of 8: [\d.]+ ms computing, after [\d.]+ ms waiting")
        )

        # From the keyboard: one Tab stop per timeline, arrows move between its bars in time order.
        first.locator("rect.bar").first.focus()
        expect(readout).to_have_text(re.compile(r"^Step 1 of 8"))
        page.keyboard.press("End")
        expect(readout).to_have_text(re.compile(r"^Step 8 of 8: [\d.]+ ms computing"))
        page.keyboard.press("ArrowLeft")
        expect(readout).to_have_text(re.compile(r"^Step 8 of 8: [\d.]+ ms waiting for input|^Step 7 of 8"))
        assert first.locator('rect.bar[tabindex="0"]').count() == 1
