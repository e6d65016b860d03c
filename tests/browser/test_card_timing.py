"""Fair timing on the card page, in chromium with its clock under the test's control: the countdown
waits for the first keystroke or "Start the clock", survives a refused submit and a reload, asks
before an unsent answer is left behind, and a reveal without answering ends the attempt."""

import re
from typing import Any

import httpx
from playwright.sync_api import Dialog, Page, expect

from tests.factories import OWNER_CARD

CARD_URL = f"/cards/{OWNER_CARD}"


def newest_attempt(base_url: str) -> dict[str, Any]:
    attempts: list[dict[str, Any]] = httpx.get(
        f"{base_url}/api/attempts", params={"card_id": OWNER_CARD}
    ).json()
    return attempts[0]


def open_card(page: Page, base_url: str, tier: str = "junior") -> None:
    page.clock.install()
    page.goto(f"{base_url}{CARD_URL}?tier={tier}")
    expect(page.locator("#history h2")).to_be_visible()  # the person's part has loaded
    expect(page.locator("[data-timer-start]")).to_be_visible()  # the clock is set up


def test_the_countdown_waits_for_the_first_keystroke(page: Page, base_url: str) -> None:
    open_card(page, base_url)
    timer = page.locator(".answer-panel [data-answer-timer]")
    expect(timer).to_have_text("0:20 left")
    page.locator(".expectations summary").click()  # reading what is expected costs nothing
    page.clock.run_for(15_000)
    expect(timer).to_have_text("0:20 left")
    page.locator("#answer-text").press_sequentially("Prefetch")
    page.clock.run_for(5_000)
    expect(timer).to_have_text(re.compile(r"^0:1[56] left$"))
    expect(page.locator("[data-timer-start]")).to_be_hidden()
    page.clock.run_for(20_000)
    expect(timer).to_have_text(re.compile(r"^\+0:0[56] over$"))
    expect(timer).to_have_class(re.compile("overtime"))
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator(".took")).to_contain_text("over")
    assert 24 <= newest_attempt(base_url)["seconds"] <= 27


def test_start_the_clock_starts_it_without_typing(page: Page, base_url: str) -> None:
    open_card(page, base_url, tier="middle")
    page.get_by_role("button", name="Start the clock").click()
    expect(page.locator("#answer-text")).to_be_focused()
    page.clock.run_for(10_000)
    expect(page.locator(".answer-panel [data-answer-timer]")).to_have_text(re.compile(r"^0:(40|41) left$"))


def test_a_refused_submit_keeps_the_answer_and_the_clock(page: Page, base_url: str) -> None:
    open_card(page, base_url)
    page.locator("#answer-text").press_sequentially("   ")
    page.clock.run_for(6_000)
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator(".answer-panel .errors")).to_have_text("Your answer is empty.")
    expect(page.locator("#answer-text")).to_have_value("   ")
    page.clock.run_for(2_000)
    expect(page.locator(".answer-panel [data-answer-timer]")).to_have_text(re.compile(r"^0:1[23] left$"))


def test_a_reload_keeps_the_unsent_answer_and_its_time_until_it_is_sent(page: Page, base_url: str) -> None:
    open_card(page, base_url)
    page.locator("#answer-text").press_sequentially("It overlaps input with compute")
    page.clock.run_for(7_000)
    page.once("dialog", lambda dialog: dialog.accept())
    page.reload()
    expect(page.locator("#answer-text")).to_have_value("It overlaps input with compute")
    timer = page.locator(".answer-panel [data-answer-timer]")
    expect(timer).to_have_text(re.compile(r"^0:1[23] left$"))
    page.clock.run_for(5_000)
    expect(timer).to_have_text(re.compile(r"^0:1[23] left$"))  # paused until the person carries on
    expect(page.locator("[data-draft-note]")).to_be_visible()
    page.locator("#answer-text").press_sequentially(".")
    page.clock.run_for(3_000)
    page.get_by_role("button", name="Submit answer").click()
    expect(page.locator("#answer-panel .your-answer")).to_have_text("It overlaps input with compute.")
    assert 9 <= newest_attempt(base_url)["seconds"] <= 12
    page.reload()  # sent: nothing is kept any more
    expect(page.locator("[data-timer-start]")).to_be_visible()
    expect(page.locator("#answer-text")).to_have_value("")
    expect(page.locator(".answer-panel [data-answer-timer]")).to_have_text("0:20 left")


def test_leaving_with_an_unsent_answer_asks_first(page: Page, base_url: str) -> None:
    open_card(page, base_url)
    asked: list[str] = []

    def stay(dialog: Dialog) -> None:
        asked.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", stay)
    page.locator("header.site").get_by_role(
        "link", name="Library"
    ).click()  # nothing typed: leaves without asking
    expect(page).to_have_url(f"{base_url}/")
    assert asked == []
    open_card(page, base_url)
    page.locator("#answer-text").press_sequentially("half an answer")
    page.locator("header.site").get_by_role("link", name="Library").click()
    page.wait_for_timeout(500)
    assert asked == ["beforeunload"]
    expect(page).to_have_url(re.compile(rf"{CARD_URL}\?tier=junior$"))
    expect(page.locator("#answer-text")).to_have_value("half an answer")


def test_reveal_without_answering_stops_the_clock_and_is_recorded_as_such(page: Page, base_url: str) -> None:
    open_card(page, base_url, tier="senior")
    page.locator("#answer-text").press_sequentially("the model answer is probably")
    page.clock.run_for(4_000)
    page.get_by_role("button", name="Reveal without answering").click()
    panel = page.locator("#answer-panel")
    expect(panel.locator(".note")).to_contain_text("Revealed without answering")
    expect(panel.locator(".model-answer")).to_contain_text("strictly serial")
    expect(panel.locator("textarea, button[type=submit], [data-answer-timer]")).to_have_count(0)
    stored = newest_attempt(base_url)
    assert stored["revealed"] is True and stored["text"] is None and 4 <= stored["seconds"] <= 6
    expect(page.locator("#history .attempt").first).to_contain_text("revealed without answering")
    page.reload()  # the attempt is over: nothing of it is kept to be sent later
    expect(page.locator("#answer-text")).to_have_value("")
