"""A person answers a card in headless chromium, reloads before rating, and finds the answer
waiting in their history with the model answer and the rating buttons; the rating they give there
is saved, the card says when it comes back, and Undo puts the answer back to rate."""

import httpx
from playwright.sync_api import Page, expect

from tests.factories import OWNER_CARD

ANSWER = "Prefetch goes last so the whole pipeline overlaps with the training step; reload test."


def test_an_answer_reloaded_before_rating_is_rated_from_the_history(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/cards/{OWNER_CARD}?tier=middle")
    page.fill("#answer-text", ANSWER)
    page.click("text=Submit answer")
    expect(page.locator("#answer-panel form.assessment .rating button")).to_have_count(4)
    page.reload()
    waiting = page.locator("#history .unrated").first
    expect(waiting.locator(".your-answer")).to_contain_text("reload test")
    expect(waiting.locator(".model-answer")).to_be_visible()
    waiting.locator(".rating button[value=good]").click()
    saved = page.locator("#history .saved")
    expect(saved).to_contain_text("rated good")
    expect(saved.locator(".next-review")).to_contain_text("Next review in")
    expect(page.locator("#history .unrated form.assessment")).to_have_count(0)
    latest = httpx.get(f"{base_url}/api/attempts", params={"card_id": OWNER_CARD}).json()[0]
    assert (latest["text"], latest["rating"]) == (ANSWER, "good")
    # Undo: the answer waits to be rated again.
    saved.locator("button.undo").click()
    expect(page.locator("#history .unrated form.assessment .rating button")).to_have_count(4)
    latest = httpx.get(f"{base_url}/api/attempts", params={"card_id": OWNER_CARD}).json()[0]
    assert (latest["text"], latest["rating"]) == (ANSWER, None)
    page.locator("#history .unrated .rating button[value=hard]").first.click()
    expect(page.locator("#history .saved")).to_contain_text("rated hard")


def test_a_digit_rates_an_answer_brought_back_after_a_reload(page: Page, base_url: str) -> None:
    card = "tf-data-cache-shuffle-order"
    page.goto(f"{base_url}/cards/{card}?tier=middle")
    page.fill("#answer-text", "Cache before shuffle, so each epoch reshuffles; digit test.")
    page.click("text=Submit answer")
    expect(page.locator("#answer-panel form.assessment .rating button")).to_have_count(4)
    page.reload()
    expect(page.locator("#history .unrated .your-answer, #history .unrated .suggestions")).not_to_have_count(
        0
    )
    page.keyboard.press("3")  # the waiting answer is below the fold: the key still finds it
    expect(page.locator("#history .saved")).to_contain_text("rated good")
    latest = httpx.get(f"{base_url}/api/attempts", params={"card_id": card}).json()[0]
    assert latest["rating"] == "good"
