"""A version note in the browser: beside the claim it quotes, closed to one line, opened by click
or keyboard, and loading what the demo measured without taking the reader's place on the page."""

from pathlib import Path

from playwright.sync_api import Browser, ViewportSize, expect

from tests.factories import OWNER_CARD
from tests.helpers.browser import open_page, save_screenshot, unfold_the_long_answer

SERIAL = "strictly serial"


def test_the_middle_depth_shows_the_note_beside_the_claim_and_opens_it(
    browser: Browser, base_url: str, viewport: ViewportSize, screenshot_dir: Path
) -> None:
    with open_page(browser, viewport) as page:
        page.goto(f"{base_url}/cards/{OWNER_CARD}?tier=middle")
        page.get_by_role("button", name="Reveal without answering").click()
        expect(page.locator("#answer-panel .model-answer")).to_be_visible()
        unfold_the_long_answer(page)
        note = page.locator("details.version-note", has=page.locator("q", has_text=SERIAL))
        expect(note).to_have_count(1)
        # Right after the paragraph that makes the claim, not gathered at the bottom.
        claim = note.locator("xpath=preceding-sibling::*[1]")
        expect(claim).to_contain_text("a training step is strictly serial")
        summary = note.locator("summary")
        expect(summary).to_contain_text("TensorFlow 2.21")
        expect(note.locator(".note-body")).to_be_hidden()
        summary.focus()
        page.keyboard.press("Enter")
        expect(note.locator(".note-body")).to_be_visible()
        figure = note.locator(".evidence .figure")
        expect(figure).to_contain_text("Not measured on this server yet")
        expect(note.locator("form.demo-form button[type=submit]")).to_have_text("Run it live")
        # Loading the figures leaves the reader on the note they opened.
        expect(summary).to_be_focused()
        note.scroll_into_view_if_needed()
        save_screenshot(page, screenshot_dir, f"card-note-middle-{viewport['width']}")
