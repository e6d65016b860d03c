"""A person answers the owner's card in headless chromium and meets the checker's suggestion: the
evidence highlighted, the checklist pre-ticked with it; they untick one, rate, and what is saved is
theirs."""

import httpx
from playwright.sync_api import Page, expect

from app.coverage.checker import check
from tests.factories import DECK, OWNER_CARD
from tests.helpers.suggestions import ANSWER, MARKED

CARD = DECK[OWNER_CARD]


def test_the_suggestion_pre_ticks_and_the_persons_ticks_are_saved(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/cards/{OWNER_CARD}?tier=middle")
    page.fill("#answer-text", ANSWER)
    page.click("text=Submit answer")
    # Focus moves to the new content, as after every other swap.
    expect(page.locator("#answer-heading")).to_be_focused()
    marks = page.locator("#answer-panel .your-answer mark")
    expect(marks).to_have_text(MARKED)
    expect(page.locator("#answer-panel .suggestions")).to_contain_text("your own ticks and rating decide")
    suggested = check(CARD, ANSWER).covered
    boxes = page.locator("#answer-panel .checklist input[name=points]")
    checked = boxes.evaluate_all("boxes => boxes.filter(b => b.checked).map(b => b.value)")
    assert checked == suggested and len(suggested) >= 2
    page.locator(f'#answer-panel .checklist input[value="{suggested[0]}"]').uncheck()
    page.click("#answer-panel .rating button[value=hard]")
    expect(page.locator("#answer-panel .saved")).to_contain_text(
        f"rated hard, {len(suggested) - 1} of {len(CARD.points)} points covered"
    )
    latest = httpx.get(f"{base_url}/api/attempts", params={"card_id": OWNER_CARD}).json()[0]
    assert (latest["text"], latest["rating"], latest["point_ids"]) == (ANSWER, "hard", suggested[1:])
