"""A person practises the owner's card in headless chromium, end to end."""

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.factories import DECK
from tests.helpers.browser import is_pitfall

CARD = "tf-data-prefetch-last"


def test_switch_tiers_without_reload_and_screenshot_each(
    fresh_url: str, page: Page, screenshot_dir: Path
) -> None:
    # A site of its own: whether the spoilers start open depends on this person's history.
    page.goto(f"{fresh_url}/cards/{CARD}")
    expect(page.locator("h1")).to_contain_text("go last in a pipeline?")
    page.evaluate("window.markerFromBeforeSwitch = 42")  # gone if the page fully reloads
    for tier in ("junior", "middle", "senior", "principal"):
        page.click(f'.tier-switch a[data-tier="{tier}"]')
        expect(page).to_have_url(re.compile(rf"tier={tier}"))
        expect(page.locator('.tier-switch [aria-current="true"]')).to_have_text(tier)
        quiz_choice = page.locator("#quiz input[name=choices]").first
        expect(quiz_choice).to_be_attached()  # loaded into place
        expect(quiz_choice).to_be_hidden()  # nothing answered yet: the spoilers stay shut
        page.click("#spoilers summary")
        expect(quiz_choice).to_be_visible()
        expect(page.locator("#history .hint")).to_have_count(0)
        page.screenshot(path=str(screenshot_dir / f"card-{tier}.png"), full_page=True)
    assert page.evaluate("window.markerFromBeforeSwitch") == 42
    expect(page.locator(".follow-up")).to_have_count(4)
    page.click('.tier-switch a[data-tier="junior"]')
    expect(page.locator(".follow-up")).to_have_count(0)


def test_answer_reveal_tick_rate_quiz_and_history(page: Page, base_url: str, screenshot_dir: Path) -> None:
    page.goto(f"{base_url}/cards/{CARD}?tier=middle")
    expect(page.locator("#answer-panel .model-answer")).to_have_count(0)
    page.fill("#answer-text", "It overlaps the input work of the next step with compute. <b>not bold</b>")
    page.click("text=Submit answer")
    model = page.locator("#answer-panel .model-answer")
    expect(model).to_contain_text("strictly serial")
    expect(page.locator("#answer-panel .your-answer").first).to_contain_text("<b>not bold</b>")
    boxes = page.locator("#answer-panel .checklist input[type=checkbox]")
    expect(boxes).to_have_count(5)
    boxes.nth(0).check()
    boxes.nth(1).check()
    page.click("#answer-panel .rating button[value=good]")
    expect(page.locator("#answer-panel .saved")).to_contain_text("rated good, 2 of 5 points covered")
    expect(page.locator("#history .attempt").first).to_contain_text("2 / 5")
    page.screenshot(path=str(screenshot_dir / "card-answered.png"), full_page=True)

    follow_up = page.locator("#follow-up-1")
    follow_up.locator("textarea").fill("Feed a constant batch with from_tensors(batch).repeat().")
    follow_up.locator("button[type=submit]").click()
    expect(page.locator("#follow-up-1 .model-answer")).to_contain_text("from_tensors")
    page.locator("#follow-up-1 .rating button[value=easy]").click()
    expect(page.locator("#follow-up-1 .saved")).to_contain_text("rated easy")

    for box in page.locator("#quiz input[name=choices]").all():
        if is_pitfall(box, CARD):
            box.check()
    page.click("text=Check my picks")
    expect(page.locator(".quiz .score")).to_contain_text("100 %")
    expect(page.locator(".quiz-results li.wrong")).to_have_count(0)
    page.screenshot(path=str(screenshot_dir / "card-quiz.png"), full_page=True)

    page.reload()
    # The history loads into the page by htmx after it is shown.
    expect(page.locator("#history .attempt").first).to_be_visible()
    kinds = page.locator("#history .attempt").evaluate_all("rows => rows.map(r => r.dataset.kind)")
    assert kinds[:3] == ["quiz", "follow-up", "solid"]
    stored = httpx.get(f"{base_url}/api/attempts", params={"card_id": CARD}).json()
    assert {a["kind"] for a in stored[:3]} == {"quiz", "follow-up", "solid"}


def test_library_filters_live(page: Page, base_url: str, screenshot_dir: Path) -> None:
    deck = DECK.values()
    page.goto(base_url)
    expect(page.locator(".card-item")).to_have_count(len(deck))
    page.fill("#q", "cache")
    expect(page.locator(".card-item")).to_have_count(sum("cache" in c.title.markdown.lower() for c in deck))
    expect(page).to_have_url(re.compile(r"q=cache"))
    page.fill("#q", "")
    page.select_option("select[name=level]", "senior")
    expect(page.locator(".card-item")).to_have_count(sum(c.level == "senior" for c in deck))
    expect(page.locator(".card-item .badge.level").first).to_have_text(re.compile("senior"))
    page.select_option("select[name=level]", "")
    page.screenshot(path=str(screenshot_dir / "library.png"), full_page=True)


@pytest.mark.parametrize("tier", ["junior", "principal"])
def test_empty_answer_is_refused_in_place(page: Page, base_url: str, tier: str) -> None:
    page.goto(f"{base_url}/cards/{CARD}?tier={tier}")
    page.fill("#answer-text", "   ")
    page.click("text=Submit answer")
    expect(page.locator(".answer-panel .errors")).to_have_text("Your answer is empty.")
    expect(page.locator("#answer-panel .model-answer")).to_have_count(0)


def test_api_docs_render_every_endpoint(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/docs")
    expect(page.locator(".opblock").first).to_be_visible(timeout=15_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/cards/{card_id}/attempts" in paths and "/api/demos" in paths
