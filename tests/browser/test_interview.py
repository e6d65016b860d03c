"""A three-card mock interview end to end in headless chromium, on a phone, from the keyboard:
typed answers sent with Ctrl+Enter, rated with the digit keys, one follow-up after each card, a
reload in the middle that comes back to the same step, and the summary."""

import re

from playwright.sync_api import Browser, Page, expect

from tests.helpers.browser import VIEWPORT_HEIGHTS, open_page

PHONE = {"width": 390, "height": VIEWPORT_HEIGHTS[390]}


def no_sideways_scroll(page: Page) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the page is {wide} px wider than the phone"


def answer_by_keyboard(page: Page, text: str) -> None:
    box = page.locator("#interview-text")
    box.click()
    box.type(text)
    box.press("Control+Enter")
    expect(page.locator("#interview-step button.rate")).to_have_count(4)
    # Focus moved to the answer's heading, out of the text box, so the digit keys rate.
    expect(page.locator("#interview-step-heading")).to_be_focused()


def test_a_three_card_mock_interview_with_a_reload_in_the_middle(browser: Browser, base_url: str) -> None:
    with open_page(browser, PHONE) as page:
        page.goto(f"{base_url}/interview")
        page.check('input[name="source"][value="random"]')
        page.select_option('select[name="tier"]', "middle")
        page.fill('input[name="count"]', "3")
        page.click("text=Start the interview")
        expect(page).to_have_url(re.compile(r"/interview/\d+$"))
        titles = []
        for number in (1, 2, 3):
            step = page.locator("#interview-step")
            expect(step.locator(".interview-progress")).to_have_text(f"Card {number} of 3")
            expect(step.locator(".model-answer")).to_have_count(0)
            no_sideways_scroll(page)
            titles.append(step.locator("h2").inner_text())
            answer_by_keyboard(page, f"My typed answer number {number}: it overlaps input with compute.")
            expect(step.locator(".model-answer")).to_be_visible()
            no_sideways_scroll(page)
            if number == 2:
                page.reload()  # answered, not rated: back to the same step, still rateable
                expect(page.locator("#interview-step .your-answer")).to_contain_text(
                    "My typed answer number 2"
                )
                expect(page.locator("#interview-step h2")).to_have_text(titles[-1])
                page.locator("#interview-step h2").focus()
            page.keyboard.press("3")  # good
            expect(page.locator("#interview-step .interview-progress")).to_contain_text("follow-up")
            answer_by_keyboard(page, "A follow-up answer, typed.")
            page.keyboard.press("4")  # easy
        summary = page.locator("#interview-step")
        expect(summary.locator("h2")).to_have_text("Summary")
        no_sideways_scroll(page)
        cards = summary.locator(".interview-summary > li")
        expect(cards).to_have_count(3)
        assert [t.strip() for t in cards.locator("> h3").all_inner_texts()] == [t.strip() for t in titles]
        expect(summary.locator(".interview-follow-up")).to_have_count(3)
        expect(summary.locator(".interview-card > .answered .answered-rating")).to_have_text(["good"] * 3)
        expect(summary.locator(".interview-follow-up .answered-rating")).to_have_text(["easy"] * 3)
        url = page.url
        page.reload()
        expect(page.locator("#interview-step h2")).to_have_text("Summary")
        page.goto(f"{base_url}/interview")
        expect(
            page.locator(f'section[aria-labelledby="past-heading"] a[href="{url.split(base_url)[1]}"]')
        ).to_have_count(1)
