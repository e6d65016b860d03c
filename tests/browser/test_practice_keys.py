"""/practice driven from the keyboard alone: Space reveals, 1-4 rate, typing is left alone."""

import httpx
from playwright.sync_api import Page, expect


def test_space_reveals_and_a_digit_rates_then_the_next_card_comes(fresh_url: str, page: Page) -> None:
    page.goto(f"{fresh_url}/practice")
    heading = page.locator("#practice-card-heading")
    first_title = heading.inner_text()
    page.locator("#practice-text").fill("1 2 3 prefetch overlaps")
    expect(page.locator("#practice-text")).to_have_value("1 2 3 prefetch overlaps")
    expect(page.locator("#practice-card .model-answer")).to_have_count(0)  # typing did not trigger keys

    page.keyboard.press("Escape")
    page.keyboard.press(" ")
    expect(page.locator("#practice-card .model-answer")).to_be_visible()
    page.keyboard.press("3")
    expect(heading).not_to_have_text(first_title)

    cards = httpx.get(f"{fresh_url}/api/cards").json()["cards"]
    rated = [
        c["id"]
        for c in cards
        if httpx.get(f"{fresh_url}/api/cards/{c['id']}/schedule").json()["state"] != "new"
    ]
    assert len(rated) == 1
    attempts = httpx.get(f"{fresh_url}/api/attempts").json()
    assert attempts[0]["text"] == "1 2 3 prefetch overlaps" and attempts[0]["rating"] == "good"
