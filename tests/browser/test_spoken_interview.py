"""A two-card mock interview held out loud in headless chromium, on the whole site with its worker:
each question is said by the worker's voice and plays; hands-free, recording starts when it ends,
chromium's fake microphone answers (a clip said by flite), the recording stops itself after the
silence, is transcribed and sent; the follow-up asked after the answer that missed a point is the
one that probes it; "I don't know" ends it; the summary shows why each follow-up was asked, what
was covered and missed, how it was said and the transcript. The first card at 1280 px, its
follow-up and the second card at 390, the summary at both; axe finds no serious problem in any
hands-free state (the question waiting to play, recording, the summary).

The fake microphone plays its file once per browser, so each answer is said by a browser of its
own, opened on the session's page, which comes back to the question the session is at.

With TIERCARDS_SITE_URL set (a running `make run`, one person, no sign-in), the same walk-through
runs against that deployment instead, its screenshots in the screenshot folder:

    TIERCARDS_SITE_URL=http://127.0.0.1:8000 .venv/bin/python -m pytest tests/browser/test_spoken_interview.py
"""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Playwright, ViewportSize, expect

from app.speech.accuracy import word_error_rate
from tests.factories import DECK, OWNER_CARD
from tests.helpers.browser import (
    BLOCKING,
    Site,
    axe_violations,
    described,
    fake_microphone_args,
    launch_chromium,
    open_page,
    save_screenshot,
)
from tests.helpers.clients import csrf_client
from tests.helpers.interview import MISSES_THE_FIFTH
from tests.speech.clips import joined, speak

SECOND = "tf-data-shuffle-buffer"
# The follow-up the owner's card asks after an answer missing its fifth point, answered.
FOLLOW_UP_ANSWER = (
    "The pipeline is slower than the model on average, so the buffer drains. Add parallelism where "
    "the time goes: parallel map calls and interleave for the reads, and check the profiler."
)
SHUFFLE_ANSWER = (
    "Shuffle keeps a buffer of that many elements, outputs a random one and refills the slot from the "
    "input. A bigger buffer mixes over a wider window but holds more memory and must fill before the "
    "first element. For data bigger than memory, shuffle the file order, interleave files, then shuffle."
)
# Transcribing, with the worker's model loading for the first one.
HEARD_WITHIN_MS = 150_000
LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
PERSON = "ada"
# Every question that ends playing is noted, so the test can tell it was heard.
NOTE_PLAYED = """
window.__played = [];
document.addEventListener("ended", (event) => window.__played.push(event.target.currentSrc), true);
"""


def clip(text: str, folder: Path) -> Path:
    """`text` said by flite, then silence long enough for hands-free to stop recording."""
    path, _ = joined([0.5, speak(text, voice="rms", folder=folder), 5.0], folder=folder)
    return path


@pytest.fixture(scope="module")
def spoken_site(request: pytest.FixtureRequest) -> Site:
    """The deployment TIERCARDS_SITE_URL names (one person, signed in as nobody), else the site
    the browser tests start."""
    url = os.environ.get("TIERCARDS_SITE_URL")
    if url:
        return Site(url=url.rstrip("/"), params={}, cookies={PERSON: {}})
    site: Site = request.getfixturevalue("site")
    return site


def heading(page: Page) -> str:
    return page.locator("#interview-step h2").inner_text().strip()


def accessible(page: Page, state: str) -> None:
    blocking = [v for v in axe_violations(page) if v["impact"] in BLOCKING]
    assert blocking == [], f"{state}:\n{described(blocking)}"


