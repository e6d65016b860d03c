"""A quick review on a phone (390 px): after the answer, the answer points come first, the long
answer and the code fold away, and the 1-4 rating stays in view at the bottom, one thumb away,
without covering the end of the page. On a laptop the long parts stay open and the rating stays
where it is."""

from playwright.sync_api import Browser, Locator, Page, expect

from tests.factories import OWNER_CARD
from tests.helpers.browser import VIEWPORT_HEIGHTS, open_page

PHONE = {"width": 390, "height": VIEWPORT_HEIGHTS[390]}


def folded(answer: Locator) -> None:
    expect(answer.locator("ol.points")).to_be_visible()
    for part in ("details.long-answer", "details.code-block"):
        expect(answer.locator(part)).not_to_have_attribute("open", "")
        expect(answer.locator(f"{part} > summary")).to_be_visible()
    expect(answer.locator("details.long-answer > .prose")).to_be_hidden()
    expect(answer.locator("details.code-block > .code")).to_be_hidden()


def nothing_covered(page: Page, bar: Locator) -> None:
    """Scrolled to the very end, the page's last words sit above the bar, not under it."""
    # Scrolled until it stays at the end: focus moving to what a swap brought may scroll it back.
    page.wait_for_function(
        """() => { const end = document.documentElement.scrollHeight;
                   window.scrollTo(0, end);
                   const there = window.scrollY + window.innerHeight >= end - 1;
                   window.framesAtEnd = there ? (window.framesAtEnd || 0) + 1 : 0;
                   return window.framesAtEnd >= 10; }"""
    )
    expect(bar).to_be_in_viewport()
    last = page.evaluate(
        """() => { const boxes = [...document.querySelectorAll('main .panel')].map(p => p.getBoundingClientRect());
                   return Math.max(...boxes.map(b => b.bottom)); }"""
    )
    box = bar.bounding_box()
    assert box is not None and last <= box["y"] + 1, (last, box)


def test_practice_after_reveal_on_a_phone(browser: Browser, fresh_url: str) -> None:
    with open_page(browser, PHONE) as page:
        page.goto(f"{fresh_url}/practice")
        page.locator("[data-shortcut=reveal]").click()
        answer = page.locator("#practice-card .model-answer")
        expect(answer).to_be_visible()
        folded(answer)
        bar = page.locator(".practice-rate .rating-bar")
        page.evaluate("window.scrollTo(0, 0)")
        expect(bar).to_be_in_viewport()
        expect(bar.locator("button[value=good]")).to_be_in_viewport()
        # The folded code opens with a tap.
        answer.locator("details.code-block > summary").click()
        expect(answer.locator("details.code-block > .code")).to_be_visible()
        nothing_covered(page, bar)
        title = page.locator("#practice-card-heading").inner_text()
        bar.locator("button[value=good]").click()
        expect(page.locator("#practice-card-heading")).not_to_have_text(title)


def test_the_card_page_after_answering_on_a_phone(browser: Browser, fresh_url: str) -> None:
    with open_page(browser, PHONE) as page:
        page.goto(f"{fresh_url}/cards/{OWNER_CARD}?tier=middle")
        page.fill("#answer-text", "Prefetch overlaps input with compute.")
        page.get_by_role("button", name="Submit answer").click()
        answer = page.locator("#answer-panel .model-answer")
        expect(answer).to_be_visible()
        folded(answer)
        bar = page.locator("#answer-panel .rating-bar")
        expect(bar.locator("button[value=again]")).to_be_in_viewport()
        expect(bar.locator("button[value=easy]")).to_be_in_viewport()
        # A follow-up's own rating stays in its place: one bar at a time.
        page.locator("#follow-up-0 textarea").fill("Measure with a synthetic input.")
        page.locator("#follow-up-0 button[type=submit]").click()
        expect(page.locator("#follow-up-0 .model-answer")).to_be_visible()
        expect(page.locator("#follow-up-0 .rating")).to_have_css("position", "static")
        nothing_covered(page, bar)
        bar.locator("button[value=good]").click()
        expect(page.locator("#answer-panel .saved")).to_contain_text("rated good")


def test_on_a_laptop_the_long_parts_stay_open(fresh_url: str, page: Page) -> None:
    page.goto(f"{fresh_url}/cards/{OWNER_CARD}?tier=middle")
    page.get_by_role("button", name="Reveal without answering").click()
    answer = page.locator("#answer-panel .model-answer")
    expect(answer.locator("details.long-answer > .prose")).to_be_visible()
    expect(answer.locator("details.code-block > .code")).to_be_visible()