def answer_aloud(
    playwright: Playwright,
    site: Site,
    url: str,
    said: Path,
    folder: Path,
    name: str,
    viewport: ViewportSize = LAPTOP,
) -> str:
    """Open the session at the question it asks, hear it, and let hands-free answer it with `said`;
    the heading of what comes next."""
    browser = launch_chromium(playwright, *fake_microphone_args(said))
    try:
        with open_page(browser, viewport, site.cookies[PERSON], site.url) as page:
            page.add_init_script(NOTE_PLAYED)
            page.goto(url)
            asked = heading(page)
            expect(page.locator("[data-hands-free]")).to_be_checked()  # a spoken session: on at first
            audio = page.locator("#interview-step audio[data-question-audio]")
            assert re.fullmatch(r"/api/voice/[0-9a-f]{64}", audio.get_attribute("src") or "")
            save_screenshot(page, folder, f"interview-spoken-{name}-{viewport['width']}")
            accessible(page, f"{name}: the question, waiting to play")
            # Reopened, the page has not been used yet, so the browser waits for one press to play.
            page.get_by_role("button", name=re.compile("Hear the question")).click()
            stop = page.locator("#interview-step [data-recorder-stop]")
            expect(stop).to_be_visible(timeout=HEARD_WITHIN_MS)  # hands-free: recording once it ends
            accessible(page, f"{name}: recording")
            expect(page.locator("#interview-step h2")).not_to_have_text(asked, timeout=HEARD_WITHIN_MS)
            assert page.evaluate("window.__played.length") >= 1, "the question never played to its end"
            return heading(page)
    finally:
        browser.close()


def test_a_two_card_interview_held_out_loud_follows_up_on_the_missed_point(
    playwright: Playwright, spoken_site: Site, tmp_path: Path, screenshot_dir: Path
) -> None:
    site = spoken_site
    owner, shuffle = DECK[OWNER_CARD], DECK[SECOND]
    client = csrf_client(site.url, page="/interview", cookies=site.cookies[PERSON])
    try:
        started = client.post("/api/interviews", json={"cards": [OWNER_CARD, SECOND], "tier": "middle"})
    finally:
        client.close()
    assert started.status_code == 201, started.text
    url = f"{site.url}/interview/{started.json()['id']}"

    # 1. An answer that misses the fifth point: the follow-up tied to it comes next.
    after = answer_aloud(playwright, site, url, clip(MISSES_THE_FIFTH, tmp_path), screenshot_dir, "question")
    assert after == owner.follow_ups[0].title.plain
    # 2. The follow-up answered: the next card.
    said = clip(FOLLOW_UP_ANSWER, tmp_path)
    after = answer_aloud(playwright, site, url, said, screenshot_dir, "follow-up", PHONE)
    assert after == shuffle.title.plain
    # 3. The second card answered well: a follow-up goes deeper or after a point it missed.
    said = clip(SHUFFLE_ANSWER, tmp_path)
    after = answer_aloud(playwright, site, url, said, screenshot_dir, "second", PHONE)
    assert after != shuffle.title.plain and after != "Summary"
    browser = launch_chromium(playwright)
    try:
        with open_page(browser, LAPTOP, site.cookies[PERSON], site.url) as page:
            page.goto(url)
            # Typing and the buttons stay at every step: "I don't know" ends it.
            page.get_by_role("button", name="I don't know").click()
            expect(page.locator("#interview-step h2")).to_have_text("Summary")
            expect(page.locator("#interview-step-heading")).to_be_focused()
            summary = page.locator("#interview-step")
            follow_ups = summary.locator(".interview-follow-up")
            expect(follow_ups).to_have_count(2)
            expect(follow_ups.first.locator(".answered-why")).to_have_text(
                f"Asked because of the answer before it: missed point 5: {owner.points[4].plain}"
            )
            expect(follow_ups.nth(1).locator(".answered-outcome")).to_have_text("Said “I don't know”.")
            first = summary.locator(".interview-card").first
            expect(first.locator("> .answered .read-missed")).to_contain_text(owner.points[4].plain)
            expect(first.locator("> .answered .answered-delivery")).to_contain_text("words a minute")
            first.locator("> .answered .answered-text summary").click()
            heard = first.locator("> .answered .answered-text p").inner_text()
            assert word_error_rate(MISSES_THE_FIFTH, heard) <= 0.35, heard
            save_screenshot(page, screenshot_dir, "interview-spoken-summary-1280")
            accessible(page, "the summary")
            page.set_viewport_size(PHONE)
            wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert wide <= 0, f"the summary is {wide} px wider than the phone"
            save_screenshot(page, screenshot_dir, "interview-spoken-summary-390")
    finally:
        browser.close()
